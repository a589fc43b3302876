//! What can happen to a packet on a link's wire after it leaves the transmitter: random loss
//! (Bernoulli or Gilbert-Elliott), extra delay (jitter: uniform, normal, a drifting delay or HARQ
//! retransmissions) and outages. A channel draws them from its own random stream.

use rand_distr::{Distribution, Normal};

use crate::sim::{unit_f64, SimRng};
use crate::time::{SimDuration, SimTime};

/// Random loss on the wire, decided per packet as it leaves the transmitter.
#[derive(Clone, Debug, Default)]
pub enum LossModel {
    #[default]
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
    /// HARQ retransmissions of a transport block or of each packet.
    Harq(Harq),
}

/// HARQ retransmissions: each attempt fails with probability `failure`, and each failure adds
/// `retransmission_delay` ns, at most `max_retransmissions` times (after that the data goes on,
/// as RLC would retransmit it above HARQ).
#[derive(Clone, Debug)]
pub struct Harq {
    failure: f64,
    retransmission_delay: SimDuration,
    max_retransmissions: u32,
    /// Slot length in ns when every packet leaving in one slot shares the outcome (one transport
    /// block per slot); None draws per packet.
    slot: Option<SimDuration>,
    /// The slot (departure / slot length) drawn last and the delay it drew. Departures from one
    /// transmitter never go back in time, so only the latest slot is needed.
    current: Option<(u64, SimDuration)>,
}

impl Harq {
    /// `slot` must be above zero when given (validated with the scenario).
    pub fn new(
        failure: f64,
        retransmission_delay: SimDuration,
        max_retransmissions: u32,
        slot: Option<SimDuration>,
    ) -> Self {
        Self { failure, retransmission_delay, max_retransmissions, slot, current: None }
    }

    fn draw(&self, rng: &mut SimRng) -> SimDuration {
        let mut retransmissions = 0;
        while retransmissions < self.max_retransmissions && unit_f64(rng) < self.failure {
            retransmissions += 1;
        }
        retransmissions as SimDuration * self.retransmission_delay
    }

    fn sample(&mut self, rng: &mut SimRng, departure: SimTime) -> SimDuration {
        let Some(slot) = self.slot else {
            return self.draw(rng);
        };
        let index = departure / slot;
        match self.current {
            Some((drawn, delay)) if drawn == index => delay,
            _ => {
                let delay = self.draw(rng);
                self.current = Some((index, delay));
                delay
            }
        }
    }
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
            JitterDistribution::Harq(harq) => harq.sample(rng, departure),
        }
    }
}

/// A window during which every packet leaving the transmitter is lost (a link outage or loss burst).
#[derive(Clone, Copy, Debug)]
pub struct Outage {
    pub start: SimTime,
    pub end: SimTime,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{rng_stream, StreamKind};
    use crate::time::NANOS_PER_MILLI as MS;

    #[test]
    fn harq_per_slot_shares_one_draw_within_a_slot_and_draws_afresh_in_the_next() {
        // Failure 1/2, 8 ms per retransmission, at most 3: a slot's delay is 0, 8, 16 or 24 ms
        // with probabilities 1/2, 1/4, 1/8 and 1/8.
        let mut per_slot = Harq::new(0.5, 8 * MS, 3, Some(MS));
        let mut per_packet = Harq::new(0.5, 8 * MS, 3, None);
        let mut slot_rng = rng_stream(7, 0, StreamKind::Channel, 0);
        let mut packet_rng = rng_stream(7, 0, StreamKind::Channel, 0);
        let mut counts = [0u32; 4];
        // Every other slot is empty: a slot with no departure draws nothing.
        for slot in (0..4000).step_by(2) {
            // Departures at the slot's first nanosecond, its middle and its last nanosecond.
            let delays: Vec<SimDuration> =
                [0, MS / 2, MS - 1].iter().map(|offset| per_slot.sample(&mut slot_rng, slot * MS + offset)).collect();
            assert!(delays.iter().all(|&d| d == delays[0]), "slot {slot}: {delays:?}");
            // The slot took exactly one draw from the stream, the one a lone packet takes, so
            // slots are as independent of each other as packets are.
            assert_eq!(delays[0], per_packet.sample(&mut packet_rng, slot * MS), "slot {slot}");
            counts[(delays[0] / (8 * MS)) as usize] += 1;
        }
        // 2000 slots: expected 1000, 500, 250 and 250 (standard deviations 22, 19, 15, 15).
        for (count, expected) in counts.iter().zip([1000.0, 500.0, 250.0, 250.0]) {
            assert!((*count as f64 - expected).abs() < 80.0, "{counts:?}");
        }
    }
}
