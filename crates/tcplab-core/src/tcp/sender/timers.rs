//! The sender's timers: the retransmission timer (RFC 6298, with RFC 5681 section 3.1's response
//! to its expiry), RACK's reordering timer and the tail loss probe timer (RFC 8985). The three
//! deadlines share one timer event at the earliest of them, as Linux's one retransmit timer
//! serves ICSK_TIME_RETRANS, ICSK_TIME_REO_TIMEOUT and ICSK_TIME_LOSS_PROBE; an event that finds
//! no deadline due only re-arms.

use super::{Reduction, TcpSender};
use crate::cc::{CongestionEvent, CongestionKind};
use crate::sim::Event;
use crate::tcp::{EcnResponse, EndpointContext, RecoveryMode};

impl TcpSender {
    pub(super) fn arm_rto(&mut self, ctx: &mut EndpointContext) {
        self.rto_deadline = Some(ctx.events.now() + self.rtt.rto());
        self.schedule_timer_event(ctx);
    }

    /// Makes sure a timer event is pending no later than the earliest deadline.
    pub(super) fn schedule_timer_event(&mut self, ctx: &mut EndpointContext) {
        // Written out rather than as an iterator's min: this runs several times per ACK.
        let mut earliest = self.rto_deadline;
        for deadline in [self.reorder_deadline, self.probe_deadline].into_iter().flatten() {
            earliest = Some(earliest.map_or(deadline, |e| e.min(deadline)));
        }
        let Some(earliest) = earliest else { return };
        if self.timer_event_at.is_none_or(|at| at > earliest) {
            self.timer_event_at = Some(earliest);
            ctx.events.schedule(earliest, Event::RetransmitTimer { flow: self.flow });
        }
    }

    pub fn on_pacing_timer(&mut self, ctx: &mut EndpointContext) {
        self.pacing_timer_pending = false;
        self.try_send(ctx);
    }

    /// A timer event fired: run whichever deadlines have passed, then wait for the next.
    pub fn on_rto_timer(&mut self, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        if self.timer_event_at == Some(now) {
            self.timer_event_at = None;
        }
        if self.reorder_deadline.is_some_and(|at| at <= now) {
            self.reorder_deadline = None;
            self.on_reorder_timeout(ctx);
        }
        if self.probe_deadline.is_some_and(|at| at <= now) {
            self.probe_deadline = None;
            self.send_loss_probe(ctx);
        }
        if self.rto_deadline.is_some_and(|at| at <= now) {
            match self.held_ack_release_covering_data() {
                // The sender itself holds an ACK for outstanding data (sender-based delay
                // control): the data arrived, and the timer restarts when that ACK is processed.
                Some(release) => self.rto_deadline = Some(release + self.rtt.rto()),
                None => self.on_timeout(ctx),
            }
        }
        self.schedule_timer_event(ctx);
    }

    /// The retransmission timer expired: the algorithm sets ssthresh and the loss window, every
    /// un-SACKed outstanding segment is marked lost and resent in order (go-back-N), the timer
    /// backs off, and no fast retransmit happens until everything outstanding now is acknowledged.
    fn on_timeout(&mut self, ctx: &mut EndpointContext) {
        self.rto_deadline = None;
        let now = ctx.events.now();
        if self.awaiting_syn_ack() {
            self.on_syn_timeout(ctx);
            return;
        }
        if std::mem::take(&mut self.ecn_wait) && self.segments.is_empty() {
            // RFC 3168 section 6.1.2 as ns-2 (`timeout` with nothing outstanding): the wait is
            // over; one new segment leaves, with no backoff and no ssthresh change.
            self.stats.timeouts += 1;
            // Every counted expiry is a `timeout` event; `ecn_timer` tells this kind apart.
            self.stats.events.push((now, "timeout"));
            self.stats.events.push((now, "ecn_timer"));
            self.one_segment_cap = true;
            self.last_reduction = Reduction::Timeout;
            self.try_send(ctx);
            return;
        }
        if self.segments.is_empty() {
            return;
        }
        self.stats.timeouts += 1;
        // ns-2 `timeout`: an expiry in the window after an ECN reduction is not a loss signal and
        // is left out of `nrexmit_`.
        let in_ecn_window = self.last_reduction == Reduction::Ecn && self.snd_una < self.ecn_recover;
        if !in_ecn_window {
            self.stats.timeouts_after_loss += 1;
        }
        self.last_reduction = Reduction::Timeout;
        self.one_segment_cap = false;
        // ns-2 `reset_rtx_timer`: the RTT timing ends (Karn).
        self.rtt_timed = None;
        // When timeouts happen tells more than how many: the events table carries each one.
        self.stats.events.push((now, "timeout"));
        // Linux tcp_enter_loss: a timeout taken from the open state may be undone if it proves
        // spurious; one during a recovery keeps that recovery's undo state. F-RTO runs on a fresh
        // timeout or a repeated one, not on the first timeout of a fast recovery.
        let repeated = self.in_timeout_recovery;
        if !self.in_recovery && !repeated {
            self.undo = Some(self.window_before_reduction());
            self.first_retransmission_at = None;
        }
        self.frto_high_seq = (self.config.frto && (!self.in_recovery || repeated)).then_some(self.snd_nxt);
        let ssthresh_before = self.cc.ssthresh();
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            kind: CongestionKind::Timeout,
            bytes_in_flight: self.bytes_in_flight(),
            snd_nxt: self.snd_nxt,
        });
        if in_ecn_window && self.config.ecn_response == EcnResponse::Rfc3168 {
            // ns-2 (`timeout` after an ECN reduction: `slowdown(CLOSE_CWND_ONE)`) drops the window
            // to one segment but keeps ssthresh: the algorithm's cut is taken back through its
            // undo hook, with the loss window kept.
            self.cc.undo_reduction(now, self.cc.cwnd(), ssthresh_before);
        }
        for offset in 0..self.segments.len() {
            self.segments[offset].retransmission_in_flight = false;
            self.mark_lost_after_timeout(offset);
        }
        self.retransmissions_in_flight = 0;
        self.retransmission_order.clear();
        self.retransmit_hint = 0;
        self.rack_scan_from = 0;
        self.in_recovery = false;
        self.inflation = 0;
        self.prr = None;
        self.duplicate_acks = 0;
        self.reorder_deadline = None;
        self.probe_deadline = None;
        self.probe_outstanding = None;
        self.in_timeout_recovery = true;
        self.recover = self.snd_nxt;
        self.ecn_recover = self.snd_nxt;
        self.rtt.back_off();
        self.collect_events(now);
        self.arm_rto(ctx);
        self.try_send(ctx);
    }

    /// The SYN was not answered in time: a timeout like any other (the algorithm's loss window,
    /// backoff), then the SYN again. ns-2 counts it in `nrexmit_` too.
    fn on_syn_timeout(&mut self, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        self.stats.timeouts += 1;
        self.stats.timeouts_after_loss += 1;
        self.stats.events.push((now, "timeout"));
        self.last_reduction = Reduction::Timeout;
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            kind: CongestionKind::Timeout,
            bytes_in_flight: 0,
            snd_nxt: self.snd_nxt,
        });
        self.rtt.back_off();
        self.collect_events(now);
        self.send_syn(true, ctx);
    }

    /// When the first held ACK that acknowledges outstanding data will be processed, if any.
    fn held_ack_release_covering_data(&self) -> Option<crate::time::SimTime> {
        self.held_acks.iter().find(|(_, ack)| ack.ack > self.snd_una).map(|&(release, _)| release)
    }

    fn mark_lost_after_timeout(&mut self, offset: usize) {
        let segment = &mut self.segments[offset];
        if !segment.sacked && !segment.lost {
            segment.lost = true;
            self.lost_count += 1;
        }
    }

    /// RACK's reordering timer expired (RFC 8985 section 6.3): mark what is now overdue, start
    /// recovery if that found a loss, and send.
    fn on_reorder_timeout(&mut self, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        self.rack_mark_losses(now);
        if self.lost_count > 0 && !self.in_recovery && !self.in_timeout_recovery && self.snd_una >= self.recover {
            let flight_size = (self.snd_nxt - self.snd_una).saturating_sub(self.limited_transmit_bytes);
            self.enter_recovery(flight_size, ctx);
            let (pipe, ssthresh, mss) = (self.bytes_in_flight(), self.cc.ssthresh(), self.config.mss);
            if let Some(prr) = self.prr.as_mut() {
                // Linux tcp_rack_reo_timeout: the reduction starts as if one segment was delivered.
                self.prr_window = pipe + prr.send_quota(mss, pipe, ssthresh, mss, false);
            }
        }
        debug_assert!(self.config.recovery == RecoveryMode::Sack);
        self.try_send(ctx);
        if self.rto_deadline.is_none() && !self.segments.is_empty() {
            self.arm_rto(ctx);
        }
    }
}
