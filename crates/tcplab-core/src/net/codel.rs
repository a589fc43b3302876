//! CoDel: Controlled Delay (RFC 8289, Nichols, Jacobson, McGregor and Iyengar).
//!
//! CoDel measures each packet's sojourn time at dequeue. When the sojourn has stayed above
//! `target` (5 ms) for a whole `interval` (100 ms) and more than one MTU is queued, it enters the
//! dropping state: it drops the head packet and schedules the next drop at
//! drop_next = now + interval / sqrt(count), dropping faster while the delay stays high, and leaves
//! the state as soon as a sojourn falls below target. Re-entering soon after leaving resumes from
//! the previous count (RFC 8289 section 5.5). With `ecn`, an ECN-capable packet is marked CE and
//! sent instead of dropped (as Linux's codel does). The queue's buffer limit drops at enqueue.

use std::collections::VecDeque;

use crate::net::packet::{Ecn, PacketId, PacketPool};
use crate::net::queue::{EnqueueOutcome, QueueDiscipline, QueueLimit, QueueSettings};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug)]
pub struct CodelParams {
    pub target: SimDuration,
    pub interval: SimDuration,
    pub ecn: bool,
}

impl CodelParams {
    /// For `QueueDiscipline::settings`: times in nanoseconds, ECN 0 or 1.
    pub fn settings(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("target_ns", self.target as f64),
            ("interval_ns", self.interval as f64),
            ("ecn", if self.ecn { 1.0 } else { 0.0 }),
        ]
    }
}

/// The control state of one CoDel queue (RFC 8289 section 5).
#[derive(Clone, Debug, Default)]
pub struct CodelState {
    pub dropping: bool,
    first_above_time: Option<SimTime>,
    pub drop_next: SimTime,
    pub count: u32,
    last_count: u32,
    /// The largest packet seen: CoDel never drops when no more than this is queued.
    max_packet: u64,
    pub marks: u64,
}

/// A FIFO of packets with its byte count, which the CoDel state drains.
#[derive(Default)]
pub struct Fifo {
    pub packets: VecDeque<PacketId>,
    pub bytes: u64,
}

impl Fifo {
    pub fn push(&mut self, packet: PacketId, pool: &mut PacketPool, now: SimTime) {
        let header = pool.get_mut(packet);
        header.enqueued_at = now;
        self.bytes += header.wire_bytes as u64;
        self.packets.push_back(packet);
    }

    pub fn pop(&mut self, pool: &PacketPool) -> Option<PacketId> {
        let packet = self.packets.pop_front()?;
        self.bytes -= pool.get(packet).wire_bytes as u64;
        Some(packet)
    }
}

fn control_law(t: SimTime, interval: SimDuration, count: u32) -> SimTime {
    t + (interval as f64 / (count.max(1) as f64).sqrt()) as SimDuration
}

impl CodelState {
    pub fn note_packet(&mut self, size: u64) {
        self.max_packet = self.max_packet.max(size);
    }

    /// RFC 8289 dodequeue: the head packet and whether CoDel may drop it.
    fn pop(
        &mut self,
        fifo: &mut Fifo,
        pool: &PacketPool,
        now: SimTime,
        params: &CodelParams,
    ) -> (Option<PacketId>, bool) {
        let Some(packet) = fifo.pop(pool) else {
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now - pool.get(packet).enqueued_at;
        if sojourn < params.target || fifo.bytes <= self.max_packet {
            self.first_above_time = None;
            return (Some(packet), false);
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + params.interval);
                (Some(packet), false)
            }
            Some(at) => (Some(packet), now >= at),
        }
    }

    /// Marks the packet CE if ECN is on and it is ECN-capable; else it is to be dropped.
    fn try_mark(&mut self, packet: PacketId, pool: &mut PacketPool, params: &CodelParams) -> bool {
        let header = pool.get_mut(packet);
        if params.ecn && header.ecn != Ecn::NotEct {
            header.ecn = Ecn::Ce;
            self.marks += 1;
            true
        } else {
            false
        }
    }

    /// RFC 8289 dequeue: the next packet to send; dropped packets go to `dropped`.
    pub fn dequeue(
        &mut self,
        fifo: &mut Fifo,
        pool: &mut PacketPool,
        now: SimTime,
        params: &CodelParams,
        dropped: &mut Vec<PacketId>,
    ) -> Option<PacketId> {
        let (mut packet, mut ok_to_drop) = self.pop(fifo, pool, now, params);
        let Some(head) = packet else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                let current = packet.expect("a packet is in hand while dropping");
                if self.try_mark(current, pool, params) {
                    self.drop_next = control_law(self.drop_next, params.interval, self.count);
                    return Some(current);
                }
                dropped.push(current);
                (packet, ok_to_drop) = self.pop(fifo, pool, now, params);
                if packet.is_none() || !ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = control_law(self.drop_next, params.interval, self.count);
                }
            }
        } else if ok_to_drop {
            if !self.try_mark(head, pool, params) {
                dropped.push(head);
                (packet, _) = self.pop(fifo, pool, now, params);
            }
            self.dropping = true;
            let delta = self.count.saturating_sub(self.last_count);
            self.count = if delta > 1 && now.saturating_sub(self.drop_next) < 16 * params.interval { delta } else { 1 };
            self.drop_next = control_law(now, params.interval, self.count);
            self.last_count = self.count;
        }
        packet
    }
}

/// A single CoDel queue.
pub struct Codel {
    params: CodelParams,
    limit: QueueLimit,
    fifo: Fifo,
    pub state: CodelState,
}

impl Codel {
    pub fn new(params: CodelParams, limit: QueueLimit) -> Self {
        Self { params, limit, fifo: Fifo::default(), state: CodelState::default() }
    }
}

impl QueueDiscipline for Codel {
    fn settings(&self) -> QueueSettings {
        QueueSettings { kind: "codel", limit: self.limit, parameters: self.params.settings() }
    }

    fn enqueue(
        &mut self,
        packet: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
        _evicted: &mut Vec<PacketId>,
    ) -> EnqueueOutcome {
        let size = pool.get(packet).wire_bytes as u64;
        let fits = self.limit.admits(self.fifo.packets.len(), self.fifo.bytes, size);
        if !fits {
            return EnqueueOutcome::Dropped;
        }
        self.state.note_packet(size);
        self.fifo.push(packet, pool, now);
        EnqueueOutcome::Queued
    }

    fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime, dropped: &mut Vec<PacketId>) -> Option<PacketId> {
        self.state.dequeue(&mut self.fifo, pool, now, &self.params, dropped)
    }

    fn len_packets(&self) -> usize {
        self.fifo.packets.len()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.bytes
    }

    fn dequeue_marks(&self) -> u64 {
        self.state.marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;
    use crate::time::NANOS_PER_MILLI as MS;

    fn params() -> CodelParams {
        CodelParams { target: 5 * MS, interval: 100 * MS, ecn: false }
    }

    #[test]
    fn control_law_spaces_drops_by_interval_over_sqrt_count() {
        assert_eq!(control_law(0, 100 * MS, 1), 100 * MS);
        assert_eq!(control_law(0, 100 * MS, 4), 50 * MS);
    }

    #[test]
    fn drops_only_after_a_full_interval_above_target() {
        let mut pool = PacketPool::default();
        let mut codel = Codel::new(params(), QueueLimit::Packets(1000));
        let mut dropped = Vec::new();
        // A standing queue of 100 packets that all waited 20 ms.
        for _ in 0..100 {
            let p = pool.insert(Packet { wire_bytes: 1500, ..Packet::default() });
            codel.enqueue(p, &mut pool, 0, &mut dropped);
        }
        // At 20 ms: above target, the clock starts (first_above = 120 ms); no drop.
        codel.dequeue(&mut pool, 20 * MS, &mut dropped);
        assert!(dropped.is_empty());
        codel.dequeue(&mut pool, 119 * MS, &mut dropped);
        assert!(dropped.is_empty(), "still within the first interval");
        // At 120 ms: one drop, dropping state, next drop 100 ms later.
        codel.dequeue(&mut pool, 120 * MS, &mut dropped);
        assert_eq!(dropped.len(), 1);
        assert!(codel.state.dropping);
        assert_eq!(codel.state.drop_next, 220 * MS);
        codel.dequeue(&mut pool, 219 * MS, &mut dropped);
        assert_eq!(dropped.len(), 1);
        // At 220 ms: count 2, the next drop comes 100 / sqrt(2) = 70.7 ms later.
        codel.dequeue(&mut pool, 220 * MS, &mut dropped);
        assert_eq!(dropped.len(), 2);
        assert_eq!(codel.state.drop_next, 220 * MS + 70_710_678);
    }

    #[test]
    fn ecn_marks_instead_of_dropping() {
        let mut pool = PacketPool::default();
        let mut codel = Codel::new(CodelParams { ecn: true, ..params() }, QueueLimit::Packets(1000));
        let mut dropped = Vec::new();
        for _ in 0..50 {
            let p = pool.insert(Packet { wire_bytes: 1500, ecn: Ecn::Ect, ..Packet::default() });
            codel.enqueue(p, &mut pool, 0, &mut dropped);
        }
        codel.dequeue(&mut pool, 20 * MS, &mut dropped);
        let marked = codel.dequeue(&mut pool, 120 * MS, &mut dropped).unwrap();
        assert!(dropped.is_empty());
        assert_eq!(pool.get(marked).ecn, Ecn::Ce);
        assert_eq!(codel.state.marks, 1);
    }
}
