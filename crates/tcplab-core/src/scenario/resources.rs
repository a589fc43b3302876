//! What a run will cost, estimated before it starts, so that a scenario that would take days or
//! exhaust memory is refused with the key to change (and how far) instead of aborting or hanging.
//!
//! The estimates are deliberately simple upper-range figures, not predictions:
//! - memory: every time-series row (one per flow and one per link direction at each sample, kept
//!   as columns and copied once into the results), each flow's state, the packets the buffers
//!   can hold, and captured packets (full-sized packets at each captured direction's rate);
//! - events: packets per second on the busiest shared link (TCP flows cannot together exceed it),
//!   times the hops and events a packet takes, plus each UDP source's sends and each on/off
//!   application's toggles, which no link limits; plus the samples.
//!
//! The limits are `simulation.max_memory` and `simulation.max_events`.

use serde::Deserialize;
use serde_json::Value;

use super::error::ScenarioError;
use super::model::default_max_memory;
use super::model::{FlowSpec, LinkSpec, Protocol, Scenario, SeriesKind, TopologyKind};
use crate::time::{as_secs_f64, NANOS_PER_SEC};
use crate::units::{Buffer, Bytes};

/// Bytes a time-series row costs: a flow row (8 values) and a link-direction row (4 values),
/// with the copy made for the results.
const FLOW_ROW_BYTES: f64 = 150.0;
const LINK_ROW_BYTES: f64 = 60.0;
/// A TCP flow's sender, receiver and distributions, its hosts' links and its packets (measured:
/// 12.4 KB a flow at 100,000 flows on a 100 Gbit/s dumbbell without time series).
pub(super) const FLOW_STATE_BYTES: f64 = 13_000.0;
/// A packet slot in the pool.
const PACKET_BYTES: f64 = 160.0;
/// Events per packet and hop, counting the ACKs TCP sends back (measured: 1.3 per hop).
const EVENTS_PER_PACKET_HOP: f64 = 1.5;
const TYPICAL_PACKET_BITS: f64 = 1500.0 * 8.0;
/// A captured packet: its copy during the run and its pcap record (headers only) after it.
const CAPTURED_PACKET_BYTES: f64 = 250.0;

impl Scenario {
    pub(super) fn check_resources(&self) -> Result<(), ScenarioError> {
        let duration_s = as_secs_f64(self.simulation.duration.nanos());
        let samples = duration_s / as_secs_f64(self.simulation.sample_interval.nanos()) + 1.0;
        let flows: f64 = self.flows.iter().map(|f| f.count as f64).sum();
        let channels = self.channel_count(flows);
        let kept = |kind| if self.simulation.time_series.contains(&kind) { 1.0 } else { 0.0 };
        let series = samples
            * (kept(SeriesKind::Flows) * flows * FLOW_ROW_BYTES + kept(SeriesKind::Queues) * channels * LINK_ROW_BYTES);
        let fixed = flows * FLOW_STATE_BYTES + self.buffered_packets() * PACKET_BYTES;
        let limit = self.simulation.max_memory.0 as f64;
        if series + fixed > limit {
            return Err(self.memory_error(series, fixed, samples, flows, limit));
        }
        let captured = self.capture_bytes(duration_s);
        if series + fixed + captured > limit {
            return Err(ScenarioError::new(
                "simulation.capture",
                format!(
                    "capturing {} for {} needs about {}, which with the rest of the run is more than \
                     simulation.max_memory = {}; capture fewer link directions or a shorter run, or \
                     raise simulation.max_memory",
                    self.simulation.capture.join(", "),
                    self.simulation.duration,
                    human_bytes(captured),
                    human_bytes(limit)
                ),
            ));
        }
        let (per_second, dominant) = self.events_per_second();
        let events = duration_s * per_second + samples;
        let max_events = self.simulation.max_events as f64;
        if events > max_events {
            let longest = (max_events - samples).max(0.0) / per_second.max(1.0);
            return Err(ScenarioError::new(
                "simulation.duration",
                format!(
                    "{} with {dominant} means about {events:.1e} events (at 5 million a second, {}); \
                     the longest duration within simulation.max_events = {:.0e} is about {}; \
                     raise simulation.max_events to run it anyway",
                    self.simulation.duration,
                    human_time(events / 5e6),
                    max_events,
                    human_time(longest)
                ),
            ));
        }
        Ok(())
    }

    fn memory_error(&self, series: f64, fixed: f64, samples: f64, flows: f64, limit: f64) -> ScenarioError {
        let limit_text = format!("simulation.max_memory = {}", human_bytes(limit));
        if fixed < limit {
            // Time series can be made to fit: the sample interval is what to change.
            let per_sample = series / samples;
            let fitting_samples = ((limit - fixed) / per_sample).max(1.0);
            let duration_s = as_secs_f64(self.simulation.duration.nanos());
            let smallest = duration_s / fitting_samples;
            ScenarioError::new(
                "simulation.sample_interval",
                format!(
                    "{} over {} with {flows:.0} flows needs about {} of time series; the smallest interval \
                     within {limit_text} is about {}; raise simulation.max_memory to run it anyway",
                    self.simulation.sample_interval,
                    self.simulation.duration,
                    human_bytes(series + fixed),
                    human_time(smallest)
                ),
            )
        } else {
            too_many_flows(flows, fixed, limit)
        }
    }

    /// Captured packets, as full-sized packets at the rate of each captured direction (an entry
    /// without a direction counts twice; names the topology does not give, such as generated
    /// access links, count at the fastest link's rate).
    fn capture_bytes(&self, duration_s: f64) -> f64 {
        let fastest = self.links().map(|l| l.rate.bps()).max().unwrap_or(0) as f64;
        self.simulation
            .capture
            .iter()
            .map(|entry| {
                let (name, directions) = match entry.split_once(':') {
                    Some((name, _)) => (name, 1.0),
                    None => (entry.as_str(), 2.0),
                };
                let named = self.links().find(|l| l.name.as_deref() == Some(name)).map(|l| l.rate.bps() as f64);
                let rate = match (named, name) {
                    (Some(rate), _) => rate,
                    (None, "bottleneck") => self.topology.bottleneck.as_ref().map_or(fastest, |b| b.rate.bps() as f64),
                    (None, _) => fastest,
                };
                directions * rate * duration_s / TYPICAL_PACKET_BITS * CAPTURED_PACKET_BYTES
            })
            .sum()
    }

    /// Link directions the topology will have: hosts are joined by one access link each.
    fn channel_count(&self, flows: f64) -> f64 {
        let topology = &self.topology;
        if topology.kind.is_fabric() {
            return 2.0 * self.fabric_link_counts().iter().map(|(_, count)| count).sum::<f64>();
        }
        let hosts = 2.0 * flows;
        let core = match topology.kind {
            TopologyKind::Dumbbell => 1.0,
            TopologyKind::Chain => topology.hops.as_ref().map_or(0, Vec::len) as f64,
            TopologyKind::Custom => topology.links.as_ref().map_or(0, Vec::len) as f64,
            TopologyKind::FatTree | TopologyKind::LeafSpine => 0.0,
        };
        2.0 * (core + if topology.kind == TopologyKind::Custom { 0.0 } else { hosts })
    }

    /// Packets all buffers given in packets or bytes can hold (BDP buffers are bounded by what
    /// the links carry, and counted in the events instead).
    fn buffered_packets(&self) -> f64 {
        let counted: Vec<(&LinkSpec, f64)> = if self.topology.kind.is_fabric() {
            self.fabric_link_counts()
        } else {
            self.links().map(|link| (link, 1.0)).collect()
        };
        counted
            .into_iter()
            .map(|(link, count)| {
                count
                    * match link.buffer {
                        Buffer::Packets(n) => n as f64,
                        Buffer::Bytes(b) => b as f64 / 64.0,
                        Buffer::Bdp(_) => 0.0,
                    }
            })
            .sum::<f64>()
            * 2.0
    }

    /// Every link the topology names, whatever its kind.
    pub(super) fn links(&self) -> impl Iterator<Item = &LinkSpec> {
        let topology = &self.topology;
        topology
            .bottleneck
            .iter()
            .chain(&topology.access)
            .chain(topology.hops.iter().flatten())
            .chain(topology.links.iter().flatten())
            .chain(&topology.edge_agg)
            .chain(&topology.agg_core)
            .chain(&topology.uplink)
    }

    /// Events per simulated second, and what causes most of them (for the message).
    fn events_per_second(&self) -> (f64, String) {
        // Every dumbbell flow crosses the bottleneck; elsewhere a flow may use only fast links.
        let fastest_link = match (&self.topology.kind, &self.topology.bottleneck) {
            (TopologyKind::Dumbbell, Some(bottleneck)) => bottleneck.rate.bps() as f64,
            _ => self.links().map(|l| l.rate.bps() as f64).fold(0.0, f64::max),
        };
        let hops = match self.topology.kind {
            TopologyKind::Dumbbell => 3.0,
            TopologyKind::Chain => self.topology.hops.as_ref().map_or(1, Vec::len) as f64 + 2.0,
            TopologyKind::Custom => self.topology.links.as_ref().map_or(1, Vec::len) as f64,
            // Host, edge, aggregation, core, aggregation, edge, host: six links at most.
            TopologyKind::FatTree => 6.0,
            TopologyKind::LeafSpine => 4.0,
        };
        // TCP flows share the links: together they cannot send faster than the fastest one.
        let network = 2.0 * fastest_link / TYPICAL_PACKET_BITS * hops * EVENTS_PER_PACKET_HOP;
        let mut total = network;
        let mut dominant = (network, format!("links up to {}bps", si(fastest_link)));
        for (index, flow) in self.flows.iter().enumerate() {
            let own = flow.count as f64 * own_events_per_second(flow);
            total += own;
            if own > dominant.0 {
                dominant = (own, format!("flows[{index}] ({})", own_events_cause(flow)));
            }
        }
        (total, dominant.1)
    }
}

/// The error for flows whose state alone exceeds `limit`.
fn too_many_flows(flows: f64, fixed: f64, limit: f64) -> ScenarioError {
    ScenarioError::new(
        "flows",
        format!(
            "{flows:.0} flows and the buffers' packets need about {} before any time series, more than \
             simulation.max_memory = {}; use fewer flows or smaller buffers, or raise simulation.max_memory",
            human_bytes(fixed),
            human_bytes(limit)
        ),
    )
}

/// Refuses, from the parsed document and before it becomes a [`Scenario`], flows whose state
/// alone would exceed `simulation.max_memory`: the error `check_resources` gives them, without
/// first holding every `[[flows]]` entry as a `FlowSpec` (about 2 KB each: 657,894 entries once
/// asked for a 2 GB vector, and aborted the process where memory was limited). Since a flow's
/// state is estimated at six times its entry, what passes here keeps the entries within a sixth
/// of the limit. Values serde will refuse are left to it.
pub(super) fn check_flow_entries(document: &Value) -> Result<(), ScenarioError> {
    let Some(entries) = document.get("flows").and_then(Value::as_array) else {
        return Ok(());
    };
    let limit = match document.get("simulation").and_then(|s| s.get("max_memory")) {
        None => default_max_memory().0 as f64,
        Some(value) => match Bytes::deserialize(value) {
            Ok(bytes) => bytes.0 as f64,
            Err(_) => return Ok(()),
        },
    };
    let flows: f64 = entries.iter().map(|entry| entry.get("count").and_then(Value::as_u64).unwrap_or(1) as f64).sum();
    let fixed = flows * FLOW_STATE_BYTES;
    if fixed > limit {
        return Err(too_many_flows(flows, fixed, limit));
    }
    Ok(())
}

/// Events a flow's application makes by itself, whatever the network does: a UDP source's
/// datagrams and an on/off application's toggles.
fn own_events_per_second(flow: &FlowSpec) -> f64 {
    let mut events = 0.0;
    if flow.protocol == Protocol::Udp {
        let packet_bits = flow.packet_size.map_or(1500, |b: Bytes| b.0).max(1) as f64 * 8.0;
        events += flow.rate.map_or(0.0, |r| r.bps() as f64) / packet_bits;
    }
    if let (Some(on), Some(off)) = (flow.on_time, flow.off_time) {
        let period = (on.nanos() + off.nanos()).max(1) as f64 / NANOS_PER_SEC as f64;
        events += 2.0 / period;
    }
    events
}

fn own_events_cause(flow: &FlowSpec) -> String {
    match (flow.protocol, flow.on_time, flow.off_time) {
        (_, Some(on), Some(off)) if (on.nanos() + off.nanos()) < 1_000_000 => {
            format!("on/off periods of {on} and {off}")
        }
        (Protocol::Udp, ..) => format!("UDP at {}", flow.rate.map_or("?".into(), |r| r.to_string())),
        _ => "its application".into(),
    }
}

fn si(value: f64) -> String {
    match value {
        v if v >= 1e9 => format!("{:.0}G", v / 1e9),
        v if v >= 1e6 => format!("{:.0}M", v / 1e6),
        v => format!("{v:.0}"),
    }
}

pub(super) fn human_bytes(bytes: f64) -> String {
    match bytes {
        b if b >= 1e9 => format!("{:.1} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.0} MB", b / 1e6),
        b => format!("{:.0} KB", b / 1e3),
    }
}

fn human_time(seconds: f64) -> String {
    match seconds {
        s if s >= 2.0 * 86_400.0 => format!("{:.0} days", s / 86_400.0),
        s if s >= 2.0 * 3600.0 => format!("{:.0} hours", s / 3600.0),
        s if s >= 120.0 => format!("{:.0} minutes", s / 60.0),
        s if s >= 1.0 => format!("{s:.0} s"),
        s if s >= 1e-3 => format!("{:.0} ms", s * 1e3),
        s if s >= 1e-6 => format!("{:.0} us", s * 1e6),
        s => format!("{:.0} ns", s * 1e9),
    }
}
