//! BBRv3's bandwidth probing: the PROBE_BW cycle (DOWN, CRUISE, REFILL, UP), when to start the
//! next probe, and the bounds it adapts: inflight_hi from the loss rate of probes (raised while a
//! probe sees no excess loss), and the short-term lower bounds bw_lo and inflight_lo cut once per
//! round with loss outside probing.

use super::{
    AckPhase, Bbr3, Mode, Phase, MIN_CWND, PROBE_BASE_WAIT, PROBE_MAX_ROUNDS, PROBE_RAND_ROUNDS, PROBE_RAND_WAIT,
};
use crate::cc::AckEvent;
use crate::sim::unit_f64;
use crate::time::{SimDuration, SimTime};

impl Bbr3 {
    pub(super) fn inflight_with_headroom(&self) -> Option<u64> {
        let hi = self.inflight_hi?;
        let headroom = ((hi as f64 * self.config.headroom) as u64).max(1);
        Some(hi.saturating_sub(headroom).max(MIN_CWND))
    }

    /// Loss rate of the sample above the threshold (bbr_is_inflight_too_high, loss part).
    pub(super) fn is_inflight_too_high(&self, ack: &AckEvent) -> bool {
        ack.lost_since_sent > 0
            && ack.tx_in_flight > 0
            && ack.lost_since_sent as f64 > ack.tx_in_flight as f64 * self.config.loss_threshold
    }

    pub(super) fn reset_lower_bounds(&mut self) {
        self.bw_lo = None;
        self.inflight_lo = None;
    }

    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.bw_latest = 0;
        self.inflight_latest = 0;
    }

    pub(super) fn is_probing_bandwidth(&self) -> bool {
        matches!(self.mode, Mode::Startup | Mode::ProbeBw(Phase::Refill) | Mode::ProbeBw(Phase::Up))
    }

    pub(super) fn start_probe_down(&mut self, now: SimTime) {
        self.reset_congestion_signals();
        self.probe_up_cnt = None;
        // bbr_pick_probe_wait: random rounds and wall-clock wait before the next probe.
        self.rounds_since_probe = (unit_f64(&mut self.rng) * PROBE_RAND_ROUNDS as f64) as u64;
        self.probe_wait = PROBE_BASE_WAIT + (unit_f64(&mut self.rng) * PROBE_RAND_WAIT as f64) as SimDuration;
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_round_delivered = self.last_delivered;
        self.mode = Mode::ProbeBw(Phase::Down);
    }

    pub(super) fn start_probe_cruise(&mut self) {
        if let (Some(lo), Some(hi)) = (self.inflight_lo, self.inflight_hi) {
            self.inflight_lo = Some(lo.min(hi));
        }
        self.mode = Mode::ProbeBw(Phase::Cruise);
    }

    pub(super) fn start_probe_refill(&mut self) {
        self.reset_lower_bounds();
        self.probe_up_rounds = 0;
        self.probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_round_delivered = self.last_delivered;
        self.mode = Mode::ProbeBw(Phase::Refill);
    }

    pub(super) fn start_probe_up(&mut self, now: SimTime, sample_bw: u64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_round_delivered = self.last_delivered;
        self.cycle_stamp = now;
        self.reset_full_bw();
        self.full_bw = sample_bw;
        self.mode = Mode::ProbeBw(Phase::Up);
        self.raise_inflight_hi_slope();
    }

    /// Each round of PROBE_UP doubles the growth of inflight_hi.
    pub(super) fn raise_inflight_hi_slope(&mut self) {
        let growth = 1u64 << self.probe_up_rounds.min(30);
        self.probe_up_rounds = (self.probe_up_rounds + 1).min(30);
        self.probe_up_cnt = Some((self.cwnd / growth).max(1));
    }

    pub(super) fn probe_inflight_hi_upward(&mut self, ack: &AckEvent) {
        let Some(hi) = self.inflight_hi else { return };
        if !ack.cwnd_limited || self.cwnd < hi {
            return;
        }
        let cnt = self.probe_up_cnt.unwrap_or(u64::MAX).max(1);
        self.probe_up_acks += ack.acked_segments as u64;
        if self.probe_up_acks >= cnt {
            let delta = self.probe_up_acks / cnt;
            self.probe_up_acks -= delta * cnt;
            self.inflight_hi = Some(hi + delta);
        }
        if self.round_start {
            self.raise_inflight_hi_slope();
        }
    }

    pub(super) fn handle_inflight_too_high(&mut self, ack: &AckEvent) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !ack.delivery_rate_app_limited {
            let target = (self.target_inflight() as f64 * (1.0 - self.config.beta)) as u64;
            let tx = ack.tx_in_flight.div_ceil(self.mss);
            self.inflight_hi = Some(tx.max(target));
            self.pending_event = Some("bbr3_inflight_hi_cut");
        }
        if self.mode == Mode::ProbeBw(Phase::Up) {
            self.start_probe_down(ack.now);
        }
    }

    /// bbr_adapt_upper_bounds; true if it already chose a state transition.
    pub(super) fn adapt_upper_bounds(&mut self, ack: &AckEvent) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if matches!(self.mode, Mode::ProbeBw(_)) && !ack.delivery_rate_app_limited && self.bw_hi[1] > 0 {
                self.bw_hi = [self.bw_hi[1], 0];
            }
            if matches!(self.mode, Mode::ProbeBw(_)) && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_probe_refill();
                return true;
            }
        }
        if self.is_inflight_too_high(ack) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(ack);
            }
        } else if let Some(hi) = self.inflight_hi {
            let tx = ack.tx_in_flight / self.mss;
            if tx > hi {
                self.inflight_hi = Some(tx);
            }
            if self.mode == Mode::ProbeBw(Phase::Up) {
                self.probe_inflight_hi_upward(ack);
            }
        }
        false
    }

    pub(super) fn check_time_to_probe_bw(&mut self, now: SimTime) -> bool {
        let reno_rounds = PROBE_MAX_ROUNDS.min(self.target_inflight());
        if now.saturating_sub(self.cycle_stamp) > self.probe_wait || self.rounds_since_probe >= reno_rounds {
            self.start_probe_refill();
            return true;
        }
        false
    }

    pub(super) fn update_cycle_phase(&mut self, ack: &AckEvent, sample_bw: u64) {
        if !self.full_bw_reached || self.adapt_upper_bounds(ack) {
            return;
        }
        let Mode::ProbeBw(phase) = self.mode else { return };
        let inflight = ack.bytes_in_flight_before / self.mss;
        match phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(ack.now);
            }
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_probe_up(ack.now, sample_bw);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && self.inflight_hi.is_some_and(|hi| inflight >= hi) {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if ack.cwnd_limited && self.inflight_hi.is_some_and(|hi| self.cwnd >= hi) {
                    self.reset_full_bw();
                    self.full_bw = sample_bw;
                } else if self.full_bw_now {
                    done = true;
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_probe_down(ack.now);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(ack.now) {
                    return;
                }
                let below_headroom = self.inflight_with_headroom().is_none_or(|h| inflight <= h);
                if below_headroom && inflight <= self.inflight(self.max_bw(), 1.0) {
                    self.start_probe_cruise();
                }
            }
        }
    }

    pub(super) fn update_congestion_signals(&mut self, ack: &AckEvent, sample_bw: Option<u64>) {
        let Some(bw) = sample_bw else { return };
        if !ack.delivery_rate_app_limited || bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(bw);
        }
        self.loss_in_round |= ack.newly_lost_segments > 0;
        if !self.loss_round_start {
            return;
        }
        // bbr_adapt_lower_bounds: once per round with loss, outside bandwidth probing.
        if self.loss_in_round && !self.is_probing_bandwidth() {
            let cut = 1.0 - self.config.beta;
            let bw_lo = self.bw_lo.unwrap_or(self.max_bw());
            let inflight_lo = self.inflight_lo.unwrap_or(self.cwnd);
            self.bw_lo = Some(self.bw_latest.max((bw_lo as f64 * cut) as u64).max(1));
            self.inflight_lo = Some(self.inflight_latest.max((inflight_lo as f64 * cut) as u64));
        }
        self.loss_in_round = false;
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;
    use crate::time::NANOS_PER_MILLI as MS;

    fn bbr3() -> Bbr3 {
        let mut b = Bbr3::new(Bbr3Config::default(), ConnectionInfo::new(1000, 10, 1));
        b.min_rtt = Some(10 * MS);
        b.bw_hi = [8_000_000, 0];
        b.cwnd = 40;
        b.full_bw_reached = true;
        b
    }

    #[test]
    fn a_probe_with_more_than_two_percent_loss_cuts_inflight_hi() {
        let mut b = bbr3();
        b.mode = Mode::ProbeBw(Phase::Up);
        b.bw_probe_samples = true;
        b.inflight_hi = Some(100);
        // 50 segments in flight when the sampled segment left, 3 lost since: 6% > 2%.
        let ack = AckEvent {
            now: 0,
            tx_in_flight: 50_000,
            lost_since_sent: 3_000,
            acked_segments: 1,
            acked_bytes: 1000,
            ..AckEvent::default()
        };
        assert!(b.is_inflight_too_high(&ack));
        b.handle_inflight_too_high(&ack);
        // inflight_hi = max(tx_in_flight 50, 0.7 x target): target = min(BDP + budget, cwnd 40).
        assert_eq!(b.inflight_hi, Some(50));
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Down), "PROBE_UP ends at once");
        // 1 lost of 50 (2%) is not above the threshold.
        let mild = AckEvent { tx_in_flight: 50_000, lost_since_sent: 1_000, ..ack };
        assert!(!b.is_inflight_too_high(&mild));
    }

    #[test]
    fn loss_outside_probing_cuts_the_lower_bounds_to_seven_tenths() {
        let mut b = bbr3();
        b.mode = Mode::ProbeBw(Phase::Cruise);
        b.loss_round_start = true;
        b.loss_in_round = true;
        b.bw_latest = 1_000_000;
        b.inflight_latest = 5;
        b.update_congestion_signals(&AckEvent { newly_lost_segments: 1, ..AckEvent::default() }, Some(1_000_000));
        assert_eq!(b.bw_lo, Some(5_600_000), "max(latest 1 Mbit/s, 0.7 x 8 Mbit/s)");
        assert_eq!(b.inflight_lo, Some(28), "max(latest 5, 0.7 x cwnd 40)");
        assert_eq!(b.bw(), 5_600_000);
    }

    #[test]
    fn cruise_leaves_fifteen_percent_headroom_below_inflight_hi() {
        let mut b = bbr3();
        b.inflight_hi = Some(100);
        assert_eq!(b.inflight_with_headroom(), Some(85));
        b.mode = Mode::ProbeBw(Phase::Cruise);
        b.cwnd = 200;
        b.set_cwnd(&AckEvent::default());
        assert_eq!(b.cwnd, 85);
    }
}
