//! `veno`: TCP Veno (Fu and Liew, "TCP Veno: TCP enhancement for transmission over wireless access
//! networks", IEEE JSAC 2003) as Linux's tcp_veno.c implements it.
//!
//! N = cwnd (rtt - baseRTT) / rtt estimates the segments this flow keeps queued (rtt: the smallest
//! sample since the previous ACK; baseRTT: the smallest ever). Below beta = 3 the path is taken as
//! uncongested: Reno growth, and a loss is taken as random: ssthresh = 4/5 cwnd. At or above beta:
//! one segment every other RTT, and a loss halves cwnd. With 2 samples or fewer, Reno.
//! Integer arithmetic in half segments, as Linux.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, ConnectionInfo, ParamKind,
    ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};
use crate::time::SimDuration;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VenoConfig {
    /// Backlog (segments) separating random from congestive losses.
    pub beta: u32,
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for VenoConfig {
    fn default() -> Self {
        Self { beta: 3, freeze_when_not_cwnd_limited: true }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "beta",
        kind: ParamKind::Integer { min: 1, max: 1000 },
        unit: "segments",
        description: "backlog above which losses count as congestive",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "veno",
    summary: "TCP Veno: Reno that cuts only to 4/5 on losses it judges random (backlog below 3 segments)",
    source: "Fu and Liew, JSAC 2003; Linux net/ipv4/tcp_veno.c",
    params: PARAMS,
    defaults: defaults_of::<VenoConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: VenoConfig = parse_params("veno", PARAMS, params)?;
        Ok(Box::new(Veno::new(config, info)))
    },
};

pub struct Veno {
    config: VenoConfig,
    pub(crate) window: SegmentWindow,
    pub(crate) base_rtt: Option<SimDuration>,
    min_rtt_since_last_ack: Option<SimDuration>,
    samples: u32,
    /// Backlog in half segments from the last estimate.
    pub(crate) backlog_halves: u64,
    /// Congestive state: add a segment only on every other window of ACKs.
    increase_next: bool,
}

/// Backlog N = cwnd - cwnd baseRTT / rtt in half segments (Linux's V_PARAM_SHIFT = 1).
pub fn backlog_halves(cwnd: u32, base: SimDuration, rtt: SimDuration) -> u64 {
    let cwnd2 = (cwnd as u64) << 1;
    cwnd2 - (cwnd2 as u128 * base as u128 / rtt.max(1) as u128) as u64
}

impl Veno {
    pub fn new(config: VenoConfig, info: ConnectionInfo) -> Self {
        Self {
            config,
            window: SegmentWindow::for_connection(&info),
            base_rtt: None,
            min_rtt_since_last_ack: None,
            samples: 0,
            backlog_halves: 0,
            increase_next: true,
        }
    }

    fn congestive(&self) -> bool {
        self.backlog_halves >= (self.config.beta as u64) << 1
    }
}

impl CongestionControl for Veno {
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(rtt) = ack.rtt_sample {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
            self.min_rtt_since_last_ack = Some(self.min_rtt_since_last_ack.map_or(rtt, |m| m.min(rtt)));
            self.samples += 1;
        }
        let rtt = self.min_rtt_since_last_ack.take();
        if !ack.may_raise_cwnd() || (self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited) {
            return;
        }
        let (Some(base), Some(rtt)) = (self.base_rtt, rtt) else {
            self.window.reno_increase(ack.acked_segments);
            return;
        };
        if self.samples <= 2 {
            self.window.reno_increase(ack.acked_segments);
            return;
        }
        self.backlog_halves = backlog_halves(self.window.cwnd, base, rtt);
        let Some(acked) = self.window.leftover_after_slow_start(ack.acked_segments) else {
            return;
        };
        let cwnd = self.window.cwnd;
        if !self.congestive() {
            self.window.additive_increase(cwnd, acked);
        } else if self.window.credit >= cwnd {
            if self.increase_next {
                self.window.cwnd += 1;
                self.increase_next = false;
            } else {
                self.increase_next = true;
            }
            self.window.credit = 0;
        } else {
            self.window.credit += acked;
        }
        self.window.cwnd = self.window.cwnd.max(2);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let cwnd = self.window.cwnd;
        // 4/5 in u64: cwnd (segments) may exceed u32::MAX / 4.
        let ssthresh = if self.congestive() { cwnd / 2 } else { (cwnd as u64 * 4 / 5) as u32 };
        self.window.reduce(ssthresh, event.kind);
    }

    super::window::reno_like_window!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CongestionKind;
    use crate::time::NANOS_PER_MILLI as MS;

    fn loss_at(cwnd: u32, rtt_ms: u64) -> u32 {
        let mut v = Veno::new(VenoConfig::default(), ConnectionInfo::new(1000, 10, 1));
        v.window.cwnd = cwnd;
        v.backlog_halves = backlog_halves(cwnd, 100 * MS, rtt_ms * MS);
        v.on_congestion_event(&CongestionEvent {
            now: 0,
            kind: CongestionKind::FastRetransmit,
            bytes_in_flight: 0,
            snd_nxt: 0,
        });
        v.window.ssthresh
    }

    #[test]
    fn random_losses_keep_four_fifths_congestive_ones_half() {
        // N = 50 - 50 x 100 / 101 = 0.5 segments (1 half): random -> 40.
        assert_eq!(backlog_halves(50, 100 * MS, 101 * MS), 1);
        assert_eq!(loss_at(50, 101), 40);
        // N = 50 - 50 x 100 / 120 = 8.3 segments: congestive -> 25.
        assert_eq!(backlog_halves(50, 100 * MS, 120 * MS), 17);
        assert_eq!(loss_at(50, 120), 25);
        // Exactly at beta: N = 30 - 30 x 100 / 111.11 = 3 -> congestive.
        assert_eq!(loss_at(30, 112), 15);
    }
}
