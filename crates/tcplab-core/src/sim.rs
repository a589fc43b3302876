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

/// What a packet touches after it arrives off a wire: the next channel, or the TCP sender or
/// receiver of its flow at its destination. Arrival events carry it so that the event loop can
/// start loading that state one event ahead (`Simulation::prefetch_upcoming`), and so that the
/// next channel, looked up when the packet left the previous one, is not looked up again (routes
/// are static). Two tag bits and a 30-bit index, to keep an event 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextHop(u32);

impl NextHop {
    const INDEX_BITS: u32 = 30;
    const INDEX_MASK: u32 = (1 << Self::INDEX_BITS) - 1;
    const CHANNEL: u32 = 1;
    const TCP_SENDER: u32 = 2;
    const TCP_RECEIVER: u32 = 3;
    /// Not known: a packet that waited in an AQM's queue, a UDP datagram at its destination, and
    /// every packet when the event loop does not prefetch.
    pub const UNKNOWN: NextHop = NextHop(0);

    fn tagged(tag: u32, index: u32) -> Self {
        // Beyond 2^30 channels or flows the hint is only lost, never wrong.
        if index > Self::INDEX_MASK {
            return Self::UNKNOWN;
        }
        NextHop(tag << Self::INDEX_BITS | index)
    }

    pub fn channel(index: u32) -> Self {
        Self::tagged(Self::CHANNEL, index)
    }

    pub fn tcp_sender(flow: u32) -> Self {
        Self::tagged(Self::TCP_SENDER, flow)
    }

    pub fn tcp_receiver(flow: u32) -> Self {
        Self::tagged(Self::TCP_RECEIVER, flow)
    }

    /// What the packet touches next, and its index among channels or TCP flows.
    pub fn target(self) -> Option<(NextHopKind, u32)> {
        let index = self.0 & Self::INDEX_MASK;
        match self.0 >> Self::INDEX_BITS {
            Self::CHANNEL => Some((NextHopKind::Channel, index)),
            Self::TCP_SENDER => Some((NextHopKind::TcpSender, index)),
            Self::TCP_RECEIVER => Some((NextHopKind::TcpReceiver, index)),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextHopKind {
    Channel,
    TcpSender,
    TcpReceiver,
}

/// Everything that can happen in a simulation. Small and `Copy`: packets travel by arena index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The first packet on a channel's wire arrives at the channel's far node. A channel keeps
    /// the packets it has in flight in arrival order and has one such event at a time, for the
    /// head (see `Channel::on_head_arrival`).
    WireArrival {
        channel: u32,
        /// The head packet, and what it touches after it arrives (both for prefetching only).
        packet: PacketId,
        next_hop: NextHop,
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

/// Which heap of the event queue an event waits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lane {
    /// A link's wire or transmitter: at most one event per channel (plus reordered packets), and
    /// most events of a run.
    Links,
    /// Everything else: endpoints' timers, applications, samples, scheduled link changes.
    Others,
}

impl Event {
    fn lane(&self) -> Lane {
        match self {
            Event::WireArrival { .. } | Event::Arrival { .. } | Event::TransmitterFree { .. } => Lane::Links,
            _ => Lane::Others,
        }
    }
}

/// The future event list. Ties in time are broken by insertion order (FIFO), which together with
/// seeded RNG streams makes every run reproducible byte for byte.
///
/// Two heaps hold the events, and the earlier of their two tops runs next, so the order is that of
/// one heap. Why two: the endpoints' timers are many and mostly far ahead (a 10,000-flow dumbbell
/// keeps about 30,000 retransmission and delayed-ACK timer events, stale ones included, against
/// about 600 link events), and a binary heap's pop walks to its bottom, so in one heap every link
/// event paid some 15 levels of a 1-MB heap, out of cache. Timers now pay that only when they
/// are scheduled or run.
#[derive(Default)]
pub struct EventQueue {
    links: BinaryHeap<Scheduled>,
    others: BinaryHeap<Scheduled>,
    /// The event `pop_until` returned last is still the top of this lane's heap: the first event
    /// its handler schedules in the same lane takes its slot, one sift down instead of a pop and
    /// a push (most handlers schedule at least one event; at 100 flows the heap was a third of the
    /// run). The next `pop_until` removes it if nothing took its slot.
    taken: Option<Lane>,
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
        let lane = event.lane();
        if self.taken == Some(lane) {
            // Replacing the root and sifting it down leaves a valid heap whatever the new key,
            // and keys are unique, so events pop in the same order as after a pop and a push.
            self.taken = None;
            *self.heap_mut(lane).peek_mut().expect("the taken event is still in its heap") = entry;
        } else {
            // The other heap's taken root stays until an event of its own lane replaces it.
            self.heap_mut(lane).push(entry);
        }
    }

    fn heap_mut(&mut self, lane: Lane) -> &mut BinaryHeap<Scheduled> {
        match lane {
            Lane::Links => &mut self.links,
            Lane::Others => &mut self.others,
        }
    }

    /// Removes the event `pop_until` returned last if no event took its slot.
    fn discard_taken(&mut self) {
        if let Some(taken) = self.taken.take() {
            self.heap_mut(taken).pop();
        }
    }

    /// The lane whose top runs next (keys are unique, so there is never a tie).
    fn next_lane(&self) -> Option<(Lane, &Scheduled)> {
        match (self.links.peek(), self.others.peek()) {
            (Some(link), Some(other)) if other.key < link.key => Some((Lane::Others, other)),
            (Some(link), _) => Some((Lane::Links, link)),
            (None, other) => other.map(|other| (Lane::Others, other)),
        }
    }

    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.discard_taken();
        self.next_lane().map(|(_, next)| next.time())
    }

    /// Takes the next event if it is due at or before `limit`, advancing the clock to its time.
    pub fn pop_until(&mut self, limit: SimTime) -> Option<Event> {
        self.discard_taken();
        let (lane, next) = self.next_lane()?;
        if next.time() > limit {
            return None;
        }
        let (time, event) = (next.time(), next.event);
        self.now = time;
        self.processed += 1;
        self.taken = Some(lane);
        Some(event)
    }

    /// The link event likely to run after the one `pop_until` returned last: the smaller child
    /// of the top in the link heap (or its top, when the event taken was not a link's). A
    /// handler may still schedule something earlier, so this only serves prefetching.
    pub fn upcoming_link_event(&self) -> Option<Event> {
        let heap = self.links.as_slice();
        let next = if self.taken == Some(Lane::Links) {
            match (heap.get(1), heap.get(2)) {
                (Some(left), Some(right)) => Some(if left.key < right.key { left } else { right }),
                (left, _) => left,
            }
        } else {
            heap.first()
        };
        next.map(|scheduled| scheduled.event)
    }

    /// Moves the clock forward to `time` when nothing is left to do before it.
    pub fn advance_to(&mut self, time: SimTime) {
        self.now = self.now.max(time);
    }

    /// Drops the events still pending after the end of a run and gives their room back; the
    /// clock and the count of events processed stay.
    pub fn free_pending(&mut self) {
        self.links = BinaryHeap::new();
        self.others = BinaryHeap::new();
        self.taken = None;
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
    /// The phase of a TCP connection's tick clock (ns-2's `boot_time_`).
    TcpClock = 7,
    /// The salt of ECMP's per-flow hash (`Network::use_ecmp`).
    Ecmp = 8,
    /// Traffic patterns' draws (`[[traffic]]`), one stream per entry.
    Traffic = 9,
}

/// The random number generator every component uses.
pub type SimRng = Xoshiro256PlusPlus;

/// Derives an independent, reproducible stream for one component. SplitMix64 mixing spreads
/// neighbouring seeds and indices over the whole state space (the construction the xoshiro authors
/// recommend for seeding).
pub fn rng_stream(seed: u64, run_index: u64, kind: StreamKind, index: u64) -> SimRng {
    SimRng::seed_from_u64(rng_stream_seed(seed, run_index, kind, index))
}

/// The 64-bit seed `rng_stream` starts its generator from: 8 bytes to keep where a stream is
/// rarely drawn from (a link direction's, made only once it has loss or jitter), not 32.
pub fn rng_stream_seed(seed: u64, run_index: u64, kind: StreamKind, index: u64) -> u64 {
    let mut mixer = SplitMix64::seed_from_u64(seed);
    let a = mixer.next_u64();
    let mut mixer = SplitMix64::seed_from_u64(a ^ run_index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let b = mixer.next_u64();
    let mut mixer = SplitMix64::seed_from_u64(b ^ ((kind as u64) << 56) ^ index);
    mixer.next_u64()
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
        // sequence) is the reference: the queue must pop exactly its order. A third of the events
        // wait in the others' heap, the rest in the links' heap, interleaved.
        let event_for = |id: u32| {
            if id.is_multiple_of(3) {
                Event::FlowStart { flow: id }
            } else {
                Event::TransmitterFree { channel: id }
            }
        };
        let mut queue = EventQueue::new();
        let mut reference = std::collections::BTreeMap::new();
        let mut next_sequence = 0u64;
        let mut rng = rng_stream(1, 0, StreamKind::Flow, 0);
        let mut reserved = Vec::new();
        let mut id = 0u32;
        for _ in 0..20 {
            let at = rng.next_u64() % 50;
            queue.schedule(at, event_for(id));
            reference.insert((at, next_sequence), event_for(id));
            next_sequence += 1;
            id += 1;
        }
        let mut handled = 0;
        while let Some(event) = queue.pop_until(u64::MAX) {
            let ((at, _), expected) = reference.pop_first().expect("the reference has an event too");
            assert_eq!((queue.now(), event), (at, expected));
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
                        queue.schedule_reserved(at, sequence, event_for(id));
                        sequence
                    }
                    None => {
                        queue.schedule(at, event_for(id));
                        next_sequence += 1;
                        next_sequence - 1
                    }
                };
                reference.insert((at, sequence), event_for(id));
                id += 1;
            }
        }
        assert!(handled > 2_000 && reference.is_empty());
    }

    #[test]
    fn a_next_hop_keeps_its_kind_and_index_and_is_unknown_beyond_30_bits() {
        assert_eq!(NextHop::channel(0).target(), Some((NextHopKind::Channel, 0)));
        assert_eq!(NextHop::tcp_sender(7).target(), Some((NextHopKind::TcpSender, 7)));
        let largest = (1 << 30) - 1;
        assert_eq!(NextHop::tcp_receiver(largest).target(), Some((NextHopKind::TcpReceiver, largest)));
        assert_eq!(NextHop::channel(1 << 30), NextHop::UNKNOWN);
        assert_eq!(NextHop::UNKNOWN.target(), None);
        assert_eq!(std::mem::size_of::<Event>(), 16);
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
