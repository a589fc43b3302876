//! The emulator: one TUN device per host of the scenario, and the scenario's links between them,
//! run by the simulator's own channels on a real-time clock.
//!
//! The loop: wait until a host sends a packet or the next link event is due; run every event that
//! is due (a transmitter frees, a packet reaches the end of a wire, a rate or delay step, a
//! sample); read every packet waiting; repeat. A packet read from host h enters the network at h's
//! node and is routed exactly as in a simulation; when it reaches the node it is addressed to, its
//! bytes go into that host's TUN device. The packets' bytes wait beside the packet pool, in a
//! slot per pool slot, so queueing a real packet costs no allocation.

use std::collections::HashMap;
use std::io;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicBool, Ordering};

use libc::pollfd;
use tcplab_core::histogram::DelayHistogram;
use tcplab_core::metrics::{link_table, TimeSeries};
use tcplab_core::net::packet::{Ecn, Packet, PacketId, PacketKind, PacketPool};
use tcplab_core::net::topology::NO_ROUTE;
use tcplab_core::results::Table;
use tcplab_core::sim::{Event, NextHop};
use tcplab_core::simulation::{sample_queues, FlowEnds, LinkNetwork};
use tcplab_core::time::{SimDuration, SimTime};
use tcplab_core::{Scenario, ScenarioError, Simulation};

use crate::ipv4;
use crate::realtime;
use crate::tun::Tun;

/// Flow i's receiver listens on port FLOW_PORT_BASE + i (TCP or UDP). The emulator reads the flow
/// a packet belongs to from that port, so per-flow queueing (FQ-CoDel) classifies real packets
/// as it does simulated ones.
pub const FLOW_PORT_BASE: u16 = 20000;
/// The longest the loop sleeps without looking at the stop flag.
const MAX_WAIT: SimDuration = 5_000_000;
/// Larger than any IPv4 packet.
const READ_BUFFER_BYTES: usize = 65536;

/// A host's TUN device and address, for the caller that moves the device into the host's
/// namespace and configures it.
#[derive(Clone, Debug)]
pub struct HostDevice {
    pub node: String,
    pub device: String,
    pub address: Ipv4Addr,
}

/// Node n's address: 10.128.0.0 + n. Every host has a /32 on its TUN device and a route to
/// 10.128.0.0/9 through it.
pub fn host_address(node: u32) -> Ipv4Addr {
    Ipv4Addr::from(u32::from(Ipv4Addr::new(10, 128, 0, 0)) + node)
}

struct Host {
    node: u32,
    tun: Tun,
}

/// How the emulator itself did, beside the links' tables.
#[derive(Clone, Debug, Default)]
pub struct EmulatorStats {
    /// Whether the loop ran at real-time priority.
    pub realtime: bool,
    pub packets_read: u64,
    pub packets_written: u64,
    /// The largest IP packet a host sent: with no segmentation offload, at most the MTU.
    pub largest_packet_bytes: u32,
    /// Packets that were not IPv4, or were addressed to no host.
    pub packets_ignored: u64,
    /// Writes into a TUN device the kernel refused.
    pub write_failures: u64,
    /// How long after its due time each packet left a wire (its bytes written into the
    /// destination's TUN device, or handed to the next link): the emulator's timing error.
    pub lateness: DelayHistogram,
    /// Simulated time the loop stopped at.
    pub ran_for: SimTime,
    /// Per flow id: the time each data packet (TCP segment with payload, UDP datagram) took from
    /// its sender's TUN device to its receiver's.
    pub one_way_delay: Vec<DelayHistogram>,
    /// Per flow id: data packets the links discarded (full queue, AQM, lossy wire, outage).
    pub data_packets_lost: Vec<u64>,
}

pub struct LinkEmulator {
    links: LinkNetwork,
    pool: PacketPool,
    /// The bytes of the packet in each pool slot.
    frames: Vec<Vec<u8>>,
    hosts: Vec<Host>,
    host_of_node: Vec<Option<usize>>,
    node_of_address: HashMap<[u8; 4], u32>,
    sample_interval: SimDuration,
    /// The scenario's duration.
    duration: SimDuration,
    series: TimeSeries,
    transmitted_at_last_sample: Vec<u64>,
    stats: EmulatorStats,
}

impl LinkEmulator {
    /// Builds the scenario's network and a TUN device named `{device_prefix}{node}` for every node
    /// that is a flow's end.
    pub fn new(scenario: &Scenario, device_prefix: &str) -> Result<LinkEmulator, EmulatorError> {
        let links = Simulation::new(scenario)?.into_link_network();
        let sample_interval = scenario.simulation.sample_interval.nanos();
        let mut host_nodes: Vec<u32> = links.flows.iter().flat_map(|f| [f.source, f.sink]).collect();
        host_nodes.sort_unstable();
        host_nodes.dedup();
        let mut hosts = Vec::with_capacity(host_nodes.len());
        let mut host_of_node = vec![None; links.network.nodes.len()];
        let mut node_of_address = HashMap::new();
        for node in host_nodes {
            let name = format!("{device_prefix}{}", links.network.nodes[node as usize].name);
            let tun = Tun::create(&name).map_err(|e| EmulatorError::Device(name.clone(), e))?;
            host_of_node[node as usize] = Some(hosts.len());
            node_of_address.insert(host_address(node).octets(), node);
            hosts.push(Host { node, tun });
        }
        let mut emulator = LinkEmulator {
            links,
            pool: PacketPool::default(),
            frames: Vec::new(),
            hosts,
            host_of_node,
            node_of_address,
            sample_interval,
            duration: scenario.simulation.duration.nanos(),
            series: TimeSeries::default(),
            transmitted_at_last_sample: Vec::new(),
            stats: EmulatorStats::default(),
        };
        emulator.stats.one_way_delay = vec![DelayHistogram::default(); emulator.links.flows.len()];
        emulator.links.events.schedule(0, Event::Sample);
        Ok(emulator)
    }

    pub fn hosts(&self) -> Vec<HostDevice> {
        let nodes = &self.links.network.nodes;
        self.hosts
            .iter()
            .map(|h| HostDevice {
                node: nodes[h.node as usize].name.clone(),
                device: h.tun.name.clone(),
                address: host_address(h.node),
            })
            .collect()
    }

    pub fn flows(&self) -> &[FlowEnds] {
        &self.links.flows
    }

    /// The scenario's duration and its sample interval.
    pub fn timing(&self) -> (SimDuration, SimDuration) {
        (self.duration, self.sample_interval)
    }

    pub fn node_name(&self, node: u32) -> &str {
        &self.links.network.nodes[node as usize].name
    }

    /// Runs the links from `epoch_ns` (`CLOCK_MONOTONIC`, the run's time zero) until `end` ns
    /// later or until `stop` is set.
    pub fn run(&mut self, epoch_ns: u64, end: SimTime, stop: &AtomicBool) -> io::Result<()> {
        self.stats.realtime = realtime::raise_to_realtime();
        let mut ready: Vec<pollfd> =
            self.hosts.iter().map(|h| pollfd { fd: h.tun.raw_fd(), events: libc::POLLIN, revents: 0 }).collect();
        let mut buffer = vec![0u8; READ_BUFFER_BYTES];
        // Packets sent before time zero (none are expected: the endpoints start later) wait.
        realtime::wait_readable(&mut [], epoch_ns.saturating_sub(realtime::monotonic_ns()))?;
        loop {
            let now = realtime::monotonic_ns().saturating_sub(epoch_ns);
            self.run_due_events(now.min(end), epoch_ns);
            if now >= end || stop.load(Ordering::Relaxed) {
                self.stats.ran_for = now.min(end);
                return Ok(());
            }
            for (index, host) in ready.iter_mut().enumerate() {
                if std::mem::take(&mut host.revents) & libc::POLLIN != 0 {
                    self.read_host(index, &mut buffer, epoch_ns)?;
                }
            }
            let now = realtime::monotonic_ns().saturating_sub(epoch_ns);
            let next = self.links.events.peek_time().unwrap_or(end).min(end);
            realtime::wait_readable(&mut ready, next.saturating_sub(now).min(MAX_WAIT))?;
        }
    }

    fn run_due_events(&mut self, now: SimTime, epoch_ns: u64) {
        while let Some(event) = self.links.events.pop_until(now) {
            self.dispatch(event, epoch_ns);
        }
        self.links.events.advance_to(now);
    }

    fn dispatch(&mut self, event: Event, epoch_ns: u64) {
        let channels = &mut self.links.network.channels;
        match event {
            Event::WireArrival { channel: index, packet, .. } => {
                channels[index as usize].on_head_arrival(index, &self.pool, &mut self.links.events);
                self.arrive(index, packet, epoch_ns);
            }
            Event::Arrival { channel, packet } => self.arrive(channel, packet, epoch_ns),
            Event::TransmitterFree { channel } => {
                channels[channel as usize].on_transmitter_free(channel, &mut self.pool, &mut self.links.events)
            }
            Event::RateChange { channel, index } => channels[channel as usize].apply_rate_change(index as usize),
            Event::DelayChange { channel, index } => channels[channel as usize].apply_delay_change(index as usize),
            Event::Sample => {
                let now = self.links.events.now();
                sample_queues(
                    &mut self.links.network,
                    now,
                    self.sample_interval,
                    &mut self.transmitted_at_last_sample,
                    &mut self.series,
                );
                self.links.events.schedule(now + self.sample_interval, Event::Sample);
            }
            // Endpoint events belong to simulated flows; the emulator's endpoints are real.
            _ => {}
        }
    }

    /// A packet left the wire of `channel` at its far node.
    fn arrive(&mut self, channel: u32, packet: PacketId, epoch_ns: u64) {
        let channel = &mut self.links.network.channels[channel as usize];
        channel.stats.delivered_packets += 1;
        let node = channel.to;
        let due = self.links.events.now();
        self.forward(node, packet);
        let late = realtime::monotonic_ns().saturating_sub(epoch_ns).saturating_sub(due);
        self.stats.lateness.record(late);
    }

    /// Moves a packet at `node` onto its next link, or out to its host.
    fn forward(&mut self, node: u32, packet: PacketId) {
        let (destination, flow) = (self.pool.get(packet).destination, self.pool.get(packet).flow_key());
        if destination == node {
            self.deliver(node, packet);
            return;
        }
        let channel = self.links.network.route(node, destination, flow);
        if channel == NO_ROUTE {
            self.stats.packets_ignored += 1;
            self.pool.release(packet);
            return;
        }
        self.links.network.channels[channel as usize].offer(
            channel,
            packet,
            NextHop::UNKNOWN,
            &mut self.pool,
            &mut self.links.events,
        );
    }

    fn deliver(&mut self, node: u32, packet: PacketId) {
        let header = *self.pool.get(packet);
        self.pool.release(packet);
        if header.kind != PacketKind::TcpAck {
            if let Some(delays) = self.stats.one_way_delay.get_mut(header.flow as usize) {
                delays.record(self.links.events.now() - header.sent_at);
            }
        }
        let frame = &mut self.frames[packet as usize];
        if header.ecn == Ecn::Ce {
            // A queue marked it (or it arrived marked: setting CE again changes nothing).
            ipv4::set_congestion_experienced(frame);
        }
        let host = self.host_of_node[node as usize].expect("packets are addressed to hosts only");
        match self.hosts[host].tun.write(frame) {
            Ok(()) => self.stats.packets_written += 1,
            Err(_) => self.stats.write_failures += 1,
        }
    }

    /// Every packet host `index` has sent, into the network at its node.
    fn read_host(&mut self, index: usize, buffer: &mut [u8], epoch_ns: u64) -> io::Result<()> {
        while let Some(length) = self.hosts[index].tun.read(buffer)? {
            let bytes = &buffer[..length];
            self.stats.packets_read += 1;
            let Some(datagram) = ipv4::inspect(bytes) else {
                self.stats.packets_ignored += 1;
                continue;
            };
            self.stats.largest_packet_bytes = self.stats.largest_packet_bytes.max(datagram.wire_bytes);
            let Some(&destination) = self.node_of_address.get(&datagram.destination) else {
                self.stats.packets_ignored += 1;
                continue;
            };
            // The clock moves on while packets are read: each enters at its own time.
            let now = realtime::monotonic_ns().saturating_sub(epoch_ns);
            self.run_due_events(now, epoch_ns);
            let id = self.pool.insert(Packet {
                kind: datagram.kind,
                flow: self.flow_of(&datagram),
                destination,
                wire_bytes: datagram.wire_bytes,
                payload_bytes: datagram.payload_bytes,
                ecn: datagram.ecn,
                sent_at: now,
                ..Packet::default()
            });
            if self.frames.len() <= id as usize {
                self.frames.resize_with(id as usize + 1, Vec::new);
            }
            let frame = &mut self.frames[id as usize];
            frame.clear();
            frame.extend_from_slice(bytes);
            let node = self.hosts[index].node;
            self.forward(node, id);
        }
        Ok(())
    }

    /// The scenario's flow a packet belongs to, from its receiver's port; packets of no flow
    /// share the number after the last flow.
    fn flow_of(&self, datagram: &ipv4::Datagram) -> u32 {
        let flows = self.links.flows.len() as u32;
        let of_port = |port: u16| port.checked_sub(FLOW_PORT_BASE).map(u32::from).filter(|&f| f < flows);
        let (source, destination) = datagram.ports;
        of_port(destination).or_else(|| of_port(source)).unwrap_or(flows)
    }

    /// The links table (as the simulator's), the queue time series, and the emulator's own
    /// counters.
    pub fn results(mut self) -> (Table, Table, EmulatorStats) {
        let duration = self.stats.ran_for.max(1);
        let flows = 0..self.links.flows.len() as u32;
        self.stats.data_packets_lost =
            flows.map(|f| self.pool.tcp_data_discarded(f) + self.pool.udp_discarded(f)).collect();
        self.links.network.catch_up(self.links.events.now());
        let links = link_table(&self.links.network, duration);
        let (_, queues) = self.series.into_tables(&self.links.network);
        (links, queues, self.stats)
    }
}

/// Why an emulator could not be built.
#[derive(Debug)]
pub enum EmulatorError {
    Scenario(ScenarioError),
    /// A TUN device could not be created: its name and the system's reason.
    Device(String, io::Error),
}

impl From<ScenarioError> for EmulatorError {
    fn from(error: ScenarioError) -> Self {
        EmulatorError::Scenario(error)
    }
}

impl std::fmt::Display for EmulatorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmulatorError::Scenario(error) => write!(f, "{error}"),
            EmulatorError::Device(name, error) => write!(f, "could not create TUN device {name}: {error}"),
        }
    }
}
