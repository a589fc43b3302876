//! Simulation time: integer nanoseconds since the start of a run.
//!
//! Plain `u64` aliases keep arithmetic on the hot path free of wrapper noise; the names say which
//! quantity a value is. 2^64 ns is about 584 years, so overflow is not a practical concern.

/// An instant, in nanoseconds since the simulation started.
pub type SimTime = u64;
/// A span of time, in nanoseconds.
pub type SimDuration = u64;

pub const NANOS_PER_MICRO: u64 = 1_000;
pub const NANOS_PER_MILLI: u64 = 1_000_000;
pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// Time to serialise `bytes` onto a link of `rate_bps`, rounded up to whole nanoseconds so that a
/// link never transmits faster than its rate.
#[inline]
pub fn transmission_time(bytes: u64, rate_bps: u64) -> SimDuration {
    match bytes.checked_mul(8 * NANOS_PER_SEC) {
        // Up to 2.3 GB: one 64-bit division. A 128-bit one is a library call several times as
        // slow, and this runs for every packet on every link.
        Some(bit_nanos) => bit_nanos.div_ceil(rate_bps),
        None => (bytes as u128 * 8 * NANOS_PER_SEC as u128).div_ceil(rate_bps as u128) as SimDuration,
    }
}

/// `a x b / c` rounded down, in 64-bit arithmetic when the product fits (one hardware division
/// instead of a 128-bit library call) and in 128-bit otherwise; a quotient beyond `u64` is cut
/// to its low 64 bits, as `as u64` does.
#[inline]
pub fn mul_div(a: u64, b: u64, c: u64) -> u64 {
    match a.checked_mul(b) {
        Some(product) => product / c,
        None => (a as u128 * b as u128 / c as u128) as u64,
    }
}

/// Seconds as a float, for reporting only (never for simulation state).
#[inline]
pub fn as_secs_f64(t: SimDuration) -> f64 {
    t as f64 / NANOS_PER_SEC as f64
}

/// Milliseconds as a float, for reporting only.
#[inline]
pub fn as_millis_f64(t: SimDuration) -> f64 {
    t as f64 / NANOS_PER_MILLI as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_of_a_full_packet_at_one_gigabit() {
        // 1500 B = 12 000 bit; at 1e9 bit/s that is 12 us.
        assert_eq!(transmission_time(1500, 1_000_000_000), 12_000);
        // 52 B at 3 bit/s = 138.666 s, rounded up to the next nanosecond.
        assert_eq!(transmission_time(52, 3), 138_666_666_667);
        // 3 GB: the product leaves 64 bits; 24e9 bit at 1 Gbit/s is 24 s.
        assert_eq!(transmission_time(3_000_000_000, 1_000_000_000), 24 * NANOS_PER_SEC);
    }

    #[test]
    fn mul_div_agrees_with_128_bit_arithmetic_on_both_sides_of_the_64_bit_product() {
        assert_eq!(mul_div(1_448 * 8, NANOS_PER_SEC, 22_000_000), 526_545);
        let (a, b, c) = (u64::MAX / 3, 6, 4);
        assert_eq!(mul_div(a, b, c), (a as u128 * b as u128 / c as u128) as u64);
    }
}
