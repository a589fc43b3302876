//! `hybla`: TCP Hybla (Caini and Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous
//! networks", International Journal of Satellite Communications and Networking, 2004), with the
//! rules of Linux's tcp_hybla.c.
//!
//! rho = max(RTT / RTT0, 1) with RTT the smallest smoothed RTT seen (recomputed whenever it falls).
//! Per ACK in slow start cwnd += 2^rho - 1 (not past ssthresh); in congestion avoidance
//! cwnd += rho^2 / cwnd. A flow with RTT0 therefore grows as fast as a Reno flow would with RTT0,
//! whatever its own RTT. Loss reaction is Reno's.
//!
//! Where tcplab differs from Linux: Linux keeps rho in fixed point with 3 fractional bits
//! (rho = 1.1 becomes 1.0) and 2^fraction from a table; tcplab computes 2^rho - 1 and rho^2 / cwnd
//! in floating point with a fractional-window accumulator. Linux starts cwnd at rho; tcplab keeps
//! the connection's initial window. The increase is per ACK, not per acknowledged segment, as in
//! the paper and Linux (`count_acked_segments = true` adds the congestion-avoidance step once per
//! acknowledged segment instead, as ns-3's TcpHybla::CongestionAvoidance does; slow start stays
//! one step per ACK there too); the slow-start exponent is capped at 16 and cwnd at 65535 segments, as in
//! Linux. RTT0 defaults to 25 ms as in Linux (ns-3 uses 50 ms). Without pacing, a large rho makes
//! slow start send far more than the path holds in its first RTTs (2^rho times the window per
//! RTT); the Hybla authors pair it with pacing (`tcp.pacing = true`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, ConnectionInfo, ParamKind,
    ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};
use crate::time::{SimDuration, NANOS_PER_MILLI, NANOS_PER_SEC};
use crate::units::Duration;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HyblaConfig {
    /// Reference RTT the flow emulates.
    pub rtt0: Duration,
    pub freeze_when_not_cwnd_limited: bool,
    /// Congestion avoidance adds rho^2 / cwnd per acknowledged segment (ns-3), not per ACK.
    pub count_acked_segments: bool,
}

impl Default for HyblaConfig {
    fn default() -> Self {
        Self { rtt0: Duration(25 * NANOS_PER_MILLI), freeze_when_not_cwnd_limited: true, count_acked_segments: false }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "rtt0",
        kind: ParamKind::Duration { min: NANOS_PER_MILLI, max: 10 * NANOS_PER_SEC },
        unit: "time",
        description: "reference RTT (Linux 25 ms, ns-3 50 ms)",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
    ParamSpec {
        name: "count_acked_segments",
        kind: ParamKind::Bool,
        unit: "",
        description: "congestion avoidance grows rho^2 / cwnd per acknowledged segment (ns-3), not per ACK (Linux)",
    },
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "hybla",
    summary: "TCP Hybla: growth scaled by rho = RTT / RTT0 so long-RTT (satellite) flows grow like RTT0 ones",
    source: "Caini and Firrincieli 2004; Linux net/ipv4/tcp_hybla.c (floating point instead of fixed point)",
    params: PARAMS,
    defaults: defaults_of::<HyblaConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: HyblaConfig = parse_params("hybla", PARAMS, params)?;
        Ok(Box::new(Hybla::new(config, info)))
    },
};

/// Largest exponent of the slow-start step 2^rho - 1 (Linux: `1 << min(rho, 16)`).
const MAX_SLOW_START_EXPONENT: f64 = 16.0;
/// Linux's hybla_init sets `snd_cwnd_clamp = 65535`.
const CWND_CLAMP_SEGMENTS: u32 = 65_535;

pub struct Hybla {
    config: HyblaConfig,
    pub(crate) window: SegmentWindow,
    pub(crate) rho: f64,
    min_srtt: Option<SimDuration>,
    /// Fraction of a segment accumulated.
    fraction: f64,
}

impl Hybla {
    pub fn new(config: HyblaConfig, info: ConnectionInfo) -> Self {
        Self { config, window: SegmentWindow::for_connection(&info), rho: 1.0, min_srtt: None, fraction: 0.0 }
    }

    /// The per-ACK increase in segments at the current rho and cwnd.
    pub fn increment(&self) -> f64 {
        if self.window.in_slow_start() {
            // Linux caps the exponent at 16 (a 65535-segment step) so huge rho cannot overflow.
            self.rho.min(MAX_SLOW_START_EXPONENT).exp2() - 1.0
        } else {
            self.rho * self.rho / self.window.cwnd as f64
        }
    }
}

impl CongestionControl for Hybla {
    fn on_ack(&mut self, ack: &AckEvent) {
        if ack.srtt > 0 && self.min_srtt.is_none_or(|m| ack.srtt < m) {
            self.min_srtt = Some(ack.srtt);
            self.rho = (ack.srtt as f64 / self.config.rtt0.nanos() as f64).max(1.0);
        }
        if !ack.may_raise_cwnd() || (self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited) {
            return;
        }
        let in_slow_start = self.window.in_slow_start();
        let steps = if self.config.count_acked_segments && !in_slow_start { ack.acked_segments } else { 1 };
        self.fraction += self.increment() * steps as f64;
        let whole = self.fraction.floor();
        self.fraction -= whole;
        self.window.cwnd = self.window.cwnd.saturating_add(whole as u32).min(CWND_CLAMP_SEGMENTS);
        if in_slow_start && self.window.cwnd > self.window.ssthresh {
            self.window.cwnd = self.window.ssthresh;
            self.fraction = 0.0;
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.fraction = 0.0;
        self.window.reduce(self.window.cwnd / 2, event.kind);
    }

    super::window::reno_like_window!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::FakeSender;

    #[test]
    fn congestion_avoidance_counts_acks_or_acknowledged_segments() {
        // rho = 2, cwnd 20 segments, one ACK for two segments: rho^2 / cwnd = 4 / 20 = 0.2 per
        // step: 0.2 per ACK (Linux), 0.4 per two segments (ns-3).
        let gain = |count_acked_segments| {
            let config = HyblaConfig { count_acked_segments, ..HyblaConfig::default() };
            let mut h = Hybla::new(config, ConnectionInfo::new(1000, 20, 1));
            h.window.ssthresh = 10;
            h.rho = 2.0;
            h.min_srtt = Some(50 * NANOS_PER_MILLI);
            h.on_ack(&AckEvent {
                acked_segments: 2,
                acked_bytes: 2000,
                snd_una_advanced: true,
                cwnd_limited: true,
                srtt: 50 * NANOS_PER_MILLI,
                ..AckEvent::default()
            });
            h.fraction
        };
        assert!((gain(false) - 0.2).abs() < 1e-12);
        assert!((gain(true) - 0.4).abs() < 1e-12);
    }

    #[test]
    fn slow_start_step_is_two_to_the_rho_minus_one() {
        // rho = 2 (RTT 50 ms, RTT0 25 ms): +3 segments per ACK; rho = 1.1: +2^1.1 - 1 = 1.1435.
        let mut s = FakeSender::new("hybla", &Value::Null, 1000, 10, 50 * NANOS_PER_MILLI);
        s.fill_window();
        s.advance(50 * NANOS_PER_MILLI);
        s.ack(1);
        assert_eq!(s.cwnd_segments(), 13.0);
        let mut h = Hybla::new(HyblaConfig::default(), ConnectionInfo::new(1000, 10, 1));
        h.rho = 1.1;
        assert!((h.increment() - 1.143_547).abs() < 1e-6);
    }

    #[test]
    fn congestion_avoidance_step_is_rho_squared_over_cwnd() {
        let mut h = Hybla::new(HyblaConfig::default(), ConnectionInfo::new(1000, 10, 1));
        h.rho = 4.0;
        h.window.cwnd = 80;
        h.window.ssthresh = 40;
        assert_eq!(h.increment(), 0.2);
    }

    #[test]
    fn a_600ms_flow_outgrows_newreno_per_rtt() {
        // rho = 24: in one RTT of 10 ACKs slow start reaches ssthresh-capped huge growth, where
        // NewReno (per ACK +1) only reaches 20.
        let mut hybla = FakeSender::new("hybla", &Value::Null, 1000, 10, 600 * NANOS_PER_MILLI);
        let mut newreno = FakeSender::new("newreno", &Value::Null, 1000, 10, 600 * NANOS_PER_MILLI);
        hybla.round_trip(1);
        newreno.round_trip(1);
        assert_eq!(newreno.cwnd_segments(), 20.0);
        assert!(hybla.cwnd_segments() > 1000.0, "{}", hybla.cwnd_segments());
    }
}
