//! `copa`: Copa (Arun and Balakrishnan, "Copa: Practical Delay-Based Congestion Control for the
//! Internet", NSDI 2018). Copa has no Linux module and no ns-3 class; where the paper leaves a
//! detail open this follows the authors' genericCC sender and Meta's mvfst implementation, as
//! said at each place (facts only).
//!
//! Per ACK (paper §2.1), in packets and seconds:
//! - RTTmin = the smallest RTT over the last 10 s; RTTstanding = the smallest RTT over the last
//!   srtt / 2 (srtt: the sender's RFC 6298 estimate); d_q = RTTstanding - RTTmin.
//! - target rate lambda_t = 1 / (delta d_q) packets per second; current rate lambda = cwnd /
//!   RTTstanding. If lambda <= lambda_t, cwnd += v / (delta cwnd) per acknowledged packet, else
//!   cwnd -= v / (delta cwnd): about v / delta packets per RTT.
//! - velocity v: once per RTT the cwnd is compared with the cwnd one RTT earlier (direction up if
//!   larger, else down); after the direction has been the same for three RTTs v doubles every
//!   RTT; a change of direction resets v to 1.
//! - pacing at 2 cwnd / RTTstanding.
//!
//! Slow start (paper §2.1): cwnd doubles every RTT (here: + 1 packet per acknowledged packet)
//! until the first ACK on which lambda > lambda_t, which starts the decrease.
//!
//! Mode switching (paper §2.2, on by default as in the paper): the queue counts as nearly empty
//! when d_q <= 10% of (RTTmax - RTTmin), RTTmax the largest RTT over the last 4 srtt (genericCC's
//! window). If it has not been nearly empty for 5 srtt, a buffer-filling flow is assumed and Copa
//! turns competitive: 1/delta grows by 1 per RTT and halves on a loss (at most once per RTT),
//! never below the default 1/delta; back in default mode delta returns to its default.
//!
//! Losses: Copa ignores them in default mode (the paper; genericCC's loss handlers do nothing);
//! it owns the window in recovery, so the sender runs no PRR. A retransmission timeout restarts
//! from the loss window of one packet in slow start (the trait's contract; mvfst drops to its
//! minimum window on persistent congestion).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::window::MAX_CWND_SEGMENTS;
use super::{
    defaults_of, parse_params, AckEvent, Algorithm, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo,
    ParamKind, ParamSpec,
};
use crate::time::{SimDuration, SimTime, NANOS_PER_MILLI, NANOS_PER_SEC};
use crate::units::Duration;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CopaConfig {
    /// delta: the flow keeps about 1 / delta packets queued (paper default 0.5).
    pub delta: f64,
    /// The window of the RTTmin filter (paper: 10 s).
    pub min_rtt_window: Duration,
    /// Switch to competitive mode when the queue does not empty (paper §2.2).
    pub mode_switching: bool,
}

impl Default for CopaConfig {
    fn default() -> Self {
        Self { delta: 0.5, min_rtt_window: Duration(10 * NANOS_PER_SEC), mode_switching: true }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "delta",
        kind: ParamKind::Float { min: 0.001, max: 10.0 },
        unit: "1/packets",
        description: "target rate 1 / (delta d_q): each flow keeps about 1 / delta packets queued",
    },
    ParamSpec {
        name: "min_rtt_window",
        kind: ParamKind::Duration { min: NANOS_PER_MILLI, max: 3600 * NANOS_PER_SEC },
        unit: "duration",
        description: "how long the smallest RTT sample is remembered as RTTmin",
    },
    ParamSpec {
        name: "mode_switching",
        kind: ParamKind::Bool,
        unit: "",
        description: "turn competitive (AIMD on 1/delta) when the queue has not emptied for 5 RTTs",
    },
];

pub const ALGORITHM: Algorithm = Algorithm {
    name: "copa",
    summary:
        "Copa: moves cwnd towards the target rate 1 / (delta x queueing delay), competitive mode against buffer fillers",
    source: "Arun and Balakrishnan, NSDI 2018 (no Linux module, no ns-3 class; genericCC and mvfst for open details)",
    params: PARAMS,
    defaults: defaults_of::<CopaConfig>,
    create: |params: &Value, info: ConnectionInfo| {
        let config: CopaConfig = parse_params("copa", PARAMS, params)?;
        Ok(Box::new(Copa::new(config, info)))
    },
};

/// The smallest (or largest) sample over a sliding time window: a monotonic deque, so the
/// extreme is exact. The newest sample always stays, whatever the window.
#[derive(Clone, Debug, Default)]
pub struct WindowedExtreme {
    samples: VecDeque<(SimTime, SimDuration)>,
    keep_max: bool,
}

impl WindowedExtreme {
    pub fn min() -> Self {
        Self { samples: VecDeque::new(), keep_max: false }
    }

    pub fn max() -> Self {
        Self { samples: VecDeque::new(), keep_max: true }
    }

    fn dominated(&self, old: SimDuration, new: SimDuration) -> bool {
        if self.keep_max {
            old <= new
        } else {
            old >= new
        }
    }

    pub fn update(&mut self, now: SimTime, value: SimDuration, window: SimDuration) {
        while self.samples.back().is_some_and(|&(_, v)| self.dominated(v, value)) {
            self.samples.pop_back();
        }
        self.samples.push_back((now, value));
        self.expire(now, window);
    }

    /// Forgets samples older than `window` before `now` (never the newest).
    pub fn expire(&mut self, now: SimTime, window: SimDuration) {
        while self.samples.len() > 1 && self.samples.front().is_some_and(|&(t, _)| t + window < now) {
            self.samples.pop_front();
        }
    }

    pub fn get(&self) -> Option<SimDuration> {
        self.samples.front().map(|&(_, v)| v)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Up,
    Down,
}

/// The velocity state of paper §2.1.
#[derive(Clone, Debug)]
pub struct Velocity {
    pub v: f64,
    pub direction: Direction,
    /// RTTs in a row whose direction matched the previous one.
    pub same_direction_rtts: u32,
    /// When and at what cwnd (packets) the current RTT's comparison began.
    recorded: Option<(SimTime, f64)>,
}

impl Default for Velocity {
    fn default() -> Self {
        Self { v: 1.0, direction: Direction::Up, same_direction_rtts: 0, recorded: None }
    }
}

/// RTTs of the same direction before v starts doubling (paper §2.1).
pub const SAME_DIRECTION_RTTS_BEFORE_DOUBLING: u32 = 3;

impl Velocity {
    /// Once per RTT (the first ACK at least srtt after the last comparison): compares cwnd with
    /// the cwnd of one RTT earlier and doubles or resets v. `max_v` caps v (genericCC caps it at
    /// cwnd, so one ACK never moves cwnd by more than 1 / delta packets).
    pub fn once_per_rtt(&mut self, now: SimTime, srtt: SimDuration, cwnd: f64, max_v: f64) {
        let Some((since, then)) = self.recorded else {
            self.recorded = Some((now, cwnd));
            return;
        };
        if now < since + srtt {
            return;
        }
        // An unchanged cwnd counts as down (mvfst); it happens only at the 2-packet floor.
        let direction = if cwnd > then { Direction::Up } else { Direction::Down };
        if direction == self.direction {
            self.same_direction_rtts += 1;
            if self.same_direction_rtts >= SAME_DIRECTION_RTTS_BEFORE_DOUBLING {
                self.v = (2.0 * self.v).min(max_v.max(1.0));
            }
        } else {
            self.reset(direction);
        }
        self.recorded = Some((now, cwnd));
    }

    /// The per-ACK decision went the other way while v > 1: restart at v = 1 at once instead of
    /// overshooting for up to an RTT (mvfst's `changeDirection`; the paper only compares once
    /// per RTT).
    pub fn sudden_change(&mut self, now: SimTime, cwnd: f64, direction: Direction) {
        if direction != self.direction && self.v > 1.0 {
            self.reset(direction);
            self.recorded = Some((now, cwnd));
        }
    }

    fn reset(&mut self, direction: Direction) {
        self.direction = direction;
        self.v = 1.0;
        self.same_direction_rtts = 0;
    }
}

/// lambda_t = 1 / (delta d_q) in packets per second; infinite with no queueing delay.
pub fn target_rate(delta: f64, queueing_delay: SimDuration) -> f64 {
    if queueing_delay == 0 {
        return f64::INFINITY;
    }
    NANOS_PER_SEC as f64 / (delta * queueing_delay as f64)
}

/// The cwnd change, in packets, for `acked` packets at velocity `v`: v / (delta cwnd) each.
pub fn cwnd_step(delta: f64, cwnd: f64, v: f64, acked: u32) -> f64 {
    acked as f64 * v / (delta * cwnd)
}

/// The smallest cwnd in packets (genericCC and mvfst keep 2).
const MIN_CWND: f64 = 2.0;
/// Nearly empty: d_q at most this share of RTTmax - RTTmin (paper §2.2).
const NEARLY_EMPTY_SHARE: f64 = 0.1;
/// RTTmax's window, in srtt (genericCC).
const RTT_MAX_WINDOW_SRTTS: u64 = 4;
/// Competitive after this many srtt without a nearly empty queue (paper §2.2).
const EMPTY_QUEUE_PERIOD_SRTTS: u64 = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Default,
    Competitive,
}

pub struct Copa {
    config: CopaConfig,
    mss: u64,
    /// Congestion window in packets (fractional, as the paper's per-ACK steps).
    pub(crate) cwnd: f64,
    clamp: f64,
    pub(crate) slow_start: bool,
    pub(crate) velocity: Velocity,
    /// The delta in use: the configured one, or competitive mode's.
    pub(crate) delta: f64,
    pub(crate) mode: Mode,
    rtt_min: WindowedExtreme,
    rtt_standing: WindowedExtreme,
    rtt_max: WindowedExtreme,
    srtt: SimDuration,
    /// The last time the queue looked nearly empty, and the last 1/delta changes.
    last_nearly_empty: SimTime,
    last_delta_increase: SimTime,
    last_delta_decrease: Option<SimTime>,
    event: Option<&'static str>,
}

impl Copa {
    pub fn new(config: CopaConfig, info: ConnectionInfo) -> Self {
        let clamp = info.cwnd_clamp_segments.unwrap_or(MAX_CWND_SEGMENTS).max(1) as f64;
        Self {
            delta: config.delta,
            config,
            mss: info.mss,
            cwnd: (info.initial_window_segments.max(1) as f64).min(clamp),
            clamp,
            slow_start: true,
            velocity: Velocity::default(),
            mode: Mode::Default,
            rtt_min: WindowedExtreme::min(),
            rtt_standing: WindowedExtreme::min(),
            rtt_max: WindowedExtreme::max(),
            srtt: 0,
            last_nearly_empty: 0,
            last_delta_increase: 0,
            last_delta_decrease: None,
            event: None,
        }
    }

    /// d_q = RTTstanding - RTTmin and RTTstanding, once there is a sample.
    fn queueing_delay(&self) -> Option<(SimDuration, SimDuration)> {
        let standing = self.rtt_standing.get()?;
        let min = self.rtt_min.get()?;
        Some((standing.saturating_sub(min), standing))
    }

    fn update_filters(&mut self, now: SimTime, rtt: Option<SimDuration>) {
        let standing_window = self.srtt / 2;
        let max_window = RTT_MAX_WINDOW_SRTTS * self.srtt;
        match rtt {
            Some(rtt) => {
                self.rtt_min.update(now, rtt, self.config.min_rtt_window.nanos());
                self.rtt_standing.update(now, rtt, standing_window);
                self.rtt_max.update(now, rtt, max_window);
            }
            None => {
                self.rtt_min.expire(now, self.config.min_rtt_window.nanos());
                self.rtt_standing.expire(now, standing_window);
                self.rtt_max.expire(now, max_window);
            }
        }
    }

    /// Paper §2.2: the mode from whether the queue emptied lately, and competitive mode's AIMD
    /// on 1/delta (+1 per RTT here, halving in `on_congestion_event`).
    fn update_mode(&mut self, now: SimTime, queueing_delay: SimDuration) {
        let (Some(min), Some(max)) = (self.rtt_min.get(), self.rtt_max.get()) else { return };
        if queueing_delay as f64 <= NEARLY_EMPTY_SHARE * max.saturating_sub(min) as f64 {
            self.last_nearly_empty = now;
        }
        let competitive = now > self.last_nearly_empty + EMPTY_QUEUE_PERIOD_SRTTS * self.srtt;
        match (self.mode, competitive) {
            (Mode::Default, true) => {
                self.mode = Mode::Competitive;
                self.last_delta_increase = now;
                self.event = Some("copa_competitive");
            }
            (Mode::Competitive, false) => {
                self.mode = Mode::Default;
                self.delta = self.config.delta;
                self.event = Some("copa_default");
            }
            (Mode::Competitive, true) if now >= self.last_delta_increase + self.srtt => {
                self.delta = 1.0 / (1.0 / self.delta + 1.0);
                self.last_delta_increase = now;
            }
            _ => {}
        }
    }

    fn set_cwnd(&mut self, cwnd: f64) {
        self.cwnd = cwnd.max(MIN_CWND).min(self.clamp);
    }
}

impl CongestionControl for Copa {
    fn on_ack(&mut self, ack: &AckEvent) {
        let now = ack.now;
        if ack.srtt > 0 {
            self.srtt = ack.srtt;
        } else if let Some(rtt) = ack.rtt_sample {
            self.srtt = rtt;
        }
        self.update_filters(now, ack.rtt_sample);
        if ack.acked_segments == 0 {
            return;
        }
        let Some((queueing_delay, standing)) = self.queueing_delay() else { return };
        if self.config.mode_switching {
            self.update_mode(now, queueing_delay);
        }
        // lambda <= lambda_t  <=>  cwnd / RTTstanding <= 1 / (delta d_q), without dividing by 0.
        let increase = self.cwnd * self.delta * queueing_delay as f64 <= standing as f64;
        if self.slow_start && increase {
            self.set_cwnd(self.cwnd + ack.acked_segments as f64);
            return;
        }
        self.slow_start = false;
        let direction = if increase { Direction::Up } else { Direction::Down };
        self.velocity.sudden_change(now, self.cwnd, direction);
        self.velocity.once_per_rtt(now, self.srtt, self.cwnd, self.cwnd);
        let step = cwnd_step(self.delta, self.cwnd, self.velocity.v, ack.acked_segments);
        self.set_cwnd(if increase { self.cwnd + step } else { self.cwnd - step });
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        match event.kind {
            CongestionKind::Timeout => {
                self.cwnd = 1.0;
                self.slow_start = true;
                self.velocity = Velocity::default();
            }
            // Default mode ignores losses; competitive mode halves 1/delta once per RTT.
            CongestionKind::FastRetransmit | CongestionKind::Ecn => {
                let recent = self.last_delta_decrease.is_some_and(|t| event.now < t + self.srtt);
                if self.mode == Mode::Competitive && !recent {
                    self.delta = 1.0 / (0.5 / self.delta).max(1.0 / self.config.delta);
                    self.last_delta_decrease = Some(event.now);
                }
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {}

    fn owns_recovery_window(&self) -> bool {
        true
    }

    fn cwnd(&self) -> u64 {
        ((self.cwnd * self.mss as f64) as u64).max(self.mss)
    }

    /// Copa has no slow-start threshold.
    fn ssthresh(&self) -> u64 {
        u64::MAX
    }

    /// 2 cwnd / RTTstanding in bits per second, once there is an RTT sample.
    fn pacing_rate(&self) -> Option<u64> {
        let standing = self.rtt_standing.get()?.max(1);
        let bits = 2.0 * self.cwnd * self.mss as f64 * 8.0 * NANOS_PER_SEC as f64 / standing as f64;
        Some((bits.min(u64::MAX as f64) as u64).max(1))
    }

    fn state_name(&self) -> &'static str {
        match (self.slow_start, self.mode) {
            (true, _) => "slow_start",
            (false, Mode::Default) => "default",
            (false, Mode::Competitive) => "competitive",
        }
    }

    fn take_event(&mut self) -> Option<&'static str> {
        self.event.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::FakeSender;
    use crate::time::NANOS_PER_MILLI as MS;

    #[test]
    fn target_rate_is_one_over_delta_times_queueing_delay() {
        // delta 0.5, d_q 10 ms: 1 / (0.5 x 0.010 s) = 200 packets per second.
        assert!((target_rate(0.5, 10 * MS) - 200.0).abs() < 1e-9);
        // delta 0.1, d_q 4 ms: 1 / 0.0004 = 2500 packets per second.
        assert!((target_rate(0.1, 4 * MS) - 2500.0).abs() < 1e-9);
        assert_eq!(target_rate(0.5, 0), f64::INFINITY);
    }

    #[test]
    fn cwnd_step_is_velocity_over_delta_cwnd_per_packet() {
        // cwnd 40 packets, delta 0.5, v 1: 1 / (0.5 x 40) = 0.05 packets per ACKed packet, i.e.
        // 40 x 0.05 = 2 = 1 / delta packets per RTT of ACKs.
        assert!((cwnd_step(0.5, 40.0, 1.0, 1) - 0.05).abs() < 1e-12);
        // v 8, two packets in one (delayed) ACK: 2 x 8 / 20 = 0.8 packets.
        assert!((cwnd_step(0.5, 40.0, 8.0, 2) - 0.8).abs() < 1e-12);
    }

    fn copa_sender(rtt_ms: u64) -> FakeSender {
        FakeSender::new("copa", &serde_json::json!({"mode_switching": false}), 1000, 10, rtt_ms * MS)
    }

    #[test]
    fn slow_start_doubles_per_rtt_until_the_rate_exceeds_the_target() {
        let mut s = copa_sender(100);
        // No queueing (every RTT 100 ms): lambda_t is infinite, cwnd doubles each round.
        for expected in [20.0, 40.0, 80.0] {
            s.round_trip(1);
            assert!((s.cwnd_segments() - expected).abs() < 1e-9, "{}", s.cwnd_segments());
        }
        assert_eq!(s.cc.state_name(), "slow_start");
        // d_q = 20 ms after the RTTstanding window (srtt/2) has passed: lambda_t = 1 / (0.5 x
        // 0.02) = 100 pkt/s < 80 / 0.12 s = 667 pkt/s. The first ACK with the new RTT decreases.
        s.rtt = 120 * MS;
        s.round_trip(1);
        assert_eq!(s.cc.state_name(), "default");
        assert!(s.cwnd_segments() < 80.0, "{}", s.cwnd_segments());
    }

    /// A round driven by the RTT: 100 ms is no queueing delay (lambda_t infinite: up), 400 ms a
    /// queueing delay of 300 ms (lambda_t = 1 / (0.5 x 0.3 s) = 6.7 packets/s, far below cwnd /
    /// 0.4 s: down). Returns the cwnd change over the round in packets.
    fn scripted_round(s: &mut FakeSender, up: bool) -> f64 {
        let before = s.cwnd_segments();
        s.rtt = if up { 100 * MS } else { 400 * MS };
        s.round_trip(1);
        s.cwnd_segments() - before
    }

    #[test]
    fn velocity_doubles_after_three_rtts_in_one_direction_and_resets_on_a_change() {
        let mut s = copa_sender(100);
        for _ in 0..3 {
            scripted_round(&mut s, true);
        }
        assert!((s.cwnd_segments() - 80.0).abs() < 1e-9, "slow start: 10 -> 80");
        // A round of about cwnd ACKs moves cwnd by about v / delta = 2 v packets. The first ACK
        // of each round makes the once-per-RTT comparison, so the whole round runs at the new v.
        // Round 0 leaves slow start and records the reference cwnd; round 1 is the first
        // comparison (down, after slow start's initial "up": v = 1, count 0); rounds 2 and 3
        // count 1 and 2; round 4 reaches 3 RTTs in the same direction and doubles v to 2, round
        // 5 doubles it to 4.
        let steps: Vec<f64> = (0..6).map(|_| scripted_round(&mut s, false)).collect();
        for (round, (step, v)) in steps.iter().zip([1.0, 1.0, 1.0, 1.0, 2.0, 4.0]).enumerate() {
            // Within 10%: cwnd shrinks during the round (80 -> 60), so v / (delta cwnd) per ACK
            // adds up to slightly more than v / delta over about cwnd ACKs.
            assert!((step + 2.0 * v).abs() < 0.2 * v, "round {round}: step {step}, expected -{}", 2.0 * v);
        }
        // The next round goes up: its first ACK decides up while v = 4, and v restarts at 1 at
        // once (not after a whole RTT at v = 4): + about 2 packets, not + 8.
        let up = scripted_round(&mut s, true);
        assert!((up - 2.0).abs() < 0.2, "{up}");
    }
}
