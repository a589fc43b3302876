//! `illinois`: TCP-Illinois (Liu, Basar and Srikant, "TCP-Illinois: a loss- and delay-based
//! congestion control algorithm for high-speed networks", VALUETOOLS 2006 / Performance
//! Evaluation 2008) as Linux's tcp_illinois.c implements it.
//!
//! Loss decides when to back off, queueing delay how much: cwnd grows by alpha segments per
//! window of ACKs and a loss sets ssthresh = cwnd - beta cwnd. Once per RTT, from the average
//! queueing delay da (mean RTT sample of the round less the base RTT) and the largest one seen,
//! dm = max RTT - base RTT:
//! - alpha = alpha_max (10) while da <= d1 = dm / 100; above it alpha = k1 / (k2 + da), falling
//!   from alpha_max at d1 to alpha_min (0.3) at dm. Once da has left the low zone, it must stay
//!   below d1 for theta = 5 rounds before alpha returns to alpha_max;
//! - beta = beta_min (1/8) while da <= d2 = dm / 10, beta_max (1/2) from d3 = 8 dm / 10, linear
//!   between.
//!
//! Below win_thresh = 15 segments alpha = 1 and beta = 1/2 (Reno). A timeout resets alpha and
//! beta to Reno's and the low-delay count; fast retransmits do not. Slow start is Reno's.
//!
//! Fixed point as Linux: alpha in 1/128 (alpha_min 0.3 becomes 38/128 = 0.297), beta in 1/64,
//! the increase `credit x alpha / 128 >= cwnd` adding credit x alpha / 128 / cwnd segments at
//! once. Delays are nanoseconds (Linux: microseconds, with samples clamped at 3.3 s to keep its
//! u32 arithmetic from overflowing; u64 here needs no clamp).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};
use crate::time::SimDuration;

/// alpha in 1/128 units, beta in 1/64 (tcp_illinois.c ALPHA_SHIFT 7, BETA_SHIFT 6).
const ALPHA_SCALE: u64 = 128;
const BETA_SCALE: u64 = 64;
/// Reno's increase and decrease, used below win_thresh and after a timeout.
const ALPHA_RENO: u64 = ALPHA_SCALE;
const BETA_RENO: u64 = BETA_SCALE / 2;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IllinoisConfig {
    pub alpha_min: f64,
    pub alpha_max: f64,
    pub beta_min: f64,
    pub beta_max: f64,
    /// Below this window (segments) alpha and beta are Reno's.
    pub win_thresh: u32,
    /// Rounds of low delay before alpha may return to alpha_max.
    pub theta: u32,
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for IllinoisConfig {
    fn default() -> Self {
        Self {
            alpha_min: 0.3,
            alpha_max: 10.0,
            beta_min: 0.125,
            beta_max: 0.5,
            win_thresh: 15,
            theta: 5,
            freeze_when_not_cwnd_limited: true,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "alpha_min",
        kind: ParamKind::Float { min: 0.01, max: 100.0 },
        unit: "segments per RTT",
        description: "increase at the largest queueing delay",
    },
    ParamSpec {
        name: "alpha_max",
        kind: ParamKind::Float { min: 0.01, max: 100.0 },
        unit: "segments per RTT",
        description: "increase at low queueing delay",
    },
    ParamSpec {
        name: "beta_min",
        kind: ParamKind::Float { min: 0.0, max: 0.9 },
        unit: "fraction",
        description: "decrease at low queueing delay (below dm / 10)",
    },
    ParamSpec {
        name: "beta_max",
        kind: ParamKind::Float { min: 0.0, max: 0.9 },
        unit: "fraction",
        description: "decrease at high queueing delay (from 8 dm / 10)",
    },
    ParamSpec {
        name: "win_thresh",
        kind: ParamKind::Integer { min: 0, max: 1_000_000 },
        unit: "segments",
        description: "below this window alpha = 1 and beta = 1/2 (Reno)",
    },
    ParamSpec {
        name: "theta",
        kind: ParamKind::Integer { min: 1, max: 255 },
        unit: "RTTs",
        description: "rounds of low delay before alpha returns to alpha_max",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "illinois",
    summary: "TCP-Illinois: loss-based AIMD whose increase (0.3..10) and decrease (1/8..1/2) follow queueing delay",
    source: "Liu, Basar and Srikant, VALUETOOLS 2006 / Perf. Eval. 2008; Linux net/ipv4/tcp_illinois.c",
    params: PARAMS,
    defaults: defaults_of::<IllinoisConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: IllinoisConfig = parse_params("illinois", PARAMS, params)?;
        if config.alpha_min >= config.alpha_max {
            return Err(format!("alpha_min = {} must be below alpha_max = {}", config.alpha_min, config.alpha_max));
        }
        if config.beta_min > config.beta_max {
            return Err(format!("beta_min = {} must not exceed beta_max = {}", config.beta_min, config.beta_max));
        }
        Ok(Box::new(Illinois::new(config, info)))
    },
};

pub struct Illinois {
    config: IllinoisConfig,
    pub(crate) window: SegmentWindow,
    /// alpha bounds in 1/128, beta bounds in 1/64.
    alpha_min: u64,
    alpha_max: u64,
    beta_min: u64,
    beta_max: u64,
    pub(crate) alpha: u64,
    pub(crate) beta: u64,
    /// RTT samples of the current round: their sum (ns) and count.
    sum_rtt: u128,
    cnt_rtt: u64,
    pub(crate) base_rtt: Option<SimDuration>,
    pub(crate) max_rtt: SimDuration,
    /// The round ends when an ACK passes this byte.
    end_seq: u64,
    /// The average delay has left the low zone since alpha was last alpha_max.
    rtt_above: bool,
    /// Consecutive low-delay rounds since then.
    rtt_low: u32,
}

impl Illinois {
    pub fn new(config: IllinoisConfig, info: ConnectionInfo) -> Self {
        let fixed = |x: f64, scale: u64| (x * scale as f64) as u64;
        let alpha_max = fixed(config.alpha_max, ALPHA_SCALE);
        Self {
            window: SegmentWindow::for_connection(&info),
            alpha_min: fixed(config.alpha_min, ALPHA_SCALE).max(1),
            alpha_max,
            beta_min: fixed(config.beta_min, BETA_SCALE),
            beta_max: fixed(config.beta_max, BETA_SCALE),
            alpha: alpha_max,
            beta: BETA_RENO,
            sum_rtt: 0,
            cnt_rtt: 0,
            base_rtt: None,
            max_rtt: 0,
            end_seq: 0,
            rtt_above: false,
            rtt_low: 0,
            config,
        }
    }

    /// alpha (1/128) for average queueing delay `da` and maximum `dm`; counts low-delay rounds.
    pub(crate) fn next_alpha(&mut self, da: SimDuration, dm: SimDuration) -> u64 {
        let d1 = dm / 100;
        if da <= d1 {
            if !self.rtt_above {
                return self.alpha_max;
            }
            // One good round is not enough to jump back to the largest increase.
            self.rtt_low += 1;
            if self.rtt_low < self.config.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return self.alpha_max;
        }
        self.rtt_above = true;
        // alpha = k1 / (k2 + da) written from d1 on: alpha_max at da = d1, alpha_min at da = dm.
        let (dm, da) = ((dm - d1) as u128, (da - d1) as u128);
        let (amin, amax) = (self.alpha_min as u128, self.alpha_max as u128);
        (dm * amax / (dm + da * (amax - amin) / amin)) as u64
    }

    /// beta (1/64) for average queueing delay `da` and maximum `dm`.
    pub(crate) fn next_beta(&self, da: SimDuration, dm: SimDuration) -> u64 {
        let d2 = dm / 10;
        if da <= d2 {
            return self.beta_min;
        }
        let d3 = 8 * dm / 10;
        if da >= d3 || d3 <= d2 {
            return self.beta_max;
        }
        let (d2, d3, da) = (d2 as u128, d3 as u128, da as u128);
        let (bmin, bmax) = (self.beta_min as u128, self.beta_max as u128);
        ((bmin * d3 + (bmax - bmin) * da - bmax * d2) / (d3 - d2)) as u64
    }

    fn end_of_round(&mut self, snd_nxt: u64) {
        if self.window.cwnd < self.config.win_thresh {
            self.alpha = ALPHA_RENO;
            self.beta = BETA_RENO;
        } else if let (Some(base), true) = (self.base_rtt, self.cnt_rtt > 0) {
            let dm = self.max_rtt - base;
            let da = ((self.sum_rtt / self.cnt_rtt as u128) as SimDuration).saturating_sub(base);
            self.alpha = self.next_alpha(da, dm);
            self.beta = self.next_beta(da, dm);
        }
        self.start_round(snd_nxt);
    }

    fn start_round(&mut self, snd_nxt: u64) {
        self.end_seq = snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt = 0;
    }
}

impl CongestionControl for Illinois {
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(rtt) = ack.rtt_sample {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
            self.max_rtt = self.max_rtt.max(rtt);
            self.cnt_rtt += 1;
            self.sum_rtt += rtt as u128;
        }
        if !ack.may_raise_cwnd() {
            return;
        }
        if ack.snd_una > self.end_seq {
            self.end_of_round(ack.snd_nxt);
        }
        if self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited {
            return;
        }
        if self.window.in_slow_start() {
            self.window.slow_start(ack.acked_segments);
            return;
        }
        let window = &mut self.window;
        window.credit = window.credit.saturating_add(ack.acked_segments);
        let delta = window.credit as u64 * self.alpha / ALPHA_SCALE;
        if delta >= window.cwnd as u64 {
            let grown = window.cwnd as u64 + delta / window.cwnd as u64;
            window.cwnd = grown.min(window.clamp as u64) as u32;
            window.credit = 0;
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let cwnd = self.window.cwnd as u64;
        let ssthresh = cwnd - cwnd * self.beta / BETA_SCALE;
        self.window.reduce(ssthresh as u32, event.kind);
        if event.kind == CongestionKind::Timeout {
            // Linux's TCP_CA_Loss: back to Reno's values until the delay says otherwise.
            self.alpha = ALPHA_RENO;
            self.beta = BETA_RENO;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.start_round(event.snd_nxt);
        }
    }

    super::window::reno_like_window!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MILLI as MS;

    fn illinois() -> Illinois {
        Illinois::new(IllinoisConfig::default(), ConnectionInfo::new(1000, 10, 1))
    }

    #[test]
    fn alpha_is_largest_at_low_delay_and_smallest_at_the_maximum() {
        let mut i = illinois();
        // dm = 100 ms: d1 = 1 ms. da <= d1 -> alpha_max = 1280/128 = 10.
        assert_eq!(i.next_alpha(MS, 100 * MS), 1280);
        // da = dm: (dm - d1) 1280 / ((dm - d1) + (dm - d1)(1280 - 38)/38) = 1280 x 38 / 1280 = 38
        // = alpha_min (0.297).
        assert_eq!(i.next_alpha(100 * MS, 100 * MS), 38);
        // Interior: da = 10 ms: 99 x 1280 / (99 + 9 x 1242 / 38) = 126720 / 393.16 = 322 (2.52).
        assert_eq!(i.next_alpha(10 * MS, 100 * MS), 322);
        // Back in the low zone after being above: alpha stays for theta - 1 = 4 rounds.
        i.alpha = 322;
        for _ in 0..4 {
            assert_eq!(i.next_alpha(0, 100 * MS), 322);
        }
        assert_eq!(i.next_alpha(0, 100 * MS), 1280);
    }

    #[test]
    fn beta_is_an_eighth_at_low_delay_a_half_at_high_and_linear_between() {
        let i = illinois();
        // dm = 100 ms: d2 = 10 ms, d3 = 80 ms; beta_min = 8/64, beta_max = 32/64.
        assert_eq!(i.next_beta(10 * MS, 100 * MS), 8);
        assert_eq!(i.next_beta(80 * MS, 100 * MS), 32);
        assert_eq!(i.next_beta(100 * MS, 100 * MS), 32);
        // da = 45 ms: (8 x 80 + 24 x 45 - 32 x 10) / 70 = 1400 / 70 = 20 -> 20/64 = 0.3125,
        // = 1/8 + (1/2 - 1/8) x 35/70.
        assert_eq!(i.next_beta(45 * MS, 100 * MS), 20);
    }

    #[test]
    fn losses_cut_by_beta_and_reno_below_win_thresh() {
        let mut i = illinois();
        let loss = |kind| CongestionEvent { now: 0, kind, bytes_in_flight: 0, snd_nxt: 0 };
        // cwnd 100, beta 8/64: 100 - 800/64 = 100 - 12 = 88.
        i.window.cwnd = 100;
        i.beta = 8;
        i.on_congestion_event(&loss(CongestionKind::FastRetransmit));
        assert_eq!((i.window.ssthresh, i.window.cwnd), (88, 88));
        // A round ending below win_thresh sets Reno's values whatever the delay.
        i.window.cwnd = 14;
        i.cnt_rtt = 3;
        i.sum_rtt = 3 * 100 * MS as u128;
        i.base_rtt = Some(100 * MS);
        i.end_of_round(0);
        assert_eq!((i.alpha, i.beta), (ALPHA_RENO, BETA_RENO));
    }
}
