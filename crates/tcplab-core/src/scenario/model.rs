//! The scenario model: every key a scenario file may hold, as serde types. Unknown keys are
//! rejected at parse time; what the values mean is checked in `validate.rs`, and the defaults of
//! unset keys are written out in `defaults.rs`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

pub use super::tcp_spec::{TcpProfile, TcpSpec};
use super::traffic_spec::TrafficSpec;
use crate::net::cellular_trace::CellularTraceParams;
use crate::time::NANOS_PER_MILLI;
use crate::units::{Buffer, Bytes, Duration, Rate};

/// The receiver's ACK-delay mode is the TCP layer's type; a scenario names it in `tcp.ack_delay`.
pub use crate::tcp::AckDelayMode;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub simulation: SimulationSpec,
    pub topology: TopologySpec,
    #[serde(default)]
    pub tcp: TcpSpec,
    /// Flows given one by one; `traffic` patterns are expanded into more of them when the
    /// scenario is read (`Scenario::expand_traffic`).
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Traffic patterns (permutation, all-to-all, incast, Poisson arrivals): docs/datacenter.md.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traffic: Vec<TrafficSpec>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSpec {
    pub duration: Duration,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Run index: with the seed, selects the random streams (repetitions of one scenario).
    #[serde(default)]
    pub run: u64,
    #[serde(default = "default_sample_interval")]
    pub sample_interval: Duration,
    /// The most memory the run may need by tcplab's estimate (see `scenario/resources.rs`);
    /// raise it to run a larger scenario on purpose.
    #[serde(default = "default_max_memory")]
    pub max_memory: Bytes,
    /// The most events the run may take by tcplab's estimate (about 5 to 10 million a second of
    /// wall time on one core).
    #[serde(default = "default_max_events")]
    pub max_events: u64,
    /// Link directions to capture into pcap files: a link's name (both directions) or
    /// "name:forward" / "name:reverse".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capture: Vec<String>,
    /// The time series kept every `sample_interval`: a row per flow ("flows") and a row per link
    /// direction ("queues"), both unless the scenario says otherwise; `[]` keeps none. At 100,000
    /// flows a dumbbell has 400,000 link directions, and their rows would be most of the run's
    /// memory.
    #[serde(default = "default_time_series", skip_serializing_if = "is_default_time_series")]
    pub time_series: Vec<SeriesKind>,
}

/// A time series a run can keep (`simulation.time_series`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeriesKind {
    /// A row per flow per sample: window, RTT, rates, state (timeseries.parquet).
    Flows,
    /// A row per link direction per sample: queue length and throughput (queues.parquet).
    Queues,
}

fn default_time_series() -> Vec<SeriesKind> {
    vec![SeriesKind::Flows, SeriesKind::Queues]
}

fn is_default_time_series(kept: &[SeriesKind]) -> bool {
    kept == default_time_series()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    /// N senders -> left router -> bottleneck -> right router -> N receivers; one pair per flow.
    Dumbbell,
    /// Routers r0 .. r(n-1) in a line; flows enter and leave at any router.
    Chain,
    /// Named nodes and links given one by one.
    Custom,
    /// A k-ary fat tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge and k/2 aggregation
    /// switches, (k/2)^2 core switches, hosts h0 .. below the edge switches.
    FatTree,
    /// Leaf switches each joined to every spine switch, hosts h0 .. below the leaves.
    LeafSpine,
}

impl TopologyKind {
    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            TopologyKind::Dumbbell => "dumbbell",
            TopologyKind::Chain => "chain",
            TopologyKind::Custom => "custom",
            TopologyKind::FatTree => "fat_tree",
            TopologyKind::LeafSpine => "leaf_spine",
        }
    }

    /// Fat trees and leaf-spines: switches built by tcplab, hosts named h0, h1, ...
    pub fn is_fabric(self) -> bool {
        matches!(self, TopologyKind::FatTree | TopologyKind::LeafSpine)
    }
}

/// How a node chooses among next hops of equal cost (equal hops, then equal propagation delay).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Routing {
    /// One next hop per destination: the lowest-numbered node, then the link given first.
    Single,
    /// Per-flow equal-cost multipath: a hash of the flow (its index and direction), the node and
    /// the scenario's seed and run picks one next hop, so every packet of a flow takes one path.
    Ecmp,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    pub kind: TopologyKind,
    /// Dumbbell: the link between the two routers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<LinkSpec>,
    /// Dumbbell and chain: the links from hosts to routers (default: 10x the fastest core link,
    /// 1 ms, 1000 packets). Fat tree and leaf-spine: the links from hosts to their edge or leaf
    /// switch (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<LinkSpec>,
    /// Chain: number of routers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routers: Option<u32>,
    /// Chain: the links r0-r1, r1-r2, ... (one entry applies to every hop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hops: Option<Vec<LinkSpec>>,
    /// Custom: node names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<String>>,
    /// Custom: links with `from` and `to`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<LinkSpec>>,
    /// Fat tree: the switches' port count k (even, 4 to 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<u32>,
    /// Fat tree: each edge switch serves this many times k/2 hosts (default 1, Al-Fares's
    /// non-blocking tree); with equal link rates, the edge's uplinks then carry 1/oversubscription
    /// of what its hosts can send.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oversubscription: Option<u32>,
    /// Fat tree: the links between edge and aggregation switches (default: as `access`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge_agg: Option<LinkSpec>,
    /// Fat tree: the links between aggregation and core switches (default: as `edge_agg`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agg_core: Option<LinkSpec>,
    /// Leaf-spine: the number of leaf switches, of spine switches, and of hosts below each leaf.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaves: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spines: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts_per_leaf: Option<u32>,
    /// Leaf-spine: the links between leaves and spines (default: as `access`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink: Option<LinkSpec>,
    /// "single" or "ecmp"; default "ecmp" for fat trees and leaf-spines, "single" otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing: Option<Routing>,
    /// RTT that "BDP" buffers refer to; default: the mean base RTT of the flows crossing the link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bdp_rtt: Option<Duration>,
}

impl TopologySpec {
    /// The routing in force: as given, or the kind's default.
    pub fn routing(&self) -> Routing {
        self.routing.unwrap_or(if self.kind.is_fabric() { Routing::Ecmp } else { Routing::Single })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum QueueKind {
    #[default]
    #[serde(rename = "droptail")]
    DropTail,
    Red,
    Codel,
    FqCodel,
    Pie,
    /// Drop-tail with DCTCP's step marking at `threshold` (docs/queues/step.md).
    Step,
}

/// A queue discipline and its parameters. In a scenario either a name (`queue = "codel"`) or a
/// table (`queue = { kind = "red", max_p = 0.1 }`); unset parameters take the defaults in
/// docs/queues.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    pub kind: QueueKind,
    /// RED: thresholds of the average queue (default: buffer / 6 and buffer / 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_th: Option<Buffer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_th: Option<Buffer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_q: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_p: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gentle: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_mode: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_decay: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_packet_size: Option<Bytes>,
    /// RED with `ecn`: mark only while the probability is at most this, drop above it (ns-2's
    /// `use_mark_p_`/`mark_p_`; 1 marks at every probability).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_p: Option<f64>,
    /// RED, CoDel, FQ-CoDel, PIE: mark ECN-capable packets instead of dropping them early.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// CoDel, FQ-CoDel and PIE: the queueing delay aimed at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Duration>,
    /// PIE: the update period, the gains (per second) on the delay error and its trend, the burst
    /// allowance, and Linux's derandomised drops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tupdate: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_burst: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derandomize: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
    /// FQ-CoDel: number of sub-queues and the DRR quantum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Bytes>,
    /// Step: mark ECN-capable arrivals CE when at least this much already waits (packets,
    /// bytes or a multiple of the BDP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<Buffer>,
}

/// Reads `queue` as a name or as a table, keeping serde's errors (and their key paths).
fn deserialize_queue<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<QueueSpec, D::Error> {
    struct QueueVisitor;
    impl<'de> serde::de::Visitor<'de> for QueueVisitor {
        type Value = QueueSpec;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(
                "a queue name (\"droptail\", \"red\", \"codel\", \"fq_codel\", \"pie\", \"step\") or a table with `kind`",
            )
        }
        fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<QueueSpec, E> {
            let kind = QueueKind::deserialize(serde::de::value::StrDeserializer::<E>::new(name))?;
            Ok(QueueSpec { kind, ..QueueSpec::default() })
        }
        fn visit_map<M: serde::de::MapAccess<'de>>(self, map: M) -> Result<QueueSpec, M::Error> {
            QueueSpec::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    deserializer.deserialize_any(QueueVisitor)
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Custom topologies: the nodes the link joins (forward is from -> to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Duration,
    #[serde(default = "default_buffer")]
    pub buffer: Buffer,
    #[serde(default, deserialize_with = "deserialize_queue")]
    pub queue: QueueSpec,
    /// Exact receiver-based delay control (Active Delay Control): stamp packets with the delay a
    /// large FIFO at this link's rate would give them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rdc_stamp: bool,
    #[serde(default, skip_serializing_if = "DirectionSpec::is_empty")]
    pub forward: DirectionSpec,
    #[serde(default, skip_serializing_if = "DirectionSpec::is_empty")]
    pub reverse: DirectionSpec,
}

/// Settings of one direction of a link.
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DirectionSpec {
    /// Overrides the link's buffer for this direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Buffer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<JitterSpec>,
    /// Deliver at a trace's times instead of at the link's rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceSpec>,
    /// Windows in which every packet is lost.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outages: Vec<OutageSpec>,
    /// Rate changes over time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rate_schedule: Vec<RateStep>,
    /// Propagation delay changes over time (a route change, a satellite hop): packets leaving
    /// after a step take the new delay.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delay_schedule: Vec<DelayStep>,
}

impl DirectionSpec {
    /// Nothing set: the direction is left out when a scenario is written back.
    fn is_empty(&self) -> bool {
        self.buffer.is_none()
            && self.loss.is_none()
            && self.jitter.is_none()
            && self.trace.is_none()
            && self.outages.is_empty()
            && self.rate_schedule.is_empty()
            && self.delay_schedule.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossModelKind {
    Bernoulli,
    GilbertElliott,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    pub model: LossModelKind,
    /// Bernoulli: loss probability per packet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    /// Gilbert-Elliott: transition probabilities per packet and loss probability in each state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_good_to_bad: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_bad_to_good: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_in_good: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_in_bad: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JitterKind {
    Uniform,
    Normal,
    Drift,
    Harq,
}

/// What one HARQ outcome is drawn for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HarqUnit {
    /// All packets leaving in one slot share a draw: they form one transport block, and HARQ
    /// retransmits transport blocks.
    Slot,
    /// Each packet draws its own outcome.
    Packet,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JitterSpec {
    pub distribution: JitterKind,
    /// Uniform: extra delay drawn from [0, max]; drift: from [min, max].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Duration>,
    /// Drift: time between the values the delay moves between (default max - min).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
    /// HARQ: probability that a transmission attempt fails, the delay each retransmission adds
    /// and the most retransmissions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retransmission_delay: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retransmissions: Option<u32>,
    /// HARQ: draw one outcome per slot (default) or per packet, and the slot length (default 1 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<HarqUnit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<Duration>,
    /// Normal: mean and standard deviation of the extra delay (clamped at 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub std: Option<Duration>,
    /// Allow packets to overtake each other.
    #[serde(default)]
    pub reorder: bool,
}

/// A delivery trace: a mahimahi file, or one generated for the run.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// A mahimahi trace file (a relative path is relative to the scenario file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// A 5G-like trace generated from the direction's random stream (docs/traces.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cellular: Option<CellularTraceSpec>,
}

/// The 5G-like trace generator's parameters; unset ones take the generator's defaults.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellularTraceSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lte_rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nr_rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nr_on_mean: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nr_off_mean: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fading_std_db: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fading_coherence: Option<Duration>,
}

impl CellularTraceSpec {
    /// The generator's parameters, unset ones at their defaults.
    pub fn params(&self) -> CellularTraceParams {
        let defaults = CellularTraceParams::default();
        CellularTraceParams {
            length: self.length.map_or(defaults.length, |d| d.nanos()),
            lte_rate_bps: self.lte_rate.map_or(defaults.lte_rate_bps, |r| r.bps()),
            nr_rate_bps: self.nr_rate.map_or(defaults.nr_rate_bps, |r| r.bps()),
            nr_on_mean: self.nr_on_mean.map_or(defaults.nr_on_mean, |d| d.nanos()),
            nr_off_mean: self.nr_off_mean.map_or(defaults.nr_off_mean, |d| d.nanos()),
            fading_std_db: self.fading_std_db.unwrap_or(defaults.fading_std_db),
            fading_coherence: self.fading_coherence.map_or(defaults.fading_coherence, |d| d.nanos()),
        }
    }

    /// Every parameter set to its default, for listings (`tcplab trace --help`).
    pub fn defaults() -> CellularTraceSpec {
        let d = CellularTraceParams::default();
        CellularTraceSpec {
            length: Some(Duration(d.length)),
            lte_rate: Some(Rate(d.lte_rate_bps)),
            nr_rate: Some(Rate(d.nr_rate_bps)),
            nr_on_mean: Some(Duration(d.nr_on_mean)),
            nr_off_mean: Some(Duration(d.nr_off_mean)),
            fading_std_db: Some(d.fading_std_db),
            fading_coherence: Some(Duration(d.fading_coherence)),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutageSpec {
    pub at: Duration,
    pub duration: Duration,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateStep {
    pub at: Duration,
    pub rate: Rate,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayStep {
    pub at: Duration,
    pub delay: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    #[default]
    Tcp,
    Udp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum OnOffDistribution {
    #[default]
    Constant,
    Exponential,
}

/// Data a TCP on/off application wrote but TCP had not sent when the off period began.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum OffUnsent {
    /// Forgotten: the sender stops at once (an application that writes only while it is on and
    /// withdraws the rest).
    #[default]
    Discard,
    /// Kept in the send buffer and sent during the off period (ns-3's OnOffApplication over TCP).
    Keep,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default)]
    pub protocol: Protocol,
    /// TCP: the congestion control algorithm's registered name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<String>,
    /// TCP: the algorithm's parameters.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub params: Value,
    /// How many identical flows this entry stands for.
    #[serde(default = "default_count")]
    pub count: u32,
    #[serde(default)]
    pub start: Duration,
    /// Each flow starts at a uniformly random time in [start, start + start_spread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_spread: Option<Duration>,
    /// The application stops writing (TCP) or sending (UDP) at this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// TCP: a finite transfer of this many bytes (default: unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Bytes>,
    /// TCP: the application writes at this rate (default: as fast as TCP sends). UDP: the
    /// constant bit rate (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// UDP: datagram size on the wire (default 1500B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_size: Option<Bytes>,
    /// On/off application: active for `on_time`, silent for `off_time`, repeating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_time: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_time: Option<Duration>,
    #[serde(default)]
    pub on_off_distribution: OnOffDistribution,
    /// TCP on/off: what happens to data written but not yet sent when an off period begins.
    #[serde(default, skip_serializing_if = "is_default")]
    pub off_unsent: OffUnsent,
    /// TCP with `size`: a closed loop of transfers. When the receiver has the last byte, a new
    /// connection (fresh window and timers) sends the next `size` bytes after `think_time`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub restart: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_time: Option<Duration>,
    /// TCP options for these flows, over the scenario's `[tcp]` table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpSpec>,
    /// Dumbbell: one-way delay of the sender's access link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_delay: Option<Duration>,
    /// Chain and custom topologies: the node the flow enters at and the one it leaves at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

// What an absent key deserialises to (serde `default = "..."`); the defaults that depend on the rest
// of the scenario are filled in by `Scenario::resolved` in defaults.rs.

fn default_seed() -> u64 {
    1
}

/// Time-series resolution: 100 ms.
fn default_sample_interval() -> Duration {
    Duration(100 * NANOS_PER_MILLI)
}

/// 2 GB: well inside a laptop's memory.
pub(super) fn default_max_memory() -> Bytes {
    Bytes(2_000_000_000)
}

/// 10^11 events: several hours of computing; beyond that, a mistake is more likely than a plan.
fn default_max_events() -> u64 {
    100_000_000_000
}

/// A link's buffer: one bandwidth-delay product.
fn default_buffer() -> Buffer {
    Buffer::Bdp(1.0)
}

/// A `[[flows]]` entry stands for one flow.
fn default_count() -> u32 {
    1
}
