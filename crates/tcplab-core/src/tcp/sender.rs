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
//! the sender ignores SACK blocks, so SACKed is always 0 and the formula is FlightSize.
//!
//! Recovery rules:
//! - NewReno (RFC 6582): 3 duplicate ACKs retransmit the first unacknowledged segment, ssthresh
//!   comes from the algorithm, cwnd is inflated by 3 segments plus one per further duplicate; a
//!   partial ACK retransmits the next hole and deflates by the newly acknowledged amount (adding
//!   back one segment if at least one was acknowledged); the first partial ACK restarts the timer
//!   ("impatient"); the full ACK ends recovery. No new recovery before `recover` is acknowledged.
//! - SACK (RFC 6675): a segment is lost once `duplicate_threshold` segments above it are SACKed;
//!   recovery starts on the 3rd duplicate ACK carrying SACK information or when the first
//!   unacknowledged segment is lost; during recovery the sender sends while pipe < cwnd, lost
//!   segments first (NextSeg rule 1), then new data (rule 2). On a partial ACK the new first
//!   segment is marked lost if it was sent before recovery began (as Linux's head marking does),
//!   so a burst of tail losses does not have to wait for the timer.
//! - RFC 3042 Limited Transmit: with NewReno, duplicate ACKs 1 and 2 each allow one new segment
//!   beyond cwnd; with SACK the SACKed segments already leave the pipe (as in Linux); turning the
//!   option off withholds that credit until recovery starts.
//! - Timeout (RFC 6298 and RFC 5681 section 3.1): ssthresh from the algorithm, cwnd = 1 segment,
//!   every un-SACKed outstanding segment is marked lost and resent in order (go-back-N), the timer
//!   backs off, and no fast retransmit happens until everything outstanding at the timeout is
//!   acknowledged.
//! - ECN (RFC 3168): data is ECT(0); an ACK with ECE reduces the window through the algorithm at
//!   most once per window of data, and the next new segment carries CWR.

use std::collections::VecDeque;


use crate::cc::{AckEvent, CongestionControl, CongestionEvent, CongestionKind};
use crate::net::packet::{Ecn, Packet, PacketKind, MAX_SACK_BLOCKS};
use crate::sim::Event;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::{EndpointContext, RecoveryMode, TcpConfig};
use crate::histogram::DelayHistogram;
use crate::time::{transmission_time, SimDuration, SimTime, NANOS_PER_SEC};

#[derive(Clone, Copy, Debug, Default)]
struct Segment {
    /// When this segment was last transmitted.
    sent_at: SimTime,
    sacked: bool,
    lost: bool,
    /// A retransmission of it is in flight (counts in the pipe until acknowledged or lost again).
    retransmission_in_flight: bool,
    /// It has ever been retransmitted: Karn's rule forbids RTT samples from it.
    ever_retransmitted: bool,
    /// Delivery-rate state when it was (last) sent: bytes delivered, when the last of those was
    /// delivered, when the first segment of that flight was sent, and whether the application
    /// limited the sender then.
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    app_limited: bool,
    /// Bytes in flight when sent (this segment included), and bytes marked lost before then.
    tx_in_flight: u64,
    lost_at_send: u64,
}

/// Counters a flow reports at the end of a run.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
    /// Per-ACK RTT samples.
    pub rtt: DelayHistogram,
    /// When every byte of a finite transfer was acknowledged.
    pub all_acknowledged_at: Option<SimTime>,
    /// Events the algorithm reported, with their times.
    pub events: Vec<(SimTime, &'static str)>,
}

pub struct TcpSender {
    flow: u32,
    destination: u32,
    config: TcpConfig,
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

    peer_window: u64,

    /// ECN: no new reaction until `snd_una` passes this; CWR goes on the next new segment.
    ecn_recover: u64,
    cwr_pending: bool,

    /// Pacing: earliest time of the next transmission.
    next_send_time: SimTime,
    pacing_timer_pending: bool,

    /// Retransmission timer: the deadline, and the earliest pending timer event.
    rto_deadline: Option<SimTime>,
    rto_event_at: Option<SimTime>,

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

/// The parts of [start, end) outside every interval in `known` (at most a few intervals each).
fn unreported_parts(start: u64, end: u64, known: &[(u64, u64)]) -> impl Iterator<Item = (u64, u64)> {
    let mut parts = [(start, end); MAX_SACK_BLOCKS + 1];
    let mut count = 1;
    for &(known_start, known_end) in known {
        let mut next = [(0, 0); MAX_SACK_BLOCKS + 1];
        let mut next_count = 0;
        for &(s, e) in &parts[..count] {
            // Keep what lies left and right of the known interval.
            for (a, b) in [(s, e.min(known_start)), (s.max(known_end), e)] {
                if a < b && next_count < next.len() {
                    next[next_count] = (a, b);
                    next_count += 1;
                }
            }
        }
        parts = next;
        count = next_count;
    }
    parts.into_iter().take(count)
}

/// The rate sample one ACK produces.
/// What one ACK acknowledged, gathered while the sender walks its segments.
#[derive(Default)]
struct AckProgress {
    newly_acked_bytes: u64,
    newly_acked_segments: u32,
    /// Send times of the earliest and the latest newly acknowledged segments that were never
    /// retransmitted (Karn). The earliest drives the RFC 6298 estimator (it includes the
    /// receiver's ACK delay); the latest gives the algorithm the freshest path RTT (Linux's
    /// seq_rtt and ca_rtt).
    earliest_sent: Option<SimTime>,
    latest_sent: Option<SimTime>,
    /// SACK blocks reported data not reported before.
    new_sack_info: bool,
    rate: RateSample,
}

impl AckProgress {
    fn note_sample(&mut self, segment: &Segment) {
        if !segment.ever_retransmitted && !segment.sacked {
            self.earliest_sent = Some(self.earliest_sent.map_or(segment.sent_at, |t| t.min(segment.sent_at)));
            self.latest_sent = Some(self.latest_sent.map_or(segment.sent_at, |t| t.max(segment.sent_at)));
        }
    }
}

#[derive(Default)]
struct RateSample {
    prior_delivered: Option<u64>,
    prior_time: SimTime,
    send_elapsed: SimDuration,
    is_app_limited: bool,
    tx_in_flight: u64,
    lost_at_send: u64,
}

impl TcpSender {
    pub fn new(flow: u32, destination: u32, config: TcpConfig, cc: Box<dyn CongestionControl>) -> Self {
        let rtt = RttEstimator::new(config.min_rto, config.initial_rto, config.max_rto, config.clock_granularity);
        Self {
            flow,
            destination,
            peer_window: config.receive_window,
            config,
            cc,
            rtt,
            stats: SenderStats::default(),
            app_written: 0,
            stream_end: None,
            snd_una: 0,
            snd_nxt: 0,
            segments: VecDeque::new(),
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
            ecn_recover: 0,
            cwr_pending: false,
            next_send_time: 0,
            pacing_timer_pending: false,
            rto_deadline: None,
            rto_event_at: None,
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

    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    pub fn mss(&self) -> u64 {
        self.config.mss
    }

    /// The window the sender is using now, in bytes, with NewReno inflation.
    pub fn effective_cwnd(&self) -> u64 {
        let cwnd = self.cc.cwnd();
        if self.in_recovery && self.config.recovery == RecoveryMode::NewReno {
            (cwnd as i64 + self.inflation).max(0) as u64
        } else {
            cwnd
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

    // ----- scoreboard transitions (keep the counters exact) -----

    fn mark_lost(&mut self, offset: usize) {
        let segment = &mut self.segments[offset];
        if segment.sacked || segment.lost {
            return;
        }
        segment.lost = true;
        self.lost_count += 1;
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
        // Offsets shift down by one; the highest SACKed segment itself leaving means none is left.
        self.highest_sacked = self.highest_sacked.and_then(|h| h.checked_sub(1));
        segment
    }

    // ----- sending -----

    /// Sends whatever the window, the receiver window, pacing and the application allow.
    pub fn try_send(&mut self, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        let mut window_was_limit = false;
        loop {
            if self.pacing_rate().is_some() && now < self.next_send_time {
                if !self.pacing_timer_pending {
                    self.pacing_timer_pending = true;
                    ctx.events.schedule(self.next_send_time, Event::PacingTimer { flow: self.flow });
                }
                break;
            }
            let in_flight = self.bytes_in_flight();
            let window = self.send_window();
            let retransmission = self.next_retransmission();
            let length = match retransmission {
                Some(offset) => self.segment_len(self.snd_una + offset as u64 * self.config.mss),
                None => {
                    let available = self.app_written.min(self.stream_end.unwrap_or(u64::MAX));
                    if self.snd_nxt >= available {
                        if in_flight + self.config.mss <= window {
                            self.app_limited = true;
                            // Rate samples stay app-limited until this flight is delivered.
                            self.app_limited_until = (self.delivered + in_flight).max(1);
                        }
                        break;
                    }
                    let length = self.segment_len(self.snd_nxt);
                    if self.snd_nxt + length - self.snd_una > self.peer_window {
                        break;
                    }
                    length
                }
            };
            if in_flight + length > window && in_flight > 0 {
                window_was_limit = true;
                break;
            }
            match retransmission {
                Some(offset) => self.retransmit(offset, ctx),
                None => {
                    self.app_limited = false;
                    self.send_new(length, ctx);
                }
            }
        }
        self.update_cwnd_limited(window_was_limit);
    }

    /// The window for the pipe comparison: cwnd, NewReno inflation, RFC 3042 limited transmit.
    fn send_window(&self) -> u64 {
        let cwnd = self.effective_cwnd();
        let limited_transmit = self.config.limited_transmit
            && self.config.recovery == RecoveryMode::NewReno
            && !self.in_recovery
            && (1..=2).contains(&self.duplicate_acks);
        if limited_transmit {
            cwnd + self.duplicate_acks as u64 * self.config.mss
        } else {
            cwnd
        }
    }

    /// The first lost segment not yet retransmitted (RFC 6675 NextSeg rule 1).
    fn next_retransmission(&mut self) -> Option<usize> {
        if self.lost_count == 0 {
            return None;
        }
        let start = self.retransmit_hint as usize;
        for offset in start..self.segments.len() {
            let segment = &self.segments[offset];
            if segment.lost && !segment.sacked && !segment.retransmission_in_flight {
                self.retransmit_hint = offset as u64;
                return Some(offset);
            }
        }
        self.retransmit_hint = self.segments.len() as u64;
        None
    }

    fn retransmit(&mut self, offset: usize, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        let start = self.snd_una + offset as u64 * self.config.mss;
        let length = self.segment_len(start);
        self.stamp_delivery_state(offset, now);
        let segment = &mut self.segments[offset];
        debug_assert!(segment.lost && !segment.retransmission_in_flight);
        segment.retransmission_in_flight = true;
        segment.ever_retransmitted = true;
        segment.sent_at = now;
        self.retransmissions_in_flight += 1;
        self.retransmit_hint = offset as u64 + 1;
        self.stats.retransmitted_segments += 1;
        self.stats.retransmitted_bytes += length;
        self.emit(start, length, false, true, ctx);
    }

    fn send_new(&mut self, length: u64, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        let start = self.snd_nxt;
        self.segments.push_back(Segment { sent_at: now, ..Segment::default() });
        self.stamp_delivery_state(self.segments.len() - 1, now);
        self.snd_nxt += length;
        let cwr = std::mem::take(&mut self.cwr_pending);
        self.emit(start, length, cwr, false, ctx);
    }

    /// Records the connection's delivery state in a segment about to be sent. A send into an empty
    /// pipe starts a new flight: its intervals start now.
    fn stamp_delivery_state(&mut self, offset: usize, now: SimTime) {
        if self.bytes_in_flight() == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let in_flight = self.bytes_in_flight() + self.config.mss;
        let lost = self.lost_bytes;
        let segment = &mut self.segments[offset];
        segment.delivered = self.delivered;
        segment.delivered_time = self.delivered_time;
        segment.first_sent_time = self.first_sent_time;
        segment.app_limited = self.app_limited_until != 0;
        segment.tx_in_flight = in_flight;
        segment.lost_at_send = lost;
    }

    /// Credits one newly delivered segment: counts it and keeps the sample of the most recently
    /// sent delivered segment.
    fn on_delivered(&mut self, segment: &Segment, length: u64, now: SimTime, sample: &mut RateSample) {
        self.delivered += length;
        self.delivered_time = now;
        if sample.prior_delivered.is_none_or(|prior| segment.delivered >= prior) {
            sample.prior_delivered = Some(segment.delivered);
            sample.prior_time = segment.delivered_time;
            sample.send_elapsed = segment.sent_at.saturating_sub(segment.first_sent_time);
            sample.is_app_limited = segment.app_limited;
            sample.tx_in_flight = segment.tx_in_flight;
            sample.lost_at_send = segment.lost_at_send;
            self.first_sent_time = segment.sent_at;
        }
    }

    /// Hands a data segment to the network. Retransmissions are never ECN-capable (RFC 3168
    /// section 6.1.5: a router must not mark a packet the sender could not react to).
    fn emit(&mut self, start: u64, length: u64, cwr: bool, retransmission: bool, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        let wire_bytes = length + self.config.header_bytes;
        let in_flight_before = self.bytes_in_flight().saturating_sub(length);
        ctx.outbox.push(Packet {
            kind: PacketKind::TcpData,
            flow: self.flow,
            destination: self.destination,
            wire_bytes: wire_bytes as u32,
            sequence: start,
            payload_bytes: length as u32,
            ecn: if self.config.ecn && !retransmission { Ecn::Ect } else { Ecn::NotEct },
            cwr,
            sent_at: now,
            ts_echo: self.last_ack_sent_at,
            ..Packet::default()
        });
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += length;
        self.cc.on_packet_sent(now, length, in_flight_before);
        if let Some(rate) = self.pacing_rate() {
            self.next_send_time = self.next_send_time.max(now) + transmission_time(wire_bytes, rate.max(1));
        }
        if self.rto_deadline.is_none() {
            self.arm_rto(ctx);
        }
    }

    /// The algorithm's pacing rate, or with the `pacing` option Linux's `tcp_update_pacing_rate`:
    /// MSS x max(cwnd, packets out) / srtt, times 2 while cwnd < ssthresh / 2 and 1.2 after.
    /// No pacing before the first RTT sample.
    fn pacing_rate(&self) -> Option<u64> {
        if let Some(rate) = self.cc.pacing_rate() {
            return Some(rate);
        }
        let srtt = self.rtt.srtt.filter(|_| self.config.pacing)?;
        let cwnd = self.cc.cwnd();
        let percent: u128 = if cwnd < self.cc.ssthresh() / 2 { 200 } else { 120 };
        let window = cwnd.max(self.packets_out() * self.config.mss) as u128;
        let bits_per_second = window * 8 * percent * NANOS_PER_SEC as u128 / (100 * srtt.max(1) as u128);
        Some(bits_per_second.min(u64::MAX as u128) as u64)
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

    // ----- timers -----

    fn arm_rto(&mut self, ctx: &mut EndpointContext) {
        let deadline = ctx.events.now() + self.rtt.rto();
        self.rto_deadline = Some(deadline);
        if self.rto_event_at.is_none_or(|at| at > deadline) {
            self.rto_event_at = Some(deadline);
            ctx.events.schedule(deadline, Event::RetransmitTimer { flow: self.flow });
        }
    }

    pub fn on_pacing_timer(&mut self, ctx: &mut EndpointContext) {
        self.pacing_timer_pending = false;
        self.try_send(ctx);
    }

    /// A retransmission timer event fired: expire if the deadline has passed, else wait for it.
    pub fn on_rto_timer(&mut self, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        if self.rto_event_at == Some(now) {
            self.rto_event_at = None;
        }
        match self.rto_deadline {
            Some(deadline) if deadline <= now => self.on_timeout(ctx),
            Some(deadline) if self.rto_event_at.is_none() => {
                self.rto_event_at = Some(deadline);
                ctx.events.schedule(deadline, Event::RetransmitTimer { flow: self.flow });
            }
            _ => {}
        }
    }

    fn on_timeout(&mut self, ctx: &mut EndpointContext) {
        self.rto_deadline = None;
        if self.segments.is_empty() {
            return;
        }
        let now = ctx.events.now();
        self.stats.timeouts += 1;
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            kind: CongestionKind::Timeout,
            bytes_in_flight: self.bytes_in_flight(),
            snd_nxt: self.snd_nxt,
        });
        for offset in 0..self.segments.len() {
            self.segments[offset].retransmission_in_flight = false;
            self.mark_lost_after_timeout(offset);
        }
        self.retransmissions_in_flight = 0;
        self.retransmit_hint = 0;
        self.in_recovery = false;
        self.inflation = 0;
        self.duplicate_acks = 0;
        self.in_timeout_recovery = true;
        self.recover = self.snd_nxt;
        self.ecn_recover = self.snd_nxt;
        self.rtt.back_off();
        self.collect_events(now);
        self.arm_rto(ctx);
        self.try_send(ctx);
    }

    fn mark_lost_after_timeout(&mut self, offset: usize) {
        let segment = &mut self.segments[offset];
        if !segment.sacked && !segment.lost {
            segment.lost = true;
            self.lost_count += 1;
        }
    }

    // ----- ACK processing -----

    /// An ACK arrived: process it now, or hold it for the algorithm's ACK-processing delay
    /// (behind any ACK already held, so order is kept).
    pub fn on_ack_arrival(&mut self, ack: &Packet, ctx: &mut EndpointContext) {
        let delay = self.cc.ack_processing_delay();
        if delay == 0 && self.held_acks.is_empty() {
            self.on_ack(ack, ctx);
            return;
        }
        let now = ctx.events.now();
        let release = self.held_acks.back().map_or(now + delay, |&(last, _)| last.max(now + delay));
        self.held_acks.push_back((release, *ack));
        ctx.events.schedule(release, Event::AckRelease { flow: self.flow });
    }

    /// Processes the held ACKs whose time has come.
    pub fn on_ack_release(&mut self, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        while self.held_acks.front().is_some_and(|&(release, _)| release <= now) {
            let (_, ack) = self.held_acks.pop_front().expect("checked above");
            self.on_ack(&ack, ctx);
        }
    }

    pub fn on_ack(&mut self, ack: &Packet, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        self.last_ack_sent_at = self.last_ack_sent_at.max(ack.sent_at);
        let in_flight_before = self.bytes_in_flight();
        // The ACK that ends recovery sets cwnd = ssthresh and nothing more (RFC 6582 step 3).
        let was_in_recovery = self.in_recovery;
        // RFC 5681 FlightSize: sent and not cumulatively acknowledged, before this ACK.
        let flight_size_before = self.snd_nxt - self.snd_una;
        self.peer_window = ack.receive_window;
        let ack_advances = ack.ack > self.snd_una;
        let lost_marks_before = self.lost_marks;

        // 1. Cumulative acknowledgement, then 2. SACK information.
        let mut progress = AckProgress::default();
        self.take_cumulative_ack(ack.ack, now, &mut progress);
        self.take_sack_blocks(ack, now, &mut progress);
        let (rtt_sample, delivery_rate) = self.sample_rtt_and_rate(now, &progress);

        // 3. Duplicate ACKs and loss recovery.
        self.detect_loss(ack, ack_advances, &progress, flight_size_before, ctx);

        // 4. ECN-Echo: at most one reduction per window (RFC 3168 section 6.1.2).
        if ack.ece {
            self.on_ecn_echo(now, flight_size_before);
        }

        // 5. The algorithm sees every ACK that acknowledged something.
        if progress.newly_acked_bytes > 0 || rtt_sample.is_some() {
            // Linux's CWR state: no growth until the window that saw the ECE is acknowledged.
            let in_cwr_round = self.config.ecn && self.stats.ecn_reductions > 0 && self.snd_una < self.ecn_recover;
            let rate = &progress.rate;
            let event = AckEvent {
                now,
                acked_bytes: progress.newly_acked_bytes,
                acked_segments: progress.newly_acked_segments,
                rtt_sample,
                srtt: self.rtt.smoothed(),
                min_rtt: self.rtt.min_rtt.unwrap_or(0),
                bytes_in_flight_before: in_flight_before,
                bytes_in_flight: self.bytes_in_flight(),
                in_recovery: was_in_recovery || self.in_recovery || in_cwr_round,
                cwnd_limited: self.is_cwnd_limited(),
                app_limited: self.app_limited,
                snd_una_advanced: ack_advances,
                delivery_rate,
                delivery_rate_app_limited: rate.is_app_limited,
                delivered: self.delivered,
                prior_delivered: rate.prior_delivered.unwrap_or(self.delivered),
                newly_lost_segments: (self.lost_marks - lost_marks_before) as u32,
                tx_in_flight: rate.tx_in_flight,
                lost_since_sent: if rate.prior_delivered.is_some() { self.lost_bytes - rate.lost_at_send } else { 0 },
                ece: ack.ece,
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
            };
            self.cc.on_ack(&event);
        }
        self.collect_events(now);

        // 6. Timer (RFC 6298 5.2 and 5.3) and completion.
        if self.segments.is_empty() {
            self.rto_deadline = None;
        } else if ack_advances {
            // NewReno recovery restarts the timer only on the first partial ACK ("impatient").
            let restart = !(self.in_recovery && self.config.recovery == RecoveryMode::NewReno && self.partial_ack_seen);
            if restart || self.rto_deadline.is_none() {
                self.arm_rto(ctx);
            }
        }
        if self.is_complete() && self.stats.all_acknowledged_at.is_none() {
            self.stats.all_acknowledged_at = Some(now);
        }
        self.try_send(ctx);
    }

    /// Removes the segments the cumulative ACK `ack_no` covers.
    fn take_cumulative_ack(&mut self, ack_no: u64, now: SimTime, progress: &mut AckProgress) {
        while self.snd_una < ack_no && !self.segments.is_empty() {
            let length = self.segment_len(self.snd_una);
            let segment = self.pop_acknowledged();
            progress.note_sample(&segment);
            if !segment.sacked {
                progress.newly_acked_bytes += length;
                progress.newly_acked_segments += 1;
                self.on_delivered(&segment, length, now, &mut progress.rate);
            }
            self.snd_una += length;
        }
    }

    /// Marks the segments newly reported by SACK blocks (ignored in NewReno mode, as an ns-2
    /// NewReno sender would), then the losses they reveal.
    fn take_sack_blocks(&mut self, ack: &Packet, now: SimTime, progress: &mut AckProgress) {
        if self.config.recovery != RecoveryMode::Sack {
            return;
        }
        let mss = self.config.mss;
        let previous = self.previous_sack;
        let previous = &previous[..self.previous_sack_count];
        for &(block_start, block_end) in ack.sack_blocks() {
            for (start, end) in unreported_parts(block_start, block_end, previous) {
                if end <= self.snd_una {
                    continue;
                }
                let first = (start.max(self.snd_una) - self.snd_una).div_ceil(mss) as usize;
                let last = ((end - self.snd_una) / mss) as usize;
                let stream_tail = end >= self.snd_nxt;
                let last = if stream_tail { self.segments.len() } else { last.min(self.segments.len()) };
                for offset in first..last {
                    let segment = self.segments[offset];
                    if self.mark_sacked(offset) {
                        progress.new_sack_info = true;
                        progress.note_sample(&segment);
                        let length = self.segment_len(self.snd_una + offset as u64 * mss);
                        progress.newly_acked_bytes += length;
                        progress.newly_acked_segments += 1;
                        self.on_delivered(&segment, length, now, &mut progress.rate);
                    }
                }
            }
        }
        self.previous_sack = ack.sack;
        self.previous_sack_count = ack.sack_count as usize;
        if progress.new_sack_info {
            self.mark_losses_from_sack();
        }
    }

    /// Feeds the RTT estimator and the RTT statistics; returns the algorithm's RTT sample and the
    /// delivery rate sample (bits per second) of this ACK.
    fn sample_rtt_and_rate(&mut self, now: SimTime, progress: &AckProgress) -> (Option<SimDuration>, Option<u64>) {
        if let Some(sent) = progress.earliest_sent {
            self.rtt.on_sample(now - sent);
        }
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        // The sample's interval is the longer of the send and ACK intervals; one shorter than the
        // minimum RTT is implausible (ACK compression) and gives no sample (the draft, Linux).
        let rate = &progress.rate;
        let delivery_rate = rate.prior_delivered.and_then(|prior| {
            let interval = rate.send_elapsed.max(now - rate.prior_time);
            let min_rtt = self.rtt.min_rtt.unwrap_or(0);
            (interval > 0 && interval >= min_rtt)
                .then(|| ((self.delivered - prior) as u128 * 8 * NANOS_PER_SEC as u128 / interval as u128) as u64)
        });
        let rtt_sample = progress.latest_sent.map(|sent| now - sent);
        if let Some(rtt) = rtt_sample {
            self.stats.rtt.record(rtt);
        }
        (rtt_sample, delivery_rate)
    }

    /// An ACK carried ECN-Echo: the algorithm reduces once per window, outside loss recovery.
    fn on_ecn_echo(&mut self, now: SimTime, flight_size_before: u64) {
        if !self.config.ecn || self.in_recovery || self.in_timeout_recovery || self.snd_una < self.ecn_recover {
            return;
        }
        self.stats.ecn_reductions += 1;
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            kind: CongestionKind::Ecn,
            bytes_in_flight: flight_size_before,
            snd_nxt: self.snd_nxt,
        });
        self.ecn_recover = self.snd_nxt;
        self.cwr_pending = true;
    }

    /// Counts duplicate ACKs, and enters, advances or leaves fast recovery.
    fn detect_loss(
        &mut self,
        ack: &Packet,
        ack_advances: bool,
        progress: &AckProgress,
        flight_size_before: u64,
        ctx: &mut EndpointContext,
    ) {
        let now = ctx.events.now();
        let is_duplicate = !ack_advances
            && self.snd_nxt > self.snd_una
            && match self.config.recovery {
                RecoveryMode::NewReno => ack.ack == self.snd_una,
                RecoveryMode::Sack => progress.new_sack_info,
            };
        if ack_advances {
            self.duplicate_acks = 0;
        } else if is_duplicate {
            self.duplicate_acks += 1;
        }

        if self.in_timeout_recovery && self.snd_una >= self.recover {
            self.in_timeout_recovery = false;
            self.cc.on_timeout_recovery_exit(now);
        }
        if self.in_recovery {
            if self.snd_una >= self.recover {
                self.exit_recovery(now);
            } else if ack_advances {
                self.on_partial_ack(progress.newly_acked_bytes, ctx);
            } else if is_duplicate && self.config.recovery == RecoveryMode::NewReno {
                self.inflation += self.config.mss as i64;
            }
        } else if !self.in_timeout_recovery && self.snd_una >= self.recover {
            let head_lost = self.segments.front().is_some_and(|s| s.lost);
            if self.duplicate_acks >= self.config.duplicate_threshold || (head_lost && progress.new_sack_info) {
                self.enter_recovery(flight_size_before, ctx);
            }
        }
    }

    /// RFC 6675 IsLost: every un-SACKed segment below the `duplicate_threshold`-th highest SACKed
    /// segment is lost. Walks down from the top only as far as needed.
    fn mark_losses_from_sack(&mut self) {
        let threshold = self.config.duplicate_threshold as u64;
        if self.sacked_count < threshold {
            return;
        }
        let Some(highest) = self.highest_sacked else { return };
        let mut seen = 0;
        let mut boundary = None;
        for offset in (0..=highest).rev() {
            if self.segments[offset].sacked {
                seen += 1;
                if seen == threshold {
                    boundary = Some(offset);
                    break;
                }
            }
            if (offset as u64) < self.loss_marked_below {
                break;
            }
        }
        let Some(boundary) = boundary else { return };
        let from = self.loss_marked_below as usize;
        for offset in from..boundary {
            self.mark_lost(offset);
        }
        self.loss_marked_below = self.loss_marked_below.max(boundary as u64);
    }

    /// RFC 6582 steps 1-2 and RFC 6675 steps 4.1-4.3: ssthresh from FlightSize (via the
    /// algorithm), then retransmit the first unacknowledged segment whatever the window says.
    fn enter_recovery(&mut self, flight_size: u64, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        self.in_recovery = true;
        self.partial_ack_seen = false;
        self.recover = self.snd_nxt;
        self.ecn_recover = self.snd_nxt;
        self.cwr_pending = self.config.ecn;
        self.stats.fast_recoveries += 1;
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            kind: CongestionKind::FastRetransmit,
            bytes_in_flight: flight_size,
            snd_nxt: self.snd_nxt,
        });
        self.inflation = match self.config.recovery {
            RecoveryMode::NewReno => (self.config.duplicate_threshold as u64 * self.config.mss) as i64,
            RecoveryMode::Sack => 0,
        };
        self.retransmit_first_unacknowledged(ctx);
    }

    /// Marks the first unacknowledged segment lost and resends it now, outside the window.
    fn retransmit_first_unacknowledged(&mut self, ctx: &mut EndpointContext) {
        let Some(first) = self.segments.front() else { return };
        if first.sacked || first.retransmission_in_flight {
            return;
        }
        self.mark_lost(0);
        self.retransmit(0, ctx);
    }

    fn on_partial_ack(&mut self, newly_acked: u64, ctx: &mut EndpointContext) {
        let mss = self.config.mss;
        if self.config.recovery == RecoveryMode::NewReno {
            self.inflation -= newly_acked as i64;
            if newly_acked >= mss {
                self.inflation += mss as i64;
            }
            if !self.partial_ack_seen {
                self.arm_rto(ctx);
            }
        }
        self.partial_ack_seen = true;
        match self.config.recovery {
            // RFC 6582 step 5: retransmit the first unacknowledged segment at once.
            RecoveryMode::NewReno => self.retransmit_first_unacknowledged(ctx),
            // The new first segment was sent before recovery began: it is lost too, and goes
            // out when the pipe allows.
            RecoveryMode::Sack => {
                if self.segments.front().is_some_and(|f| !f.sacked && !f.lost) {
                    self.mark_lost(0);
                }
            }
        }
    }

    fn exit_recovery(&mut self, now: SimTime) {
        self.in_recovery = false;
        self.inflation = 0;
        self.duplicate_acks = 0;
        self.cc.on_recovery_exit(now);
    }

    pub fn is_in_recovery(&self) -> bool {
        self.in_recovery || self.in_timeout_recovery
    }
}

#[cfg(test)]
mod tests {
    use super::unreported_parts;

    #[test]
    fn only_the_parts_of_a_sack_block_not_reported_before_are_walked() {
        let parts: Vec<_> = unreported_parts(0, 100, &[(10, 20), (50, 60)]).collect();
        assert_eq!(parts, vec![(0, 10), (20, 50), (60, 100)]);
        assert_eq!(unreported_parts(10, 20, &[(0, 100)]).count(), 0);
        let grown: Vec<_> = unreported_parts(5000, 9000, &[(5000, 8000), (1000, 2000)]).collect();
        assert_eq!(grown, vec![(8000, 9000)], "a block that grew: only its new end");
    }
}
