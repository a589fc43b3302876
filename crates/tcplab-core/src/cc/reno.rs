//! `reno`: TCP Reno congestion control as Linux implements it (net/ipv4/tcp_cong.c,
//! `tcp_reno_cong_avoid` and `tcp_reno_ssthresh`), on top of RFC 5681.
//!
//! Where it follows Linux rather than the RFC:
//! - slow start adds one segment per acked *segment* (appropriate byte counting with L = acked),
//!   up to ssthresh, and leftover acks go to congestion avoidance;
//! - congestion avoidance adds one segment per cwnd acked segments via a credit counter;
//! - ssthresh after loss is max(cwnd / 2, 2) segments, halving cwnd rather than FlightSize;
//! - growth stops while the flow is not cwnd-limited (`tcp_is_cwnd_limited`), unless
//!   `freeze_when_not_cwnd_limited = false`.
//!
//! For the RFC 5681/6582 variant ns-2 used (per-ACK growth, FlightSize / 2) see `newreno`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, ConnectionInfo, ParamKind,
    ParamSpec,
};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenoConfig {
    /// Skip cwnd growth on ACKs that arrive while the flow is not cwnd-limited (Linux behaviour).
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for RenoConfig {
    fn default() -> Self {
        Self { freeze_when_not_cwnd_limited: true }
    }
}

const PARAMS: &[ParamSpec] = &[ParamSpec {
    name: "freeze_when_not_cwnd_limited",
    kind: ParamKind::Bool,
    unit: "",
    description: "no cwnd growth while the application does not fill cwnd (Linux tcp_is_cwnd_limited)",
}];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "reno",
    summary: "TCP Reno as in Linux: slow start, +1 segment per RTT, halve cwnd on loss",
    source: "RFC 5681; Linux net/ipv4/tcp_cong.c (tcp_reno_cong_avoid, tcp_reno_ssthresh)",
    params: PARAMS,
    defaults: defaults_of::<RenoConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: RenoConfig = parse_params("reno", PARAMS, params)?;
        Ok(Box::new(Reno::new(config, info)))
    },
};

pub struct Reno {
    config: RenoConfig,
    window: SegmentWindow,
}

impl Reno {
    pub fn new(config: RenoConfig, info: ConnectionInfo) -> Self {
        Self { config, window: SegmentWindow::for_connection(&info) }
    }
}

impl CongestionControl for Reno {
    fn on_ack(&mut self, ack: &AckEvent) {
        if !ack.may_raise_cwnd() || (self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited) {
            return;
        }
        self.window.reno_increase(ack.acked_segments);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.window.reduce(self.window.cwnd / 2, event.kind);
    }

    super::window::reno_like_window!();
}
