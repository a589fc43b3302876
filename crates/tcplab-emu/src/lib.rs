//! The Linux back-end's link emulator. Real hosts (network namespaces with kernel TCP) send IP
//! packets into TUN devices; the emulator reads them, passes them through the scenario's links as
//! the simulator builds them (the same `Channel`s: queue disciplines, rates and their schedules,
//! traces, propagation delay, jitter and loss), in real time, and writes each one into the TUN
//! device of the host it is addressed to. One implementation of a link, two back-ends.
//!
//! - `tun.rs`: a TUN device (IP packets, no Ethernet, no offloads);
//! - `ipv4.rs`: what the emulator reads from and writes into a packet's headers;
//! - `realtime.rs`: the monotonic clock, waiting for packets or the next event, real-time priority;
//! - `emulator.rs`: the hosts, the event loop and the links' results.

pub mod emulator;
pub mod ipv4;
pub mod realtime;
pub mod tun;

pub use emulator::{host_address, EmulatorError, EmulatorStats, HostDevice, LinkEmulator, FLOW_PORT_BASE};
