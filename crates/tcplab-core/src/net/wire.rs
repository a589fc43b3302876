//! What can happen to a packet on a link's wire after it leaves the transmitter: random loss
//! (Bernoulli or Gilbert-Elliott), extra delay (jitter: uniform, normal, a drifting delay or HARQ
//! retransmissions) and outages. A channel draws them from its own random stream.

use rand_distr::{Distribution, Normal};

use crate::sim::{unit_f64, SimRng};
use crate::time::{SimDuration, SimTime};

/// Random loss on the wire, decided per packet as it leaves the transmitter.
#[derive(Clone, Debug)]
pub enum LossModel {
    None,
    Bernoulli {
        probability: f64,
    },
    /// Two-state Markov chain (Gilbert-Elliott): per packet, lose it with the current state's
    /// probability, then move between states.
    GilbertElliott {
        good_to_bad: f64,
        bad_to_good: f64,
        loss_in_good: f64,
        loss_in_bad: f64,
        in_bad: bool,
    },
}

impl LossModel {
    pub(crate) fn loses(&mut self, rng: &mut SimRng) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { probability } => unit_f64(rng) < *probability,
            LossModel::GilbertElliott { good_to_bad, bad_to_good, loss_in_good, loss_in_bad, in_bad } => {
                let lost = unit_f64(rng) < if *in_bad { *loss_in_bad } else { *loss_in_good };
                let switch = unit_f64(rng) < if *in_bad { *bad_to_good } else { *good_to_bad };
                if switch {
                    *in_bad = !*in_bad;
                }
                lost
            }
        }
    }
}

/// Extra per-packet propagation delay.
#[derive(Clone, Debug)]
pub struct Jitter {
    pub distribution: JitterDistribution,
    /// When false a packet never overtakes the one sent before it (it is held until that one
    /// arrives), so jitter changes delay but not order.
    pub reorder: bool,
}

#[derive(Clone, Debug)]
pub enum JitterDistribution {
    /// Uniform in [0, max] nanoseconds.
    Uniform { max: SimDuration },
    /// Normal with this mean and standard deviation (ns), clamped at zero.
    Normal(Normal<f64>),
    /// A delay that moves linearly between values drawn uniformly from [min, max] every `interval`
    /// ns. With interval >= max - min it changes no faster than time passes, so it never reorders
    /// and, unlike a held FIFO, never raises the mean: the mean stays (min + max) / 2.
    Drift(Drift),
    /// HARQ retransmissions: each attempt fails with probability `failure`, and each failure adds
    /// `retransmission_delay` ns, at most `max_retransmissions` times (after that the packet goes
    /// on, as RLC would retransmit it above HARQ).
    Harq { failure: f64, retransmission_delay: SimDuration, max_retransmissions: u32 },
}

/// The state of a drifting delay: the knots before and after the current time.
#[derive(Clone, Debug)]
pub struct Drift {
    min: SimDuration,
    max: SimDuration,
    interval: SimDuration,
    /// (time, delay) of the knot at or before the last sample, and of the next one.
    previous: Option<((SimTime, f64), (SimTime, f64))>,
}

impl Drift {
    pub fn new(min: SimDuration, max: SimDuration, interval: SimDuration) -> Self {
        Self { min, max, interval: interval.max(1), previous: None }
    }

    /// (min, max, interval) in ns, for a back-end that draws the knots itself.
    pub fn bounds(&self) -> (SimDuration, SimDuration, SimDuration) {
        (self.min, self.max, self.interval)
    }

    fn knot_value(&self, rng: &mut SimRng) -> f64 {
        self.min as f64 + unit_f64(rng) * (self.max - self.min) as f64
    }

    fn sample(&mut self, rng: &mut SimRng, at: SimTime) -> SimDuration {
        let (mut before, mut after) = match self.previous {
            Some(knots) => knots,
            None => ((0, self.knot_value(rng)), (self.interval, self.knot_value(rng))),
        };
        while at >= after.0 {
            before = after;
            after = (after.0 + self.interval, self.knot_value(rng));
        }
        self.previous = Some((before, after));
        let fraction = (at - before.0) as f64 / (after.0 - before.0) as f64;
        (before.1 + (after.1 - before.1) * fraction).round() as SimDuration
    }
}

impl Jitter {
    pub(crate) fn sample(&mut self, rng: &mut SimRng, departure: SimTime) -> SimDuration {
        match &mut self.distribution {
            JitterDistribution::Uniform { max } => (unit_f64(rng) * (*max as f64 + 1.0)).floor() as SimDuration,
            JitterDistribution::Normal(normal) => normal.sample(rng).max(0.0).round() as SimDuration,
            JitterDistribution::Drift(drift) => drift.sample(rng, departure),
            JitterDistribution::Harq { failure, retransmission_delay, max_retransmissions } => {
                let mut retransmissions = 0;
                while retransmissions < *max_retransmissions && unit_f64(rng) < *failure {
                    retransmissions += 1;
                }
                retransmissions as SimDuration * *retransmission_delay
            }
        }
    }
}

/// A window during which every packet leaving the transmitter is lost (a link outage or loss burst).
#[derive(Clone, Copy, Debug)]
pub struct Outage {
    pub start: SimTime,
    pub end: SimTime,
}
