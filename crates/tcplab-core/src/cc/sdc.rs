//! `sdc`: sender-based delay control, from Active Delay Control (papers/active-delay-control.txt,
//! section II): when many flows share a small buffer, a flow whose window is already small raises
//! its RTT instead of shrinking its window, by holding each ACK for a delay D before processing it,
//! so that fast retransmit keeps working and timeouts stay rare.
//!
//! The paper fixes the mechanism and its aim but publishes no equations. tcplab's update laws
//! (derived on docs/algorithms/sdc.md) make the rate W / (R + D) follow TCP's AIMD, with W the
//! window in packets and R the base RTT:
//! - an ECN echo while W <= `cwnd_threshold` halves the rate by doubling R + D instead of halving
//!   W: D <- R + 2D, at most `max_delay` (at the maximum, W is halved as usual);
//! - each round trip without an echo raises the rate by one packet per RTT, as Reno would, by
//!   shrinking the delay: R + D <- (R + D) W / (W + 1); W itself grows only when D is 0 (or while
//!   W is below `min_cwnd`);
//! - above `cwnd_threshold` D is 0 and the flow is NewReno with ECN (RFC 5681 / 3168).
//!
//! Losses are handled as by NewReno in every state.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::ByteWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec,
};
use crate::time::{SimDuration, SimTime, NANOS_PER_MILLI, NANOS_PER_SEC};
use crate::units::Duration;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SdcConfig {
    /// At or below this window (packets) ECN echoes raise the delay instead of halving cwnd.
    pub cwnd_threshold: u32,
    /// Below this window cwnd keeps growing even while a delay is imposed.
    pub min_cwnd: u32,
    pub max_delay: Duration,
}

impl Default for SdcConfig {
    fn default() -> Self {
        Self { cwnd_threshold: 8, min_cwnd: 4, max_delay: Duration(2 * NANOS_PER_SEC) }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "cwnd_threshold",
        kind: ParamKind::Integer { min: 2, max: 1000 },
        unit: "segments",
        description: "delay control at or below this window (paper: about 8)",
    },
    ParamSpec {
        name: "min_cwnd",
        kind: ParamKind::Integer { min: 1, max: 1000 },
        unit: "segments",
        description: "cwnd grows while below this, even under delay",
    },
    ParamSpec {
        name: "max_delay",
        kind: ParamKind::Duration { min: NANOS_PER_MILLI, max: 60 * NANOS_PER_SEC },
        unit: "time",
        description: "largest ACK-processing delay (paper: 0.2 s to 2 s)",
    },
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "sdc",
    summary: "Active Delay Control, sender-based: at small windows, answer ECN by delaying ACK processing instead of halving cwnd",
    source: "papers/active-delay-control.txt (section II); NewReno with ECN above the threshold",
    params: PARAMS,
    defaults: defaults_of::<SdcConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: SdcConfig = parse_params("sdc", PARAMS, params)?;
        if config.min_cwnd > config.cwnd_threshold {
            return Err(format!("min_cwnd = {} must not exceed cwnd_threshold = {}", config.min_cwnd, config.cwnd_threshold));
        }
        Ok(Box::new(Sdc::new(config, info)))
    },
};

/// The delay after an ECN echo: the RTT R + D doubles, D <- R + 2D.
pub fn delay_after_mark(base_rtt: SimDuration, delay: SimDuration) -> SimDuration {
    base_rtt + 2 * delay
}

/// The delay after a round trip without marks: R + D <- (R + D) W / (W + 1), so the rate
/// W / (R + D) rises by one packet per round trip.
pub fn delay_after_calm_round(base_rtt: SimDuration, delay: SimDuration, window_packets: u64) -> SimDuration {
    let rtt = (base_rtt + delay) as u128;
    let next = rtt * window_packets as u128 / (window_packets as u128 + 1);
    (next as SimDuration).saturating_sub(base_rtt)
}

pub struct Sdc {
    config: SdcConfig,
    window: ByteWindow,
    /// The ACK-processing delay D.
    pub(crate) delay: SimDuration,
    pub(crate) base_rtt: Option<SimDuration>,
    round_end: u64,
    marked_in_round: bool,
}

impl Sdc {
    pub fn new(config: SdcConfig, info: ConnectionInfo) -> Self {
        Self {
            config,
            window: ByteWindow::for_connection(&info),
            delay: 0,
            base_rtt: None,
            round_end: 0,
            marked_in_round: false,
        }
    }

    fn window_packets(&self) -> u64 {
        self.window.cwnd / self.window.mss
    }

    fn delay_controlled(&self) -> bool {
        self.window_packets() <= self.config.cwnd_threshold as u64
    }
}

impl CongestionControl for Sdc {
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(rtt) = ack.rtt_sample {
            // Samples include the ACK hold; the smallest one (taken before any hold) is R.
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        }
        if ack.snd_una > self.round_end {
            self.round_end = ack.snd_nxt;
            if !self.marked_in_round && self.delay > 0 {
                let base = self.base_rtt.unwrap_or(0);
                self.delay = delay_after_calm_round(base, self.delay, self.window_packets().max(1));
            }
            self.marked_in_round = false;
        }
        if !self.delay_controlled() {
            self.delay = 0;
        }
        if ack.may_raise_cwnd()
            && ack.acked_bytes > 0
            && (self.delay == 0 || self.window_packets() < self.config.min_cwnd as u64)
        {
            self.window.rfc5681_increase(ack.acked_bytes, 1);
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let max_delay = self.config.max_delay.nanos();
        if event.kind == CongestionKind::Ecn && self.delay_controlled() && self.delay < max_delay {
            self.marked_in_round = true;
            let base = self.base_rtt.unwrap_or(0);
            self.delay = delay_after_mark(base, self.delay).min(max_delay);
            return;
        }
        self.marked_in_round = true;
        self.window.reduce(event.bytes_in_flight / 2, event.kind);
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.window.cwnd = self.window.ssthresh;
    }

    fn cwnd(&self) -> u64 {
        self.window.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.window.ssthresh
    }

    fn ack_processing_delay(&self) -> SimDuration {
        self.delay
    }

    fn state_name(&self) -> &'static str {
        if self.delay > 0 {
            "delay_control"
        } else {
            self.window.state_name()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MILLI as MS;

    fn sdc(cwnd_packets: u64) -> Sdc {
        let mut s = Sdc::new(SdcConfig::default(), ConnectionInfo::new(1000, 2, 1));
        s.window.cwnd = cwnd_packets * 1000;
        s.window.ssthresh = 2000;
        s.base_rtt = Some(100 * MS);
        s
    }

    fn echo(s: &mut Sdc) {
        s.on_congestion_event(&CongestionEvent {
            now: 0,
            kind: CongestionKind::Ecn,
            bytes_in_flight: s.window.cwnd,
            snd_nxt: 0,
        });
    }

    fn round_without_marks(s: &mut Sdc, snd_una: u64) {
        s.on_ack(&AckEvent {
            acked_bytes: 1000,
            acked_segments: 1,
            snd_una_advanced: true,
            snd_una,
            snd_nxt: snd_una + 10_000,
            ..AckEvent::default()
        });
    }

    #[test]
    fn marks_double_the_rtt_instead_of_halving_the_window_up_to_the_maximum() {
        let mut s = sdc(5);
        echo(&mut s);
        // R = 100 ms, D = 0 -> 100 ms (RTT 200 ms); then 300 ms (RTT 400 ms); cwnd untouched.
        assert_eq!((s.delay, s.window.cwnd), (100 * MS, 5000));
        echo(&mut s);
        assert_eq!(s.delay, 300 * MS);
        // 300 -> 700 -> 1500 -> min(3100, 2000) ms: the cap, cwnd still untouched.
        for _ in 0..3 {
            echo(&mut s);
        }
        assert_eq!((s.delay, s.window.cwnd), (2 * NANOS_PER_SEC, 5000), "bounded by max_delay");
        // At the maximum the window is halved as usual (never below 2 packets).
        echo(&mut s);
        assert_eq!(s.window.cwnd, 2500);
    }

    #[test]
    fn calm_rounds_shrink_the_delay_so_the_rate_rises_one_packet_per_rtt() {
        let mut s = sdc(5);
        s.delay = 300 * MS;
        // RTT 400 ms at W = 5: 400 x 5/6 = 333.33 ms, D = 233.33 ms; W unchanged.
        round_without_marks(&mut s, 1000);
        assert_eq!(s.delay, 233_333_333);
        assert_eq!(s.window.cwnd, 5000);
        let mut previous = s.delay;
        for una in 2..40 {
            round_without_marks(&mut s, una * 20_000);
            assert!(s.delay <= previous);
            previous = s.delay;
        }
        assert_eq!(s.delay, 0, "the delay decays to zero, then the window grows again");
        round_without_marks(&mut s, 1_000_000);
        assert!(s.window.cwnd > 5000);
    }

    #[test]
    fn above_the_threshold_it_is_newreno_with_ecn() {
        let mut s = sdc(12);
        s.delay = 50 * MS;
        round_without_marks(&mut s, 1000);
        assert_eq!(s.delay, 0, "delay control turns off above 8 packets");
        let before = s.window.cwnd;
        echo(&mut s);
        assert_eq!((s.window.cwnd, s.delay), (before / 2, 0), "an echo halves the window");
    }

    #[test]
    fn hand_worked_laws() {
        assert_eq!(delay_after_mark(100 * MS, 0), 100 * MS);
        assert_eq!(delay_after_mark(100 * MS, 50 * MS), 200 * MS);
        assert_eq!(delay_after_calm_round(100 * MS, 200 * MS, 2), 100 * MS);
        assert_eq!(delay_after_calm_round(100 * MS, 0, 4), 0);
    }
}
