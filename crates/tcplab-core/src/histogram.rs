//! The distribution of a delay (an RTT, a queueing delay) in memory that does not grow with the
//! number of samples or with simulated time, plus the exact sum for the mean.
//!
//! The buckets are those of an HDR histogram at microsecond resolution with three significant
//! figures (Gil Tene's HdrHistogram: values below 2048 us exactly, then 1,024 buckets per power of
//! two, so no bucket is wider than 0.1% of its values), and quantiles are read from them by
//! HdrHistogram's rule (the first bucket where the running count reaches ceil(quantile x count),
//! reported as the bucket's highest value), so they are what one `hdrhistogram::Histogram` of
//! every sample would give (the tests compare with that crate). What differs is the storage,
//! because every flow and every link direction keeps a distribution (a 1,000-flow dumbbell has
//! 1,000 RTT and 4,002 queueing-delay distributions):
//! - counts are kept only for the range of buckets between the smallest and the largest delay seen,
//!   plus some slack below the smallest (an RTT between 22 and 44 ms spans about 1,000 buckets,
//!   where a dense histogram from zero has 6,144), a byte each, with a carry kept apart for the
//!   few buckets that reach 256 samples (`BucketCounts`; a count saturates at 4.29 billion
//!   samples in one bucket, as a `u32` does);
//! - zero delays, which most links see for most packets, are counted apart, so a link whose queue
//!   never builds allocates nothing;
//! - the first `LOG_LIMIT` buckets are kept as a list, in the order they came, and turned into
//!   counts only when the list is full. A 10,000-flow dumbbell sees about 80 RTT samples per flow
//!   per simulated second: as a list they take 160 bytes, as counts then in `u32` some 4 KB (an
//!   RTT range of a thousand buckets; a byte a bucket now takes 1 KB): the list took peak RSS from 250 to 168 MB and the run's wall time down by
//!   14% (the scale benchmark, median of ten alternating pairs). Counts built from the list are
//!   those that counting each sample at once would have built, so nothing else changes.

use crate::time::{SimDuration, NANOS_PER_MICRO, NANOS_PER_MILLI};

/// Values below 2^11 us get a bucket each; above, each power of two is split into 2^10 buckets.
const LINEAR_BITS: u32 = 11;
const HALF: u64 = 1 << (LINEAR_BITS - 1);

/// The bucket of a value in microseconds.
fn bucket_of(micros: u64) -> u32 {
    // How many times the value must be halved to fit in the linear range.
    let shift = (64 - (micros | ((1 << LINEAR_BITS) - 1)).leading_zeros()) - LINEAR_BITS;
    // Buckets 0..2048 hold 0..2048 us; then each shift adds 1,024 buckets.
    (((shift as u64) << (LINEAR_BITS - 1)) + (micros >> shift)) as u32
}

/// The smallest value in microseconds that falls in `bucket`.
fn lowest_value_of(bucket: u32) -> u64 {
    let bucket = bucket as u64;
    let shift = (bucket >> (LINEAR_BITS - 1)).saturating_sub(1);
    let within = if bucket < 2 * HALF { bucket } else { (bucket & (HALF - 1)) + HALF };
    within << shift
}

/// Buckets kept as a list before they are counted: 1 KB, what the counts of a flow's RTT range
/// take.
const LOG_LIMIT: usize = 512;

/// The bucket of the largest value (u64::MAX us): 53 halvings, so 53 x 1,024 + 2,047; it fits in
/// the 16 bits a listed bucket takes.
const LARGEST_BUCKET: u32 = (64 - LINEAR_BITS) * (1 << (LINEAR_BITS - 1)) + (1 << LINEAR_BITS) - 1;
const _: () = assert!(LARGEST_BUCKET <= u16::MAX as u32);

#[derive(Clone, Debug)]
enum Buckets {
    /// The buckets of the samples so far, in the order they came (fewer than `LOG_LIMIT`), in 16
    /// bits: no bucket is above `LARGEST_BUCKET`, and a list in 16 bits takes half the memory
    /// (at 10,000 flows each flow's RTT and one-way-delay lists are most of a histogram's bytes).
    Log(Vec<u16>),
    /// Boxed, so that a histogram takes 56 bytes in place (a channel's and a flow's counters
    /// hold one each; 40,004 channels and 20,000 at 10,000 flows), not 96.
    Counted(Box<BucketCounts>),
}

/// Counts of buckets `first_bucket ..`, each kept as its low byte plus, for the few buckets that
/// have counted 256 samples or more, a carry of how many times the byte wrapped: at 1,000 flows
/// most of a flow's thousand RTT buckets hold a few samples each, and counts in `u32` were 15 of
/// the 40 MB the run's heap peaked at (heaptrack on the scale benchmark's `large` size). A
/// bucket's count reads as `u32` counts did: saturated at 4.29 billion samples.
#[derive(Clone, Debug, Default)]
struct BucketCounts {
    first_bucket: u32,
    low: Vec<u8>,
    /// (bucket, count / 256) of the buckets that have wrapped, by bucket.
    carries: Vec<(u32, u32)>,
}

impl BucketCounts {
    #[inline]
    fn add(&mut self, bucket: u32) {
        if self.low.is_empty() || bucket < self.first_bucket || bucket - self.first_bucket >= self.low.len() as u32 {
            self.extend_to(bucket);
        }
        let low = &mut self.low[(bucket - self.first_bucket) as usize];
        *low = low.wrapping_add(1);
        if *low == 0 {
            self.carry(bucket);
        }
    }

    /// The bucket's low byte wrapped: 256 more samples go to its carry.
    #[cold]
    #[inline(never)]
    fn carry(&mut self, bucket: u32) {
        match self.carries.binary_search_by_key(&bucket, |&(carried, _)| carried) {
            Ok(index) => self.carries[index].1 = self.carries[index].1.saturating_add(1),
            Err(index) => self.carries.insert(index, (bucket, 1)),
        }
    }

    fn len(&self) -> usize {
        self.low.len()
    }

    /// Each bucket's count from `first_bucket` on, saturated at `u32::MAX`.
    fn counts(&self) -> impl Iterator<Item = u64> + '_ {
        let mut carries = self.carries.iter().peekable();
        self.low.iter().zip(self.first_bucket..).map(move |(&low, bucket)| {
            let carry = carries.next_if(|&&(carried, _)| carried == bucket).map_or(0, |&(_, carry)| carry);
            (low as u64 + 256 * carry as u64).min(u32::MAX as u64)
        })
    }

    /// Widens the range of kept buckets to include `bucket` (rare once a flow has seen its base
    /// RTT and its largest queue).
    #[cold]
    fn extend_to(&mut self, bucket: u32) {
        if self.low.is_empty() {
            self.first_bucket = bucket;
        } else if bucket < self.first_bucket {
            // A new minimum moves every count. Minima often fall step by step (an RTT while a
            // queue drains), so widen by a quarter of the range at least: empty buckets below the
            // smallest delay change no quantile, and the counts move a few times, not each step.
            let slack = (self.low.len() as u32 / 4).max(16);
            let first = bucket.saturating_sub(slack).max(1);
            let grow = (self.first_bucket - first) as usize;
            self.low.reserve_exact(grow);
            self.low.splice(0..0, std::iter::repeat_n(0, grow));
            self.first_bucket = first;
        }
        let index = (bucket - self.first_bucket) as usize;
        if index >= self.low.len() {
            // Room for a quarter more than needed, not double (`Vec`'s growth): at 1,000 flows
            // the counts of the flows' delays were most of the histograms' bytes, and a maximum
            // rises step by step with a queue, so some room saves reallocations.
            let needed = index + 1 - self.low.len();
            self.low.reserve_exact(needed.max(self.low.len() / 4));
            self.low.resize(index + 1, 0);
        }
    }

    /// The counts of `log`'s buckets, added in its order.
    fn from_log(log: &[u16]) -> Self {
        let mut counted = Self::default();
        for &bucket in log {
            counted.add(bucket as u32);
        }
        counted
    }
}

#[derive(Clone, Debug)]
pub struct DelayHistogram {
    /// Samples below one microsecond.
    zeros: u64,
    /// The buckets of samples of one microsecond or more.
    buckets: Buckets,
    samples: u64,
    /// The sum of the samples in nanoseconds, 128 bits as two halves (low, high): a `u128`
    /// would align the histogram to 16 bytes and pad it by 8.
    sum_ns: [u64; 2],
}

impl Default for DelayHistogram {
    fn default() -> Self {
        Self { zeros: 0, buckets: Buckets::Log(Vec::new()), samples: 0, sum_ns: [0, 0] }
    }
}

impl DelayHistogram {
    /// Counts one delay. Every packet a link sends and every RTT sample is recorded, so counting
    /// is inlined (forced: with the byte counts' carry check the compiler stopped inlining it,
    /// 2.5% more instructions at 10 flows) and listing, which only a distribution's first 511
    /// samples take, is not.
    #[inline(always)]
    pub fn record(&mut self, delay: SimDuration) {
        self.samples += 1;
        let (low, carried) = self.sum_ns[0].overflowing_add(delay);
        self.sum_ns = [low, self.sum_ns[1] + carried as u64];
        let micros = delay / NANOS_PER_MICRO;
        if micros == 0 {
            self.zeros += 1;
            return;
        }
        let bucket = bucket_of(micros);
        match &mut self.buckets {
            Buckets::Counted(counted) => counted.add(bucket),
            Buckets::Log(_) => self.list(bucket),
        }
    }

    /// Adds `bucket` to the list, or counts the list and `bucket` when the list is full.
    #[inline(never)]
    fn list(&mut self, bucket: u32) {
        let Buckets::Log(log) = &mut self.buckets else { unreachable!("only a listing histogram lists") };
        if log.len() + 1 < LOG_LIMIT {
            if log.len() == log.capacity() {
                // Grow fourfold (8, 32, 128, 511 buckets), not twofold: a 10,000-flow run's
                // lists all grow at once, and each growth is a reallocation and a copy.
                let room = (log.len() * 3).clamp(8, LOG_LIMIT - 1 - log.len());
                log.reserve_exact(room);
            }
            log.push(bucket as u16);
            return;
        }
        let mut counted = BucketCounts::from_log(log);
        counted.add(bucket);
        self.buckets = Buckets::Counted(Box::new(counted));
    }

    /// Where the next `record` of a delay of a microsecond or more writes while the samples are
    /// listed (None once they are counted: the bucket depends on the delay), for prefetching.
    pub fn next_listed_address(&self) -> crate::prefetch::Hint {
        match &self.buckets {
            Buckets::Log(log) => crate::prefetch::hint(log.as_ptr().wrapping_add(log.len())),
            Buckets::Counted(_) => None,
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
            let sum_ns = (self.sum_ns[1] as u128) << 64 | self.sum_ns[0] as u128;
            sum_ns as f64 / self.samples as f64 / NANOS_PER_MILLI as f64
        }
    }

    /// The `quantile` (0 to 1) in milliseconds, reported as HdrHistogram does (the highest value
    /// of the quantile's bucket), or NaN without samples.
    pub fn quantile_ms(&self, quantile: f64) -> f64 {
        self.quantiles_ms([quantile])[0]
    }

    /// Several quantiles at once, in milliseconds.
    pub fn quantiles_ms<const N: usize>(&self, quantiles: [f64; N]) -> [f64; N] {
        if self.samples == 0 {
            return [f64::NAN; N];
        }
        match &self.buckets {
            Buckets::Counted(counted) => {
                // The counts themselves, not `samples`: a saturated bucket holds fewer than it
                // was given.
                let total = self.zeros + counted.counts().sum::<u64>();
                quantiles.map(|quantile| self.counted_quantile_micros(counted, quantile, total) as f64 / 1000.0)
            }
            Buckets::Log(log) => {
                // At most 511 buckets: sorted in place on the stack, the quantile's bucket is the
                // sample at its rank (at 10,000 flows, counting each list took a tenth of the
                // time the run's results took).
                let mut sorted = [0u16; LOG_LIMIT];
                let sorted = &mut sorted[..log.len()];
                sorted.copy_from_slice(log);
                sorted.sort_unstable();
                let total = self.zeros + sorted.len() as u64;
                quantiles.map(|quantile| {
                    let rank = quantile_rank(quantile, total);
                    let micros = match rank.checked_sub(self.zeros + 1) {
                        None => 0,
                        Some(index) => reported_value(sorted[index as usize] as u32, quantile),
                    };
                    micros as f64 / 1000.0
                })
            }
        }
    }

    /// HdrHistogram's `value_at_quantile` over counts: the first bucket at which the running
    /// count reaches the quantile's rank.
    fn counted_quantile_micros(&self, counted: &BucketCounts, quantile: f64, total: u64) -> u64 {
        let target = quantile_rank(quantile, total);
        if self.zeros >= target {
            return 0;
        }
        let mut running = self.zeros;
        let bucket = counted
            .counts()
            .position(|count| {
                running += count;
                running >= target
            })
            .map_or(counted.first_bucket + counted.len() as u32 - 1, |offset| counted.first_bucket + offset as u32);
        reported_value(bucket, quantile)
    }
}

/// The rank (1-based) of the sample a quantile (0 to 1) reports among `total`: ceil(quantile x
/// total), at least 1, as HdrHistogram's `value_at_quantile` counts.
fn quantile_rank(quantile: f64, total: u64) -> u64 {
    ((quantile.min(1.0) * total as f64).ceil() as u64).clamp(1, total)
}

/// The value HdrHistogram reports for a quantile whose sample lies in `bucket`: the highest value
/// the bucket holds (its lowest for the 0 quantile).
fn reported_value(bucket: u32, quantile: f64) -> u64 {
    if quantile == 0.0 {
        lowest_value_of(bucket)
    } else {
        lowest_value_of(bucket + 1) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::Histogram;

    /// The buckets' precision as HdrHistogram states it: three significant figures.
    const SIGNIFICANT_FIGURES: u8 = 3;

    /// Records `delays` (ns) into both and checks that every quantile agrees.
    fn assert_quantiles_match_the_reference(delays: impl Iterator<Item = SimDuration>) {
        let mut histogram = DelayHistogram::default();
        let mut reference = Histogram::<u64>::new(SIGNIFICANT_FIGURES).unwrap();
        for delay in delays {
            histogram.record(delay);
            reference.record(delay / NANOS_PER_MICRO).unwrap();
        }
        let quantiles = [0.0, 1e-6, 0.1, 0.25, 0.3, 0.5, 0.9, 0.95, 0.99, 0.999999, 1.0, 1.5];
        for quantile in quantiles {
            let expected = reference.value_at_quantile(quantile) as f64 / 1000.0;
            assert_eq!(histogram.quantile_ms(quantile), expected, "quantile {quantile}");
        }
        assert_eq!(histogram.quantiles_ms(quantiles), quantiles.map(|q| histogram.quantile_ms(q)));
    }

    /// A reproducible pseudo-random sequence (a 64-bit LCG's high bits).
    fn pseudo_random(mut state: u64) -> impl Iterator<Item = u64> {
        std::iter::repeat_with(move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 11
        })
    }

    #[test]
    fn counts_carry_past_a_byte_and_read_back_whole() {
        // 1,000 samples in one bucket and 300 in the next (each wraps its byte), 5 in a third:
        // the quantiles still follow one histogram of every sample, so the carries count.
        let delays = (0..1000)
            .map(|_| 30 * NANOS_PER_MILLI)
            .chain((0..300).map(|_| 31 * NANOS_PER_MILLI))
            .chain((0..5).map(|_| 29 * NANOS_PER_MILLI));
        assert_quantiles_match_the_reference(delays.clone());
        let mut counted = BucketCounts::default();
        for delay in delays {
            counted.add(bucket_of(delay / NANOS_PER_MICRO));
        }
        assert_eq!(counted.carries, [(bucket_of(30_000), 3), (bucket_of(31_000), 1)]);
        let count = |bucket: u32| counted.counts().nth((bucket - counted.first_bucket) as usize);
        assert_eq!(count(bucket_of(30_000)), Some(1000));
        assert_eq!(count(bucket_of(31_000)), Some(300));
        assert_eq!(count(bucket_of(29_000)), Some(5));
        assert_eq!(counted.counts().sum::<u64>(), 1305);
    }

    #[test]
    fn the_sum_carries_into_its_high_half_and_the_mean_is_exact() {
        let mut delays = DelayHistogram::default();
        delays.record(u64::MAX);
        delays.record(u64::MAX);
        assert_eq!(delays.sum_ns, [u64::MAX - 1, 1]);
        assert_eq!(delays.mean_ms(), u64::MAX as f64 / NANOS_PER_MILLI as f64);
        assert_eq!(std::mem::size_of::<DelayHistogram>(), 56);
    }

    #[test]
    fn a_count_saturates_as_a_u32_did() {
        let mut counted = BucketCounts::default();
        counted.add(100);
        // More carries than 4.29 billion samples need: the count reads as the largest u32.
        counted.carries.push((100, u32::MAX / 256 + 1));
        assert_eq!(counted.counts().next(), Some(u32::MAX as u64));
    }

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
        // Delays from 0 to 50 ms, a quarter of them zero.
        let spread = pseudo_random(12345).map(|r| if r % 4 == 0 { 0 } else { (r >> 2) % (50 * NANOS_PER_MILLI) });
        assert_quantiles_match_the_reference(spread.take(10_000));
        // From 1 us to 17 s, uniform in the logarithm: every power of two's buckets.
        let wide = pseudo_random(7).map(|r| {
            let power_of_two = 1 << (r % 24);
            (power_of_two + (r >> 8) % power_of_two) * NANOS_PER_MICRO + (r >> 40) % NANOS_PER_MICRO
        });
        assert_quantiles_match_the_reference(wide.take(10_000));
        // Still listed (fewer than `LOG_LIMIT` samples of a microsecond or more): read by rank.
        assert_quantiles_match_the_reference(pseudo_random(12345).map(|r| (r >> 2) % (50 * NANOS_PER_MILLI)).take(300));
        assert_quantiles_match_the_reference(
            pseudo_random(99).map(|r| if r % 3 == 0 { 0 } else { r % 1_000_000 }).take(700),
        );
        // Zeros only; one value; a zero and one value.
        assert_quantiles_match_the_reference(std::iter::repeat_n(0, 5));
        assert_quantiles_match_the_reference(std::iter::once(3 * NANOS_PER_MILLI));
        assert_quantiles_match_the_reference([0, 3 * NANOS_PER_MILLI].into_iter());
    }

    /// Bytes the histogram holds outside itself.
    fn heap_bytes(histogram: &DelayHistogram) -> usize {
        match &histogram.buckets {
            Buckets::Log(log) => log.capacity() * 2,
            Buckets::Counted(counted) => counted.low.capacity() + counted.carries.capacity() * 8,
        }
    }

    #[test]
    fn the_largest_value_falls_in_the_largest_bucket_which_a_list_holds_in_16_bits() {
        assert_eq!(bucket_of(u64::MAX), LARGEST_BUCKET);
        let mut delays = DelayHistogram::default();
        delays.record(u64::MAX);
        delays.record(NANOS_PER_MICRO);
        assert_eq!(delays.quantile_ms(0.0), 0.001);
        // The listed bucket comes back whole from its 16 bits.
        let largest = bucket_of(u64::MAX / NANOS_PER_MICRO);
        assert!(largest > u16::MAX as u32 / 2);
        assert_eq!(delays.quantile_ms(1.0), reported_value(largest, 1.0) as f64 / 1000.0);
    }

    #[test]
    fn no_memory_until_a_delay_is_not_zero_and_nan_when_empty() {
        let mut delays = DelayHistogram::default();
        assert!(delays.quantile_ms(0.5).is_nan());
        assert!(delays.mean_ms().is_nan());
        delays.record(0);
        assert_eq!(heap_bytes(&delays), 0);
        assert_eq!(delays.quantile_ms(0.99), 0.0);
        delays.record(25 * NANOS_PER_MICRO);
        assert!(matches!(&delays.buckets, Buckets::Log(log) if log == &[25]));
        assert_eq!(delays.quantile_ms(1.0), 0.025);
    }

    #[test]
    fn samples_are_listed_until_the_list_is_full_then_counted() {
        // RTTs from 22 to 44 ms: counted at once, they would take 1,041 buckets (1 KB).
        let rtts = pseudo_random(99).map(|r| (22_000 + r % 22_000) * NANOS_PER_MICRO);
        let mut histogram = DelayHistogram::default();
        let mut reference = Histogram::<u64>::new(SIGNIFICANT_FIGURES).unwrap();
        for (recorded, rtt) in rtts.take(LOG_LIMIT + 100).enumerate() {
            histogram.record(rtt);
            reference.record(rtt / NANOS_PER_MICRO).unwrap();
            let listed = matches!(histogram.buckets, Buckets::Log(_));
            // The 512th sample turns the list into counts.
            assert_eq!(listed, recorded + 1 < LOG_LIMIT, "after {} samples", recorded + 1);
            if recorded + 1 == LOG_LIMIT - 1 {
                // 511 listed buckets in 1 KB (no slack), where the counts take as much.
                assert_eq!(heap_bytes(&histogram), (LOG_LIMIT - 1) * 2);
            }
            if recorded % 97 == 0 {
                assert_eq!(histogram.quantile_ms(0.5), reference.value_at_quantile(0.5) as f64 / 1000.0);
            }
        }
        for quantile in [0.0, 0.5, 0.99, 1.0] {
            assert_eq!(histogram.quantile_ms(quantile), reference.value_at_quantile(quantile) as f64 / 1000.0);
        }
    }

    #[test]
    fn the_next_listed_address_is_one_past_the_list_until_the_samples_are_counted() {
        let mut rtts = DelayHistogram::default();
        rtts.record(0);
        rtts.record(20 * NANOS_PER_MILLI);
        let Buckets::Log(log) = &rtts.buckets else { panic!("one sample is listed") };
        assert_eq!(rtts.next_listed_address().map(|a| a.get()), Some(log.as_ptr_range().end as usize));
        for _ in 0..LOG_LIMIT {
            rtts.record(20 * NANOS_PER_MILLI);
        }
        assert_eq!(rtts.next_listed_address(), None);
    }

    #[test]
    fn counts_widen_by_a_quarter_below_a_new_minimum() {
        // 22 to 44 ms, a typical RTT range, spans one power of two: 1,024 buckets (44 ms is bucket
        // 5 x 1024 + 44000 / 32 = 6495, 22 ms is 4 x 1024 + 22000 / 16 = 5471), and a new minimum
        // adds 16 empty ones below it, or a quarter of the range when that is more: 21 ms (bucket
        // 5408) widens the range down to 5408 - 1041 / 4 = 5148.
        let mut counted = BucketCounts::default();
        counted.add(bucket_of(44_000));
        counted.add(bucket_of(22_000));
        assert_eq!(counted.len(), 6495 - (5471 - 16) + 1);
        counted.add(bucket_of(21_000));
        assert_eq!(counted.len(), 6495 - 5148 + 1);
        // The empty buckets change no quantile (reported as HdrHistogram does: the lowest value of
        // the bucket for the minimum, the highest for the maximum).
        let rtts =
            DelayHistogram { zeros: 0, buckets: Buckets::Counted(Box::new(counted)), samples: 3, sum_ns: [0, 0] };
        assert_eq!(rtts.quantiles_ms([0.0, 1.0]), [20.992, 44.031]);
    }

    #[test]
    fn buckets_are_hdr_buckets() {
        // Every value maps to a bucket whose lowest value HdrHistogram counts as equivalent to it.
        let reference = Histogram::<u64>::new(SIGNIFICANT_FIGURES).unwrap();
        for micros in (1..5000).chain((5000..100_000_000).step_by(9973)) {
            let bucket = bucket_of(micros);
            assert_eq!(lowest_value_of(bucket), reference.lowest_equivalent(micros), "value {micros} us");
            assert_eq!(bucket_of(lowest_value_of(bucket)), bucket);
        }
    }
}
