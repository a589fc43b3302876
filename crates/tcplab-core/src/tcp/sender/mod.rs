//! The TCP sender: reliability and loss recovery around a congestion controller.
//!
//! Segments have fixed boundaries: segment i carries bytes [i * MSS, (i + 1) * MSS) of the stream
//! (the last one of a finite transfer may be shorter), because the application hands TCP whole
//! segments. The scoreboard keeps one entry per outstanding segment with its SACKed, lost and
//! retransmitted state, and counters that make the pipe estimate O(1):
//!
//!   in flight = outstanding - SACKed - lost + retransmitted-and-not-yet-acknowledged
//!
//! which is RFC 6675's SetPipe() and Linux's `tcp_packets_in_flight`. With `recovery = "newreno"`
//! or `"reno"` the sender ignores SACK blocks, so SACKed is always 0 and the formula is FlightSize.
//!
//! This file holds the state and the scoreboard. The rest:
//! - `gso.rs`: Linux's GSO packets with `gso`: their size, and when new data waits for an ACK;
//! - `send.rs`: the send path (window, pacing, retransmissions first), the SYN exchange with
//!   `syn`, and what each data packet carries;
//! - `ack.rs`: the order in which an ACK is processed, and the RTT and delivery-rate samples;
//! - `recovery.rs`: duplicate ACKs, fast retransmit and recovery (Reno, NewReno, SACK with PRR),
//!   ECN reactions, and undoing reductions that prove spurious (timestamps, F-RTO);
//! - `loss_detection.rs`: RACK's time-based loss marking and the tail loss probe (RFC 8985);
//! - `timers.rs`: the retransmission timer (RFC 6298) and the one timer event that serves it,
//!   RACK's reordering timer and the probe timer.
//!
//! RTT samples follow Karn's rule as Linux applies it (`tcp_clean_rtx_queue`): an ACK whose
//! cumulative part covers any segment that was ever retransmitted gives no sample from that part;
//! newly SACKed segments that were never retransmitted still give one; with timestamps (RFC 7323)
//! an ACK that acknowledged new data and gave no other sample is timed from its echoed send time.
//! With `rtt_sampling = "timed_segment"` only one segment per round trip feeds the estimator, as
//! ns-2 (`ack.rs`); with `syn` a SYN and its SYN-ACK come first and time the first sample.

mod ack;
mod gso;
mod loss_detection;
mod recovery;
mod send;
mod timers;

use send::Handshake;

use std::collections::VecDeque;
use std::sync::Arc;

use crate::cc::CongestionControl;
use crate::histogram::DelayHistogram;
use crate::net::packet::{Packet, MAX_SACK_BLOCKS};
use crate::prefetch::{hint, Hint};
use crate::tcp::prr::Prr;
use crate::tcp::rack::Rack;
use crate::tcp::rtt::{RttEstimator, SendWindow};
use crate::tcp::{EndpointContext, RecoveryMode, TcpConfig};
use crate::time::SimTime;

/// One segment on the scoreboard. 40 bytes: at 10,000 flows the scoreboards were the largest
/// share of the heap's peak after the flow records and link directions (12.8 MB in 56-byte
/// entries). The delivery-rate counts are kept as their low 32 bits, as Linux keeps
/// `tx.delivered` and `tx.lost` in `u32` (include/net/tcp.h `tcp_skb_cb`): what a rate sample
/// needs is how far they moved between this segment's send and its delivery, which is less than a
/// window (below 2^30 bytes, RFC 7323), so the full counts are read back from the sender's
/// current ones (`delivered_at_send`, `lost_at_send`).
#[derive(Clone, Copy, Debug, Default)]
struct Segment {
    /// When this segment was last transmitted.
    sent_at: SimTime,
    /// Delivery-rate state when it was (last) sent: when the last delivered byte was delivered,
    /// and when the first segment of that flight was sent.
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// The low 32 bits of the bytes delivered, and of the bytes marked lost, when it was sent.
    delivered_low: u32,
    lost_low: u32,
    /// Bytes in flight when sent (this segment included) in the low 31 bits, and in the top bit
    /// whether the application limited the sender then (`tx_in_flight`, `app_limited`).
    in_flight_and_app_limited: u32,
    sacked: bool,
    lost: bool,
    /// A retransmission of it is in flight (counts in the pipe until acknowledged or lost again).
    retransmission_in_flight: bool,
    /// It has ever been retransmitted: Karn's rule forbids RTT samples from it.
    ever_retransmitted: bool,
}

/// The top bit of `Segment::in_flight_and_app_limited`.
const APP_LIMITED_BIT: u32 = 1 << 31;

impl Segment {
    /// Stamps the sender's delivery-rate state at this segment's send.
    fn stamp(&mut self, delivered: u64, lost: u64, in_flight: u64, app_limited: bool) {
        self.delivered_low = delivered as u32;
        self.lost_low = lost as u32;
        // A window is below 2^30 bytes; the cap only keeps the flag's bit free.
        let in_flight = in_flight.min((APP_LIMITED_BIT - 1) as u64) as u32;
        self.in_flight_and_app_limited = in_flight | if app_limited { APP_LIMITED_BIT } else { 0 };
    }

    /// The sender's delivered count when this segment was sent, from its count `now` (which
    /// has moved by less than 2^32 bytes since).
    fn delivered_at_send(&self, now: u64) -> u64 {
        now - (now as u32).wrapping_sub(self.delivered_low) as u64
    }

    /// The sender's count of bytes marked lost when this segment was sent, from its count now.
    fn lost_at_send(&self, now: u64) -> u64 {
        now - (now as u32).wrapping_sub(self.lost_low) as u64
    }

    fn tx_in_flight(&self) -> u64 {
        (self.in_flight_and_app_limited & !APP_LIMITED_BIT) as u64
    }

    fn app_limited(&self) -> bool {
        self.in_flight_and_app_limited & APP_LIMITED_BIT != 0
    }
}

/// How far ahead of the scoreboard's front, and past its back, the sender starts loading entries
/// as it pops and pushes them one by one: each pop loads the entry two places behind the new
/// front, so the loads stream ahead of the pops through this ACK and the next (an ACK mostly
/// covers two segments); each push loads the slot two places past the new back.
const SCOREBOARD_PREFETCH_AHEAD: usize = 2;

/// Counters a flow reports at the end of a run.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// The latest delivery-rate sample, bits per second (what Linux reports as
    /// tcpi_delivery_rate): the time series samples it.
    pub latest_delivery_rate_bps: Option<u64>,
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    /// Retransmission timer expiries the sender acted on: with data outstanding (go-back-N), or
    /// ending the wait after an ECN reduction at one segment (`ecn_response = "rfc3168"`), or
    /// resending the SYN.
    pub timeouts: u64,
    /// The expiries with data outstanding that were not in the window after an ECN reduction:
    /// what ns-2 counts in `nrexmit_` (tcp/tcp.cc `timeout`), the timeouts that signal a loss.
    pub timeouts_after_loss: u64,
    pub fast_recoveries: u64,
    /// ECN-Echoes the algorithm answered by lowering cwnd or ssthresh (one that ignores ECN, such
    /// as BBR, reduces nothing and is not counted).
    pub ecn_reductions: u64,
    /// Tail loss probes sent (RFC 8985 section 7).
    pub tail_loss_probes: u64,
    /// Window reductions undone because they proved spurious (timestamps or F-RTO).
    pub undone_reductions: u64,
    /// Per-ACK RTT samples.
    pub rtt: DelayHistogram,
    /// When every byte of a finite transfer was acknowledged.
    pub all_acknowledged_at: Option<SimTime>,
    /// Events the algorithm reported, with their times.
    pub events: Vec<(SimTime, &'static str)>,
}

/// The cause of the latest window reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reduction {
    None,
    Ecn,
    FastRetransmit,
    Timeout,
}

pub struct TcpSender {
    flow: u32,
    destination: u32,
    /// Shared with the receiver and every flow with the same options (`TcpConfig`).
    config: Arc<TcpConfig>,
    pub cc: Box<dyn CongestionControl>,
    pub rtt: RttEstimator,
    pub stats: SenderStats,

    /// Bytes the application has handed to TCP so far (u64::MAX: an unlimited backlog).
    app_written: u64,
    /// Length of a finite stream, once the application has written its last byte.
    stream_end: Option<u64>,

    /// First unacknowledged byte, and the next new byte (snd_nxt == snd_max: no go-back pointer).
    snd_una: u64,
    snd_nxt: u64,
    /// Scoreboard: `segments[0]` is the segment starting at `snd_una`.
    segments: VecDeque<Segment>,
    /// Takes in a row that left the scoreboard at most a quarter full (`slack::release_slack`).
    segments_quiet: u16,
    sacked_count: u64,
    lost_count: u64,
    retransmissions_in_flight: u64,
    /// Lowest scoreboard offset that may hold a lost segment still to be retransmitted.
    retransmit_hint: u64,
    /// SACK mode: offsets below this have been checked by the loss marking.
    loss_marked_below: u64,
    /// Offset of the highest SACKed segment: the loss marking walks down from there, not from the
    /// top of a possibly huge window.
    highest_sacked: Option<usize>,

    in_recovery: bool,
    /// No new fast recovery until `snd_una` reaches this (RFC 6582 `recover`, RFC 6675 RecoveryPoint).
    recover: u64,
    /// After a timeout, until `recover` is acknowledged.
    in_timeout_recovery: bool,
    duplicate_acks: u32,
    /// NewReno window inflation in bytes (may go negative while deflating).
    inflation: i64,
    partial_ack_seen: bool,
    /// New data sent by Limited Transmit since the cumulative ACK last advanced: RFC 5681
    /// section 3.2 step 2 leaves it out of the FlightSize that fast retransmit halves.
    limited_transmit_bytes: u64,
    /// PRR during SACK recovery, and the window it allows after the latest ACK (bytes).
    prr: Option<Prr>,
    prr_window: u64,
    /// cwnd and ssthresh before the current reduction, while it may still be undone.
    undo: Option<(u64, u64)>,
    /// When the current episode's first retransmission left: an ACK echoing an earlier send time
    /// was caused by an original segment (Eifel detection, RFC 3522).
    first_retransmission_at: Option<SimTime>,
    /// F-RTO (RFC 5682): while a timeout may still prove spurious, `snd_nxt` when its test began.
    frto_high_seq: Option<u64>,
    /// F-RTO step 2b: send new data instead of retransmissions in answer to this ACK.
    frto_send_new: bool,

    /// RACK (RFC 8985) state; offsets below `rack_scan_from` hold no segment sent only once that
    /// RACK must still judge (each is SACKed, or lost or retransmitted already).
    rack: Rack,
    rack_scan_from: u64,
    /// Retransmissions in the order they were sent: (first byte, send time). Entries whose
    /// segment has left or been resent since are stale and skipped.
    retransmission_order: VecDeque<(u64, SimTime)>,
    /// The tail loss probe in flight: `snd_nxt` when it left, and whether it was a retransmission.
    probe_outstanding: Option<(u64, bool)>,

    peer_window: u64,

    /// ECN: no new reaction until `snd_una` passes this; CWR goes on the next new segment.
    ecn_recover: u64,
    /// The algorithm has been told of an ECN-Echo at least once (whether or not it reduced).
    ecn_responded: bool,
    cwr_pending: bool,
    /// What the latest window reduction answered (ns-2's `last_cwnd_action_`): after an ECN one
    /// a timeout before `ecn_recover` is not counted as a loss; after a timeout, RFC 3168's
    /// response answers ECN-Echo at once.
    last_reduction: Reduction,
    /// `ecn_response = "rfc3168"`: an ECN reduction at one segment left the window below one
    /// segment; no data leaves until the retransmission timer fires (RFC 3168 section 6.1.2).
    ecn_wait: bool,
    /// The reduction before was also at one segment: the next one backs the timer off (ns-2's
    /// `ecn_backoff_`).
    ecn_backoff: bool,
    /// After an ECN wait the window is one segment until an ACK advances (ns-2 sets cwnd_ to 1).
    one_segment_cap: bool,
    /// An ACK that advanced carried ECN-Echo (ns-2's `ect_`): later ones with ECE do not grow the
    /// window under the RFC 3168 response.
    ece_seen: bool,

    /// `rtt_sampling = "timed_segment"`: the end of the segment being timed and its send time
    /// (ns-2's `rtt_seq_`, `rtt_ts_`).
    rtt_timed: Option<(u64, SimTime)>,
    handshake: Handshake,

    /// Paced: the earliest time of the next transmission; unpaced: the time of the last one.
    next_send_time: SimTime,
    /// `gso`: segments the GSO packet being sent may still carry (0: the next segment starts a
    /// packet, which pacing may hold and deferral may keep back).
    gso_segments_left: u8,
    /// Data segments sent, retransmissions included (Linux's `data_segs_out`), counted up to
    /// `UNPACED_SEGMENTS`, after which pacing starts (a byte: the flow record's size).
    data_segments_sent: u8,
    pacing_timer_pending: bool,

    /// Deadlines of the retransmission timer, RACK's reordering timer and the tail loss probe,
    /// and the earliest pending timer event that serves them.
    rto_deadline: Option<SimTime>,
    reorder_deadline: Option<SimTime>,
    probe_deadline: Option<SimTime>,
    timer_event_at: Option<SimTime>,

    /// Linux tcp_cwnd_validate: was the window the limit during the last window of data?
    cwnd_limited: bool,
    max_packets_out: u64,
    cwnd_usage_seq: u64,
    /// The application had nothing to send when the window allowed more.
    pub app_limited: bool,

    /// Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation): bytes delivered
    /// (cumulatively or by SACK), when the last of them was, the send time of the first segment
    /// of the current flight, and the delivered count until which samples are app-limited (0:
    /// not app-limited).
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    app_limited_until: u64,
    /// Segments ever marked lost (to report the newly lost ones per ACK), and their bytes.
    lost_marks: u64,
    lost_bytes: u64,
    /// Send time of the last ACK processed, echoed in data packets (RFC 7323 TSecr-like).
    last_ack_sent_at: SimTime,
    /// ACKs held for the algorithm's ACK-processing delay, with their release times (FIFO; the
    /// release times never decrease).
    held_acks: VecDeque<(SimTime, Packet)>,
    /// The SACK blocks of the previous ACK: everything inside them is already on the scoreboard
    /// (receivers do not renege here), so a new ACK's blocks are only walked outside them.
    previous_sack: [(u64, u64); MAX_SACK_BLOCKS],
    previous_sack_count: usize,
}

impl TcpSender {
    /// Memory outside this struct that the next ACK is likely to touch: the oldest unacknowledged
    /// segment on the scoreboard, the slot the next new segment goes to, the algorithm's state
    /// and where the next RTT sample goes. The event loop prefetches them
    /// (`Simulation::prefetch_upcoming`); they only serve as hints.
    pub fn memory_hints(&self) -> [Hint; 4] {
        [
            self.segments.front().and_then(|segment| hint(segment)),
            hint(crate::prefetch::fifo_slot_past_back(&self.segments, 0)),
            hint(&*self.cc),
            self.stats.rtt.next_listed_address(),
        ]
    }

    pub fn new(flow: u32, destination: u32, config: impl Into<Arc<TcpConfig>>, cc: Box<dyn CongestionControl>) -> Self {
        let config = config.into();
        let rtt = RttEstimator::with_formula(
            config.min_rto,
            config.initial_rto,
            config.max_rto,
            config.clock_granularity,
            config.rto_formula,
        );
        Self {
            flow,
            destination,
            peer_window: config.receive_window,
            handshake: if config.syn { Handshake::Pending } else { Handshake::Done },
            config,
            cc,
            rtt,
            stats: SenderStats::default(),
            app_written: 0,
            stream_end: None,
            snd_una: 0,
            snd_nxt: 0,
            segments: VecDeque::new(),
            segments_quiet: 0,
            sacked_count: 0,
            lost_count: 0,
            retransmissions_in_flight: 0,
            retransmit_hint: 0,
            loss_marked_below: 0,
            highest_sacked: None,
            in_recovery: false,
            recover: 0,
            in_timeout_recovery: false,
            duplicate_acks: 0,
            inflation: 0,
            partial_ack_seen: false,
            limited_transmit_bytes: 0,
            prr: None,
            prr_window: 0,
            undo: None,
            first_retransmission_at: None,
            frto_high_seq: None,
            frto_send_new: false,
            rack: Rack::default(),
            rack_scan_from: 0,
            retransmission_order: VecDeque::new(),
            probe_outstanding: None,
            ecn_recover: 0,
            ecn_responded: false,
            cwr_pending: false,
            last_reduction: Reduction::None,
            ecn_wait: false,
            ecn_backoff: false,
            one_segment_cap: false,
            ece_seen: false,
            rtt_timed: None,
            next_send_time: 0,
            data_segments_sent: 0,
            pacing_timer_pending: false,
            gso_segments_left: 0,
            rto_deadline: None,
            reorder_deadline: None,
            probe_deadline: None,
            timer_event_at: None,
            cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 0,
            app_limited: false,
            delivered: 0,
            delivered_time: 0,
            first_sent_time: 0,
            app_limited_until: 0,
            lost_marks: 0,
            lost_bytes: 0,
            previous_sack: [(0, 0); MAX_SACK_BLOCKS],
            previous_sack_count: 0,
            held_acks: VecDeque::new(),
            last_ack_sent_at: 0,
        }
    }

    // ----- the application side -----

    /// The application writes `bytes` more (or becomes an unlimited backlog with u64::MAX).
    pub fn app_write(&mut self, bytes: u64, ctx: &mut EndpointContext) {
        self.app_written = self.app_written.saturating_add(bytes);
        if let Some(end) = self.stream_end {
            self.app_written = self.app_written.min(end);
        }
        self.try_send(ctx);
    }

    /// Gives back the room of the segments still outstanding at the end of a run, and of the
    /// lists kept beside them; the sender must not act again after it.
    pub fn free_scoreboard(&mut self) {
        self.segments = VecDeque::new();
        self.retransmission_order = VecDeque::new();
        self.held_acks = VecDeque::new();
    }

    /// A finite stream: the application will never write past `total` bytes.
    pub fn set_stream_end(&mut self, total: u64) {
        self.stream_end = Some(total);
        self.app_written = self.app_written.min(total);
    }

    /// A backlogged application stops writing: nothing beyond what TCP already sent is pending.
    pub fn app_pause(&mut self) {
        self.app_written = self.app_written.min(self.snd_nxt);
    }

    pub fn is_complete(&self) -> bool {
        self.stream_end.is_some_and(|end| self.snd_una >= end)
    }

    // ----- observers -----

    /// Where the window stands, for the RTT estimator (Linux ends its variance rounds on it).
    fn sequence_window(&self) -> SendWindow {
        SendWindow { una: self.snd_una, nxt: self.snd_nxt }
    }

    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// The connection's options, as the flow's `[tcp]` resolved them.
    pub fn config(&self) -> &TcpConfig {
        &self.config
    }

    pub fn mss(&self) -> u64 {
        self.config.mss
    }

    /// The window the sender is using now, in bytes: cwnd with NewReno/Reno inflation, or the
    /// PRR window during SACK recovery.
    pub fn effective_cwnd(&self) -> u64 {
        if self.ecn_wait {
            // ns-2 halves a window of one segment to half a segment (`slowdown`).
            return self.config.mss / 2;
        }
        if self.handshake != Handshake::Done {
            // ns-2 with `delay_growth_`: a window of one (the SYN) until the SYN-ACK.
            return self.config.mss;
        }
        let cwnd = self.clamped_cwnd();
        if !self.in_recovery {
            return cwnd;
        }
        match self.config.recovery {
            RecoveryMode::NewReno | RecoveryMode::Reno => (cwnd as i64 + self.inflation).max(0) as u64,
            RecoveryMode::Sack if self.prr.is_some() => self.prr_window,
            RecoveryMode::Sack => cwnd,
        }
    }

    /// The algorithm's cwnd, at most `cwnd_clamp` segments. Window-based algorithms never grow
    /// past the clamp themselves; this holds the others (and any direct setting) to it.
    fn clamped_cwnd(&self) -> u64 {
        let cwnd = self.cc.cwnd();
        match self.config.cwnd_clamp_segments {
            Some(clamp) => cwnd.min(clamp as u64 * self.config.mss),
            None => cwnd,
        }
    }

    /// Bytes in flight: the pipe estimate in bytes (see the module docs).
    pub fn bytes_in_flight(&self) -> u64 {
        let mss = self.config.mss;
        let outstanding = self.snd_nxt - self.snd_una;
        let sack_credit = if self.uses_sack_credit() { self.sacked_count * mss } else { 0 };
        let lost = self.lost_count * mss;
        let back = self.retransmissions_in_flight * mss;
        (outstanding + back).saturating_sub(sack_credit + lost)
    }

    fn uses_sack_credit(&self) -> bool {
        self.config.recovery == RecoveryMode::Sack
            && (self.in_recovery || self.in_timeout_recovery || self.config.limited_transmit)
    }

    fn packets_out(&self) -> u64 {
        self.segments.len() as u64
    }

    fn is_cwnd_limited(&self) -> bool {
        if self.cwnd_limited {
            return true;
        }
        let in_slow_start = self.cc.cwnd() < self.cc.ssthresh();
        in_slow_start && self.cc.cwnd() < 2 * self.max_packets_out * self.config.mss
    }

    fn segment_len(&self, start: u64) -> u64 {
        let end = self.stream_end.unwrap_or(u64::MAX);
        self.config.mss.min(end - start)
    }

    /// New data the application has written and the receiver's window allows now, if any.
    fn sendable_new_segment(&self) -> Option<u64> {
        let available = self.app_written.min(self.stream_end.unwrap_or(u64::MAX));
        if self.snd_nxt >= available {
            return None;
        }
        let length = self.segment_len(self.snd_nxt);
        let limit = self.peer_window.min(self.config.send_buffer.unwrap_or(u64::MAX));
        (self.snd_nxt + length - self.snd_una <= limit).then_some(length)
    }

    pub fn is_in_recovery(&self) -> bool {
        self.in_recovery || self.in_timeout_recovery
    }

    // ----- scoreboard transitions (keep the counters exact) -----

    /// Marks a segment lost: a segment sent once, or a retransmission that is lost in turn (it
    /// then waits to be sent again).
    fn mark_lost(&mut self, offset: usize) {
        let segment = &mut self.segments[offset];
        if segment.sacked || (segment.lost && !segment.retransmission_in_flight) {
            return;
        }
        if !segment.lost {
            segment.lost = true;
            self.lost_count += 1;
        }
        self.lost_marks += 1;
        self.lost_bytes += self.config.mss;
        if segment.retransmission_in_flight {
            segment.retransmission_in_flight = false;
            self.retransmissions_in_flight -= 1;
        }
        self.retransmit_hint = self.retransmit_hint.min(offset as u64);
    }

    fn mark_sacked(&mut self, offset: usize) -> bool {
        let segment = &mut self.segments[offset];
        if segment.sacked {
            return false;
        }
        segment.sacked = true;
        self.sacked_count += 1;
        self.highest_sacked = Some(self.highest_sacked.map_or(offset, |h| h.max(offset)));
        if segment.lost {
            self.lost_count -= 1;
        }
        if segment.retransmission_in_flight {
            self.retransmissions_in_flight -= 1;
        }
        true
    }

    fn pop_acknowledged(&mut self) -> Segment {
        let segment = self.segments.pop_front().expect("acknowledged segments are on the scoreboard");
        crate::slack::release_slack(&mut self.segments, &mut self.segments_quiet);
        // The segments popped next were written an RTT ago (`SCOREBOARD_PREFETCH_AHEAD`).
        crate::prefetch::prefetch_fifo_ahead(&self.segments, SCOREBOARD_PREFETCH_AHEAD);
        if segment.sacked {
            self.sacked_count -= 1;
        } else {
            if segment.lost {
                self.lost_count -= 1;
            }
            if segment.retransmission_in_flight {
                self.retransmissions_in_flight -= 1;
            }
        }
        self.retransmit_hint = self.retransmit_hint.saturating_sub(1);
        self.loss_marked_below = self.loss_marked_below.saturating_sub(1);
        self.rack_scan_from = self.rack_scan_from.saturating_sub(1);
        // Offsets shift down by one; the highest SACKed segment itself leaving means none is left.
        self.highest_sacked = self.highest_sacked.and_then(|h| h.checked_sub(1));
        segment
    }

    fn collect_events(&mut self, now: SimTime) {
        while let Some(event) = self.cc.take_event() {
            self.stats.events.push((now, event));
        }
    }

    /// Linux tcp_cwnd_validate: remember whether the window was the limit over the last window.
    fn update_cwnd_limited(&mut self, window_was_limit: bool) {
        let packets_out = self.packets_out();
        if self.snd_una >= self.cwnd_usage_seq
            || window_was_limit
            || (!self.cwnd_limited && packets_out > self.max_packets_out)
        {
            self.cwnd_limited = window_was_limit;
            self.max_packets_out = packets_out;
            self.cwnd_usage_seq = self.snd_nxt;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Segment, APP_LIMITED_BIT};

    #[test]
    fn a_scoreboard_entry_takes_40_bytes() {
        assert_eq!(std::mem::size_of::<Segment>(), 40);
    }

    #[test]
    fn a_segment_reads_back_the_full_counts_at_its_send_across_a_32_bit_wrap() {
        let mut segment = Segment::default();
        let (delivered, lost) = ((1u64 << 32) - 10, 5 * (1u64 << 32) + 7);
        segment.stamp(delivered, lost, 64_000, true);
        // 30 bytes delivered and 1,000 marked lost since: the low 32 bits wrapped for delivered.
        assert_eq!(segment.delivered_at_send(delivered + 30), delivered);
        assert_eq!(segment.lost_at_send(lost + 1_000), lost);
        assert_eq!((segment.tx_in_flight(), segment.app_limited()), (64_000, true));
        segment.stamp(7, 0, 1 << 40, false);
        assert_eq!(segment.delivered_at_send(7), 7);
        assert_eq!((segment.tx_in_flight(), segment.app_limited()), ((APP_LIMITED_BIT - 1) as u64, false));
    }
}
