//! A channel is one direction of a full-duplex point-to-point link: a queue discipline in front of a
//! transmitter of fixed (or scheduled) rate, then a propagation delay with optional jitter, random
//! loss and scheduled outages (`wire.rs`). A direction can instead deliver at the times of a trace
//! (`delivery_trace`, mahimahi's format).
//!
//! Events per packet: one arrival at the far end, plus one `TransmitterFree` only when the packet
//! had to wait behind another in an AQM's queue or on a link whose rate changes. A plain drop-tail
//! link with a fixed rate sends lazily instead: it knows when a packet will start as it queues it,
//! so it puts the packet on the wire at once and moves its counters when the transmission starts
//! (`catch_up`). Packets on the wire wait in arrival order in the channel itself, and only the
//! first has an event in the event queue (`WireArrival`); a packet that would overtake the last
//! one (reordering jitter, a delay step down) gets an `Arrival` event of its own instead.

use std::collections::VecDeque;

use crate::histogram::DelayHistogram;
use crate::net::channel_features::Features;
use crate::net::channel_queue::ChannelQueue;
use crate::net::delivery_trace::DeliveryTrace;
use crate::net::packet::{Packet, PacketId, PacketPool, WirePlace};
use crate::net::queue::{EnqueueOutcome, QueueDiscipline, QueueLimit, QueueSettings};
use crate::net::wire::{Jitter, JitterDistribution, LossModel, Outage};
use crate::net::wire_queue::WireQueue;
use crate::sim::{Event, EventQueue, NextHop};
use crate::time::{transmission_time, SimDuration, SimTime};

/// How far behind the front of the lazily sent queue the entry lies whose cache line is
/// requested as the front is taken: 8 entries of 16 bytes are two lines ahead, far enough for a
/// bottleneck that takes one every microsecond.
const FIFO_PREFETCH_AHEAD: usize = 8;

/// A packet a lazily sending channel has accepted but not yet started to transmit: when it
/// starts, and what the channel's counters take then (`Channel::catch_up`). Its transmission
/// time is not kept: each waiting packet was accepted while the transmitter was busy, so it starts
/// when the one before it ends, and its own transmission ends when the next one starts (or, for
/// the last, at `busy_until`). 16 bytes: at 10,000 flows the 40,004 link directions' queues of
/// 32-byte entries held 3.8 MB at the heap's peak.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    start: SimTime,
    wire_bytes: u32,
    lost_on_the_wire: bool,
}

/// Counters for one channel. Conservation: `offered == transmitted + queue_drops + aqm_drops +
/// queued now`; `transmitted == delivered + wire_losses + in flight now`.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct ChannelStats {
    pub offered_packets: u64,
    pub transmitted_packets: u64,
    pub transmitted_bytes: u64,
    pub delivered_packets: u64,
    /// Dropped because the queue was full.
    pub queue_drops: u64,
    /// Dropped by an AQM at dequeue.
    pub aqm_drops: u64,
    /// Lost on the wire (random loss model or outage).
    pub wire_losses: u64,
    pub ecn_marks: u64,
    /// Nanoseconds the transmitter spent sending.
    pub busy_time: SimDuration,
    pub max_queue_packets: u64,
    pub max_queue_bytes: u64,
    /// Time each transmitted packet waited in the queue.
    pub sojourn: DelayHistogram,
}

/// The fields are in a fixed order (`repr(C)`), hot first: the first two cache lines hold what
/// every packet's offer and arrival read and write on a drop-tail link, the next three the
/// counters they move, so that at 10,000 flows (40,000 link directions, far beyond the caches) an
/// offer reads five adjacent lines and an arrival three, which the event loop prefetches one
/// event ahead (`prefetch_for_offer`, `prefetch_for_arrival`). The features a packet's path
/// depends on (loss, jitter, outages, captures, a trace, a rate schedule, RDC stamping) are set
/// through methods that keep two summaries in the first line up to date (`refresh_paths`), so
/// that the path checks those, not the features' own fields. Five lines in all (a test checks):
/// with its rare features boxed, its random stream kept as a seed until one draws from it, no
/// scratch list or copy of the queue's limit, and what only reports read (the link's name, the
/// limit as configured, the BDP's RTT) kept beside it in `Network::setups`, from eight (40,004
/// directions at 10,000 flows).
#[repr(C, align(64))]
pub struct Channel {
    busy_until: SimTime,
    last_arrival: SimTime,
    rate_bps: u64,
    pub delay: SimDuration,
    pub from: u32,
    pub to: u32,
    /// The drop-tail limit when this channel sends lazily: a plain drop-tail FIFO in front of a
    /// transmitter whose rate never changes and which stamps nothing, so that each packet's start
    /// is known when it is queued (None otherwise).
    lazy_limit: Option<QueueLimit>,
    /// No capture, outage, loss model or jitter: a packet goes onto the wire as it is.
    plain_wire: bool,
    /// Exact RDC: stamp each packet with the delay a large FIFO at this rate would give it.
    rdc_stamp: bool,
    wakeup_pending: bool,
    /// The wire's head packet is on its way: its `WireArrival` event is in the event queue and
    /// carries it, so the head needs no place in `wire`. At 10,000 flows an access link
    /// mostly has that one packet on the wire, and its arrival then reads no buffer beyond the
    /// channel (a buffer read was a tenth of the event loop's time).
    head_on_wire: bool,
    /// Takes in a row from `waiting` that left it at most a quarter full
    /// (`slack::release_slack`), in the first line's padding.
    waiting_quiet: u16,
    /// The arrival time of the last packet on the wire in arrival order (the head's when it is
    /// alone): a later packet due earlier overtakes it.
    in_order_back: SimTime,
    /// The packets on the wire in arrival order behind the head, each with its arrival time,
    /// event sequence and what it touches after it arrives (in the pool's wire places).
    wire: WireQueue,
    /// Sending lazily: packets accepted and already put on the wire whose transmission has not
    /// started yet (they are the queue), and their bytes.
    waiting: VecDeque<Waiting>,
    waiting_bytes: u64,
    pub stats: ChannelStats,
    /// Loss, jitter, outages, schedules, a trace, a capture or RDC's FIFO, once one is set.
    features: Option<Box<Features>>,
    queue: ChannelQueue,
    /// The seed of the random stream of the loss model and jitter (`Features::rng`).
    rng_seed: u64,
    /// The size of the packet this channel timed last and its transmission time at `rate_bps`
    /// (`serialisation_time`): most packets a direction carries are one size, and this spares
    /// the 64-bit division they would each take, 2% of the cycles at 10 flows. (0, 0) holds at
    /// any rate. In the last line's padding.
    last_timed: (u32, SimDuration),
}

impl Channel {
    pub fn new(
        from: u32,
        to: u32,
        rate_bps: u64,
        delay: SimDuration,
        queue: Box<dyn QueueDiscipline>,
        rng_seed: u64,
    ) -> Self {
        Self {
            from,
            to,
            rate_bps,
            delay,
            lazy_limit: queue.fifo_limit(),
            plain_wire: true,
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            queue: ChannelQueue::new(queue),
            features: None,
            stats: ChannelStats::default(),
            rng_seed,
            rdc_stamp: false,
            busy_until: 0,
            wakeup_pending: false,
            last_arrival: 0,
            head_on_wire: false,
            waiting_quiet: 0,
            in_order_back: 0,
            wire: WireQueue::default(),
            last_timed: (0, 0),
        }
    }

    /// The transmitter's rate now, in bits per second.
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// Packets the queue discipline dropped early (an AQM's drops at arrival).
    pub fn early_drops(&self) -> u64 {
        self.queue.early_drops()
    }

    /// Puts a queue discipline in front of the transmitter (before the first packet).
    pub fn install_queue(&mut self, queue: Box<dyn QueueDiscipline>) {
        self.queue = ChannelQueue::new(queue);
        self.refresh_paths();
    }

    /// The features, created when the first is set.
    fn features_mut(&mut self) -> &mut Features {
        let rng_seed = self.rng_seed;
        self.features.get_or_insert_with(|| Box::new(Features::new(rng_seed)))
    }

    /// The features, created only if `something` is being set: the builder sets every
    /// direction's outages and schedules, most of them to nothing.
    fn features_for(&mut self, something: bool) -> Option<&mut Features> {
        if something {
            Some(self.features_mut())
        } else {
            self.features.as_deref_mut()
        }
    }

    pub fn set_loss(&mut self, loss: LossModel) {
        if let Some(f) = self.features_for(!matches!(loss, LossModel::None)) {
            f.loss = loss;
        }
        self.refresh_paths();
    }

    pub fn set_jitter(&mut self, jitter: Jitter) {
        self.features_mut().jitter = Some(jitter);
        self.refresh_paths();
    }

    pub fn set_outages(&mut self, outages: Vec<Outage>) {
        if let Some(f) = self.features_for(!outages.is_empty()) {
            f.outages = outages;
        }
        self.refresh_paths();
    }

    pub fn set_rate_schedule(&mut self, schedule: Vec<(SimTime, u64)>) {
        if let Some(f) = self.features_for(!schedule.is_empty()) {
            f.rate_schedule = schedule;
        }
        self.refresh_paths();
    }

    /// The queue discipline's settings as set up.
    pub fn queue_settings(&self) -> QueueSettings {
        self.queue.settings()
    }

    pub fn loss_model(&self) -> &LossModel {
        self.features.as_ref().map_or(&LossModel::None, |f| &f.loss)
    }

    pub fn set_delay_schedule(&mut self, schedule: Vec<(SimTime, SimDuration)>) {
        if let Some(f) = self.features_for(!schedule.is_empty()) {
            f.delay_schedule = schedule;
        }
        self.refresh_paths();
    }

    pub fn delay_schedule(&self) -> &[(SimTime, SimDuration)] {
        self.features.as_ref().map_or(&[], |f| &f.delay_schedule)
    }

    /// A drifting extra delay's (min, max, interval) in ns, if this direction has one.
    pub fn drift(&self) -> Option<(SimDuration, SimDuration, SimDuration)> {
        match self.features.as_ref().and_then(|f| f.jitter.as_ref()) {
            Some(Jitter { distribution: JitterDistribution::Drift(drift), .. }) => Some(drift.bounds()),
            _ => None,
        }
    }

    pub fn rate_schedule(&self) -> &[(SimTime, u64)] {
        self.features.as_ref().map_or(&[], |f| &f.rate_schedule)
    }

    pub fn set_trace(&mut self, trace: DeliveryTrace) {
        self.features_mut().trace = Some(trace);
        self.refresh_paths();
    }

    pub fn set_rdc_stamp(&mut self, stamp: bool) {
        self.rdc_stamp = stamp;
        self.refresh_paths();
    }

    /// Keeps every packet this direction transmits, from now on (`captured`).
    pub fn start_capture(&mut self) {
        self.features_mut().capture.get_or_insert_with(Vec::new);
        self.refresh_paths();
    }

    /// The packets captured, with the times their transmissions started, if capturing.
    pub fn captured(&self) -> Option<&[(SimTime, Packet)]> {
        self.features.as_ref().and_then(|f| f.capture.as_deref())
    }

    /// Brings the two path summaries up to date after a feature changed.
    fn refresh_paths(&mut self) {
        // Sending lazily fixes a packet's delay when it is queued; with a delay schedule a packet
        // queued before a step but leaving after it must take the new delay.
        let (timing_fixed, plain_wire) = match &self.features {
            None => (true, true),
            Some(f) => (
                f.trace.is_none() && f.rate_schedule.is_empty() && f.delay_schedule.is_empty(),
                f.capture.is_none() && f.outages.is_empty() && matches!(f.loss, LossModel::None) && f.jitter.is_none(),
            ),
        };
        self.lazy_limit = self.queue.fifo_limit().filter(|_| timing_fixed && !self.rdc_stamp);
        self.plain_wire = plain_wire;
    }

    /// A packet wants to leave through this channel; `next_hop` is what it touches after it
    /// (a prefetching hint, kept only when the packet goes onto the wire at once).
    pub fn offer(
        &mut self,
        index: u32,
        packet: PacketId,
        next_hop: NextHop,
        pool: &mut PacketPool,
        events: &mut EventQueue,
    ) {
        let now = events.now();
        self.stats.offered_packets += 1;
        if self.rdc_stamp {
            // The virtual large FIFO drains at the link rate and never drops: the packet's wait
            // there is the backlog ahead of it. The stamp is what is left of it once the packet
            // leaves the real queue (`on_transmitter_free`).
            let rate_bps = self.rate_bps as f64;
            let f = self.features_mut();
            let drained = rate_bps * (now - f.virtual_updated) as f64 / 1e9;
            f.virtual_backlog_bits = (f.virtual_backlog_bits - drained).max(0.0);
            f.virtual_updated = now;
            let wait = (f.virtual_backlog_bits / rate_bps * 1e9) as SimDuration;
            f.virtual_backlog_bits += pool.get(packet).wire_bytes as f64 * 8.0;
            pool.get_mut(packet).virtual_wait = wait;
        }
        if let Some(limit) = self.lazy_limit {
            self.offer_to_lazy_fifo(index, (packet, next_hop), limit, pool, events);
            return;
        }
        // A list of what the queue evicts, allocated only if it evicts something (a drop, not
        // every packet): a scratch list kept in each channel took 24 of its bytes.
        let mut evicted_packets = Vec::new();
        let outcome = self.queue.discipline_mut().enqueue(packet, pool, now, &mut evicted_packets);
        for evicted in evicted_packets {
            self.stats.queue_drops += 1;
            pool.discard(evicted);
        }
        match outcome {
            EnqueueOutcome::Dropped => {
                self.stats.queue_drops += 1;
                pool.discard(packet);
                return;
            }
            EnqueueOutcome::QueuedMarked => self.stats.ecn_marks += 1,
            EnqueueOutcome::Queued => {}
        }
        if self.busy_until <= now && !self.wakeup_pending {
            // The transmitter is idle: the packet leaves at once (zero sojourn).
            self.on_transmitter_free(index, pool, events);
            return;
        }
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(self.queue.len_packets() as u64);
        self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.queue.len_bytes());
        if !self.wakeup_pending {
            self.wakeup_pending = true;
            events.schedule(self.busy_until, Event::TransmitterFree { channel: index });
        }
    }

    /// The transmitter finished the previous packet: send the next queued one, if any.
    pub fn on_transmitter_free(&mut self, index: u32, pool: &mut PacketPool, events: &mut EventQueue) {
        let now = events.now();
        self.wakeup_pending = false;
        let queue = self.queue.discipline_mut();
        let marks_before = queue.dequeue_marks();
        let mut dropped_packets = Vec::new();
        let next = queue.dequeue(pool, now, &mut dropped_packets);
        self.stats.ecn_marks += queue.dequeue_marks() - marks_before;
        for dropped in dropped_packets {
            self.stats.aqm_drops += 1;
            pool.discard(dropped);
        }
        if let Some(packet) = next {
            let waited = now - pool.get(packet).enqueued_at;
            self.stats.sojourn.record(waited);
            if self.rdc_stamp {
                // The receiver adds the stamp to a path that already carries the real wait.
                let p = pool.get_mut(packet);
                p.delay_stamp += p.virtual_wait.saturating_sub(waited);
            }
            self.transmit(index, packet, pool, events);
        }
        if !self.queue.is_empty() && !self.wakeup_pending {
            self.wakeup_pending = true;
            events.schedule(self.busy_until.max(now), Event::TransmitterFree { channel: index });
        }
    }

    pub fn apply_rate_change(&mut self, schedule_index: usize) {
        self.rate_bps = self.rate_schedule()[schedule_index].1;
        self.last_timed = (0, 0);
    }

    pub fn apply_delay_change(&mut self, schedule_index: usize) {
        self.delay = self.delay_schedule()[schedule_index].1;
    }

    /// How long a packet of `wire_bytes` bytes takes to send at the channel's rate:
    /// `time::transmission_time`, worked out again only when the size differs from the last.
    #[inline]
    fn serialisation_time(&mut self, wire_bytes: u32) -> SimDuration {
        if self.last_timed.0 != wire_bytes {
            self.last_timed = (wire_bytes, transmission_time(wire_bytes as u64, self.rate_bps));
        }
        self.last_timed.1
    }

    fn transmit(&mut self, index: u32, packet: PacketId, pool: &mut PacketPool, events: &mut EventQueue) {
        let now = events.now();
        let wire_bytes = pool.get(packet).wire_bytes;
        let serialisation = match self.features.as_mut().and_then(|f| f.trace.as_mut()) {
            Some(trace) => trace.send(now, wire_bytes as u64) - now,
            None => self.serialisation_time(wire_bytes),
        };
        self.busy_until = now + serialisation;
        let lost_on_the_wire = self.put_on_wire(index, (packet, NextHop::UNKNOWN), now, pool, events);
        self.count_transmission(Waiting { start: now, wire_bytes, lost_on_the_wire }, serialisation);
    }

    fn count_transmission(&mut self, sent: Waiting, serialisation: SimDuration) {
        self.stats.busy_time += serialisation;
        self.stats.transmitted_packets += 1;
        self.stats.transmitted_bytes += sent.wire_bytes as u64;
        self.stats.wire_losses += sent.lost_on_the_wire as u64;
    }

    /// A packet whose transmission starts at `start` and ends at `busy_until` goes onto the wire,
    /// or is lost there (returns true; the packet is discarded).
    fn put_on_wire(
        &mut self,
        index: u32,
        (packet, next_hop): (PacketId, NextHop),
        start: SimTime,
        pool: &mut PacketPool,
        events: &mut EventQueue,
    ) -> bool {
        if !self.plain_wire && self.lost_on_the_wire(start, pool.get(packet)) {
            pool.discard(packet);
            return true;
        }
        let mut arrival = self.busy_until + self.delay;
        if !self.plain_wire {
            if let Some(Features { jitter: Some(jitter), rng, .. }) = self.features.as_deref_mut() {
                arrival += jitter.sample(rng, self.busy_until);
                if !jitter.reorder {
                    arrival = arrival.max(self.last_arrival);
                }
            }
        }
        self.last_arrival = arrival;
        let sequence = events.reserve_sequence();
        if !self.head_on_wire {
            self.head_on_wire = true;
            self.in_order_back = arrival;
            events.schedule_reserved(arrival, sequence, Event::WireArrival { channel: index, packet, next_hop });
        } else if arrival < self.in_order_back {
            events.schedule_reserved(arrival, sequence, Event::Arrival { channel: index, packet });
        } else {
            self.in_order_back = arrival;
            self.wire.push_back(pool, packet, arrival, sequence, next_hop);
        }
        false
    }

    /// Captures the packet, and draws whether an outage or the loss model loses it.
    fn lost_on_the_wire(&mut self, start: SimTime, packet: &Packet) -> bool {
        let Some(f) = self.features.as_mut() else { return false };
        if let Some(captured) = &mut f.capture {
            captured.push((start, *packet));
        }
        let in_outage = f.outages.iter().any(|o| start >= o.start && start < o.end);
        in_outage || f.loss.loses(&mut f.rng)
    }

    /// A drop-tail FIFO with a fixed-rate transmitter knows when a packet will start as it
    /// queues it, so the packet goes onto the wire at once, with that start, and no
    /// `TransmitterFree` event is needed (a quarter of all events). The channel's counters still
    /// move when the transmission starts (`catch_up`). What changes: the arrival's tie-break
    /// sequence is taken when the packet is queued, not when it starts, so it may run before events
    /// scheduled in between for the same nanosecond (docs/architecture.md).
    fn offer_to_lazy_fifo(
        &mut self,
        index: u32,
        (packet, next_hop): (PacketId, NextHop),
        limit: QueueLimit,
        pool: &mut PacketPool,
        events: &mut EventQueue,
    ) {
        let now = events.now();
        self.catch_up(now);
        let wire_bytes = pool.get(packet).wire_bytes;
        if !limit.admits(self.waiting.len(), self.waiting_bytes, wire_bytes as u64) {
            self.stats.queue_drops += 1;
            pool.discard(packet);
            return;
        }
        let start = self.busy_until.max(now);
        let serialisation = self.serialisation_time(wire_bytes);
        self.stats.sojourn.record(start - now);
        self.busy_until = start + serialisation;
        let lost_on_the_wire = self.put_on_wire(index, (packet, next_hop), start, pool, events);
        let sent = Waiting { start, wire_bytes, lost_on_the_wire };
        if start == now {
            // Nothing waits: anything that did started by now and `catch_up` counted it.
            self.count_transmission(sent, serialisation);
            return;
        }
        self.waiting.push_back(sent);
        self.waiting_bytes += wire_bytes as u64;
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(self.waiting.len() as u64);
        self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.waiting_bytes);
    }

    /// Counts the transmissions of a lazily sending channel that have started by `now`; call
    /// before reading `stats` or `queued`.
    #[inline]
    pub fn catch_up(&mut self, now: SimTime) {
        // Most calls find nothing started (a packet offered to an idle link counts itself), so
        // only this test is inlined into every offer.
        if self.waiting.front().is_some_and(|sent| sent.start <= now) {
            self.count_started(now);
        }
    }

    /// `catch_up` once the front packet has started: counts it and every one started behind it.
    #[inline(never)]
    fn count_started(&mut self, now: SimTime) {
        while let Some(sent) = self.waiting.pop_front() {
            crate::slack::release_slack(&mut self.waiting, &mut self.waiting_quiet);
            self.waiting_bytes -= sent.wire_bytes as u64;
            // Waiting packets leave back to back: this one's transmission ends as the next starts.
            let next = self.waiting.front().copied();
            let end = next.map_or(self.busy_until, |next| next.start);
            self.count_transmission(sent, end - sent.start);
            if next.is_none_or(|next| next.start > now) {
                break;
            }
        }
        crate::prefetch::prefetch_fifo_ahead(&self.waiting, FIFO_PREFETCH_AHEAD);
    }

    /// Packets and bytes queued (waiting to be transmitted), as of the last `catch_up`.
    pub fn queued(&self) -> (u64, u64) {
        (self.queue.len_packets() as u64 + self.waiting.len() as u64, self.queue.len_bytes() + self.waiting_bytes)
    }

    /// The head packet of the wire arrived (its `WireArrival` event): the next packet in arrival
    /// order, if any, becomes the head and its arrival is scheduled.
    pub fn on_head_arrival(&mut self, index: u32, pool: &PacketPool, events: &mut EventQueue) {
        match self.wire.pop_front(pool) {
            Some((next, place)) => {
                let WirePlace { arrival, sequence, next_hop, .. } = place;
                events.schedule_reserved(
                    arrival,
                    sequence,
                    Event::WireArrival { channel: index, packet: next, next_hop },
                );
                pool.prefetch(next);
            }
            None => self.head_on_wire = false,
        }
    }

    /// Starts loading the cache lines an arrival reads: the wire, the far node, the count of
    /// delivered packets and the place of the packet behind the head.
    pub fn prefetch_for_arrival(&self, pool: &PacketPool) {
        crate::prefetch::prefetch(&self.to);
        crate::prefetch::prefetch(&self.stats.delivered_packets);
        if let Some(behind) = self.wire.front() {
            pool.prefetch_wire_place(behind);
        }
    }

    /// Starts loading the cache lines a drop-tail offer reads: every line up to the end of the
    /// counters.
    pub fn prefetch_for_offer(&self) {
        let hot = std::mem::offset_of!(Channel, stats) + std::mem::size_of::<ChannelStats>();
        crate::prefetch::prefetch_first_bytes(self, hot);
    }
}

#[cfg(test)]
#[path = "channel_tests.rs"]
mod tests;
