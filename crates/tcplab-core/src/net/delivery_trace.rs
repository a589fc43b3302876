//! A trace-driven transmitter: the link delivers only at the times a trace lists, as mahimahi's
//! link shell does (Netravali et al., "Mahimahi: Accurate Record-and-Replay for HTTP", USENIX ATC
//! 2015, and the mahimahi `mm-link` manual page).
//!
//! The mahimahi format: one line per delivery opportunity, the time in milliseconds (an integer)
//! since the trace began, lines in non-decreasing order; several lines with the same time are
//! several opportunities in that millisecond. Each opportunity carries up to 1500 bytes. When the
//! trace ends it starts again, shifted by its last timestamp (the period). As in mahimahi, an
//! opportunity nobody is waiting for is lost, a packet larger than what is left of an opportunity
//! takes the rest and continues in the next one, and packets smaller than an opportunity share it.

use crate::time::{SimDuration, SimTime, NANOS_PER_MILLI};

/// Bytes one delivery opportunity carries (mahimahi's MTU-sized opportunity).
pub const OPPORTUNITY_BYTES: u64 = 1500;

/// Parses a mahimahi trace into opportunity times in nanoseconds since the trace began.
pub fn parse_mahimahi(text: &str) -> Result<Vec<SimDuration>, String> {
    let mut times = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let ms: u64 = line.parse().map_err(|_| {
            format!("line {}: '{line}' is not a time in whole milliseconds (one integer per line)", index + 1)
        })?;
        if times.last().is_some_and(|&last| ms * NANOS_PER_MILLI < last) {
            return Err(format!("line {}: {ms} ms comes before the line above it; times must not decrease", index + 1));
        }
        times.push(ms.checked_mul(NANOS_PER_MILLI).ok_or_else(|| format!("line {}: {ms} ms is too large", index + 1))?);
    }
    match times.last() {
        None => Err("the trace has no delivery opportunities (no lines)".into()),
        Some(0) => Err("the last line must be more than 0 ms: it is the period the trace repeats with".into()),
        Some(_) => Ok(times),
    }
}

/// Reads and parses a mahimahi trace file; the error names the file and the line.
pub fn read_mahimahi(path: &str) -> Result<Vec<u64>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read trace file '{path}': {e}"))?;
    parse_mahimahi(&text).map_err(|e| format!("'{path}' is not a mahimahi trace: {e}"))
}

/// Opportunity times repeating with a period, and which of them the transmitter has used.
#[derive(Clone, Debug)]
pub struct DeliveryTrace {
    /// Times within one period, non-decreasing; the last equals the period.
    offsets: Vec<SimDuration>,
    period: SimDuration,
    /// The latest opportunity used (an index counted over all repetitions) and the bytes it has left.
    current: u64,
    bytes_left: u64,
}

impl DeliveryTrace {
    /// `offsets` as [`parse_mahimahi`] returns them: non-empty, non-decreasing, last above zero.
    pub fn new(offsets: Vec<SimDuration>) -> Self {
        let period = *offsets.last().expect("a trace has at least one opportunity");
        assert!(period > 0, "a trace's period is more than zero");
        Self { offsets, period, current: 0, bytes_left: OPPORTUNITY_BYTES }
    }

    /// Bits per second the trace offers on average over one period.
    pub fn mean_rate_bps(&self) -> u64 {
        (self.offsets.len() as u128 * OPPORTUNITY_BYTES as u128 * 8 * 1_000_000_000 / self.period as u128) as u64
    }

    /// The time of opportunity `k` (counted over all repetitions).
    fn time_of(&self, k: u64) -> SimTime {
        let n = self.offsets.len() as u64;
        (k / n) * self.period + self.offsets[(k % n) as usize]
    }

    /// The first opportunity at or after `now`.
    fn first_at_or_after(&self, now: SimTime) -> u64 {
        let n = self.offsets.len() as u64;
        let repetition = now / self.period;
        let within = now - repetition * self.period;
        let mut k = repetition * n + self.offsets.partition_point(|&t| t < within) as u64;
        // The previous repetition's last opportunities (all lines equal to the period) fall
        // exactly on this one's start; there may be several.
        while k > 0 && self.time_of(k - 1) >= now {
            k -= 1;
        }
        k
    }

    /// A packet of `bytes` starts at `now` with the transmitter free: returns when its last byte
    /// has been delivered, and marks the opportunities it used.
    pub fn send(&mut self, now: SimTime, bytes: u64) -> SimTime {
        let mut k = self.first_at_or_after(now);
        let mut left = match k.cmp(&self.current) {
            std::cmp::Ordering::Greater => OPPORTUNITY_BYTES,
            _ => {
                k = self.current;
                self.bytes_left
            }
        };
        let mut remaining = bytes.max(1);
        loop {
            if left == 0 {
                k += 1;
                left = OPPORTUNITY_BYTES;
            }
            let taken = remaining.min(left);
            remaining -= taken;
            left -= taken;
            if remaining == 0 {
                break;
            }
        }
        self.current = k;
        self.bytes_left = left;
        self.time_of(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = NANOS_PER_MILLI;

    #[test]
    fn a_hand_written_trace_is_read_as_mahimahi_reads_it() {
        // Two opportunities at 2 ms, one at 5 ms, one at 10 ms; then again from 12 ms.
        let offsets = parse_mahimahi("2\n2\n5\n\n10\n").unwrap();
        assert_eq!(offsets, vec![2 * MS, 2 * MS, 5 * MS, 10 * MS]);
        let mut trace = DeliveryTrace::new(offsets);
        assert_eq!(trace.mean_rate_bps(), 4 * 1500 * 8 * 100); // 4 opportunities per 10 ms
        let done: Vec<SimTime> = (0..6).map(|_| trace.send(0, 1500)).collect();
        assert_eq!(done, vec![2 * MS, 2 * MS, 5 * MS, 10 * MS, 12 * MS, 12 * MS]);
    }

    #[test]
    fn small_packets_share_an_opportunity_and_large_ones_span_two() {
        let mut trace = DeliveryTrace::new(parse_mahimahi("1").unwrap());
        // Three 500-byte packets fill the 1 ms opportunity; the fourth waits for 2 ms.
        let small: Vec<SimTime> = (0..4).map(|_| trace.send(0, 500)).collect();
        assert_eq!(small, vec![MS, MS, MS, 2 * MS]);
        // 1000 bytes are left at 2 ms: a 1500-byte packet takes them and 500 of the 3 ms one.
        assert_eq!(trace.send(2 * MS, 1500), 3 * MS);
    }

    #[test]
    fn an_opportunity_nobody_waited_for_is_lost() {
        let mut trace = DeliveryTrace::new(parse_mahimahi("1").unwrap());
        assert_eq!(trace.send(0, 100), MS);
        // The rest of the 1 ms opportunity cannot serve a packet that arrives at 1.5 ms.
        assert_eq!(trace.send(MS + MS / 2, 100), 2 * MS);
        // A packet arriving exactly at an opportunity uses it.
        assert_eq!(trace.send(5 * MS, 1500), 5 * MS);
    }

    #[test]
    fn every_opportunity_at_the_period_boundary_is_used() {
        // Three opportunities at 30 ms, the period: a transmitter that is free again at 30 ms
        // still finds the second and third there.
        let mut trace = DeliveryTrace::new(parse_mahimahi("30\n30\n30\n").unwrap());
        let done: Vec<SimTime> = [0, 30, 30, 30].iter().map(|&at| trace.send(at * MS, 1500)).collect();
        assert_eq!(done, vec![30 * MS, 30 * MS, 30 * MS, 60 * MS]);
    }

    #[test]
    fn bad_traces_are_refused_with_the_line() {
        assert!(parse_mahimahi("1\nx\n").unwrap_err().starts_with("line 2:"));
        assert!(parse_mahimahi("5\n3\n").unwrap_err().contains("must not decrease"));
        assert!(parse_mahimahi("").is_err());
        assert!(parse_mahimahi("0\n0\n").is_err());
        assert!(parse_mahimahi("-1\n").is_err());
    }
}
