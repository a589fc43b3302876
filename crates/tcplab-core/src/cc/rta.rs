//! `rta`: TCP-RTA, TCP with Real-Time Topology Adaptiveness (papers/tcp-rta.txt): NewReno on
//! terrestrial paths, Hybla once the RTT shows a satellite hop, switching on the evidence of three
//! consecutive RTT samples so that one or two delayed ACKs do not trigger a switch.
//!
//! Followed to the letter (section 3 and Algorithm 1): the last three per-ACK RTT samples start at
//! the lower threshold; three above `upper_threshold` (800 ms) switch NewReno -> Hybla. The paper's
//! enhancements, each a parameter: (1) slow start by segments acknowledged, cwnd = min(cwnd +
//! segmentsAcked x SMSS, ssthresh), where NewReno adds one segment per ACK (Algorithm 2); (2)
//! byte-counted congestion avoidance, one SMSS each time the bytes acknowledged reach cwnd;
//! (3) ssthresh = 2/3 of bytes in flight on fast retransmit instead of 1/2; (4) a boost of
//! 10 x the bandwidth-delay product at a switch. In Hybla mode the rules are Hybla's (slow start
//! 2^rho - 1 segments per ACK, congestion avoidance rho^2 / cwnd), with RTT0 = `rtt0`.
//!
//! Decisions the paper leaves open (docs/algorithms/rta.md):
//! - Switching back: the text says three samples below the lower threshold; Algorithm 1's line 12
//!   tests "current below, previous two above", which would fire on the first low sample after
//!   high ones and contradicts the text's low-pass intent. tcplab follows the text.
//! - The lower threshold is a parameter (300 ms in the text, 500 ms in Algorithm 1; default 300).
//! - At a switch cwnd, ssthresh and the byte counter carry over. Hybla's rho comes from the
//!   smallest RTT sample since the switch (`rho_from = "samples"`): the smoothed RTT still carries
//!   the old path's history for several RTTs (on a 20 ms -> 900 ms step it gives rho = 18 where
//!   the samples give 35). `rho_from = "srtt"` keeps the smallest smoothed RTT since the switch.
//! - The x10 BDP boost: at a switch, ssthresh is raised to at least 10 x (the delivery rate at the
//!   switch, or cwnd / srtt without one) x the current RTT sample, letting slow start fill the
//!   new path quickly. cwnd itself is not changed.
//! - Timeouts use ssthresh = max(FlightSize / 2, 2 SMSS) (enhancement 3 names fast retransmit
//!   only); ECN echo is treated as a fast retransmit.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec,
};
use crate::time::{SimDuration, SimTime, NANOS_PER_MILLI, NANOS_PER_SEC};
use crate::units::Duration;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RtaConfig {
    /// Three consecutive RTT samples above this switch to Hybla.
    pub upper_threshold: Duration,
    /// Three consecutive RTT samples below this switch back to NewReno.
    pub lower_threshold: Duration,
    /// Hybla's reference RTT.
    pub rtt0: Duration,
    pub slow_start_by_segments: bool,
    pub byte_counted_avoidance: bool,
    pub two_thirds_ssthresh: bool,
    pub bdp_boost: bool,
    pub bdp_boost_factor: f64,
    /// Which RTT sets Hybla's rho after a switch.
    pub rho_from: RhoSource,
    /// Hybla's congestion avoidance adds rho^2 / cwnd per acknowledged segment, as ns-3's
    /// TcpHybla (which the paper's code extends), not per ACK as Linux's.
    pub hybla_count_acked_segments: bool,
}

/// The RTT Hybla's rho is computed from after a switch (the smallest since the switch).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RhoSource {
    /// Per-ACK RTT samples.
    Samples,
    /// The sender's smoothed RTT.
    Srtt,
}

impl Default for RtaConfig {
    fn default() -> Self {
        Self {
            upper_threshold: Duration(800 * NANOS_PER_MILLI),
            lower_threshold: Duration(300 * NANOS_PER_MILLI),
            rtt0: Duration(25 * NANOS_PER_MILLI),
            slow_start_by_segments: true,
            byte_counted_avoidance: true,
            two_thirds_ssthresh: true,
            bdp_boost: true,
            bdp_boost_factor: 10.0,
            rho_from: RhoSource::Samples,
            hybla_count_acked_segments: false,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "upper_threshold",
        kind: ParamKind::Duration { min: NANOS_PER_MILLI, max: 60 * NANOS_PER_SEC },
        unit: "time",
        description: "three RTT samples above switch to Hybla (paper: 800 ms)",
    },
    ParamSpec {
        name: "lower_threshold",
        kind: ParamKind::Duration { min: NANOS_PER_MILLI, max: 60 * NANOS_PER_SEC },
        unit: "time",
        description: "three RTT samples below switch back to NewReno (text 300 ms, Algorithm 1 500 ms)",
    },
    ParamSpec {
        name: "rtt0",
        kind: ParamKind::Duration { min: NANOS_PER_MILLI, max: 10 * NANOS_PER_SEC },
        unit: "time",
        description: "Hybla's reference RTT",
    },
    ParamSpec {
        name: "slow_start_by_segments",
        kind: ParamKind::Bool,
        unit: "",
        description: "enhancement 1: slow start adds the segments acknowledged",
    },
    ParamSpec {
        name: "byte_counted_avoidance",
        kind: ParamKind::Bool,
        unit: "",
        description: "enhancement 2: +1 SMSS each time a cwnd of bytes is acknowledged",
    },
    ParamSpec {
        name: "two_thirds_ssthresh",
        kind: ParamKind::Bool,
        unit: "",
        description: "enhancement 3: ssthresh = 2/3 of bytes in flight on fast retransmit",
    },
    ParamSpec {
        name: "bdp_boost",
        kind: ParamKind::Bool,
        unit: "",
        description: "enhancement 4: raise ssthresh to a multiple of the BDP at a switch",
    },
    ParamSpec {
        name: "bdp_boost_factor",
        kind: ParamKind::Float { min: 1.0, max: 100.0 },
        unit: "BDP",
        description: "the multiple (paper: 10)",
    },
    ParamSpec {
        name: "rho_from",
        kind: ParamKind::Choice { allowed: &["samples", "srtt"] },
        unit: "",
        description: "the RTT that sets Hybla's rho after a switch: the smallest sample or smoothed RTT since it",
    },
    ParamSpec {
        name: "hybla_count_acked_segments",
        kind: ParamKind::Bool,
        unit: "",
        description:
            "Hybla mode's avoidance grows rho^2 / cwnd per acknowledged segment (ns-3's TcpHybla), not per ACK",
    },
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "rta",
    summary: "TCP-RTA: NewReno, switching to Hybla after three RTT samples above 800 ms and back after three below",
    source: "papers/tcp-rta.txt (section 3, Algorithms 1 and 2)",
    params: PARAMS,
    defaults: defaults_of::<RtaConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: RtaConfig = parse_params("rta", PARAMS, params)?;
        if config.lower_threshold > config.upper_threshold {
            return Err(format!(
                "lower_threshold = {} must not exceed upper_threshold = {}",
                config.lower_threshold, config.upper_threshold
            ));
        }
        Ok(Box::new(Rta::new(config, info)))
    },
};

/// Hybla's slow-start exponent cap (as in `hybla`).
const MAX_SLOW_START_EXPONENT: f64 = 16.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    NewReno,
    Hybla,
}

pub struct Rta {
    config: RtaConfig,
    mss: u64,
    pub(crate) mode: Mode,
    /// RTT-Current, RTT-Prev, RTT-Prev-Prev.
    pub(crate) recent_rtts: [SimDuration; 3],
    pub(crate) cwnd: u64,
    pub(crate) ssthresh: u64,
    bytes_acked: u64,
    /// Hybla's fractional window increase carried between ACKs, bytes.
    fraction: f64,
    /// The smallest RTT (sample or smoothed, as `rho_from` says) since the last switch.
    min_rtt_since_switch: Option<SimDuration>,
    pending_event: Option<&'static str>,
}

impl Rta {
    pub fn new(config: RtaConfig, info: ConnectionInfo) -> Self {
        let start = config.lower_threshold.nanos();
        Self {
            config,
            mss: info.mss,
            mode: Mode::NewReno,
            recent_rtts: [start; 3],
            cwnd: info.initial_window_segments.max(1) as u64 * info.mss,
            ssthresh: u64::MAX,
            bytes_acked: 0,
            fraction: 0.0,
            min_rtt_since_switch: None,
            pending_event: None,
        }
    }

    pub fn rho(&self) -> f64 {
        let rtt = self.min_rtt_since_switch.unwrap_or(self.recent_rtts[0]);
        (rtt as f64 / self.config.rtt0.nanos() as f64).max(1.0)
    }

    /// Records an RTT sample (Algorithm 1, lines 17-20) and switches if three in a row say so.
    fn observe_rtt(&mut self, rtt: SimDuration, ack: &AckEvent) {
        self.recent_rtts = [rtt, self.recent_rtts[0], self.recent_rtts[1]];
        let upper = self.config.upper_threshold.nanos();
        let lower = self.config.lower_threshold.nanos();
        let switch_to = match self.mode {
            Mode::NewReno if self.recent_rtts.iter().all(|&r| r > upper) => Some(Mode::Hybla),
            Mode::Hybla if self.recent_rtts.iter().all(|&r| r < lower) => Some(Mode::NewReno),
            _ => None,
        };
        if let Some(mode) = switch_to {
            self.mode = mode;
            self.min_rtt_since_switch = match self.config.rho_from {
                RhoSource::Samples => Some(rtt),
                RhoSource::Srtt => None,
            };
            self.fraction = 0.0;
            self.pending_event = Some(match mode {
                Mode::Hybla => "switch_to_hybla",
                Mode::NewReno => "switch_to_newreno",
            });
            if self.config.bdp_boost {
                let rate_bps = ack.delivery_rate.unwrap_or_else(|| {
                    (self.cwnd as u128 * 8 * NANOS_PER_SEC as u128 / ack.srtt.max(1) as u128) as u64
                });
                let bdp = rate_bps as f64 / 8.0 * rtt as f64 / NANOS_PER_SEC as f64;
                let boosted = (self.config.bdp_boost_factor * bdp) as u64;
                self.ssthresh = if self.ssthresh == u64::MAX { boosted } else { self.ssthresh.max(boosted) };
            }
        }
    }

    fn grow(&mut self, ack: &AckEvent) {
        let mss = self.mss;
        let in_slow_start = self.cwnd < self.ssthresh;
        match self.mode {
            Mode::NewReno if in_slow_start => {
                let step = if self.config.slow_start_by_segments {
                    ack.acked_segments as u64 * mss
                } else {
                    ack.acked_bytes.min(mss)
                };
                self.cwnd = (self.cwnd + step).min(self.ssthresh.max(self.cwnd));
            }
            Mode::NewReno => {
                if self.config.byte_counted_avoidance {
                    self.bytes_acked += ack.acked_bytes;
                    if self.bytes_acked >= self.cwnd {
                        self.bytes_acked -= self.cwnd;
                        self.cwnd += mss;
                    }
                } else {
                    self.cwnd += (mss * mss / self.cwnd).max(1);
                }
            }
            Mode::Hybla => {
                let rho = self.rho();
                let segments = if in_slow_start {
                    rho.min(MAX_SLOW_START_EXPONENT).exp2() - 1.0
                } else if self.config.hybla_count_acked_segments {
                    rho * rho * mss as f64 / self.cwnd as f64 * ack.acked_segments as f64
                } else {
                    rho * rho * mss as f64 / self.cwnd as f64
                };
                self.fraction += segments * mss as f64;
                let whole = self.fraction.floor();
                self.fraction -= whole;
                self.cwnd = self.cwnd.saturating_add(whole as u64);
                if in_slow_start && self.cwnd > self.ssthresh {
                    self.cwnd = self.ssthresh;
                }
            }
        }
        self.clamp_cwnd();
    }

    /// Linux keeps cwnd in a u32 count of segments; Hybla's growth (rho^2 segments per RTT at rho
    /// up to 120 on a 3 s path), and ssthresh taken from such a flight, would otherwise pass it.
    fn clamp_cwnd(&mut self) {
        self.cwnd = self.cwnd.min(u32::MAX as u64 * self.mss);
    }
}

impl CongestionControl for Rta {
    fn on_ack(&mut self, ack: &AckEvent) {
        let rtt_for_rho = match self.config.rho_from {
            RhoSource::Samples => ack.rtt_sample,
            RhoSource::Srtt => Some(ack.srtt).filter(|&s| s > 0),
        };
        if let Some(rtt) = rtt_for_rho {
            if self.min_rtt_since_switch.is_none_or(|m| rtt < m) {
                self.min_rtt_since_switch = Some(rtt);
            }
        }
        if let Some(rtt) = ack.rtt_sample {
            self.observe_rtt(rtt, ack);
        }
        if ack.may_raise_cwnd() && ack.acked_bytes > 0 {
            self.grow(ack);
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let mss = self.mss;
        let fast = event.kind != CongestionKind::Timeout;
        let ssthresh = if fast && self.config.two_thirds_ssthresh {
            event.bytes_in_flight * 2 / 3
        } else {
            event.bytes_in_flight / 2
        };
        self.ssthresh = ssthresh.max(2 * mss);
        self.bytes_acked = 0;
        self.fraction = 0.0;
        self.cwnd = if fast { self.ssthresh } else { mss };
        self.clamp_cwnd();
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.cwnd = self.ssthresh;
        self.clamp_cwnd();
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn state_name(&self) -> &'static str {
        match (self.mode, self.cwnd < self.ssthresh) {
            (Mode::NewReno, true) => "newreno_slow_start",
            (Mode::NewReno, false) => "newreno_avoidance",
            (Mode::Hybla, true) => "hybla_slow_start",
            (Mode::Hybla, false) => "hybla_avoidance",
        }
    }

    fn take_event(&mut self) -> Option<&'static str> {
        self.pending_event.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MILLI as MS;

    fn rta(config: RtaConfig) -> Rta {
        Rta::new(config, ConnectionInfo::new(1000, 10, 1))
    }

    fn sample(r: &mut Rta, rtt_ms: u64) -> Option<&'static str> {
        r.on_ack(&AckEvent { rtt_sample: Some(rtt_ms * MS), srtt: rtt_ms * MS, ..AckEvent::default() });
        r.take_event()
    }

    #[test]
    fn switches_only_on_the_third_consecutive_sample() {
        let mut r = rta(RtaConfig { bdp_boost: false, ..RtaConfig::default() });
        assert_eq!(r.recent_rtts, [300 * MS; 3], "initialised to the lower threshold");
        assert_eq!(sample(&mut r, 900), None);
        assert_eq!(sample(&mut r, 900), None);
        assert_eq!(r.mode, Mode::NewReno, "two samples are not enough");
        assert_eq!(sample(&mut r, 900), Some("switch_to_hybla"));
        assert_eq!(r.mode, Mode::Hybla);
        // Back: three below 300 ms, not one.
        assert_eq!(sample(&mut r, 100), None);
        assert_eq!(sample(&mut r, 100), None);
        assert_eq!(sample(&mut r, 100), Some("switch_to_newreno"));
        assert_eq!(r.mode, Mode::NewReno);
    }

    #[test]
    fn hybla_avoidance_counts_acks_or_acknowledged_segments() {
        // In Hybla mode with rho = 2 (rtt0 25 ms, smallest RTT since the switch 50 ms) and cwnd
        // 20 segments in avoidance, an ACK for two segments adds rho^2 / cwnd = 0.2 segment per
        // ACK (Linux), 0.4 per two segments (ns-3's TcpHybla): 200 or 400 bytes.
        let gain = |hybla_count_acked_segments| {
            let mut r = rta(RtaConfig { hybla_count_acked_segments, bdp_boost: false, ..RtaConfig::default() });
            r.mode = Mode::Hybla;
            r.min_rtt_since_switch = Some(50 * MS);
            (r.cwnd, r.ssthresh) = (20_000, 10_000);
            r.on_ack(&AckEvent {
                acked_bytes: 2000,
                acked_segments: 2,
                snd_una_advanced: true,
                srtt: 50 * MS,
                ..AckEvent::default()
            });
            r.cwnd - 20_000
        };
        assert_eq!((gain(false), gain(true)), (200, 400));
    }

    #[test]
    fn one_or_two_sample_spikes_are_ignored() {
        let mut r = rta(RtaConfig::default());
        for rtts in [[900, 100, 100], [900, 900, 100], [900, 100, 900]] {
            for rtt in rtts {
                assert_eq!(sample(&mut r, rtt), None, "{rtts:?}");
            }
        }
        assert_eq!(r.mode, Mode::NewReno);
        // Exactly at the threshold is not above it.
        for _ in 0..3 {
            assert_eq!(sample(&mut r, 800), None);
        }
    }

    #[test]
    fn enhancements_one_to_three() {
        // (1) Slow start by segments acknowledged: an ACK for 3 segments adds 3 segments.
        let mut r = rta(RtaConfig::default());
        r.on_ack(&AckEvent { acked_bytes: 3000, acked_segments: 3, snd_una_advanced: true, ..AckEvent::default() });
        assert_eq!(r.cwnd, 13_000);
        let mut plain = rta(RtaConfig { slow_start_by_segments: false, ..RtaConfig::default() });
        plain.on_ack(&AckEvent { acked_bytes: 3000, acked_segments: 3, snd_una_advanced: true, ..AckEvent::default() });
        assert_eq!(plain.cwnd, 11_000, "NewReno: one segment per ACK");
        // (3) Fast retransmit with 30 000 bytes in flight: ssthresh 20 000 (not 15 000).
        r.on_congestion_event(&CongestionEvent {
            now: 0,
            kind: CongestionKind::FastRetransmit,
            bytes_in_flight: 30_000,
            snd_nxt: 0,
        });
        assert_eq!((r.ssthresh, r.cwnd), (20_000, 20_000));
        // (2) Byte counting: +1 SMSS once 20 000 bytes have been acknowledged, not before.
        for _ in 0..19 {
            r.on_ack(&AckEvent { acked_bytes: 1000, acked_segments: 1, snd_una_advanced: true, ..AckEvent::default() });
        }
        assert_eq!(r.cwnd, 20_000);
        r.on_ack(&AckEvent { acked_bytes: 1000, acked_segments: 1, snd_una_advanced: true, ..AckEvent::default() });
        assert_eq!(r.cwnd, 21_000);
    }

    #[test]
    fn bdp_boost_raises_ssthresh_at_a_switch() {
        let mut r = rta(RtaConfig::default());
        r.ssthresh = 50_000;
        // 10 Mbit/s measured, 900 ms RTT: BDP = 1.125 MB, boosted ssthresh 11.25 MB.
        for _ in 0..3 {
            r.on_ack(&AckEvent {
                rtt_sample: Some(900 * MS),
                srtt: 900 * MS,
                delivery_rate: Some(10_000_000),
                ..AckEvent::default()
            });
        }
        assert_eq!(r.mode, Mode::Hybla);
        assert_eq!(r.ssthresh, 11_250_000);
    }

    #[test]
    fn hybla_mode_grows_by_hybla_rules() {
        let mut r = rta(RtaConfig { bdp_boost: false, ..RtaConfig::default() });
        for _ in 0..3 {
            sample(&mut r, 900);
        }
        // rho = 900 / 25 = 36, capped at 2^16 per ACK in slow start.
        assert_eq!(r.rho(), 36.0);
        r.ssthresh = 100_000;
        r.cwnd = 200_000;
        r.on_ack(&AckEvent {
            acked_bytes: 1000,
            acked_segments: 1,
            snd_una_advanced: true,
            srtt: 900 * MS,
            ..AckEvent::default()
        });
        // Congestion avoidance: rho^2 / cwnd = 1296 / 200 segments = 6.48 segments = 6480 bytes.
        assert_eq!(r.cwnd, 206_480);
    }

    #[test]
    fn rho_after_a_switch_comes_from_the_samples_not_the_lagging_srtt() {
        // A 20 ms path steps to 900 ms: the samples say 900 ms at once, while the smoothed RTT
        // still carries the old path (450 ms here).
        let ack = |rtt: u64, srtt: u64| AckEvent { rtt_sample: Some(rtt * MS), srtt: srtt * MS, ..AckEvent::default() };
        let mut by_samples = rta(RtaConfig { bdp_boost: false, ..RtaConfig::default() });
        let mut by_srtt = rta(RtaConfig { bdp_boost: false, rho_from: RhoSource::Srtt, ..RtaConfig::default() });
        for r in [&mut by_samples, &mut by_srtt] {
            r.on_ack(&ack(20, 20));
            for srtt in [130, 250, 350, 450] {
                r.on_ack(&ack(900, srtt));
            }
            assert_eq!(r.mode, Mode::Hybla);
        }
        assert_eq!(by_samples.rho(), 36.0, "900 / 25 ms");
        assert_eq!(by_srtt.rho(), 18.0, "450 / 25 ms");
    }
}
