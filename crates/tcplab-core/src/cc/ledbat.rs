//! `ledbat`: Low Extra Delay Background Transport (RFC 6817, Shalunov, Hazel, Iyengar and
//! Kuehlewind, 2012), with ns-3 3.44's TcpLedbat (src/internet/model/tcp-ledbat.cc) for what the
//! RFC leaves to the implementation.
//!
//! LEDBAT keeps the queueing delay it adds near TARGET: per ACK, queuing_delay = FILTER(recent
//! one-way delays) - MIN(base delays), off_target = (TARGET - queuing_delay) / TARGET and
//! cwnd += GAIN * off_target * bytes_newly_acked * MSS / cwnd (RFC 6817 §2.4.2), so the window
//! grows like Reno's at most and shrinks as soon as the delay passes TARGET; then
//! cwnd <= flightsize + ALLOWED_INCREASE * MSS and cwnd >= MIN_CWND * MSS. A loss halves cwnd
//! (at least MIN_CWND); a timeout leaves one segment.
//!
//! The one-way delay is the TCP timestamp difference the ACK carries (`AckEvent::one_way_delay`,
//! the receiver's TSval minus the echoed TSecr), as ns-3's TcpLedbat reads it; the simulator's
//! single clock means no offset, and the base delay removes the constant part anyway. Without
//! timestamps there is no sample and growth is Reno's (off_target taken as 1), as ns-3 falls back
//! to TcpNewReno. Decisions the RFC leaves open, as ns-3: FILTER is the minimum of the last
//! CURRENT_FILTER samples; slow start (ns-3's `SSParam`, on by default) runs until ssthresh and
//! again after a timeout. Where tcplab keeps the RFC instead of ns-3: base-delay buckets roll over
//! on each new minute of simulated time and keep BASE_HISTORY entries (ns-3 keeps one fewer of each
//! list and rolls over after 61 whole seconds); the cap allows ALLOWED_INCREASE = 1 segment above
//! the flight (ns-3 caps at the flight, `allowed_increase = 0`); delays are exact nanoseconds
//! (ns-3's timestamps are whole milliseconds); the window is kept in fractional bytes (ns-3
//! truncates each step to whole bytes). docs/algorithms/ledbat.md lists the ns-3 parameter set.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::MAX_CWND_SEGMENTS;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec,
};
use crate::time::{SimDuration, SimTime, NANOS_PER_MILLI, NANOS_PER_SEC};
use crate::units::Duration;

/// Base delays are minima over one-minute buckets (RFC 6817 §2.4.2 `update_base_delay`).
const BUCKET: SimDuration = 60 * NANOS_PER_SEC;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LedbatConfig {
    /// Queueing delay LEDBAT aims to add (RFC 6817 TARGET; at most 100 ms by the RFC).
    pub target: Duration,
    /// Window change per RTT at full off-target, in segments (RFC GAIN, at most 1).
    pub gain: f64,
    /// One-minute buckets whose minima make the base delay (RFC BASE_HISTORY).
    pub base_history: u32,
    /// Recent delay samples whose minimum is the current delay (RFC CURRENT_FILTER).
    pub current_filter: u32,
    /// Segments cwnd may exceed the flight before the ACK by (RFC ALLOWED_INCREASE).
    pub allowed_increase: u32,
    /// Smallest window in segments (RFC MIN_CWND).
    pub min_cwnd: u32,
    /// Slow start until ssthresh at the start and after a timeout (ns-3's `SSParam`).
    pub slow_start: bool,
}

impl Default for LedbatConfig {
    fn default() -> Self {
        Self {
            target: Duration(100 * NANOS_PER_MILLI),
            gain: 1.0,
            base_history: 10,
            current_filter: 4,
            allowed_increase: 1,
            min_cwnd: 2,
            slow_start: true,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "target",
        kind: ParamKind::Duration { min: NANOS_PER_MILLI, max: 10 * NANOS_PER_SEC },
        unit: "time",
        description: "queueing delay to aim for (RFC 6817 TARGET; the RFC requires at most 100 ms)",
    },
    ParamSpec {
        name: "gain",
        kind: ParamKind::Float { min: 0.001, max: 10.0 },
        unit: "segments per RTT",
        description: "window change per RTT at full off-target (RFC GAIN; the RFC requires at most 1)",
    },
    ParamSpec {
        name: "base_history",
        kind: ParamKind::Integer { min: 1, max: 1000 },
        unit: "minutes",
        description: "one-minute minima the base delay is the minimum of (RFC BASE_HISTORY)",
    },
    ParamSpec {
        name: "current_filter",
        kind: ParamKind::Integer { min: 1, max: 1000 },
        unit: "samples",
        description: "latest delay samples the current delay is the minimum of (RFC CURRENT_FILTER)",
    },
    ParamSpec {
        name: "allowed_increase",
        kind: ParamKind::Integer { min: 0, max: 1000 },
        unit: "segments",
        description: "cwnd may exceed the flight before the ACK by this much (RFC ALLOWED_INCREASE; 0 is ns-3's cap)",
    },
    ParamSpec {
        name: "min_cwnd",
        kind: ParamKind::Integer { min: 1, max: 1000 },
        unit: "segments",
        description: "smallest window (RFC MIN_CWND)",
    },
    ParamSpec {
        name: "slow_start",
        kind: ParamKind::Bool,
        unit: "",
        description: "slow start until ssthresh at the start and after a timeout (ns-3 SSParam)",
    },
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "ledbat",
    summary: "LEDBAT: a scavenger that keeps the one-way queueing delay it adds near 100 ms and yields to TCP",
    source: "RFC 6817; ns-3 3.44 tcp-ledbat.cc for the filter and slow start",
    params: PARAMS,
    defaults: defaults_of::<LedbatConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: LedbatConfig = parse_params("ledbat", PARAMS, params)?;
        Ok(Box::new(Ledbat::new(config, info)))
    },
};

pub struct Ledbat {
    config: LedbatConfig,
    mss: u64,
    /// Congestion window in bytes, fractional: a step of GAIN * MSS^2 / cwnd is a few bytes on a
    /// large window and would vanish if truncated.
    pub(crate) cwnd: f64,
    /// The largest window, bytes: the `cwnd_clamp` option, else Linux's u32 count of segments.
    max_cwnd: f64,
    ssthresh: u64,
    slow_starting: bool,
    /// One minimum per minute bucket, oldest first; u64::MAX for a bucket without a sample.
    pub(crate) base_delays: VecDeque<SimDuration>,
    /// The bucket (minutes of simulated time) the last base delay belongs to.
    last_bucket: Option<u64>,
    /// The latest delay samples, oldest first; u64::MAX before there are enough.
    current_delays: VecDeque<SimDuration>,
}

impl Ledbat {
    pub fn new(config: LedbatConfig, info: ConnectionInfo) -> Self {
        let ssthresh = info.initial_ssthresh_segments.map_or(u64::MAX, |s| s.max(2) as u64 * info.mss);
        Self {
            mss: info.mss,
            cwnd: (info.initial_window_segments.max(1) as u64 * info.mss) as f64,
            max_cwnd: info.cwnd_clamp_segments.unwrap_or(MAX_CWND_SEGMENTS) as f64 * info.mss as f64,
            ssthresh,
            slow_starting: config.slow_start,
            base_delays: VecDeque::from(vec![u64::MAX; config.base_history as usize]),
            last_bucket: None,
            current_delays: VecDeque::from(vec![u64::MAX; config.current_filter as usize]),
            config,
        }
    }

    /// RFC 6817 `update_base_delay`: a sample in a new minute starts a bucket (the oldest is
    /// forgotten), otherwise it lowers the newest bucket's minimum.
    pub(crate) fn update_base_delay(&mut self, now: SimTime, delay: SimDuration) {
        let bucket = now / BUCKET;
        if self.last_bucket != Some(bucket) {
            self.last_bucket = Some(bucket);
            self.base_delays.pop_front();
            self.base_delays.push_back(delay);
        } else if let Some(newest) = self.base_delays.back_mut() {
            *newest = (*newest).min(delay);
        }
    }

    /// RFC 6817 `update_current_delay`: keep the latest CURRENT_FILTER samples.
    pub(crate) fn update_current_delay(&mut self, delay: SimDuration) {
        self.current_delays.pop_front();
        self.current_delays.push_back(delay);
    }

    pub(crate) fn base_delay(&self) -> Option<SimDuration> {
        self.base_delays.iter().copied().min().filter(|&d| d != u64::MAX)
    }

    /// FILTER(current_delays): the minimum (ns-3's filter), which discards delay spikes.
    pub(crate) fn current_delay(&self) -> Option<SimDuration> {
        self.current_delays.iter().copied().min().filter(|&d| d != u64::MAX)
    }

    /// Queueing delay estimate in nanoseconds, once there is a sample.
    pub(crate) fn queuing_delay(&self) -> Option<SimDuration> {
        Some(self.current_delay()?.saturating_sub(self.base_delay()?))
    }

    /// (TARGET - queuing_delay) / TARGET: 1 with an empty queue, 0 at TARGET, negative above.
    pub(crate) fn off_target(&self) -> f64 {
        match self.queuing_delay() {
            Some(delay) => {
                let target = self.config.target.nanos() as f64;
                (target - delay as f64) / target
            }
            None => 1.0,
        }
    }

    /// RFC 6817 §2.4.2 per-ACK update in congestion avoidance; `flight_before` is the
    /// flightsize before this ACK, in bytes.
    pub(crate) fn delay_based_update(&mut self, acked_bytes: u64, flight_before: u64) {
        let mss = self.mss as f64;
        self.cwnd += self.config.gain * self.off_target() * acked_bytes as f64 * mss / self.cwnd;
        let max_allowed = (flight_before + self.config.allowed_increase as u64 * self.mss) as f64;
        self.cwnd = self.cwnd.min(max_allowed).min(self.max_cwnd).max(self.config.min_cwnd as f64 * mss);
    }
}

impl CongestionControl for Ledbat {
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(delay) = ack.one_way_delay {
            self.update_base_delay(ack.now, delay);
            self.update_current_delay(delay);
        }
        if !ack.may_raise_cwnd() || ack.acked_bytes == 0 {
            return;
        }
        if self.slow_starting {
            // RFC 5681 as Linux: add the acknowledged bytes, not past ssthresh.
            self.cwnd = (self.cwnd + ack.acked_bytes as f64).min(self.ssthresh as f64).min(self.max_cwnd);
            if self.cwnd >= self.ssthresh as f64 {
                self.slow_starting = false;
            }
            return;
        }
        self.delay_based_update(ack.acked_bytes, ack.bytes_in_flight_before);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let min_cwnd = (self.config.min_cwnd as u64 * self.mss) as f64;
        // RFC 6817 §2.4.2: cwnd = min(cwnd, max(cwnd / 2, MIN_CWND * MSS)), once per RTT (the
        // sender reports one event per recovery episode).
        let halved = self.cwnd.min((self.cwnd / 2.0).max(min_cwnd));
        self.ssthresh = (halved as u64).max(2 * self.mss);
        match event.kind {
            CongestionKind::FastRetransmit | CongestionKind::Ecn => {
                self.cwnd = halved;
                self.slow_starting = false;
            }
            CongestionKind::Timeout => {
                // As TCP: one segment, then slow start again if enabled (ns-3 re-enables it
                // whenever cwnd is at most one segment).
                self.cwnd = self.mss as f64;
                self.slow_starting = self.config.slow_start;
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.cwnd = self.cwnd.min(self.ssthresh as f64);
    }

    fn undo_reduction(&mut self, _now: SimTime, prior_cwnd: u64, prior_ssthresh: u64) {
        self.cwnd = self.cwnd.max(prior_cwnd as f64).min(self.max_cwnd);
        self.ssthresh = self.ssthresh.max(prior_ssthresh);
    }

    fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn state_name(&self) -> &'static str {
        if self.slow_starting {
            "slow_start"
        } else {
            "congestion_avoidance"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MILLI as MS;

    const MSS: u64 = 1000;

    fn ledbat(config: LedbatConfig) -> Ledbat {
        Ledbat::new(config, ConnectionInfo::new(MSS, 10, 1))
    }

    /// A LEDBAT in congestion avoidance at `cwnd` segments whose base delay is 50 ms and whose
    /// latest samples put the queueing delay at `queuing_ms`.
    fn at_delay(cwnd: u64, queuing_ms: u64) -> Ledbat {
        let mut l = ledbat(LedbatConfig { slow_start: false, ..LedbatConfig::default() });
        l.cwnd = (cwnd * MSS) as f64;
        l.update_base_delay(0, 50 * MS);
        for _ in 0..4 {
            l.update_current_delay((50 + queuing_ms) * MS);
        }
        l
    }

    #[test]
    fn window_moves_by_gain_times_off_target_per_acked_segment() {
        // Delay 25 ms against the 100 ms target: off_target = (100 - 25) / 100 = 0.75, and one MSS
        // acked at cwnd 20 segments adds 0.75 * MSS * MSS / (20 MSS) = 0.75 / 20 segment = 37.5 B.
        let mut l = at_delay(20, 25);
        assert_eq!(l.queuing_delay(), Some(25 * MS));
        l.delay_based_update(MSS, 20 * MSS);
        assert!((l.cwnd - (20_000.0 + 37.5)).abs() < 1e-9, "{}", l.cwnd);
        // Delay 150 ms: off_target = (100 - 150) / 100 = -0.5, so -0.5 / 20 segment = -25 B.
        let mut l = at_delay(20, 150);
        l.delay_based_update(MSS, 20 * MSS);
        assert!((l.cwnd - (20_000.0 - 25.0)).abs() < 1e-9, "{}", l.cwnd);
        // At the target the window holds.
        let mut l = at_delay(20, 100);
        l.delay_based_update(MSS, 20 * MSS);
        assert_eq!(l.cwnd, 20_000.0);
    }

    #[test]
    fn the_window_stays_within_flight_plus_allowed_increase_and_above_min_cwnd() {
        // 10 segments in flight before the ACK: cwnd 20 is cut to 10 + 1 = 11 segments.
        let mut l = at_delay(20, 25);
        l.delay_based_update(MSS, 10 * MSS);
        assert_eq!(l.cwnd, 11_000.0);
        // ns-3's cap (allowed_increase = 0) holds cwnd at the flight: no growth past it.
        let mut l = at_delay(20, 0);
        l.config.allowed_increase = 0;
        l.delay_based_update(2 * MSS, 20 * MSS);
        assert_eq!(l.cwnd, 20_000.0);
        // A delay of 10 s at 2 segments would go far below; MIN_CWND = 2 holds it.
        let mut l = at_delay(2, 10_000);
        l.delay_based_update(MSS, 2 * MSS);
        assert_eq!(l.cwnd, 2_000.0);
    }

    #[test]
    fn base_delay_is_the_minimum_of_the_last_ten_one_minute_buckets() {
        let mut l = ledbat(LedbatConfig::default());
        // Minute 0: 50 ms, then 40 ms in the same minute lowers that bucket to 40 ms.
        l.update_base_delay(0, 50 * MS);
        l.update_base_delay(30 * NANOS_PER_SEC, 40 * MS);
        assert_eq!(l.base_delay(), Some(40 * MS));
        assert_eq!(l.base_delays.iter().filter(|&&d| d != u64::MAX).count(), 1);
        // Minutes 1 to 9 see only 60 ms: ten buckets, the 40 ms one still among them.
        for minute in 1..=9 {
            l.update_base_delay(minute * BUCKET + 1, 60 * MS);
        }
        assert_eq!(l.base_delay(), Some(40 * MS));
        // Minute 10 rolls minute 0 out: the base delay rises to 60 ms.
        l.update_base_delay(10 * BUCKET, 60 * MS);
        assert_eq!(l.base_delay(), Some(60 * MS));
        // A lower sample takes effect at once (a route change to a shorter path).
        l.update_base_delay(10 * BUCKET + 5, 30 * MS);
        assert_eq!(l.base_delay(), Some(30 * MS));
    }

    #[test]
    fn current_delay_is_the_minimum_of_the_last_four_samples() {
        let mut l = ledbat(LedbatConfig::default());
        assert_eq!(l.current_delay(), None);
        for d in [80, 60, 90, 95] {
            l.update_current_delay(d * MS);
        }
        assert_eq!(l.current_delay(), Some(60 * MS));
        // 100 pushes 80 out: the window is 60, 90, 95, 100.
        l.update_current_delay(100 * MS);
        assert_eq!(l.current_delay(), Some(60 * MS));
        // 110 pushes 60 out: 90, 95, 100, 110. One spike never moves the minimum up alone.
        l.update_current_delay(110 * MS);
        assert_eq!(l.current_delay(), Some(90 * MS));
    }

    #[test]
    fn loss_halves_down_to_min_cwnd_and_a_timeout_restarts_slow_start() {
        let event = |kind| CongestionEvent { now: 0, kind, bytes_in_flight: 0, snd_nxt: 0 };
        let mut l = at_delay(20, 0);
        l.on_congestion_event(&event(CongestionKind::FastRetransmit));
        assert_eq!((l.cwnd(), l.ssthresh()), (10_000, 10_000));
        // cwnd 3: max(1.5, 2) = 2 segments.
        let mut l = at_delay(3, 0);
        l.on_congestion_event(&event(CongestionKind::FastRetransmit));
        assert_eq!(l.cwnd(), 2_000);
        let mut l = ledbat(LedbatConfig::default());
        l.cwnd = 40_000.0;
        l.slow_starting = false;
        l.on_congestion_event(&event(CongestionKind::Timeout));
        assert_eq!((l.cwnd(), l.ssthresh(), l.state_name()), (1_000, 20_000, "slow_start"));
    }

    #[test]
    fn without_timestamps_growth_is_renos() {
        // No delay sample: off_target = 1, one segment per window of acknowledged bytes.
        let mut l = ledbat(LedbatConfig { slow_start: false, ..LedbatConfig::default() });
        l.delay_based_update(MSS, 20 * MSS);
        assert!((l.cwnd - 10_100.0).abs() < 1e-9, "{}", l.cwnd);
    }
}
