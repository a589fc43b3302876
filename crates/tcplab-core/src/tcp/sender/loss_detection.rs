//! RACK-TLP (RFC 8985) on the sender's scoreboard: which segments RACK's rule marks lost, and the
//! tail loss probe that makes the receiver report a loss at the end of a flight, where no later
//! segment would.
//!
//! RACK judges a segment by its last send time. Segments sent once go out in sequence order, so
//! they are walked in sequence from the first one still to judge, stopping at the first sent
//! after the most recently delivered segment; retransmissions are walked in the order they were
//! sent. Linux keeps one list sorted by send time for the same purpose.
//!
//! Tail loss probe timing as Linux (`tcp_schedule_loss_probe`, `tcp_send_loss_probe`): PTO =
//! 2 SRTT, plus 200 ms when one segment is in flight (the receiver may delay its ACK) and 2 ms
//! otherwise, never later than the retransmission timer; armed in the open state only (not in
//! recovery), with SACK, one probe per tail: new data if the application and the receiver's window
//! allow (ignoring cwnd), else a retransmission of the highest outstanding segment. An ACK above
//! a retransmitted probe's sequence shows that the probe repaired a loss: the window is reduced
//! once, as for a fast recovery that is already over (Linux `tcp_process_tlp_ack`).

use super::ack::AckProgress;
use super::TcpSender;
use crate::net::packet::Packet;
use crate::tcp::{EndpointContext, RecoveryMode};
use crate::time::{SimDuration, SimTime, NANOS_PER_MILLI, NANOS_PER_SEC};

/// Added to the PTO when one segment is in flight: the longest a receiver delays an ACK
/// (RFC 8985's WCDelAckT; Linux's TCP_RTO_MIN).
const WORST_CASE_DELAYED_ACK: u64 = 200 * NANOS_PER_MILLI;
/// Added otherwise (Linux TCP_TIMEOUT_MIN).
const PROBE_SLACK: u64 = 2 * NANOS_PER_MILLI;

impl TcpSender {
    /// Byte offset of the segment starting at `start`, if it is still outstanding.
    fn offset_of(&self, start: u64) -> Option<usize> {
        (start >= self.snd_una && start < self.snd_nxt).then(|| ((start - self.snd_una) / self.config.mss) as usize)
    }

    /// RFC 8985 section 6.2 step 5: marks lost every segment sent before the most recently
    /// delivered one whose RTT plus the reordering window has passed; arms the reordering timer
    /// for the earliest one still within it.
    pub(super) fn rack_mark_losses(&mut self, now: SimTime) {
        self.reorder_deadline = None;
        // Nothing SACKed, lost or resent: every outstanding segment left after every delivered
        // one, so none can be judged (the common case, checked first).
        let nothing_to_judge = self.sacked_count == 0 && self.lost_count == 0 && self.retransmissions_in_flight == 0;
        if nothing_to_judge || self.rack.latest_send_time().is_none() {
            return;
        }
        let window = self.rack.reorder_window(
            self.in_recovery || self.in_timeout_recovery,
            self.sacked_count,
            self.config.duplicate_threshold,
            self.rtt.min_rtt.unwrap_or(0),
            self.rtt.smoothed(),
        );
        let originals = self.rack_judge_originals(now, window);
        let retransmissions = self.rack_judge_retransmissions(now, window);
        self.reorder_deadline = [originals, retransmissions].into_iter().flatten().min();
    }

    /// RACK over the segments sent once, in sequence (= send) order from the first one still to
    /// judge. Returns the earliest loss deadline still to come.
    fn rack_judge_originals(&mut self, now: SimTime, window: SimDuration) -> Option<SimTime> {
        let mss = self.config.mss;
        let mut pending: Option<SimTime> = None;
        let mut offset = self.rack_scan_from as usize;
        let mut prefix_judged = true;
        while offset < self.segments.len() {
            let segment = self.segments[offset];
            let judged = segment.sacked || segment.lost || segment.ever_retransmitted;
            if !judged {
                let end = self.snd_una + offset as u64 * mss + self.segment_len(self.snd_una + offset as u64 * mss);
                if !self.rack.sent_before_latest(segment.sent_at, end) {
                    break;
                }
                let deadline = self.rack.loss_deadline(segment.sent_at, window);
                if now >= deadline {
                    self.mark_lost(offset);
                } else {
                    prefix_judged = false;
                    pending = Some(pending.map_or(deadline, |p| p.min(deadline)));
                }
            }
            if prefix_judged {
                self.rack_scan_from = offset as u64 + 1;
            }
            offset += 1;
        }
        pending
    }

    /// RACK over the retransmissions in flight, in the order they were sent. Returns the earliest
    /// loss deadline still to come.
    fn rack_judge_retransmissions(&mut self, now: SimTime, window: SimDuration) -> Option<SimTime> {
        let mss = self.config.mss;
        let mut pending: Option<SimTime> = None;
        let mut index = 0;
        while index < self.retransmission_order.len() {
            let (start, sent_at) = self.retransmission_order[index];
            let live = self.offset_of(start).filter(|&o| {
                let segment = &self.segments[o];
                segment.retransmission_in_flight && segment.sent_at == sent_at
            });
            let Some(offset) = live else {
                if index == 0 {
                    self.retransmission_order.pop_front();
                } else {
                    index += 1;
                }
                continue;
            };
            let end = start + self.segment_len(start);
            if !self.rack.sent_before_latest(sent_at, end) {
                break;
            }
            let deadline = self.rack.loss_deadline(sent_at, window);
            if now >= deadline {
                self.mark_lost(offset);
            } else {
                pending = Some(pending.map_or(deadline, |p| p.min(deadline)));
            }
            index += 1;
        }
        // Stale entries left behind a live one are dropped once they outnumber the live ones.
        if self.retransmission_order.len() as u64 > 2 * self.retransmissions_in_flight + 16 {
            let segments = &self.segments;
            let (snd_una, snd_nxt, mss) = (self.snd_una, self.snd_nxt, mss);
            self.retransmission_order.retain(|&(start, sent_at)| {
                start >= snd_una
                    && start < snd_nxt
                    && segments
                        .get(((start - snd_una) / mss) as usize)
                        .is_some_and(|s| s.retransmission_in_flight && s.sent_at == sent_at)
            });
        }
        pending
    }

    /// Arms the tail loss probe after new data went out or an ACK advanced, when it applies.
    pub(super) fn schedule_loss_probe(&mut self, ctx: &mut EndpointContext) {
        self.probe_deadline = None;
        let applies = self.config.tail_loss_probe
            && self.config.recovery == RecoveryMode::Sack
            && !self.in_recovery
            && !self.in_timeout_recovery
            && !self.segments.is_empty()
            && self.probe_outstanding.is_none()
            && self.reorder_deadline.is_none();
        if !applies {
            return;
        }
        let timeout = match self.rtt.srtt {
            Some(srtt) => 2 * srtt + if self.segments.len() == 1 { WORST_CASE_DELAYED_ACK } else { PROBE_SLACK },
            None => NANOS_PER_SEC,
        };
        let deadline = ctx.events.now() + timeout;
        self.probe_deadline = Some(self.rto_deadline.map_or(deadline, |rto| rto.min(deadline)));
        self.schedule_timer_event(ctx);
    }

    /// The probe timer expired: send one probe segment, then wait a full RTO.
    pub(super) fn send_loss_probe(&mut self, ctx: &mut EndpointContext) {
        if self.segments.is_empty() || self.probe_outstanding.is_some() || self.in_recovery || self.in_timeout_recovery
        {
            return;
        }
        let retransmission = match self.sendable_new_segment() {
            Some(length) => {
                self.app_limited = false;
                self.send_new(length, ctx);
                false
            }
            None => {
                let Some(offset) = (0..self.segments.len())
                    .rev()
                    .find(|&o| !self.segments[o].sacked && !self.segments[o].retransmission_in_flight)
                else {
                    return;
                };
                self.retransmit(offset, ctx);
                true
            }
        };
        self.probe_outstanding = Some((self.snd_nxt, retransmission));
        self.stats.tail_loss_probes += 1;
        self.arm_rto(ctx);
    }

    /// What an ACK says about the probe in flight.
    pub(super) fn process_probe_ack(&mut self, ack: &Packet, ack_advances: bool, progress: &AckProgress, now: SimTime) {
        let Some((probe_end, retransmission)) = self.probe_outstanding else { return };
        if ack.ack < probe_end {
            return;
        }
        if !retransmission {
            self.probe_outstanding = None;
        } else if ack.ack > probe_end {
            self.probe_outstanding = None;
            self.reduce_after_repaired_tail_loss(now);
        } else if !ack_advances && !progress.new_sack_info {
            // A duplicate ACK at the probe's end: the original and the probe both arrived.
            self.probe_outstanding = None;
        }
    }
}
