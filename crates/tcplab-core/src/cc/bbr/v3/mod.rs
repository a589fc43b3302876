//! `bbr3`: BBRv3 (Cardwell et al., IETF draft-cardwell-ccwg-bbr; the v3 release of Google's
//! tcp_bbr.c), on the sender's delivery-rate samples.
//!
//! What v3 adds to v1, as followed here:
//! - Bandwidth model: bw_hi is the max of the delivery rate over the last two PROBE_BW cycles;
//!   bw_lo and inflight_lo are short-term lower bounds, cut to max(latest round's delivery,
//!   0.7 x bound) once per round trip with loss while not probing; the pacing bandwidth is
//!   min(bw_hi, bw_lo).
//! - inflight_hi: when a probe sees a loss rate above 2% (bytes lost since the sampled segment was
//!   sent over bytes in flight when it was sent), inflight_hi = max(tx_in_flight, 0.7 x target
//!   inflight), and PROBE_UP ends; probing without such loss raises inflight_hi, doubling the
//!   growth each round (1, 2, 4, ... segments per round).
//! - PROBE_BW phases: DOWN (pacing 0.91) until inflight is below both the BDP and inflight_hi less
//!   15% headroom, CRUISE (1.0, cwnd capped at that headroom level), REFILL (1.0, one round, lower
//!   bounds reset), UP (1.25, cwnd gain 2.25) until the pipe looks full or losses are too high.
//!   The next probe comes after a random 2-3 s or after min(63, BDP in segments) rounds,
//!   whichever is first (Reno coexistence).
//! - STARTUP: pacing gain 2.77, cwnd gain 2; it also ends after a recovery round with 6 or more
//!   loss events and a loss rate above 2% (inflight_hi set from it). DRAIN paces at 1/2.885.
//! - PROBE_RTT: when the 5-second min-RTT filter expires, cwnd = max(0.5 BDP, 4) for 200 ms and a
//!   round; RTprop is the min over 10 s.
//!
//! Loss recovery as in v1 (conservation in the first round, the saved cwnd restored after).
//!
//! Not modelled (docs/algorithms/bbr3.md): the ECN response and PLB (they need per-ACK CE counts
//! the sender does not keep), the per-lost-packet inflight_hi estimate at the exact loss prefix
//! (tcplab uses the rate sample of the ACK that reports the loss) and the fast path. The cwnd
//! target includes the ACK-aggregation allowance ([`super::AckAggregation`]), in STARTUP too
//! (v3's `bbr_extra_acked_in_startup`).

mod probe_bw;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{bdp_bytes, cwnd_to_restore, quantization_budget, recovery_cwnd, AckAggregation};
use crate::cc::window::MAX_CWND_SEGMENTS;
use crate::cc::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec,
};
use crate::sim::SimRng;
use crate::time::{SimDuration, SimTime, NANOS_PER_MILLI, NANOS_PER_SEC};
use rand::SeedableRng;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Bbr3Config {
    pub startup_pacing_gain: f64,
    pub startup_cwnd_gain: f64,
    pub drain_gain: f64,
    pub cwnd_gain: f64,
    /// Extra cwnd gain in PROBE_UP.
    pub probe_up_cwnd_gain: f64,
    /// Loss rate that means inflight is too high.
    pub loss_threshold: f64,
    /// Multiplicative cut of the bounds on loss (beta).
    pub beta: f64,
    /// Fraction of inflight_hi left unused in CRUISE and PROBE_RTT.
    pub headroom: f64,
    /// Loss events in a STARTUP recovery round that end STARTUP.
    pub full_loss_count: u32,
    pub probe_rtt_cwnd_gain: f64,
    /// Gain on the ACK-aggregation allowance in the cwnd target (0: off).
    pub extra_acked_gain: f64,
}

impl Default for Bbr3Config {
    fn default() -> Self {
        Self {
            startup_pacing_gain: 2.77,
            startup_cwnd_gain: 2.0,
            drain_gain: 1.0 / 2.885,
            cwnd_gain: 2.0,
            probe_up_cwnd_gain: 0.25,
            loss_threshold: 0.02,
            beta: 0.3,
            headroom: 0.15,
            full_loss_count: 6,
            probe_rtt_cwnd_gain: 0.5,
            extra_acked_gain: 1.0,
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "startup_pacing_gain",
        kind: ParamKind::Float { min: 1.0, max: 10.0 },
        unit: "",
        description: "STARTUP pacing gain",
    },
    ParamSpec {
        name: "startup_cwnd_gain",
        kind: ParamKind::Float { min: 1.0, max: 10.0 },
        unit: "",
        description: "STARTUP and DRAIN cwnd gain",
    },
    ParamSpec {
        name: "drain_gain",
        kind: ParamKind::Float { min: 0.01, max: 1.0 },
        unit: "",
        description: "DRAIN pacing gain",
    },
    ParamSpec {
        name: "cwnd_gain",
        kind: ParamKind::Float { min: 1.0, max: 10.0 },
        unit: "",
        description: "PROBE_BW cwnd gain",
    },
    ParamSpec {
        name: "probe_up_cwnd_gain",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        unit: "",
        description: "extra cwnd gain in PROBE_UP",
    },
    ParamSpec {
        name: "loss_threshold",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        unit: "",
        description: "loss rate that means inflight is too high (2%)",
    },
    ParamSpec {
        name: "beta",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        unit: "",
        description: "cut of the bounds on loss: to 1 - beta",
    },
    ParamSpec {
        name: "headroom",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        unit: "",
        description: "unused fraction of inflight_hi in CRUISE",
    },
    ParamSpec {
        name: "full_loss_count",
        kind: ParamKind::Integer { min: 1, max: 15 },
        unit: "events",
        description: "loss events in a STARTUP recovery round that end STARTUP",
    },
    ParamSpec {
        name: "probe_rtt_cwnd_gain",
        kind: ParamKind::Float { min: 0.1, max: 1.0 },
        unit: "",
        description: "PROBE_RTT cwnd as a fraction of the BDP",
    },
    ParamSpec {
        name: "extra_acked_gain",
        kind: ParamKind::Float { min: 0.0, max: 10.0 },
        unit: "",
        description: "gain on the ACK-aggregation allowance added to the cwnd target (0: off)",
    },
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "bbr3",
    summary:
        "BBRv3: BBR with loss-bounded inflight_hi, short-term lower bounds and a DOWN/CRUISE/REFILL/UP probe cycle",
    source: "draft-cardwell-ccwg-bbr; Google tcp_bbr.c v3 (without its ECN response)",
    params: PARAMS,
    defaults: defaults_of::<Bbr3Config>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: Bbr3Config = parse_params("bbr3", PARAMS, params)?;
        Ok(Box::new(Bbr3::new(config, info)))
    },
};

const MIN_RTT_WINDOW: SimDuration = 10 * NANOS_PER_SEC;
const PROBE_RTT_INTERVAL: SimDuration = 5 * NANOS_PER_SEC;
const PROBE_RTT_DURATION: SimDuration = 200 * NANOS_PER_MILLI;
const PACING_MARGIN: f64 = 0.01;
const MIN_CWND: u64 = 4;
const FULL_BW_THRESHOLD: f64 = 1.25;
const FULL_BW_ROUNDS: u32 = 3;
const PROBE_MAX_ROUNDS: u64 = 63;
const PROBE_RAND_ROUNDS: u64 = 2;
const PROBE_BASE_WAIT: SimDuration = 2 * NANOS_PER_SEC;
const PROBE_RAND_WAIT: SimDuration = NANOS_PER_SEC;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw(Phase),
    ProbeRtt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Down,
    Cruise,
    Refill,
    Up,
}

/// Whether ACKs now carry feedback from the last bandwidth probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
    Refilling,
}

pub struct Bbr3 {
    config: Bbr3Config,
    mss: u64,
    initial_window: u64,
    pub(crate) mode: Mode,
    /// cwnd in segments.
    pub(crate) cwnd: u64,
    pacing_rate: u64,
    pacing_from_rtt: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Max delivery rate in the previous and the current probe cycle (bits/s).
    bw_hi: [u64; 2],
    bw_lo: Option<u64>,
    /// Segments.
    pub(crate) inflight_hi: Option<u64>,
    inflight_lo: Option<u64>,
    bw_latest: u64,
    inflight_latest: u64,
    min_rtt: Option<SimDuration>,
    min_rtt_stamp: SimTime,
    probe_rtt_min: Option<SimDuration>,
    probe_rtt_min_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    loss_events_in_round: u32,
    full_bw: u64,
    full_bw_count: u32,
    full_bw_now: bool,
    pub(crate) full_bw_reached: bool,
    cycle_stamp: SimTime,
    ack_phase: AckPhase,
    rounds_since_probe: u64,
    probe_wait: SimDuration,
    probe_up_rounds: u32,
    probe_up_acks: u64,
    probe_up_cnt: Option<u64>,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    prior_cwnd: u64,
    packet_conservation: bool,
    reset_to_inflight: bool,
    in_loss_recovery: bool,
    last_delivered: u64,
    idle_restart: bool,
    aggregation: AckAggregation,
    rng: SimRng,
    pending_event: Option<&'static str>,
}

impl Bbr3 {
    pub fn new(config: Bbr3Config, info: ConnectionInfo) -> Self {
        let initial_window = info.initial_window_segments.max(1) as u64;
        let mut bbr = Self {
            pacing_gain: config.startup_pacing_gain,
            cwnd_gain: config.startup_cwnd_gain,
            config,
            mss: info.mss,
            initial_window,
            mode: Mode::Startup,
            cwnd: initial_window,
            pacing_rate: 0,
            pacing_from_rtt: false,
            bw_hi: [0, 0],
            bw_lo: None,
            inflight_hi: None,
            inflight_lo: None,
            bw_latest: 0,
            inflight_latest: 0,
            min_rtt: None,
            min_rtt_stamp: 0,
            probe_rtt_min: None,
            probe_rtt_min_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            loss_round_delivered: 1,
            loss_round_start: false,
            loss_in_round: false,
            loss_events_in_round: 0,
            full_bw: 0,
            full_bw_count: 0,
            full_bw_now: false,
            full_bw_reached: false,
            cycle_stamp: 0,
            ack_phase: AckPhase::Init,
            rounds_since_probe: 0,
            probe_wait: PROBE_BASE_WAIT,
            probe_up_rounds: 0,
            probe_up_acks: 0,
            probe_up_cnt: None,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            prior_cwnd: 0,
            packet_conservation: false,
            reset_to_inflight: false,
            in_loss_recovery: false,
            last_delivered: 0,
            idle_restart: false,
            aggregation: AckAggregation::default(),
            rng: SimRng::seed_from_u64(info.seed),
            pending_event: None,
        };
        bbr.init_pacing_rate(None);
        bbr
    }

    pub fn max_bw(&self) -> u64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// The bandwidth BBR paces at: bw_hi bounded by bw_lo.
    pub fn bw(&self) -> u64 {
        self.bw_lo.map_or(self.max_bw(), |lo| lo.min(self.max_bw()))
    }

    fn init_pacing_rate(&mut self, srtt: Option<SimDuration>) {
        let rtt = srtt.unwrap_or(NANOS_PER_MILLI).max(1);
        let bw = (self.initial_window * self.mss * 8) as f64 * NANOS_PER_SEC as f64 / rtt as f64;
        self.pacing_rate = (bw * self.config.startup_pacing_gain * (1.0 - PACING_MARGIN)) as u64;
        self.pacing_from_rtt = srtt.is_some();
    }

    /// Segments for `gain` x bw x min RTT plus the quantization budget (bbr_inflight).
    fn inflight(&self, bw: u64, gain: f64) -> u64 {
        self.inflight_with(bw, gain, 0)
    }

    /// The same with `extra` segments added before the quantization budget (bbr_set_cwnd adds
    /// the ACK-aggregation allowance there).
    fn inflight_with(&self, bw: u64, gain: f64, extra: u64) -> u64 {
        let Some(min_rtt) = self.min_rtt else { return self.initial_window };
        let bdp = (bdp_bytes(bw, min_rtt) * gain / self.mss as f64).ceil() as u64 + extra;
        let mut target = quantization_budget(bdp, self.pacing_rate, self.mss);
        if self.mode == Mode::ProbeBw(Phase::Up) {
            target += 2;
        }
        target
    }

    fn target_inflight(&self) -> u64 {
        self.inflight(self.bw(), 1.0).min(self.cwnd)
    }

    fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    fn check_loss_too_high_in_startup(&mut self, ack: &AckEvent) {
        if self.full_bw_reached {
            return;
        }
        if ack.newly_lost_segments > 0 && self.loss_events_in_round < 15 {
            self.loss_events_in_round += 1;
        }
        if self.loss_round_start
            && self.in_loss_recovery
            && self.loss_events_in_round >= self.config.full_loss_count
            && self.is_inflight_too_high(ack)
        {
            self.full_bw_reached = true;
            let bdp = self.inflight(self.max_bw(), 1.0);
            self.inflight_hi = Some(bdp.max(self.inflight_latest));
            self.pending_event = Some("bbr3_startup_loss_exit");
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    fn check_full_bw_reached(&mut self, ack: &AckEvent, sample_bw: u64) {
        if self.full_bw_now || ack.delivery_rate_app_limited {
            return;
        }
        if sample_bw as f64 >= self.full_bw as f64 * FULL_BW_THRESHOLD {
            self.reset_full_bw();
            self.full_bw = sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_ROUNDS;
        self.full_bw_reached |= self.full_bw_now;
    }

    fn check_drain(&mut self, ack: &AckEvent) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain && ack.bytes_in_flight / self.mss <= self.inflight(self.max_bw(), 1.0) {
            self.start_probe_down(ack.now);
        }
    }

    fn probe_rtt_cwnd(&self) -> u64 {
        self.inflight(self.bw(), self.config.probe_rtt_cwnd_gain).max(MIN_CWND)
    }

    fn update_min_rtt(&mut self, ack: &AckEvent) {
        let now = ack.now;
        let probe_rtt_expired = now > self.probe_rtt_min_stamp + PROBE_RTT_INTERVAL;
        if let Some(rtt) = ack.rtt_sample {
            if self.probe_rtt_min.is_none_or(|m| rtt < m) || probe_rtt_expired {
                self.probe_rtt_min = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(probe_min) = self.probe_rtt_min {
            if self.min_rtt.is_none_or(|m| probe_min <= m) || min_rtt_expired {
                self.min_rtt = Some(probe_min);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
        if probe_rtt_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_round_delivered = self.last_delivered;
        }
        if self.mode == Mode::ProbeRtt {
            match self.probe_rtt_done {
                None if ack.bytes_in_flight / self.mss <= self.probe_rtt_cwnd() => {
                    self.probe_rtt_done = Some(now + PROBE_RTT_DURATION);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = ack.delivered;
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && now > done {
                        self.probe_rtt_min_stamp = now;
                        self.cwnd = self.cwnd.max(self.prior_cwnd);
                        self.reset_lower_bounds();
                        if self.full_bw_reached {
                            self.start_probe_down(now);
                            self.start_probe_cruise();
                        } else {
                            self.mode = Mode::Startup;
                        }
                    }
                }
                None => {}
            }
        }
        if ack.acked_bytes > 0 {
            self.idle_restart = false;
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.config.startup_pacing_gain, self.config.startup_cwnd_gain),
            Mode::Drain => (self.config.drain_gain, self.config.startup_cwnd_gain),
            Mode::ProbeBw(Phase::Up) => (1.25, self.config.cwnd_gain + self.config.probe_up_cwnd_gain),
            Mode::ProbeBw(Phase::Down) => (0.91, self.config.cwnd_gain),
            Mode::ProbeBw(_) => (1.0, self.config.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    fn save_cwnd(&mut self) {
        let already_reduced = self.in_loss_recovery || self.mode == Mode::ProbeRtt;
        self.prior_cwnd = cwnd_to_restore(self.prior_cwnd, self.cwnd, already_reduced);
    }

    fn set_cwnd(&mut self, ack: &AckEvent) {
        let acked = ack.acked_segments as u64;
        if acked > 0 {
            let in_flight = ack.bytes_in_flight.div_ceil(self.mss);
            let (mut cwnd, conserving) = recovery_cwnd(
                self.cwnd,
                acked,
                ack.newly_lost_segments as u64,
                in_flight,
                std::mem::take(&mut self.reset_to_inflight),
                self.packet_conservation,
            );
            if !conserving {
                let allowance = self.aggregation.cwnd_allowance(self.config.extra_acked_gain, self.bw(), self.mss);
                let target = self.inflight_with(self.bw(), self.cwnd_gain, allowance);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || cwnd < 2 * self.initial_window {
                    cwnd += acked;
                }
                cwnd = cwnd.max(MIN_CWND);
            }
            self.cwnd = cwnd;
        }
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
        // bbr_bound_cwnd_for_inflight_model.
        let mut cap = match self.mode {
            Mode::ProbeBw(Phase::Cruise) | Mode::ProbeRtt => self.inflight_with_headroom(),
            Mode::ProbeBw(_) => self.inflight_hi,
            _ => None,
        }
        .unwrap_or(u64::MAX);
        cap = cap.min(self.inflight_lo.unwrap_or(u64::MAX)).max(MIN_CWND);
        // Linux's global cap (snd_cwnd_clamp, a u32).
        self.cwnd = self.cwnd.min(cap).min(MAX_CWND_SEGMENTS as u64);
    }

    fn set_pacing_rate(&mut self) {
        let bw = self.bw();
        if bw == 0 {
            return;
        }
        let rate = (bw as f64 * self.pacing_gain * (1.0 - PACING_MARGIN)) as u64;
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate.max(1);
        }
    }
}

impl CongestionControl for Bbr3 {
    /// Linux BBR is a `cong_control` algorithm: PRR does not apply to it.
    fn owns_recovery_window(&self) -> bool {
        true
    }

    /// Linux bbr_init (BBRv3) runs once the handshake is done: both min-RTT filters start at
    /// the SYN's RTT (`tcp_min_rtt`), stamped now, and the pacing rate is high_gain x initial
    /// window over it (`bbr_init_pacing_rate_from_rtt`).
    fn on_connection_established(&mut self, now: SimTime, syn_rtt: Option<SimDuration>) {
        (self.min_rtt, self.probe_rtt_min) = (syn_rtt, syn_rtt);
        (self.min_rtt_stamp, self.probe_rtt_min_stamp) = (now, now);
        self.init_pacing_rate(syn_rtt);
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        if !self.pacing_from_rtt && ack.srtt > 0 {
            self.init_pacing_rate(Some(ack.srtt));
        }
        self.last_delivered = ack.delivered;
        self.round_start = false;
        if ack.acked_bytes > 0 && ack.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = ack.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(0xFF);
        }
        // bbr_update_latest_delivery_signals.
        self.loss_round_start = false;
        let sample_bw = ack.delivery_rate;
        if let Some(bw) = sample_bw {
            self.bw_latest = self.bw_latest.max(bw);
            self.inflight_latest =
                self.inflight_latest.max(ack.delivered.saturating_sub(ack.prior_delivered) / self.mss);
            if ack.prior_delivered >= self.loss_round_delivered {
                self.loss_round_delivered = ack.delivered;
                self.loss_round_start = true;
            }
        }
        self.update_congestion_signals(ack, sample_bw);
        let acked = ack.acked_segments as u64;
        self.aggregation.update(ack.now, self.round_start, acked, self.bw(), self.cwnd, self.mss);
        self.check_loss_too_high_in_startup(ack);
        if let Some(bw) = sample_bw {
            self.check_full_bw_reached(ack, bw);
        }
        self.check_drain(ack);
        self.update_cycle_phase(ack, sample_bw.unwrap_or(0));
        self.update_min_rtt(ack);
        self.update_gains();
        self.set_pacing_rate();
        self.set_cwnd(ack);
        // bbr_advance_latest_delivery_signals.
        if self.loss_round_start {
            self.bw_latest = sample_bw.unwrap_or(0);
            self.inflight_latest = ack.delivered.saturating_sub(ack.prior_delivered) / self.mss;
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        match event.kind {
            CongestionKind::FastRetransmit => {
                self.save_cwnd();
                self.in_loss_recovery = true;
                self.packet_conservation = true;
                self.reset_to_inflight = true;
                self.next_round_delivered = self.last_delivered;
                // bbr_note_loss: a loss round starts at the first loss.
                if !self.loss_in_round {
                    self.loss_round_delivered = self.last_delivered;
                }
                self.loss_in_round = true;
            }
            CongestionKind::Timeout => {
                self.save_cwnd();
                self.in_loss_recovery = true;
                self.packet_conservation = false;
                self.cwnd = 1;
                self.round_start = true;
            }
            CongestionKind::Ecn => {}
        }
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.in_loss_recovery = false;
        self.packet_conservation = false;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    fn on_timeout_recovery_exit(&mut self, now: SimTime) {
        self.on_recovery_exit(now);
    }

    fn on_packet_sent(&mut self, _now: SimTime, _bytes: u64, bytes_in_flight_before: u64) {
        if bytes_in_flight_before == 0 {
            self.idle_restart = true;
        }
    }

    fn cwnd(&self) -> u64 {
        self.cwnd.max(1) * self.mss
    }

    fn ssthresh(&self) -> u64 {
        if self.full_bw_reached {
            self.inflight(self.max_bw(), 1.0).max(2) * self.mss
        } else {
            u64::MAX
        }
    }

    fn pacing_rate(&self) -> Option<u64> {
        Some(self.pacing_rate.max(1))
    }

    fn min_tso_segments(&self, _pacing_rate_bps: Option<u64>) -> u64 {
        crate::cc::bbr::min_tso_segments(self.pacing_rate)
    }

    fn state_name(&self) -> &'static str {
        match self.mode {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw(Phase::Down) => "probe_down",
            Mode::ProbeBw(Phase::Cruise) => "probe_cruise",
            Mode::ProbeBw(Phase::Refill) => "probe_refill",
            Mode::ProbeBw(Phase::Up) => "probe_up",
            Mode::ProbeRtt => "probe_rtt",
        }
    }

    fn take_event(&mut self) -> Option<&'static str> {
        self.pending_event.take()
    }
}
