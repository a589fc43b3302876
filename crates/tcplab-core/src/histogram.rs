//! The distribution of a delay (an RTT, a queueing delay) in memory that does not grow with the
//! number of samples or with simulated time: an HDR histogram at microsecond resolution with three
//! significant figures, plus the exact sum for the mean.
//!
//! Memory matters because every flow and every link direction keeps one: a 1,000-flow dumbbell has
//! 1,000 RTT and 4,002 queueing-delay distributions. So the histogram counts in `u32` (4 bytes a
//! bucket; a count saturates at 4.29 billion samples in one bucket rather than wrapping) and zero
//! delays, which most links see for every packet (an access link whose queue never builds), are
//! counted apart: the histogram itself is only allocated once a non-zero delay arrives. Quantiles
//! are those of the full distribution, zeros included, exactly as one histogram of every sample
//! would give them.

use hdrhistogram::Histogram;

use crate::time::{SimDuration, NANOS_PER_MICRO, NANOS_PER_MILLI};

/// Significant figures the histogram keeps (0.1% resolution).
const SIGNIFICANT_FIGURES: u8 = 3;

#[derive(Clone, Debug, Default)]
pub struct DelayHistogram {
    /// Samples below one microsecond.
    zeros: u64,
    /// Samples of one microsecond or more; allocated on the first.
    nonzero_us: Option<Box<Histogram<u32>>>,
    samples: u64,
    sum_ns: u128,
}

impl DelayHistogram {
    pub fn record(&mut self, delay: SimDuration) {
        self.samples += 1;
        self.sum_ns += delay as u128;
        let micros = delay / NANOS_PER_MICRO;
        if micros == 0 {
            self.zeros += 1;
            return;
        }
        let histogram = self.nonzero_us.get_or_insert_with(|| Box::new(new_histogram()));
        // The histogram grows to fit the value; a bucket's count saturates instead of wrapping.
        if histogram.record(micros).is_err() {
            // Only values near 2^63 us cannot be tracked; they are kept at the largest one.
            histogram.saturating_record(micros);
        }
    }

    pub fn len(&self) -> u64 {
        self.samples
    }

    pub fn is_empty(&self) -> bool {
        self.samples == 0
    }

    /// The mean in milliseconds (exact, from the sum in nanoseconds), or NaN without samples.
    pub fn mean_ms(&self) -> f64 {
        if self.samples == 0 {
            f64::NAN
        } else {
            self.sum_ns as f64 / self.samples as f64 / NANOS_PER_MILLI as f64
        }
    }

    /// The `quantile` (0 to 1) in milliseconds at the histogram's resolution, or NaN without
    /// samples.
    pub fn quantile_ms(&self, quantile: f64) -> f64 {
        if self.samples == 0 {
            return f64::NAN;
        }
        let micros = match (&self.nonzero_us, self.zeros) {
            (None, _) => 0,
            (Some(histogram), 0) => histogram.value_at_quantile(quantile),
            (Some(histogram), zeros) => {
                // Counts in u64 here: there may be more zeros than a u32 bucket holds. Each
                // recorded value maps back to its own bucket, so the copy is exact.
                let mut all = Histogram::<u64>::new(SIGNIFICANT_FIGURES).expect("valid precision");
                for bucket in histogram.iter_recorded() {
                    all.record_n(bucket.value_iterated_to(), bucket.count_at_value() as u64)
                        .expect("the value was tracked by a histogram of the same precision");
                }
                all.record_n(0, zeros).expect("zero is always trackable");
                all.value_at_quantile(quantile)
            }
        };
        micros as f64 / 1000.0
    }
}

fn new_histogram() -> Histogram<u32> {
    Histogram::new(SIGNIFICANT_FIGURES).expect("3 significant figures is a valid histogram precision")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_count_the_zeros_kept_apart() {
        let mut delays = DelayHistogram::default();
        // 60 packets that did not wait, 40 that waited 10 ms.
        for _ in 0..60 {
            delays.record(300); // 0.3 us: below the resolution, a zero
        }
        for _ in 0..40 {
            delays.record(10 * NANOS_PER_MILLI);
        }
        assert_eq!(delays.len(), 100);
        assert_eq!(delays.quantile_ms(0.5), 0.0);
        assert_eq!(delays.quantile_ms(0.6), 0.0);
        // 10 ms reads back as the top of its bucket: 8 us wide at 3 significant figures.
        assert_eq!(delays.quantile_ms(0.61), 10.007);
        assert_eq!(delays.quantile_ms(0.99), 10.007);
        // Mean from the exact sum: (60 x 300 ns + 40 x 10 ms) / 100.
        assert!((delays.mean_ms() - (60.0 * 300e-6 + 400.0) / 100.0).abs() < 1e-12);
    }

    #[test]
    fn quantiles_equal_those_of_one_histogram_of_every_sample() {
        let mut delays = DelayHistogram::default();
        let mut reference = Histogram::<u64>::new(SIGNIFICANT_FIGURES).unwrap();
        // A spread of delays from 0 to about 50 ms, a third of them zero.
        let mut state: u64 = 12345;
        for _ in 0..10_000 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let delay = if state >> 62 == 0 { 0 } else { (state >> 40) % (50 * NANOS_PER_MILLI) };
            delays.record(delay);
            reference.record(delay / NANOS_PER_MICRO).unwrap();
        }
        for quantile in [0.0, 0.1, 0.25, 0.3, 0.5, 0.9, 0.95, 0.99, 1.0] {
            assert_eq!(delays.quantile_ms(quantile), reference.value_at_quantile(quantile) as f64 / 1000.0);
        }
    }

    #[test]
    fn no_memory_until_a_delay_is_not_zero_and_nan_when_empty() {
        let mut delays = DelayHistogram::default();
        assert!(delays.quantile_ms(0.5).is_nan());
        assert!(delays.mean_ms().is_nan());
        delays.record(0);
        assert!(delays.nonzero_us.is_none());
        assert_eq!(delays.quantile_ms(0.99), 0.0);
        delays.record(25 * NANOS_PER_MICRO);
        assert!(delays.nonzero_us.is_some());
        assert_eq!(delays.quantile_ms(1.0), 0.025);
    }
}
