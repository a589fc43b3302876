//! RACK (RFC 8985 section 6): a segment is lost when a segment sent after it has been delivered
//! and more than the latest RTT plus a reordering window has passed since it was sent. This finds
//! lost retransmissions without waiting for the retransmission timer, and needs no count of
//! duplicate ACKs. The scoreboard walk lives in the sender; this file keeps RACK's state and rules.
//!
//! The reordering window follows Linux (net/ipv4/tcp_recovery.c `tcp_rack_reo_wnd`): until
//! reordering has been seen it is 0 in recovery and once `duplicate_threshold` segments are
//! SACKed, otherwise min RTT / 4, at most SRTT. Reordering is seen when a segment that was never
//! retransmitted is delivered below the highest delivered sequence (RFC 8985 section 6.2 step 3).
//! DSACK-driven growth of the window is not modelled (receivers here send no DSACK).

use crate::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, Default)]
pub struct Rack {
    /// The most recently sent segment known delivered: its send time, end and RTT.
    latest: Option<(SimTime, u64, SimDuration)>,
    /// Highest end of any delivered segment (RACK.fack).
    highest_delivered_end: u64,
    pub reordering_seen: bool,
}

impl Rack {
    /// A segment ending at `end_seq`, last sent at `sent_at`, was delivered (acknowledged or
    /// SACKed) now. RFC 8985 section 6.2 steps 1-3.
    pub fn on_delivered(
        &mut self,
        now: SimTime,
        sent_at: SimTime,
        end_seq: u64,
        retransmitted: bool,
        min_rtt: SimDuration,
    ) {
        let rtt = now.saturating_sub(sent_at);
        // An ACK sooner than the minimum RTT after a retransmission was for the original.
        if retransmitted && rtt < min_rtt {
            return;
        }
        if !retransmitted && end_seq < self.highest_delivered_end {
            self.reordering_seen = true;
        }
        self.highest_delivered_end = self.highest_delivered_end.max(end_seq);
        if self.latest.is_none_or(|(time, end, _)| Self::sent_after(sent_at, end_seq, time, end)) {
            self.latest = Some((sent_at, end_seq, rtt));
        }
    }

    /// RFC 8985's RACK_sent_after: later send time, or the same time and a higher sequence.
    fn sent_after(t1: SimTime, end1: u64, t2: SimTime, end2: u64) -> bool {
        t1 > t2 || (t1 == t2 && end1 > end2)
    }

    /// Whether a segment (send time, end) went out before the most recently sent delivered one.
    pub fn sent_before_latest(&self, sent_at: SimTime, end_seq: u64) -> bool {
        self.latest.is_some_and(|(time, end, _)| Self::sent_after(time, end, sent_at, end_seq))
    }

    /// The send time of the most recently sent delivered segment.
    pub fn latest_send_time(&self) -> Option<SimTime> {
        self.latest.map(|(time, _, _)| time)
    }

    /// When a segment sent at `sent_at` (before the latest delivered one) counts as lost.
    pub fn loss_deadline(&self, sent_at: SimTime, reorder_window: SimDuration) -> SimTime {
        let rtt = self.latest.map_or(0, |(_, _, rtt)| rtt);
        sent_at + rtt + reorder_window
    }

    /// The reordering window (see the module docs).
    pub fn reorder_window(
        &self,
        in_recovery: bool,
        sacked_segments: u64,
        duplicate_threshold: u32,
        min_rtt: SimDuration,
        srtt: SimDuration,
    ) -> SimDuration {
        if !self.reordering_seen && (in_recovery || sacked_segments >= duplicate_threshold as u64) {
            return 0;
        }
        (min_rtt / 4).min(srtt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MILLI as MS;

    #[test]
    fn a_segment_is_lost_one_rtt_plus_the_window_after_it_was_sent() {
        let mut rack = Rack::default();
        // Segment [1000, 2000) sent at 0 is missing; [2000, 3000) sent at 1 ms arrives at 101 ms.
        rack.on_delivered(101 * MS, MS, 3000, false, 100 * MS);
        assert!(rack.sent_before_latest(0, 2000));
        assert!(!rack.sent_before_latest(2 * MS, 4000), "sent later: no verdict yet");
        // RTT 100 ms, window min_rtt / 4 = 25 ms: lost at 0 + 100 + 25 ms.
        let window = rack.reorder_window(false, 1, 3, 100 * MS, 100 * MS);
        assert_eq!(window, 25 * MS);
        assert_eq!(rack.loss_deadline(0, window), 125 * MS);
        assert_eq!(rack.reorder_window(true, 1, 3, 100 * MS, 100 * MS), 0, "in recovery: no wait");
    }

    #[test]
    fn reordering_and_early_acks_of_retransmissions() {
        let mut rack = Rack::default();
        rack.on_delivered(100 * MS, 10 * MS, 5000, false, 90 * MS);
        // A retransmission sent at 95 ms "delivered" at 100 ms: 5 ms < min RTT, the ACK was for
        // the original; it must not move RACK's clock.
        rack.on_delivered(100 * MS, 95 * MS, 1000, true, 90 * MS);
        assert_eq!(rack.latest_send_time(), Some(10 * MS));
        assert!(!rack.reordering_seen);
        // An original below the highest delivered end: reordering.
        rack.on_delivered(101 * MS, 5 * MS, 2000, false, 90 * MS);
        assert!(rack.reordering_seen);
        assert_eq!(rack.reorder_window(true, 5, 3, 80 * MS, 90 * MS), 20 * MS);
    }
}
