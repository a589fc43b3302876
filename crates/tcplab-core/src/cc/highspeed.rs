//! `highspeed`: HighSpeed TCP, RFC 3649 (Floyd 2003).
//!
//! Above Low_Window = 38 segments the response function is steeper than Reno's: per ACK
//! cwnd += a(w) / w, and on loss cwnd = (1 - b(w)) w, with
//!   b(w) = (High_Decrease - 0.5) (ln w - ln Low_Window) / (ln High_Window - ln Low_Window) + 0.5
//!   p(w) = 0.078 / w^1.2
//!   a(w) = w^2 p(w) 2 b(w) / (2 - b(w))
//!
//! (RFC 3649 sections 5 and 6, High_Window = 83000, High_P = 1e-7, High_Decrease = 0.1). At or below
//! Low_Window it is Reno: a = 1, b = 0.5.
//!
//! Where tcplab differs from Linux's tcp_highspeed.c: Linux looks a(w) and b(w) up in a 73-row
//! table sampled from these formulas; tcplab evaluates the formulas themselves (the table is a
//! discretisation of them). The increase is counted as Linux counts it: a(w) per acknowledged
//! segment into a counter, and +1 segment each time the counter reaches cwnd (at a(w) = 1, exactly
//! one segment per cwnd acknowledged segments, as RFC 3649 and Reno give; dividing a(w) / w in
//! floating point first needed 31 ACKs at cwnd 30).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, ConnectionInfo, ParamKind,
    ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HighSpeedConfig {
    pub low_window: u32,
    pub high_window: u32,
    pub high_decrease: f64,
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for HighSpeedConfig {
    fn default() -> Self {
        Self { low_window: 38, high_window: 83_000, high_decrease: 0.1, freeze_when_not_cwnd_limited: true }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "low_window",
        kind: ParamKind::Integer { min: 2, max: 10_000 },
        unit: "segments",
        description: "Reno at or below this window (RFC 3649 Low_Window)",
    },
    ParamSpec {
        name: "high_window",
        kind: ParamKind::Integer { min: 100, max: 10_000_000 },
        unit: "segments",
        description: "window where b(w) reaches High_Decrease",
    },
    ParamSpec {
        name: "high_decrease",
        kind: ParamKind::Float { min: 0.01, max: 0.5 },
        unit: "",
        description: "b(w) at High_Window",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "highspeed",
    summary: "HighSpeed TCP (RFC 3649): a(w) and b(w) from the HighSpeed response function above 38 segments",
    source: "RFC 3649; formulas evaluated directly (Linux tcp_highspeed.c uses a table of them)",
    params: PARAMS,
    defaults: defaults_of::<HighSpeedConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: HighSpeedConfig = parse_params("highspeed", PARAMS, params)?;
        if config.high_window <= config.low_window {
            return Err(format!("high_window = {} must exceed low_window = {}", config.high_window, config.low_window));
        }
        Ok(Box::new(HighSpeed { window: SegmentWindow::for_connection(&info), config, credit: 0.0 }))
    },
};

pub struct HighSpeed {
    config: HighSpeedConfig,
    window: SegmentWindow,
    /// a(w) per acknowledged segment, accumulated; each cwnd of it is one segment of increase
    /// (Linux's snd_cwnd_cnt).
    credit: f64,
}

impl HighSpeed {
    /// b(w): the decrease factor at window w (segments).
    pub fn decrease(&self, w: f64) -> f64 {
        let low = self.config.low_window as f64;
        if w <= low {
            return 0.5;
        }
        let high = self.config.high_window as f64;
        (self.config.high_decrease - 0.5) * (w.ln() - low.ln()) / (high.ln() - low.ln()) + 0.5
    }

    /// a(w): segments added per window of ACKs at window w.
    pub fn increase(&self, w: f64) -> f64 {
        if w <= self.config.low_window as f64 {
            return 1.0;
        }
        let p = 0.078 / w.powf(1.2);
        let b = self.decrease(w);
        (w * w * p * 2.0 * b / (2.0 - b)).max(1.0)
    }
}

impl CongestionControl for HighSpeed {
    fn on_ack(&mut self, ack: &AckEvent) {
        if !ack.may_raise_cwnd() || (self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited) {
            return;
        }
        let Some(acked) = self.window.leftover_after_slow_start(ack.acked_segments) else {
            return;
        };
        self.credit += self.increase(self.window.cwnd as f64) * acked as f64;
        while self.credit >= self.window.cwnd as f64 && self.window.cwnd < u32::MAX {
            self.credit -= self.window.cwnd as f64;
            self.window.cwnd += 1;
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let w = self.window.cwnd as f64;
        let ssthresh = (w * (1.0 - self.decrease(w))).floor() as u32;
        self.credit = 0.0;
        self.window.reduce(ssthresh, event.kind);
    }

    super::window::reno_like_window!();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn highspeed() -> HighSpeed {
        HighSpeed { config: HighSpeedConfig::default(), window: SegmentWindow::new(1000, 10), credit: 0.0 }
    }

    #[test]
    fn response_function_matches_rfc3649_table_points() {
        // RFC 3649 appendix B tabulates the windows where a(w) reaches each whole segment, with
        // b(w) to two decimals: (38, 1, 0.50), (118, 2, 0.44), (221, 3, 0.41), (347, 4, 0.38),
        // (1058, 8, 0.33). b reaches High_Decrease at High_Window by construction.
        let h = highspeed();
        for (w, a, b) in
            [(38.0, 1.0, 0.50), (118.0, 2.0, 0.44), (221.0, 3.0, 0.41), (347.0, 4.0, 0.38), (1058.0, 8.0, 0.33)]
        {
            assert!((h.increase(w) - a).abs() < 0.1, "a({w}) = {} vs {a}", h.increase(w));
            assert!((h.decrease(w) - b).abs() < 0.006, "b({w}) = {} vs {b}", h.decrease(w));
        }
        assert!((h.decrease(83_000.0) - 0.1).abs() < 1e-12);
        // Hand-worked: b(118) = -0.4 (ln 118 - ln 38) / (ln 83000 - ln 38) + 0.5 = 0.44105.
        assert!((h.decrease(118.0) - 0.44105).abs() < 1e-5);
    }

    #[test]
    fn at_reno_windows_one_segment_takes_exactly_cwnd_acks() {
        // RFC 3649: at or below Low_Window, a(w) = 1: cwnd 30 grows to 31 after 30 acknowledged
        // segments, not 31 (Linux: snd_cwnd_cnt += 1 per ACK, +1 when it reaches snd_cwnd).
        let mut h = highspeed();
        h.window.cwnd = 30;
        h.window.ssthresh = 20;
        let ack = |h: &mut HighSpeed| {
            h.on_ack(&AckEvent { acked_segments: 1, cwnd_limited: true, snd_una_advanced: true, ..AckEvent::default() })
        };
        for _ in 0..29 {
            ack(&mut h);
        }
        assert_eq!(h.window.cwnd, 30);
        ack(&mut h);
        assert_eq!(h.window.cwnd, 31);
        assert_eq!(h.credit, 0.0);
    }

    #[test]
    fn loss_at_1058_segments_keeps_about_two_thirds() {
        let mut h = highspeed();
        h.window.cwnd = 1058;
        h.on_congestion_event(&CongestionEvent {
            now: 0,
            kind: super::super::CongestionKind::FastRetransmit,
            bytes_in_flight: 0,
            snd_nxt: 0,
        });
        // b(1058) = -0.4 (ln 1058 - ln 38) / (ln 83000 - ln 38) + 0.5 = 0.32695:
        // cwnd = floor(1058 x 0.67305) = 712.
        assert_eq!(h.window.cwnd, 712);
    }
}
