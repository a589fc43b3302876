//! Linux's variance term of the retransmission timeout (net/ipv4/tcp_input.c
//! `tcp_rtt_estimator`, `__tcp_set_rto`), for `RtoFormula::Linux`.
//!
//! Linux keeps SRTT as RFC 6298 does, but its variance term differs in three ways, all of which
//! make the timer slower to shrink:
//! - The mean deviation (`mdev_us`, kept as 4 x the deviation, as here) moves by a quarter of
//!   the error, except that a sample below SRTT by more than the deviation moves it by only an
//!   eighth of that excess (a falling RTT should not raise the timer much).
//! - The term added to SRTT (`rttvar_us`) is the largest deviation seen in the current round
//!   trip (`mdev_max_us`, which starts each round at the minimum RTO): it rises at once with it,
//!   but falls only when a round trip ends (snd_una passes `rtt_seq`, the snd_nxt when the round
//!   began), and then by a quarter of the gap.
//! - RTO = SRTT + that term, so the minimum RTO is added to SRTT rather than bounding the sum.
//!
//! So when the RTT climbs in steps (a queue filling in slow start) the timer keeps the step
//! for a round trip, where RFC 6298's variance has decayed within the window's ACKs: the
//! difference between spurious timeouts and none (issue 32, docs/linux-fidelity.md).

use crate::time::SimDuration;

/// How far the sender's window reached when a sample was taken: what bounds Linux's variance
/// rounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendWindow {
    /// The first byte not yet acknowledged, after the ACK that gave the sample (snd_una).
    pub una: u64,
    /// The next byte to send (snd_nxt).
    pub nxt: u64,
}

#[derive(Clone, Debug, Default)]
pub struct LinuxRttVar {
    /// 4 x the mean deviation (`mdev_us`), nanoseconds.
    mdev4: SimDuration,
    /// The largest `mdev4` in this round trip, at least the minimum RTO (`mdev_max_us`).
    round_max: SimDuration,
    /// The term added to SRTT (`rttvar_us`), nanoseconds.
    term: SimDuration,
    /// The round trip ends when snd_una passes this (`rtt_seq`).
    round_end: u64,
}

impl LinuxRttVar {
    /// The first sample: a deviation of half the RTT (so RTO = 3 RTT), at least the minimum RTO.
    pub fn first(sample: SimDuration, min_rto: SimDuration, window: SendWindow) -> Self {
        let mdev4 = 2 * sample;
        let term = mdev4.max(min_rto);
        Self { mdev4, round_max: term, term, round_end: window.nxt }
    }

    /// A later sample; `srtt` is SRTT before it.
    pub fn update(&mut self, srtt: SimDuration, sample: SimDuration, window: SendWindow, min_rto: SimDuration) {
        let quarter = self.mdev4 / 4;
        if sample >= srtt {
            self.mdev4 = self.mdev4 - quarter + (sample - srtt);
        } else {
            let below = srtt - sample;
            self.mdev4 = match below.checked_sub(quarter) {
                Some(excess) if excess > 0 => self.mdev4 + excess / 8,
                _ => self.mdev4 - quarter + below,
            };
        }
        if self.mdev4 > self.round_max {
            self.round_max = self.mdev4;
            self.term = self.term.max(self.round_max);
        }
        if window.una > self.round_end {
            if self.round_max < self.term {
                self.term -= (self.term - self.round_max) / 4;
            }
            self.round_end = window.nxt;
            self.round_max = min_rto;
        }
    }

    /// What Linux adds to SRTT for the RTO.
    pub fn term(&self) -> SimDuration {
        self.term
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MILLI as MS;

    const MIN_RTO: SimDuration = 200 * MS;

    fn window(una: u64, nxt: u64) -> SendWindow {
        SendWindow { una, nxt }
    }

    #[test]
    fn the_first_sample_gives_three_rtts_or_the_minimum() {
        assert_eq!(LinuxRttVar::first(40 * MS, MIN_RTO, window(0, 0)).term(), MIN_RTO);
        assert_eq!(LinuxRttVar::first(150 * MS, MIN_RTO, window(0, 0)).term(), 300 * MS);
    }

    #[test]
    fn a_step_up_holds_for_the_round_then_falls_by_a_quarter_of_the_gap() {
        // SRTT 100 ms, mdev4 = 200 ms (term 200 ms), the round ends when snd_una passes 10.
        let mut var = LinuxRttVar::first(100 * MS, MIN_RTO, window(0, 10));
        // A step to 300 ms: mdev4 = 200 - 50 + 200 = 350 ms, the term rises at once.
        var.update(100 * MS, 300 * MS, window(5, 20), MIN_RTO);
        assert_eq!(var.term(), 350 * MS);
        // Samples equal to SRTT within the round: mdev4 falls (262.5, 196.875 ms), the term stays.
        var.update(300 * MS, 300 * MS, window(6, 20), MIN_RTO);
        var.update(300 * MS, 300 * MS, window(7, 20), MIN_RTO);
        assert_eq!(var.term(), 350 * MS);
        // snd_una passes 10: the round ends; its largest mdev4 was 350 = the term, so no fall yet,
        // and the next round's maximum starts at the minimum RTO.
        var.update(300 * MS, 300 * MS, window(11, 30), MIN_RTO);
        assert_eq!(var.term(), 350 * MS);
        // The next round's largest mdev4 is its floor, 200 ms (mdev4 keeps falling below it):
        // 350 - (350 - 200) / 4 = 312.5 ms when it ends.
        var.update(300 * MS, 300 * MS, window(31, 40), MIN_RTO);
        assert_eq!(var.term(), 312_500_000);
    }

    #[test]
    fn a_sample_below_srtt_by_more_than_the_deviation_moves_it_by_an_eighth() {
        let mut var = LinuxRttVar::first(100 * MS, MIN_RTO, window(0, 10));
        // mdev4 200 ms (quarter 50): a sample 130 ms below SRTT exceeds it by 80 ms, so
        // mdev4 = 200 + 80 / 8 = 210 ms; RFC 6298 would give 3/4 x 200 + 130 = 280 ms.
        var.update(200 * MS, 70 * MS, window(1, 10), MIN_RTO);
        assert_eq!(var.mdev4, 210 * MS);
        // 20 ms below (less than the quarter): 210 - 52.5 + 20 = 177.5 ms.
        var.update(200 * MS, 180 * MS, window(2, 10), MIN_RTO);
        assert_eq!(var.mdev4, 177_500_000);
    }
}
