//! `nv`: TCP-NV (New Vegas; Brakmo, "TCP-NV: An Update to TCP-Vegas", 2010 notes) as Linux's
//! tcp_nv.c implements it. There is no paper beyond the notes; Linux's module is the reference.
//!
//! NV measures congestion by rate, not by RTT difference. On every ACK: the delivery rate =
//! bytes delivered since the acknowledged segment was sent / a smoothed RTT (rtt_factor / 256 of
//! the new sample, the rest the previous average); the round's largest rate is kept. Once per
//! RTT, when enough ACKs were seen, the window the path needs at that rate over the minimum RTT
//! is cwnd_by_slope = max rate x min RTT / MSS, and max_win = cwnd_by_slope + pad:
//! - cwnd > max_win (more than `pad` segments queued): after at least 2 rounds and 60 ACKs (30
//!   in the first slow start) cwnd falls by max(2, (cwnd - max_win) x cong_dec_mult / 128) (to
//!   max_win when the gap is 2 or less), ssthresh = max_win x ssthresh_factor / 8, and growth
//!   stops. Too few ACKs after more than stop_rtt_cnt rounds also stops growth;
//! - cwnd <= max_win - pad_buffer: after at least 20 ACKs growth is allowed again;
//! - in between: no change.
//!
//! Growth is Reno's (slow start, then one segment per window) while allowed. A loss sets
//! ssthresh = cwnd x loss_dec_factor / 1024 (819: 80%) and stops growth until the next decision.
//! A timeout also halves the growth rate: cnt = cwnd x 2^k for k up to 8 (nv_cwnd_growth_rate_neg
//! = 8 no-congestion decisions restore one step; nv_cwnd_growth_rate_pos = 0 never makes it
//! faster than Reno). The minimum RTT is the smallest smoothed RTT, and is replaced by the
//! smallest of the last 3/4 to 5/4 x reset_period (random) every such period (first after 2 s);
//! a decision that sees only one ACK in a round raises NV's own floor (4 segments, up to 81) for
//! TSO-like aggregation. cwnd never goes below min_cwnd (2) by NV's own decreases.
//!
//! Left out: the BPF-supplied base RTT bounds (Linux's BPF_SOCK_OPS_BASE_RTT; none here), and the
//! `nv_catchup` state, which nothing in Linux sets. Rates are bits per second and times
//! nanoseconds (Linux: 100 bit/s units, microseconds, jiffies).

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::{SegmentWindow, INFINITE_SSTHRESH};
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};
use crate::time::{SimDuration, SimTime, NANOS_PER_SEC};
use crate::units::Duration;

/// NV's own starting floor for a decision (tcp_nv.c NV_MIN_CWND), its step and cap for
/// TSO-like aggregation (NV_MIN_CWND_GROW, NV_TSO_CWND_BOUND + 1).
const DECISION_MIN_CWND: u32 = 4;
const DECISION_MIN_CWND_STEP: u32 = 2;
const DECISION_MIN_CWND_CAP: u32 = 81;
/// The first min-RTT replacement comes this long after the start (tcp_nv.c tcpnv_init).
const FIRST_RESET: SimDuration = 2 * NANOS_PER_SEC;
/// Slowest growth after timeouts: one segment per cwnd x 2^8 acked segments.
const MIN_GROWTH_FACTOR: i32 = -8;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NvConfig {
    /// Segments allowed in queues before NV decreases (nv_pad).
    pub pad: u32,
    /// No growth within this many segments of the limit (nv_pad_buffer).
    pub pad_buffer: u32,
    /// Period of the minimum-RTT replacement (nv_reset_period), randomised x [3/4, 5/4).
    pub reset_period: Duration,
    /// NV's decreases stop here (nv_min_cwnd).
    pub min_cwnd: u32,
    /// Decrease by this / 128 of the excess (nv_cong_dec_mult; Linux 30 x 128 / 100 = 38).
    pub cong_dec_mult: u32,
    /// ssthresh = max_win x this / 8 at a decrease (nv_ssthresh_factor).
    pub ssthresh_factor: u32,
    /// Weight of the new RTT sample in 1/256 (nv_rtt_factor; 0: no averaging).
    pub rtt_factor: u32,
    /// ssthresh = cwnd x this / 1024 at a loss (nv_loss_dec_factor).
    pub loss_dec_factor: u32,
    /// No-congestion decisions per doubling of a slowed growth rate (0: never).
    pub cwnd_growth_rate_neg: u32,
    /// No-congestion decisions per doubling beyond Reno's rate (0: never).
    pub cwnd_growth_rate_pos: u32,
    /// ACKs needed before a decrease (nv_dec_eval_min_calls).
    pub dec_eval_min_calls: u32,
    /// ACKs needed before growth resumes (nv_inc_eval_min_calls).
    pub inc_eval_min_calls: u32,
    /// ACKs needed before a decrease ends the first slow start (nv_ssthresh_eval_min_calls).
    pub ssthresh_eval_min_calls: u32,
    /// Rounds of too few ACKs after which growth stops (nv_stop_rtt_cnt).
    pub stop_rtt_cnt: u32,
    /// Rounds before a congestion decision (nv_rtt_min_cnt).
    pub rtt_min_cnt: u32,
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for NvConfig {
    fn default() -> Self {
        Self {
            pad: 10,
            pad_buffer: 2,
            reset_period: Duration(5 * NANOS_PER_SEC),
            min_cwnd: 2,
            cong_dec_mult: 30 * 128 / 100,
            ssthresh_factor: 8,
            rtt_factor: 128,
            loss_dec_factor: 819,
            cwnd_growth_rate_neg: 8,
            cwnd_growth_rate_pos: 0,
            dec_eval_min_calls: 60,
            inc_eval_min_calls: 20,
            ssthresh_eval_min_calls: 30,
            stop_rtt_cnt: 10,
            rtt_min_cnt: 2,
            freeze_when_not_cwnd_limited: true,
        }
    }
}

const fn integer(name: &'static str, min: i64, max: i64, unit: &'static str, description: &'static str) -> ParamSpec {
    ParamSpec { name, kind: ParamKind::Integer { min, max }, unit, description }
}

const PARAMS: &[ParamSpec] = &[
    integer("pad", 1, 100_000, "segments", "segments allowed in queues before NV decreases"),
    integer("pad_buffer", 0, 100_000, "segments", "no growth within this many segments of the limit"),
    ParamSpec {
        name: "reset_period",
        kind: ParamKind::Duration { min: crate::time::NANOS_PER_MILLI, max: 3600 * NANOS_PER_SEC },
        unit: "time",
        description: "period of the minimum-RTT replacement (randomised x [3/4, 5/4))",
    },
    integer("min_cwnd", 1, 100_000, "segments", "NV's decreases stop here"),
    integer("cong_dec_mult", 0, 128, "1/128", "decrease by this / 128 of the excess over max_win"),
    integer("ssthresh_factor", 1, 64, "1/8", "ssthresh = max_win x this / 8 at a decrease"),
    integer("rtt_factor", 0, 256, "1/256", "weight of a new RTT sample in the average (0: none)"),
    integer("loss_dec_factor", 1, 1024, "1/1024", "ssthresh = cwnd x this / 1024 at a loss"),
    integer(
        "cwnd_growth_rate_neg",
        0,
        1000,
        "decisions",
        "no-congestion decisions per doubling of a slowed growth rate",
    ),
    integer("cwnd_growth_rate_pos", 0, 1000, "decisions", "no-congestion decisions per doubling beyond Reno's rate"),
    integer("dec_eval_min_calls", 0, 255, "ACKs", "ACKs needed before a decrease"),
    integer("inc_eval_min_calls", 0, 255, "ACKs", "ACKs needed before growth resumes"),
    integer("ssthresh_eval_min_calls", 0, 255, "ACKs", "ACKs needed before a decrease ends the first slow start"),
    integer("stop_rtt_cnt", 0, 255, "RTTs", "rounds of too few ACKs after which growth stops"),
    integer("rtt_min_cnt", 0, 255, "RTTs", "rounds before a congestion decision"),
    FREEZE_WHEN_NOT_CWND_LIMITED,
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "nv",
    summary: "TCP-NV: shrink cwnd when the delivery rate says more than 10 segments are queued",
    source: "Brakmo, TCP-NV notes 2010; Linux net/ipv4/tcp_nv.c",
    params: PARAMS,
    defaults: defaults_of::<NvConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: NvConfig = parse_params("nv", PARAMS, params)?;
        if config.pad_buffer > config.pad {
            return Err(format!("pad_buffer = {} must not exceed pad = {}", config.pad_buffer, config.pad));
        }
        Ok(Box::new(Nv::new(config, info)))
    },
};

pub struct Nv {
    config: NvConfig,
    pub(crate) window: SegmentWindow,
    rng: Xoshiro256PlusPlus,
    pub(crate) allow_growth: bool,
    /// Counters restart when recovery ends (Linux's nv_reset).
    reset_pending: bool,
    in_loss: bool,
    /// Growth cnt = cwnd << -k below 0, max(4, cwnd >> k) from 0 (Linux cwnd_growth_factor).
    pub(crate) growth_factor: i32,
    /// ACKs with a valid rate since the last decision (at most 255, as Linux's u8).
    pub(crate) eval_calls: u32,
    /// Rounds since the last decision.
    pub(crate) rtt_count: u32,
    no_congestion_count: u32,
    decision_min_cwnd: u32,
    /// Smoothed RTT (ns), 0 before the first sample.
    last_rtt: SimDuration,
    pub(crate) min_rtt: SimDuration,
    min_rtt_new: SimDuration,
    /// When `min_rtt_new` replaces `min_rtt`; 0 until the first ACK.
    reset_at: SimTime,
    /// Largest delivery rate (bit/s) of the round.
    pub(crate) round_max_rate: u64,
    /// The round ends when an ACK passes this byte.
    pub(crate) round_start: u64,
    last_snd_una: u64,
    event: Option<&'static str>,
}

impl Nv {
    pub fn new(config: NvConfig, info: ConnectionInfo) -> Self {
        Self {
            config,
            window: SegmentWindow::for_connection(&info),
            rng: Xoshiro256PlusPlus::seed_from_u64(info.seed),
            allow_growth: true,
            reset_pending: false,
            in_loss: false,
            growth_factor: 0,
            eval_calls: 0,
            rtt_count: 0,
            no_congestion_count: 0,
            decision_min_cwnd: DECISION_MIN_CWND,
            last_rtt: 0,
            min_rtt: SimDuration::MAX,
            min_rtt_new: SimDuration::MAX,
            reset_at: 0,
            round_max_rate: 0,
            round_start: 0,
            last_snd_una: 0,
            event: None,
        }
    }

    /// Linux's tcpnv_reset: a fresh measurement after recovery.
    fn restart_counters(&mut self, snd_una: u64) {
        self.reset_pending = false;
        self.no_congestion_count = 0;
        self.rtt_count = 0;
        self.last_rtt = 0;
        self.round_max_rate = 0;
        self.round_start = snd_una;
        self.eval_calls = 0;
        self.last_snd_una = snd_una;
    }

    /// The window the round's best rate fills over the minimum RTT, plus pad (segments).
    pub(crate) fn max_win(&self) -> u32 {
        let bytes = self.round_max_rate as u128 * self.min_rtt as u128 / (8 * NANOS_PER_SEC as u128);
        (bytes / self.window.mss as u128).min(u32::MAX as u128 / 2) as u32 + self.config.pad
    }

    /// The once-per-round decision. Returns without resetting the counters when it defers.
    pub(crate) fn decide(&mut self) {
        let c = &self.config;
        let max_win = self.max_win();
        let cwnd = self.window.cwnd;
        if cwnd > max_win {
            if self.rtt_count < c.rtt_min_cnt {
                return;
            } else if self.window.ssthresh >= INFINITE_SSTHRESH {
                if self.eval_calls < c.ssthresh_eval_min_calls {
                    return;
                }
            } else if self.eval_calls < c.dec_eval_min_calls {
                if self.allow_growth && self.rtt_count > c.stop_rtt_cnt {
                    self.allow_growth = false;
                }
                return;
            }
            self.allow_growth = false;
            self.window.ssthresh = ((c.ssthresh_factor as u64 * max_win as u64) >> 3).max(2) as u32;
            if cwnd - max_win > 2 {
                let decrease = ((((cwnd - max_win) as u64) * c.cong_dec_mult as u64) >> 7).max(2);
                self.window.cwnd = cwnd.saturating_sub(decrease as u32);
            } else if c.cong_dec_mult > 0 {
                self.window.cwnd = max_win;
            }
            self.growth_factor = self.growth_factor.min(0);
            self.no_congestion_count = 0;
            self.event = Some("nv_decrease");
        } else if cwnd <= max_win - c.pad_buffer {
            if self.eval_calls < c.inc_eval_min_calls {
                return;
            }
            self.allow_growth = true;
            self.no_congestion_count += 1;
            let rate = if self.growth_factor < 0 { c.cwnd_growth_rate_neg } else { c.cwnd_growth_rate_pos };
            if rate > 0 && self.no_congestion_count > rate {
                self.growth_factor += 1;
                self.no_congestion_count = 0;
            }
        } else {
            return;
        }
        self.eval_calls = 0;
        self.rtt_count = 0;
        self.round_max_rate = 0;
        self.window.cwnd = self.window.cwnd.max(c.min_cwnd);
    }

    fn measure(&mut self, ack: &AckEvent) {
        let Some(sample) = ack.rtt_sample else { return };
        if ack.in_recovery || self.in_loss {
            return;
        }
        let bytes_acked = ack.snd_una.saturating_sub(self.last_snd_una);
        self.last_snd_una = ack.snd_una;
        // Bytes delivered between the acknowledged segment's transmission and now (Linux's
        // ack_sample in_flight).
        let delivered = ack.delivered.saturating_sub(ack.prior_delivered);
        if delivered == 0 {
            return;
        }
        let rtt = if self.config.rtt_factor == 0 {
            sample
        } else if self.last_rtt > 0 {
            let f = self.config.rtt_factor as u128;
            ((sample as u128 * f + self.last_rtt as u128 * (256 - f)) >> 8) as SimDuration
        } else {
            // The first sample: the minimum starts at twice it, so the first rounds do not judge.
            self.min_rtt = sample.saturating_mul(2);
            sample
        };
        if self.config.rtt_factor > 0 {
            self.last_rtt = rtt;
        }
        let rtt = rtt.max(1);
        let rate = (delivered as u128 * 8 * NANOS_PER_SEC as u128 / rtt as u128).min(u64::MAX as u128) as u64;
        self.round_max_rate = self.round_max_rate.max(rate);
        self.eval_calls = (self.eval_calls + 1).min(255);
        self.min_rtt = self.min_rtt.min(rtt);
        self.min_rtt_new = self.min_rtt_new.min(rtt);
        if self.reset_at == 0 {
            self.reset_at = ack.now + FIRST_RESET;
        }
        if ack.now >= self.reset_at {
            self.min_rtt = self.min_rtt_new;
            self.min_rtt_new = SimDuration::MAX;
            // Linux: period x (384 + a random byte) / 512, i.e. x [3/4, 5/4).
            let random = self.rng.next_u32() as u64 % 256;
            self.reset_at = ack.now + self.config.reset_period.nanos() * (384 + random) / 512;
            self.decision_min_cwnd = (self.decision_min_cwnd / 2).max(DECISION_MIN_CWND);
        }
        if ack.snd_una <= self.round_start {
            return;
        }
        self.round_start = ack.snd_nxt;
        self.rtt_count = (self.rtt_count + 1).min(255);
        // One ACK for a whole round: cwnd is too small to judge (aggregated ACKs); wait longer.
        if self.eval_calls == 1
            && bytes_acked >= (self.decision_min_cwnd as u64 - 1) * self.window.mss
            && self.decision_min_cwnd < DECISION_MIN_CWND_CAP
        {
            self.decision_min_cwnd = (self.decision_min_cwnd + DECISION_MIN_CWND_STEP).min(DECISION_MIN_CWND_CAP);
            self.round_start = ack.snd_nxt + self.decision_min_cwnd as u64 * self.window.mss;
            self.eval_calls = 0;
            self.allow_growth = true;
            return;
        }
        self.decide();
    }

    fn grow(&mut self, acked: u32) {
        let Some(acked) = self.window.leftover_after_slow_start(acked) else { return };
        let cwnd = self.window.cwnd;
        let w = if self.growth_factor < 0 {
            cwnd.saturating_mul(1 << -self.growth_factor)
        } else {
            (cwnd >> self.growth_factor.min(31)).max(4)
        };
        self.window.additive_increase(w, acked);
    }
}

impl CongestionControl for Nv {
    fn on_ack(&mut self, ack: &AckEvent) {
        if ack.may_raise_cwnd() && self.reset_pending {
            self.restart_counters(ack.snd_una);
        }
        // Linux runs pkts_acked before cong_avoid.
        self.measure(ack);
        if !ack.may_raise_cwnd() || (self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited) {
            return;
        }
        if self.allow_growth {
            self.grow(ack.acked_segments);
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let cwnd = self.window.cwnd as u64;
        self.window.reduce(((cwnd * self.config.loss_dec_factor as u64) >> 10) as u32, event.kind);
        self.reset_pending = true;
        self.allow_growth = false;
        if event.kind == CongestionKind::Timeout {
            self.in_loss = true;
            self.growth_factor = self.growth_factor.min(0);
            if self.config.cwnd_growth_rate_neg > 0 && self.growth_factor > MIN_GROWTH_FACTOR {
                self.growth_factor -= 1;
            }
        }
    }

    fn on_timeout_recovery_exit(&mut self, _now: SimTime) {
        self.in_loss = false;
    }

    fn take_event(&mut self) -> Option<&'static str> {
        self.event.take()
    }

    super::window::reno_like_window!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MILLI as MS;

    fn nv(cwnd: u32, ssthresh: u32) -> Nv {
        let mut n = Nv::new(NvConfig::default(), ConnectionInfo::new(1000, 10, 1));
        n.window.cwnd = cwnd;
        n.window.ssthresh = ssthresh;
        n
    }

    #[test]
    fn decrease_when_the_rate_falls_short_of_the_window_by_more_than_pad() {
        // min RTT 10 ms, best rate 40 Mbit/s: 40e6 x 0.01 / 8 = 50000 B = 50 segments of 1000 B;
        // max_win = 50 + 10 = 60. cwnd 100 > 60 after 2 rounds and 60 ACKs (not slow start):
        // decrease = max(2, 40 x 38 / 128 = 11.875 -> 11) -> 89; ssthresh = 60 x 8 / 8 = 60.
        let mut n = nv(100, 80);
        (n.min_rtt, n.round_max_rate, n.rtt_count, n.eval_calls) = (10 * MS, 40_000_000, 2, 60);
        assert_eq!(n.max_win(), 60);
        n.decide();
        assert_eq!((n.window.cwnd, n.window.ssthresh, n.allow_growth), (89, 60, false));
        // A gap of 2 or less sets cwnd = max_win: cwnd 62 -> 60.
        let mut n = nv(62, 80);
        (n.min_rtt, n.round_max_rate, n.rtt_count, n.eval_calls) = (10 * MS, 40_000_000, 2, 60);
        n.decide();
        assert_eq!(n.window.cwnd, 60);
        // Too few ACKs (59 < 60): no decision yet; after more than 10 rounds growth stops.
        let mut n = nv(100, 80);
        (n.min_rtt, n.round_max_rate, n.rtt_count, n.eval_calls) = (10 * MS, 40_000_000, 11, 59);
        n.decide();
        assert_eq!((n.window.cwnd, n.allow_growth), (100, false));
        // At or below max_win - pad_buffer = 58 with 20 ACKs: growth allowed.
        let mut n = nv(58, 80);
        (n.min_rtt, n.round_max_rate, n.rtt_count, n.eval_calls, n.allow_growth) = (10 * MS, 40_000_000, 2, 20, false);
        n.decide();
        assert!(n.allow_growth);
    }

    #[test]
    fn loss_keeps_eighty_percent_and_stops_growth() {
        // 100 x 819 / 1024 = 79.98 -> 79.
        let mut n = nv(100, INFINITE_SSTHRESH);
        let loss = CongestionEvent { now: 0, kind: CongestionKind::FastRetransmit, bytes_in_flight: 0, snd_nxt: 0 };
        n.on_congestion_event(&loss);
        assert_eq!((n.window.cwnd, n.window.ssthresh, n.allow_growth), (79, 79, false));
        // A timeout also slows growth: one segment per 2 x cwnd acked segments.
        n.on_congestion_event(&CongestionEvent { kind: CongestionKind::Timeout, ..loss });
        assert_eq!((n.window.cwnd, n.window.ssthresh, n.growth_factor), (1, 63, -1));
    }
}
