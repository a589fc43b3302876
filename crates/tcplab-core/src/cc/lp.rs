//! `lp`: TCP-LP, low-priority service (Kuzmanovic and Knightly, "TCP-LP: low-priority service via
//! end-point congestion control", IEEE/ACM Transactions on Networking 14(4), 2006), with the rules
//! of Linux's tcp_lp.c.
//!
//! TCP-LP infers congestion before TCP flows see a loss, from the one-way delay of its own data:
//! the smoothed one-way delay sowd (EWMA, gain 1/8) against the smallest and largest delays seen,
//! d_min and d_max. An early congestion indication is sowd > d_min + (d_max - d_min) * delta with
//! delta = 15% (tcp_lp.c: `15 * (owd_max - owd_min) / 100`). The first indication halves cwnd (at
//! least one segment) and starts the inference time, 3 RTTs (tcp_lp.c: `3 * (now - TSecr)`), during
//! which cwnd does not grow; a second indication within it cuts cwnd to one segment. Otherwise the
//! growth is Reno's (slow start below ssthresh, +1 segment per RTT above) and a loss is Reno's.
//!
//! Followed from Linux where the paper is silent or differs (`reset_range = true`, the default, as
//! Linux and ns-3): after each indication d_min becomes sowd and d_max twice sowd, and every ACK is
//! tested; d_max keeps the second largest sample (a single spike cannot stretch the range:
//! tcp_lp.c `owd_max_rsv`); an indication does not touch ssthresh, so a flow still in slow start
//! stays there; the ACK that gives the first indication still grows cwnd (the inference test comes
//! before the cut, as `pkts_acked` runs before `cong_avoid`). `reset_range = false` keeps the
//! paper's connection-long d_min and d_max; then tcplab counts no new indication from ACKs for
//! data sent before the last cut (they cannot show its effect, and the smoothed delay still lags
//! above the threshold for several ACKs after a cut: without this every halving would become a cut
//! to one segment). The one-way delay is `AckEvent::one_way_delay`, the echoed segment's arrival
//! at the receiver minus its send time; Linux uses the ACK's TSval - TSecr with the remote clock's
//! rate estimated (`tcp_lp_remote_hz_estimator`), which also counts the receiver's ACK delay; the
//! simulator has one clock and needs no estimate. Delays are nanoseconds (Linux: milliseconds). As
//! the paper and ns-3 (not Linux), an indication needs sowd strictly above the threshold (Linux's
//! `sowd < threshold` test for "within" also fires at equality, e.g. while d_min = d_max). Without
//! timestamps there are no samples and TCP-LP is Reno.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, ConnectionInfo, ParamKind,
    ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LpConfig {
    /// delta: where between d_min and d_max the early-congestion threshold lies, in percent.
    pub threshold_percent: u32,
    /// Inference time in RTTs.
    pub inference_rtts: u32,
    /// After each indication d_min = sowd and d_max = 2 sowd, every ACK tested (tcp_lp.c, ns-3).
    /// Off: the paper's connection-long minimum and maximum, and ACKs for data sent before the
    /// last cut (which cannot show its effect) give no new indication.
    pub reset_range: bool,
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for LpConfig {
    fn default() -> Self {
        Self { threshold_percent: 15, inference_rtts: 3, reset_range: true, freeze_when_not_cwnd_limited: true }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "threshold_percent",
        kind: ParamKind::Integer { min: 1, max: 100 },
        unit: "percent",
        description: "early congestion when the smoothed one-way delay passes d_min + this share of (d_max - d_min)",
    },
    ParamSpec {
        name: "inference_rtts",
        kind: ParamKind::Integer { min: 1, max: 100 },
        unit: "RTTs",
        description: "inference time after a cut: no growth, and a second indication cuts cwnd to one segment",
    },
    ParamSpec {
        name: "reset_range",
        kind: ParamKind::Bool,
        unit: "",
        description: "after each indication restart the range at d_min = sowd, d_max = 2 sowd and test every ACK (Linux, ns-3); off: the connection's min and max, one indication per window (the paper)",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "lp",
    summary: "TCP-LP: a scavenger that halves on early congestion inferred from one-way delay, else Reno",
    source: "Kuzmanovic and Knightly, IEEE/ACM ToN 2006; Linux net/ipv4/tcp_lp.c",
    params: PARAMS,
    defaults: defaults_of::<LpConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: LpConfig = parse_params("lp", PARAMS, params)?;
        Ok(Box::new(Lp::new(config, info)))
    },
};

pub struct Lp {
    config: LpConfig,
    pub(crate) window: SegmentWindow,
    /// Smoothed one-way delay times 8 (nanoseconds), 0 before the first sample.
    pub(crate) sowd8: u64,
    pub(crate) owd_min: SimDuration,
    pub(crate) owd_max: SimDuration,
    /// The largest sample seen; `owd_max` is the one below it.
    owd_max_reserve: SimDuration,
    /// When cwnd was last cut for early congestion.
    pub(crate) last_cut: Option<SimTime>,
    /// snd_nxt at the last cut: without the range reset, only ACKs beyond it can indicate again.
    cut_snd_nxt: u64,
    pub(crate) inference: SimDuration,
    pending_event: Option<&'static str>,
}

impl Lp {
    pub fn new(config: LpConfig, info: ConnectionInfo) -> Self {
        Self {
            config,
            window: SegmentWindow::for_connection(&info),
            sowd8: 0,
            owd_min: SimDuration::MAX,
            owd_max: 0,
            owd_max_reserve: 0,
            last_cut: None,
            cut_snd_nxt: 0,
            inference: 0,
            pending_event: None,
        }
    }

    /// tcp_lp.c `tcp_lp_rtt_sample`: the minimum, the second-largest maximum, and the EWMA.
    pub(crate) fn sample(&mut self, owd: SimDuration) {
        self.owd_min = self.owd_min.min(owd);
        if owd > self.owd_max {
            if owd > self.owd_max_reserve {
                self.owd_max = if self.owd_max_reserve == 0 { owd } else { self.owd_max_reserve };
                self.owd_max_reserve = owd;
            } else {
                self.owd_max = owd;
            }
        }
        self.sowd8 = if self.sowd8 == 0 { owd << 3 } else { self.sowd8 - (self.sowd8 >> 3) + owd };
    }

    /// d_min + delta (d_max - d_min), None before the first sample.
    pub(crate) fn threshold(&self) -> Option<SimDuration> {
        (self.sowd8 != 0).then(|| {
            let range = self.owd_max.saturating_sub(self.owd_min);
            self.owd_min + self.config.threshold_percent as u64 * range / 100
        })
    }

    fn early_congestion(&self) -> bool {
        self.threshold().is_some_and(|threshold| self.sowd8 >> 3 > threshold)
    }
}

impl CongestionControl for Lp {
    fn on_ack(&mut self, ack: &AckEvent) {
        // Linux samples the one-way delay only on ACKs with an RTT sample.
        if let (Some(_), Some(owd)) = (ack.rtt_sample, ack.one_way_delay) {
            if owd > 0 {
                self.sample(owd);
            }
        }
        if let Some(rtt) = ack.rtt_sample.filter(|&r| r > 0) {
            self.inference = rtt.saturating_mul(self.config.inference_rtts as u64);
        }
        let within_inference = self.last_cut.is_some_and(|at| ack.now - at < self.inference);
        let shows_last_cut = self.config.reset_range || self.last_cut.is_none() || ack.snd_una > self.cut_snd_nxt;
        if shows_last_cut && self.early_congestion() {
            if self.config.reset_range {
                let sowd = self.sowd8 >> 3;
                self.owd_min = sowd;
                self.owd_max = sowd << 1;
                self.owd_max_reserve = sowd << 1;
            }
            if within_inference {
                self.window.cwnd = 1;
                self.pending_event = Some("lp_cut_to_one");
            } else {
                self.window.cwnd = (self.window.cwnd / 2).max(1);
                self.pending_event = Some("lp_halve");
            }
            self.window.credit = 0;
            self.last_cut = Some(ack.now);
            self.cut_snd_nxt = ack.snd_nxt;
        }
        if within_inference || !ack.may_raise_cwnd() {
            return;
        }
        if self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited {
            return;
        }
        self.window.reno_increase(ack.acked_segments);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        // tcp_reno_ssthresh: half the window, at least 2 segments.
        self.window.reduce(self.window.cwnd / 2, event.kind);
    }

    fn take_event(&mut self) -> Option<&'static str> {
        self.pending_event.take()
    }

    super::window::reno_like_window!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MILLI as MS;

    fn lp() -> Lp {
        Lp::new(LpConfig::default(), ConnectionInfo::new(1000, 10, 1))
    }

    fn ack(now: SimTime, owd_ms: u64) -> AckEvent {
        AckEvent {
            now,
            acked_bytes: 1000,
            acked_segments: 1,
            rtt_sample: Some(100 * MS),
            one_way_delay: Some(owd_ms * MS),
            snd_una_advanced: true,
            cwnd_limited: true,
            ..AckEvent::default()
        }
    }

    #[test]
    fn the_threshold_lies_fifteen_percent_above_d_min() {
        // d_min = 100 ms, d_max = 200 ms: threshold = 100 + 0.15 x 100 = 115 ms.
        let mut l = lp();
        (l.owd_min, l.owd_max, l.sowd8) = (100 * MS, 200 * MS, (115 * MS) << 3);
        assert_eq!(l.threshold(), Some(115 * MS));
        // Exactly at the threshold is not early congestion (the paper's sowd > threshold)...
        assert!(!l.early_congestion());
        // ...1 ms above it is.
        l.sowd8 = (116 * MS) << 3;
        assert!(l.early_congestion());
        // Before any sample there is no threshold.
        assert_eq!(lp().threshold(), None);
    }

    #[test]
    fn the_one_way_delay_is_smoothed_with_gain_one_eighth() {
        // 100 ms, then 180 ms: sowd = 100 + (180 - 100) / 8 = 110 ms.
        let mut l = lp();
        l.sample(100 * MS);
        l.sample(180 * MS);
        assert_eq!(l.sowd8 >> 3, 110 * MS);
        assert_eq!(l.owd_min, 100 * MS);
    }

    #[test]
    fn d_max_forgets_the_single_largest_sample() {
        // 100, then 200: d_max stays 100 and 200 is kept in reserve (a single spike does not
        // stretch the range); a second 200 makes d_max 200.
        let mut l = lp();
        l.sample(100 * MS);
        l.sample(200 * MS);
        assert_eq!((l.owd_max, l.owd_max_reserve), (100 * MS, 200 * MS));
        l.sample(200 * MS);
        assert_eq!((l.owd_max, l.owd_max_reserve), (200 * MS, 200 * MS));
        // A 500 ms spike, then 150: d_max 200, then still 200 (150 is below it).
        l.sample(500 * MS);
        l.sample(150 * MS);
        assert_eq!((l.owd_max, l.owd_max_reserve), (200 * MS, 500 * MS));
    }

    #[test]
    fn early_congestion_halves_then_cuts_to_one_within_three_rtts() {
        // With Linux's range reset (the default).
        let mut l = lp();
        l.window.cwnd = 40;
        // A constant 100 ms: d_min = d_max = sowd = 100 ms, not above the threshold; slow start.
        l.on_ack(&ack(0, 100));
        assert_eq!(l.window.cwnd, 41);
        // 200 ms: d_max stays 100 ms (200 is the reserve), sowd = 100 + 100 / 8 = 112.5 ms > 100 ms:
        // halved, 41 -> 20, and the same ACK still grows it by one (Linux's order): 21. The range
        // restarts at d_min = 112.5 ms, d_max = 225 ms.
        l.on_ack(&ack(MS, 200));
        assert_eq!(l.window.cwnd, 21);
        assert_eq!(l.take_event(), Some("lp_halve"));
        assert_eq!((l.owd_min, l.owd_max), (112_500_000, 225_000_000));
        // 112 ms at 100 ms: d_min = 112 ms, sowd = 112.5 - 0.5 / 8 = 112.4375 ms, threshold =
        // 112 + 0.15 x 113 = 128.95 ms: no indication, and within the inference time (3 x 100 ms
        // RTT after the cut) no growth.
        l.on_ack(&ack(100 * MS, 112));
        assert_eq!(l.window.cwnd, 21);
        // 400 ms at 160 ms: sowd = 112.4375 + (400 - 112.4375) / 8 = 148.38 ms > 128.95 ms, 159 ms
        // after the cut: cwnd falls to one segment.
        l.on_ack(&ack(160 * MS, 400));
        assert_eq!(l.window.cwnd, 1);
        assert_eq!(l.take_event(), Some("lp_cut_to_one"));
        // An indication more than 300 ms after the last cut halves instead: 30 -> 15, +1 growth.
        // (1000 ms: sowd = 148.38 + (1000 - 148.38) / 8 = 254.83 ms = the new d_min, d_max 509.7.)
        l.window.cwnd = 30;
        let t = 160 * MS + 301 * MS;
        l.on_ack(&ack(t, 1000));
        assert_eq!(l.window.cwnd, 16);
        assert_eq!(l.take_event(), Some("lp_halve"));
        // 255 ms keeps sowd at 254.85 ms, under 254.83 + 0.15 x 254.83 = 293 ms.
        l.on_ack(&ack(t + MS, 255));
        assert_eq!(l.window.cwnd, 16, "no growth within the new inference time");
        // After it, Reno growth again (slow start: ssthresh is untouched by indications).
        l.on_ack(&ack(t + 301 * MS, 255));
        assert_eq!(l.window.cwnd, 17);
    }

    #[test]
    fn without_the_range_reset_a_draining_queue_is_no_indication() {
        // The paper's d_min and d_max are the connection's. Base 50 ms, then 200 ms twice: d_min
        // 50, d_max 200, sowd 50 -> 68.75 -> 85.16 ms; threshold 50 + 0.15 x 150 = 72.5 ms. The ACK
        // at 3 ms (data up to 20,000 sent) brings 50 ms: sowd 85.16 - 35.16 / 8 = 80.76 > 72.5:
        // halved, 40 -> 20, and this ACK still grows it: 21.
        let mut l = Lp::new(LpConfig { reset_range: false, ..LpConfig::default() }, ConnectionInfo::new(1000, 10, 1));
        l.window.cwnd = 40;
        for owd in [50, 200, 200] {
            l.sample(owd * MS);
        }
        let at = |t: u64, owd: u64, snd_una: u64| AckEvent { snd_una, snd_nxt: 20_000, ..ack(t * MS, owd) };
        l.on_ack(&at(3, 50, 10_000));
        assert_eq!(l.take_event(), Some("lp_halve"));
        assert_eq!(l.window.cwnd, 21);
        // The queue drains: 50 ms samples; sowd stays above 72.5 ms for two more ACKs (76.9, 73.5)
        // but they acknowledge data sent before the cut (snd_una <= 20,000): no indication (and
        // no growth in the inference time).
        for t in 4..20 {
            l.on_ack(&at(t, 50, 20_000));
            assert_eq!(l.take_event(), None);
        }
        assert_eq!(l.window.cwnd, 21);
        // Linux's reset (d_min 80.76, d_max 161.5 ms) makes the same drain a second indication:
        // 50 ms lowers d_min to 50, threshold 50 + 0.15 x 111.5 = 66.7 ms, while sowd lags at
        // 80.76 - 30.76 / 8 = 76.9 ms: cwnd falls to one segment.
        let mut l = lp();
        l.window.cwnd = 40;
        for owd in [50, 200, 200] {
            l.sample(owd * MS);
        }
        l.on_ack(&at(3, 50, 10_000));
        l.on_ack(&at(4, 50, 20_000));
        assert_eq!(l.window.cwnd, 1);
    }

    #[test]
    fn losses_are_renos() {
        let mut l = lp();
        l.window.cwnd = 40;
        l.on_congestion_event(&CongestionEvent {
            now: 0,
            kind: super::super::CongestionKind::FastRetransmit,
            bytes_in_flight: 0,
            snd_nxt: 0,
        });
        assert_eq!((l.window.cwnd, l.window.ssthresh), (20, 20));
    }
}
