//! `roccet`: TCP ROCCET, an RTT-oriented CUBIC extension for cellular networks
//! (papers/tcp-roccet.txt), on top of tcplab's Linux-like CUBIC with HyStart off.
//!
//! Followed from the paper (section IV) and the facts the authors' code fixes:
//! - srRTT = EWMA (weight alpha = 0.2) of (RTT - RTT_min) / RTT_min in percent, per ACK, from the
//!   raw per-ACK RTT sample; RTT_min is the smallest sample and never expires (the paper; later
//!   revisions of the authors' module re-probe it after 5 s without a new minimum, not modelled),
//!   so a flow that starts into a standing queue keeps it in its baseline and takes the link from
//!   earlier ROCCET flows (docs/algorithms/roccet.md, "Two ROCCET flows against one"). ORBITER's
//!   bound is 100% plus a jitter allowance 100 |RTT_n - RTT_n-1| / RTT_min; LAUNCH's is the plain
//!   100% (the authors' module applies the allowance in ORBITER only).
//! - LAUNCH (slow start): ACKs and cum_cwnd are counted over 100 ms intervals; when they differ by
//!   at least 10 segments and srRTT is above the bound, slow start ends: the first time by halving
//!   cwnd (ssthresh = cwnd), later times by a CUBIC congestion event. A loss in slow start ends
//!   it too with ssthresh = cwnd (`launch_loss = "exit"`, as the authors' published module does;
//!   ignoring it, the paper's reading, keeps a flow on a 1-BDP buffer in slow start for ever);
//!   a timeout is CUBIC's, as the Linux core asks the module for ssthresh.
//! - ORBITER (congestion avoidance, CUBIC growth): every 5 RTTs, if the ACKs fall more than 20%
//!   short of cum_cwnd and srRTT is above the bound, a ROCCET event: W_max is only raised,
//!   cwnd = max(0.7 cwnd, 2), ssthresh = cwnd, then 100 ms without any cwnd change (drain).
//!   Losses are handled as by CUBIC.
//! - Options (section XI): the ACK tolerance, the srRTT bound, ignoring loss entirely, and
//!   re-estimating RTT_min after 10 s without a new minimum (0.7 current RTT + 0.3 old minimum).
//!
//! Decisions the paper leaves open (docs/algorithms/roccet.md): cum_cwnd over an interval is the
//! sum of the cwnds of its RTTs, accumulated per ACK as cwnd x elapsed / RTT (RTT_min by default,
//! or the smoothed RTT); "5 RTTs" are five RTT_min (`orbiter_period_rtt = "latest"`: five of the
//! latest RTT, at most 1 s, as the authors' module); the LAUNCH condition uses the absolute
//! difference; during the drain no growth and no ROCCET event happen, but a loss still reduces.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::cubic::{Cubic, CubicConfig};
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec,
};
use crate::time::{SimDuration, SimTime, NANOS_PER_MILLI, NANOS_PER_SEC};
use crate::units::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CumCwndRtt {
    /// cwnd per minimum RTT: any standing queue shows as missing ACKs.
    Min,
    /// cwnd per smoothed RTT: only changes in the delivery rate show.
    Smoothed,
}

/// The RTT ORBITER's check period is a multiple of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OrbiterPeriodRtt {
    /// RTT_min (the paper's "every 5 RTTs" read as round trips of the path).
    Min,
    /// The latest RTT sample, the period capped at 1 s (the authors' module).
    Latest,
}

/// LAUNCH's ACK condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchAckTest {
    /// |ACKs - cum_cwnd| over the interval is at least `launch_ack_difference` segments (the
    /// paper's text). In slow start this nearly always holds, so srRTT alone decides.
    Difference,
    /// The ACKs of this interval are no more than those of the one before: the ACK rate stopped
    /// growing (the authors' module).
    RateStalled,
}

/// A loss (fast retransmit or ECN) in LAUNCH.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LaunchLoss {
    /// Slow start ends with ssthresh = cwnd (the authors' kernel module).
    Exit,
    /// Ignored: slow start goes on (the paper's text); a timeout restarts from one segment with
    /// ssthresh kept.
    Ignore,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RoccetConfig {
    /// EWMA weight of srRTT.
    pub alpha: f64,
    /// srRTT bound in percent (before the jitter allowance).
    pub srrtt_bound: f64,
    /// ORBITER: ACKs short of cum_cwnd by more than this fraction.
    pub ack_tolerance: f64,
    /// LAUNCH's ACK condition.
    pub launch_ack_test: LaunchAckTest,
    /// LAUNCH (`difference` test): ACKs and cum_cwnd differ by at least this many segments.
    pub launch_ack_difference: u32,
    pub launch_interval: Duration,
    /// ORBITER checks every this many minimum RTTs.
    pub orbiter_rtts: u32,
    /// Which RTT ORBITER's period counts.
    pub orbiter_period_rtt: OrbiterPeriodRtt,
    pub drain: Duration,
    pub jitter_allowance: bool,
    /// What a loss in LAUNCH does.
    pub launch_loss: LaunchLoss,
    pub ignore_loss: bool,
    pub rtt_min_reestimate: bool,
    pub cum_cwnd_rtt: CumCwndRtt,
    /// CUBIC's own (HyStart is always off in ROCCET).
    pub beta: f64,
    pub c: f64,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
    pub freeze_when_not_cwnd_limited: bool,
}

impl Default for RoccetConfig {
    fn default() -> Self {
        let cubic = CubicConfig::default();
        Self {
            alpha: 0.2,
            srrtt_bound: 100.0,
            ack_tolerance: 0.2,
            launch_ack_test: LaunchAckTest::Difference,
            launch_ack_difference: 10,
            launch_interval: Duration(100 * NANOS_PER_MILLI),
            orbiter_rtts: 5,
            orbiter_period_rtt: OrbiterPeriodRtt::Min,
            drain: Duration(100 * NANOS_PER_MILLI),
            jitter_allowance: true,
            launch_loss: LaunchLoss::Exit,
            ignore_loss: false,
            rtt_min_reestimate: false,
            cum_cwnd_rtt: CumCwndRtt::Min,
            beta: cubic.beta,
            c: cubic.c,
            fast_convergence: cubic.fast_convergence,
            tcp_friendliness: cubic.tcp_friendliness,
            freeze_when_not_cwnd_limited: cubic.freeze_when_not_cwnd_limited,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "alpha",
        kind: ParamKind::Float { min: 0.01, max: 1.0 },
        unit: "",
        description: "srRTT EWMA weight",
    },
    ParamSpec {
        name: "srrtt_bound",
        kind: ParamKind::Float { min: 1.0, max: 10_000.0 },
        unit: "%",
        description: "srRTT above this (plus jitter) signals congestion",
    },
    ParamSpec {
        name: "ack_tolerance",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        unit: "",
        description: "ORBITER: ACKs short of cum_cwnd by more than this fraction",
    },
    ParamSpec {
        name: "launch_ack_test",
        kind: ParamKind::Choice { allowed: &["difference", "rate_stalled"] },
        unit: "",
        description: "LAUNCH's ACK condition: |ACKs - cum_cwnd| >= launch_ack_difference (paper) or the ACK rate stopped growing between intervals (authors' module)",
    },
    ParamSpec {
        name: "launch_ack_difference",
        kind: ParamKind::Integer { min: 0, max: 100_000 },
        unit: "segments",
        description: "LAUNCH: ACKs and cum_cwnd differ by at least this",
    },
    ParamSpec {
        name: "launch_interval",
        kind: ParamKind::Duration { min: NANOS_PER_MILLI, max: 10 * NANOS_PER_SEC },
        unit: "time",
        description: "LAUNCH counting interval",
    },
    ParamSpec {
        name: "orbiter_rtts",
        kind: ParamKind::Integer { min: 1, max: 1000 },
        unit: "RTTs",
        description: "ORBITER checks every this many minimum RTTs",
    },
    ParamSpec {
        name: "orbiter_period_rtt",
        kind: ParamKind::Choice { allowed: &["min", "latest"] },
        unit: "",
        description: "ORBITER's period counts minimum RTTs (paper) or the latest RTT, capped at 1 s (authors' module)",
    },
    ParamSpec {
        name: "drain",
        kind: ParamKind::Duration { min: 0, max: 10 * NANOS_PER_SEC },
        unit: "time",
        description: "no cwnd change after a ROCCET event",
    },
    ParamSpec {
        name: "jitter_allowance",
        kind: ParamKind::Bool,
        unit: "",
        description: "raise the bound by 100 |RTT_n - RTT_n-1| / RTT_min",
    },
    ParamSpec {
        name: "launch_loss",
        kind: ParamKind::Choice { allowed: &["exit", "ignore"] },
        unit: "",
        description: "a loss in LAUNCH ends slow start with ssthresh = cwnd (authors' module) or is ignored (paper)",
    },
    ParamSpec {
        name: "ignore_loss",
        kind: ParamKind::Bool,
        unit: "",
        description: "ignore fast-retransmit losses entirely",
    },
    ParamSpec {
        name: "rtt_min_reestimate",
        kind: ParamKind::Bool,
        unit: "",
        description: "after 10 s without a new minimum, RTT_min = 0.7 RTT + 0.3 RTT_min",
    },
    ParamSpec {
        name: "cum_cwnd_rtt",
        kind: ParamKind::Choice { allowed: &["min", "smoothed"] },
        unit: "",
        description: "cum_cwnd counts one cwnd per minimum or per smoothed RTT",
    },
    ParamSpec {
        name: "beta",
        kind: ParamKind::Float { min: 0.1, max: 0.99 },
        unit: "",
        description: "CUBIC beta, also the ROCCET reduction",
    },
    ParamSpec {
        name: "c",
        kind: ParamKind::Float { min: 0.01, max: 10.0 },
        unit: "segments/s^3",
        description: "CUBIC C",
    },
    ParamSpec {
        name: "fast_convergence",
        kind: ParamKind::Bool,
        unit: "",
        description: "CUBIC fast convergence on losses",
    },
    ParamSpec { name: "tcp_friendliness", kind: ParamKind::Bool, unit: "", description: "CUBIC Reno-friendly region" },
    ParamSpec {
        name: "freeze_when_not_cwnd_limited",
        kind: ParamKind::Bool,
        unit: "",
        description: "Linux's cwnd-limited check (the behaviour ROCCET's paper criticises)",
    },
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "roccet",
    summary: "TCP ROCCET: CUBIC that leaves slow start and backs off on relative RTT growth and missing ACKs",
    source: "papers/tcp-roccet.txt (section IV); CUBIC as tcplab's Linux-like cubic, HyStart off",
    params: PARAMS,
    defaults: defaults_of::<RoccetConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: RoccetConfig = parse_params("roccet", PARAMS, params)?;
        Ok(Box::new(Roccet::new(config, info)))
    },
};

/// How long RTT_min may go unrefreshed before the optional re-estimate.
const RTT_MIN_REESTIMATE_AFTER: SimDuration = 10 * NANOS_PER_SEC;

pub struct Roccet {
    config: RoccetConfig,
    pub(crate) cubic: Cubic,
    pub(crate) rtt_min: Option<SimDuration>,
    rtt_min_stamp: SimTime,
    last_rtt: Option<SimDuration>,
    /// srRTT in percent.
    pub(crate) sr_rtt: f64,
    /// The current bound: srrtt_bound plus the jitter allowance of the last sample.
    pub(crate) bound: f64,
    /// ACKs (segments) and cum_cwnd (segments) in the current counting interval.
    interval_acks: f64,
    interval_cum_cwnd: f64,
    /// ACKs of the previous LAUNCH interval (the `rate_stalled` test).
    previous_launch_acks: Option<f64>,
    interval_start: Option<SimTime>,
    last_ack_time: Option<SimTime>,
    pub(crate) first_slow_start_done: bool,
    pub(crate) drain_until: Option<SimTime>,
    pending_event: Option<&'static str>,
}

impl Roccet {
    pub fn new(config: RoccetConfig, info: ConnectionInfo) -> Self {
        let cubic_config = CubicConfig {
            beta: config.beta,
            c: config.c,
            fast_convergence: config.fast_convergence,
            tcp_friendliness: config.tcp_friendliness,
            hystart: false,
            freeze_when_not_cwnd_limited: config.freeze_when_not_cwnd_limited,
            ..CubicConfig::default()
        };
        Self {
            cubic: Cubic::new(cubic_config, info),
            bound: config.srrtt_bound,
            config,
            rtt_min: None,
            rtt_min_stamp: 0,
            last_rtt: None,
            sr_rtt: 0.0,
            interval_acks: 0.0,
            interval_cum_cwnd: 0.0,
            previous_launch_acks: None,
            interval_start: None,
            last_ack_time: None,
            first_slow_start_done: false,
            drain_until: None,
            pending_event: None,
        }
    }

    /// srRTT and the bound from one RTT sample.
    pub fn observe_rtt(&mut self, now: SimTime, rtt: SimDuration) {
        let reestimate =
            self.config.rtt_min_reestimate && now.saturating_sub(self.rtt_min_stamp) > RTT_MIN_REESTIMATE_AFTER;
        match self.rtt_min {
            Some(min) if rtt >= min && reestimate => {
                self.rtt_min = Some((0.7 * rtt as f64 + 0.3 * min as f64) as SimDuration);
                self.rtt_min_stamp = now;
            }
            Some(min) if rtt >= min => {}
            _ => {
                self.rtt_min = Some(rtt);
                self.rtt_min_stamp = now;
            }
        }
        let min = self.rtt_min.expect("set above").max(1) as f64;
        let relative = (rtt as f64 - min) / min * 100.0;
        self.sr_rtt = self.config.alpha * relative + (1.0 - self.config.alpha) * self.sr_rtt;
        let jitter = match (self.config.jitter_allowance, self.last_rtt) {
            (true, Some(previous)) => 100.0 * rtt.abs_diff(previous) as f64 / min,
            _ => 0.0,
        };
        self.bound = self.config.srrtt_bound + jitter;
        self.last_rtt = Some(rtt);
    }

    fn above_bound(&self) -> bool {
        self.sr_rtt > self.bound
    }

    /// Adds this ACK's segments and the cwnd-worth expected since the previous ACK.
    fn count(&mut self, ack: &AckEvent) {
        let rtt = match self.config.cum_cwnd_rtt {
            CumCwndRtt::Min => self.rtt_min.unwrap_or(0),
            CumCwndRtt::Smoothed => ack.srtt,
        };
        if let (Some(last), true) = (self.last_ack_time, rtt > 0) {
            let cwnd_segments = self.cubic.window.cwnd as f64;
            self.interval_cum_cwnd += cwnd_segments * (ack.now - last) as f64 / rtt as f64;
        }
        self.last_ack_time = Some(ack.now);
        self.interval_acks += ack.acked_segments as f64;
    }

    fn restart_interval(&mut self, now: SimTime) {
        self.interval_start = Some(now);
        self.interval_acks = 0.0;
        self.interval_cum_cwnd = 0.0;
    }

    fn launch(&mut self, now: SimTime) {
        let acks_say_full = match self.config.launch_ack_test {
            LaunchAckTest::Difference => {
                (self.interval_acks - self.interval_cum_cwnd).abs() >= self.config.launch_ack_difference as f64
            }
            LaunchAckTest::RateStalled => {
                self.previous_launch_acks.is_some_and(|previous| self.interval_acks <= previous)
            }
        };
        self.previous_launch_acks = Some(self.interval_acks);
        if acks_say_full && self.sr_rtt > self.config.srrtt_bound {
            if self.first_slow_start_done {
                self.cubic.on_congestion_event(&CongestionEvent {
                    now,
                    kind: CongestionKind::FastRetransmit,
                    bytes_in_flight: 0,
                    snd_nxt: 0,
                });
            } else {
                let halved = (self.cubic.window.cwnd / 2).max(2);
                self.cubic.window.cwnd = halved;
                self.cubic.window.ssthresh = halved;
                self.first_slow_start_done = true;
            }
            self.pending_event = Some("roccet_launch_exit");
        }
    }

    fn orbiter(&mut self, now: SimTime) {
        let short = self.interval_cum_cwnd - self.interval_acks;
        if short > self.config.ack_tolerance * self.interval_cum_cwnd && self.above_bound() {
            self.cubic.roccet_reduction();
            self.drain_until = Some(now + self.config.drain.nanos());
            self.pending_event = Some("roccet_event");
        }
    }

    /// ORBITER's check period: `orbiter_rtts` RTTs, as `orbiter_period_rtt` says.
    fn orbiter_period(&self) -> SimDuration {
        let rtts = self.config.orbiter_rtts as u64;
        match (self.config.orbiter_period_rtt, self.last_rtt) {
            (OrbiterPeriodRtt::Latest, Some(latest)) => (rtts * latest).min(NANOS_PER_SEC),
            _ => rtts * self.rtt_min.unwrap_or(NANOS_PER_SEC),
        }
    }

    fn in_drain(&self, now: SimTime) -> bool {
        self.drain_until.is_some_and(|until| now < until)
    }
}

impl CongestionControl for Roccet {
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(rtt) = ack.rtt_sample {
            self.observe_rtt(ack.now, rtt);
        }
        self.count(ack);
        let now = ack.now;
        let start = *self.interval_start.get_or_insert(now);
        let in_slow_start = self.cubic.window.in_slow_start();
        let interval = if in_slow_start { self.config.launch_interval.nanos() } else { self.orbiter_period() };
        let draining = self.in_drain(now);
        if now - start >= interval {
            if !draining && ack.may_raise_cwnd() {
                if in_slow_start {
                    self.launch(now);
                } else {
                    self.orbiter(now);
                }
            }
            self.restart_interval(now);
        }
        if draining {
            // Hold cwnd: let CUBIC see the RTT sample only.
            let passive = AckEvent { snd_una_advanced: false, ..*ack };
            self.cubic.on_ack(&passive);
        } else {
            self.cubic.on_ack(ack);
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let in_slow_start = self.cubic.window.in_slow_start();
        let ignore_in_launch = in_slow_start && self.config.launch_loss == LaunchLoss::Ignore;
        match event.kind {
            CongestionKind::FastRetransmit | CongestionKind::Ecn if self.config.ignore_loss || ignore_in_launch => {}
            CongestionKind::FastRetransmit | CongestionKind::Ecn if in_slow_start => {
                // The authors' module: slow start ends where it is, without a reduction (ssthresh
                // at least two segments, as everywhere).
                self.cubic.window.ssthresh = self.cubic.window.cwnd.max(2);
                self.first_slow_start_done = true;
                self.pending_event = Some("roccet_launch_exit");
            }
            CongestionKind::Timeout if self.config.ignore_loss || ignore_in_launch => {
                // The Linux core still restarts from one segment; ssthresh is kept.
                self.cubic.window.cwnd = 1;
            }
            _ => self.cubic.on_congestion_event(event),
        }
        self.restart_interval(event.now);
    }

    fn on_recovery_exit(&mut self, now: SimTime) {
        if !self.cubic.window.in_slow_start() || self.cubic.window.cwnd > self.cubic.window.ssthresh {
            self.cubic.on_recovery_exit(now);
        }
    }

    fn on_packet_sent(&mut self, now: SimTime, bytes: u64, bytes_in_flight_before: u64) {
        self.cubic.on_packet_sent(now, bytes, bytes_in_flight_before);
    }

    fn cwnd(&self) -> u64 {
        self.cubic.cwnd()
    }

    fn ssthresh(&self) -> u64 {
        self.cubic.ssthresh()
    }

    fn reads_pacing_rate(&self) -> bool {
        self.cubic.reads_pacing_rate()
    }

    fn state_name(&self) -> &'static str {
        if self.cubic.window.in_slow_start() {
            "launch"
        } else if self.drain_until.is_some_and(|until| self.last_ack_time.is_some_and(|t| t < until)) {
            "drain"
        } else {
            "orbiter"
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

    fn roccet() -> Roccet {
        Roccet::new(RoccetConfig::default(), ConnectionInfo::new(1000, 10, 1))
    }

    #[test]
    fn sr_rtt_follows_the_ewma_of_relative_rtt() {
        let mut r = roccet();
        // Samples 100, 150, 200, 200 ms: relative 0%, 50%, 100%, 100%;
        // srRTT 0 -> 10 -> 28 -> 42.4 (0.2 x 100 + 0.8 x 28).
        for (rtt, expected) in [(100, 0.0), (150, 10.0), (200, 28.0), (200, 42.4)] {
            r.observe_rtt(0, rtt * MS);
            assert!((r.sr_rtt - expected).abs() < 1e-9, "after {rtt} ms: {}", r.sr_rtt);
        }
        // The jitter allowance: last step 200 -> 200 ms adds nothing; 200 -> 150 adds 50%.
        assert_eq!(r.bound, 100.0);
        r.observe_rtt(0, 150 * MS);
        assert!((r.bound - 150.0).abs() < 1e-9);
    }

    #[test]
    fn roccet_event_raises_w_max_only_and_drain_holds_cwnd() {
        let mut r = roccet();
        r.cubic.window.cwnd = 80;
        r.cubic.window.ssthresh = 50;
        r.cubic.w_max = 100;
        r.cubic.roccet_reduction();
        // cwnd 80 < W_max 100: W_max stays 100 (no fast convergence); cwnd = ssthresh = 56.
        assert_eq!((r.cubic.w_max, r.cubic.window.cwnd, r.cubic.window.ssthresh), (100, 56, 56));
        r.cubic.window.cwnd = 120;
        r.cubic.roccet_reduction();
        assert_eq!((r.cubic.w_max, r.cubic.window.cwnd), (120, 84));
        // During the 100 ms drain, ACKs do not grow cwnd.
        r.drain_until = Some(100 * MS);
        r.rtt_min = Some(20 * MS);
        let before = r.cubic.window.cwnd;
        for i in 0..50 {
            r.on_ack(&AckEvent {
                now: i * MS,
                acked_bytes: 1000,
                acked_segments: 1,
                rtt_sample: Some(20 * MS),
                srtt: 20 * MS,
                snd_una_advanced: true,
                cwnd_limited: true,
                ..AckEvent::default()
            });
        }
        assert_eq!(r.cubic.window.cwnd, before);
        r.on_ack(&AckEvent {
            now: 150 * MS,
            acked_bytes: 100_000,
            acked_segments: 100,
            rtt_sample: Some(20 * MS),
            srtt: 20 * MS,
            snd_una_advanced: true,
            cwnd_limited: true,
            ..AckEvent::default()
        });
        assert!(r.cubic.window.cwnd > before, "growth resumes after the drain");
    }

    /// One 100 ms LAUNCH interval with `acks` ACKs spread evenly, every RTT sample 150 ms (srRTT
    /// far above 100% over the 50 ms minimum); returns whether LAUNCH exited.
    fn launch_interval_with(r: &mut Roccet, start: SimTime, acks: u64) -> bool {
        let mut exited = false;
        for i in 1..=acks {
            r.on_ack(&AckEvent {
                now: start + i * 100 * MS / acks,
                acked_bytes: 1000,
                acked_segments: 1,
                rtt_sample: Some(150 * MS),
                srtt: 150 * MS,
                snd_una_advanced: true,
                cwnd_limited: true,
                ..AckEvent::default()
            });
            exited |= r.take_event() == Some("roccet_launch_exit");
        }
        exited
    }

    #[test]
    fn the_rate_stalled_launch_test_waits_until_the_ack_rate_stops_growing() {
        let config = RoccetConfig { launch_ack_test: LaunchAckTest::RateStalled, ..RoccetConfig::default() };
        let mut r = Roccet::new(config, ConnectionInfo::new(1000, 10, 1));
        r.cubic.window.cwnd = 10;
        r.observe_rtt(0, 50 * MS);
        // ACKs per interval grow 10, 20, 40, 80: slow start goes on despite the RTT.
        let mut start = 0;
        for acks in [10, 20, 40, 80] {
            assert!(!launch_interval_with(&mut r, start, acks), "exited while the ACK rate grew ({acks})");
            start += 100 * MS;
        }
        // The same 80 again: the rate stopped growing, and srRTT is above the bound.
        assert!(launch_interval_with(&mut r, start, 80) || launch_interval_with(&mut r, start + 100 * MS, 80));
        assert!(!r.cubic.window.in_slow_start());
        // The paper's difference test exits at the first interval with the same RTTs.
        let mut paper = roccet();
        paper.cubic.window.cwnd = 10;
        paper.observe_rtt(0, 50 * MS);
        assert!(launch_interval_with(&mut paper, 0, 10) || launch_interval_with(&mut paper, 100 * MS, 20));
    }

    #[test]
    fn launch_exit_halves_cwnd_once_then_uses_cubic_events() {
        let mut r = roccet();
        r.cubic.window.cwnd = 100;
        // RTT doubled: srRTT climbs above 100% after enough samples; ACKs per 100 ms lag cwnd.
        r.observe_rtt(0, 50 * MS);
        let mut now = 0;
        let mut exits = 0;
        for _ in 0..200 {
            now += 5 * MS;
            r.on_ack(&AckEvent {
                now,
                acked_bytes: 1000,
                acked_segments: 1,
                rtt_sample: Some(150 * MS),
                srtt: 150 * MS,
                snd_una_advanced: true,
                cwnd_limited: true,
                ..AckEvent::default()
            });
            if r.take_event() == Some("roccet_launch_exit") {
                exits += 1;
            }
            if !r.cubic.window.in_slow_start() {
                break;
            }
        }
        assert_eq!(exits, 1);
        assert!(r.first_slow_start_done);
        // Halved from the cwnd at exit: ssthresh = cwnd, and out of slow start.
        assert_eq!(r.cubic.window.cwnd, r.cubic.window.ssthresh);
        assert!(r.cubic.window.cwnd <= 60, "{}", r.cubic.window.cwnd);
        // Losses in slow start are ignored: put it back in slow start and lose.
        r.cubic.window.ssthresh = u32::MAX >> 1;
        let cwnd = r.cubic.window.cwnd;
        r.on_congestion_event(&CongestionEvent {
            now,
            kind: CongestionKind::FastRetransmit,
            bytes_in_flight: 0,
            snd_nxt: 0,
        });
        assert_eq!(r.cubic.window.cwnd, cwnd);
    }

    #[test]
    fn orbiter_period_counts_minimum_rtts_or_the_latest_rtt_capped_at_a_second() {
        const MS: u64 = NANOS_PER_MILLI;
        let info = ConnectionInfo::new(1000, 10, 1);
        let mut by_min = Roccet::new(RoccetConfig::default(), info);
        let latest_config = RoccetConfig { orbiter_period_rtt: OrbiterPeriodRtt::Latest, ..RoccetConfig::default() };
        let mut by_latest = Roccet::new(latest_config, info);
        for r in [&mut by_min, &mut by_latest] {
            r.observe_rtt(0, 30 * MS);
            r.observe_rtt(MS, 100 * MS);
        }
        assert_eq!(by_min.orbiter_period(), 150 * MS, "5 x 30 ms");
        assert_eq!(by_latest.orbiter_period(), 500 * MS, "5 x 100 ms");
        by_latest.observe_rtt(2 * MS, 300 * MS);
        assert_eq!(by_latest.orbiter_period(), 1000 * MS, "5 x 300 ms, capped at 1 s");
    }
}
