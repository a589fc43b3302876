//! Giving back the room a FIFO grew into for a burst once bursts that large have stopped.
//!
//! A `VecDeque` keeps the largest capacity it ever reached. The FIFOs a flow owns (its sender's
//! scoreboard, its access links' queues; their wires were such FIFOs too until they became lists
//! through the packet pool, `net/wire_queue.rs`) grow to a slow-start burst of hundreds of
//! packets and then hold a few: at 1,000 flows the capacities they kept were 19 of the 52 MB
//! peak (heaptrack on the scale benchmark's `large` size), where the entries alive at once took
//! about 3 MB. A FIFO that has held at most a quarter of its capacity for as many takes as that
//! capacity gives half of it back, so its room follows the bursts it still meets. Halving at
//! once whenever it drained to a quarter made 5.5 million reallocations in that run (access
//! links' wires filling and draining with every burst) and the run 1.05 times slower; after a
//! quiet spell as long as the capacity, the run makes 183 thousand allocations in all (155
//! thousand before any FIFO gave room back). Only memory changes: the entries and their order
//! do not.

use std::collections::VecDeque;

/// Entries a FIFO keeps room for however few it holds: a flow with a few packets out never
/// reallocates, and the 40,000 link directions and 10,000 scoreboards of a 10,000-flow run keep
/// little (16 entries here took peak RSS at 10,000 flows from 111 to 124 MB, with no faster run).
const KEPT: usize = 4;

/// Halves `fifo`'s capacity once it has held at most a quarter of it for as many takes in a row
/// as that capacity; `quiet` counts those takes (the owner keeps it beside the FIFO, in 16 bits:
/// a FIFO of more than 65,535 entries waits 65,535 takes). Call after taking an entry.
#[inline]
pub fn release_slack<T>(fifo: &mut VecDeque<T>, quiet: &mut u16) {
    if fifo.len() * 4 > fifo.capacity() || fifo.capacity() <= KEPT {
        *quiet = 0;
        return;
    }
    *quiet = quiet.saturating_add(1);
    if *quiet as usize >= fifo.capacity().min(u16::MAX as usize) {
        halve(fifo);
        *quiet = 0;
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
    fn a_fifo_that_stays_small_gives_its_room_back_step_by_step_and_keeps_its_order() {
        let mut fifo: VecDeque<u32> = (0..1000).collect();
        let mut quiet = 0;
        let grown = fifo.capacity();
        while fifo.len() > 1 {
            fifo.pop_front();
            release_slack(&mut fifo, &mut quiet);
        }
        // Drained to a quarter of its 1,000, it has not yet been quiet for 1,000 takes.
        assert_eq!(fifo.capacity(), grown);
        let mut next = 1000;
        for _ in 0..4000 {
            fifo.push_back(next);
            next += 1;
            fifo.pop_front();
            release_slack(&mut fifo, &mut quiet);
        }
        // 1,000 + 500 + ... + 7 quiet takes later it is down to the room it keeps.
        assert_eq!(fifo.capacity(), KEPT);
        assert!(fifo.iter().copied().eq(next - 1..next));
    }

    #[test]
    fn a_fifo_refilled_by_bursts_keeps_its_room() {
        let mut fifo: VecDeque<u32> = VecDeque::new();
        let mut quiet = 0;
        for _ in 0..1000 {
            fifo.extend(0..20);
            let capacity = fifo.capacity();
            while fifo.pop_front().is_some() {
                release_slack(&mut fifo, &mut quiet);
            }
            assert_eq!(fifo.capacity(), capacity, "no reallocation between bursts");
        }
    }
}
