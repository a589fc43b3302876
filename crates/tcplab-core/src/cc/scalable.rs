//! `scalable`: Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area
//! networks", CCR 2003) as Linux's tcp_scalable.c implements it.
//!
//! Congestion avoidance adds one segment per min(cwnd, 100) acknowledged segments (Kelly's
//! a = 0.01 per ACK above a window of 100; Reno-like below it). A loss sets
//! ssthresh = max(cwnd - cwnd / 8, 2) (b = 0.125). Slow start is Reno's.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, ConnectionInfo, ParamKind,
    ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScalableConfig {
    /// Above this window, one segment is added per this many acknowledged segments.
    pub ai_count: u32,
    /// ssthresh = cwnd - cwnd >> md_shift (3: a decrease of 1/8).
    pub md_shift: u32,
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        Self { ai_count: 100, md_shift: 3, freeze_when_not_cwnd_limited: true }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "ai_count",
        kind: ParamKind::Integer { min: 1, max: 100_000 },
        unit: "segments",
        description: "acked segments per +1 segment once cwnd exceeds it",
    },
    ParamSpec {
        name: "md_shift",
        kind: ParamKind::Integer { min: 1, max: 8 },
        unit: "",
        description: "decrease by cwnd / 2^md_shift on loss",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "scalable",
    summary: "Scalable TCP: +1 segment per 100 ACKs at large windows, cwnd x 7/8 on loss",
    source: "Kelly, CCR 2003; Linux net/ipv4/tcp_scalable.c",
    params: PARAMS,
    defaults: defaults_of::<ScalableConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: ScalableConfig = parse_params("scalable", PARAMS, params)?;
        Ok(Box::new(Scalable { window: SegmentWindow::for_connection(&info), config }))
    },
};

pub struct Scalable {
    config: ScalableConfig,
    window: SegmentWindow,
}

impl CongestionControl for Scalable {
    fn on_ack(&mut self, ack: &AckEvent) {
        if !ack.may_raise_cwnd() || (self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited) {
            return;
        }
        let Some(acked) = self.window.leftover_after_slow_start(ack.acked_segments) else {
            return;
        };
        let w = self.window.cwnd.min(self.config.ai_count);
        self.window.additive_increase(w, acked);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let cwnd = self.window.cwnd;
        self.window.reduce(cwnd - (cwnd >> self.config.md_shift), event.kind);
    }

    super::window::reno_like_window!();
}

#[cfg(test)]
mod tests {
    use crate::cc::harness::FakeSender;
    use crate::time::NANOS_PER_MILLI;

    #[test]
    fn grows_one_segment_per_hundred_acks_and_cuts_an_eighth() {
        let mut s = FakeSender::new("scalable", &serde_json::Value::Null, 1000, 10, 100 * NANOS_PER_MILLI);
        while s.cwnd_segments() < 400.0 {
            s.round_trip(1);
        }
        // Slow start reached 640; a loss leaves 640 - 80 = 560.
        assert_eq!(s.cwnd_segments(), 640.0);
        s.lose();
        assert_eq!((s.cwnd_segments(), s.ssthresh_segments()), (560.0, 560.0));
        s.advance(100 * NANOS_PER_MILLI);
        while s.in_flight() > 0 {
            s.ack(1);
        }
        // One RTT of 560 acked segments at w = 100 adds 5 segments (plus credit).
        s.round_trip(1);
        assert!((565.0..=566.0).contains(&s.cwnd_segments()), "{}", s.cwnd_segments());
    }
}
