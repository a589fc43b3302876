//! Congestion control: the trait every algorithm implements, typed parameters, and the registry
//! that maps names ("cubic") to factories.
//!
//! The trait is event-shaped (after quinn's and s2n-quic's controllers): the sender reports ACKs,
//! congestion events and transmissions, passing `now` every time, and reads back cwnd, ssthresh and
//! an optional pacing rate. An algorithm mutates only its own state; it cannot see the sender's.
//! Windows cross the trait in bytes; an algorithm may count segments inside (Linux-style ones do).

pub mod bbr;
pub mod bic;
pub mod cdg;
pub mod compound;
pub mod copa;
pub mod cubic;
pub mod dctcp;
pub mod external;
pub mod harness;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod illinois;
pub mod ledbat;
pub mod lp;
pub mod newreno;
pub mod nv;
pub mod properties;
pub mod reno;
pub mod roccet;
pub mod rta;
pub mod scalable;
pub mod sdc;
pub mod tcp_do;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod window;
pub mod yeah;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::time::{SimDuration, SimTime};
use crate::units;

/// What one arriving ACK told the sender.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckEvent {
    pub now: SimTime,
    /// Bytes newly acknowledged, cumulatively or by SACK.
    pub acked_bytes: u64,
    /// The same in segments (what Linux passes as `acked`).
    pub acked_segments: u32,
    /// RTT measured from this ACK (Karn's rule applied), if any.
    pub rtt_sample: Option<SimDuration>,
    /// Smoothed RTT (RFC 6298) after this ACK; 0 before the first sample.
    pub srtt: SimDuration,
    /// Smallest RTT sample of the connection; 0 before the first sample.
    pub min_rtt: SimDuration,
    /// Forward one-way delay of the data segment this ACK echoes (its arrival at the receiver
    /// minus its send time, the TSecr the ACK carries), as RFC 6817 §2.3 has the receiver measure
    /// it at arrival and send it back. The simulator has one clock, so there is no offset. It
    /// leaves out the receiver's ACK delay, which Linux's and ns-3's TSval - TSecr difference
    /// includes. None when timestamps are off (`tcp.timestamps = false`).
    pub one_way_delay: Option<SimDuration>,
    pub bytes_in_flight_before: u64,
    pub bytes_in_flight: u64,
    /// The sender is in fast recovery, or in the round after an ECN reduction (Linux's CWR
    /// state): algorithms must not grow cwnd (the recovery rules own it).
    pub in_recovery: bool,
    /// Linux `tcp_is_cwnd_limited`: the flow used its window recently.
    pub cwnd_limited: bool,
    /// The application had nothing to send when the window allowed it.
    pub app_limited: bool,
    /// The cumulative acknowledgement moved forward (not only SACK information).
    pub snd_una_advanced: bool,
    /// Delivery rate sample in bits per second (draft-cheng-iccrg-delivery-rate-estimation),
    /// absent when this ACK gives no valid sample.
    pub delivery_rate: Option<u64>,
    /// The rate sample was taken while the application limited the sender.
    pub delivery_rate_app_limited: bool,
    /// Bytes delivered over the connection so far, and as of when the sampled segment was sent
    /// (BBR counts rounds with these).
    pub delivered: u64,
    pub prior_delivered: u64,
    /// Segments newly marked lost while processing this ACK.
    pub newly_lost_segments: u32,
    /// For the rate sample's segment: bytes in flight when it was sent (it included), and bytes
    /// marked lost since it was sent (BBRv3's loss-rate test).
    pub tx_in_flight: u64,
    pub lost_since_sent: u64,
    /// The ACK carried ECN-Echo.
    pub ece: bool,
    /// Highest cumulatively acknowledged byte and next new byte to send, for round tracking.
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The sender paces this flow (the algorithm's rate or the `pacing` option): Linux's
    /// `sk_pacing_status != SK_PACING_NONE`. False unless the algorithm `reads_pacing_rate`.
    pub paced: bool,
    /// The rate Linux keeps in `sk_pacing_rate` whether or not it paces: the algorithm's rate, else
    /// 200% (slow start) or 120% of cwnd / SRTT; bits per second, 0 before the first RTT sample.
    /// 0 unless the algorithm `reads_pacing_rate`.
    pub pacing_rate: u64,
}

impl AckEvent {
    /// Linux's `tcp_may_raise_cwnd` (RFC 5681): grow only on in-order delivery, never in
    /// recovery. Duplicate ACKs with SACK information still report RTT and delivery.
    pub fn may_raise_cwnd(&self) -> bool {
        self.snd_una_advanced && !self.in_recovery
    }
}

/// How the receiver echoes CE marks in ECN-Echo (here because an algorithm may require one, see
/// [`CongestionControl::required_ecn`]; the TCP receiver implements it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnEcho {
    /// RFC 3168 section 6.1.3: once a CE segment arrives, ECE on every ACK until a segment
    /// with CWR arrives.
    Rfc3168,
    /// RFC 8257 section 3.2 (Linux tcp_dctcp.h `dctcp_ece_ack_update`): ECE on an ACK exactly
    /// while the last data segment received was CE; CWR is ignored. When the CE state changes,
    /// a pending delayed ACK first leaves for the earlier segments with the old state, then the
    /// new segment is acknowledged at once with the new one.
    Dctcp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionKind {
    /// Loss detected by duplicate ACKs or SACK (entering fast recovery).
    FastRetransmit,
    /// The retransmission timer expired.
    Timeout,
    /// An ECN-Echo, at most once per window (RFC 3168).
    Ecn,
}

#[derive(Clone, Copy, Debug)]
pub struct CongestionEvent {
    pub now: SimTime,
    pub kind: CongestionKind,
    /// FlightSize in bytes when the event happened (RFC 5681).
    pub bytes_in_flight: u64,
    pub snd_nxt: u64,
}

pub trait CongestionControl: Send {
    fn on_ack(&mut self, ack: &AckEvent);
    /// Sets ssthresh and cwnd for the event. After `Timeout`, cwnd must be the loss window.
    fn on_congestion_event(&mut self, event: &CongestionEvent);
    /// Fast recovery ended (the recovery point was acknowledged).
    fn on_recovery_exit(&mut self, now: SimTime);
    /// The handshake is done and data may flow: Linux initialises the algorithm here
    /// (`tcp_init_transfer` calls `tcp_init_congestion_control` after the SYN-ACK, or the ACK
    /// of the SYN-ACK, was processed), so it starts knowing the SYN's RTT as its smoothed and
    /// minimum RTT. `syn_rtt` is that sample, or None when the SYN was resent (Karn). Only
    /// algorithms whose initial state depends on the RTT need this (BBR's initial pacing rate
    /// and min RTT); it is not called when the connection has no SYN exchange (`syn = false`).
    fn on_connection_established(&mut self, _now: SimTime, _syn_rtt: Option<SimDuration>) {}
    /// A segment left the sender; `bytes_in_flight_before` is 0 when the connection was idle.
    fn on_packet_sent(&mut self, _now: SimTime, _bytes: u64, _bytes_in_flight_before: u64) {}
    /// Everything outstanding at a retransmission timeout has been acknowledged (the end of
    /// Linux's TCP_CA_Loss state). Most algorithms need nothing here.
    fn on_timeout_recovery_exit(&mut self, _now: SimTime) {}
    /// The last reduction was spurious (F-RTO or a timestamp showed the original segment
    /// arrived): restore the window, as Linux's `undo_cwnd`. `prior_cwnd` and `prior_ssthresh`
    /// are bytes, from before the reduction. The default keeps the window as it is, which is what
    /// Linux BBR does (`bbr_undo_cwnd`).
    fn undo_reduction(&mut self, _now: SimTime, _prior_cwnd: u64, _prior_ssthresh: u64) {}
    /// The algorithm sets the window during loss recovery itself (Linux's `cong_control`
    /// algorithms, BBR): the sender then runs no PRR.
    fn owns_recovery_window(&self) -> bool {
        false
    }
    /// The ECN feedback the algorithm cannot work without, if any: the flow is then built with
    /// ECN negotiated and the receiver echoing CE this way (Linux's TCP_CONG_NEEDS_ECN, which
    /// negotiates ECN whatever the `tcp_ecn` sysctl says; a scenario may not turn it off).
    fn required_ecn(&self) -> Option<EcnEcho> {
        None
    }
    fn cwnd(&self) -> u64;
    fn ssthresh(&self) -> u64;
    /// Bits per second the sender should pace at, if the algorithm paces.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// Whether `on_ack` reads `AckEvent::paced` and `AckEvent::pacing_rate` (CUBIC's HyStart
    /// ACK-train rule). The sender fills them in only for an algorithm that does: Linux's default
    /// rate takes a 128-bit division, which every ACK of every other algorithm would pay.
    fn reads_pacing_rate(&self) -> bool {
        false
    }
    /// The fewest segments a GSO packet carries at this pacing rate (bits per second; None
    /// before the first RTT sample): Linux's `tcp_min_tso_segs`, 2, unless the algorithm has a
    /// `min_tso_segs` of its own (BBR's).
    fn min_tso_segments(&self, _pacing_rate_bps: Option<u64>) -> u64 {
        2
    }
    /// A short name of the algorithm's current state, for traces ("slow_start", "ca").
    fn state_name(&self) -> &'static str;
    /// How long the sender should hold each arriving ACK before processing it (Active Delay
    /// Control's sender-based delay); 0 for all other algorithms.
    fn ack_processing_delay(&self) -> SimDuration {
        0
    }
    /// A named event that happened in the last call (a mode switch, an algorithm-specific
    /// congestion event), for the results' events table. Polled after every call.
    fn take_event(&mut self) -> Option<&'static str> {
        None
    }

    /// Why the algorithm stopped working, if it did (an exception in a Python algorithm): the
    /// simulation reports it instead of results. Built-in algorithms never fail.
    fn failure(&self) -> Option<&str> {
        None
    }
}

/// What an algorithm needs to know about the connection it is created for.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionInfo {
    pub mss: u64,
    pub initial_window_segments: u32,
    /// The `initial_ssthresh` option: the slow-start threshold a connection starts with (None:
    /// unbounded, as Linux since 2.6.x; older Linux BIC and CUBIC started at 100 segments).
    pub initial_ssthresh_segments: Option<u32>,
    /// The `cwnd_clamp` option: the largest cwnd in segments (Linux `snd_cwnd_clamp`; None: no
    /// clamp). Algorithms on [`window::SegmentWindow`] never grow past it.
    pub cwnd_clamp_segments: Option<u32>,
    /// Seed for algorithms that draw random numbers (derived from the flow's random stream).
    pub seed: u64,
}

impl ConnectionInfo {
    /// A connection with no initial ssthresh (unbounded) and no cwnd clamp.
    pub fn new(mss: u64, initial_window_segments: u32, seed: u64) -> Self {
        Self { mss, initial_window_segments, initial_ssthresh_segments: None, cwnd_clamp_segments: None, seed }
    }
}

#[derive(Clone, Copy, Debug)]
pub enum ParamKind {
    Float {
        min: f64,
        max: f64,
    },
    Integer {
        min: i64,
        max: i64,
    },
    Bool,
    Duration {
        min: SimDuration,
        max: SimDuration,
    },
    /// One of a fixed set of names.
    Choice {
        allowed: &'static [&'static str],
    },
}

impl ParamKind {
    /// Human-readable range, e.g. "0.0 to 1.0".
    pub fn range(&self) -> String {
        match self {
            ParamKind::Float { min, max } => format!("{min} to {max}"),
            ParamKind::Integer { min, max } => format!("{min} to {max}"),
            ParamKind::Bool => "true or false".to_string(),
            ParamKind::Duration { min, max } => {
                format!("{} to {}", units::Duration(*min), units::Duration(*max))
            }
            ParamKind::Choice { allowed } => allowed.join(" or "),
        }
    }
}

/// One tunable of an algorithm.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    pub unit: &'static str,
    pub description: &'static str,
}

/// The Linux `tcp_is_cwnd_limited` switch most Linux-derived algorithms share.
pub const FREEZE_WHEN_NOT_CWND_LIMITED: ParamSpec = ParamSpec {
    name: "freeze_when_not_cwnd_limited",
    kind: ParamKind::Bool,
    unit: "",
    description: "no cwnd growth while the application does not fill cwnd (Linux tcp_is_cwnd_limited)",
};

/// Checks a user's parameter table against the specs, then deserialises it into the typed config
/// (missing keys take the config's defaults). Errors name the parameter, the value and the range.
pub fn parse_params<C: DeserializeOwned + Default>(
    algorithm: &str,
    specs: &[ParamSpec],
    params: &Value,
) -> Result<C, String> {
    let table = match params {
        Value::Null => return Ok(C::default()),
        Value::Object(table) => table,
        other => return Err(format!("params for '{algorithm}' must be a table, not {other}")),
    };
    for (key, value) in table {
        let spec = specs.iter().find(|s| s.name == key).ok_or_else(|| {
            let known: Vec<_> = specs.iter().map(|s| s.name).collect();
            if known.is_empty() {
                format!("'{algorithm}' has no parameters, but '{key}' was given")
            } else {
                format!("unknown parameter '{key}' for '{algorithm}'; known: {}", known.join(", "))
            }
        })?;
        let out_of_range =
            || format!("{key} = {value} is out of range for '{algorithm}': allowed {}", spec.kind.range());
        match spec.kind {
            ParamKind::Float { min, max } => {
                let x = value
                    .as_f64()
                    .ok_or_else(|| format!("{key} = {value} must be a number ({})", spec.kind.range()))?;
                if !(min..=max).contains(&x) {
                    return Err(out_of_range());
                }
            }
            ParamKind::Integer { min, max } => {
                let x = value
                    .as_i64()
                    .ok_or_else(|| format!("{key} = {value} must be a whole number ({})", spec.kind.range()))?;
                if !(min..=max).contains(&x) {
                    return Err(out_of_range());
                }
            }
            ParamKind::Bool => {
                if !value.is_boolean() {
                    return Err(format!("{key} = {value} must be true or false"));
                }
            }
            ParamKind::Choice { allowed } => {
                if !value.as_str().is_some_and(|v| allowed.contains(&v)) {
                    return Err(format!(
                        "{key} = {value} is not allowed for '{algorithm}': allowed {}",
                        spec.kind.range()
                    ));
                }
            }
            ParamKind::Duration { min, max } => {
                let text =
                    value.as_str().ok_or_else(|| format!("{key} = {value} must be a duration string like \"10ms\""))?;
                let nanos = units::Duration::parse(text).map_err(|e| format!("{key}: {e}"))?.nanos();
                if !(min..=max).contains(&nanos) {
                    return Err(out_of_range());
                }
            }
        }
    }
    serde_json::from_value(params.clone()).map_err(|e| format!("params for '{algorithm}': {e}"))
}

/// Builds a controller from its (unchecked) parameter table.
pub type Factory = fn(&Value, ConnectionInfo) -> Result<Box<dyn CongestionControl>, String>;

/// A registered algorithm.
pub struct Algorithm {
    pub name: &'static str,
    pub summary: &'static str,
    /// The paper or RFC it follows, and where it follows Linux instead.
    pub source: &'static str,
    pub params: &'static [ParamSpec],
    /// The defaults of every parameter, as the config serialises them.
    pub defaults: fn() -> Value,
    pub create: Factory,
}

/// Serialises a config's `Default` so listings always show the values the code uses.
pub fn defaults_of<C: Serialize + Default>() -> Value {
    serde_json::to_value(C::default()).expect("configs serialise to JSON")
}

/// Every algorithm tcplab ships, by name.
pub fn registry() -> &'static [Algorithm] {
    static REGISTRY: &[Algorithm] = &[
        reno::ALGORITHM,
        newreno::ALGORITHM,
        cubic::ALGORITHM,
        bic::ALGORITHM,
        highspeed::ALGORITHM,
        hybla::ALGORITHM,
        scalable::ALGORITHM,
        vegas::ALGORITHM,
        veno::ALGORITHM,
        westwood::ALGORITHM,
        compound::ALGORITHM,
        bbr::v1::ALGORITHM,
        bbr::v3::ALGORITHM,
        rta::ALGORITHM,
        roccet::ALGORITHM,
        tcp_do::ALGORITHM,
        sdc::ALGORITHM,
        htcp::ALGORITHM,
        illinois::ALGORITHM,
        yeah::ALGORITHM,
        nv::ALGORITHM,
        copa::ALGORITHM,
        dctcp::ALGORITHM,
        ledbat::ALGORITHM,
        lp::ALGORITHM,
        cdg::ALGORITHM,
    ];
    REGISTRY
}

pub fn find(name: &str) -> Option<&'static Algorithm> {
    registry().iter().find(|a| a.name == name)
}

pub fn names() -> Vec<&'static str> {
    registry().iter().map(|a| a.name).collect()
}

/// Whether `name` is a built-in algorithm or one the installed external source knows.
pub fn exists(name: &str) -> bool {
    find(name).is_some() || external::installed().is_some_and(|source| source.knows(name))
}

/// Why an external algorithm's name does not resolve (a module that does not import), if it
/// does not; built-in names always resolve.
pub fn resolve(name: &str) -> Result<(), String> {
    match external::installed() {
        Some(source) if find(name).is_none() && source.knows(name) => source.resolve(name),
        _ => Ok(()),
    }
}

/// The names a scenario may use, for error messages: the built-in ones, then the external form.
pub fn available() -> String {
    let mut text = names().join(", ");
    if let Some(source) = external::installed() {
        text.push_str(&format!(", or {}", source.name_form()));
    }
    text
}

/// Creates a controller by name with validated parameters.
pub fn create(name: &str, params: &Value, info: ConnectionInfo) -> Result<Box<dyn CongestionControl>, String> {
    if let Some(algorithm) = find(name) {
        return (algorithm.create)(params, info);
    }
    match external::installed() {
        Some(source) if source.knows(name) => source.create(name, params, info),
        _ => Err(format!("unknown congestion control '{name}'; available: {}", available())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_names_a_field_of_the_defaults_and_vice_versa() {
        for algorithm in registry() {
            let defaults = (algorithm.defaults)();
            let fields = defaults.as_object().expect("configs are tables");
            for spec in algorithm.params {
                assert!(fields.contains_key(spec.name), "{}: spec {} has no field", algorithm.name, spec.name);
            }
            assert_eq!(fields.len(), algorithm.params.len(), "{}: a field has no spec", algorithm.name);
            // The defaults themselves pass validation.
            assert!((algorithm.create)(&defaults, ConnectionInfo::new(1448, 10, 1)).is_ok());
        }
    }

    #[test]
    fn bad_parameters_are_named() {
        let info = ConnectionInfo::new(1448, 10, 1);
        let err = create("cubic", &serde_json::json!({"beta": 1.5}), info).err().unwrap();
        assert!(err.contains("beta = 1.5") && err.contains("out of range"), "{err}");
        let err = create("cubic", &serde_json::json!({"betta": 0.5}), info).err().unwrap();
        assert!(err.contains("unknown parameter 'betta'") && err.contains("beta"), "{err}");
        let err = create("vegas2", &Value::Null, info).err().unwrap();
        assert!(err.contains("unknown congestion control 'vegas2'") && err.contains("cubic"), "{err}");
    }
}
