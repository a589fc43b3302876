//! TCP: a sender and a receiver that carry reliability, loss recovery, timers, ECN, pacing and
//! delayed ACKs. The sender calls a [`crate::cc::CongestionControl`] through its trait and owns no
//! algorithm logic.

pub mod linux_ack;
pub mod linux_sack;
pub mod prr;
pub mod rack;
pub mod receiver;
pub mod rtt;
pub mod rtt_linux;
pub mod rtt_ns2;
pub mod sender;

use serde::{Deserialize, Serialize};

pub use crate::cc::EcnEcho;
use crate::net::packet::Packet;
use crate::sim::EventQueue;
use crate::time::SimDuration;

/// Which loss recovery the sender runs after three duplicate ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryMode {
    /// RFC 5681 section 3.2 as ns-2's Reno agent: window inflation by duplicate ACKs, and the
    /// first ACK that advances (even a partial one) ends recovery with cwnd = ssthresh.
    Reno,
    /// RFC 6582: one retransmission per partial ACK, window inflation by duplicate ACKs (ns-2).
    NewReno,
    /// RFC 6675: a SACK scoreboard and the pipe estimate (what Linux builds on).
    Sack,
}

/// How the retransmission timeout is computed from SRTT and RTTVAR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoFormula {
    /// RFC 6298: RTO = max(SRTT + max(G, 4 RTTVAR), min RTO).
    Rfc6298,
    /// Linux `tcp_set_rto`: RTO = SRTT + max(4 RTTVAR, min RTO), so min RTO is added to SRTT.
    Linux,
    /// ns-2's integer estimator in ticks of `clock_granularity` (tcp/tcp.cc `rtt_update`,
    /// `rtt_timeout`, `rtt_backoff`); see `rtt_ns2.rs`.
    Ns2,
}

/// Which ACKs feed the RTO estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// Every ACK that acknowledges data sent once (Linux `tcp_clean_rtx_queue`, ns-3).
    EveryAck,
    /// One segment timed per round trip, as BSD and ns-2 without timestamps (tcp/tcp.cc
    /// `rtt_active_`, `rtt_seq_`): timing starts when a new segment leaves and none is timed, the
    /// sample is taken when the cumulative ACK covers it, and a timeout or a fast retransmit
    /// cancels it (Karn).
    TimedSegment,
}

/// Which RTT the congestion control sees on each ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlgorithmRtt {
    /// The ACK's own sample, and the smallest sample as the minimum (Linux's `tcp_ack` passes
    /// `rs->rtt_us` to `pkts_acked`).
    Sample,
    /// The smoothed RTT after the ACK, and the smallest smoothed RTT as the minimum, as ns-3
    /// 3.44 gives its algorithms (tcp-socket-base.cc: every `PktsAcked` call passes
    /// `m_tcb->m_srtt`; `m_tcb->m_minRtt` is the minimum of `m_srtt`).
    Smoothed,
}

/// What the sender hands the algorithm as the amount in flight when it reduces at a fast
/// retransmit or an ECN-Echo (timeouts always give the pipe).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReductionBase {
    /// FlightSize, the data outstanding before the event (RFC 5681 (4.2), RFC 6675 step 4.2).
    FlightSize,
    /// ns-3 3.44's: the pipe after the first unacknowledged segment is marked lost
    /// (tcp-socket-base.cc EnterRecovery, 1715-1717: `BytesInFlight()`, plus one segment without
    /// SACK, where each duplicate ACK counts as one segment delivered; EnterCwr 1655).
    Pipe,
}

/// How the sender answers ECN-Echo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnResponse {
    /// The algorithm reduces once per window; the window never goes below its floor (2 segments
    /// for Reno-like algorithms), as Linux `tcp_enter_cwr`.
    Linux,
    /// RFC 3168 section 6.1.2 as ns-2 (tcp/tcp.cc `ecn`, `slowdown`, `newtimer`): with a window
    /// of at most one segment, the window falls below one segment and the next new segment waits
    /// for the retransmission timer; a second such reduction in a row also backs the timer off.
    Rfc3168,
}

/// Which ACKs restart the retransmission timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoRestart {
    /// RFC 6298 (5.3): an ACK that acknowledges new data (Linux, ns-3, ns-2's own agents).
    NewData,
    /// Every ACK while data is outstanding, duplicates included: ns-2's Agent/TCP/Linux
    /// (tcp/tcp-linux.cc `time_processing` renews the timer on each ACK it processes).
    EveryAck,
}

/// When the receiver ACKs in-order data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckPolicy {
    /// RFC 5681 section 4.2: every `delayed_ack_count` segments or on the timer, the first
    /// `quick_acks` segments at once (ns-2's and ns-3's sinks, with no quick ACKs).
    Counted,
    /// Linux's rules (`linux_ack.rs`): quick-ACK mode, an ACK at once whenever the offered
    /// window grows, receive-buffer autotuning, compressed SACKs.
    Linux,
}

/// Receiver-based delay control (Active Delay Control): how long the receiver holds each ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckDelayMode {
    /// ACKs leave as soon as the ACK policy sends them.
    None,
    /// Hold each ACK for the delay routers stamped on the data (exact RDC).
    ExactRdc,
    /// Hold each ACK for a delay the receiver adapts from CE marks (1-bit RDC).
    OneBitRdc,
}

/// Every TCP option of one connection, resolved (defaults applied, units converted; times in
/// nanoseconds when serialized). Flows with the same options share one (`Arc`): a copy in each
/// sender and receiver was 288 of a flow record's 1,984 bytes, and with one for the whole run the
/// options a packet reads stay in the cache.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct TcpConfig {
    /// Maximum segment size: payload bytes per full segment.
    pub mss: u64,
    /// IP + TCP header bytes per packet (52 with timestamps: 1448 + 52 = 1500).
    pub header_bytes: u64,
    pub initial_window_segments: u32,
    /// Slow-start threshold a connection starts with, in segments (None: unbounded).
    pub initial_ssthresh_segments: Option<u32>,
    /// The largest cwnd in segments (Linux `snd_cwnd_clamp`; None: no clamp).
    pub cwnd_clamp_segments: Option<u32>,
    pub recovery: RecoveryMode,
    /// RACK-TLP (RFC 8985): time-based loss marking and tail loss probes (SACK recovery only).
    pub rack: bool,
    pub tail_loss_probe: bool,
    /// PRR (RFC 6937) sets the window during SACK recovery.
    pub prr: bool,
    /// TCP timestamps (RFC 7323): RTT samples from the echoed send time when Karn's rule would
    /// withhold one, and detection of spurious retransmissions (Eifel, RFC 3522).
    pub timestamps: bool,
    /// F-RTO (RFC 5682, SACK-enhanced as Linux): detect a spurious timeout and undo it.
    pub frto: bool,
    /// Undo reductions found spurious (Eifel with timestamps, F-RTO), as Linux does; ns-2 and
    /// ns-3 never undo.
    pub undo: bool,
    pub rto_formula: RtoFormula,
    /// Which ACKs feed the RTO estimator.
    pub rtt_sampling: RttSampling,
    /// Which RTT the congestion control sees.
    pub algorithm_rtt: AlgorithmRtt,
    /// What a reduction at fast retransmit or ECN-Echo is computed from.
    pub reduction_base: ReductionBase,
    /// How the sender reacts to ECN-Echo.
    pub ecn_response: EcnResponse,
    /// A SYN (header only) and its SYN-ACK before the data, as ns-2's one-way agents with `syn_`
    /// and `delay_growth_` (the window counts from the SYN-ACK).
    pub syn: bool,
    /// With `ecn`, retransmissions are sent ECN-capable too, as ns-2 does; RFC 3168 section
    /// 6.1.5 forbids it (a router could then mark instead of drop a repair).
    pub ect_retransmissions: bool,
    pub rto_restart: RtoRestart,
    /// The first segments a receiver ACKs at once, before delayed ACKs start; with the Linux ACK
    /// policy the most quick ACKs one episode gives (TCP_MAX_QUICKACKS); 0 turns them off.
    pub quick_ack_segments: u32,
    /// When the receiver ACKs, and (Linux) the window it offers.
    pub ack_policy: AckPolicy,
    pub limited_transmit: bool,
    /// Duplicate ACKs (or SACKed segments above a hole) that signal a loss.
    pub duplicate_threshold: u32,
    pub min_rto: SimDuration,
    pub initial_rto: SimDuration,
    pub max_rto: SimDuration,
    /// Clock granularity G of RFC 6298.
    pub clock_granularity: SimDuration,
    pub delayed_ack: bool,
    /// Full-sized segments that trigger an ACK when delayed ACKs are on.
    pub delayed_ack_count: u32,
    pub delayed_ack_timeout: SimDuration,
    /// Negotiate ECN: data is sent ECT(0) and the receiver echoes CE.
    pub ecn: bool,
    /// How the receiver echoes CE: RFC 3168 unless the algorithm requires DCTCP's echo (set by
    /// the flow builder from `CongestionControl::required_ecn`, not a scenario key).
    pub ecn_echo: EcnEcho,
    /// Receive buffer in bytes; the advertised window is what it has free.
    pub receive_window: u64,
    /// Send buffer in bytes: the data outstanding never exceeds it (None: unbounded).
    pub send_buffer: Option<u64>,
    /// Pace algorithms that set no rate of their own at Linux's internal rate (as with the fq
    /// qdisc): 200% of cwnd / srtt below half of ssthresh, 120% above.
    pub pacing: bool,
    /// Send as Linux does through a device with GSO: packets of several segments sized to about
    /// 1 ms of the pacing rate leave back to back, and new data waits for the next ACK while the
    /// window has room for less than one (`tcp_tso_should_defer`; `tcp/sender/gso.rs`).
    pub gso: bool,
    /// Receiver-based delay control and its largest delay.
    pub ack_delay: AckDelayMode,
    pub ack_delay_max: SimDuration,
}

/// What a TCP endpoint needs from the world while it handles an event.
pub struct EndpointContext<'a> {
    pub events: &'a mut EventQueue,
    /// Packets to inject into the network at the endpoint's node, in order.
    pub outbox: &'a mut Vec<Packet>,
}
