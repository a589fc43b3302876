//! `bic`: BIC TCP (Xu, Harfoush and Rhee, "Binary increase congestion control for fast, long
//! distance networks", INFOCOM 2004) as Linux's tcp_bic.c implements it.
//!
//! Below the window of the last loss (W_max) cwnd approaches it by binary search: one segment per
//! cnt acknowledged segments with cnt = cwnd / dist, dist = (W_max - cwnd) / B, at most Smax
//! segments per RTT and at least a smooth crawl (cnt = cwnd * smooth_part / B) within one step of
//! W_max; above W_max it probes slowly, then by Smax per RTT. At or below low_window it is Reno.
//! On loss: fast convergence as in CUBIC and ssthresh = beta * cwnd (cwnd / 2 at low windows).
//!
//! Where tcplab differs from Linux: Linux divides cnt by its running estimate of segments per ACK
//! and then counts ACKs; tcplab counts acknowledged segments directly, which is the same rate.
//! Linux's 1/32 s cache of cnt is not modelled.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BicConfig {
    /// Multiplicative decrease (Linux 819/1024).
    pub beta: f64,
    /// Binary search divisor B.
    pub b: u32,
    /// Largest increase per RTT (Smax), segments.
    pub max_increment: u32,
    /// Reno at or below this window.
    pub low_window: u32,
    pub smooth_part: u32,
    pub fast_convergence: bool,
    pub freeze_when_not_cwnd_limited: bool,
    /// cnt (above low_window) is divided by this: Linux 2.6.22's estimate of segments per ACK
    /// (`delayed_ack`), which with an ACK per segment stays at 31/16 = 1.9375.
    pub cnt_divisor: f64,
}

impl Default for BicConfig {
    fn default() -> Self {
        Self {
            beta: 0.8,
            b: 4,
            max_increment: 16,
            low_window: 14,
            smooth_part: 20,
            fast_convergence: true,
            freeze_when_not_cwnd_limited: true,
            cnt_divisor: 1.0,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "beta",
        kind: ParamKind::Float { min: 0.1, max: 0.99 },
        unit: "",
        description: "multiplicative decrease factor",
    },
    ParamSpec {
        name: "b",
        kind: ParamKind::Integer { min: 2, max: 64 },
        unit: "",
        description: "binary search divisor",
    },
    ParamSpec {
        name: "max_increment",
        kind: ParamKind::Integer { min: 1, max: 10_000 },
        unit: "segments",
        description: "Smax: largest increase per RTT",
    },
    ParamSpec {
        name: "low_window",
        kind: ParamKind::Integer { min: 2, max: 10_000 },
        unit: "segments",
        description: "Reno at or below this window",
    },
    ParamSpec {
        name: "smooth_part",
        kind: ParamKind::Integer { min: 1, max: 1_000 },
        unit: "",
        description: "crawl near W_max: cnt = cwnd * smooth_part / b",
    },
    ParamSpec {
        name: "fast_convergence",
        kind: ParamKind::Bool,
        unit: "",
        description: "W_max = cwnd (1 + beta) / 2 on a loss below W_max",
    },
    ParamSpec {
        name: "cnt_divisor",
        kind: ParamKind::Float { min: 0.1, max: 10.0 },
        unit: "",
        description: "divide cnt by this (Linux 2.6.22's stuck segments-per-ACK estimate: 1.9375)",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "bic",
    summary: "BIC: binary search towards the last loss window, then max probing",
    source: "Xu, Harfoush, Rhee, INFOCOM 2004; Linux net/ipv4/tcp_bic.c",
    params: PARAMS,
    defaults: defaults_of::<BicConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: BicConfig = parse_params("bic", PARAMS, params)?;
        Ok(Box::new(Bic { window: SegmentWindow::for_connection(&info), config, w_max: 0 }))
    },
};

pub struct Bic {
    config: BicConfig,
    pub(crate) window: SegmentWindow,
    pub(crate) w_max: u32,
}

impl Bic {
    /// Acknowledged segments per +1 segment of cwnd (Linux bictcp_update).
    pub fn cnt(&self) -> u32 {
        let cwnd = self.window.cwnd;
        let (b, smax, smooth) = (self.config.b, self.config.max_increment, self.config.smooth_part);
        if cwnd <= self.config.low_window {
            return cwnd.max(1);
        }
        let mut cnt = if cwnd < self.w_max {
            let dist = (self.w_max - cwnd) / b;
            if dist > smax {
                cwnd / smax
            } else if dist <= 1 {
                cwnd * smooth / b
            } else {
                cwnd / dist
            }
        } else if cwnd < self.w_max + b {
            cwnd * smooth / b
        } else if cwnd < self.w_max + smax * (b - 1) {
            cwnd * (b - 1) / (cwnd - self.w_max)
        } else {
            cwnd / smax
        };
        if self.w_max == 0 && cnt > 20 {
            cnt = 20;
        }
        ((cnt as f64 / self.config.cnt_divisor).floor() as u32).max(1)
    }
}

impl CongestionControl for Bic {
    fn on_ack(&mut self, ack: &AckEvent) {
        if !ack.may_raise_cwnd() || (self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited) {
            return;
        }
        // ACKs left over when slow start reaches ssthresh go on to congestion avoidance, as in
        // Linux's bictcp_cong_avoid (tcp_slow_start returns them).
        let Some(acked) = self.window.leftover_after_slow_start(ack.acked_segments) else { return };
        let cnt = self.cnt();
        self.window.additive_increase(cnt, acked);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let cwnd = self.window.cwnd;
        self.w_max = if cwnd < self.w_max && self.config.fast_convergence {
            (cwnd as f64 * (1.0 + self.config.beta) / 2.0).floor() as u32
        } else {
            cwnd
        };
        let ssthresh =
            if cwnd <= self.config.low_window { cwnd / 2 } else { (cwnd as f64 * self.config.beta).floor() as u32 };
        if event.kind == CongestionKind::Timeout {
            // Linux's bictcp_state resets the state on entering Loss (after ssthresh was taken):
            // growth after a timeout starts over, without the old W_max to search towards.
            self.w_max = 0;
        }
        self.window.reduce(ssthresh, event.kind);
    }

    super::window::reno_like_window!();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bic(cwnd: u32, w_max: u32) -> Bic {
        let mut b = Bic { config: BicConfig::default(), window: SegmentWindow::new(1000, 10), w_max };
        b.window.cwnd = cwnd;
        b.window.ssthresh = 1;
        b
    }

    #[test]
    fn binary_search_increments() {
        // Far below W_max: dist = (200 - 40) / 4 = 40 > 16, so +16 per RTT: cnt = 40 / 16 = 2.
        assert_eq!(bic(40, 200).cnt(), 2);
        // Halfway: dist = (100 - 80) / 4 = 5: cnt = 80 / 5 = 16, +5 segments per RTT.
        assert_eq!(bic(80, 100).cnt(), 16);
        // Within one step: dist = (100 - 97) / 4 = 0: crawl, cnt = 97 * 20 / 4 = 485.
        assert_eq!(bic(97, 100).cnt(), 485);
        // Just above W_max (< W_max + B): the same crawl.
        assert_eq!(bic(102, 100).cnt(), 510);
        // Max probing, slow then faster: (B - 1) cwnd / (cwnd - W_max) = 3 * 120 / 20 = 18.
        assert_eq!(bic(120, 100).cnt(), 18);
        // Beyond W_max + Smax (B - 1) = 148: +16 per RTT, cnt = 160 / 16 = 10.
        assert_eq!(bic(160, 100).cnt(), 10);
        // Reno at low windows, and at most cnt 20 before the first loss.
        assert_eq!(bic(12, 100).cnt(), 12);
        assert_eq!(bic(1000, 0).cnt(), 20);
    }

    #[test]
    fn cnt_divisor_scales_cnt_above_low_window_as_linux_2_6_22s_ack_ratio() {
        // The module's estimate of segments per ACK starts at 2 (32 in 1/16) and, with an ACK per
        // segment, stops at 31/16 (31 >> 4 = 1 leaves it unchanged): cnt x 16 / 31.
        let scaled = |cwnd, w_max| {
            let mut b = bic(cwnd, w_max);
            b.config.cnt_divisor = 1.9375;
            b.cnt()
        };
        assert_eq!(scaled(97, 100), 250, "the crawl: 485 x 16 / 31 = 250.3");
        assert_eq!(scaled(160, 100), 5, "linear: 10 x 16 / 31 = 5.2");
        assert_eq!(scaled(12, 100), 12, "Reno at low windows is not scaled (the module returns first)");
    }

    #[test]
    fn loss_reduction_and_fast_convergence() {
        let mut b = bic(100, 0);
        let loss = CongestionEvent {
            now: 0,
            kind: super::super::CongestionKind::FastRetransmit,
            bytes_in_flight: 0,
            snd_nxt: 0,
        };
        b.on_congestion_event(&loss);
        assert_eq!((b.w_max, b.window.cwnd), (100, 80));
        b.on_congestion_event(&loss);
        // 80 < W_max: W_max = 80 * 1.8 / 2 = 72; cwnd = 64.
        assert_eq!((b.w_max, b.window.cwnd), (72, 64));
        let mut small = bic(12, 0);
        small.on_congestion_event(&loss);
        assert_eq!(small.window.cwnd, 6, "Reno's halving at low windows");
        // A timeout: ssthresh from cwnd 64 as for any loss (51), then W_max forgotten, cwnd 1.
        b.on_congestion_event(&CongestionEvent { kind: CongestionKind::Timeout, ..loss });
        assert_eq!((b.w_max, b.window.cwnd, b.window.ssthresh), (0, 1, 51));
    }

    #[test]
    fn acks_left_over_by_slow_start_go_to_congestion_avoidance() {
        // cwnd 18, ssthresh 20, W_max 0: a stretch ACK of 25 segments takes cwnd to 20 and leaves
        // 23, which at cnt = (B - 1) cwnd / (cwnd - W_max) = 3 * 20 / 20 = 3 add 7 segments.
        let mut b = bic(18, 0);
        b.window.ssthresh = 20;
        b.on_ack(&AckEvent { acked_segments: 25, cwnd_limited: true, snd_una_advanced: true, ..AckEvent::default() });
        assert_eq!((b.window.cwnd, b.window.credit), (27, 2));
    }
}
