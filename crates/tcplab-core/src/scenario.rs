//! The scenario model: what a TOML scenario file may say, its defaults, and its validation.
//!
//! Deserialisation (serde, unknown keys rejected) catches type and unit errors with the key's path;
//! [`Scenario::validate`] then checks meaning (ranges, references between sections). Every error
//! names the key, the value and what is allowed. [`Scenario::resolved`] fills in every default so
//! that the scenario stored beside results says exactly what ran.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

use crate::cc;
use crate::tcp::{RecoveryMode, TcpConfig};
use crate::time::{NANOS_PER_MILLI, NANOS_PER_SEC};
use crate::units::{Buffer, Bytes, Duration, Rate};

/// A scenario problem: the dotted path of the key and what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    pub key: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self { key: key.into(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

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
    pub flows: Vec<FlowSpec>,
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
}

fn default_seed() -> u64 {
    1
}
fn default_sample_interval() -> Duration {
    Duration(100 * NANOS_PER_MILLI)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TopologyKind {
    /// N senders -> left router -> bottleneck -> right router -> N receivers; one pair per flow.
    Dumbbell,
    /// Routers r0 .. r(n-1) in a line; flows enter and leave at any router.
    Chain,
    /// Named nodes and links given one by one.
    Custom,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    pub kind: TopologyKind,
    /// Dumbbell: the link between the two routers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<LinkSpec>,
    /// Dumbbell and chain: the links from hosts to routers (default: 10x the fastest core link,
    /// 1 ms, 1000 packets).
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
    /// RTT that "BDP" buffers refer to; default: the mean base RTT of the flows crossing the link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bdp_rtt: Option<Duration>,
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
    /// RED, CoDel, FQ-CoDel: mark ECN-capable packets instead of dropping them early.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// CoDel and FQ-CoDel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
    /// FQ-CoDel: number of sub-queues and the DRR quantum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Bytes>,
}

impl QueueSpec {
    /// The spec with every scalar default of its kind written out (RED's thresholds stay
    /// relative to the buffer unless given).
    pub fn with_defaults(&self) -> QueueSpec {
        let mut spec = self.clone();
        match spec.kind {
            QueueKind::DropTail => {}
            QueueKind::Red => {
                spec.w_q.get_or_insert(0.002);
                spec.max_p.get_or_insert(0.1);
                spec.gentle.get_or_insert(true);
                spec.wait.get_or_insert(true);
                spec.byte_mode.get_or_insert(false);
                spec.idle_decay.get_or_insert(true);
                spec.mean_packet_size.get_or_insert(Bytes(1500));
                spec.ecn.get_or_insert(false);
            }
            QueueKind::Codel | QueueKind::FqCodel => {
                spec.target.get_or_insert(Duration(5 * NANOS_PER_MILLI));
                spec.interval.get_or_insert(Duration(100 * NANOS_PER_MILLI));
                spec.ecn.get_or_insert(false);
                if spec.kind == QueueKind::FqCodel {
                    spec.flows.get_or_insert(1024);
                    spec.quantum.get_or_insert(Bytes(1514));
                }
            }
        }
        spec
    }

    fn validate(&self, key: &str) -> Result<(), ScenarioError> {
        let only = |present: bool, field: &str, kinds: &str| {
            if present {
                Err(ScenarioError::new(format!("{key}.{field}"), format!("only applies to {kinds} queues")))
            } else {
                Ok(())
            }
        };
        let is = |kinds: &[QueueKind]| kinds.contains(&self.kind);
        use QueueKind::*;
        only(!is(&[Red]) && self.min_th.is_some(), "min_th", "red")?;
        only(!is(&[Red]) && self.max_th.is_some(), "max_th", "red")?;
        only(!is(&[Red]) && self.w_q.is_some(), "w_q", "red")?;
        only(!is(&[Red]) && self.max_p.is_some(), "max_p", "red")?;
        only(!is(&[Red]) && self.gentle.is_some(), "gentle", "red")?;
        only(!is(&[Red]) && self.wait.is_some(), "wait", "red")?;
        only(!is(&[Red]) && self.byte_mode.is_some(), "byte_mode", "red")?;
        only(!is(&[Red]) && self.idle_decay.is_some(), "idle_decay", "red")?;
        only(!is(&[Red]) && self.mean_packet_size.is_some(), "mean_packet_size", "red")?;
        only(is(&[DropTail]) && self.ecn.is_some(), "ecn", "red, codel and fq_codel")?;
        only(!is(&[Codel, FqCodel]) && self.target.is_some(), "target", "codel and fq_codel")?;
        only(!is(&[Codel, FqCodel]) && self.interval.is_some(), "interval", "codel and fq_codel")?;
        only(!is(&[FqCodel]) && self.flows.is_some(), "flows", "fq_codel")?;
        only(!is(&[FqCodel]) && self.quantum.is_some(), "quantum", "fq_codel")?;
        for (field, value) in [("w_q", self.w_q), ("max_p", self.max_p)] {
            if let Some(v) = value {
                if !(v > 0.0 && v <= 1.0) {
                    return Err(ScenarioError::new(format!("{key}.{field}"), format!("{v} is outside (0, 1]")));
                }
            }
        }
        if let (Some(min), Some(max)) = (self.min_th, self.max_th) {
            let same_unit = matches!(
                (min, max),
                (Buffer::Packets(_), Buffer::Packets(_))
                    | (Buffer::Bytes(_), Buffer::Bytes(_))
                    | (Buffer::Bdp(_), Buffer::Bdp(_))
            );
            let ordered = match (min, max) {
                (Buffer::Packets(a), Buffer::Packets(b)) | (Buffer::Bytes(a), Buffer::Bytes(b)) => a < b,
                (Buffer::Bdp(a), Buffer::Bdp(b)) => a < b,
                _ => true,
            };
            if !same_unit || !ordered {
                return Err(ScenarioError::new(
                    format!("{key}.max_th"),
                    format!("{max} must be above min_th {min}, in the same unit"),
                ));
            }
        }
        if self.interval.is_some_and(|d| d.nanos() == 0) || self.target.is_some_and(|d| d.nanos() == 0) {
            return Err(ScenarioError::new(format!("{key}.target"), "target and interval must be more than 0s"));
        }
        if let Some(flows) = self.flows {
            if !(1..=65_536).contains(&flows) {
                return Err(ScenarioError::new(format!("{key}.flows"), format!("{flows} is outside 1 to 65536")));
            }
        }
        if self.quantum.is_some_and(|q| q.0 < 64) || self.mean_packet_size.is_some_and(|m| m.0 == 0) {
            return Err(ScenarioError::new(
                format!("{key}.quantum"),
                "quantum must be at least 64B and mean_packet_size more than 0B",
            ));
        }
        Ok(())
    }
}

/// Reads `queue` as a name or as a table, keeping serde's errors (and their key paths).
fn deserialize_queue<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<QueueSpec, D::Error> {
    struct QueueVisitor;
    impl<'de> serde::de::Visitor<'de> for QueueVisitor {
        type Value = QueueSpec;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a queue name (\"droptail\", \"red\", \"codel\", \"fq_codel\") or a table with `kind`")
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
    /// Drop-tail only: mark ECN-capable packets CE when this many packets are already queued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_mark_threshold: Option<Buffer>,
    #[serde(default, skip_serializing_if = "DirectionSpec::is_empty")]
    pub forward: DirectionSpec,
    #[serde(default, skip_serializing_if = "DirectionSpec::is_empty")]
    pub reverse: DirectionSpec,
}

fn default_buffer() -> Buffer {
    Buffer::Bdp(1.0)
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
    fn is_empty(&self) -> bool {
        self.buffer.is_none()
            && self.loss.is_none()
            && self.jitter.is_none()
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
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JitterSpec {
    pub distribution: JitterKind,
    /// Uniform: extra delay drawn from [0, max].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Duration>,
    /// Normal: mean and standard deviation of the extra delay (clamped at 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub std: Option<Duration>,
    /// Allow packets to overtake each other.
    #[serde(default)]
    pub reorder: bool,
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

/// TCP options; every key is optional and falls back to the defaults in [`TcpSpec::DEFAULTS`].
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<Bytes>,
    /// Initial window in segments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<RecoveryMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_transmit: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_threshold: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rto: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rto: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rto: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_granularity: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack_count: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack_timeout: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receive_window: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<bool>,
    /// Receiver-based delay control (Active Delay Control): "none", "exact_rdc" (hold each ACK
    /// for the delay routers stamped) or "one_bit_rdc" (a delay the receiver adapts from CE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_delay: Option<AckDelayMode>,
    /// Largest receiver-side ACK delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_delay_max: Option<Duration>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckDelayMode {
    None,
    ExactRdc,
    OneBitRdc,
}

impl TcpSpec {
    /// The defaults: Linux-like (IW 10, min RTO 200 ms, SACK, delayed ACK 40 ms), 1448-byte MSS
    /// with 52 bytes of IP/TCP/timestamp headers so full packets are 1500 bytes.
    pub fn defaults() -> TcpSpec {
        TcpSpec {
            mss: Some(Bytes(1448)),
            header: Some(Bytes(52)),
            initial_window: Some(10),
            recovery: Some(RecoveryMode::Sack),
            limited_transmit: Some(true),
            duplicate_threshold: Some(3),
            min_rto: Some(Duration(200 * NANOS_PER_MILLI)),
            initial_rto: Some(Duration(NANOS_PER_SEC)),
            max_rto: Some(Duration(60 * NANOS_PER_SEC)),
            clock_granularity: Some(Duration(NANOS_PER_MILLI)),
            delayed_ack: Some(true),
            delayed_ack_count: Some(2),
            delayed_ack_timeout: Some(Duration(40 * NANOS_PER_MILLI)),
            ecn: Some(false),
            receive_window: Some(Bytes(64_000_000)),
            pacing: Some(false),
            ack_delay: Some(AckDelayMode::None),
            ack_delay_max: Some(Duration(2 * NANOS_PER_SEC)),
        }
    }

    /// `self` with every unset key taken from `base`.
    pub fn over(&self, base: &TcpSpec) -> TcpSpec {
        macro_rules! pick {
            ($($field:ident),*) => { TcpSpec { $($field: self.$field.or(base.$field)),* } };
        }
        pick!(
            mss,
            header,
            initial_window,
            recovery,
            limited_transmit,
            duplicate_threshold,
            min_rto,
            initial_rto,
            max_rto,
            clock_granularity,
            delayed_ack,
            delayed_ack_count,
            delayed_ack_timeout,
            ecn,
            receive_window,
            pacing,
            ack_delay,
            ack_delay_max
        )
    }

    /// Checks a fully resolved spec and converts it to the sender's config.
    pub fn to_config(&self, key: &str) -> Result<TcpConfig, ScenarioError> {
        let full = self.over(&TcpSpec::defaults());
        let get = |v: Option<Duration>| v.expect("defaults fill every key").nanos();
        let mss = full.mss.expect("defaults fill every key").0;
        if !(64..=65_000).contains(&mss) {
            return Err(ScenarioError::new(format!("{key}.mss"), format!("{mss}B is outside 64B to 65000B")));
        }
        let header = full.header.expect("defaults fill every key").0;
        if header > 1000 {
            return Err(ScenarioError::new(format!("{key}.header"), format!("{header}B is outside 0B to 1000B")));
        }
        let initial_window = full.initial_window.expect("defaults fill every key");
        if !(1..=1000).contains(&initial_window) {
            return Err(ScenarioError::new(
                format!("{key}.initial_window"),
                format!("{initial_window} is outside 1 to 1000 segments"),
            ));
        }
        let duplicate_threshold = full.duplicate_threshold.expect("defaults fill every key");
        if !(1..=100).contains(&duplicate_threshold) {
            return Err(ScenarioError::new(
                format!("{key}.duplicate_threshold"),
                format!("{duplicate_threshold} is outside 1 to 100"),
            ));
        }
        let delayed_ack_count = full.delayed_ack_count.expect("defaults fill every key");
        if !(1..=64).contains(&delayed_ack_count) {
            return Err(ScenarioError::new(
                format!("{key}.delayed_ack_count"),
                format!("{delayed_ack_count} is outside 1 to 64 segments"),
            ));
        }
        let (min_rto, initial_rto, max_rto) = (get(full.min_rto), get(full.initial_rto), get(full.max_rto));
        if min_rto == 0 {
            return Err(ScenarioError::new(format!("{key}.min_rto"), "must be more than 0s"));
        }
        if max_rto < min_rto {
            return Err(ScenarioError::new(
                format!("{key}.max_rto"),
                format!("{} is below min_rto {}", Duration(max_rto), Duration(min_rto)),
            ));
        }
        if initial_rto == 0 {
            return Err(ScenarioError::new(format!("{key}.initial_rto"), "must be more than 0s"));
        }
        let receive_window = full.receive_window.expect("defaults fill every key").0;
        if receive_window < mss {
            return Err(ScenarioError::new(
                format!("{key}.receive_window"),
                format!("{receive_window}B is smaller than one segment ({mss}B)"),
            ));
        }
        Ok(TcpConfig {
            mss,
            header_bytes: header,
            initial_window_segments: initial_window,
            recovery: full.recovery.expect("defaults fill every key"),
            limited_transmit: full.limited_transmit.expect("defaults fill every key"),
            duplicate_threshold,
            min_rto,
            initial_rto,
            max_rto,
            clock_granularity: get(full.clock_granularity),
            delayed_ack: full.delayed_ack.expect("defaults fill every key"),
            delayed_ack_count,
            delayed_ack_timeout: get(full.delayed_ack_timeout),
            ecn: full.ecn.expect("defaults fill every key"),
            receive_window,
            pacing: full.pacing.expect("defaults fill every key"),
            ack_delay: full.ack_delay.expect("defaults fill every key"),
            ack_delay_max: full.ack_delay_max.expect("defaults fill every key").nanos(),
        })
    }
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

fn default_count() -> u32 {
    1
}

fn check_probability(key: String, value: Option<f64>, required: bool) -> Result<(), ScenarioError> {
    match value {
        None if required => Err(ScenarioError::new(key, "is required: a probability from 0 to 1")),
        None => Ok(()),
        Some(p) if !(0.0..=1.0).contains(&p) || p.is_nan() => {
            Err(ScenarioError::new(key, format!("{p} is not a probability: allowed 0 to 1")))
        }
        Some(_) => Ok(()),
    }
}

impl Scenario {
    /// Parses a scenario from TOML text, with errors naming the key.
    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        let deserializer = toml::Deserializer::parse(text)
            .map_err(|e| ScenarioError::new("", format!("not valid TOML: {}", e.message())))?;
        let scenario: Scenario = serde_path_to_error::deserialize(deserializer)
            .map_err(|e| path_error(e, |inner: &toml::de::Error| inner.message().to_string()))?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// Parses a scenario from JSON text (what the Python layer sends after applying overrides).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let scenario: Scenario = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
            path_error(e, |inner: &serde_json::Error| {
                // serde_json appends the position ("at line 1 column 80"); the key says where already.
                let text = inner.to_string();
                text.find(" at line ").map_or(text.clone(), |cut| text[..cut].to_string())
            })
        })?;
        scenario.validate()?;
        Ok(scenario)
    }

    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a scenario serialises to TOML")
    }

    /// The expanded list of flows: each entry repeated `count` times, with its index in `flows`.
    pub fn expanded_flows(&self) -> impl Iterator<Item = (usize, &FlowSpec)> {
        self.flows.iter().enumerate().flat_map(|(i, f)| std::iter::repeat_n((i, f), f.count as usize))
    }

    /// Checks everything serde cannot: ranges, required combinations, references.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.simulation.duration.nanos() == 0 {
            return Err(ScenarioError::new("simulation.duration", "must be more than 0s"));
        }
        if self.simulation.sample_interval.nanos() == 0 {
            return Err(ScenarioError::new("simulation.sample_interval", "must be more than 0s"));
        }
        self.tcp.to_config("tcp")?;
        self.validate_topology()?;
        if self.flows.is_empty() {
            return Err(ScenarioError::new("flows", "at least one [[flows]] entry is required"));
        }
        let node_names: Vec<String> = self.node_names();
        for (index, flow) in self.flows.iter().enumerate() {
            self.validate_flow(&format!("flows[{index}]"), flow, &node_names)?;
        }
        Ok(())
    }

    fn node_names(&self) -> Vec<String> {
        match self.topology.kind {
            TopologyKind::Dumbbell => vec![],
            TopologyKind::Chain => (0..self.topology.routers.unwrap_or(0)).map(|i| format!("r{i}")).collect(),
            TopologyKind::Custom => self.topology.nodes.clone().unwrap_or_default(),
        }
    }

    fn validate_topology(&self) -> Result<(), ScenarioError> {
        let topology = &self.topology;
        let forbid = |present: bool, key: &str, kinds: &str| {
            if present {
                Err(ScenarioError::new(
                    format!("topology.{key}"),
                    format!("only applies to {kinds} topologies, not '{}'", kind_name(topology.kind)),
                ))
            } else {
                Ok(())
            }
        };
        match topology.kind {
            TopologyKind::Dumbbell => {
                let bottleneck = topology.bottleneck.as_ref().ok_or_else(|| {
                    ScenarioError::new("topology.bottleneck", "a dumbbell needs a [topology.bottleneck] link")
                })?;
                validate_link("topology.bottleneck", bottleneck, false)?;
                forbid(topology.routers.is_some(), "routers", "chain")?;
                forbid(topology.hops.is_some(), "hops", "chain")?;
                forbid(topology.nodes.is_some(), "nodes", "custom")?;
                forbid(topology.links.is_some(), "links", "custom")?;
            }
            TopologyKind::Chain => {
                let routers = topology.routers.ok_or_else(|| {
                    ScenarioError::new("topology.routers", "a chain needs the number of routers (2 or more)")
                })?;
                if !(2..=1000).contains(&routers) {
                    return Err(ScenarioError::new("topology.routers", format!("{routers} is outside 2 to 1000")));
                }
                let hops = topology.hops.as_ref().ok_or_else(|| {
                    ScenarioError::new("topology.hops", "a chain needs [[topology.hops]]: one link, or one per hop")
                })?;
                if hops.len() != 1 && hops.len() != routers as usize - 1 {
                    return Err(ScenarioError::new(
                        "topology.hops",
                        format!(
                            "has {} entries; give 1 (used for every hop) or {} (one per hop)",
                            hops.len(),
                            routers - 1
                        ),
                    ));
                }
                for (i, hop) in hops.iter().enumerate() {
                    validate_link(&format!("topology.hops[{i}]"), hop, false)?;
                }
                forbid(topology.bottleneck.is_some(), "bottleneck", "dumbbell")?;
                forbid(topology.nodes.is_some(), "nodes", "custom")?;
                forbid(topology.links.is_some(), "links", "custom")?;
            }
            TopologyKind::Custom => {
                let nodes = topology.nodes.as_ref().ok_or_else(|| {
                    ScenarioError::new("topology.nodes", "a custom topology needs a list of node names")
                })?;
                for (i, node) in nodes.iter().enumerate() {
                    if node.is_empty() || nodes[..i].contains(node) {
                        return Err(ScenarioError::new(
                            format!("topology.nodes[{i}]"),
                            format!("'{node}' is empty or named twice; node names must be unique"),
                        ));
                    }
                }
                let links = topology.links.as_ref().ok_or_else(|| {
                    ScenarioError::new("topology.links", "a custom topology needs [[topology.links]]")
                })?;
                for (i, link) in links.iter().enumerate() {
                    let key = format!("topology.links[{i}]");
                    validate_link(&key, link, true)?;
                    for (end, value) in [("from", &link.from), ("to", &link.to)] {
                        if !nodes.contains(value.as_ref().expect("validate_link checks from/to")) {
                            return Err(ScenarioError::new(
                                format!("{key}.{end}"),
                                format!("'{}' is not a node; known: {}", value.as_ref().unwrap(), nodes.join(", ")),
                            ));
                        }
                    }
                }
                forbid(topology.bottleneck.is_some(), "bottleneck", "dumbbell")?;
                forbid(topology.access.is_some(), "access", "dumbbell and chain")?;
                forbid(topology.routers.is_some(), "routers", "chain")?;
                forbid(topology.hops.is_some(), "hops", "chain")?;
            }
        }
        if let Some(access) = &topology.access {
            validate_link("topology.access", access, false)?;
        }
        if topology.bdp_rtt.is_some_and(|d| d.nanos() == 0) {
            return Err(ScenarioError::new("topology.bdp_rtt", "must be more than 0s"));
        }
        Ok(())
    }

    fn validate_flow(&self, key: &str, flow: &FlowSpec, node_names: &[String]) -> Result<(), ScenarioError> {
        if flow.count == 0 || flow.count > 100_000 {
            return Err(ScenarioError::new(format!("{key}.count"), format!("{} is outside 1 to 100000", flow.count)));
        }
        match flow.protocol {
            Protocol::Tcp => {
                let name = flow.cc.as_ref().ok_or_else(|| {
                    ScenarioError::new(
                        format!("{key}.cc"),
                        format!("a TCP flow needs an algorithm; available: {}", cc::names().join(", ")),
                    )
                })?;
                let info = cc::ConnectionInfo { mss: 1448, initial_window_segments: 10, seed: 1 };
                if cc::find(name).is_none() {
                    return Err(ScenarioError::new(
                        format!("{key}.cc"),
                        format!("unknown algorithm '{name}'; available: {}", cc::names().join(", ")),
                    ));
                }
                cc::create(name, &flow.params, info).map_err(|e| ScenarioError::new(format!("{key}.params"), e))?;
                let tcp = flow.tcp.clone().unwrap_or_default().over(&self.tcp);
                tcp.to_config(&format!("{key}.tcp"))?;
                if flow.packet_size.is_some() {
                    return Err(ScenarioError::new(
                        format!("{key}.packet_size"),
                        "only applies to UDP flows (TCP uses tcp.mss)",
                    ));
                }
            }
            Protocol::Udp => {
                if flow.rate.is_none() {
                    return Err(ScenarioError::new(format!("{key}.rate"), "a UDP flow needs a rate, e.g. \"10Mbps\""));
                }
                for (field, present) in [
                    ("cc", flow.cc.is_some()),
                    ("params", !flow.params.is_null()),
                    ("size", flow.size.is_some()),
                    ("tcp", flow.tcp.is_some()),
                ] {
                    if present {
                        return Err(ScenarioError::new(format!("{key}.{field}"), "only applies to TCP flows"));
                    }
                }
                if let Some(size) = flow.packet_size {
                    if !(29..=65_535).contains(&size.0) {
                        return Err(ScenarioError::new(
                            format!("{key}.packet_size"),
                            format!("{size} is outside 29B to 65535B"),
                        ));
                    }
                }
            }
        }
        if flow.size.is_some_and(|s| s.0 == 0) {
            return Err(ScenarioError::new(format!("{key}.size"), "must be at least 1B"));
        }
        if let (Some(stop), start) = (flow.stop, flow.start) {
            if stop <= start {
                return Err(ScenarioError::new(format!("{key}.stop"), format!("{stop} is not after start {start}")));
            }
        }
        match (flow.on_time, flow.off_time) {
            (Some(on), Some(off)) if on.nanos() == 0 || off.nanos() == 0 => {
                return Err(ScenarioError::new(format!("{key}.on_time"), "on_time and off_time must be more than 0s"))
            }
            (Some(_), None) | (None, Some(_)) => {
                return Err(ScenarioError::new(format!("{key}.on_time"), "give both on_time and off_time, or neither"))
            }
            _ => {}
        }
        match self.topology.kind {
            TopologyKind::Dumbbell => {
                for (field, present) in [("from", flow.from.is_some()), ("to", flow.to.is_some())] {
                    if present {
                        return Err(ScenarioError::new(
                            format!("{key}.{field}"),
                            "dumbbell flows get their own sender and receiver; from/to apply to chain and custom topologies",
                        ));
                    }
                }
            }
            TopologyKind::Chain | TopologyKind::Custom => {
                if flow.access_delay.is_some() {
                    return Err(ScenarioError::new(
                        format!("{key}.access_delay"),
                        "only applies to dumbbell topologies",
                    ));
                }
                for (field, value) in [("from", &flow.from), ("to", &flow.to)] {
                    let value = value.as_ref().ok_or_else(|| {
                        ScenarioError::new(
                            format!("{key}.{field}"),
                            format!("is required; known nodes: {}", node_names.join(", ")),
                        )
                    })?;
                    if !node_names.contains(value) {
                        return Err(ScenarioError::new(
                            format!("{key}.{field}"),
                            format!("'{value}' is not a node; known: {}", node_names.join(", ")),
                        ));
                    }
                }
                if flow.from == flow.to {
                    return Err(ScenarioError::new(format!("{key}.to"), "must differ from `from`"));
                }
            }
        }
        Ok(())
    }

    /// A copy with every default written out: TCP options, algorithm parameters, access links.
    pub fn resolved(&self) -> Scenario {
        let mut scenario = self.clone();
        scenario.tcp = self.tcp.over(&TcpSpec::defaults());
        for flow in &mut scenario.flows {
            if let Some(name) = &flow.cc {
                if let Some(algorithm) = cc::find(name) {
                    let mut params = (algorithm.defaults)();
                    if let (Some(table), Value::Object(given)) = (params.as_object_mut(), &flow.params) {
                        for (k, v) in given {
                            table.insert(k.clone(), v.clone());
                        }
                    }
                    flow.params = params;
                }
            }
        }
        if scenario.topology.kind != TopologyKind::Custom && scenario.topology.access.is_none() {
            scenario.topology.access = Some(self.default_access_link());
        }
        let topology = &mut scenario.topology;
        let links = topology
            .bottleneck
            .iter_mut()
            .chain(topology.access.iter_mut())
            .chain(topology.hops.iter_mut().flatten())
            .chain(topology.links.iter_mut().flatten());
        for link in links {
            link.queue = link.queue.with_defaults();
        }
        scenario
    }

    /// Access links when the scenario gives none: 10x the fastest core link, 1 ms, 1000 packets.
    pub fn default_access_link(&self) -> LinkSpec {
        let fastest = match self.topology.kind {
            TopologyKind::Dumbbell => self.topology.bottleneck.as_ref().map_or(1, |b| b.rate.bps()),
            _ => self.topology.hops.iter().flatten().map(|h| h.rate.bps()).max().unwrap_or(1),
        };
        LinkSpec {
            name: None,
            from: None,
            to: None,
            rate: Rate(fastest.saturating_mul(10)),
            delay: Duration(NANOS_PER_MILLI),
            buffer: Buffer::Packets(1000),
            queue: QueueSpec::default(),
            ecn_mark_threshold: None,
            rdc_stamp: false,
            forward: DirectionSpec::default(),
            reverse: DirectionSpec::default(),
        }
    }
}

fn kind_name(kind: TopologyKind) -> &'static str {
    match kind {
        TopologyKind::Dumbbell => "dumbbell",
        TopologyKind::Chain => "chain",
        TopologyKind::Custom => "custom",
    }
}

fn validate_link(key: &str, link: &LinkSpec, needs_ends: bool) -> Result<(), ScenarioError> {
    if needs_ends {
        for (end, value) in [("from", &link.from), ("to", &link.to)] {
            if value.is_none() {
                return Err(ScenarioError::new(format!("{key}.{end}"), "is required for links of a custom topology"));
            }
        }
        if link.from == link.to {
            return Err(ScenarioError::new(format!("{key}.to"), "a link must join two different nodes"));
        }
    } else {
        for (end, value) in [("from", &link.from), ("to", &link.to)] {
            if value.is_some() {
                return Err(ScenarioError::new(
                    format!("{key}.{end}"),
                    "only links of a custom topology name their nodes",
                ));
            }
        }
    }
    link.queue.validate(&format!("{key}.queue"))?;
    if link.ecn_mark_threshold.is_some() && link.queue.kind != QueueKind::DropTail {
        return Err(ScenarioError::new(
            format!("{key}.ecn_mark_threshold"),
            "applies to droptail queues; RED, CoDel and FQ-CoDel mark with `ecn = true`",
        ));
    }
    if let Some(threshold) = link.ecn_mark_threshold {
        if !matches!(threshold, Buffer::Packets(n) if n >= 1) {
            return Err(ScenarioError::new(
                format!("{key}.ecn_mark_threshold"),
                format!("{threshold} must be a number of packets, at least 1 (e.g. \"20p\")"),
            ));
        }
    }
    for (direction, spec) in [("forward", &link.forward), ("reverse", &link.reverse)] {
        let key = format!("{key}.{direction}");
        if let Some(loss) = &spec.loss {
            let key = format!("{key}.loss");
            match loss.model {
                LossModelKind::Bernoulli => {
                    check_probability(format!("{key}.p"), loss.p, true)?;
                    for (field, value) in [
                        ("p_good_to_bad", loss.p_good_to_bad),
                        ("p_bad_to_good", loss.p_bad_to_good),
                        ("loss_in_good", loss.loss_in_good),
                        ("loss_in_bad", loss.loss_in_bad),
                    ] {
                        if value.is_some() {
                            return Err(ScenarioError::new(
                                format!("{key}.{field}"),
                                "only applies to model = \"gilbert_elliott\"",
                            ));
                        }
                    }
                }
                LossModelKind::GilbertElliott => {
                    if loss.p.is_some() {
                        return Err(ScenarioError::new(format!("{key}.p"), "only applies to model = \"bernoulli\""));
                    }
                    check_probability(format!("{key}.p_good_to_bad"), loss.p_good_to_bad, true)?;
                    check_probability(format!("{key}.p_bad_to_good"), loss.p_bad_to_good, true)?;
                    check_probability(format!("{key}.loss_in_good"), loss.loss_in_good, false)?;
                    check_probability(format!("{key}.loss_in_bad"), loss.loss_in_bad, false)?;
                }
            }
        }
        if let Some(jitter) = &spec.jitter {
            let key = format!("{key}.jitter");
            match jitter.distribution {
                JitterKind::Uniform => {
                    if jitter.max.is_none() {
                        return Err(ScenarioError::new(format!("{key}.max"), "uniform jitter needs max, e.g. \"2ms\""));
                    }
                    if jitter.mean.is_some() || jitter.std.is_some() {
                        return Err(ScenarioError::new(
                            format!("{key}.mean"),
                            "mean and std apply to distribution = \"normal\"",
                        ));
                    }
                }
                JitterKind::Normal => {
                    if jitter.mean.is_none() || jitter.std.is_none() {
                        return Err(ScenarioError::new(
                            format!("{key}.std"),
                            "normal jitter needs mean and std, e.g. \"1ms\" and \"0.5ms\"",
                        ));
                    }
                    if jitter.max.is_some() {
                        return Err(ScenarioError::new(
                            format!("{key}.max"),
                            "max applies to distribution = \"uniform\"",
                        ));
                    }
                }
            }
        }
        for (i, outage) in spec.outages.iter().enumerate() {
            if outage.duration.nanos() == 0 {
                return Err(ScenarioError::new(format!("{key}.outages[{i}].duration"), "must be more than 0s"));
            }
        }
        for (i, step) in spec.rate_schedule.iter().enumerate().skip(1) {
            if step.at <= spec.rate_schedule[i - 1].at {
                return Err(ScenarioError::new(
                    format!("{key}.rate_schedule[{i}].at"),
                    "rate steps must be in increasing time order",
                ));
            }
        }
        for (i, step) in spec.delay_schedule.iter().enumerate().skip(1) {
            if step.at <= spec.delay_schedule[i - 1].at {
                return Err(ScenarioError::new(
                    format!("{key}.delay_schedule[{i}].at"),
                    "delay steps must be in increasing time order",
                ));
            }
        }
    }
    Ok(())
}

/// Turns a serde error with a path into a scenario error naming the key.
fn path_error<E>(error: serde_path_to_error::Error<E>, message_of: impl Fn(&E) -> String) -> ScenarioError {
    let key = error.path().to_string();
    let key = if key == "." { String::new() } else { key };
    ScenarioError::new(key, message_of(error.inner()).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
        [simulation]
        duration = "5s"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "10Mbps", delay = "10ms" }
        [[flows]]
        cc = "cubic"
    "#;

    fn error_of(text: &str) -> ScenarioError {
        Scenario::from_toml(text).expect_err("scenario should be rejected")
    }

    #[test]
    fn minimal_scenario_parses_with_defaults() {
        let scenario = Scenario::from_toml(MINIMAL).unwrap();
        assert_eq!(scenario.simulation.seed, 1);
        assert_eq!(scenario.simulation.sample_interval.nanos(), 100 * NANOS_PER_MILLI);
        let resolved = scenario.resolved();
        assert_eq!(resolved.tcp.mss, Some(Bytes(1448)));
        assert_eq!(resolved.flows[0].params["beta"], 0.7);
        // The resolved scenario round-trips through TOML.
        let again = Scenario::from_toml(&resolved.to_toml()).unwrap();
        assert_eq!(again.to_toml(), resolved.to_toml());
    }

    #[test]
    fn unit_errors_name_the_key() {
        let err = error_of(&MINIMAL.replace("\"10Mbps\"", "\"10MB\""));
        assert_eq!(err.key, "topology.bottleneck.rate");
        assert!(err.message.contains("unknown unit 'MB'"), "{err}");
        let err = error_of(&MINIMAL.replace("\"10Mbps\"", "\"-3Mbps\""));
        assert!(err.message.contains("negative"), "{err}");
        let err = error_of(&MINIMAL.replace("\"5s\"", "5"));
        assert_eq!(err.key, "simulation.duration");
        assert!(err.message.contains("no unit"), "{err}");
    }

    #[test]
    fn unknown_keys_and_algorithms_are_rejected() {
        let err = error_of(&MINIMAL.replace("cc = \"cubic\"", "cc = \"cubik\""));
        assert_eq!(err.key, "flows[0].cc");
        assert!(err.message.contains("available: reno, newreno, cubic"), "{err}");
        let err = error_of(&MINIMAL.replace("[simulation]", "[simulation]\nsed = 3"));
        assert!(err.message.contains("unknown field `sed`"), "{err}");
        let err = error_of(&MINIMAL.replace("cc = \"cubic\"", "cc = \"cubic\"\nparams = { beta = 2.0 }"));
        assert_eq!(err.key, "flows[0].params");
        assert!(err.message.contains("beta = 2.0"), "{err}");
    }

    #[test]
    fn meaning_errors_name_the_key() {
        let err = error_of(&MINIMAL.replace("[[flows]]", "[tcp]\nmin_rto = \"0s\"\n[[flows]]"));
        assert_eq!(err.key, "tcp.min_rto");
        let text = MINIMAL.replace("cc = \"cubic\"", "protocol = \"udp\"");
        let err = error_of(&text);
        assert_eq!(err.key, "flows[0].rate");
        let err = error_of(&MINIMAL.replace(
            "delay = \"10ms\" }",
            "delay = \"10ms\", forward = { loss = { model = \"bernoulli\", p = 1.5 } } }",
        ));
        assert_eq!(err.key, "topology.bottleneck.forward.loss.p");
    }
}
