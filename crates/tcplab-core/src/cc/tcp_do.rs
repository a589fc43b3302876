//! `tcp_do`: TCP-do, congestion control from the frequency of RTT oscillations
//! (papers/tcp-do.txt), on NewReno's window rules (the paper's ns-3 setting).
//!
//! Followed from the paper (Algorithm 1, section III): on every ACK an RTT that differs from the
//! previous one by more than 0.01 ms counts as an oscillation; every 100 ms the frequency is
//! osc_cnt / 100 (oscillations per millisecond) and the count restarts. A window whose frequency
//! exceeds the congestion threshold is congested: cwnd is multiplied by
//! reductionFactor = max(0.7, 1 - 0.1 severity) (1). After congestion subsides the threshold is
//! raised by recoveryFactor = min(1.5, 1 + 0.2 severity) (2); while calm, cwnd grows by 7 segments
//! and the threshold falls by 2%.
//!
//! Decisions the paper leaves open (docs/algorithms/tcp_do.md), most of them a parameter:
//! - severity = frequency / threshold (the paper: "the ratio of oscillation frequency to the
//!   congestion threshold"), so a just-congested window cuts cwnd to 0.9 and severity >= 3 to 0.7;
//! - the starting threshold is 1.0 oscillation per ms; the threshold stays within [0.5, 4] x that;
//! - the weighted average of recent RTTs is over the last 8 samples with weights 1..8 (newest
//!   heaviest); a window counts as congested only if it also exceeds the minimum RTT by
//!   `rtt_rise` (default 0: any queue), so jitter on an empty path does not cut the window;
//! - "+7 segments" is per RTT while calm (`calm_increase_per = "rtt"`, the default: 7 x the
//!   acknowledged fraction of cwnd on every ACK, so 7 segments per window of data), the "more
//!   aggressive" growth the paper describes; `"window"` adds them once per 100 ms window, which at
//!   the paper's 4 ms RTT is 0.28 segments per RTT, little more than NewReno. "-2%" applies once
//!   per calm window; the raised threshold applies from the first calm window after a congested
//!   one and decays by the 2% steps;
//! - a reduction sets ssthresh to the reduced cwnd as well (the paper names only cwnd), so the
//!   flow goes on in congestion avoidance instead of slow-starting back over the cut;
//! - between windows cwnd follows NewReno (RFC 5681 per-ACK growth); losses are NewReno's.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::ByteWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, ConnectionInfo, ParamKind,
    ParamSpec,
};
use crate::time::{SimDuration, SimTime, NANOS_PER_MILLI, NANOS_PER_SEC};
use crate::units::Duration;

/// What the calm increase is counted per (the paper: "7 segments", without the unit of time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CalmIncreasePer {
    /// Per RTT: on every ACK, the increase times the acknowledged fraction of cwnd.
    Rtt,
    /// Once per frequency window (100 ms).
    Window,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TcpDoConfig {
    /// RTT changes larger than this count as oscillations.
    pub oscillation_delta: Duration,
    pub window: Duration,
    /// Congestion threshold at the start, oscillations per millisecond.
    pub initial_threshold: f64,
    /// Segments added while calm, per RTT or per window (`calm_increase_per`).
    pub calm_increase: u32,
    pub calm_increase_per: CalmIncreasePer,
    /// Threshold multiplier per calm window (the paper's -2%).
    pub calm_threshold_factor: f64,
    /// Samples in the weighted RTT average.
    pub rtt_history: u32,
    /// The weighted average must exceed the minimum RTT by this fraction for congestion.
    pub rtt_rise: f64,
}

impl Default for TcpDoConfig {
    fn default() -> Self {
        Self {
            oscillation_delta: Duration(10_000),
            window: Duration(100 * NANOS_PER_MILLI),
            initial_threshold: 1.0,
            calm_increase: 7,
            calm_increase_per: CalmIncreasePer::Rtt,
            calm_threshold_factor: 0.98,
            rtt_history: 8,
            rtt_rise: 0.0,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "oscillation_delta",
        kind: ParamKind::Duration { min: 1, max: NANOS_PER_SEC },
        unit: "time",
        description: "RTT changes above this are oscillations (paper: 0.01 ms)",
    },
    ParamSpec {
        name: "window",
        kind: ParamKind::Duration { min: NANOS_PER_MILLI, max: 10 * NANOS_PER_SEC },
        unit: "time",
        description: "frequency window (paper: 100 ms)",
    },
    ParamSpec {
        name: "initial_threshold",
        kind: ParamKind::Float { min: 0.001, max: 1000.0 },
        unit: "oscillations/ms",
        description: "congestion threshold at the start",
    },
    ParamSpec {
        name: "calm_increase",
        kind: ParamKind::Integer { min: 0, max: 1000 },
        unit: "segments",
        description: "cwnd increase while calm (paper: 7)",
    },
    ParamSpec {
        name: "calm_increase_per",
        kind: ParamKind::Choice { allowed: &["rtt", "window"] },
        unit: "",
        description: "the calm increase is per RTT (ACK-clocked) or once per 100 ms window",
    },
    ParamSpec {
        name: "calm_threshold_factor",
        kind: ParamKind::Float { min: 0.5, max: 1.0 },
        unit: "",
        description: "threshold multiplier per calm window (paper: 0.98)",
    },
    ParamSpec {
        name: "rtt_history",
        kind: ParamKind::Integer { min: 1, max: 1000 },
        unit: "samples",
        description: "samples in the weighted RTT average",
    },
    ParamSpec {
        name: "rtt_rise",
        kind: ParamKind::Float { min: 0.0, max: 10.0 },
        unit: "",
        description: "weighted RTT must exceed min RTT by this fraction to count as congestion",
    },
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "tcp_do",
    summary: "TCP-do: cut cwnd when the frequency of RTT oscillations exceeds an adaptive threshold",
    source: "papers/tcp-do.txt (Algorithm 1, equations 1 and 2); NewReno window rules between windows",
    params: PARAMS,
    defaults: defaults_of::<TcpDoConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: TcpDoConfig = parse_params("tcp_do", PARAMS, params)?;
        Ok(Box::new(TcpDo::new(config, info)))
    },
};

/// Equation (1): the cwnd multiplier for a congested window of the given severity.
pub fn reduction_factor(severity: f64) -> f64 {
    (1.0 - severity * 0.1).max(0.7)
}

/// Equation (2): the threshold multiplier once congestion of the given severity subsides.
pub fn recovery_factor(severity: f64) -> f64 {
    (1.0 + severity * 0.2).min(1.5)
}

/// Bounds of the adaptive threshold, relative to its starting value.
const THRESHOLD_RANGE: (f64, f64) = (0.5, 4.0);

pub struct TcpDo {
    config: TcpDoConfig,
    window: ByteWindow,
    last_rtt: Option<SimDuration>,
    oscillations: u64,
    window_start: Option<SimTime>,
    /// Oscillations per millisecond in the last complete window.
    pub(crate) frequency: f64,
    pub(crate) threshold: f64,
    history: VecDeque<SimDuration>,
    min_rtt: Option<SimDuration>,
    /// Severity of the congestion still to be recovered from (raises the threshold when calm).
    pending_recovery: Option<f64>,
    pub(crate) congested: bool,
    pending_event: Option<&'static str>,
}

impl TcpDo {
    pub fn new(config: TcpDoConfig, info: ConnectionInfo) -> Self {
        Self {
            threshold: config.initial_threshold,
            config,
            window: ByteWindow::for_connection(&info),
            last_rtt: None,
            oscillations: 0,
            window_start: None,
            frequency: 0.0,
            history: VecDeque::new(),
            min_rtt: None,
            pending_recovery: None,
            congested: false,
            pending_event: None,
        }
    }

    /// The weighted average of the recent RTT samples, weights 1..n with the newest heaviest.
    pub fn weighted_rtt(&self) -> Option<f64> {
        let n = self.history.len();
        if n == 0 {
            return None;
        }
        let weights: f64 = (1..=n).map(|w| w as f64).sum();
        Some(self.history.iter().enumerate().map(|(i, &r)| (i + 1) as f64 * r as f64).sum::<f64>() / weights)
    }

    fn clamp_threshold(&mut self) {
        let base = self.config.initial_threshold;
        self.threshold = self.threshold.clamp(base * THRESHOLD_RANGE.0, base * THRESHOLD_RANGE.1);
    }

    /// Algorithm 1, lines 2-5 and 9: count an oscillation, keep the RTT history.
    pub fn observe_rtt(&mut self, rtt: SimDuration) {
        if let Some(last) = self.last_rtt {
            if rtt.abs_diff(last) > self.config.oscillation_delta.nanos() {
                self.oscillations += 1;
            }
        }
        self.last_rtt = Some(rtt);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.history.push_back(rtt);
        while self.history.len() > self.config.rtt_history as usize {
            self.history.pop_front();
        }
    }

    /// Algorithm 1, lines 6-12, at the end of a window: frequency, congestion, reaction.
    fn close_window(&mut self, elapsed: SimDuration) {
        // osc_cnt / 100 for a 100 ms window: oscillations per millisecond.
        self.frequency = self.oscillations as f64 / (elapsed as f64 / NANOS_PER_MILLI as f64);
        self.oscillations = 0;
        let queueing = match (self.weighted_rtt(), self.min_rtt) {
            (Some(w), Some(min)) => w > min as f64 * (1.0 + self.config.rtt_rise),
            _ => false,
        };
        self.congested = self.frequency > self.threshold && queueing;
        if self.congested {
            let severity = self.frequency / self.threshold;
            let reduced = (self.window.cwnd as f64 * reduction_factor(severity)) as u64;
            self.window.cwnd = reduced.max(2 * self.window.mss);
            self.window.ssthresh = self.window.cwnd;
            self.pending_recovery = Some(self.pending_recovery.map_or(severity, |s: f64| s.max(severity)));
            self.pending_event = Some("tcpdo_reduction");
        } else {
            if let Some(severity) = self.pending_recovery.take() {
                self.threshold *= recovery_factor(severity);
            }
            self.threshold *= self.config.calm_threshold_factor;
            if self.config.calm_increase_per == CalmIncreasePer::Window {
                self.window.cwnd += self.config.calm_increase as u64 * self.window.mss;
            }
        }
        self.clamp_threshold();
    }
}

impl CongestionControl for TcpDo {
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(rtt) = ack.rtt_sample {
            self.observe_rtt(rtt);
        }
        let start = *self.window_start.get_or_insert(ack.now);
        if ack.now - start >= self.config.window.nanos() {
            self.window_start = Some(ack.now);
            if ack.in_recovery {
                self.oscillations = 0;
            } else {
                self.close_window(ack.now - start);
            }
        }
        // NewReno growth between windows, plus the calm increase when it is per RTT.
        if ack.may_raise_cwnd() && ack.acked_bytes > 0 {
            self.window.rfc5681_increase(ack.acked_bytes, 1);
            if self.config.calm_increase_per == CalmIncreasePer::Rtt && !self.congested {
                let per_rtt = self.config.calm_increase as u64 * self.window.mss;
                self.window.cwnd +=
                    (per_rtt as u128 * ack.acked_bytes as u128 / self.window.cwnd.max(1) as u128) as u64;
            }
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.window.reduce(event.bytes_in_flight / 2, event.kind);
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.window.cwnd = self.window.ssthresh;
    }

    fn cwnd(&self) -> u64 {
        self.window.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.window.ssthresh
    }

    fn state_name(&self) -> &'static str {
        match (self.congested, self.window.in_slow_start()) {
            (true, _) => "congested",
            (false, true) => "slow_start",
            (false, false) => "calm",
        }
    }

    fn take_event(&mut self) -> Option<&'static str> {
        self.pending_event.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MICRO as US;

    fn tcp_do() -> TcpDo {
        TcpDo::new(TcpDoConfig::default(), ConnectionInfo::new(1000, 10, 1))
    }

    #[test]
    fn reduction_and_recovery_factors_at_severities_1_3_10() {
        for (severity, reduction, recovery) in [(1.0, 0.9, 1.2), (3.0, 0.7, 1.5), (10.0, 0.7, 1.5)] {
            assert!((reduction_factor(severity) - reduction).abs() < 1e-12, "severity {severity}");
            assert!((recovery_factor(severity) - recovery).abs() < 1e-12, "severity {severity}");
        }
    }

    #[test]
    fn only_changes_above_a_hundredth_of_a_millisecond_count() {
        let mut d = tcp_do();
        for rtt_us in [1000, 1005, 1004, 1020, 1020, 1000, 1011] {
            d.observe_rtt(rtt_us * US);
        }
        // Differences 5, 1, 16, 0, 20, 11 us: three above 10 us.
        assert_eq!(d.oscillations, 3);
    }

    #[test]
    fn a_congested_window_cuts_cwnd_by_severity_then_calm_windows_recover() {
        let mut d = tcp_do();
        d.window.cwnd = 100_000;
        d.window.ssthresh = 50_000;
        // 300 oscillations in 100 ms = 3 per ms, threshold 1: severity 3, cwnd x 0.7.
        d.history = VecDeque::from(vec![1000 * US, 1500 * US]);
        d.min_rtt = Some(1000 * US);
        d.oscillations = 300;
        d.close_window(100 * NANOS_PER_MILLI);
        assert!((d.frequency - 3.0).abs() < 1e-12);
        assert_eq!(d.window.cwnd, 70_000);
        assert!(d.congested);
        // The next calm window: threshold x 1.5 (recovery) x 0.98 (calm). Per RTT (the default),
        // the calm increase comes with the ACKs: a window of 70 ACKed segments adds 7 segments
        // beyond NewReno's one.
        d.oscillations = 10;
        d.close_window(100 * NANOS_PER_MILLI);
        assert!((d.threshold - 1.47).abs() < 1e-12, "{}", d.threshold);
        assert_eq!(d.window.cwnd, 70_000);
        d.window.ssthresh = 70_000;
        for _ in 0..70 {
            d.on_ack(&AckEvent { acked_bytes: 1000, acked_segments: 1, snd_una_advanced: true, ..AckEvent::default() });
        }
        let segments = d.window.cwnd as f64 / 1000.0;
        assert!((77.5..78.5).contains(&segments), "{segments} segments: 70 + about 1 (NewReno) + 7");
        // Per window: 7 segments at once when the window closes.
        let mut per_window = TcpDo::new(
            TcpDoConfig { calm_increase_per: CalmIncreasePer::Window, ..TcpDoConfig::default() },
            ConnectionInfo::new(1000, 10, 1),
        );
        per_window.window.cwnd = 70_000;
        per_window.history = VecDeque::from(vec![1000 * US]);
        per_window.min_rtt = Some(1000 * US);
        per_window.close_window(100 * NANOS_PER_MILLI);
        assert_eq!(per_window.window.cwnd, 77_000);
        // Pure jitter on an empty path (RTT at its minimum) is not congestion.
        let mut quiet = tcp_do();
        quiet.history = VecDeque::from(vec![1000 * US]);
        quiet.min_rtt = Some(1000 * US);
        quiet.oscillations = 1000;
        quiet.close_window(100 * NANOS_PER_MILLI);
        assert!(!quiet.congested);
    }

    #[test]
    fn weighted_average_favours_recent_samples() {
        let mut d = tcp_do();
        for rtt in [10, 10, 10, 40] {
            d.observe_rtt(rtt * NANOS_PER_MILLI);
        }
        // (1 x 10 + 2 x 10 + 3 x 10 + 4 x 40) / 10 = 22 ms.
        assert!((d.weighted_rtt().unwrap() - 22.0 * NANOS_PER_MILLI as f64).abs() < 1.0);
    }
}
