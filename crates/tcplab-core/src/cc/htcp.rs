//! `htcp`: H-TCP (Leith and Shorten, "H-TCP: TCP for high-speed and long-distance networks",
//! PFLDnet 2004) as Linux's tcp_htcp.c implements it.
//!
//! The additive increase depends on delta, the time since the last congestion event ended:
//! alpha(delta) = 1 for delta <= delta_L (1 s), else 1 + 10 (delta - delta_L) +
//! ((delta - delta_L) / 2)^2 (delta in seconds). With RTT scaling (Linux's use_rtt_scaling) the
//! factor is multiplied by RTTmin / 100 ms, the ratio clamped to [0.1, 2], and kept >= 1. It is
//! then scaled by 2 (1 - beta) so that the flow's average rate does not depend on beta; cwnd
//! grows by alpha segments per window of acknowledged segments. Alpha is recomputed at every
//! segment of growth and at congestion events.
//!
//! The backoff is adaptive: at a congestion event beta = RTTmin / RTTmax clamped to
//! [0.5, 0.8] (Linux's BETA_MIN 64/128 and BETA_MAX 102/128), ssthresh = max(beta cwnd, 2). Linux's
//! bandwidth switch (use_bandwidth_switch) falls back to beta = 0.5 when the maximum throughput
//! measured since the previous event differs from the one before by more than 20%
//! (4 old <= 5 new <= 6 old fails), and the adaptive beta needs one event with stable throughput
//! first (Linux's `modeswitch`). RTTmax grows only by samples at most 20 ms above it, outside
//! recovery, and fades to RTTmin + 95% of the gap at each event. An RTT-based beta needs
//! RTTmin > 10 ms.
//!
//! Fixed-point choices: Linux keeps time in jiffies (1-4 ms), alpha in 1/128 with the factor
//! rounded down to a whole number and the RTT scale in 1/8 steps. Here times are nanoseconds and
//! alpha a real number (1, 11.25 and 45 at delta = 1, 2 and 5 s, where Linux gives 1, 11, 45);
//! beta keeps Linux's 1/128 units (so its maximum is 102/128 = 0.797) and the throughput
//! estimate Linux's whole segments per second with its 3/4 EWMA.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};
use crate::time::{as_secs_f64, SimDuration, SimTime, NANOS_PER_MILLI, NANOS_PER_SEC};
use crate::units::Duration;

/// beta in 1/128 units (tcp_htcp.c: BETA_MIN 1 << 6, BETA_MAX 102).
const BETA_SCALE: u32 = 128;
const BETA_MIN: u32 = 64;
const BETA_MAX: u32 = 102;
/// The RTT the increase is normalised to by RTT scaling (tcp_htcp.c: HZ / 10).
const REFERENCE_RTT: SimDuration = 100 * NANOS_PER_MILLI;
/// RTTmax grows only by samples at most this far above it (tcp_htcp.c measure_rtt).
const MAX_RTT_STEP: SimDuration = 20 * NANOS_PER_MILLI;
/// An RTT-derived beta needs RTTmin above this (tcp_htcp.c htcp_beta_update).
const MIN_RTT_FOR_ADAPTIVE_BETA: SimDuration = 10 * NANOS_PER_MILLI;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HtcpConfig {
    /// Time after a congestion event during which growth stays Reno's.
    pub delta_l: Duration,
    /// Scale the increase by RTTmin / 100 ms (Linux use_rtt_scaling).
    pub rtt_scaling: bool,
    /// beta = 0.5 when the throughput changed by more than 20% (Linux use_bandwidth_switch).
    pub bandwidth_switch: bool,
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for HtcpConfig {
    fn default() -> Self {
        Self {
            delta_l: Duration(NANOS_PER_SEC),
            rtt_scaling: true,
            bandwidth_switch: true,
            freeze_when_not_cwnd_limited: true,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "delta_l",
        kind: ParamKind::Duration { min: 0, max: 60 * NANOS_PER_SEC },
        unit: "time",
        description: "time after a congestion event with Reno growth (delta_L)",
    },
    ParamSpec {
        name: "rtt_scaling",
        kind: ParamKind::Bool,
        unit: "",
        description: "scale the increase by RTTmin / 100 ms, clamped to [0.1, 2] (Linux use_rtt_scaling)",
    },
    ParamSpec {
        name: "bandwidth_switch",
        kind: ParamKind::Bool,
        unit: "",
        description: "back off by 0.5 when the throughput moved by more than 20% (Linux use_bandwidth_switch)",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "htcp",
    summary: "H-TCP: increase grows with the time since the last loss, backoff RTTmin/RTTmax in [0.5, 0.8]",
    source: "Leith and Shorten, PFLDnet 2004; Linux net/ipv4/tcp_htcp.c",
    params: PARAMS,
    defaults: defaults_of::<HtcpConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: HtcpConfig = parse_params("htcp", PARAMS, params)?;
        Ok(Box::new(Htcp::new(config, info)))
    },
};

/// The increase factor before the 2 (1 - beta) scaling: 1 up to delta_L, then
/// 1 + 10 d + (d / 2)^2 with d = delta - delta_L in seconds (Leith and Shorten, eq. 1).
pub fn alpha_factor(delta: SimDuration, delta_l: SimDuration) -> f64 {
    if delta <= delta_l {
        return 1.0;
    }
    let d = as_secs_f64(delta - delta_l);
    1.0 + 10.0 * d + (d / 2.0) * (d / 2.0)
}

/// Adaptive beta in 1/128 units: RTTmin / RTTmax clamped to [BETA_MIN, BETA_MAX].
pub fn rtt_beta(min_rtt: SimDuration, max_rtt: SimDuration) -> u32 {
    let ratio = (min_rtt as u128 * BETA_SCALE as u128 / max_rtt.max(1) as u128) as u32;
    ratio.clamp(BETA_MIN, BETA_MAX)
}

/// What a congestion event overwrote, restored if the event turns out spurious.
#[derive(Clone, Copy, Debug)]
struct Undo {
    last_congestion: SimTime,
    max_rtt: SimDuration,
    old_max_rate: u64,
}

pub struct Htcp {
    config: HtcpConfig,
    pub(crate) window: SegmentWindow,
    /// Increase in segments per window of acknowledged segments.
    pub(crate) alpha: f64,
    /// Backoff factor in 1/128 units.
    pub(crate) beta: u32,
    /// The previous event set beta to 0.5; the next may use RTTmin / RTTmax (Linux modeswitch).
    modeswitch: bool,
    /// The last congestion event (its end once recovery is over); 0 at the start.
    pub(crate) last_congestion: SimTime,
    undo: Option<Undo>,
    pub(crate) min_rtt: SimDuration,
    pub(crate) max_rtt: SimDuration,
    /// From a timeout until what was outstanding then is acknowledged (Linux's TCP_CA_Loss).
    in_loss: bool,
    /// Throughput estimate (segments per second): segments counted since `rate_since`.
    counted_segments: u64,
    rate_since: SimTime,
    rate: u64,
    pub(crate) max_rate: u64,
    pub(crate) old_max_rate: u64,
}

impl Htcp {
    pub fn new(config: HtcpConfig, info: ConnectionInfo) -> Self {
        Self {
            config,
            window: SegmentWindow::for_connection(&info),
            alpha: 1.0,
            beta: BETA_MIN,
            modeswitch: false,
            last_congestion: 0,
            undo: None,
            min_rtt: 0,
            max_rtt: 0,
            in_loss: false,
            counted_segments: 0,
            rate_since: 0,
            rate: 0,
            max_rate: 0,
            old_max_rate: 0,
        }
    }

    pub(crate) fn update_alpha(&mut self, now: SimTime) {
        let mut factor = alpha_factor(now.saturating_sub(self.last_congestion), self.config.delta_l.nanos());
        if self.config.rtt_scaling && self.min_rtt > 0 {
            let ratio = (self.min_rtt as f64 / REFERENCE_RTT as f64).clamp(0.1, 2.0);
            factor = (factor * ratio).max(1.0);
        }
        self.alpha = 2.0 * factor * (BETA_SCALE - self.beta) as f64 / BETA_SCALE as f64;
    }

    pub(crate) fn update_beta(&mut self) {
        if self.config.bandwidth_switch {
            let (new, old) = (self.max_rate, self.old_max_rate);
            self.old_max_rate = new;
            // Linux's between(5 maxB, 4 old_maxB, 6 old_maxB): within 20% of the previous maximum.
            if !(4 * old <= 5 * new && 5 * new <= 6 * old) {
                self.beta = BETA_MIN;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && self.min_rtt > MIN_RTT_FOR_ADAPTIVE_BETA && self.max_rtt > 0 {
            self.beta = rtt_beta(self.min_rtt, self.max_rtt);
        } else {
            self.beta = BETA_MIN;
            self.modeswitch = true;
        }
    }

    fn measure(&mut self, ack: &AckEvent) {
        // Linux's TCP_CA_Open (and Disorder, which tcplab does not tell apart).
        let open = !ack.in_recovery && !self.in_loss;
        if let Some(rtt) = ack.rtt_sample {
            if self.min_rtt == 0 || rtt < self.min_rtt {
                self.min_rtt = rtt;
            }
            if open {
                self.max_rtt = self.max_rtt.max(self.min_rtt);
                if rtt > self.max_rtt && rtt <= self.max_rtt + MAX_RTT_STEP {
                    self.max_rtt = rtt;
                }
            }
        }
        if !self.config.bandwidth_switch {
            return;
        }
        if !open {
            self.counted_segments = 0;
            self.rate_since = ack.now;
            return;
        }
        self.counted_segments += ack.acked_segments as u64;
        let elapsed = ack.now.saturating_sub(self.rate_since);
        // One sample per window of segments (less alpha) and at least RTTmin (tcp_htcp.c).
        let window = (self.window.cwnd as u64).saturating_sub((self.alpha as u64).max(1));
        if self.counted_segments >= window && elapsed >= self.min_rtt && self.min_rtt > 0 && elapsed > 0 {
            let sample = (self.counted_segments as u128 * NANOS_PER_SEC as u128 / elapsed as u128) as u64;
            // Within three RTTmin of the last event: start the estimate afresh.
            if ack.now.saturating_sub(self.last_congestion) / self.min_rtt <= 3 {
                (self.rate, self.max_rate) = (sample, sample);
            } else {
                self.rate = (3 * self.rate + sample) / 4;
                self.max_rate = self.max_rate.max(self.rate);
            }
            self.counted_segments = 0;
            self.rate_since = ack.now;
        }
    }
}

impl CongestionControl for Htcp {
    fn on_ack(&mut self, ack: &AckEvent) {
        // The first ACK after recovery, CWR or a timeout's loss state: delta counts from the end
        // of the event (Linux htcp_state on TCP_CA_Open), and it can no longer be undone.
        if !ack.in_recovery && !self.in_loss && self.undo.take().is_some() {
            self.last_congestion = ack.now;
        }
        self.measure(ack);
        if !ack.may_raise_cwnd() || (self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited) {
            return;
        }
        if self.window.in_slow_start() {
            self.window.slow_start(ack.acked_segments);
            return;
        }
        // Linux's order: test the credit, then add this ACK's segments to it.
        if self.window.credit as f64 * self.alpha >= self.window.cwnd as f64 {
            self.window.cwnd = self.window.cwnd.saturating_add(1).min(self.window.clamp);
            self.window.credit = 0;
            self.update_alpha(ack.now);
        } else {
            self.window.credit = self.window.credit.saturating_add(ack.acked_segments);
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.update_beta();
        self.update_alpha(event.now);
        // Slowly fading memory of RTTmax, for route changes.
        if self.min_rtt > 0 && self.max_rtt > self.min_rtt {
            self.max_rtt = self.min_rtt + (self.max_rtt - self.min_rtt) * 95 / 100;
        }
        let ssthresh = ((self.window.cwnd as u64 * self.beta as u64) / BETA_SCALE as u64) as u32;
        self.window.reduce(ssthresh, event.kind);
        self.undo = Some(Undo {
            last_congestion: self.last_congestion,
            max_rtt: self.max_rtt,
            old_max_rate: self.old_max_rate,
        });
        self.last_congestion = event.now;
        self.in_loss |= event.kind == CongestionKind::Timeout;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.window.cwnd = self.window.ssthresh;
    }

    fn on_timeout_recovery_exit(&mut self, _now: SimTime) {
        self.in_loss = false;
    }

    fn undo_reduction(&mut self, _now: SimTime, prior_cwnd: u64, prior_ssthresh: u64) {
        if let Some(undo) = self.undo.take() {
            self.last_congestion = undo.last_congestion;
            self.max_rtt = undo.max_rtt;
            self.old_max_rate = undo.old_max_rate;
        }
        self.window.undo(prior_cwnd, prior_ssthresh);
    }

    fn cwnd(&self) -> u64 {
        self.window.cwnd_bytes()
    }

    fn ssthresh(&self) -> u64 {
        self.window.ssthresh_bytes()
    }

    fn state_name(&self) -> &'static str {
        self.window.state_name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::FakeSender;
    use crate::time::NANOS_PER_MILLI as MS;

    const S: u64 = NANOS_PER_SEC;

    #[test]
    fn alpha_grows_with_the_time_since_the_last_congestion_event() {
        // delta = 1 s = delta_L: 1. delta = 2 s: d = 1, 1 + 10 + 0.5^2 = 11.25.
        // delta = 5 s: d = 4, 1 + 40 + 2^2 = 45.
        assert_eq!(alpha_factor(S, S), 1.0);
        assert_eq!(alpha_factor(2 * S, S), 11.25);
        assert_eq!(alpha_factor(5 * S, S), 45.0);
        // Scaled by 2 (1 - beta): with beta = 0.5 the factor itself; with beta = 102/128,
        // 45 x 2 x 26/128 = 18.28125. RTT scaling off; at RTTmin = 100 ms it is 1 anyway.
        let mut h =
            Htcp::new(HtcpConfig { rtt_scaling: false, ..HtcpConfig::default() }, ConnectionInfo::new(1000, 10, 1));
        h.update_alpha(5 * S);
        assert_eq!(h.alpha, 45.0);
        h.beta = BETA_MAX;
        h.update_alpha(5 * S);
        assert_eq!(h.alpha, 18.28125);
        // RTT scaling: RTTmin 20 ms -> x 0.2: 11.25 x 0.2 = 2.25; at delta 1 s, 1 x 0.2 -> kept at 1.
        let mut h = Htcp::new(HtcpConfig::default(), ConnectionInfo::new(1000, 10, 1));
        h.min_rtt = 20 * MS;
        h.update_alpha(2 * S);
        assert!((h.alpha - 2.25).abs() < 1e-9, "{}", h.alpha);
        h.update_alpha(S);
        assert_eq!(h.alpha, 1.0);
    }

    #[test]
    fn beta_is_rtt_min_over_rtt_max_within_half_and_0_8() {
        // 100/150 x 128 = 85.33 -> 85 (0.664); 100/110 -> 116 -> clamped to 102; 100/300 -> 42 -> 64.
        assert_eq!(rtt_beta(100 * MS, 150 * MS), 85);
        assert_eq!(rtt_beta(100 * MS, 110 * MS), BETA_MAX);
        assert_eq!(rtt_beta(100 * MS, 300 * MS), BETA_MIN);
        // The first event with stable throughput only arms the switch; the second uses the ratio.
        let mut h = Htcp::new(
            HtcpConfig { bandwidth_switch: false, ..HtcpConfig::default() },
            ConnectionInfo::new(1000, 10, 1),
        );
        (h.min_rtt, h.max_rtt) = (100 * MS, 150 * MS);
        h.update_beta();
        assert_eq!(h.beta, BETA_MIN);
        h.update_beta();
        assert_eq!(h.beta, 85);
        // With the bandwidth switch, a 30% throughput change forces 0.5 again:
        // 5 x 130 = 650 > 6 x 100 = 600.
        let mut h = Htcp::new(HtcpConfig::default(), ConnectionInfo::new(1000, 10, 1));
        (h.min_rtt, h.max_rtt) = (100 * MS, 150 * MS);
        (h.max_rate, h.old_max_rate) = (100, 100);
        h.update_beta();
        h.update_beta();
        assert_eq!(h.beta, 85, "stable throughput: RTT ratio");
        (h.max_rate, h.old_max_rate) = (130, 100);
        h.update_beta();
        assert_eq!(h.beta, BETA_MIN);
    }

    #[test]
    fn growth_accelerates_after_delta_l() {
        // 100 ms RTT (RTT scale 1), ACK per segment, a loss at cwnd 200 -> 100 (beta 0.5).
        let info = ConnectionInfo { initial_ssthresh_segments: Some(10), ..ConnectionInfo::new(1000, 10, 1) };
        let mut s = FakeSender::with_info("htcp", &Value::Null, info, 100 * MS);
        while s.cwnd_segments() < 200.0 {
            s.round_trip(1);
        }
        let before = s.cwnd_segments();
        s.lose();
        s.round_trip(1); // recovery ends; delta counts from the next ACK
                         // The first events back off by 0.5 (no stable throughput yet).
        assert_eq!(s.cwnd_segments(), (before / 2.0).floor());
        let mut per_rtt = Vec::new();
        for _ in 0..40 {
            let before = s.cwnd_segments();
            s.round_trip(1);
            per_rtt.push(s.cwnd_segments() - before);
        }
        // First second (10 RTTs): alpha = 1 -> +1 segment per window of ACKs, as Reno (an
        // increment needs cwnd + 1 ACKs, so a round now and then adds none).
        assert!(per_rtt[..9].iter().all(|&g| g <= 1.0), "{per_rtt:?}");
        assert!(per_rtt[..9].iter().sum::<f64>() >= 7.0, "{per_rtt:?}");
        // Round i ends (i + 1) RTTs after delta started (the first ACK after recovery).
        // Round 19 (delta 1.9-2.0 s): alpha 10.2-11.25. Each increment takes cwnd / alpha + 1
        // ACKs (the credit is tested before the ACK adds to it), so a round of cwnd ACKs adds
        // alpha / (1 + alpha / cwnd), about 10 at cwnd 200. Round 29 (2.9-3.0 s): alpha 20.9-22,
        // about 19 at cwnd 330; round 39: alpha 31-33, more again.
        assert!((8.0..=12.0).contains(&per_rtt[19]), "{per_rtt:?}");
        assert!((16.0..=22.0).contains(&per_rtt[29]), "{per_rtt:?}");
        assert!(per_rtt[39] > per_rtt[29] + 5.0, "{per_rtt:?}");
    }
}
