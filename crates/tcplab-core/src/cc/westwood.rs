//! `westwood`: TCP Westwood+ (Mascolo, Casetti, Gerla, Sanadidi and Wang, "TCP Westwood: bandwidth
//! estimation for enhanced transport over wireless links", MobiCom 2001; Westwood+ sampling from
//! Grieco and Mascolo, CCR 2004) as Linux's tcp_westwood.c implements it.
//!
//! Acknowledged bytes are summed over windows of max(RTT, 50 ms); each window's rate goes through
//! two 7/8 EWMA stages (bw_ns_est, then bw_est). After a loss the window is not halved blindly but
//! set to the estimated pipe: ssthresh = max(bw_est x RTT_min / MSS, 2) segments (at the end of fast
//! recovery, and immediately after a timeout, when RTT_min is also re-learned). Growth is Reno's.
//!
//! Where tcplab differs from Linux: Linux credits one MSS per duplicate ACK and corrects on the
//! next cumulative ACK to count delivered data; tcplab's ACK events already count bytes delivered
//! (SACKed included), which is what that accounting approximates. For an ECN echo Linux sets the
//! window at the end of its CWR round; tcplab sets it at once (it has no CWR-end event).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::SegmentWindow;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec, FREEZE_WHEN_NOT_CWND_LIMITED,
};
use crate::time::{as_secs_f64, SimDuration, SimTime, NANOS_PER_MILLI, NANOS_PER_SEC};
use crate::units::Duration;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WestwoodConfig {
    /// Shortest bandwidth sampling window (Linux TCP_WESTWOOD_RTT_MIN, HZ / 20).
    pub min_sample_window: Duration,
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for WestwoodConfig {
    fn default() -> Self {
        Self { min_sample_window: Duration(50 * NANOS_PER_MILLI), freeze_when_not_cwnd_limited: true }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "min_sample_window",
        kind: ParamKind::Duration { min: NANOS_PER_MILLI, max: 10 * NANOS_PER_SEC },
        unit: "time",
        description: "bandwidth samples span at least this long",
    },
    FREEZE_WHEN_NOT_CWND_LIMITED,
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "westwood",
    summary: "TCP Westwood+: after a loss, set the window to the estimated bandwidth x RTT_min",
    source: "Mascolo et al., MobiCom 2001; Grieco and Mascolo, CCR 2004; Linux net/ipv4/tcp_westwood.c",
    params: PARAMS,
    defaults: defaults_of::<WestwoodConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: WestwoodConfig = parse_params("westwood", PARAMS, params)?;
        Ok(Box::new(Westwood::new(config, info)))
    },
};

pub struct Westwood {
    config: WestwoodConfig,
    pub(crate) window: SegmentWindow,
    /// First and second EWMA stages, bytes per second.
    bw_ns_est: f64,
    pub(crate) bw_est: f64,
    /// Bytes acknowledged in the current sampling window, and when it began.
    sampled_bytes: u64,
    sample_start: Option<SimTime>,
    latest_rtt: SimDuration,
    pub(crate) rtt_min: Option<SimDuration>,
    reset_rtt_min: bool,
}

impl Westwood {
    pub fn new(config: WestwoodConfig, info: ConnectionInfo) -> Self {
        Self {
            config,
            window: SegmentWindow::for_connection(&info),
            bw_ns_est: 0.0,
            bw_est: 0.0,
            sampled_bytes: 0,
            sample_start: None,
            latest_rtt: 0,
            rtt_min: None,
            reset_rtt_min: false,
        }
    }

    /// The estimated pipe in segments: bw_est x RTT_min / MSS, at least 2.
    pub fn pipe_segments(&self) -> u32 {
        let rtt_min = as_secs_f64(self.rtt_min.unwrap_or(0));
        ((self.bw_est * rtt_min / self.window.mss as f64).floor() as u32).max(2)
    }

    fn filter(&mut self, rate: f64) {
        if self.bw_ns_est == 0.0 && self.bw_est == 0.0 {
            self.bw_ns_est = rate;
            self.bw_est = rate;
        } else {
            self.bw_ns_est = (7.0 * self.bw_ns_est + rate) / 8.0;
            self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
        }
    }
}

impl CongestionControl for Westwood {
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(rtt) = ack.rtt_sample {
            self.latest_rtt = rtt;
        }
        let start = *self.sample_start.get_or_insert(ack.now);
        let elapsed = ack.now - start;
        if self.latest_rtt > 0 && elapsed > self.latest_rtt.max(self.config.min_sample_window.nanos()) {
            self.filter(self.sampled_bytes as f64 / as_secs_f64(elapsed));
            self.sampled_bytes = 0;
            self.sample_start = Some(ack.now);
        }
        self.sampled_bytes += ack.acked_bytes;
        if self.latest_rtt > 0 {
            self.rtt_min = Some(match self.rtt_min {
                Some(m) if !self.reset_rtt_min => m.min(self.latest_rtt),
                _ => self.latest_rtt,
            });
            self.reset_rtt_min = false;
        }
        if !ack.may_raise_cwnd() || (self.config.freeze_when_not_cwnd_limited && !ack.cwnd_limited) {
            return;
        }
        self.window.reno_increase(ack.acked_segments);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        match event.kind {
            // Reno's ssthresh until recovery ends; then the bandwidth estimate (on_recovery_exit).
            CongestionKind::FastRetransmit => self.window.reduce(self.window.cwnd / 2, event.kind),
            CongestionKind::Ecn => {
                let pipe = if self.bw_est > 0.0 { self.pipe_segments() } else { self.window.cwnd / 2 };
                self.window.reduce(pipe, event.kind);
            }
            CongestionKind::Timeout => {
                let pipe = if self.bw_est > 0.0 { self.pipe_segments() } else { self.window.cwnd / 2 };
                self.window.reduce(pipe, event.kind);
                self.reset_rtt_min = true;
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        if self.bw_est > 0.0 {
            self.window.ssthresh = self.pipe_segments();
        }
        self.window.cwnd = self.window.ssthresh;
    }

    super::window::window_outputs!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::FakeSender;

    #[test]
    fn pipe_is_bandwidth_times_min_rtt() {
        let mut w = Westwood::new(WestwoodConfig::default(), ConnectionInfo::new(1000, 10, 1));
        w.bw_est = 1.25e6; // 10 Mbit/s
        w.rtt_min = Some(100 * NANOS_PER_MILLI);
        assert_eq!(w.pipe_segments(), 125);
    }

    #[test]
    fn two_stage_filter() {
        let mut w = Westwood::new(WestwoodConfig::default(), ConnectionInfo::new(1000, 10, 1));
        w.filter(800.0);
        assert_eq!((w.bw_ns_est, w.bw_est), (800.0, 800.0));
        w.filter(1600.0);
        // bw_ns = (7 x 800 + 1600) / 8 = 900; bw = (7 x 800 + 900) / 8 = 812.5.
        assert_eq!((w.bw_ns_est, w.bw_est), (900.0, 812.5));
    }

    #[test]
    fn after_recovery_the_window_is_the_measured_pipe_not_half() {
        // 60 segments per 100 ms RTT = 600 kB/s; RTT_min 100 ms -> pipe 60 segments.
        let mut s = FakeSender::new(
            "westwood",
            &serde_json::json!({"freeze_when_not_cwnd_limited": false}),
            1000,
            60,
            100 * NANOS_PER_MILLI,
        );
        s.cc.on_congestion_event(&CongestionEvent {
            now: 0,
            kind: CongestionKind::Ecn,
            bytes_in_flight: 0,
            snd_nxt: 0,
        });
        // Hold cwnd at 60 by growing ssthresh out of reach: run rounds with the window fixed.
        for _ in 0..40 {
            s.round_trip(1);
        }
        let cwnd_before = s.cwnd_segments();
        s.lose();
        s.advance(100 * NANOS_PER_MILLI);
        while s.in_flight() > 0 {
            s.ack(1);
        }
        let after = s.cwnd_segments();
        assert!(after > cwnd_before * 0.6, "pipe-based window {after} vs Reno's half {}", cwnd_before / 2.0);
    }
}
