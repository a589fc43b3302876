//! A scenario's network without its endpoints, for a back-end that puts real hosts at the flows'
//! ends: the Linux back-end's link emulator (crate `tcplab-emu`) runs these very channels (queue
//! disciplines, rates, schedules, traces, delay, jitter and loss) in real time between kernel TCP
//! stacks, so one implementation of a link serves both back-ends.

use super::build::schedule_link_changes;
use super::Simulation;
use crate::net::topology::Network;
use crate::sim::EventQueue;
use crate::tcp::TcpConfig;
use crate::time::{SimDuration, SimTime};
use crate::traffic::Application;

/// What a flow's real endpoints need to know: where they are and what the application does, as
/// the simulator resolved it (start spread drawn, units converted).
#[derive(Clone, Debug)]
pub struct FlowEnds {
    /// The flow's place among all flows (TCP and UDP share one numbering), as in the flows table.
    pub flow_id: usize,
    pub name: String,
    /// Sender and receiver node indices.
    pub source: u32,
    pub sink: u32,
    /// Propagation delay there and back, as the simulator computes it.
    pub base_rtt: SimDuration,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    /// The application's writing rate (TCP) or constant bit rate (UDP), bits per second.
    pub rate_bps: Option<u64>,
    /// On/off periods: (on, off, exponentially distributed).
    pub on_off: Option<(SimDuration, SimDuration, bool)>,
    /// TCP: the algorithm, the connection's options, and a finite transfer's size in bytes.
    pub tcp: Option<(String, TcpConfig, Option<u64>)>,
    /// UDP: a datagram's size on the wire.
    pub datagram_bytes: Option<u64>,
}

pub struct LinkNetwork {
    /// Channels with their queues sized and random streams seeded exactly as in a simulation of
    /// the same scenario, and the routes between nodes.
    pub network: Network,
    /// Channel index -> (link name, "forward" or "reverse").
    pub channel_labels: Vec<(String, &'static str)>,
    /// The links' rate and delay steps, scheduled; nothing else.
    pub events: EventQueue,
    /// Every flow's ends, by flow id.
    pub flows: Vec<FlowEnds>,
}

impl Simulation {
    /// Keeps the network and drops the simulated endpoints.
    pub fn into_link_network(self) -> LinkNetwork {
        let mut flows: Vec<FlowEnds> = Vec::with_capacity(self.tcp.len() + self.udp.len());
        for f in &self.tcp {
            let mut ends = ends(f.id, &f.name, (f.source, f.sink), f.base_rtt, &f.app);
            ends.tcp = Some((f.algorithm.clone(), f.sender.config().clone(), f.size));
            flows.push(ends);
        }
        for f in &self.udp {
            let mut ends = ends(f.id, &f.name, (f.source, f.sink), f.base_rtt, &f.app);
            ends.datagram_bytes = Some(f.packet_bytes);
            flows.push(ends);
        }
        flows.sort_by_key(|f| f.flow_id);
        let mut events = EventQueue::new();
        schedule_link_changes(&self.network, &mut events);
        LinkNetwork { network: self.network, channel_labels: self.channel_labels, events, flows }
    }
}

fn ends(flow_id: usize, name: &str, (source, sink): (u32, u32), base_rtt: SimDuration, app: &Application) -> FlowEnds {
    FlowEnds {
        flow_id,
        name: name.to_string(),
        source,
        sink,
        base_rtt,
        start: app.start,
        stop: app.stop,
        rate_bps: app.rate,
        on_off: app.on_off.as_ref().map(|o| (o.on, o.off, o.exponential)),
        tcp: None,
        datagram_bytes: None,
    }
}
