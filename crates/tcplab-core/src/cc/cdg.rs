//! `cdg`: CAIA Delay-Gradient (Hayes and Armitage, "Revisiting TCP congestion control using delay
//! gradients", IFIP Networking 2011), with the rules of Linux's tcp_cdg.c.
//!
//! Once per RTT CDG takes the smallest and largest RTT samples of the round just ended, their
//! changes from the round before (g_min, g_max), and sums each over a moving window of the last
//! `window` = 8 rounds (the paper's smoothed gradient times the window: tcp_cdg.c drops the
//! division). With g = the g_min sum if positive, else the g_max sum, it backs off with probability
//! P = 1 - exp(-g * backoff_factor), g in microseconds and backoff_factor = 42 per million
//! (tcp_cdg.c; the paper's P = 1 - exp(-(g/window) / G) with G = 1000 / (42 x 8) = 2.98 ms).
//! A backoff multiplies cwnd by backoff_beta = 724/1024 (0.7071). Growth is Reno's.
//! Coexistence heuristics (tcp_cdg.c defaults): a shadow window that remembers the window before
//! delay backoffs, so that a loss (the sign of a loss-based competitor) halves the larger of it
//! and cwnd instead of the delay-reduced cwnd (`use_shadow`); backoffs counted as ineffectual
//! after 5 without the delay gradient turning negative by 32 us stop backing off
//! (`use_ineff`); optionally, losses seen while the queue is not full are ignored
//! (`use_tolerance`, off). Slow start ends on HyStart's ACK-train or delay test, at any cwnd.
//!
//! Decisions where tcplab cannot do as Linux: a backoff enters Linux's CWR state, where PRR lowers
//! cwnd to ssthresh over the next round; tcplab sets cwnd = ssthresh at once and holds growth until
//! the round sent before the backoff is acknowledged (then, as Linux's CA_EVENT_COMPLETE_CWR, a new
//! gradient round starts). Linux's delayed-ACK filter applies while no segment is SACKed; tcplab
//! applies it while the ACK advances snd_una outside recovery. Random numbers come from the
//! connection's seed. exp() is exact (Linux uses a table). Times are nanoseconds (Linux:
//! microseconds), so the 32 us and 64 us thresholds become 32,000 and 64,000 ns. `window` may be
//! any size from 1 to 256 (Linux requires a power of two for its index mask).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, ConnectionInfo, ParamKind,
    ParamSpec,
};
use crate::sim::{unit_f64, SimRng};
use crate::time::{SimDuration, SimTime, NANOS_PER_MICRO, NANOS_PER_MILLI};
use rand::SeedableRng;

/// A delay gradient sum at or below minus this shows a backoff worked (tcp_cdg.c: 32 us).
const EFFECTUAL_DROP: i64 = 32 * NANOS_PER_MICRO as i64;
/// `use_tolerance` rounds gradient sums to multiples of this before judging them (64 us).
const TOLERANCE_UNIT: i64 = 64 * NANOS_PER_MICRO as i64;
/// HyStart: ACKs closer than this continue a train (3 ms), and no threshold below 125 us.
const ACK_TRAIN_GAP: SimDuration = 3 * NANOS_PER_MILLI;
const HYSTART_FLOOR: SimDuration = 125 * NANOS_PER_MICRO;
/// HyStart's delay test waits for this many ACKs in a round.
const HYSTART_DELAY_SAMPLES: u32 = 8;
/// The delayed-ACK filter trusts at most this many consecutive multi-segment ACKs.
const MAX_DELACK: u8 = 5;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CdgConfig {
    /// Rounds the gradients are summed over.
    pub window: u32,
    /// Multiplicative decrease on a delay backoff, in 1/1024.
    pub backoff_beta: u32,
    /// Backoff probability scale: P = 1 - exp(-g_us * backoff_factor / 1e6).
    pub backoff_factor: u32,
    /// HyStart detectors: 0 none, 1 ACK train, 2 delay, 3 both.
    pub hystart_detect: u32,
    /// Backoffs without effect after which CDG stops backing off (0: never stops).
    pub use_ineff: u32,
    pub use_shadow: bool,
    pub use_tolerance: bool,
}

impl Default for CdgConfig {
    fn default() -> Self {
        Self {
            window: 8,
            backoff_beta: 724,
            backoff_factor: 42,
            hystart_detect: 3,
            use_ineff: 5,
            use_shadow: true,
            use_tolerance: false,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "window",
        kind: ParamKind::Integer { min: 1, max: 256 },
        unit: "RTTs",
        description: "rounds the delay gradients are summed over (Linux 8)",
    },
    ParamSpec {
        name: "backoff_beta",
        kind: ParamKind::Integer { min: 0, max: 1024 },
        unit: "1/1024",
        description: "cwnd multiplier on a delay backoff (Linux 724 = 0.7071)",
    },
    ParamSpec {
        name: "backoff_factor",
        kind: ParamKind::Integer { min: 1, max: 1_000_000 },
        unit: "per million per us",
        description: "backoff probability 1 - exp(-gradient_us * factor / 1e6) (Linux 42; = 1000 / (G_ms * window))",
    },
    ParamSpec {
        name: "hystart_detect",
        kind: ParamKind::Integer { min: 0, max: 3 },
        unit: "bits",
        description: "HyStart in slow start: 0 off, 1 ACK train, 2 delay increase, 3 both",
    },
    ParamSpec {
        name: "use_ineff",
        kind: ParamKind::Integer { min: 0, max: 65_535 },
        unit: "backoffs",
        description: "stop backing off after this many backoffs without a falling delay (0: never)",
    },
    ParamSpec {
        name: "use_shadow",
        kind: ParamKind::Bool,
        unit: "",
        description: "on loss, halve the window delay backoffs took away too (shadow window)",
    },
    ParamSpec {
        name: "use_tolerance",
        kind: ParamKind::Bool,
        unit: "",
        description: "ignore losses while the delay gradients say the queue is not full",
    },
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "cdg",
    summary: "CAIA Delay-Gradient: probabilistic backoff on rising per-RTT min/max RTT, Reno growth",
    source: "Hayes and Armitage, IFIP Networking 2011; Linux net/ipv4/tcp_cdg.c",
    params: PARAMS,
    defaults: defaults_of::<CdgConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: CdgConfig = parse_params("cdg", PARAMS, params)?;
        Ok(Box::new(Cdg::new(config, info)))
    },
};

/// What the delay gradients say about the bottleneck queue (used by `use_tolerance`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum QueueState {
    Unknown,
    NonFull,
    Full,
    Backoff,
}

/// Smallest and largest RTT of a round in nanoseconds; 0 for none yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MinMax {
    pub min: i64,
    pub max: i64,
}

impl MinMax {
    fn is_empty(&self) -> bool {
        self.min == 0 && self.max == 0
    }
}

/// The chance of a backoff for a gradient sum `grad` (ns) and `factor` (per million per us).
pub fn backoff_probability(grad: i64, factor: u32) -> f64 {
    let micros = grad as f64 / NANOS_PER_MICRO as f64;
    1.0 - (-micros * factor as f64 * 1e-6).exp()
}

pub struct Cdg {
    config: CdgConfig,
    pub(crate) window: SegmentWindow,
    pub(crate) rtt: MinMax,
    pub(crate) rtt_prev: MinMax,
    /// The last `window` rounds' (g_min, g_max), a ring, and their sums.
    gradients: Vec<MinMax>,
    pub(crate) gsum: MinMax,
    gfilled: bool,
    tail: usize,
    state: QueueState,
    /// Consecutive multi-segment ACKs seen (the delayed-ACK filter's credit).
    delack: u8,
    /// The round ends when the cumulative ACK passes this sequence number.
    rtt_seq: u64,
    pub(crate) shadow_wnd: u32,
    pub(crate) backoff_cnt: u32,
    sample_cnt: u32,
    delay_min: SimDuration,
    last_ack: Option<SimTime>,
    round_start: SimTime,
    /// A delay backoff's reduction round lasts until the cumulative ACK reaches this.
    cwr_until: Option<u64>,
    /// A reduction round (recovery or a backoff) ended: start a new gradient round at the next ACK.
    complete_cwr: bool,
    rng: SimRng,
    pending_event: Option<&'static str>,
}

impl Cdg {
    pub fn new(config: CdgConfig, info: ConnectionInfo) -> Self {
        let window = SegmentWindow::for_connection(&info);
        Self {
            gradients: vec![MinMax::default(); config.window as usize],
            config,
            shadow_wnd: window.cwnd,
            window,
            rtt: MinMax::default(),
            rtt_prev: MinMax::default(),
            gsum: MinMax::default(),
            gfilled: false,
            tail: 0,
            state: QueueState::Unknown,
            delack: 0,
            rtt_seq: 0,
            backoff_cnt: 0,
            sample_cnt: 0,
            delay_min: 0,
            last_ack: None,
            round_start: 0,
            cwr_until: None,
            complete_cwr: false,
            rng: SimRng::seed_from_u64(info.seed),
            pending_event: None,
        }
    }

    /// tcp_cdg.c `tcp_cdg_acked`: the round's min and max RTT, with Hayes' delayed-ACK filter (a
    /// one-segment ACK after multi-segment ones is probably a delayed ACK's timer firing, whose RTT
    /// includes the receiver's wait: it may only lower the minimum).
    pub(crate) fn on_rtt_sample(&mut self, rtt: SimDuration, acked_segments: u32, filter: bool) {
        let rtt = rtt as i64;
        if filter {
            if acked_segments == 1 && self.delack > 0 {
                self.rtt.min = self.rtt.min.min(rtt);
                self.delack -= 1;
                return;
            } else if acked_segments > 1 && self.delack < MAX_DELACK {
                self.delack += 1;
            }
        }
        self.rtt.min = if self.rtt.min == 0 { rtt } else { self.rtt.min.min(rtt) };
        self.rtt.max = self.rtt.max.max(rtt);
    }

    /// tcp_cdg.c `tcp_cdg_grad`: the gradient sum over the window, extrapolated while it fills.
    pub(crate) fn gradient(&mut self) -> i64 {
        let mut gmin = self.rtt.min - self.rtt_prev.min;
        let mut gmax = self.rtt.max - self.rtt_prev.max;
        let oldest = self.gradients[self.tail];
        self.gsum.min += gmin - oldest.min;
        self.gsum.max += gmax - oldest.max;
        self.gradients[self.tail] = MinMax { min: gmin, max: gmax };
        self.tail = (self.tail + 1) % self.gradients.len();
        gmin = self.gsum.min;
        gmax = self.gsum.max;
        let mut grad = if gmin > 0 { gmin } else { gmax };
        if !self.gfilled {
            if self.tail == 0 {
                self.gfilled = true;
            } else {
                grad = grad * self.gradients.len() as i64 / self.tail as i64;
            }
        }
        if gmin <= -EFFECTUAL_DROP || gmax <= -EFFECTUAL_DROP {
            self.backoff_cnt = 0;
        }
        if self.config.use_tolerance {
            let round = |g: i64| (g + g.signum() * TOLERANCE_UNIT / 2) / TOLERANCE_UNIT;
            let (gmin, gmax) = (round(gmin), round(gmax));
            if gmin > 0 && gmax <= 0 {
                self.state = QueueState::Full;
            } else if (gmin > 0 && gmax > 0) || gmax < 0 {
                self.state = QueueState::NonFull;
            }
        }
        grad
    }

    /// tcp_cdg.c `tcp_cdg_backoff`: draw; unless the backoff is ineffectual, reduce.
    fn backoff(&mut self, grad: i64, snd_nxt: u64) -> bool {
        if unit_f64(&mut self.rng) >= backoff_probability(grad, self.config.backoff_factor) {
            return false;
        }
        if self.config.use_ineff > 0 {
            self.backoff_cnt += 1;
            if self.backoff_cnt > self.config.use_ineff {
                return false;
            }
        }
        self.shadow_wnd = self.shadow_wnd.max(self.window.cwnd);
        self.state = QueueState::Backoff;
        let ssthresh = self.loss_ssthresh();
        self.window.ssthresh = ssthresh;
        self.window.cwnd = ssthresh;
        self.window.credit = 0;
        self.cwr_until = Some(snd_nxt);
        self.pending_event = Some("cdg_backoff");
        true
    }

    /// tcp_cdg.c `tcp_cdg_ssthresh`.
    pub(crate) fn loss_ssthresh(&mut self) -> u32 {
        let cwnd = self.window.cwnd;
        if self.state == QueueState::Backoff {
            return ((cwnd as u64 * self.config.backoff_beta.min(1024) as u64) >> 10).max(2) as u32;
        }
        if self.state == QueueState::NonFull && self.config.use_tolerance {
            return cwnd.max(2);
        }
        self.shadow_wnd = (self.shadow_wnd >> 1).min(cwnd);
        if self.config.use_shadow {
            self.shadow_wnd.max(cwnd >> 1).max(2)
        } else {
            (cwnd >> 1).max(2)
        }
    }

    /// tcp_cdg.c `tcp_cdg_hystart_update`: end slow start on an ACK train as long as half the
    /// minimum RTT, or on a round minimum 1/8 above the smallest.
    fn hystart_update(&mut self, now: SimTime, cwnd_limited: bool) {
        if self.rtt.min > 0 {
            let round_min = self.rtt.min as SimDuration;
            self.delay_min = if self.delay_min == 0 { round_min } else { self.delay_min.min(round_min) };
        }
        if self.delay_min == 0 {
            return;
        }
        if self.config.hystart_detect & 1 != 0 {
            match self.last_ack {
                Some(last) if cwnd_limited => {
                    if now < last + ACK_TRAIN_GAP {
                        self.last_ack = Some(now);
                        if now > self.round_start + (self.delay_min / 2).max(HYSTART_FLOOR) {
                            self.exit_slow_start("cdg_hystart_ack_train");
                            return;
                        }
                    }
                }
                _ => {
                    self.last_ack = Some(now);
                    self.round_start = now;
                }
            }
        }
        if self.config.hystart_detect & 2 != 0 {
            if self.sample_cnt < HYSTART_DELAY_SAMPLES {
                self.sample_cnt += 1;
            } else {
                let threshold = (self.delay_min + self.delay_min / 8).max(HYSTART_FLOOR);
                if self.rtt.min > threshold as i64 {
                    self.exit_slow_start("cdg_hystart_delay");
                }
            }
        }
    }

    fn exit_slow_start(&mut self, event: &'static str) {
        // At least two segments, as every ssthresh here: after a timeout cwnd may be one segment
        // when HyStart fires (found by the algorithm fuzz target).
        self.window.ssthresh = self.window.cwnd.max(2);
        self.pending_event = Some(event);
    }

    /// Linux's CA_EVENT_COMPLETE_CWR: the reduction round is over; the next gradient compares
    /// with the RTTs seen during it.
    fn start_round_after_reduction(&mut self, snd_nxt: u64) {
        self.state = QueueState::Unknown;
        self.rtt_seq = snd_nxt;
        self.rtt_prev = self.rtt;
        self.rtt = MinMax::default();
    }

    /// tcp_cdg.c `tcp_cdg_cong_avoid`.
    fn cong_avoid(&mut self, ack: &AckEvent) {
        if self.window.in_slow_start() && self.config.hystart_detect != 0 {
            self.hystart_update(ack.now, ack.cwnd_limited);
        }
        if ack.snd_una > self.rtt_seq && !self.rtt.is_empty() {
            let grad = if self.rtt_prev.is_empty() { 0 } else { self.gradient() };
            self.rtt_seq = ack.snd_nxt;
            self.rtt_prev = self.rtt;
            self.rtt = MinMax::default();
            self.last_ack = None;
            self.sample_cnt = 0;
            if grad > 0 && self.backoff(grad, ack.snd_nxt) {
                return;
            }
        }
        if !ack.cwnd_limited {
            self.shadow_wnd = self.shadow_wnd.min(self.window.cwnd);
            return;
        }
        let prior = self.window.cwnd;
        self.window.reno_increase(ack.acked_segments);
        self.shadow_wnd = self.shadow_wnd.saturating_add(self.window.cwnd.saturating_sub(prior));
    }
}

impl CongestionControl for Cdg {
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(rtt) = ack.rtt_sample.filter(|&r| r > 0) {
            self.on_rtt_sample(rtt, ack.acked_segments, ack.snd_una_advanced && !ack.in_recovery);
        }
        if let Some(until) = self.cwr_until {
            if ack.snd_una < until {
                return;
            }
            self.cwr_until = None;
            self.complete_cwr = true;
        }
        if std::mem::take(&mut self.complete_cwr) {
            self.start_round_after_reduction(ack.snd_nxt);
        }
        if ack.may_raise_cwnd() {
            self.cong_avoid(ack);
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let ssthresh = self.loss_ssthresh();
        self.window.reduce(ssthresh, event.kind);
        self.cwr_until = None;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.window.cwnd = self.window.ssthresh;
        self.complete_cwr = true;
    }

    fn take_event(&mut self) -> Option<&'static str> {
        self.pending_event.take()
    }

    super::window::window_outputs!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CongestionKind;

    const US: i64 = NANOS_PER_MICRO as i64;
    const MS: i64 = NANOS_PER_MILLI as i64;

    fn cdg(config: CdgConfig) -> Cdg {
        Cdg::new(config, ConnectionInfo::new(1000, 10, 7))
    }

    #[test]
    fn backoff_probability_is_one_minus_exp_of_minus_gradient_times_factor() {
        // g = 1000 us summed over the window: x = 1000 x 42 / 1e6 = 0.042, P = 1 - e^-0.042 =
        // 1 - 0.958870 = 0.041130.
        assert!((backoff_probability(1000 * US, 42) - 0.041130).abs() < 1e-6);
        // g = 8 ms (1 ms per round over 8 rounds): x = 0.336, P = 1 - 0.714623 = 0.285377; the
        // paper's form with G = 1000 / (42 x 8) = 2.976 ms: 1 - e^(-1 / 2.976), the same.
        assert!((backoff_probability(8 * MS, 42) - 0.285377).abs() < 1e-6);
        assert_eq!(backoff_probability(0, 42), 0.0);
        // Drawn from the connection's seed, backoffs happen at that rate: 10,000 draws at
        // P = 0.285377 give 2854 expected, standard deviation sqrt(10000 P (1 - P)) = 45; allow 4.
        let mut c = cdg(CdgConfig { use_ineff: 0, ..CdgConfig::default() });
        let mut backoffs = 0;
        for _ in 0..10_000 {
            c.window.cwnd = 100;
            c.state = QueueState::Unknown;
            backoffs += c.backoff(8 * MS, 0) as i32;
        }
        assert!((backoffs - 2854).abs() < 4 * 45, "{backoffs} backoffs in 10,000");
    }

    #[test]
    fn a_backoff_multiplies_cwnd_by_beta_and_the_shadow_keeps_the_old_window() {
        let mut c = cdg(CdgConfig::default());
        c.window.cwnd = 100;
        c.shadow_wnd = 90;
        // P = 1 - e^-(1 s x 42 / 1e6 per us) = 1 - e^-42: certain.
        assert!(c.backoff(1_000 * MS, 5000));
        // 100 x 724 / 1024 = 70.7 -> 70; the shadow takes max(90, 100) = 100.
        assert_eq!((c.window.cwnd, c.window.ssthresh, c.shadow_wnd), (70, 70, 100));
        assert_eq!(c.cwr_until, Some(5000));
    }

    #[test]
    fn a_loss_halves_the_shadow_window_too() {
        // cwnd 100, shadow 160 (from before delay backoffs): shadow = min(160 / 2, 100) = 80,
        // ssthresh = max(2, 80, 100 / 2) = 80 instead of Reno's 50.
        let mut c = cdg(CdgConfig::default());
        c.window.cwnd = 100;
        c.shadow_wnd = 160;
        assert_eq!(c.loss_ssthresh(), 80);
        assert_eq!(c.shadow_wnd, 80);
        // Without the shadow: 50. In the backoff state: 100 x 724 / 1024 = 70.
        let mut c = cdg(CdgConfig { use_shadow: false, ..CdgConfig::default() });
        (c.window.cwnd, c.shadow_wnd) = (100, 160);
        assert_eq!(c.loss_ssthresh(), 50);
        c.state = QueueState::Backoff;
        assert_eq!(c.loss_ssthresh(), 70);
        // Through the trait: a fast retransmit sets cwnd = ssthresh = 80.
        let mut c = cdg(CdgConfig::default());
        (c.window.cwnd, c.shadow_wnd) = (100, 160);
        c.on_congestion_event(&CongestionEvent {
            now: 0,
            kind: CongestionKind::FastRetransmit,
            bytes_in_flight: 0,
            snd_nxt: 0,
        });
        assert_eq!((c.window.cwnd, c.window.ssthresh), (80, 80));
    }

    /// Ends a round whose RTTs were `min`..`max` ms and returns the gradient sum.
    fn round(c: &mut Cdg, min: i64, max: i64) -> i64 {
        c.rtt = MinMax { min: min * MS, max: max * MS };
        let grad = c.gradient();
        c.rtt_prev = c.rtt;
        grad
    }

    #[test]
    fn gradients_are_summed_over_eight_rounds_and_extrapolated_while_the_window_fills() {
        let mut c = cdg(CdgConfig::default());
        c.rtt_prev = MinMax { min: 100 * MS, max: 110 * MS };
        // The minimum rises 1 ms per round. First round: g_min = 1 ms, one of eight rounds seen:
        // extrapolated to 1 x 8 / 1 = 8 ms.
        assert_eq!(round(&mut c, 101, 111), 8 * MS);
        // Second and third rounds: sums of 2 and 3 ms over 2 and 3 rounds -> 8 ms each.
        assert_eq!(round(&mut c, 102, 112), 8 * MS);
        assert_eq!(round(&mut c, 103, 113), 8 * MS);
        for k in 4..=8 {
            round(&mut c, 100 + k, 110 + k);
        }
        assert!(c.gfilled);
        assert_eq!(c.gsum.min, 8 * MS);
        // Ninth round: the minimum falls 2 ms: the sum drops the oldest +1 and adds -2: 5 ms.
        assert_eq!(round(&mut c, 106, 116), 5 * MS);
        // The minimum's sum can go non-positive; then the maximum's sum is used: four rounds
        // with min -2 ms and max +1 ms: g_min sum 5 - 4 x 1 - 4 x 2 = -7 ms, g_max sum 5 - 4 + 4.
        for k in 1..=4 {
            round(&mut c, 106 - 2 * k, 116 + k);
        }
        assert_eq!(c.gsum.min, -7 * MS);
        assert_eq!(c.gsum.max, 5 * MS);
        // A falling sum of 32 us or more counts as an effectual backoff.
        c.backoff_cnt = 3;
        round(&mut c, 97, 121);
        assert_eq!(c.backoff_cnt, 0);
    }

    #[test]
    fn the_delayed_ack_filter_lets_a_lone_one_segment_ack_only_lower_the_minimum() {
        let mut c = cdg(CdgConfig::default());
        c.on_rtt_sample(50_000_000, 2, true);
        c.on_rtt_sample(52_000_000, 2, true);
        assert_eq!((c.rtt.min, c.rtt.max, c.delack), (50 * MS, 52 * MS, 2));
        // A one-segment ACK at 90 ms (a delayed ACK's timer) does not raise the maximum.
        c.on_rtt_sample(90_000_000, 1, true);
        assert_eq!((c.rtt.min, c.rtt.max, c.delack), (50 * MS, 52 * MS, 1));
        // Outside the filter (in recovery) every sample counts.
        c.on_rtt_sample(90_000_000, 1, false);
        assert_eq!(c.rtt.max, 90 * MS);
    }

    #[test]
    fn ineffectual_backoffs_stop_after_five() {
        let mut c = cdg(CdgConfig::default());
        c.window.cwnd = 1000;
        let certain = 1_000 * MS;
        for _ in 0..5 {
            assert!(c.backoff(certain, 0));
            c.state = QueueState::Unknown;
        }
        assert!(!c.backoff(certain, 0), "the sixth backoff without a falling delay is skipped");
        assert_eq!(c.window.cwnd, 1000 * 724 / 1024 * 724 / 1024 * 724 / 1024 * 724 / 1024 * 724 / 1024);
    }
}
