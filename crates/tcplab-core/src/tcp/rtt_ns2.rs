//! ns-2.35's retransmission timeout (`rto_formula = "ns2"`), from tcp/tcp.cc (`rtt_init`,
//! `rtt_update`, `rtt_timeout`, `rtt_backoff`) with tcl/lib/ns-default.tcl's defaults
//! (T_SRTT_BITS 3, T_RTTVAR_BITS 2, rttvar_exp_ 2, rfc2988_ true). Written from those facts, not
//! from ns-2's code.
//!
//! ns-2 counts round-trip times in whole ticks of `tcpTick_` (`clock_granularity`), on a clock
//! whose phase is a per-connection random `boot_time_` in [0, tick): a sample is the number of
//! tick boundaries between the send and the ACK (at least 1). It keeps, in integers:
//! - `srtt8` = 8 x SRTT in ticks (three fraction bits), `rttvar4` = 4 x RTTVAR in ticks (two);
//! - first sample m: srtt8 = 8m, rttvar4 = 2m (RTTVAR = m / 2);
//! - later: d = m - (srtt8 >> 3); srtt8 += d (at least 1); rttvar4 += |d| - (rttvar4 >> 2) (at
//!   least 1). ns-2 holds d in a 16-bit `short`, which this keeps;
//! - the current timeout, recomputed only on a sample: ((8 x rttvar4 + srtt8) >> 3) ticks, i.e.
//!   SRTT + 4 RTTVAR truncated to whole ticks; before the first sample it is `rtxcur_init_`
//!   (`initial_rto`).
//!
//! The timer (`rtt_timeout` with rfc2988_): the current timeout, raised to min RTO, times the
//! backoff factor, at most max RTO, at least 2 ticks. Backing off (`rtt_backoff`) doubles the
//! factor while it is below 64 or the timeout is still below max RTO; once the factor passes 8,
//! SRTT is folded into RTTVAR and cleared, so the next sample starts the averages afresh (the
//! current timeout itself keeps its value until then). The factor returns to 1 when the timed
//! segment's ACK arrives (`newack`).

use crate::time::{SimDuration, SimTime};

/// ns-2's estimator state for one connection.
#[derive(Clone, Debug)]
pub struct Ns2Rto {
    tick: SimDuration,
    /// 8 x SRTT in ticks (`t_srtt_`); 0 before the first sample or after a long backoff.
    srtt8: i64,
    /// 4 x RTTVAR in ticks (`t_rttvar_`).
    rttvar4: i64,
    /// The timeout before min RTO and backoff (`t_rtxcur_`).
    current: SimDuration,
    /// The backoff factor (`t_backoff_`): 1, 2, 4, ...
    backoff: u64,
    min_rto: SimDuration,
    max_rto: SimDuration,
}

impl Ns2Rto {
    pub fn new(tick: SimDuration, initial_rto: SimDuration, min_rto: SimDuration, max_rto: SimDuration) -> Self {
        // ns-2 also seeds t_rttvar_ from rttvar_init_ (12 s); the first sample overwrites it and
        // the timeout ignores it until then, so it is left out.
        Self { tick: tick.max(1), srtt8: 0, rttvar4: 0, current: initial_rto, backoff: 1, min_rto, max_rto }
    }

    /// Tick boundaries crossed between `sent_at` and `now` on a clock running `phase` ahead of
    /// simulated time (ns-2's `boot_time_`), at least 1.
    pub fn ticks_between(&self, sent_at: SimTime, now: SimTime, phase: SimDuration) -> i64 {
        let boundaries = (now + phase) / self.tick - (sent_at + phase) / self.tick;
        (boundaries as i64).max(1)
    }

    /// A sample of `ticks` ticks.
    pub fn update(&mut self, ticks: i64) {
        let ticks = ticks.max(1);
        if self.srtt8 != 0 {
            // ns-2 keeps the difference in a 16-bit short.
            let mut delta = (ticks - (self.srtt8 >> 3)) as i16;
            self.srtt8 += i64::from(delta);
            if self.srtt8 <= 0 {
                self.srtt8 = 1;
            }
            delta = delta.wrapping_abs();
            delta = delta.wrapping_sub((self.rttvar4 >> 2) as i16);
            self.rttvar4 += i64::from(delta);
            if self.rttvar4 <= 0 {
                self.rttvar4 = 1;
            }
        } else {
            self.srtt8 = ticks << 3;
            self.rttvar4 = ticks << 1;
        }
        let current_ticks = ((self.rttvar4 << 3) + self.srtt8) >> 3;
        self.current = current_ticks as u64 * self.tick;
    }

    /// The timer to arm now (`rtt_timeout`).
    pub fn timeout(&self) -> SimDuration {
        let base = self.current.max(self.min_rto);
        base.saturating_mul(self.backoff).min(self.max_rto).max(2 * self.tick)
    }

    /// The timeout before backoff.
    pub fn base_timeout(&self) -> SimDuration {
        self.current.max(self.min_rto).min(self.max_rto).max(2 * self.tick)
    }

    /// The timer expired (`rtt_backoff`).
    pub fn back_off(&mut self) {
        if self.backoff < 64 || self.timeout() < self.max_rto {
            self.backoff = self.backoff.saturating_mul(2);
        }
        if self.backoff > 8 {
            self.rttvar4 += self.srtt8 >> 3;
            self.srtt8 = 0;
        }
    }

    /// The timed segment's ACK arrived: the backoff ends.
    pub fn reset_backoff(&mut self) {
        self.backoff = 1;
    }

    pub fn backoff(&self) -> u64 {
        self.backoff
    }

    /// SRTT in ticks (`t_srtt_ >> T_SRTT_BITS`) and 4 x RTTVAR in ticks (`t_rttvar_`).
    pub fn state(&self) -> (i64, i64) {
        (self.srtt8 >> 3, self.rttvar4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{NANOS_PER_MILLI as MS, NANOS_PER_SEC as S};

    fn ns2() -> Ns2Rto {
        // ns-2.35's defaults: tcpTick_ 0.01, rtxcur_init_ 3, minrto_ 0.2, maxrto_ 60.
        Ns2Rto::new(10 * MS, 3 * S, 200 * MS, 60 * S)
    }

    #[test]
    fn before_a_sample_the_initial_timeout() {
        let rto = ns2();
        assert_eq!(rto.timeout(), 3 * S);
    }

    #[test]
    fn first_and_second_samples() {
        let mut rto = ns2();
        // m = 10 ticks: srtt8 = 80, rttvar4 = 20; timeout (8 x 20 + 80) >> 3 = 30 ticks = 300 ms.
        rto.update(10);
        assert_eq!(rto.state(), (10, 20));
        assert_eq!(rto.timeout(), 300 * MS);
        // m = 14: d = 14 - 10 = 4, srtt8 = 84; rttvar4 = 20 + 4 - 5 = 19;
        // timeout (152 + 84) >> 3 = 236 >> 3 = 29 ticks (29.5 truncated) = 290 ms.
        rto.update(14);
        assert_eq!(rto.state(), (10, 19));
        assert_eq!(rto.timeout(), 290 * MS);
        // m = 2: d = 2 - 10 = -8, srtt8 = 76; |d| = 8, rttvar4 = 19 + 8 - 4 = 23;
        // timeout (184 + 76) >> 3 = 260 >> 3 = 32 ticks = 320 ms.
        rto.update(2);
        assert_eq!(rto.state(), (9, 23));
        assert_eq!(rto.timeout(), 320 * MS);
    }

    #[test]
    fn min_rto_applies_before_the_backoff_and_two_ticks_at_least() {
        let mut rto = ns2();
        // m = 1: srtt8 = 8, rttvar4 = 2; (16 + 8) >> 3 = 3 ticks = 30 ms, raised to 200 ms.
        rto.update(1);
        assert_eq!(rto.timeout(), 200 * MS);
        rto.back_off();
        assert_eq!(rto.timeout(), 400 * MS, "min RTO x backoff 2 (rfc2988_: clamp, then back off)");
        let mut no_min = Ns2Rto::new(10 * MS, 3 * S, 1, 60 * S);
        no_min.update(1);
        assert_eq!(no_min.timeout(), 30 * MS);
        let mut coarse = Ns2Rto::new(100 * MS, 3 * S, 1, 60 * S);
        coarse.srtt8 = 0;
        coarse.current = 0;
        assert_eq!(coarse.timeout(), 200 * MS, "never below 2 ticks");
    }

    #[test]
    fn backoff_doubles_up_to_max_rto_and_clears_srtt_past_eight() {
        let mut rto = ns2();
        rto.update(10);
        for expected in [600, 1200, 2400] {
            rto.back_off();
            assert_eq!(rto.timeout(), expected * MS);
        }
        assert_eq!(rto.state(), (10, 20), "factor 8: the averages stay");
        rto.back_off();
        // Factor 16: rttvar4 = 20 + 10 = 30, srtt8 = 0; the current timeout keeps 300 ms.
        assert_eq!(rto.state(), (0, 30));
        assert_eq!(rto.timeout(), 4800 * MS);
        for _ in 0..10 {
            rto.back_off();
        }
        assert_eq!(rto.timeout(), 60 * S, "at most max RTO");
        let factor = rto.backoff();
        rto.back_off();
        assert_eq!(rto.backoff(), factor, "no doubling at 64 or more once max RTO is reached");
        // The next sample starts the averages afresh: m = 12 gives srtt8 = 96, rttvar4 = 24.
        rto.update(12);
        rto.reset_backoff();
        assert_eq!(rto.state(), (12, 24));
        assert_eq!(rto.timeout(), (12 + 24) * 10 * MS);
    }

    #[test]
    fn the_difference_is_a_16_bit_short() {
        let mut rto = Ns2Rto::new(MS, 3 * S, 1, 1_000_000 * S);
        rto.update(1);
        // d = 40001 - 1 = 40000 does not fit in 16 bits: as a short it is 40000 - 65536 = -25536,
        // so srtt8 = 8 - 25536 <= 0 and is set to 1, as ns-2 would.
        rto.update(40_001);
        assert_eq!(rto.srtt8, 1);
    }

    #[test]
    fn ticks_count_boundaries_on_the_phased_clock() {
        let rto = ns2();
        // Sent at 5 ms, ACK at 24 ms, phase 0: boundaries at 10 and 20 ms, 2 ticks.
        assert_eq!(rto.ticks_between(5 * MS, 24 * MS, 0), 2);
        // Phase 7 ms: the clock reads 12 and 31 ms, boundaries at 20 and 30 ms, 2 ticks.
        assert_eq!(rto.ticks_between(5 * MS, 24 * MS, 7 * MS), 2);
        // Phase 6 ms: 11 and 30 ms, boundaries at 20 and 30, 2 ticks; within one tick: at least 1.
        assert_eq!(rto.ticks_between(5 * MS, 24 * MS, 6 * MS), 2);
        assert_eq!(rto.ticks_between(11 * MS, 12 * MS, 0), 1);
        // From 1 ms: the boundaries at 10 and 20 ms; an ACK at 20 ms counts both, at 19 ms one.
        assert_eq!(rto.ticks_between(MS, 20 * MS, 0), 2);
        assert_eq!(rto.ticks_between(MS, 19 * MS, 0), 1);
    }
}
