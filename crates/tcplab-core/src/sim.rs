//! The discrete-event core: a priority queue of events ordered by (time, insertion sequence) so that
//! events at the same instant run in the order they were scheduled, and per-component RNG streams
//! derived from (scenario seed, run index, component) so that adding a flow does not perturb the
//! random numbers another component draws.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rand::Rng;
use rand::SeedableRng;
use rand_xoshiro::{SplitMix64, Xoshiro256PlusPlus};

use crate::time::SimTime;

/// Index of a packet in the packet pool (`net::packet::PacketPool`). Events carry packets by this
/// index; the engine itself never looks inside a packet, so it depends on no network type.
pub type PacketId = u32;

/// Everything that can happen in a simulation. Small and `Copy`: packets travel by arena index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The first packet on a channel's wire arrives at the channel's far node. A channel keeps
    /// the packets it has in flight in arrival order and has one such event at a time, for the
    /// head (see `Channel::on_head_arrival`).
    WireArrival {
        channel: u32,
    },
    /// A packet that overtook others on the wire (jitter that reorders, or a delay that dropped)
    /// arrives at the channel's far node; it travels outside the channel's in-order queue.
    Arrival {
        channel: u32,
        packet: PacketId,
    },
    /// A channel's transmitter is free and its queue holds a packet to send.
    TransmitterFree {
        channel: u32,
    },
    /// A channel's rate or propagation delay changes (capacity and delay schedules).
    RateChange {
        channel: u32,
        index: u32,
    },
    DelayChange {
        channel: u32,
        index: u32,
    },
    /// A TCP flow starts, or its application toggles on/off or writes more data.
    FlowStart {
        flow: u32,
    },
    AppToggle {
        flow: u32,
    },
    /// A restarting flow opens its next connection (its last transfer reached the receiver).
    FlowRestart {
        flow: u32,
    },
    AppWrite {
        flow: u32,
    },
    /// The sender's retransmission timer may have expired (checked lazily against the deadline).
    RetransmitTimer {
        flow: u32,
    },
    /// The sender's pacing gate reopens.
    PacingTimer {
        flow: u32,
    },
    /// An ACK the sender held (sender-based delay control) is due for processing.
    AckRelease {
        flow: u32,
    },
    /// The receiver's delayed-ACK timer may have expired.
    DelayedAckTimer {
        flow: u32,
    },
    /// An ACK the receiver held (receiver-based delay control) is due to leave.
    AckSendRelease {
        flow: u32,
    },
    /// A UDP source emits its next datagram, or toggles on/off.
    UdpSend {
        source: u32,
    },
    UdpToggle {
        source: u32,
    },
    /// Record one row of every time series.
    Sample,
}

/// An event and when it runs. `key` is the time in its high 64 bits and the tie-break sequence
/// in its low 64, so one integer comparison orders (time, sequence): the heap compares keys about
/// 20 times per event, and two comparisons each with an unpredictable branch cost measurably more.
#[derive(Debug)]
struct Scheduled {
    key: u128,
    event: Event,
}

impl Scheduled {
    fn time(&self) -> SimTime {
        (self.key >> 64) as SimTime
    }
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    // BinaryHeap is a max-heap: reverse so the earliest (time, sequence) pops first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// The future event list. Ties in time are broken by insertion order (FIFO), which together with
/// seeded RNG streams makes every run reproducible byte for byte.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Scheduled>,
    /// The event `pop_until` returned last is still the heap's top: the first event its handler
    /// schedules takes its slot, one sift down instead of a pop and a push (most handlers schedule
    /// at least one event; at 100 flows the heap was a third of the run). The next `pop_until`
    /// removes it if nothing took its slot.
    top_taken: bool,
    next_sequence: u64,
    now: SimTime,
    processed: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Events popped so far (a measure of simulation work).
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Schedules `event` at `time`; times in the past are clamped to now (never reorder history).
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let sequence = self.reserve_sequence();
        self.schedule_reserved(time, sequence, event);
    }

    /// Takes the tie-break position an event scheduled now would get, for an event that enters
    /// the queue later. A channel reserves one per packet it puts on the wire and schedules only
    /// its head packet's arrival: because the head always has the smallest (time, sequence) of
    /// the channel's packets, events pop in exactly the order they would if every packet had its
    /// own entry, while the heap holds one entry per busy wire instead of one per packet.
    pub fn reserve_sequence(&mut self) -> u64 {
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        sequence
    }

    /// Schedules `event` at `time` in the tie-break position `sequence` from `reserve_sequence`.
    pub fn schedule_reserved(&mut self, time: SimTime, sequence: u64, event: Event) {
        let time = time.max(self.now);
        let entry = Scheduled { key: ((time as u128) << 64) | sequence as u128, event };
        if std::mem::take(&mut self.top_taken) {
            // Replacing the root and sifting it down leaves a valid heap whatever the new key, and
            // keys are unique, so events pop in the same order as after a pop and a push.
            *self.heap.peek_mut().expect("the taken event is still in the heap") = entry;
        } else {
            self.heap.push(entry);
        }
    }

    /// Removes the event `pop_until` returned last if no event took its slot.
    fn discard_taken(&mut self) {
        if std::mem::take(&mut self.top_taken) {
            self.heap.pop();
        }
    }

    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.discard_taken();
        self.heap.peek().map(Scheduled::time)
    }

    /// Takes the next event if it is due at or before `limit`, advancing the clock to its time.
    pub fn pop_until(&mut self, limit: SimTime) -> Option<Event> {
        self.discard_taken();
        let next = self.heap.peek()?;
        if next.time() > limit {
            return None;
        }
        self.now = next.time();
        self.processed += 1;
        self.top_taken = true;
        Some(next.event)
    }

    /// Moves the clock forward to `time` when nothing is left to do before it.
    pub fn advance_to(&mut self, time: SimTime) {
        self.now = self.now.max(time);
    }
}

/// What a random stream belongs to; part of the stream's seed so streams never collide.
#[derive(Clone, Copy, Debug)]
pub enum StreamKind {
    Channel = 1,
    Flow = 2,
    UdpSource = 3,
    Queue = 4,
    Algorithm = 5,
    /// Generated delivery traces (kept apart from the channel's loss and jitter draws).
    Trace = 6,
}

/// The random number generator every component uses.
pub type SimRng = Xoshiro256PlusPlus;

/// Derives an independent, reproducible stream for one component. SplitMix64 mixing spreads
/// neighbouring seeds and indices over the whole state space (the construction the xoshiro authors
/// recommend for seeding).
pub fn rng_stream(seed: u64, run_index: u64, kind: StreamKind, index: u64) -> SimRng {
    let mut mixer = SplitMix64::seed_from_u64(seed);
    let a = mixer.next_u64();
    let mut mixer = SplitMix64::seed_from_u64(a ^ run_index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let b = mixer.next_u64();
    let mut mixer = SplitMix64::seed_from_u64(b ^ ((kind as u64) << 56) ^ index);
    SimRng::seed_from_u64(mixer.next_u64())
}

/// A uniform draw in [0, 1) from the top 53 bits.
#[inline]
pub fn unit_f64(rng: &mut SimRng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_run_in_insertion_order() {
        let mut queue = EventQueue::new();
        queue.schedule(10, Event::Sample);
        queue.schedule(5, Event::FlowStart { flow: 1 });
        queue.schedule(10, Event::FlowStart { flow: 2 });
        queue.schedule(5, Event::FlowStart { flow: 3 });
        let order: Vec<Event> = std::iter::from_fn(|| queue.pop_until(u64::MAX)).collect();
        assert_eq!(
            order,
            vec![
                Event::FlowStart { flow: 1 },
                Event::FlowStart { flow: 3 },
                Event::Sample,
                Event::FlowStart { flow: 2 }
            ]
        );
        assert_eq!(queue.now(), 10);
    }

    #[test]
    fn events_scheduled_by_a_handler_pop_in_time_and_sequence_order() {
        // Handlers that schedule none, one and several events, some with a sequence reserved
        // before the event that schedules them (as channels do). A sorted map of (time,
        // sequence) is the reference: the queue must pop exactly its order.
        let mut queue = EventQueue::new();
        let mut reference = std::collections::BTreeMap::new();
        let mut next_sequence = 0u64;
        let mut rng = rng_stream(1, 0, StreamKind::Flow, 0);
        let mut reserved = Vec::new();
        let mut id = 0u32;
        for _ in 0..20 {
            let at = rng.next_u64() % 50;
            queue.schedule(at, Event::FlowStart { flow: id });
            reference.insert((at, next_sequence), id);
            next_sequence += 1;
            id += 1;
        }
        let mut handled = 0;
        while let Some(event) = queue.pop_until(u64::MAX) {
            let ((at, _), expected) = reference.pop_first().expect("the reference has an event too");
            assert_eq!((queue.now(), event), (at, Event::FlowStart { flow: expected }));
            handled += 1;
            if handled > 2_000 {
                continue;
            }
            for _ in 0..rng.next_u64() % 3 {
                reserved.push(queue.reserve_sequence());
                next_sequence += 1;
            }
            for _ in 0..rng.next_u64() % 3 {
                let at = at + rng.next_u64() % 3;
                let sequence = match reserved.pop() {
                    Some(sequence) => {
                        queue.schedule_reserved(at, sequence, Event::FlowStart { flow: id });
                        sequence
                    }
                    None => {
                        queue.schedule(at, Event::FlowStart { flow: id });
                        next_sequence += 1;
                        next_sequence - 1
                    }
                };
                reference.insert((at, sequence), id);
                id += 1;
            }
        }
        assert!(handled > 2_000 && reference.is_empty());
    }

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = rng_stream(7, 0, StreamKind::Flow, 3);
        let mut b = rng_stream(7, 0, StreamKind::Flow, 3);
        let mut c = rng_stream(7, 0, StreamKind::Flow, 4);
        let mut d = rng_stream(7, 1, StreamKind::Flow, 3);
        let first = a.next_u64();
        assert_eq!(first, b.next_u64());
        assert_ne!(first, c.next_u64());
        assert_ne!(first, d.next_u64());
    }
}
