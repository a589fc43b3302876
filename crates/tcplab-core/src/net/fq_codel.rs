//! FQ-CoDel (RFC 8290, Hoeiland-Joergensen, McKenney, Taht, Gettys and Dumazet): flows are
//! classified into sub-queues, each governed by its own CoDel state, and served by deficit round
//! robin with a quantum of one MTU. Sub-queues that become active go to the new-flows list, which is
//! served before the old-flows list, so sparse flows (ACKs, short transfers) see little delay.
//!
//! Classification uses the flow identity tcplab packets carry (no hash collisions unless there
//! are more flows than sub-queues, when they share by modulo). When the buffer limit is exceeded
//! the head packet of the sub-queue holding the most bytes is dropped (RFC 8290 section 4.1.3; Linux
//! drops a batch, tcplab one packet per arrival).

use std::collections::VecDeque;

use crate::net::codel::{CodelParams, CodelState, Fifo};
use crate::net::packet::{PacketId, PacketKind, PacketPool};
use crate::net::queue::{EnqueueOutcome, QueueDiscipline, QueueLimit, QueueSettings};
use crate::time::SimTime;

#[derive(Default)]
struct SubQueue {
    fifo: Fifo,
    codel: CodelState,
    deficit: i64,
    listed: bool,
}

pub struct FqCodel {
    params: CodelParams,
    quantum: i64,
    limit_packets: u64,
    queues: Vec<SubQueue>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    packets: u64,
    bytes: u64,
}

impl FqCodel {
    pub fn new(params: CodelParams, sub_queues: usize, quantum_bytes: u64, limit_packets: u64) -> Self {
        Self {
            params,
            quantum: quantum_bytes as i64,
            limit_packets,
            queues: (0..sub_queues.max(1)).map(|_| SubQueue::default()).collect(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            packets: 0,
            bytes: 0,
        }
    }

    fn classify(&self, pool: &PacketPool, packet: PacketId) -> usize {
        let header = pool.get(packet);
        let kind = match header.kind {
            PacketKind::TcpData => 0,
            PacketKind::TcpAck => 1,
            PacketKind::Udp => 2,
        };
        (header.flow as usize * 3 + kind) % self.queues.len()
    }

    fn recount(&mut self) {
        self.packets = self.queues.iter().map(|q| q.fifo.packets.len() as u64).sum();
        self.bytes = self.queues.iter().map(|q| q.fifo.bytes).sum();
    }
}

impl QueueDiscipline for FqCodel {
    fn settings(&self) -> QueueSettings {
        let mut parameters = self.params.settings();
        parameters.push(("flows", self.queues.len() as f64));
        parameters.push(("quantum_bytes", self.quantum as f64));
        QueueSettings { kind: "fq_codel", limit: QueueLimit::Packets(self.limit_packets), parameters }
    }

    fn enqueue(
        &mut self,
        packet: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
        evicted: &mut Vec<PacketId>,
    ) -> EnqueueOutcome {
        let index = self.classify(pool, packet);
        let size = pool.get(packet).wire_bytes as u64;
        let queue = &mut self.queues[index];
        queue.codel.note_packet(size);
        queue.fifo.push(packet, pool, now);
        if !queue.listed {
            queue.listed = true;
            queue.deficit = self.quantum;
            self.new_flows.push_back(index);
        }
        self.packets += 1;
        self.bytes += size;
        if self.packets > self.limit_packets {
            let fattest = (0..self.queues.len())
                .max_by_key(|&i| (self.queues[i].fifo.bytes, usize::MAX - i))
                .expect("at least one sub-queue");
            let victim = self.queues[fattest].fifo.pop(pool).expect("the fattest sub-queue holds packets");
            self.packets -= 1;
            self.bytes -= pool.get(victim).wire_bytes as u64;
            if victim == packet {
                return EnqueueOutcome::Dropped;
            }
            evicted.push(victim);
        }
        EnqueueOutcome::Queued
    }

    fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime, dropped: &mut Vec<PacketId>) -> Option<PacketId> {
        loop {
            let (index, from_new) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (i, true),
                (None, Some(&i)) => (i, false),
                (None, None) => return None,
            };
            let queue = &mut self.queues[index];
            if queue.deficit <= 0 {
                queue.deficit += self.quantum;
                if from_new {
                    self.new_flows.pop_front()
                } else {
                    self.old_flows.pop_front()
                };
                self.old_flows.push_back(index);
                continue;
            }
            let before = dropped.len();
            let packet = queue.codel.dequeue(&mut queue.fifo, pool, now, &self.params, dropped);
            if dropped.len() != before || packet.is_some() {
                self.recount();
            }
            let queue = &mut self.queues[index];
            match packet {
                Some(packet) => {
                    queue.deficit -= pool.get(packet).wire_bytes as i64;
                    return Some(packet);
                }
                None => {
                    // An emptied new flow moves to the old list once (RFC 8290 section 4.2);
                    // an emptied old flow leaves the schedule.
                    if from_new {
                        self.new_flows.pop_front();
                        self.old_flows.push_back(index);
                    } else {
                        self.old_flows.pop_front();
                        queue.listed = false;
                    }
                }
            }
        }
    }

    fn len_packets(&self) -> usize {
        self.packets as usize
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn dequeue_marks(&self) -> u64 {
        self.queues.iter().map(|q| q.codel.marks).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;
    use crate::time::NANOS_PER_MILLI as MS;

    #[test]
    fn a_sparse_flow_overtakes_a_backlogged_one() {
        let mut pool = PacketPool::default();
        let mut fq = FqCodel::new(CodelParams { target: 5 * MS, interval: 100 * MS, ecn: false }, 1024, 1514, 10_240);
        let mut scratch = Vec::new();
        for _ in 0..50 {
            let p = pool.insert(Packet { flow: 0, wire_bytes: 1500, ..Packet::default() });
            fq.enqueue(p, &mut pool, 0, &mut scratch);
        }
        // Serve a few packets of flow 0; it moves to the old list once its quantum is spent.
        for _ in 0..3 {
            fq.dequeue(&mut pool, MS, &mut scratch);
        }
        let sparse = pool.insert(Packet { flow: 7, wire_bytes: 100, ..Packet::default() });
        fq.enqueue(sparse, &mut pool, 2 * MS, &mut scratch);
        assert_eq!(fq.dequeue(&mut pool, 2 * MS, &mut scratch), Some(sparse), "new flows are served first");
        assert_eq!(fq.len_packets(), 47);
    }

    #[test]
    fn overflow_drops_from_the_fattest_flow() {
        let mut pool = PacketPool::default();
        let mut fq = FqCodel::new(CodelParams { target: 5 * MS, interval: 100 * MS, ecn: false }, 1024, 1514, 10);
        let mut evicted = Vec::new();
        let mut first_of_big = None;
        for _ in 0..9 {
            let p = pool.insert(Packet { flow: 0, wire_bytes: 1500, ..Packet::default() });
            first_of_big.get_or_insert(p);
            fq.enqueue(p, &mut pool, 0, &mut evicted);
        }
        for _ in 0..2 {
            let p = pool.insert(Packet { flow: 1, wire_bytes: 1500, ..Packet::default() });
            assert_eq!(fq.enqueue(p, &mut pool, 0, &mut evicted), EnqueueOutcome::Queued);
        }
        assert_eq!(evicted, vec![first_of_big.unwrap()], "the head of the 9-packet flow made room");
        assert_eq!(fq.len_packets(), 10);
    }
}
