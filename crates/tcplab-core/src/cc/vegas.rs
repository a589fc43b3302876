//! `vegas`: TCP Vegas (Brakmo and Peterson, "TCP Vegas: end to end congestion avoidance on a
//! global Internet", IEEE JSAC 1995) as Linux's tcp_vegas.c implements it.
//!
//! Once per RTT (the first ACK past the data outstanding when the previous round began), with
//! more than 2 RTT samples in the round: rtt = the round's minimum, baseRTT = the minimum ever,
//! diff = cwnd (rtt - baseRTT) / baseRTT segments (the backlog this flow keeps in queues).
//! - slow start and diff > gamma: leave slow start with cwnd = min(cwnd, cwnd baseRTT / rtt + 1),
//!   ssthresh = cwnd - 1;
//! - slow start otherwise: Reno slow start;
//! - congestion avoidance: diff > beta -> cwnd - 1 (and ssthresh <= cwnd - 1); diff < alpha ->
//!   cwnd + 1; otherwise hold.
//!
//! Then cwnd >= 2 and ssthresh >= 3/4 cwnd. Fewer than 3 samples: Reno for the round, which
//! grows only while the flow is cwnd-limited, as Linux's `tcp_reno_cong_avoid` (unless
//! `freeze_when_not_cwnd_limited = false`); the Vegas rules themselves and slow start within a
//! round never look at it, as in Linux. Losses: Reno; Vegas restarts its round bookkeeping when
//! recovery ends. Integer arithmetic as in Linux, except that ssthresh never goes below 2
//! segments (Linux lets it reach 1 when cwnd is 2).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::{SegmentWindow, INFINITE_SSTHRESH};
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, ConnectionInfo, ParamKind,
    ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};
use crate::time::SimDuration;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VegasConfig {
    pub alpha: u32,
    pub beta: u32,
    pub gamma: u32,
    /// Only the Reno fallback (too few RTT samples in a round) checks it.
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for VegasConfig {
    fn default() -> Self {
        Self { alpha: 2, beta: 4, gamma: 1, freeze_when_not_cwnd_limited: true }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "alpha",
        kind: ParamKind::Integer { min: 0, max: 1000 },
        unit: "segments",
        description: "grow while fewer than alpha segments are queued",
    },
    ParamSpec {
        name: "beta",
        kind: ParamKind::Integer { min: 1, max: 1000 },
        unit: "segments",
        description: "shrink while more than beta segments are queued",
    },
    ParamSpec {
        name: "gamma",
        kind: ParamKind::Integer { min: 0, max: 1000 },
        unit: "segments",
        description: "leave slow start above gamma queued segments",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "vegas",
    summary: "TCP Vegas: keep between alpha and beta segments queued, from baseRTT and the round's min RTT",
    source: "Brakmo and Peterson, JSAC 1995; Linux net/ipv4/tcp_vegas.c",
    params: PARAMS,
    defaults: defaults_of::<VegasConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: VegasConfig = parse_params("vegas", PARAMS, params)?;
        if config.alpha > config.beta {
            return Err(format!("alpha = {} must not exceed beta = {}", config.alpha, config.beta));
        }
        Ok(Box::new(Vegas::new(config, info)))
    },
};

pub struct Vegas {
    config: VegasConfig,
    pub(crate) window: SegmentWindow,
    pub(crate) base_rtt: Option<SimDuration>,
    round_min_rtt: Option<SimDuration>,
    round_samples: u32,
    /// The round ends when this byte is acknowledged.
    round_end: u64,
    /// Vegas runs only outside loss recovery (Linux `doing_vegas_now`).
    active: bool,
}

/// The backlog estimate diff = cwnd (rtt - base) / base in whole segments (Linux's integer form).
pub fn queued_segments(cwnd: u32, base: SimDuration, rtt: SimDuration) -> u32 {
    (cwnd as u64 * rtt.saturating_sub(base) / base.max(1)) as u32
}

impl Vegas {
    pub fn new(config: VegasConfig, info: ConnectionInfo) -> Self {
        Self {
            config,
            window: SegmentWindow::for_connection(&info),
            base_rtt: None,
            round_min_rtt: None,
            round_samples: 0,
            round_end: 0,
            active: true,
        }
    }

    fn end_of_round(&mut self, ack: &AckEvent) {
        let acked = ack.acked_segments;
        let (Some(base), Some(rtt)) = (self.base_rtt, self.round_min_rtt) else {
            self.reno_round(ack);
            return;
        };
        if self.round_samples <= 2 {
            self.reno_round(ack);
            return;
        }
        let cwnd = self.window.cwnd;
        let diff = queued_segments(cwnd, base, rtt);
        if diff > self.config.gamma && self.window.in_slow_start() {
            let target = (cwnd as u64 * base / rtt) as u32;
            self.window.cwnd = cwnd.min(target + 1).max(2);
            // Linux allows ssthresh 1 here (cwnd 2); tcplab keeps every algorithm's floor of 2.
            self.window.ssthresh = self.window.ssthresh.min(self.window.cwnd - 1).max(2);
        } else if self.window.in_slow_start() {
            self.window.slow_start(acked);
        } else if diff > self.config.beta {
            self.window.cwnd = (self.window.cwnd - 1).max(2);
            self.window.ssthresh = self.window.ssthresh.min(self.window.cwnd - 1).max(2);
        } else if diff < self.config.alpha {
            self.window.cwnd += 1;
        }
        self.window.cwnd = self.window.cwnd.max(2);
        let three_quarters = (self.window.cwnd >> 1) + (self.window.cwnd >> 2);
        if self.window.ssthresh < INFINITE_SSTHRESH {
            self.window.ssthresh = self.window.ssthresh.max(three_quarters);
        }
    }

    /// Too few RTT samples for Vegas (delayed ACKs): Reno's growth for this round, which Linux's
    /// `tcp_reno_cong_avoid` skips while the flow does not fill cwnd.
    fn reno_round(&mut self, ack: &AckEvent) {
        if self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited {
            return;
        }
        self.window.reno_increase(ack.acked_segments);
    }
}

impl CongestionControl for Vegas {
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(rtt) = ack.rtt_sample {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
            self.round_min_rtt = Some(self.round_min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.round_samples += 1;
        }
        if !ack.may_raise_cwnd() {
            self.active = false;
            return;
        }
        if !self.active {
            // Recovery ended: start a fresh round (Linux vegas_enable).
            self.active = true;
            self.round_end = ack.snd_nxt;
            self.round_samples = 0;
            self.round_min_rtt = None;
        }
        if ack.snd_una > self.round_end {
            self.round_end = ack.snd_nxt;
            self.end_of_round(ack);
            self.round_samples = 0;
            self.round_min_rtt = None;
        } else if self.window.in_slow_start() {
            self.window.slow_start(ack.acked_segments);
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.window.reduce(self.window.cwnd / 2, event.kind);
    }

    super::window::reno_like_window!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::AckEvent;
    use crate::time::NANOS_PER_MILLI as MS;

    /// Drives one full round: 4 ACKs with the given RTT, then the ACK that closes it.
    fn round(v: &mut Vegas, rtt_ms: u64, snd_una: &mut u64) {
        for _ in 0..4 {
            *snd_una += 1000;
            let ack = AckEvent {
                acked_segments: 1,
                acked_bytes: 1000,
                rtt_sample: Some(rtt_ms * MS),
                snd_una_advanced: true,
                cwnd_limited: true,
                snd_una: *snd_una,
                snd_nxt: *snd_una + 100_000,
                ..AckEvent::default()
            };
            v.on_ack(&ack);
        }
    }

    fn vegas_in_ca(cwnd: u32, ssthresh: u32) -> (Vegas, u64) {
        let mut v = Vegas::new(VegasConfig::default(), ConnectionInfo::new(1000, 10, 1));
        v.window.cwnd = cwnd;
        v.window.ssthresh = ssthresh;
        v.base_rtt = Some(100 * MS);
        (v, 0)
    }

    #[test]
    fn diff_is_the_backlog_in_segments() {
        assert_eq!(queued_segments(20, 100 * MS, 120 * MS), 4);
        assert_eq!(queued_segments(20, 100 * MS, 130 * MS), 6);
        assert_eq!(queued_segments(20, 100 * MS, 105 * MS), 1);
    }

    #[test]
    fn congestion_avoidance_moves_one_segment_per_round() {
        // Each round's decision uses the previous round's samples when its first ACK arrives.
        for (rtt, expected_cwnd, expected_ssthresh) in [(120, 20, 15), (130, 19, 13), (105, 21, 15)] {
            let (mut v, mut una) = vegas_in_ca(20, 10);
            round(&mut v, rtt, &mut una);
            // The round ends at the first ACK past what was outstanding when it began.
            v.round_end = 0;
            round(&mut v, rtt, &mut una);
            // diff 4: hold, ssthresh = max(10, 3/4 x 20 = 15). diff 6 > beta: cwnd 19, ssthresh =
            // max(min(10, 18), 9 + 4 = 13). diff 1 < alpha: cwnd 21, ssthresh = max(10, 10 + 5).
            assert_eq!(v.window.cwnd, expected_cwnd, "rtt {rtt}");
            assert_eq!(v.window.ssthresh, expected_ssthresh, "rtt {rtt}");
        }
    }

    #[test]
    fn slow_start_exit_sets_cwnd_to_the_actual_rate() {
        // cwnd 40, base 100 ms, round min 110 ms: diff = 4 > gamma; target = 40 x 100 / 110 = 36,
        // cwnd = 37, ssthresh = 36.
        let (mut v, mut una) = vegas_in_ca(40, INFINITE_SSTHRESH);
        v.round_end = u64::MAX;
        round(&mut v, 110, &mut una);
        v.window.cwnd = 40; // slow start grew it during the round; restore the worked example
        v.round_end = 0;
        una += 1000;
        let closing = AckEvent {
            acked_segments: 1,
            acked_bytes: 1000,
            snd_una_advanced: true,
            cwnd_limited: true,
            snd_una: una,
            snd_nxt: una + 1,
            ..AckEvent::default()
        };
        v.on_ack(&closing);
        assert_eq!((v.window.cwnd, v.window.ssthresh), (37, 36));
    }
}
