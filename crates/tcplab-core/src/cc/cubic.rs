//! `cubic`: CUBIC congestion control, RFC 9438, with the details of Linux's tcp_cubic.c (v2.3).
//!
//! The window function is W(t) = C (t - K)^3 + W_max with K = cbrt((W_max - cwnd_epoch) / C),
//! t in seconds and windows in segments. Where tcplab follows Linux rather than the RFC:
//! - per-ACK growth aims at the target one minimum RTT ahead, W(t + min_rtt), and is applied as
//!   "one segment per `cnt` acked segments" with cnt = cwnd / (target - cwnd), or 100 * cwnd when
//!   the target is not above cwnd; cnt <= 20 until the first loss; cnt >= 2 (at most 1.5x per RTT);
//! - the Reno-friendly estimate W_est grows by one segment per cwnd / alpha acked segments,
//!   alpha = 3 (1 - beta) / (1 + beta), and caps cnt when W_est is ahead (RFC 9438 section 4.3);
//! - fast convergence: on loss with cwnd < W_max, W_max = cwnd (1 + beta) / 2 (section 4.7);
//! - ssthresh = max(floor(beta * cwnd), 2) segments from cwnd (not FlightSize);
//! - after a timeout all CUBIC state (W_max, epoch, min RTT) is reset, as Linux's
//!   cubictcp_state(TCP_CA_Loss) does; RTT samples within 1 s of an epoch start are not used to
//!   lower the minimum (Linux: they may be inflated by the recovery);
//! - an idle period shifts the epoch so the curve resumes where it stopped (CA_EVENT_TX_START);
//! - HyStart (ack train and delay increase) ends slow start early by setting ssthresh = cwnd; the
//!   ACK train must span min RTT plus Linux's GSO cushion, halved for flows that are not paced
//!   (Linux 5.7+ `hystart_update`: pacing may have spread a slow-start round over RTT/2); its
//!   rounds are counted from the first ACK, its rules act from cwnd 16 (Linux 6.13's round-start
//!   fix, in the stable kernels too);
//! - growth stops while the flow is not cwnd-limited (`tcp_is_cwnd_limited`) unless disabled.
//!
//! Linux's 1/32 s cache of the target computation (`last_time`) is not modelled: the target is
//! recomputed on every ACK, which is what the RFC describes.
//!
//! CUBIC 2.1 (Linux 2.6.22, in ns-2.35's Linux agent) is a parameter set: docs/algorithms/cubic.md.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};
use crate::time::{as_secs_f64, SimDuration, SimTime, NANOS_PER_MILLI, NANOS_PER_SEC};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CubicConfig {
    /// Multiplicative decrease factor (RFC 9438 beta_cubic; Linux 717/1024).
    pub beta: f64,
    /// Cubic scaling constant C in segments / s^3.
    pub c: f64,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
    pub hystart: bool,
    pub hystart_ack_train: bool,
    pub hystart_delay: bool,
    /// HyStart acts only once cwnd reaches this many segments.
    pub hystart_low_window: u32,
    /// ACKs closer together than this extend an ACK train.
    pub hystart_ack_delta: crate::units::Duration,
    pub freeze_when_not_cwnd_limited: bool,
    /// CUBIC 2.1's Smax: above the origin cnt >= cwnd x 100 ms / (Smax x min RTT); 0: no limit (today's Linux).
    pub max_increment: u32,
    /// Acked segments per +1 segment before the first loss (and after a timeout).
    pub cnt_before_loss: u32,
    /// "at_most": cnt is capped at `cnt_before_loss` (today's Linux); "exactly": set to it (CUBIC 2.1: 50).
    pub cnt_before_loss_rule: CntBeforeLossRule,
    /// The smallest cnt: 2 caps growth at 1.5x per RTT (today's Linux); CUBIC 2.1 allows 1.
    pub min_cnt: u32,
    /// Aim at W(t + min RTT) as Linux does; false: W(t) (CUBIC 2.1 without timestamps has no delay).
    pub rtt_lookahead: bool,
    /// cnt is divided by this: CUBIC 2.1's segments-per-ACK estimate, stuck at 31/16 = 1.9375.
    pub cnt_divisor: f64,
}

/// How `cnt_before_loss` applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CntBeforeLossRule {
    AtMost,
    Exactly,
}

impl Default for CubicConfig {
    fn default() -> Self {
        Self {
            beta: 0.7,
            c: 0.4,
            fast_convergence: true,
            tcp_friendliness: true,
            hystart: true,
            hystart_ack_train: true,
            hystart_delay: true,
            hystart_low_window: 16,
            hystart_ack_delta: crate::units::Duration(2 * NANOS_PER_MILLI),
            freeze_when_not_cwnd_limited: true,
            max_increment: 0,
            cnt_before_loss: 20,
            cnt_before_loss_rule: CntBeforeLossRule::AtMost,
            min_cnt: 2,
            rtt_lookahead: true,
            cnt_divisor: 1.0,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "beta",
        kind: ParamKind::Float { min: 0.1, max: 0.99 },
        unit: "",
        description: "multiplicative decrease factor beta_cubic",
    },
    ParamSpec {
        name: "c",
        kind: ParamKind::Float { min: 0.01, max: 10.0 },
        unit: "segments/s^3",
        description: "cubic scaling constant C",
    },
    ParamSpec {
        name: "fast_convergence",
        kind: ParamKind::Bool,
        unit: "",
        description: "release bandwidth faster when W_max shrinks",
    },
    ParamSpec {
        name: "tcp_friendliness",
        kind: ParamKind::Bool,
        unit: "",
        description: "grow at least as fast as Reno (the Reno-friendly region)",
    },
    ParamSpec {
        name: "hystart",
        kind: ParamKind::Bool,
        unit: "",
        description: "hybrid slow start: leave slow start before the first loss",
    },
    ParamSpec {
        name: "hystart_ack_train",
        kind: ParamKind::Bool,
        unit: "",
        description: "HyStart exits when an ACK train spans half the minimum RTT",
    },
    ParamSpec {
        name: "hystart_delay",
        kind: ParamKind::Bool,
        unit: "",
        description: "HyStart exits when a round's minimum RTT rises by clamp(min_rtt/8, 4ms, 16ms)",
    },
    ParamSpec {
        name: "hystart_low_window",
        kind: ParamKind::Integer { min: 2, max: 100_000 },
        unit: "segments",
        description: "HyStart acts only from this cwnd on",
    },
    ParamSpec {
        name: "hystart_ack_delta",
        kind: ParamKind::Duration { min: 1_000, max: 100 * NANOS_PER_MILLI },
        unit: "time",
        description: "maximum ACK spacing inside an ACK train",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
    ParamSpec {
        name: "max_increment",
        kind: ParamKind::Integer { min: 0, max: 100_000 },
        unit: "segments per 100 ms",
        description:
            "CUBIC 2.0/2.1's Smax: above the origin grow at most this much per 100 ms of min RTT; 0 = no limit",
    },
    ParamSpec {
        name: "cnt_before_loss",
        kind: ParamKind::Integer { min: 1, max: 100_000 },
        unit: "segments",
        description: "acked segments per +1 segment before the first loss and after a timeout",
    },
    ParamSpec {
        name: "cnt_before_loss_rule",
        kind: ParamKind::Choice { allowed: &["at_most", "exactly"] },
        unit: "",
        description: "cnt_before_loss caps cnt (today's Linux) or replaces it (CUBIC 2.0/2.1)",
    },
    ParamSpec {
        name: "min_cnt",
        kind: ParamKind::Integer { min: 1, max: 100 },
        unit: "segments",
        description: "smallest cnt: 2 = at most 1.5x per RTT (today's Linux), 1 = up to 2x (CUBIC 2.1)",
    },
    ParamSpec {
        name: "rtt_lookahead",
        kind: ParamKind::Bool,
        unit: "",
        description: "aim at W(t + min RTT) rather than W(t)",
    },
    ParamSpec {
        name: "cnt_divisor",
        kind: ParamKind::Float { min: 0.1, max: 10.0 },
        unit: "",
        description: "divide cnt by this (CUBIC 2.1's stuck segments-per-ACK estimate: 1.9375)",
    },
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "cubic",
    summary: "CUBIC (RFC 9438) with Linux v2.3 details: fast convergence, Reno-friendly region, HyStart",
    source: "RFC 9438; Linux net/ipv4/tcp_cubic.c (per-ACK cnt, HyStart, idle epoch shift)",
    params: PARAMS,
    defaults: defaults_of::<CubicConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: CubicConfig = parse_params("cubic", PARAMS, params)?;
        Ok(Box::new(Cubic::new(config, info)))
    },
};

/// Samples a HyStart delay round needs before it may decide (Linux HYSTART_MIN_SAMPLES).
const HYSTART_MIN_SAMPLES: u32 = 8;

/// Linux's `hystart_ack_delay`: the time of two 64 KB GSO bursts (one sent, one queued) at the
/// pacing rate, doubled again because the rate is doubled in slow start; at most 1 ms.
fn hystart_ack_cushion(pacing_rate_bps: u64) -> SimDuration {
    const GSO_MAX_BITS: u128 = 65_536 * 8;
    if pacing_rate_bps == 0 {
        return 0;
    }
    let nanos = GSO_MAX_BITS * 4 * NANOS_PER_SEC as u128 / pacing_rate_bps as u128;
    (nanos.min(NANOS_PER_MILLI as u128)) as SimDuration
}
/// Bounds of the HyStart delay threshold (Linux HYSTART_DELAY_MIN / _MAX).
const HYSTART_DELAY_MIN: SimDuration = 4 * NANOS_PER_MILLI;
const HYSTART_DELAY_MAX: SimDuration = 16 * NANOS_PER_MILLI;

pub struct Cubic {
    config: CubicConfig,
    pub(crate) window: SegmentWindow,
    /// W_max in segments (Linux last_max_cwnd); 0 before the first loss.
    pub(crate) w_max: u32,
    epoch_start: Option<SimTime>,
    /// cwnd at which the current epoch's curve is anchored (W_max or cwnd), segments.
    origin_point: u32,
    /// K in seconds.
    pub(crate) k: f64,
    /// Acked segments counted towards the Reno-friendly estimate.
    ack_count: u32,
    /// The Reno-friendly estimate W_est, segments.
    reno_estimate: u32,
    /// Acked segments per +1 segment of cwnd, from the last update.
    pub(crate) cnt: u32,
    min_rtt: Option<SimDuration>,
    last_send: SimTime,
    hystart: HyStart,
}

#[derive(Default)]
struct HyStart {
    found: bool,
    round_start: SimTime,
    last_ack: SimTime,
    end_seq: u64,
    round_min_rtt: Option<SimDuration>,
    samples: u32,
}

impl Cubic {
    pub fn new(config: CubicConfig, info: ConnectionInfo) -> Self {
        Self {
            config,
            window: SegmentWindow::for_connection(&info),
            w_max: 0,
            epoch_start: None,
            origin_point: 0,
            k: 0.0,
            ack_count: 0,
            reno_estimate: 0,
            cnt: 0,
            min_rtt: None,
            last_send: 0,
            hystart: HyStart::default(),
        }
    }

    /// Reno-friendly additive increase alpha = 3 (1 - beta) / (1 + beta).
    fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.config.beta) / (1.0 + self.config.beta)
    }

    /// W(t) in segments for t seconds after the epoch start: origin + C (t - K)^3, truncated to
    /// whole segments towards the origin as Linux's fixed-point computation does.
    pub fn window_at(&self, t: f64) -> f64 {
        let offset = t - self.k;
        let delta = (self.config.c * offset.abs().powi(3)).floor();
        if offset >= 0.0 {
            self.origin_point as f64 + delta
        } else {
            self.origin_point as f64 - delta
        }
    }

    /// Linux bictcp_update: recompute `cnt` for this ACK.
    fn update(&mut self, now: SimTime, acked: u32) {
        let cwnd = self.window.cwnd;
        self.ack_count = self.ack_count.saturating_add(acked);
        let epoch_start = match self.epoch_start {
            Some(start) => start,
            None => {
                self.epoch_start = Some(now);
                self.ack_count = acked;
                self.reno_estimate = cwnd;
                if self.w_max <= cwnd {
                    self.k = 0.0;
                    self.origin_point = cwnd;
                } else {
                    self.k = ((self.w_max - cwnd) as f64 / self.config.c).cbrt();
                    self.origin_point = self.w_max;
                }
                now
            }
        };
        let lookahead = if self.config.rtt_lookahead { self.min_rtt.unwrap_or(0) } else { 0 };
        let t = as_secs_f64(now - epoch_start + lookahead);
        let target = self.window_at(t);
        self.cnt = if target > cwnd as f64 {
            ((cwnd as f64 / (target - cwnd as f64)).floor() as u32).max(1)
        } else {
            // Linux: 100 * cwnd, "very small increment"; saturating, as cwnd may reach 2^32 / 100.
            cwnd.saturating_mul(100)
        };
        if let (Some(min_rtt), true) = (self.min_rtt, self.config.max_increment > 0 && t >= self.k) {
            let min_cnt = cwnd as f64 * 0.1 / (self.config.max_increment as f64 * as_secs_f64(min_rtt.max(1)));
            self.cnt = self.cnt.max(min_cnt.floor().min(u32::MAX as f64) as u32);
        }
        if self.w_max == 0 {
            self.cnt = match self.config.cnt_before_loss_rule {
                CntBeforeLossRule::AtMost => self.cnt.min(self.config.cnt_before_loss),
                CntBeforeLossRule::Exactly => self.config.cnt_before_loss,
            };
        }
        if self.config.tcp_friendliness {
            let acks_per_segment = ((cwnd as f64 / self.alpha()).floor() as u32).max(1);
            while self.ack_count > acks_per_segment {
                self.ack_count -= acks_per_segment;
                self.reno_estimate += 1;
            }
            if self.reno_estimate > cwnd {
                let max_cnt = cwnd / (self.reno_estimate - cwnd);
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        self.cnt = ((self.cnt as f64 / self.config.cnt_divisor).floor() as u32).max(self.config.min_cnt);
    }

    fn hystart_reset(&mut self, now: SimTime, snd_nxt: u64) {
        self.hystart.round_start = now;
        self.hystart.last_ack = now;
        self.hystart.end_seq = snd_nxt;
        self.hystart.round_min_rtt = None;
        self.hystart.samples = 0;
    }

    fn hystart_update(&mut self, ack: &AckEvent, rtt: SimDuration) {
        if ack.snd_una > self.hystart.end_seq {
            self.hystart_reset(ack.now, ack.snd_nxt);
        }
        // Rounds are counted from the first ACK on; only detection waits for the low window
        // (Linux 6.13, "tcp_cubic: fix incorrect HyStart round start detection", backported to
        // the stable kernels: rounds that began only once cwnd reached 16 started mid-flight,
        // where the first delay samples already carry the queue, so the delay rule fired a round
        // early: ssthresh 197 KB against the kernel's 357 KB for one flow at 50 Mbit/s, 40 ms).
        if self.window.cwnd < self.config.hystart_low_window {
            return;
        }
        let min_rtt = self.min_rtt.unwrap_or(rtt);
        if self.config.hystart_ack_train && ack.now - self.hystart.last_ack <= self.config.hystart_ack_delta.nanos() {
            self.hystart.last_ack = ack.now;
            // Linux 5.7+: the train must span the minimum RTT plus a GSO cushion; unpaced flows
            // only half of that, since pacing may have spread a slow-start round over RTT/2.
            let mut threshold = min_rtt + hystart_ack_cushion(ack.pacing_rate);
            if !ack.paced {
                threshold /= 2;
            }
            if ack.now - self.hystart.round_start > threshold {
                self.exit_slow_start();
            }
        }
        if self.config.hystart_delay && !self.hystart.found {
            let round_min = self.hystart.round_min_rtt.map_or(rtt, |r| r.min(rtt));
            self.hystart.round_min_rtt = Some(round_min);
            if self.hystart.samples < HYSTART_MIN_SAMPLES {
                self.hystart.samples += 1;
            } else {
                let threshold = (min_rtt / 8).clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX);
                if round_min > min_rtt + threshold {
                    self.exit_slow_start();
                }
            }
        }
    }

    fn exit_slow_start(&mut self) {
        self.hystart.found = true;
        self.window.ssthresh = self.window.cwnd;
    }

    /// ROCCET's congestion event (papers/tcp-roccet.txt): W_max is only ever raised (no fast
    /// convergence), cwnd = max(floor(beta cwnd), 2), ssthresh = cwnd, and a new epoch starts.
    pub(crate) fn roccet_reduction(&mut self) {
        let cwnd = self.window.cwnd;
        self.w_max = self.w_max.max(cwnd);
        self.epoch_start = None;
        let reduced = ((cwnd as f64 * self.config.beta).floor() as u32).max(2);
        self.window.cwnd = reduced;
        self.window.ssthresh = reduced;
        self.window.credit = 0;
    }

    fn reset(&mut self) {
        self.w_max = 0;
        self.epoch_start = None;
        self.origin_point = 0;
        self.k = 0.0;
        self.ack_count = 0;
        self.reno_estimate = 0;
        self.cnt = 0;
        self.min_rtt = None;
        self.hystart = HyStart::default();
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, ack: &AckEvent) {
        // Linux cubictcp_acked: track the minimum RTT, feed HyStart.
        if let Some(rtt) = ack.rtt_sample {
            let settling = self.epoch_start.is_some_and(|start| ack.now - start < NANOS_PER_SEC);
            if !settling {
                self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
            }
            if self.config.hystart && !self.hystart.found && self.window.in_slow_start() {
                self.hystart_update(ack, rtt);
            }
        }
        // Linux cubictcp_cong_avoid.
        if !ack.may_raise_cwnd() || (self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited) {
            return;
        }
        let Some(acked) = self.window.leftover_after_slow_start(ack.acked_segments) else {
            return;
        };
        self.update(ack.now, acked);
        let cnt = self.cnt;
        self.window.additive_increase(cnt, acked);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let cwnd = self.window.cwnd;
        self.epoch_start = None;
        self.w_max = if cwnd < self.w_max && self.config.fast_convergence {
            (cwnd as f64 * (1.0 + self.config.beta) / 2.0).floor() as u32
        } else {
            cwnd
        };
        self.window.ssthresh = ((cwnd as f64 * self.config.beta).floor() as u32).max(2);
        self.window.credit = 0;
        match event.kind {
            CongestionKind::Timeout => {
                let ssthresh = self.window.ssthresh;
                self.reset();
                self.window.ssthresh = ssthresh;
                self.window.cwnd = 1;
                self.hystart_reset(event.now, event.snd_nxt);
            }
            CongestionKind::FastRetransmit | CongestionKind::Ecn => self.window.cwnd = self.window.ssthresh,
        }
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.window.cwnd = self.window.ssthresh;
    }

    fn on_packet_sent(&mut self, now: SimTime, _bytes: u64, bytes_in_flight_before: u64) {
        if bytes_in_flight_before == 0 {
            if let Some(start) = self.epoch_start {
                // Idle: shift the epoch so the curve resumes where it stopped.
                let idle = now.saturating_sub(self.last_send);
                self.epoch_start = Some((start + idle).min(now));
            }
        }
        self.last_send = now;
    }

    /// HyStart's ACK-train rule widens its threshold by the pacing rate (`hystart_ack_cushion`).
    fn reads_pacing_rate(&self) -> bool {
        true
    }

    super::window::window_outputs!();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cubic() -> Cubic {
        Cubic::new(CubicConfig::default(), ConnectionInfo::new(1000, 10, 1))
    }

    fn loss(cubic: &mut Cubic, now: SimTime) {
        cubic.on_congestion_event(&CongestionEvent {
            now,
            kind: CongestionKind::FastRetransmit,
            bytes_in_flight: cubic.cwnd(),
            snd_nxt: 0,
        });
    }

    #[test]
    fn loss_sets_w_max_ssthresh_and_k() {
        // cwnd 100 segments, first loss: W_max = 100, cwnd = ssthresh = floor(0.7 * 100) = 70.
        let mut c = cubic();
        c.window.cwnd = 100;
        c.window.ssthresh = 50;
        loss(&mut c, 0);
        assert_eq!((c.w_max, c.window.cwnd, c.window.ssthresh), (100, 70, 70));
        // The next epoch: K = cbrt((100 - 70) / 0.4) = cbrt(75) = 4.2172 s.
        c.update(0, 1);
        assert!((c.k - 4.217_163).abs() < 1e-5, "K = {}", c.k);
        // W(K) = W_max; W(0) = 100 - floor(0.4 * 75) = 70; W(K + 2) = 100 + floor(0.4 * 8) = 103.
        assert_eq!(c.window_at(c.k), 100.0);
        assert_eq!(c.window_at(0.0), 70.0);
        assert_eq!(c.window_at(c.k + 2.0), 103.0);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_cwnd_is_below_it() {
        let mut c = cubic();
        c.window.cwnd = 100;
        loss(&mut c, 0);
        // Loss again at cwnd 80 < W_max 100: W_max = 80 * (1 + 0.7) / 2 = 68, ssthresh = 56.
        c.window.cwnd = 80;
        loss(&mut c, 1);
        assert_eq!((c.w_max, c.window.ssthresh), (68, 56));

        let mut slow = Cubic::new(
            CubicConfig { fast_convergence: false, ..CubicConfig::default() },
            ConnectionInfo::new(1000, 10, 1),
        );
        slow.window.cwnd = 100;
        loss(&mut slow, 0);
        slow.window.cwnd = 80;
        loss(&mut slow, 1);
        assert_eq!(slow.w_max, 80);
    }

    #[test]
    fn cnt_follows_the_distance_to_the_target() {
        let mut c = cubic();
        c.window.cwnd = 100;
        loss(&mut c, 0); // cwnd 70, W_max 100, K = 4.217 s
        c.min_rtt = Some(100 * NANOS_PER_MILLI);
        // At t = 0 (+ 0.1 s min RTT): W(0.1) = 100 - floor(0.4 * 4.117^3) = 100 - 27 = 73;
        // cnt = floor(70 / 3) = 23. The Reno-friendly estimate starts at cwnd and has not overtaken.
        c.update(0, 1);
        assert_eq!(c.cnt, 23);
        // Without tcp_friendliness at t = K + 1 s: target = 100 + floor(0.4 * 1.1^3) = 100; cnt = 70 / 30 = 2.
        let t = (c.k * 1e9) as u64 + NANOS_PER_SEC;
        c.config.tcp_friendliness = false;
        c.update(t, 1);
        assert_eq!(c.cnt, 2);
    }

    #[test]
    fn reno_friendly_region_caps_cnt_when_w_est_is_ahead() {
        let mut c = cubic();
        c.window.cwnd = 100;
        loss(&mut c, 0); // cwnd 70
        c.min_rtt = Some(10 * NANOS_PER_MILLI);
        c.update(0, 1);
        // alpha = 0.9 / 1.7 = 0.5294; W_est gains one segment per floor(70 / 0.5294) = 132 acks.
        // Feed 1000 acked segments: W_est = 70 + floor(1000 / 132) = 77 > cwnd, so
        // cnt <= 70 / (77 - 70) = 10, below the cubic cnt (about 70 / (70.x - 70) -> large).
        c.update(NANOS_PER_MILLI, 999);
        assert_eq!(c.reno_estimate, 77);
        assert_eq!(c.cnt, 10);
    }

    fn cubic_with(config: CubicConfig) -> Cubic {
        Cubic { config, ..cubic() }
    }

    #[test]
    fn max_increment_limits_growth_above_the_origin_to_smax_per_100ms() {
        // W_max 100 < cwnd 200: K = 0. At t = 10.1 s the target is 200 + floor(0.4 x 10.1^3) = 612, cnt = 200 / 412
        // -> 1, raised to min_cnt 2; with Smax 16 at a 100 ms min RTT cnt >= 200 x 0.1 / (16 x 0.1) = 12.5.
        let run = |config: CubicConfig| {
            let mut c = cubic_with(config);
            (c.window.cwnd, c.window.ssthresh, c.w_max) = (200, 150, 100);
            c.min_rtt = Some(100 * NANOS_PER_MILLI);
            c.update(0, 1);
            c.update(10 * NANOS_PER_SEC, 1);
            c.cnt
        };
        assert_eq!(run(CubicConfig::default()), 2);
        assert_eq!(run(CubicConfig { min_cnt: 1, ..CubicConfig::default() }), 1);
        assert_eq!(run(CubicConfig { max_increment: 16, ..CubicConfig::default() }), 12);
        // CUBIC 2.1's stuck segments-per-ACK estimate, 31/16: cnt = 12 x 16 / 31 = 6.
        assert_eq!(run(CubicConfig { max_increment: 16, cnt_divisor: 1.9375, ..CubicConfig::default() }), 6);
    }

    #[test]
    fn cnt_before_loss_is_a_cap_or_a_fixed_value() {
        // No loss yet (W_max 0), cwnd 100 at ssthresh: K = 0, so cnt = 100 x cwnd, capped at 20 (today's Linux)
        // or set to 50 (CUBIC 2.1). Close to the target 2.1 holds 50 where the cap leaves a smaller cnt alone.
        let run = |config: CubicConfig, now| {
            let mut c = cubic_with(config);
            (c.window.cwnd, c.window.ssthresh) = (100, 100);
            c.min_rtt = Some(100 * NANOS_PER_MILLI);
            c.update(0, 1);
            c.update(now, 1);
            c.cnt
        };
        let rule = CntBeforeLossRule::Exactly;
        let v21 = CubicConfig { cnt_before_loss: 50, cnt_before_loss_rule: rule, ..CubicConfig::default() };
        assert_eq!(run(CubicConfig::default(), 0), 20);
        assert_eq!(run(v21.clone(), 0), 50);
        // At t = 5 s (+ 0.1 s): target 100 + floor(0.4 x 5.1^3) = 153, cnt = floor(100 / 53) = 1 -> 2.
        assert_eq!(run(CubicConfig::default(), 5 * NANOS_PER_SEC), 2);
        assert_eq!(run(v21, 5 * NANOS_PER_SEC), 50);
    }

    #[test]
    fn without_rtt_lookahead_the_target_is_the_curve_now() {
        // After the loss at 100 (cwnd 70, K = cbrt(75) = 4.217 s), 1 s into the epoch: W(1.1 s) =
        // 100 - floor(0.4 x 3.117^3) = 88, cnt = 70 / 18 = 3; W(1 s) = 100 - floor(0.4 x 3.217^3) = 87, cnt = 70 / 17 = 4.
        let run = |rtt_lookahead: bool| {
            let mut c = cubic_with(CubicConfig { rtt_lookahead, ..CubicConfig::default() });
            c.window.cwnd = 100;
            loss(&mut c, 0);
            c.min_rtt = Some(100 * NANOS_PER_MILLI);
            c.update(0, 1);
            c.update(NANOS_PER_SEC, 1);
            c.cnt
        };
        assert_eq!(run(true), 3);
        assert_eq!(run(false), 4);
    }

    #[test]
    fn cnt_is_capped_at_20_before_the_first_loss() {
        let mut c = cubic();
        c.window.cwnd = 100;
        c.window.ssthresh = 100;
        c.update(0, 1);
        assert_eq!(c.cnt, 20);
    }

    #[test]
    fn timeout_resets_state_and_sets_loss_window() {
        let mut c = cubic();
        c.window.cwnd = 100;
        c.on_congestion_event(&CongestionEvent {
            now: 0,
            kind: CongestionKind::Timeout,
            bytes_in_flight: 0,
            snd_nxt: 0,
        });
        assert_eq!((c.window.cwnd, c.window.ssthresh, c.w_max), (1, 70, 0));
    }

    #[test]
    fn hystart_ack_train_threshold_is_half_for_unpaced_flows() {
        // 100 ms min RTT, 12 Mbit/s pacing rate: cushion = 64 KB x 8 x 4 / 12 Mbit/s = 175 ms,
        // capped at 1 ms. The train exits past (100 + 1) / 2 = 50.5 ms unpaced, 101 ms paced.
        assert_eq!(hystart_ack_cushion(12_000_000), NANOS_PER_MILLI);
        assert_eq!(hystart_ack_cushion(10_000_000_000), 209_715);
        assert_eq!(hystart_ack_cushion(0), 0);
        let exits_at = |paced: bool| {
            let mut c = cubic();
            c.window.cwnd = 20;
            c.min_rtt = Some(100 * NANOS_PER_MILLI);
            let mut now = 0;
            let (mut acked, mut snd_una) = (0, 0);
            // An ACK every millisecond, all within one round.
            while !c.hystart.found && now < 200 * NANOS_PER_MILLI {
                acked += 1;
                snd_una += 1000;
                let ack = AckEvent {
                    now,
                    snd_una,
                    snd_nxt: 1_000_000,
                    paced,
                    pacing_rate: 12_000_000,
                    ..AckEvent::default()
                };
                if acked == 1 {
                    c.hystart_reset(now, ack.snd_nxt);
                }
                c.hystart_update(&ack, 100 * NANOS_PER_MILLI);
                now += NANOS_PER_MILLI;
            }
            now - NANOS_PER_MILLI
        };
        assert_eq!(exits_at(false), 51 * NANOS_PER_MILLI);
        assert_eq!(exits_at(true), 102 * NANOS_PER_MILLI);
    }
}
