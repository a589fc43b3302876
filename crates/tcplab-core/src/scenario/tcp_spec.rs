//! The `[tcp]` table (and a flow's own `tcp`): every TCP option a scenario may set, and the TCP
//! stacks whose defaults it may adopt. What unset keys mean is in `defaults.rs`; the conversion
//! into the TCP layer's configuration in `tcp_config.rs`.

use serde::{Deserialize, Serialize};

use crate::tcp::{
    AckDelayMode, AckPolicy, AlgorithmRtt, EcnResponse, RecoveryMode, ReductionBase, RtoFormula, RtoRestart,
    RttSampling,
};
use crate::units::{Bytes, Duration};

/// TCP options; every key is optional and falls back to [`TcpSpec::defaults`].
#[derive(Clone, Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Which stack's defaults fill the unset keys: "linux" (the default), "ns3" or "ns2"
    /// (docs/tcp.md lists every value and its source). Only in the scenario's `[tcp]` table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<TcpProfile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<Bytes>,
    /// Initial window in segments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Slow-start threshold at the start, in segments; unset: unbounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<u32>,
    /// The largest cwnd in segments (Linux `snd_cwnd_clamp`; ns-2's Agent/TCP/Linux turns its
    /// `window_` into this); unset: no clamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwnd_clamp: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<RecoveryMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail_loss_probe: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prr: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamps: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frto: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<bool>,
    /// "linux", "rfc6298" or "ns2" (ns-2's integer estimator in ticks of `clock_granularity`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_formula: Option<RtoFormula>,
    /// Which ACKs feed the RTO estimator: "every_ack" or "timed_segment" (one per round trip,
    /// as ns-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_sampling: Option<RttSampling>,
    /// The RTT the congestion control sees: "sample" (each ACK's, Linux) or "smoothed" (the
    /// smoothed RTT, as ns-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm_rtt: Option<AlgorithmRtt>,
    /// What a reduction at fast retransmit or ECN-Echo is computed from: "flight_size" (RFC
    /// 5681) or "pipe" (ns-3's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduction_base: Option<ReductionBase>,
    /// The reaction to ECN-Echo: "linux" (never below the algorithm's floor) or "rfc3168" (below
    /// one segment, then wait for the retransmission timer, as ns-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_response: Option<EcnResponse>,
    /// A SYN and its SYN-ACK before the data (ns-2's `syn_`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syn: Option<bool>,
    /// With `ecn`, retransmissions are ECN-capable too (ns-2); RFC 3168 section 6.1.5 says not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ect_retransmissions: Option<bool>,
    /// Which ACKs restart the retransmission timer: "new_data" (RFC 6298) or "every_ack" (ns-2's
    /// Agent/TCP/Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_restart: Option<RtoRestart>,
    /// Segments the receiver ACKs at once before delayed ACKs start (Linux quick-ACK mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quick_acks: Option<u32>,
    /// When the receiver ACKs: "linux" (its quick-ACK, window-growth and SACK-compression rules,
    /// with receive-buffer autotuning) or "counted" (every `delayed_ack_count` segments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_policy: Option<AckPolicy>,
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
    /// The sender's buffer: at most this much data between the first unacknowledged byte and the
    /// last one sent (ns-3's SndBufSize holds unacknowledged and unsent data); unset: unbounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_buffer: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<bool>,
    /// Linux's GSO packets: bursts sized to ~1 ms of the pacing rate, and TSO deferral.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gso: Option<bool>,
    /// Receiver-based delay control (Active Delay Control): "none", "exact_rdc" (hold each ACK
    /// for the delay routers stamped) or "one_bit_rdc" (a delay the receiver adapts from CE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_delay: Option<AckDelayMode>,
    /// Largest receiver-side ACK delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_delay_max: Option<Duration>,
}

/// A TCP stack whose defaults a scenario adopts (`tcp.profile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TcpProfile {
    /// Linux 6.x: SACK with RACK-TLP and PRR, timestamps, F-RTO, 200 ms min RTO added to SRTT,
    /// IW 10, quick ACKs then delayed ACKs.
    #[default]
    Linux,
    /// ns-3 3.4x TcpSocketBase defaults (the TCP-do and TCP-RTA papers).
    Ns3,
    /// ns-2.35's one-way TCP agents with its tcl/lib/ns-default.tcl defaults.
    Ns2,
    /// ns-2's one-way agents with the timer and Limited Transmit defaults of the releases before
    /// 2004 (minrto_ 1 s, maxrto_ 100000 s, singledup_ 0), as older papers configured them.
    #[serde(rename = "ns2-legacy")]
    Ns2Legacy,
}
