//! `yeah`: YeAH-TCP (Baiocchi, Castellani and Vacirca, "YeAH-TCP: yet another highspeed TCP",
//! PFLDnet 2007) as Linux's tcp_yeah.c implements it.
//!
//! Two modes. Fast mode grows as Scalable TCP (one segment per min(cwnd, 100) acknowledged
//! segments), slow mode as Reno. Once per RTT (Vegas's round: the first ACK past what was
//! outstanding when the round began, with more than 2 RTT samples in it), with RTT = the round's
//! smallest sample and RTTmin = the smallest ever:
//! - the backlog Q = cwnd (RTT - RTTmin) / RTT segments;
//! - slow mode when Q > alpha (80 segments) or the queueing delay RTT - RTTmin exceeds RTTmin /
//!   phi (phi = 8; the paper's congestion level L = (RTT - RTTmin) / RTTmin above 1/phi), else
//!   fast mode;
//! - precautionary decongestion, when Q > alpha and cwnd > reno_count: cwnd -= min(Q / gamma,
//!   cwnd / 2^epsilon) (gamma = 1, epsilon = 1), not below reno_count, and ssthresh = cwnd.
//!
//! reno_count estimates the window a competing Reno flow would have: on the first slow-mode
//! round it becomes max(cwnd / 2, 2), then grows by one per slow-mode round; after zeta = 50
//! fast-mode rounds it returns to 2. At a loss: if fewer than rho = 16 consecutive rounds were in
//! slow mode (no Reno competition), cwnd falls by the last Q, at least cwnd / 2^delta (delta = 3)
//! and at most max(cwnd / 2, 2); otherwise by max(cwnd / 2, 2), as Reno. reno_count halves (>= 2).
//!
//! Round bookkeeping restarts when recovery ends (Linux's tcp_vegas_state). Differences from
//! Linux: RTT samples are taken as measured (Linux's Vegas adds 1 us), the round's base RTT is not
//! reset when the connection restarts after idle (Linux's CA_EVENT_TX_START re-initialises
//! Vegas), and ssthresh never goes below 2 segments (Linux returns cwnd - reduction, 0 at cwnd 2).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, ConnectionInfo, ParamKind,
    ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};
use crate::time::SimDuration;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct YeahConfig {
    /// Largest backlog (segments) tolerated before slow mode and decongestion (TCP_YEAH_ALPHA).
    pub alpha: u32,
    /// Decongestion removes Q / gamma segments (TCP_YEAH_GAMMA).
    pub gamma: u32,
    /// A loss removes at least cwnd / 2^delta (TCP_YEAH_DELTA).
    pub delta: u32,
    /// Decongestion removes at most cwnd / 2^epsilon (TCP_YEAH_EPSILON).
    pub epsilon: u32,
    /// Slow mode when the queueing delay exceeds RTTmin / phi (TCP_YEAH_PHY).
    pub phi: u32,
    /// Slow-mode rounds after which a loss is answered as Reno (TCP_YEAH_RHO).
    pub rho: u32,
    /// Fast-mode rounds after which reno_count resets (TCP_YEAH_ZETA).
    pub zeta: u32,
    /// Fast mode adds one segment per min(cwnd, this) acked segments (TCP_SCALABLE_AI_CNT).
    pub scalable_ai_count: u32,
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for YeahConfig {
    fn default() -> Self {
        Self {
            alpha: 80,
            gamma: 1,
            delta: 3,
            epsilon: 1,
            phi: 8,
            rho: 16,
            zeta: 50,
            scalable_ai_count: 100,
            freeze_when_not_cwnd_limited: true,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "alpha",
        kind: ParamKind::Integer { min: 1, max: 100_000 },
        unit: "segments",
        description: "backlog above which YeAH enters slow mode and decongests",
    },
    ParamSpec {
        name: "gamma",
        kind: ParamKind::Integer { min: 1, max: 1000 },
        unit: "",
        description: "decongestion removes backlog / gamma segments",
    },
    ParamSpec {
        name: "delta",
        kind: ParamKind::Integer { min: 1, max: 16 },
        unit: "",
        description: "a loss removes at least cwnd / 2^delta",
    },
    ParamSpec {
        name: "epsilon",
        kind: ParamKind::Integer { min: 1, max: 16 },
        unit: "",
        description: "decongestion removes at most cwnd / 2^epsilon",
    },
    ParamSpec {
        name: "phi",
        kind: ParamKind::Integer { min: 1, max: 1000 },
        unit: "",
        description: "slow mode when queueing delay exceeds RTTmin / phi",
    },
    ParamSpec {
        name: "rho",
        kind: ParamKind::Integer { min: 1, max: 100_000 },
        unit: "RTTs",
        description: "consecutive slow-mode rounds after which losses are answered as Reno",
    },
    ParamSpec {
        name: "zeta",
        kind: ParamKind::Integer { min: 1, max: 100_000 },
        unit: "RTTs",
        description: "fast-mode rounds after which reno_count resets",
    },
    ParamSpec {
        name: "scalable_ai_count",
        kind: ParamKind::Integer { min: 1, max: 100_000 },
        unit: "segments",
        description: "fast mode: +1 segment per min(cwnd, this) acked segments",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "yeah",
    summary: "YeAH-TCP: Scalable growth while the backlog is under 80 segments, Reno and decongestion above",
    source: "Baiocchi, Castellani and Vacirca, PFLDnet 2007; Linux net/ipv4/tcp_yeah.c",
    params: PARAMS,
    defaults: defaults_of::<YeahConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: YeahConfig = parse_params("yeah", PARAMS, params)?;
        Ok(Box::new(Yeah::new(config, info)))
    },
};

pub struct Yeah {
    config: YeahConfig,
    pub(crate) window: SegmentWindow,
    pub(crate) base_rtt: Option<SimDuration>,
    pub(crate) round_min_rtt: Option<SimDuration>,
    pub(crate) round_samples: u32,
    /// The round ends when an ACK passes this byte.
    pub(crate) round_end: u64,
    recovering: bool,
    /// Backlog estimate of the last evaluated round (segments).
    pub(crate) last_queue: u32,
    /// Consecutive slow-mode rounds (0: fast mode).
    pub(crate) slow_rounds: u32,
    pub(crate) reno_count: u32,
    fast_count: u32,
    event: Option<&'static str>,
}

/// Q = cwnd (rtt - base) / rtt in whole segments.
pub fn backlog(cwnd: u32, base: SimDuration, rtt: SimDuration) -> u32 {
    (cwnd as u128 * rtt.saturating_sub(base) as u128 / rtt.max(1) as u128) as u32
}

impl Yeah {
    pub fn new(config: YeahConfig, info: ConnectionInfo) -> Self {
        Self {
            config,
            window: SegmentWindow::for_connection(&info),
            base_rtt: None,
            round_min_rtt: None,
            round_samples: 0,
            round_end: 0,
            recovering: false,
            last_queue: 0,
            slow_rounds: 0,
            reno_count: 2,
            fast_count: 0,
            event: None,
        }
    }

    fn start_round(&mut self, snd_nxt: u64) {
        self.round_end = snd_nxt;
        self.round_samples = 0;
        self.round_min_rtt = None;
    }

    /// The once-per-RTT decision: mode and precautionary decongestion.
    pub(crate) fn end_of_round(&mut self, base: SimDuration, rtt: SimDuration) {
        let cwnd = self.window.cwnd;
        let queue = backlog(cwnd, base, rtt);
        let c = &self.config;
        if queue > c.alpha || rtt.saturating_sub(base) > base / c.phi as u64 {
            if queue > c.alpha && cwnd > self.reno_count {
                let reduction = (queue / c.gamma).min(cwnd >> c.epsilon);
                self.window.cwnd = (cwnd - reduction).max(self.reno_count).max(1);
                self.window.ssthresh = self.window.cwnd.max(2);
                self.event = Some("yeah_decongestion");
            }
            if self.reno_count <= 2 {
                self.reno_count = (self.window.cwnd / 2).max(2);
            } else {
                self.reno_count += 1;
            }
            self.slow_rounds = (self.slow_rounds + 1).min(0xff_ffff);
        } else {
            self.fast_count += 1;
            if self.fast_count > c.zeta {
                self.reno_count = 2;
                self.fast_count = 0;
            }
            self.slow_rounds = 0;
        }
        self.last_queue = queue;
    }

    /// ssthresh after a loss: cut by the backlog unless Reno flows compete.
    pub(crate) fn loss_ssthresh(&mut self) -> u32 {
        let cwnd = self.window.cwnd;
        let half = (cwnd / 2).max(2);
        let reduction = if self.slow_rounds < self.config.rho {
            self.last_queue.min(half).max(cwnd >> self.config.delta)
        } else {
            half
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count / 2).max(2);
        cwnd.saturating_sub(reduction)
    }
}

impl CongestionControl for Yeah {
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(rtt) = ack.rtt_sample {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
            self.round_min_rtt = Some(self.round_min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.round_samples += 1;
        }
        if !ack.may_raise_cwnd() {
            return;
        }
        if self.recovering {
            // Recovery is over (Linux's vegas_enable on TCP_CA_Open): a fresh round.
            self.recovering = false;
            self.start_round(ack.snd_nxt);
        }
        if self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited {
            return;
        }
        if let Some(acked) = self.window.leftover_after_slow_start(ack.acked_segments) {
            let cwnd = self.window.cwnd;
            let w = if self.slow_rounds == 0 { cwnd.min(self.config.scalable_ai_count) } else { cwnd };
            self.window.additive_increase(w, acked);
        }
        if ack.snd_una > self.round_end {
            if let (Some(base), Some(rtt), true) = (self.base_rtt, self.round_min_rtt, self.round_samples > 2) {
                self.end_of_round(base, rtt);
            }
            self.start_round(ack.snd_nxt);
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let ssthresh = self.loss_ssthresh();
        self.window.reduce(ssthresh, event.kind);
        self.recovering = true;
    }

    fn take_event(&mut self) -> Option<&'static str> {
        self.event.take()
    }

    super::window::reno_like_window!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CongestionKind;
    use crate::time::NANOS_PER_MILLI as MS;

    fn yeah(cwnd: u32) -> Yeah {
        let mut y = Yeah::new(YeahConfig::default(), ConnectionInfo::new(1000, 10, 1));
        y.window.cwnd = cwnd;
        y.window.ssthresh = 50;
        y
    }

    #[test]
    fn fast_mode_while_the_queue_is_short_and_the_delay_small() {
        // base 100 ms, RTT 110 ms, cwnd 500: Q = 500 x 10 / 110 = 45 <= 80 and 10 ms <= 100/8 =
        // 12.5 ms: fast mode.
        let mut y = yeah(500);
        y.end_of_round(100 * MS, 110 * MS);
        assert_eq!((y.last_queue, y.slow_rounds, y.window.cwnd), (45, 0, 500));
        // RTT 113 ms: Q = 500 x 13 / 113 = 57 <= 80 but 13 ms > 12.5 ms: slow mode, no
        // decongestion; reno_count = cwnd / 2.
        y.end_of_round(100 * MS, 113 * MS);
        assert_eq!((y.last_queue, y.slow_rounds, y.window.cwnd, y.reno_count), (57, 1, 500, 250));
        // Base 200 ms, RTT 220 ms, cwnd 1000: delay 20 <= 25 ms but Q = 1000 x 20/220 = 90 > 80:
        // slow mode.
        let mut y = yeah(1000);
        y.end_of_round(200 * MS, 220 * MS);
        assert_eq!(y.slow_rounds, 1);
    }

    #[test]
    fn precautionary_decongestion_removes_the_backlog() {
        // cwnd 1000, base 200 ms, RTT 220 ms: Q = 90 > 80, cwnd > reno_count 2: cwnd -=
        // min(90 / 1, 1000 / 2) = 90 -> 910, ssthresh = 910. reno_count = 910 / 2 = 455.
        let mut y = yeah(1000);
        y.end_of_round(200 * MS, 220 * MS);
        assert_eq!((y.window.cwnd, y.window.ssthresh, y.reno_count), (910, 910, 455));
        // At most half the window: cwnd 200, base 10 ms, RTT 100 ms: Q = 180 -> min(180, 100).
        // reno_count 455 > 200 stops it: no reduction. With reno_count 2: 200 - 100 = 100.
        let mut y = yeah(200);
        y.reno_count = 455;
        y.end_of_round(10 * MS, 100 * MS);
        assert_eq!(y.window.cwnd, 200);
        let mut y = yeah(200);
        y.end_of_round(10 * MS, 100 * MS);
        assert_eq!(y.window.cwnd, 100);
    }

    #[test]
    fn loss_cuts_by_the_backlog_unless_reno_competes() {
        let loss = CongestionEvent { now: 0, kind: CongestionKind::FastRetransmit, bytes_in_flight: 0, snd_nxt: 0 };
        // cwnd 400, last Q 30: reduction = max(min(30, 200), 400 / 8 = 50) = 50 -> 350.
        let mut y = yeah(400);
        y.last_queue = 30;
        y.on_congestion_event(&loss);
        assert_eq!(y.window.ssthresh, 350);
        // Last Q 120: min(120, 200) = 120 -> 280.
        let mut y = yeah(400);
        y.last_queue = 120;
        y.on_congestion_event(&loss);
        assert_eq!(y.window.ssthresh, 280);
        // 16 slow-mode rounds in a row: Reno, 400 - 200 = 200; reno_count 40 halves to 20.
        let mut y = yeah(400);
        (y.last_queue, y.slow_rounds, y.reno_count) = (30, 16, 40);
        y.on_congestion_event(&loss);
        assert_eq!((y.window.ssthresh, y.reno_count), (200, 20));
    }
}
