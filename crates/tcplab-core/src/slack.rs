//! Giving back the room a FIFO grew into for a burst once the burst has drained.
//!
//! A `VecDeque` keeps the largest capacity it ever reached. The FIFOs a flow owns (its sender's
//! scoreboard, its access links' wires and queues) grow to a slow-start burst of hundreds of
//! packets and then hold a few: at 1,000 flows the capacities they kept were 19 of the 52 MB
//! peak (heaptrack on the scale benchmark's `large` size), where the entries alive at once took
//! about 3 MB. Halving a FIFO's capacity once it is a quarter full keeps each within four times
//! what it holds, at an amortised constant cost per entry (a FIFO shrunk to half needs to double
//! its length before it grows again). Only memory changes: the entries and their order do not.

use std::collections::VecDeque;

/// Entries a FIFO keeps room for however few it holds: a flow with a few packets out never
/// reallocates, and the 40,000 link directions and 10,000 scoreboards of a 10,000-flow run keep
/// little (16 entries here took peak RSS at 10,000 flows from 111 to 124 MB, with no faster run).
const KEPT: usize = 4;

/// Halves `fifo`'s capacity when it holds at most a quarter of it; call after taking entries.
#[inline]
pub fn release_slack<T>(fifo: &mut VecDeque<T>) {
    if fifo.capacity() > KEPT && fifo.len() * 4 <= fifo.capacity() {
        halve(fifo);
    }
}

#[cold]
#[inline(never)]
fn halve<T>(fifo: &mut VecDeque<T>) {
    fifo.shrink_to((fifo.capacity() / 2).max(KEPT));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drained_fifo_keeps_four_times_what_it_holds_and_its_order() {
        let mut fifo: VecDeque<u32> = (0..1000).collect();
        let grown = fifo.capacity();
        while fifo.len() > 10 {
            fifo.pop_front();
            release_slack(&mut fifo);
            assert!(fifo.capacity() <= (4 * fifo.len()).max(KEPT) * 2, "{} for {}", fifo.capacity(), fifo.len());
        }
        assert!(fifo.capacity() < grown / 16);
        assert!(fifo.capacity() >= KEPT);
        assert!(fifo.iter().copied().eq(990..1000));
    }

    #[test]
    fn a_small_fifo_is_left_alone() {
        let mut fifo: VecDeque<u32> = VecDeque::with_capacity(KEPT);
        let capacity = fifo.capacity();
        fifo.push_back(1);
        fifo.pop_front();
        release_slack(&mut fifo);
        assert_eq!(fifo.capacity(), capacity);
    }
}
