//! Queue disciplines. A queue decides at enqueue (and, for AQMs such as CoDel, at dequeue) whether a
//! packet is kept, dropped or marked; the channel owns transmission. Every packet that arrives at a
//! link passes through its queue, even when the link is idle (it is then dequeued at once), so
//! averages and sojourn times see all traffic. A plain FIFO says so (`fifo_limit`), and a channel
//! with a fixed rate then works out each packet's start itself instead (`Channel`'s lazy
//! sending). Drop-tail lives here; RED, CoDel and FQ-CoDel have their own files.

use std::collections::VecDeque;

use crate::net::packet::{Ecn, PacketId, PacketPool};
use crate::time::SimTime;

/// What happened to a packet offered to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnqueueOutcome {
    Queued,
    /// Queued with its ECN field set to CE.
    QueuedMarked,
    /// Dropped; the packet has been released to the pool by the caller.
    Dropped,
}

pub trait QueueDiscipline: Send {
    /// Offers a packet. On `Dropped` the caller releases the packet. A discipline that makes room
    /// by dropping other packets (FQ-CoDel drops from the longest flow) pushes them to `evicted`.
    fn enqueue(
        &mut self,
        packet: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
        evicted: &mut Vec<PacketId>,
    ) -> EnqueueOutcome;
    /// Takes the next packet to transmit. Packets an AQM drops at dequeue are pushed to `dropped`.
    fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime, dropped: &mut Vec<PacketId>) -> Option<PacketId>;
    fn len_packets(&self) -> usize;
    fn len_bytes(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len_packets() == 0
    }
    /// Packets marked CE at dequeue so far (CoDel marks there; enqueue marks are reported by
    /// the enqueue outcome).
    fn dequeue_marks(&self) -> u64 {
        0
    }
    /// Packets an AQM dropped early at enqueue (RED's probabilistic drops; forced drops and a
    /// full buffer are not early).
    fn early_drops(&self) -> u64 {
        0
    }
    /// The limit of a plain first-in first-out queue that never marks, never drops but when
    /// full, and never reorders: the channel can then work out every packet's start as it
    /// arrives (`Channel::offer_to_lazy_fifo`). None for anything else.
    fn fifo_limit(&self) -> Option<QueueLimit> {
        None
    }
    /// What the discipline was set up with, limits and thresholds resolved.
    fn settings(&self) -> QueueSettings;
}

/// A discipline's settings as set up, for a back-end that configures another engine's queue
/// alike (the ns-2 back-end writes them into its TCL). Thresholds are in the unit the
/// discipline measures (packets, or bytes in RED's byte mode), times in nanoseconds, switches
/// 0 or 1.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSettings {
    /// The scenario's name for the discipline (`queue.kind`).
    pub kind: &'static str,
    pub limit: QueueLimit,
    pub parameters: Vec<(&'static str, f64)>,
}

/// How a drop-tail queue's capacity is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

impl QueueLimit {
    /// Whether a packet of `size` bytes may join a queue holding `packets` packets and `bytes` bytes.
    pub fn admits(self, packets: usize, bytes: u64, size: u64) -> bool {
        match self {
            QueueLimit::Packets(limit) => (packets as u64) < limit,
            QueueLimit::Bytes(limit) => bytes + size <= limit,
        }
    }
}

/// First-in first-out; a packet that would exceed the limit is dropped on arrival. The limit counts
/// packets waiting, not the one being transmitted (as Linux's pfifo and ns-3's DropTailQueue do).
///
/// With a marking threshold K it is the `step` queue, DCTCP's AQM (RFC 8257 section 3.1; the
/// SIGCOMM 2010 paper's switches): an arriving ECN-capable packet is marked CE when at least K
/// packets (or bytes) already wait, i.e. when the queue with the arrival exceeds K, on the
/// instantaneous queue and without any randomness. This is what ns-3's DCTCP examples get from
/// RedQueueDisc with MinTh = MaxTh = K and QW = 1 (red-queue-disc.cc `DoEnqueue`: the average is
/// then the packets queued before the arrival, marked when at least MaxTh). Packets that are
/// not ECN-capable are neither marked nor dropped early: only the buffer limit drops.
pub struct DropTail {
    packets: VecDeque<PacketId>,
    bytes: u64,
    limit: QueueLimit,
    /// K: mark when this many packets or bytes already wait.
    mark_threshold: Option<QueueLimit>,
}

impl DropTail {
    pub fn new(limit: QueueLimit, mark_threshold: Option<QueueLimit>) -> Self {
        Self { packets: VecDeque::new(), bytes: 0, limit, mark_threshold }
    }
}

impl QueueDiscipline for DropTail {
    fn settings(&self) -> QueueSettings {
        match self.mark_threshold {
            None => QueueSettings { kind: "droptail", limit: self.limit, parameters: Vec::new() },
            Some(threshold) => {
                let parameter = match threshold {
                    QueueLimit::Packets(k) => ("threshold_packets", k as f64),
                    QueueLimit::Bytes(k) => ("threshold_bytes", k as f64),
                };
                QueueSettings { kind: "step", limit: self.limit, parameters: vec![parameter] }
            }
        }
    }

    fn enqueue(
        &mut self,
        packet: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
        _evicted: &mut Vec<PacketId>,
    ) -> EnqueueOutcome {
        let size = pool.get(packet).wire_bytes as u64;
        let fits = self.limit.admits(self.packets.len(), self.bytes, size);
        if !fits {
            return EnqueueOutcome::Dropped;
        }
        let mut outcome = EnqueueOutcome::Queued;
        let header = pool.get_mut(packet);
        if let Some(threshold) = self.mark_threshold {
            let reached = match threshold {
                QueueLimit::Packets(k) => self.packets.len() as u64 >= k,
                QueueLimit::Bytes(k) => self.bytes >= k,
            };
            if header.ecn == Ecn::Ect && reached {
                header.ecn = Ecn::Ce;
                outcome = EnqueueOutcome::QueuedMarked;
            }
        }
        header.enqueued_at = now;
        self.bytes += size;
        self.packets.push_back(packet);
        outcome
    }

    fn dequeue(&mut self, pool: &mut PacketPool, _now: SimTime, _dropped: &mut Vec<PacketId>) -> Option<PacketId> {
        let packet = self.packets.pop_front()?;
        self.bytes -= pool.get(packet).wire_bytes as u64;
        if let Some(&next) = self.packets.front() {
            pool.prefetch(next);
        }
        Some(packet)
    }

    fn len_packets(&self) -> usize {
        self.packets.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn fifo_limit(&self) -> Option<QueueLimit> {
        self.mark_threshold.is_none().then_some(self.limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;

    #[test]
    fn limits_count_waiting_packets_or_bytes() {
        assert!(QueueLimit::Packets(3).admits(2, 0, 1500));
        assert!(!QueueLimit::Packets(3).admits(3, 0, 1500));
        assert!(QueueLimit::Bytes(3000).admits(1, 1500, 1500), "exactly full is allowed");
        assert!(!QueueLimit::Bytes(3000).admits(1, 1501, 1500));
    }

    fn packet(pool: &mut PacketPool, bytes: u32, ecn: Ecn) -> PacketId {
        pool.insert(Packet { wire_bytes: bytes, ecn, ..Packet::default() })
    }

    #[test]
    fn packet_limit_drops_the_arrival_that_does_not_fit() {
        let mut pool = PacketPool::default();
        let mut queue = DropTail::new(QueueLimit::Packets(2), None);
        let ids: Vec<_> = (0..3).map(|_| packet(&mut pool, 1500, Ecn::NotEct)).collect();
        assert_eq!(queue.enqueue(ids[0], &mut pool, 0, &mut Vec::new()), EnqueueOutcome::Queued);
        assert_eq!(queue.enqueue(ids[1], &mut pool, 0, &mut Vec::new()), EnqueueOutcome::Queued);
        assert_eq!(queue.enqueue(ids[2], &mut pool, 0, &mut Vec::new()), EnqueueOutcome::Dropped);
        assert_eq!(queue.len_bytes(), 3000);
        let mut dropped = Vec::new();
        assert_eq!(queue.dequeue(&mut pool, 0, &mut dropped), Some(ids[0]));
        assert_eq!(queue.len_packets(), 1);
    }

    #[test]
    fn byte_limit_counts_wire_bytes() {
        let mut pool = PacketPool::default();
        let mut queue = DropTail::new(QueueLimit::Bytes(3000), None);
        let big = packet(&mut pool, 1500, Ecn::NotEct);
        let big2 = packet(&mut pool, 1500, Ecn::NotEct);
        let small = packet(&mut pool, 52, Ecn::NotEct);
        assert_eq!(queue.enqueue(big, &mut pool, 0, &mut Vec::new()), EnqueueOutcome::Queued);
        assert_eq!(queue.enqueue(big2, &mut pool, 0, &mut Vec::new()), EnqueueOutcome::Queued);
        assert_eq!(queue.enqueue(small, &mut pool, 0, &mut Vec::new()), EnqueueOutcome::Dropped);
    }

    #[test]
    fn step_marking_marks_ect_arrivals_once_k_packets_wait() {
        let mut pool = PacketPool::default();
        // K = 2: the first two arrivals find 0 and 1 waiting, the third finds 2 (the queue with
        // it exceeds K) and is marked; a packet that is not ECN-capable is never marked.
        let mut queue = DropTail::new(QueueLimit::Packets(10), Some(QueueLimit::Packets(2)));
        let ids: Vec<_> = (0..3).map(|_| packet(&mut pool, 1500, Ecn::Ect)).collect();
        let plain = packet(&mut pool, 1500, Ecn::NotEct);
        let outcomes: Vec<_> = ids.iter().map(|&id| queue.enqueue(id, &mut pool, 0, &mut Vec::new())).collect();
        use EnqueueOutcome::*;
        assert_eq!(outcomes, vec![Queued, Queued, QueuedMarked]);
        assert_eq!((pool.get(ids[1]).ecn, pool.get(ids[2]).ecn), (Ecn::Ect, Ecn::Ce));
        assert_eq!(queue.enqueue(plain, &mut pool, 0, &mut Vec::new()), Queued);
        assert_eq!(pool.get(plain).ecn, Ecn::NotEct);
        // After three departures one packet waits: an arrival passes unmarked.
        let mut dropped = Vec::new();
        queue.dequeue(&mut pool, 0, &mut dropped);
        queue.dequeue(&mut pool, 0, &mut dropped);
        queue.dequeue(&mut pool, 0, &mut dropped);
        let after = packet(&mut pool, 1500, Ecn::Ect);
        assert_eq!(queue.enqueue(after, &mut pool, 0, &mut Vec::new()), Queued);
        assert_eq!(queue.settings().kind, "step");
        assert_eq!(queue.fifo_limit(), None, "marking is decided per arrival, not by the lazy FIFO");
    }

    #[test]
    fn step_marking_in_bytes_counts_the_bytes_waiting() {
        let mut pool = PacketPool::default();
        // K = 3000 B: after two 1500 B packets 3000 B wait, so the third arrival is marked.
        let mut queue = DropTail::new(QueueLimit::Bytes(100_000), Some(QueueLimit::Bytes(3000)));
        let ids: Vec<_> = (0..3).map(|_| packet(&mut pool, 1500, Ecn::Ect)).collect();
        let outcomes: Vec<_> = ids.iter().map(|&id| queue.enqueue(id, &mut pool, 0, &mut Vec::new())).collect();
        assert_eq!(outcomes, vec![EnqueueOutcome::Queued, EnqueueOutcome::Queued, EnqueueOutcome::QueuedMarked]);
        assert_eq!(queue.settings().parameters, vec![("threshold_bytes", 3000.0)]);
    }
}
