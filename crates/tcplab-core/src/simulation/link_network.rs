//! A scenario's network without its endpoints, for a back-end that puts real hosts at the flows'
//! ends: the Linux back-end's link emulator (crate `tcplab-emu`) runs these very channels (queue
//! disciplines, rates, schedules, traces, delay, jitter and loss) in real time between kernel TCP
//! stacks, so one implementation of a link serves both back-ends. `describe` writes the same
//! network out for a back-end that builds it in another simulator (ns-2).

use serde_json::{json, Value};

use super::build::schedule_link_changes;
use super::Simulation;
use crate::net::queue::QueueLimit;
use crate::net::topology::Network;
use crate::net::wire::LossModel;
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
    /// A restarting flow (`restart = true`): the pause between a transfer's end and the next.
    pub restart_think_time: Option<SimDuration>,
}

pub struct LinkNetwork {
    /// Channels with their queues sized and random streams seeded exactly as in a simulation of
    /// the same scenario, and the routes between nodes.
    pub network: Network,
    /// The links' rate and delay steps, scheduled; nothing else.
    pub events: EventQueue,
    /// Every flow's ends, by flow id.
    pub flows: Vec<FlowEnds>,
}

impl Simulation {
    /// Keeps the network and drops the simulated endpoints.
    pub fn into_link_network(self) -> LinkNetwork {
        let mut flows: Vec<FlowEnds> = Vec::with_capacity(self.tcp.len() + self.udp.len());
        for (f, label) in self.tcp.iter().zip(&self.tcp_labels) {
            let mut ends = ends(label.id, &label.name, (f.source, f.sink), label.base_rtt, &f.app);
            ends.tcp = Some((label.algorithm.to_string(), f.sender.config().clone(), f.size));
            ends.restart_think_time = f.restart.as_ref().map(|r| r.think_time);
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
        LinkNetwork { network: self.network, events, flows }
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
        restart_think_time: None,
    }
}

impl LinkNetwork {
    /// The network as JSON, for a back-end that builds it in another simulator: `nodes` (name,
    /// router or host), `channels` (one per link direction, in the links table's order: link name,
    /// direction, ends as node indices, rate in bit/s, delay in ns, the queue discipline's
    /// settings with its limit in packets or bytes, the loss model), and `flows` (ends, start and
    /// stop in ns, the application, and for TCP the algorithm and every connection option).
    /// Each direction's drifting extra delay (`drift`: [min, max, interval] in ns, or null), so a
    /// back-end can draw the same kind of path. Rate schedules, other jitter, outages and traces
    /// are the scenario's keys; a back-end reads them there, so that it can name the key it
    /// cannot express.
    pub fn describe(&self) -> Value {
        let nodes: Vec<Value> =
            self.network.nodes.iter().map(|n| json!({ "name": n.name, "router": n.is_router })).collect();
        let channels: Vec<Value> = self
            .network
            .channels
            .iter()
            .zip(&self.network.setups)
            .zip(self.network.channel_labels())
            .map(|((channel, setup), (link, direction))| {
                let queue = channel.queue_settings();
                let (limit_packets, limit_bytes) = match queue.limit {
                    QueueLimit::Packets(n) => (Some(n), None),
                    QueueLimit::Bytes(b) => (None, Some(b)),
                };
                let parameters: serde_json::Map<String, Value> =
                    queue.parameters.iter().map(|(name, value)| (name.to_string(), json!(value))).collect();
                json!({
                    "link": link,
                    "direction": direction,
                    "from": channel.from,
                    "to": channel.to,
                    "rate_bps": channel.rate_bps(),
                    "delay_ns": channel.delay,
                    // What BDP buffers and thresholds were resolved against.
                    "bdp_rtt_ns": setup.bdp_rtt,
                    "bdp_bytes": channel.rate_bps() as f64 * setup.bdp_rtt as f64 / 8e9,
                    // Steps of the propagation delay: [time, new delay] in nanoseconds.
                    "delay_schedule": channel.delay_schedule(),
                    "drift": channel.drift().map(|(min, max, interval)| [min, max, interval]),
                    "queue": {
                        "kind": queue.kind,
                        "limit_packets": limit_packets,
                        "limit_bytes": limit_bytes,
                        "parameters": parameters,
                    },
                    "loss": loss_json(channel.loss_model()),
                })
            })
            .collect();
        let flows: Vec<Value> = self.flows.iter().map(flow_json).collect();
        json!({ "nodes": nodes, "channels": channels, "flows": flows })
    }
}

fn loss_json(loss: &LossModel) -> Value {
    match loss {
        LossModel::None => Value::Null,
        LossModel::Bernoulli { probability } => json!({ "model": "bernoulli", "p": probability }),
        LossModel::GilbertElliott { good_to_bad, bad_to_good, loss_in_good, loss_in_bad, .. } => json!({
            "model": "gilbert_elliott",
            "p_good_to_bad": good_to_bad,
            "p_bad_to_good": bad_to_good,
            "loss_in_good": loss_in_good,
            "loss_in_bad": loss_in_bad,
        }),
    }
}

fn flow_json(f: &FlowEnds) -> Value {
    let mut flow = json!({
        "flow_id": f.flow_id,
        "name": f.name,
        "source": f.source,
        "sink": f.sink,
        "base_rtt_ns": f.base_rtt,
        "start_ns": f.start,
        "stop_ns": f.stop,
        "rate_bps": f.rate_bps,
        "on_off_ns": f.on_off.map(|(on, off, _)| [on, off]),
        "on_off_exponential": f.on_off.is_some_and(|(_, _, exponential)| exponential),
        "datagram_bytes": f.datagram_bytes,
        "restart_think_time_ns": f.restart_think_time,
        "protocol": if f.tcp.is_some() { "tcp" } else { "udp" },
    });
    if let Some((algorithm, config, size)) = &f.tcp {
        flow["cc"] = json!(algorithm);
        flow["size_bytes"] = json!(size);
        flow["tcp"] = serde_json::to_value(config).expect("a TCP config is plain data");
    }
    flow
}
