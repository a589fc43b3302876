//! What the sender does with an arriving ACK, in order: cumulative acknowledgement, SACK blocks,
//! RTT and delivery-rate samples, loss detection and recovery (`recovery.rs`, `loss_detection.rs`),
//! ECN, the algorithm's update, timers, and sending what the window now allows.

use super::{Segment, TcpSender};
use crate::cc::AckEvent;
use crate::net::packet::{Packet, MAX_SACK_BLOCKS};
use crate::tcp::{AlgorithmRtt, EcnResponse, EndpointContext, RecoveryMode, RtoRestart, RttSampling};
use crate::time::{mul_div, SimDuration, SimTime, NANOS_PER_SEC};

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

/// What one ACK acknowledged, gathered while the sender walks its segments.
#[derive(Default)]
pub(super) struct AckProgress {
    pub(super) newly_acked_bytes: u64,
    newly_acked_segments: u32,
    /// Send times of the earliest and the latest segments the cumulative ACK newly covered that
    /// were never retransmitted, and whether it covered one that was (Karn's rule then discards
    /// the cumulative samples). The earliest drives the RFC 6298 estimator (it includes the
    /// receiver's ACK delay); the latest gives the algorithm the freshest path RTT (Linux's
    /// seq_rtt and ca_rtt).
    acked_earliest: Option<SimTime>,
    acked_latest: Option<SimTime>,
    acked_retransmission: bool,
    /// The same for newly SACKed segments never retransmitted (Linux's sack_rtt).
    sacked_earliest: Option<SimTime>,
    sacked_latest: Option<SimTime>,
    /// A segment sent only once was newly acknowledged or SACKed (F-RTO's sign that a timeout
    /// was spurious).
    pub(super) original_delivered: bool,
    /// SACK blocks reported data not reported before.
    pub(super) new_sack_info: bool,
    /// RACK must see every delivered segment of this ACK. Not needed while nothing is SACKed,
    /// lost or resent: then no outstanding segment can be judged by RACK, no reordering can be
    /// seen, and the first SACK (sent after every segment delivered so far) brings RACK up to
    /// date; skipping saves a call per segment in the common case.
    rack_tracks: bool,
    rate: RateSample,
}

fn widen(range: (Option<SimTime>, Option<SimTime>), time: SimTime) -> (Option<SimTime>, Option<SimTime>) {
    (Some(range.0.map_or(time, |t| t.min(time))), Some(range.1.map_or(time, |t| t.max(time))))
}

impl AckProgress {
    /// A segment the cumulative ACK covers for the first time (it was not SACKed before).
    fn note_acked(&mut self, segment: &Segment) {
        if segment.ever_retransmitted {
            self.acked_retransmission = true;
        } else if !segment.sacked {
            (self.acked_earliest, self.acked_latest) = widen((self.acked_earliest, self.acked_latest), segment.sent_at);
            self.original_delivered = true;
        }
    }

    /// A segment SACKed for the first time.
    fn note_sacked(&mut self, segment: &Segment) {
        if !segment.ever_retransmitted {
            (self.sacked_earliest, self.sacked_latest) =
                widen((self.sacked_earliest, self.sacked_latest), segment.sent_at);
            self.original_delivered = true;
        }
    }
}

#[derive(Default)]
pub(super) struct RateSample {
    prior_delivered: Option<u64>,
    prior_time: SimTime,
    send_elapsed: SimDuration,
    is_app_limited: bool,
    tx_in_flight: u64,
    lost_at_send: u64,
}

impl TcpSender {
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
        ctx.events.schedule(release, crate::sim::Event::AckRelease { flow: self.flow });
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
        if self.awaiting_syn_ack() {
            self.on_syn_ack(ack, ctx);
            return;
        }
        let now = ctx.events.now();
        self.last_ack_sent_at = self.last_ack_sent_at.max(ack.sent_at);
        let in_flight_before = self.bytes_in_flight();
        // The ACK that ends recovery sets cwnd = ssthresh and nothing more (RFC 6582 step 3).
        let was_in_recovery = self.in_recovery;
        // RFC 5681 FlightSize: sent and not cumulatively acknowledged, before this ACK.
        let flight_size_before = self.snd_nxt - self.snd_una;
        self.peer_window = ack.receive_window as u64;
        let ack_advances = ack.ack > self.snd_una;
        let lost_marks_before = self.lost_marks;

        // 1. Cumulative acknowledgement, then 2. SACK information, then RTT and rate samples.
        let quiet = self.sacked_count == 0 && self.lost_count == 0 && self.retransmissions_in_flight == 0;
        let mut progress = AckProgress { rack_tracks: self.config.rack && !quiet, ..AckProgress::default() };
        self.take_cumulative_ack(ack.ack, now, &mut progress);
        self.take_sack_blocks(ack, now, &mut progress);
        let rfc3168 = self.config.ecn_response == EcnResponse::Rfc3168;
        if rfc3168 {
            self.rfc3168_ecn_first(ack, ack_advances, now, flight_size_before);
        }
        let (rtt_sample, delivery_rate) = self.sample_rtt_and_rate(now, ack, ack_advances, &progress);

        // 3. Spurious reductions, loss marking (RACK), the tail loss probe's outcome, duplicate
        //    ACKs and loss recovery.
        self.check_spurious_reduction(ack, ack_advances, &progress, now);
        if self.config.rack && self.config.recovery == RecoveryMode::Sack {
            self.rack_mark_losses(now);
        }
        self.process_probe_ack(ack, ack_advances, &progress, now);
        self.detect_loss(ack, ack_advances, &progress, flight_size_before, ctx);
        self.update_prr_window(ack_advances, &progress, lost_marks_before);

        // 4. ECN-Echo: at most one reduction per window (RFC 3168 section 6.1.2).
        if ack.ece && !rfc3168 {
            self.on_ecn_echo(now, flight_size_before);
        }

        // 5. The algorithm sees every ACK that acknowledged something.
        if progress.newly_acked_bytes > 0 || rtt_sample.is_some() {
            let (algorithm_rtt, algorithm_min_rtt) = self.algorithm_rtt(rtt_sample);
            let rate = &progress.rate;
            let reads_pacing_rate = self.cc.reads_pacing_rate();
            let event = AckEvent {
                now,
                acked_bytes: progress.newly_acked_bytes,
                acked_segments: progress.newly_acked_segments,
                rtt_sample: algorithm_rtt,
                srtt: self.rtt.smoothed(),
                min_rtt: algorithm_min_rtt,
                one_way_delay: if self.config.timestamps { ack.ts_echo_arrival.checked_sub(ack.ts_echo) } else { None },
                bytes_in_flight_before: in_flight_before,
                bytes_in_flight: self.bytes_in_flight(),
                in_recovery: was_in_recovery || self.in_recovery || self.in_cwr_round(ack.ece),
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
                paced: reads_pacing_rate && self.pacing_rate().is_some(),
                pacing_rate: if reads_pacing_rate { self.linux_pacing_rate().unwrap_or(0) } else { 0 },
            };
            self.cc.on_ack(&event);
        }
        self.ece_seen |= ack.ece && ack_advances;
        self.collect_events(now);
        self.after_ack(ack_advances, ctx);
    }

    /// RFC 3168 as ns-2: the ECN reaction comes before the rest of the ACK (tcp/tcp.cc `recv`
    /// calls `ecn` before `newack`), so that a reduction at one segment can keep the timer
    /// backed off; an ACK that advances lifts the one-segment cap, and without ECE ends the
    /// backoff.
    fn rfc3168_ecn_first(&mut self, ack: &Packet, ack_advances: bool, now: SimTime, flight_size_before: u64) {
        if ack.ece {
            self.on_ecn_echo(now, flight_size_before);
        }
        if ack_advances {
            self.one_segment_cap = false;
            if !ack.ece {
                self.ecn_backoff = false;
            }
        }
    }

    /// Whether this ACK falls in a round without growth after an ECN reduction: Linux's CWR
    /// state lasts until the window that saw the ECE is acknowledged; ns-2 (RFC 3168 response)
    /// instead grows on every ACK without ECE and on none with ECE but the connection's first
    /// (`recv_newack_helper`, `ect_`).
    fn in_cwr_round(&self, ece: bool) -> bool {
        if self.config.ecn_response == EcnResponse::Rfc3168 {
            ece && self.ece_seen
        } else {
            self.config.ecn && self.ecn_responded && self.snd_una < self.ecn_recover
        }
    }

    /// 6. Timers (RFC 6298 5.2 and 5.3, RFC 8985), completion, and what may be sent now.
    fn after_ack(&mut self, ack_advances: bool, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        if self.ecn_wait {
            // ns-2 `newtimer`: with the window below one segment the timer is restarted, even
            // with nothing outstanding; its expiry releases the next segment.
            if ack_advances || self.rto_deadline.is_none() {
                self.arm_rto(ctx);
            }
        } else if self.segments.is_empty() {
            self.rto_deadline = None;
        } else if ack_advances {
            // NewReno recovery restarts the timer only on the first partial ACK ("impatient").
            let impatient = self.in_recovery && self.config.recovery == RecoveryMode::NewReno && self.partial_ack_seen;
            if !impatient || self.rto_deadline.is_none() || self.config.rto_restart == RtoRestart::EveryAck {
                self.arm_rto(ctx);
            }
        } else if self.config.rto_restart == RtoRestart::EveryAck {
            // ns-2's Agent/TCP/Linux: duplicate ACKs restart the timer too.
            self.arm_rto(ctx);
        }
        if self.is_complete() && self.stats.all_acknowledged_at.is_none() {
            self.stats.all_acknowledged_at = Some(now);
        }
        let probe_rearmed = self.try_send(ctx);
        if std::mem::take(&mut self.frto_send_new) && self.frto_high_seq.is_some_and(|high| self.snd_nxt <= high) {
            // F-RTO found no new data to send: the test ends and the retransmissions go out.
            self.frto_high_seq = None;
            self.try_send(ctx);
        }
        // An ACK that advances re-arms the probe, unless sending new data just did.
        if ack_advances && !probe_rearmed {
            self.schedule_loss_probe(ctx);
        }
        self.schedule_timer_event(ctx);
    }

    /// Removes the segments the cumulative ACK `ack_no` covers.
    fn take_cumulative_ack(&mut self, ack_no: u64, now: SimTime, progress: &mut AckProgress) {
        while self.snd_una < ack_no && !self.segments.is_empty() {
            let start = self.snd_una;
            let length = self.segment_len(start);
            let segment = self.pop_acknowledged();
            progress.note_acked(&segment);
            if !segment.sacked {
                progress.newly_acked_bytes += length;
                progress.newly_acked_segments += 1;
                self.on_delivered(&segment, start, length, now, progress);
            }
            self.snd_una += length;
        }
        if progress.newly_acked_segments > 0 || progress.acked_retransmission {
            // RFC 5681 section 3.2 step 2's exclusion applies to the duplicate-ACK episode only.
            self.limited_transmit_bytes = 0;
        }
    }

    /// Marks the segments newly reported by SACK blocks (ignored in NewReno and Reno modes, as
    /// ns-2's agents would), then the losses they reveal by RFC 6675's rule (RACK's own rule is
    /// applied afterwards when it is on).
    fn take_sack_blocks(&mut self, ack: &Packet, now: SimTime, progress: &mut AckProgress) {
        if self.config.recovery != RecoveryMode::Sack {
            return;
        }
        let mss = self.config.mss;
        let previous = self.previous_sack;
        let previous = &previous[..self.previous_sack_count];
        progress.rack_tracks |= self.config.rack && ack.sack_count > 0;
        for (block_start, block_end) in ack.sack_blocks() {
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
                        progress.note_sacked(&segment);
                        let segment_start = self.snd_una + offset as u64 * mss;
                        let length = self.segment_len(segment_start);
                        progress.newly_acked_bytes += length;
                        progress.newly_acked_segments += 1;
                        self.on_delivered(&segment, segment_start, length, now, progress);
                    }
                }
            }
        }
        for (slot, block) in self.previous_sack.iter_mut().zip(ack.sack_blocks()) {
            *slot = block;
        }
        self.previous_sack_count = ack.sack_count as usize;
        if progress.new_sack_info && !self.config.rack {
            self.mark_losses_from_sack();
        }
    }

    /// Feeds the RTT estimator and the RTT statistics, and records the delivery rate sample;
    /// returns the algorithm's RTT sample and the delivery rate sample (bits per second) of this
    /// ACK. Karn's rule and the timestamp fallback
    /// are described in the module docs.
    fn sample_rtt_and_rate(
        &mut self,
        now: SimTime,
        ack: &Packet,
        ack_advances: bool,
        progress: &AckProgress,
    ) -> (Option<SimDuration>, Option<u64>) {
        let cumulative = (!progress.acked_retransmission)
            .then_some((progress.acked_earliest, progress.acked_latest))
            .filter(|(earliest, _)| earliest.is_some());
        // The send time of the estimator's sample, and the algorithm's sample.
        let (mut estimator_sent, mut rtt_sample) = match cumulative {
            Some((earliest, latest)) => (earliest, latest.map(|t| now - t)),
            None => (None, None),
        };
        if let (Some(earliest), Some(latest)) = (progress.sacked_earliest, progress.sacked_latest) {
            estimator_sent = estimator_sent.or(Some(earliest));
            rtt_sample = Some(now - latest);
        }
        if estimator_sent.is_none() && self.config.timestamps && ack_advances && ack.ts_echo <= now {
            estimator_sent = Some(ack.ts_echo);
            rtt_sample = Some(now - ack.ts_echo);
        }
        match self.config.rtt_sampling {
            RttSampling::EveryAck => {
                if let Some(sent_at) = estimator_sent {
                    let hold_backoff = self.holds_ecn_backoff(ack);
                    self.rtt.on_sample_sent_at(sent_at, now, !hold_backoff, self.sequence_window());
                }
            }
            RttSampling::TimedSegment => {
                if let Some(sent_at) = estimator_sent {
                    self.rtt.observe(now - sent_at);
                }
                self.sample_timed_segment(now, ack);
            }
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
                .then(|| mul_div((self.delivered - prior) * 8, NANOS_PER_SEC, interval))
        });
        if let Some(rtt) = rtt_sample {
            self.stats.rtt.record(rtt);
        }
        if delivery_rate.is_some() {
            self.stats.latest_delivery_rate_bps = delivery_rate;
        }
        (rtt_sample, delivery_rate)
    }

    /// The RTT and minimum RTT the algorithm sees (`tcp.algorithm_rtt`). With "smoothed", as
    /// ns-3 3.44 calls `PktsAcked` with `m_tcb->m_srtt` on every ACK once there is an estimate
    /// (tcp-socket-base.cc ProcessAck), the smoothed RTT and its minimum; algorithms that own
    /// the window (BBR, ns-3's `CongControl` ones) keep the samples, as ns-3's TcpBbr reads
    /// `m_lastRtt` (tcp-bbr.cc UpdateRTT).
    fn algorithm_rtt(&self, sample: Option<SimDuration>) -> (Option<SimDuration>, SimDuration) {
        match self.config.algorithm_rtt {
            AlgorithmRtt::Smoothed if !self.cc.owns_recovery_window() => {
                (self.rtt.srtt, self.rtt.min_srtt.unwrap_or(0))
            }
            _ => (sample, self.rtt.min_rtt.unwrap_or(0)),
        }
    }

    /// `rtt_sampling = "timed_segment"`: the timed segment's sample once the cumulative ACK
    /// covers it (ns-2 `newack`). While ns-2 keeps the timer backed off after ECN reductions at
    /// one segment, an ACK with ECN-Echo does not end the backoff. (A partial ACK cannot cover
    /// the timed segment: fast retransmit ends the timing, and segments sent after it lie above
    /// the recovery point.)
    fn sample_timed_segment(&mut self, now: SimTime, ack: &Packet) {
        let Some((end, sent_at)) = self.rtt_timed else { return };
        if ack.ack < end {
            return;
        }
        self.rtt_timed = None;
        let hold_backoff = self.holds_ecn_backoff(ack);
        if !hold_backoff {
            self.ecn_backoff = false;
        }
        self.rtt.on_sample_sent_at(sent_at, now, !hold_backoff, self.sequence_window());
    }

    /// ns-2 keeps the timer backed off while ACKs carry ECN-Echo after reductions at one
    /// segment (`newack`: the backoff ends only when `ecn_backoff_` is clear or ECE absent).
    fn holds_ecn_backoff(&self, ack: &Packet) -> bool {
        self.config.ecn_response == EcnResponse::Rfc3168 && self.ecn_backoff && ack.ece
    }

    /// Credits one newly delivered segment: counts it, keeps the rate sample of the most recently
    /// sent delivered segment, and tells RACK.
    fn on_delivered(&mut self, segment: &Segment, start: u64, length: u64, now: SimTime, progress: &mut AckProgress) {
        let sample = &mut progress.rate;
        self.delivered += length;
        self.delivered_time = now;
        let delivered_at_send = segment.delivered_at_send(self.delivered);
        if sample.prior_delivered.is_none_or(|prior| delivered_at_send >= prior) {
            sample.prior_delivered = Some(delivered_at_send);
            sample.prior_time = segment.delivered_time;
            sample.send_elapsed = segment.sent_at.saturating_sub(segment.first_sent_time);
            sample.is_app_limited = segment.app_limited();
            sample.tx_in_flight = segment.tx_in_flight();
            sample.lost_at_send = segment.lost_at_send(self.lost_bytes);
            self.first_sent_time = segment.sent_at;
        }
        if progress.rack_tracks {
            let min_rtt = self.rtt.min_rtt.unwrap_or(0);
            self.rack.on_delivered(now, segment.sent_at, start + length, segment.ever_retransmitted, min_rtt);
        }
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
