//! `newreno`: the congestion window rules of RFC 5681 as ns-2's NewReno agent applied them, counted
//! in bytes. Loss recovery itself (RFC 6582 partial ACKs, or RFC 6675 SACK) is the sender's job and
//! chosen with the TCP option `recovery`; this file only decides cwnd and ssthresh.
//!
//! - Slow start: cwnd += min(acked bytes, L * SMSS) per ACK, L = `abc_limit` (RFC 5681 section 3.1
//!   and RFC 3465; L = 1 is ns-2's per-ACK growth).
//! - Congestion avoidance: cwnd += SMSS * SMSS / cwnd per ACK (RFC 5681 equation 3), at least 1 byte.
//! - Loss: ssthresh = max(FlightSize / 2, 2 SMSS) (RFC 5681 equation 4). After fast recovery cwnd =
//!   ssthresh (RFC 6582 section 3.2 step 3, option 2); after a timeout cwnd = 1 SMSS.
//! - Unlike `reno` (Linux) it keeps growing when not cwnd-limited, as ns-2 did, unless
//!   `freeze_when_not_cwnd_limited = true`.
//! - `reduction = "ns2_slowdown"`: the arithmetic of ns-2.35's `TcpAgent::slowdown` (tcp.cc) with
//!   `CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF` instead: ssthresh is half the window in whole segments
//!   (`(int) halfwin`, at least 2), and an ECN-Echo halves cwnd itself (`cwnd_ = halfwin`, RFC 3168
//!   section 6.1.2: "the TCP source halves the congestion window"), so a window of 3 segments
//!   falls to 1.5, not to the 2-segment ssthresh. The sender hands algorithms the window (not
//!   the flight) as the basis under `ecn_response = "rfc3168"`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::ByteWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec,
};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NewRenoConfig {
    /// Appropriate byte counting limit L in segments for slow start (RFC 3465).
    pub abc_limit: u32,
    pub freeze_when_not_cwnd_limited: bool,
    pub reduction: Reduction,
}

/// How a loss or an ECN-Echo sets ssthresh and cwnd.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reduction {
    /// RFC 5681 equation 4: ssthresh = max(basis / 2, 2 SMSS) in bytes, cwnd = ssthresh.
    Rfc5681,
    /// ns-2's `slowdown`: ssthresh = max(whole segments of basis / 2, 2); on ECN cwnd = basis / 2.
    Ns2Slowdown,
}

impl Default for NewRenoConfig {
    fn default() -> Self {
        Self { abc_limit: 1, freeze_when_not_cwnd_limited: false, reduction: Reduction::Rfc5681 }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "abc_limit",
        kind: ParamKind::Integer { min: 1, max: 2 },
        unit: "segments",
        description: "slow start grows by at most this many segments per ACK (RFC 3465 L)",
    },
    ParamSpec {
        name: "freeze_when_not_cwnd_limited",
        kind: ParamKind::Bool,
        unit: "",
        description: "no cwnd growth while the application does not fill cwnd",
    },
    ParamSpec {
        name: "reduction",
        kind: ParamKind::Choice { allowed: &["rfc5681", "ns2_slowdown"] },
        unit: "",
        description: "on loss or ECN: RFC 5681 (ssthresh max(basis/2, 2 SMSS), cwnd = ssthresh) or ns-2's slowdown (ssthresh in whole segments, ECN halves cwnd itself)",
    },
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "newreno",
    summary: "RFC 5681 window rules in bytes (ns-2 NewReno): per-ACK growth, FlightSize/2 on loss",
    source: "RFC 5681, RFC 3465, RFC 6582 (recovery in the sender)",
    params: PARAMS,
    defaults: defaults_of::<NewRenoConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: NewRenoConfig = parse_params("newreno", PARAMS, params)?;
        Ok(Box::new(NewReno::new(config, info)))
    },
};

pub struct NewReno {
    config: NewRenoConfig,
    window: ByteWindow,
}

impl NewReno {
    pub fn new(config: NewRenoConfig, info: ConnectionInfo) -> Self {
        Self { config, window: ByteWindow::for_connection(&info) }
    }
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, ack: &AckEvent) {
        if !ack.may_raise_cwnd() || ack.acked_bytes == 0 {
            return;
        }
        if self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited {
            return;
        }
        self.window.rfc5681_increase(ack.acked_bytes, self.config.abc_limit as u64);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let half = event.bytes_in_flight / 2;
        match self.config.reduction {
            Reduction::Rfc5681 => self.window.reduce(half, event.kind),
            Reduction::Ns2Slowdown => {
                let mss = self.window.mss;
                self.window.reduce(half / mss * mss, event.kind);
                if event.kind == CongestionKind::Ecn {
                    // Below 2 segments, or below 1: the sender then waits for its timer
                    // (`ecn_response = "rfc3168"`); a window is never 0 bytes.
                    self.window.cwnd = half.max(1);
                }
            }
        }
    }

    super::window::reno_like_window!();
}
