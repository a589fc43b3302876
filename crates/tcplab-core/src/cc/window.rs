//! Congestion windows shared by algorithms. [`SegmentWindow`] counts segments, with the two
//! growth helpers every Linux algorithm
//! shares (net/ipv4/tcp_cong.c: `tcp_slow_start` and `tcp_cong_avoid_ai`). Facts, not code, carried
//! over: slow start adds the acked segments up to ssthresh and returns the leftover; additive
//! increase adds one segment per `w` acked segments, keeping the remainder in a credit counter.

/// The trait outputs of an algorithm whose state has a `window: SegmentWindow` field: cwnd and
/// ssthresh in bytes and the slow-start/avoidance state name.
macro_rules! window_outputs {
    () => {
        fn cwnd(&self) -> u64 {
            self.window.cwnd_bytes()
        }

        fn ssthresh(&self) -> u64 {
            self.window.ssthresh_bytes()
        }

        fn state_name(&self) -> &'static str {
            self.window.state_name()
        }

        fn undo_reduction(&mut self, _now: crate::time::SimTime, prior_cwnd: u64, prior_ssthresh: u64) {
            self.window.undo(prior_cwnd, prior_ssthresh);
        }
    };
}

/// `window_outputs!` plus the usual end of fast recovery: cwnd = ssthresh.
macro_rules! reno_like_window {
    () => {
        fn on_recovery_exit(&mut self, _now: crate::time::SimTime) {
            self.window.cwnd = self.window.ssthresh;
        }

        crate::cc::window::window_outputs!();
    };
}

pub(crate) use {reno_like_window, window_outputs};

/// An unbounded ssthresh, as Linux's TCP_INFINITE_SSTHRESH.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;
/// The largest congestion window in segments (Linux's u32 `snd_cwnd_clamp` in effect).
pub const MAX_CWND_SEGMENTS: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
pub struct SegmentWindow {
    /// Maximum segment size in bytes, to convert to the trait's byte counts.
    pub mss: u64,
    /// Congestion window in segments.
    pub cwnd: u32,
    /// Slow-start threshold in segments.
    pub ssthresh: u32,
    /// Acked segments credited towards the next additive increase (Linux `snd_cwnd_cnt`).
    pub credit: u32,
    /// The largest cwnd growth may reach, in segments (Linux `snd_cwnd_clamp`).
    pub clamp: u32,
}

impl SegmentWindow {
    pub fn new(mss: u64, initial_window_segments: u32) -> Self {
        Self {
            mss,
            cwnd: initial_window_segments.max(1),
            ssthresh: INFINITE_SSTHRESH,
            credit: 0,
            clamp: MAX_CWND_SEGMENTS,
        }
    }

    /// The window a connection starts with: its initial window and initial ssthresh.
    pub fn for_connection(info: &crate::cc::ConnectionInfo) -> Self {
        let mut window = Self::new(info.mss, info.initial_window_segments);
        if let Some(ssthresh) = info.initial_ssthresh_segments {
            window.ssthresh = ssthresh.clamp(2, INFINITE_SSTHRESH);
        }
        if let Some(clamp) = info.cwnd_clamp_segments {
            window.clamp = clamp.max(1);
            window.cwnd = window.cwnd.min(window.clamp);
        }
        window
    }

    /// Linux's `tcp_reno_undo_cwnd` and the ssthresh half of `tcp_undo_cwnd_reduction`: cwnd and
    /// ssthresh go back up to what they were before a spurious reduction (bytes in, segments kept).
    pub fn undo(&mut self, prior_cwnd: u64, prior_ssthresh: u64) {
        let to_segments = |bytes: u64| (bytes / self.mss).min(INFINITE_SSTHRESH as u64) as u32;
        self.cwnd = self.cwnd.max(to_segments(prior_cwnd));
        self.ssthresh = self.ssthresh.max(to_segments(prior_ssthresh));
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// The opening of Linux's cong_avoid hooks: in slow start, grow by the acked segments. Returns
    /// the acked segments left for congestion avoidance, or None when slow start used them all.
    pub fn leftover_after_slow_start(&mut self, acked: u32) -> Option<u32> {
        if !self.in_slow_start() {
            return Some(acked);
        }
        match self.slow_start(acked) {
            0 => None,
            left => Some(left),
        }
    }

    /// Grows cwnd by the acked segments without passing ssthresh; returns the acked segments left
    /// over for congestion avoidance. As Linux's `tcp_slow_start`, the leftover is counted before
    /// the clamp cuts cwnd back.
    pub fn slow_start(&mut self, acked: u32) -> u32 {
        let grown = self.cwnd.saturating_add(acked).min(self.ssthresh);
        let used = grown - self.cwnd;
        self.cwnd = grown.min(self.clamp);
        acked - used
    }

    /// Additive increase: one segment per `w` acked segments.
    pub fn additive_increase(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        if self.credit >= w {
            self.credit = 0;
            self.cwnd = self.cwnd.saturating_add(1);
        }
        self.credit = self.credit.saturating_add(acked);
        if self.credit >= w {
            let delta = self.credit / w;
            self.credit -= delta * w;
            self.cwnd = self.cwnd.saturating_add(delta);
        }
        // Linux `tcp_cong_avoid_ai`: growth stops at snd_cwnd_clamp.
        self.cwnd = self.cwnd.min(self.clamp);
    }

    /// Linux `tcp_reno_cong_avoid` without the cwnd-limited check: slow start up to ssthresh,
    /// then one segment per cwnd acked segments.
    pub fn reno_increase(&mut self, acked: u32) {
        let mut acked = acked;
        if self.in_slow_start() {
            acked = self.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        let cwnd = self.cwnd;
        self.additive_increase(cwnd, acked);
    }

    /// Applies a reduction: ssthresh (at least 2 segments), then cwnd = ssthresh, or the loss
    /// window of 1 segment after a timeout.
    pub fn reduce(&mut self, ssthresh: u32, kind: super::CongestionKind) {
        self.ssthresh = ssthresh.max(2);
        self.credit = 0;
        self.cwnd = match kind {
            super::CongestionKind::Timeout => 1,
            super::CongestionKind::FastRetransmit | super::CongestionKind::Ecn => self.ssthresh,
        };
    }

    /// The state name every Reno-like algorithm reports.
    pub fn state_name(&self) -> &'static str {
        if self.in_slow_start() {
            "slow_start"
        } else {
            "congestion_avoidance"
        }
    }

    pub fn cwnd_bytes(&self) -> u64 {
        self.cwnd as u64 * self.mss
    }

    pub fn ssthresh_bytes(&self) -> u64 {
        if self.ssthresh >= INFINITE_SSTHRESH {
            u64::MAX
        } else {
            self.ssthresh as u64 * self.mss
        }
    }
}

/// A congestion window counted in bytes, with RFC 5681's per-ACK rules (what ns-2's NewReno
/// agent does); the same method names as [`SegmentWindow`] so the output macros serve both.
#[derive(Clone, Copy, Debug)]
pub struct ByteWindow {
    pub mss: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
    /// The largest cwnd growth may reach, in bytes (the `cwnd_clamp` option).
    pub clamp: u64,
}

impl ByteWindow {
    pub fn new(mss: u64, initial_window_segments: u32) -> Self {
        Self { mss, cwnd: initial_window_segments.max(1) as u64 * mss, ssthresh: u64::MAX, clamp: u64::MAX }
    }

    /// The window a connection starts with: its initial window and initial ssthresh.
    pub fn for_connection(info: &crate::cc::ConnectionInfo) -> Self {
        let mut window = Self::new(info.mss, info.initial_window_segments);
        if let Some(ssthresh) = info.initial_ssthresh_segments {
            window.ssthresh = ssthresh.max(2) as u64 * info.mss;
        }
        if let Some(clamp) = info.cwnd_clamp_segments {
            window.clamp = clamp.max(1) as u64 * info.mss;
            window.cwnd = window.cwnd.min(window.clamp);
        }
        window
    }

    /// Restores cwnd and ssthresh after a spurious reduction (Linux `tcp_reno_undo_cwnd`).
    pub fn undo(&mut self, prior_cwnd: u64, prior_ssthresh: u64) {
        self.cwnd = self.cwnd.max(prior_cwnd);
        self.ssthresh = self.ssthresh.max(prior_ssthresh);
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// RFC 5681 (with RFC 3465's L = `abc_limit` segments): slow start adds min(acked, L SMSS) per
    /// ACK, congestion avoidance SMSS^2 / cwnd (at least one byte).
    pub fn rfc5681_increase(&mut self, acked_bytes: u64, abc_limit: u64) {
        if self.in_slow_start() {
            let step = acked_bytes.min(abc_limit * self.mss);
            self.cwnd = (self.cwnd + step).min(self.ssthresh.max(self.cwnd));
        } else {
            self.cwnd += (self.mss * self.mss / self.cwnd).max(1);
        }
        self.cwnd = self.cwnd.min(self.clamp);
    }

    /// Sets ssthresh (at least 2 SMSS) and cwnd = ssthresh, or 1 SMSS after a timeout.
    pub fn reduce(&mut self, ssthresh: u64, kind: super::CongestionKind) {
        self.ssthresh = ssthresh.max(2 * self.mss);
        self.cwnd = match kind {
            super::CongestionKind::Timeout => self.mss,
            super::CongestionKind::FastRetransmit | super::CongestionKind::Ecn => self.ssthresh,
        };
    }

    pub fn state_name(&self) -> &'static str {
        if self.in_slow_start() {
            "slow_start"
        } else {
            "congestion_avoidance"
        }
    }

    pub fn cwnd_bytes(&self) -> u64 {
        self.cwnd
    }

    pub fn ssthresh_bytes(&self) -> u64 {
        self.ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_leftover() {
        let mut w = SegmentWindow::new(1000, 10);
        w.ssthresh = 12;
        assert_eq!(w.slow_start(5), 3);
        assert_eq!(w.cwnd, 12);
        assert!(!w.in_slow_start());
    }

    #[test]
    fn leftover_after_slow_start_is_none_only_when_slow_start_used_every_ack() {
        let mut w = SegmentWindow::new(1000, 10);
        w.ssthresh = 12;
        assert_eq!(w.leftover_after_slow_start(1), None);
        assert_eq!(w.leftover_after_slow_start(3), Some(2), "11 -> 12, two left");
        assert_eq!(w.leftover_after_slow_start(4), Some(4), "in avoidance every ACK is left over");
        assert_eq!(w.cwnd, 12);
    }

    #[test]
    fn additive_increase_adds_one_segment_per_window_of_acks() {
        let mut w = SegmentWindow::new(1000, 10);
        for _ in 0..9 {
            w.additive_increase(10, 1);
        }
        assert_eq!(w.cwnd, 10);
        w.additive_increase(10, 1);
        assert_eq!(w.cwnd, 11);
        assert_eq!(w.credit, 0);
        // A stretch ACK of 25 segments at w = 11 adds two segments and keeps 3 as credit.
        w.additive_increase(11, 25);
        assert_eq!((w.cwnd, w.credit), (13, 3));
    }
}
