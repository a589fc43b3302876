//! Traffic: what applications offer to the transport over time.
//!
//! - `application.rs`: when an application is active (start, stop, on/off periods, constant or
//!   exponential) and how fast it writes (as fast as TCP takes data, or at a fixed rate);
//! - `udp.rs`: constant-bit-rate UDP datagrams and their counters;
//! - `patterns.rs`: data-center traffic patterns (permutation, incast senders, Poisson arrivals);
//! - `workloads.rs`: the web-search and data-mining flow-size distributions.
//!
//! The sources know nothing of the event loop: `simulation/applications.rs` turns their decisions
//! into scheduled events.

pub mod application;
pub mod patterns;
pub mod udp;
pub mod workloads;

pub use application::{Application, OnOff};
pub use udp::UdpStats;
