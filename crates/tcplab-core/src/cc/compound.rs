//! `compound`: Compound TCP (Tan, Song, Zhang and Sridharan, "A Compound TCP approach for
//! high-speed and long distance networks", INFOCOM 2006).
//!
//! The window is win = cwnd + dwnd: cwnd is Reno's loss-based part (in congestion avoidance it
//! grows by 1 / win per acknowledged segment, i.e. one segment per RTT), dwnd a delay-based part
//! updated once per round from the backlog estimate diff = win (1 - baseRTT / RTT):
//!   diff < gamma:  dwnd += max(alpha win^k - 1, 0)
//!   diff >= gamma: dwnd = max(dwnd - zeta diff, 0)
//!   loss:          dwnd = max(win (1 - beta) - cwnd / 2, 0) and cwnd = cwnd / 2,
//!
//! so that a loss cuts win to (1 - beta) win. Defaults alpha = 1/8, beta = 1/2, k = 0.75,
//! gamma = 30 segments, zeta = 1.
//!
//! Decisions the paper leaves open (docs/algorithms/compound.md): RTT is the mean of the round's
//! samples; baseRTT the minimum ever; dwnd only grows in congestion avoidance (slow start is
//! Reno's); a timeout clears dwnd; neither part grows while the flow does not use its window
//! (`freeze_when_not_cwnd_limited`, as the Linux 2.6.22 module ns-2.35 runs, tcp_compound.c
//! `tcp_compound_cong_avoid`, returns unless `tcp_is_cwnd_limited`). Options from later versions: `low_window_rule` (no dwnd below
//! 38 segments) and `gamma_auto_tuning` (at each loss gamma = 3/4 of the backlog measured in the
//! last complete round, clipped to [5, 30], after the TUBE idea of tracking what Reno flows
//! would queue).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::{SegmentWindow, MAX_CWND_SEGMENTS};
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec,
};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompoundConfig {
    pub alpha: f64,
    pub beta: f64,
    pub k: f64,
    /// Backlog threshold in segments.
    pub gamma: f64,
    pub zeta: f64,
    pub low_window_rule: bool,
    pub gamma_auto_tuning: bool,
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for CompoundConfig {
    fn default() -> Self {
        Self {
            alpha: 0.125,
            beta: 0.5,
            k: 0.75,
            gamma: 30.0,
            zeta: 1.0,
            low_window_rule: false,
            gamma_auto_tuning: false,
            freeze_when_not_cwnd_limited: true,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "alpha",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        unit: "",
        description: "dwnd growth scale: alpha win^k - 1 per RTT",
    },
    ParamSpec {
        name: "beta",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        unit: "",
        description: "a loss cuts win to (1 - beta) win",
    },
    ParamSpec {
        name: "k",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        unit: "",
        description: "dwnd growth exponent (at most 1: no faster than slow start)",
    },
    ParamSpec {
        name: "gamma",
        kind: ParamKind::Float { min: 0.0, max: 10_000.0 },
        unit: "segments",
        description: "backlog above which dwnd shrinks",
    },
    ParamSpec {
        name: "zeta",
        kind: ParamKind::Float { min: 0.0, max: 100.0 },
        unit: "",
        description: "dwnd shrinks by zeta x backlog per RTT",
    },
    ParamSpec {
        name: "low_window_rule",
        kind: ParamKind::Bool,
        unit: "",
        description: "no dwnd while win is below 38 segments",
    },
    ParamSpec {
        name: "gamma_auto_tuning",
        kind: ParamKind::Bool,
        unit: "",
        description: "set gamma from the backlog seen at losses, within 5 to 30",
    },
    ParamSpec {
        name: "freeze_when_not_cwnd_limited",
        kind: ParamKind::Bool,
        unit: "",
        description:
            "neither cwnd nor dwnd grows while the application or the receive window, not win, limits the flow",
    },
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "compound",
    summary: "Compound TCP: Reno's window plus a delay-based window that fills the pipe while queues are short",
    source: "Tan, Song, Zhang, Sridharan, INFOCOM 2006",
    params: PARAMS,
    defaults: defaults_of::<CompoundConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: CompoundConfig = parse_params("compound", PARAMS, params)?;
        Ok(Box::new(Compound::new(config, info)))
    },
};

/// The window below which the low-window rule keeps dwnd at zero (HighSpeed's Low_Window).
const LOW_WINDOW: f64 = 38.0;
const GAMMA_RANGE: (f64, f64) = (5.0, 30.0);

pub struct Compound {
    config: CompoundConfig,
    pub(crate) window: SegmentWindow,
    /// Delay-based window in segments.
    pub(crate) dwnd: f64,
    pub(crate) gamma: f64,
    base_rtt: Option<SimDuration>,
    round_rtt_sum: u128,
    round_samples: u32,
    round_end: u64,
    /// Backlog measured in the last complete round, segments.
    pub(crate) last_diff: f64,
}

impl Compound {
    pub fn new(config: CompoundConfig, info: ConnectionInfo) -> Self {
        let gamma = config.gamma;
        Self {
            config,
            window: SegmentWindow::for_connection(&info),
            dwnd: 0.0,
            gamma,
            base_rtt: None,
            round_rtt_sum: 0,
            round_samples: 0,
            round_end: 0,
            last_diff: 0.0,
        }
    }

    /// win = cwnd + dwnd in segments.
    pub fn win(&self) -> f64 {
        self.window.cwnd as f64 + self.dwnd
    }

    /// The once-per-round dwnd update for a round whose mean RTT was `rtt`.
    pub fn update_dwnd(&mut self, base: SimDuration, rtt: SimDuration) {
        let win = self.win();
        let diff = win * (1.0 - base as f64 / rtt.max(1) as f64);
        self.last_diff = diff;
        if self.window.in_slow_start() || (self.config.low_window_rule && win < LOW_WINDOW) {
            return;
        }
        if diff < self.gamma {
            let grown = self.dwnd + (self.config.alpha * win.powf(self.config.k) - 1.0).max(0.0);
            // Keep win within the largest window a sender can hold.
            self.dwnd = grown.min(MAX_CWND_SEGMENTS as f64 - self.window.cwnd as f64);
        } else {
            self.dwnd = (self.dwnd - self.config.zeta * diff).max(0.0);
        }
    }
}

impl CongestionControl for Compound {
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(rtt) = ack.rtt_sample {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
            self.round_rtt_sum += rtt as u128;
            self.round_samples += 1;
        }
        if !ack.may_raise_cwnd() || (self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited) {
            return;
        }
        let mut acked = ack.acked_segments;
        if self.window.in_slow_start() {
            acked = self.window.slow_start(acked);
        }
        if acked > 0 {
            // Reno part: one segment per win acknowledged segments (the ACK clock runs at win).
            let win = self.win().round() as u32;
            self.window.additive_increase(win.max(1), acked);
        }
        if ack.snd_una > self.round_end {
            self.round_end = ack.snd_nxt;
            if let (Some(base), true) = (self.base_rtt, self.round_samples > 0) {
                let mean = (self.round_rtt_sum / self.round_samples as u128) as SimDuration;
                self.update_dwnd(base, mean);
            }
            self.round_rtt_sum = 0;
            self.round_samples = 0;
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let win = self.win();
        let cwnd = self.window.cwnd;
        if self.config.gamma_auto_tuning && event.kind != CongestionKind::Timeout {
            self.gamma = (0.75 * self.last_diff).clamp(GAMMA_RANGE.0, GAMMA_RANGE.1);
        }
        self.dwnd = match event.kind {
            CongestionKind::Timeout => 0.0,
            _ => (win * (1.0 - self.config.beta) - cwnd as f64 / 2.0).max(0.0),
        };
        self.window.reduce(cwnd / 2, event.kind);
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.window.cwnd = self.window.ssthresh;
    }

    fn cwnd(&self) -> u64 {
        self.window.cwnd_bytes() + self.dwnd.floor() as u64 * self.window.mss
    }

    /// The Reno part's ssthresh plus dwnd, so that cwnd >= ssthresh means congestion avoidance.
    fn ssthresh(&self) -> u64 {
        let reno = self.window.ssthresh_bytes();
        if reno == u64::MAX {
            reno
        } else {
            reno + self.dwnd.floor() as u64 * self.window.mss
        }
    }

    fn state_name(&self) -> &'static str {
        if self.window.in_slow_start() {
            "slow_start"
        } else if self.dwnd > 0.0 {
            "compound"
        } else {
            "congestion_avoidance"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MILLI as MS;

    fn ctcp(cwnd: u32, dwnd: f64) -> Compound {
        let mut c = Compound::new(CompoundConfig::default(), ConnectionInfo::new(1000, 10, 1));
        c.window.cwnd = cwnd;
        c.window.ssthresh = 10;
        c.dwnd = dwnd;
        c
    }

    #[test]
    fn dwnd_grows_while_the_backlog_is_below_gamma() {
        // win = 100, RTT = base: diff = 0 < 30, dwnd += 0.125 x 100^0.75 - 1 = 3.9528 - 1 = 2.9528.
        let mut c = ctcp(100, 0.0);
        c.update_dwnd(100 * MS, 100 * MS);
        assert!((c.dwnd - 2.952_847).abs() < 1e-6, "{}", c.dwnd);
    }

    #[test]
    fn dwnd_shrinks_by_the_backlog_when_queues_build() {
        // win = 80 + 40 = 120, RTT 150 ms, base 100: diff = 120 / 3 = 40 >= 30: dwnd = 40 - 40 = 0.
        let mut c = ctcp(80, 40.0);
        c.update_dwnd(100 * MS, 150 * MS);
        assert!((c.last_diff - 40.0).abs() < 1e-9);
        assert_eq!(c.dwnd, 0.0);
        // A smaller backlog (diff = 120 x (1 - 100/130) = 27.7 < 30) grows it instead.
        let mut c = ctcp(80, 40.0);
        c.update_dwnd(100 * MS, 130 * MS);
        assert!(c.dwnd > 40.0);
    }

    #[test]
    fn loss_splits_the_reduction_between_cwnd_and_dwnd() {
        // win = 60 + 40 = 100: dwnd = 100 x 0.5 - 30 = 20, cwnd = 30: win becomes 50 = (1 - beta) win.
        let mut c = ctcp(60, 40.0);
        c.on_congestion_event(&CongestionEvent {
            now: 0,
            kind: CongestionKind::FastRetransmit,
            bytes_in_flight: 0,
            snd_nxt: 0,
        });
        assert_eq!((c.window.cwnd, c.dwnd), (30, 20.0));
        assert_eq!(c.cwnd(), 50_000);
        // A timeout clears dwnd.
        c.on_congestion_event(&CongestionEvent {
            now: 0,
            kind: CongestionKind::Timeout,
            bytes_in_flight: 0,
            snd_nxt: 0,
        });
        assert_eq!((c.window.cwnd, c.dwnd), (1, 0.0));
    }

    #[test]
    fn neither_part_grows_while_the_flow_is_not_cwnd_limited() {
        // Each ACK covers one segment in congestion avoidance with the round ending: a limited
        // flow gains both Reno's 1/win and dwnd's round growth; one the receive window holds
        // back gains nothing, until it uses its window again.
        let ack = |c: &mut Compound, cwnd_limited: bool, snd_una: u64| {
            c.on_ack(&AckEvent {
                acked_segments: 1,
                acked_bytes: 1000,
                rtt_sample: Some(100 * MS),
                cwnd_limited,
                snd_una_advanced: true,
                snd_una,
                snd_nxt: snd_una + 100_000,
                ..AckEvent::default()
            })
        };
        let mut c = ctcp(100, 0.0);
        ack(&mut c, false, 1);
        assert_eq!((c.cwnd(), c.dwnd), (100_000, 0.0), "frozen");
        ack(&mut c, true, 200_000);
        assert!(c.dwnd > 2.9, "grows again once limited by win: dwnd {}", c.dwnd);
        let mut unfrozen = Compound::new(
            CompoundConfig { freeze_when_not_cwnd_limited: false, ..CompoundConfig::default() },
            ConnectionInfo::new(1000, 10, 1),
        );
        unfrozen.window.cwnd = 100;
        unfrozen.window.ssthresh = 10;
        ack(&mut unfrozen, false, 1);
        assert!(unfrozen.dwnd > 2.9, "the paper's rule, without Linux's check, grows regardless");
    }

    #[test]
    fn options_low_window_and_gamma_tuning() {
        let mut c = Compound::new(
            CompoundConfig { low_window_rule: true, gamma_auto_tuning: true, ..CompoundConfig::default() },
            ConnectionInfo::new(1000, 10, 1),
        );
        c.window.cwnd = 30;
        c.window.ssthresh = 10;
        c.update_dwnd(100 * MS, 100 * MS);
        assert_eq!(c.dwnd, 0.0, "no dwnd below 38 segments");
        c.last_diff = 12.0;
        c.on_congestion_event(&CongestionEvent {
            now: 0,
            kind: CongestionKind::FastRetransmit,
            bytes_in_flight: 0,
            snd_nxt: 0,
        });
        assert_eq!(c.gamma, 9.0);
        c.last_diff = 100.0;
        c.on_congestion_event(&CongestionEvent {
            now: 0,
            kind: CongestionKind::FastRetransmit,
            bytes_in_flight: 0,
            snd_nxt: 0,
        });
        assert_eq!(c.gamma, 30.0);
    }
}
