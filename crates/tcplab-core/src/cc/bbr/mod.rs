//! BBR (Cardwell, Cheng, Gunn, Hassas Yeganeh and Jacobson, "BBR: congestion-based congestion
//! control", ACM Queue 2016): model-based control from the bottleneck bandwidth (a windowed max of
//! delivery-rate samples) and the round-trip propagation time (a windowed min of RTT samples).
//! `v1` follows Linux's tcp_bbr.c. Shared pieces live here.

pub mod v1;
pub mod v3;

use std::collections::VecDeque;

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
    const MIN_TSO_RATE_BPS: u64 = 1_200_000;
    const MAX_GSO_BYTES: u64 = 65_536 - 1 - 320;
    let one_ms_bytes = (pacing_rate_bps / 8) >> 10;
    let min_segments = if pacing_rate_bps < MIN_TSO_RATE_BPS { 1 } else { 2 };
    let tso_segments = (one_ms_bytes.min(MAX_GSO_BYTES) / mss).max(min_segments).min(127);
    let cwnd = cwnd_segments + 3 * tso_segments;
    (cwnd + 1) & !1
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
    fn restore_keeps_the_larger_window_once_reduced() {
        assert_eq!(cwnd_to_restore(80, 50, false), 50);
        assert_eq!(cwnd_to_restore(80, 50, true), 80);
        assert_eq!(cwnd_to_restore(80, 90, true), 90);
    }
}
