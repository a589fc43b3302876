//! RFC 6298 round-trip time estimation and retransmission timeout.
//!
//! First sample R: SRTT = R, RTTVAR = R/2. Later: RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R| (with the old
//! SRTT), SRTT = 7/8 SRTT + 1/8 R. RTO = max(SRTT + max(G, 4 RTTVAR), min RTO), at most max RTO,
//! doubled on every expiry (section 5.5) until a new sample arrives. Karn's rule (no samples from
//! retransmitted segments) is the sender's job: it only passes samples it may use.
//!
//! Linux (net/ipv4/tcp_input.c `tcp_set_rto`, `tcp_rtt_estimator`) keeps the same SRTT but its
//! own variance term (`rtt_linux.rs`): at least the minimum RTO and added to SRTT, so with a
//! 40 ms path and a 200 ms minimum the RTO is 240 ms where RFC 6298 gives 200 ms, and falling
//! only once per round trip.
//!
//! With `RtoFormula::Ns2` the timer comes from ns-2's integer estimator in ticks
//! (`rtt_ns2.rs`); the RFC 6298 averages are still kept, for what reads SRTT (pacing, RACK, the
//! algorithm, the time series).

use crate::tcp::rtt_linux::LinuxRttVar;
pub use crate::tcp::rtt_linux::SendWindow;
use crate::tcp::rtt_ns2::Ns2Rto;
use crate::tcp::RtoFormula;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Option<SimDuration>,
    pub rttvar: SimDuration,
    pub min_rtt: Option<SimDuration>,
    /// The smallest smoothed RTT so far (what ns-3 calls the connection's minimum RTT).
    pub min_srtt: Option<SimDuration>,
    pub latest: Option<SimDuration>,
    backoff_exponent: u32,
    min_rto: SimDuration,
    initial_rto: SimDuration,
    max_rto: SimDuration,
    granularity: SimDuration,
    formula: RtoFormula,
    /// ns-2's estimator, with `RtoFormula::Ns2` (boxed: 64 bytes that other flows' records need
    /// not carry).
    ns2: Option<Box<Ns2Rto>>,
    /// Linux's variance term, with `RtoFormula::Linux` once there is a sample (kept in place, not
    /// as an `Option`: 8 bytes less in every flow record).
    linux: LinuxRttVar,
    /// ns-2's `boot_time_`: how far the connection's tick clock runs ahead of simulated time.
    clock_phase: SimDuration,
}

impl RttEstimator {
    pub fn new(min_rto: SimDuration, initial_rto: SimDuration, max_rto: SimDuration, granularity: SimDuration) -> Self {
        Self::with_formula(min_rto, initial_rto, max_rto, granularity, RtoFormula::Rfc6298)
    }

    pub fn with_formula(
        min_rto: SimDuration,
        initial_rto: SimDuration,
        max_rto: SimDuration,
        granularity: SimDuration,
        formula: RtoFormula,
    ) -> Self {
        Self {
            srtt: None,
            rttvar: 0,
            min_rtt: None,
            min_srtt: None,
            latest: None,
            backoff_exponent: 0,
            min_rto,
            initial_rto,
            max_rto,
            granularity,
            formula,
            ns2: (formula == RtoFormula::Ns2)
                .then(|| Box::new(Ns2Rto::new(granularity, initial_rto, min_rto, max_rto))),
            linux: LinuxRttVar::default(),
            clock_phase: 0,
        }
    }

    /// Sets the phase of the connection's tick clock (ns-2's `boot_time_`, in [0, G)).
    pub fn set_clock_phase(&mut self, phase: SimDuration) {
        self.clock_phase = phase % self.granularity.max(1);
    }

    pub fn clock_phase(&self) -> SimDuration {
        self.clock_phase
    }

    /// A sample from a segment sent at `sent_at` and acknowledged `now`, with the sender's
    /// window after that ACK. `end_backoff` false keeps the timer's backoff (ns-2 during its
    /// ECN backoff).
    pub fn on_sample_sent_at(&mut self, sent_at: SimTime, now: SimTime, end_backoff: bool, window: SendWindow) {
        if let Some(ns2) = self.ns2.as_mut() {
            ns2.update(ns2.ticks_between(sent_at, now, self.clock_phase));
            if end_backoff {
                ns2.reset_backoff();
            }
        }
        let backoff = self.backoff_exponent;
        self.on_sample(now - sent_at, window);
        if !end_backoff {
            self.backoff_exponent = backoff;
        }
    }

    /// Records a sample's value (latest and minimum RTT) without feeding the averages.
    pub fn observe(&mut self, rtt: SimDuration) {
        self.latest = Some(rtt);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    pub fn on_sample(&mut self, rtt: SimDuration, window: SendWindow) {
        self.observe(rtt);
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = rtt / 2;
                if self.formula == RtoFormula::Linux {
                    self.linux = LinuxRttVar::first(rtt, self.min_rto, window);
                }
            }
            Some(srtt) => {
                if self.formula == RtoFormula::Linux {
                    self.linux.update(srtt, rtt, window, self.min_rto);
                }
                self.rttvar = (3 * self.rttvar + srtt.abs_diff(rtt)) / 4;
                self.srtt = Some((7 * srtt + rtt) / 8);
            }
        }
        let srtt = self.smoothed();
        self.min_srtt = Some(self.min_srtt.map_or(srtt, |m| m.min(srtt)));
        // A valid sample ends exponential backoff (RFC 6298 section 5.7 note; Linux does the same).
        self.backoff_exponent = 0;
    }

    /// The timeout before backoff.
    pub fn base_rto(&self) -> SimDuration {
        if let Some(ns2) = &self.ns2 {
            return ns2.base_timeout();
        }
        match self.srtt {
            None => self.initial_rto,
            Some(srtt) => match self.formula {
                RtoFormula::Rfc6298 => (srtt + self.granularity.max(4 * self.rttvar)).max(self.min_rto),
                RtoFormula::Linux => srtt + self.linux.term(),
                RtoFormula::Ns2 => unreachable!("ns-2's timer is computed by Ns2Rto"),
            },
        }
        .min(self.max_rto)
    }

    /// The timeout to arm now, backoff included.
    pub fn rto(&self) -> SimDuration {
        if let Some(ns2) = &self.ns2 {
            return ns2.timeout();
        }
        self.base_rto().saturating_mul(1u64 << self.backoff_exponent.min(32)).min(self.max_rto)
    }

    /// The timer expired: double the RTO (bounded by max RTO).
    pub fn back_off(&mut self) {
        if let Some(ns2) = self.ns2.as_mut() {
            ns2.back_off();
            return;
        }
        if self.rto() < self.max_rto {
            self.backoff_exponent += 1;
        }
    }

    pub fn smoothed(&self) -> SimDuration {
        self.srtt.unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{NANOS_PER_MILLI as MS, NANOS_PER_SEC as S};

    #[test]
    fn rfc6298_worked_example() {
        let mut rtt = RttEstimator::new(200 * MS, S, 60 * S, MS);
        assert_eq!(rtt.rto(), S, "initial RTO before any sample");
        rtt.on_sample(100 * MS, SendWindow::default());
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4 * 50 = 300 ms.
        assert_eq!((rtt.srtt, rtt.rttvar, rtt.rto()), (Some(100 * MS), 50 * MS, 300 * MS));
        rtt.on_sample(140 * MS, SendWindow::default());
        // RTTVAR = 3/4 * 50 + 1/4 * 40 = 47.5; SRTT = 7/8 * 100 + 1/8 * 140 = 105; RTO = 105 + 190 = 295.
        assert_eq!(rtt.rttvar, 47_500_000);
        assert_eq!(rtt.srtt, Some(105 * MS));
        assert_eq!(rtt.rto(), 295 * MS);
    }

    #[test]
    fn min_rto_and_backoff() {
        let mut rtt = RttEstimator::new(S, S, 60 * S, MS);
        rtt.on_sample(10 * MS, SendWindow::default());
        assert_eq!(rtt.rto(), S, "10 + 4 * 5 = 30 ms is raised to the 1 s minimum");
        rtt.back_off();
        rtt.back_off();
        assert_eq!(rtt.rto(), 4 * S);
        for _ in 0..10 {
            rtt.back_off();
        }
        assert_eq!(rtt.rto(), 60 * S, "capped at max RTO");
        rtt.on_sample(10 * MS, SendWindow::default());
        assert_eq!(rtt.rto(), S, "a new sample ends the backoff");
    }

    #[test]
    fn linux_formula_adds_the_minimum_to_srtt() {
        let mut rtt = RttEstimator::with_formula(200 * MS, S, 60 * S, MS, RtoFormula::Linux);
        rtt.on_sample(40 * MS, SendWindow::default());
        // 4 x deviation = 80 ms: 40 + max(80, 200) = 240 ms (RFC 6298: max(40 + 80, 200) = 200 ms).
        assert_eq!(rtt.rto(), 240 * MS);
        rtt.on_sample(400 * MS, SendWindow::default());
        // 4 x deviation = 80 - 20 + 360 = 420 ms, SRTT = 35 + 50 = 85: 85 + 420 = 505 ms.
        assert_eq!(rtt.rto(), 505 * MS);
    }
}
