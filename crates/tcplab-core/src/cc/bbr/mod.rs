//! BBR (Cardwell, Cheng, Gunn, Hassas Yeganeh and Jacobson, "BBR: congestion-based congestion
//! control", ACM Queue 2016): model-based control from the bottleneck bandwidth (a windowed max of
//! delivery-rate samples) and the round-trip propagation time (a windowed min of RTT samples).
//! `v1` follows Linux's tcp_bbr.c. Shared pieces live here.

pub mod v1;
pub mod v3;

use std::collections::VecDeque;

use crate::time::{SimDuration, SimTime, NANOS_PER_MILLI};

/// A windowed maximum over the last `window` rounds: the exact sliding maximum (a monotonic
/// deque), where Linux keeps the three-sample approximation of lib/win_minmax.c.
#[derive(Clone, Debug, Default)]
pub struct WindowedMax {
    samples: VecDeque<(u64, u64)>,
}

impl WindowedMax {
    pub fn update(&mut self, round: u64, value: u64, window: u64) {
        while self.samples.back().is_some_and(|&(_, v)| v <= value) {
            self.samples.pop_back();
        }
        self.samples.push_back((round, value));
        while self.samples.front().is_some_and(|&(r, _)| r + window <= round) {
            self.samples.pop_front();
        }
    }

    /// The maximum among samples taken in the last `window` rounds before `round`.
    pub fn get(&self, round: u64, window: u64) -> u64 {
        self.samples.iter().find(|&&(r, _)| r + window > round).map_or(0, |&(_, v)| v)
    }

    pub fn reset(&mut self) {
        self.samples.clear();
    }
}

/// The bandwidth-delay product in bytes for `bw_bps` bits per second over `rtt_ns`.
pub fn bdp_bytes(bw_bps: u64, rtt_ns: u64) -> f64 {
    bw_bps as f64 / 8.0 * rtt_ns as f64 / 1e9
}

/// Linux BBR's quantization budget: headroom for TSO/GSO bursts of about 1 ms of data at the
/// pacing rate (at least 2 segments, 1 below 1.2 Mbit/s, at most 127), three of them, the window
/// rounded up to an even number of segments (bbr_tso_segs_goal and bbr_quantization_budget).
pub fn quantization_budget(cwnd_segments: u64, pacing_rate_bps: u64, mss: u64) -> u64 {
    const MAX_GSO_BYTES: u64 = 65_536 - 1 - 320;
    let one_ms_bytes = (pacing_rate_bps / 8) >> 10;
    let tso_segments = (one_ms_bytes.min(MAX_GSO_BYTES) / mss).max(min_tso_segments(pacing_rate_bps)).min(127);
    let cwnd = cwnd_segments + 3 * tso_segments;
    (cwnd + 1) & !1
}

/// Linux BBR's `bbr_min_tso_segs`: GSO packets of at least one segment below 1.2 Mbit/s of
/// pacing rate, two above.
pub fn min_tso_segments(pacing_rate_bps: u64) -> u64 {
    const MIN_TSO_RATE_BPS: u64 = 1_200_000;
    if pacing_rate_bps < MIN_TSO_RATE_BPS {
        1
    } else {
        2
    }
}

/// Linux BBR's ACK-aggregation estimator (tcp_bbr.c `bbr_update_ack_aggregation` and
/// `bbr_ack_aggregation_cwnd`, the same in v1 since Linux 5.1 and in v3): within an epoch that
/// starts whenever ACKs fall behind what the bandwidth estimate explains, the segments acknowledged
/// beyond bw x epoch length are "extra"; the largest extra over two windows of 5 rounds each
/// (capped at cwnd) times a gain, at most bw x 100 ms, is added to the cwnd target so that the
/// sender keeps data in flight across ACK bursts (delayed ACKs, Wi-Fi and cellular aggregation).
#[derive(Clone, Debug, Default)]
pub struct AckAggregation {
    epoch_start: SimTime,
    /// Segments acknowledged since the epoch started.
    epoch_acked: u64,
    /// The largest extra segments in each of the two windows, and which window is current.
    extra_acked: [u64; 2],
    window: usize,
    rounds_in_window: u32,
}

/// Rounds per extra-acked window (Linux bbr_extra_acked_win_rtts).
const EXTRA_ACKED_WINDOW_ROUNDS: u32 = 5;
/// An epoch this long in segments restarts (bbr_ack_epoch_acked_reset_thresh).
const EPOCH_RESET_SEGMENTS: u64 = 1 << 20;
/// The allowance is at most this much data at the estimated bandwidth (bbr_extra_acked_max_us).
const EXTRA_ACKED_MAX_TIME: SimDuration = 100 * NANOS_PER_MILLI;

impl AckAggregation {
    /// One ACK that acknowledged `acked` segments at `now`, with the bandwidth estimate (bits per
    /// second) and cwnd (segments) before this ACK's update.
    pub fn update(&mut self, now: SimTime, round_start: bool, acked: u64, bw_bps: u64, cwnd: u64, mss: u64) {
        if acked == 0 {
            return;
        }
        if round_start {
            self.rounds_in_window = (self.rounds_in_window + 1).min(31);
            if self.rounds_in_window >= EXTRA_ACKED_WINDOW_ROUNDS {
                self.rounds_in_window = 0;
                self.window ^= 1;
                self.extra_acked[self.window] = 0;
            }
        }
        let mut expected = (bdp_bytes(bw_bps, now.saturating_sub(self.epoch_start)) / mss as f64) as u64;
        if self.epoch_acked <= expected || self.epoch_acked + acked >= EPOCH_RESET_SEGMENTS {
            self.epoch_acked = 0;
            self.epoch_start = now;
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min(EPOCH_RESET_SEGMENTS - 1);
        let extra = self.epoch_acked.saturating_sub(expected).min(cwnd);
        self.extra_acked[self.window] = self.extra_acked[self.window].max(extra);
    }

    /// Segments to add to the cwnd target: `gain` x the largest recent extra, at most bw x 100 ms.
    pub fn cwnd_allowance(&self, gain: f64, bw_bps: u64, mss: u64) -> u64 {
        let extra = self.extra_acked[0].max(self.extra_acked[1]);
        let cap = (bdp_bytes(bw_bps, EXTRA_ACKED_MAX_TIME) / mss as f64) as u64;
        ((gain * extra as f64) as u64).min(cap)
    }
}

/// The window to restore when loss recovery or PROBE_RTT ends (Linux bbr_save_cwnd): the current
/// one, unless it is already reduced by recovery or PROBE_RTT, then the larger of the two.
pub fn cwnd_to_restore(prior_cwnd: u64, cwnd: u64, already_reduced: bool) -> u64 {
    if already_reduced {
        prior_cwnd.max(cwnd)
    } else {
        cwnd
    }
}

/// The recovery part of Linux bbr_set_cwnd_to_recover_or_restore, in segments: newly lost segments
/// come off the window (at least 1 stays); on the first ACK of recovery the window is cut to what
/// is in flight plus what this ACK acked; during packet conservation it never falls below that.
/// Returns the window and whether packet conservation set it (then the model's growth is skipped).
pub fn recovery_cwnd(
    cwnd: u64,
    acked: u64,
    newly_lost: u64,
    in_flight: u64,
    reset_to_inflight: bool,
    packet_conservation: bool,
) -> (u64, bool) {
    let mut cwnd = if newly_lost > 0 { cwnd.saturating_sub(newly_lost).max(1) } else { cwnd };
    if reset_to_inflight {
        cwnd = in_flight + acked;
    }
    if packet_conservation {
        (cwnd.max(in_flight + acked), true)
    } else {
        (cwnd, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windowed_max_forgets_old_rounds() {
        let mut f = WindowedMax::default();
        f.update(1, 100, 10);
        f.update(2, 50, 10);
        assert_eq!(f.get(2, 10), 100);
        assert_eq!(f.get(10, 10), 100);
        assert_eq!(f.get(11, 10), 50, "round 1 left the 10-round window");
        f.update(13, 70, 10);
        assert_eq!(f.get(13, 10), 70);
    }

    #[test]
    fn budget_adds_three_bursts_and_rounds_to_even() {
        // 100 Mbit/s: 1 ms = 12 207 bytes (rate / 8 / 1024) = 8 segments of 1448: 100 + 24 = 124.
        assert_eq!(quantization_budget(100, 100_000_000, 1448), 124);
        // Slow: 2 segments per burst; 11 + 6 = 17, rounded up to 18.
        assert_eq!(quantization_budget(11, 2_000_000, 1448), 18);
        assert_eq!(quantization_budget(11, 1_000_000, 1448), 14);
    }

    #[test]
    fn recovery_cuts_to_flight_then_conserves_packets() {
        // 100-segment window, 3 newly lost: 97; the first ACK of recovery (40 in flight, 2 acked)
        // cuts it to 42, and conservation keeps at least in flight + acked.
        assert_eq!(recovery_cwnd(100, 2, 3, 40, false, false), (97, false));
        assert_eq!(recovery_cwnd(100, 2, 3, 40, true, true), (42, true));
        assert_eq!(recovery_cwnd(30, 2, 0, 40, false, true), (42, true));
        assert_eq!(recovery_cwnd(2, 1, 5, 0, false, false), (1, false), "at least one segment stays");
    }

    #[test]
    fn aggregation_counts_segments_acknowledged_beyond_the_bandwidth() {
        const MS: u64 = NANOS_PER_MILLI;
        // 12 Mbit/s with 1500-byte segments: one segment per millisecond.
        let (bw, mss) = (12_000_000, 1500);
        let mut a = AckAggregation::default();
        // An epoch starts with a burst of 10; 5 ms later 10 more: 20 acknowledged where 5 were
        // expected, 15 extra.
        a.update(0, false, 10, bw, 100, mss);
        a.update(5 * MS, false, 10, bw, 100, mss);
        assert_eq!(a.cwnd_allowance(1.0, bw, mss), 15);
        // ACKs that fall behind the rate start a new epoch; the window keeps its maximum.
        a.update(100 * MS, false, 1, bw, 100, mss);
        assert_eq!(a.cwnd_allowance(1.0, bw, mss), 15);
        // Capped by cwnd when measured, and by 100 ms of data (100 segments) when added.
        a.update(101 * MS, false, 500, bw, 60, mss);
        assert_eq!(a.cwnd_allowance(1.0, bw, mss), 60);
        assert_eq!(a.cwnd_allowance(2.0, bw, mss), 100);
        // Two windows of 5 rounds: after 10 round starts with single, late ACKs only their own
        // 1-segment extra is left.
        for round in 0..10 {
            a.update((1000 + 100 * round) * MS, true, 1, bw, 100, mss);
        }
        assert_eq!(a.cwnd_allowance(1.0, bw, mss), 1);
    }

    #[test]
    fn restore_keeps_the_larger_window_once_reduced() {
        assert_eq!(cwnd_to_restore(80, 50, false), 50);
        assert_eq!(cwnd_to_restore(80, 50, true), 80);
        assert_eq!(cwnd_to_restore(80, 90, true), 90);
    }
}
