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
    let bits = bytes as u128 * 8 * NANOS_PER_SEC as u128;
    bits.div_ceil(rate_bps as u128) as SimDuration
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
    }
}
