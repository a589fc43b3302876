//! A channel's queue discipline, kept as its limit alone while it is a plain drop-tail FIFO that
//! no packet has needed as an object.
//!
//! A channel that sends lazily (`Channel::offer_to_lazy_fifo`: a plain FIFO, a fixed rate) keeps
//! its waiting packets itself and only reads the FIFO's limit, so a boxed `DropTail` there is never
//! used: at 10,000 flows the 40,004 link directions' boxes were 2.9 MB of the heap's peak (80 bytes
//! each as allocated). A plain FIFO becomes a `DropTail` the first time a channel that cannot send
//! lazily (a trace, a rate or delay schedule, RDC stamping) queues a packet in it; that `DropTail`
//! behaves as the one the scenario built, which held no packet yet.

use crate::net::queue::{DropTail, QueueDiscipline, QueueLimit, QueueSettings};

pub enum ChannelQueue {
    /// A drop-tail FIFO that marks nothing, with this limit.
    PlainFifo(QueueLimit),
    Discipline(Box<dyn QueueDiscipline>),
}

impl ChannelQueue {
    pub fn new(queue: Box<dyn QueueDiscipline>) -> Self {
        match queue.fifo_limit() {
            Some(limit) => ChannelQueue::PlainFifo(limit),
            None => ChannelQueue::Discipline(queue),
        }
    }

    /// The discipline as an object, made now for a plain FIFO.
    pub fn discipline_mut(&mut self) -> &mut dyn QueueDiscipline {
        if let ChannelQueue::PlainFifo(limit) = *self {
            *self = ChannelQueue::Discipline(Box::new(DropTail::new(limit, None)));
        }
        match self {
            ChannelQueue::Discipline(queue) => queue.as_mut(),
            ChannelQueue::PlainFifo(_) => unreachable!("a plain FIFO was made a discipline just above"),
        }
    }

    /// The discipline, if it is an object yet (a plain FIFO that is not holds nothing).
    fn discipline(&self) -> Option<&dyn QueueDiscipline> {
        match self {
            ChannelQueue::PlainFifo(_) => None,
            ChannelQueue::Discipline(queue) => Some(queue.as_ref()),
        }
    }

    pub fn len_packets(&self) -> usize {
        self.discipline().map_or(0, |queue| queue.len_packets())
    }

    pub fn len_bytes(&self) -> u64 {
        self.discipline().map_or(0, |queue| queue.len_bytes())
    }

    pub fn is_empty(&self) -> bool {
        self.discipline().is_none_or(|queue| queue.is_empty())
    }

    pub fn early_drops(&self) -> u64 {
        self.discipline().map_or(0, |queue| queue.early_drops())
    }

    /// The limit of a plain drop-tail FIFO, which a channel may send from lazily.
    pub fn fifo_limit(&self) -> Option<QueueLimit> {
        match self {
            ChannelQueue::PlainFifo(limit) => Some(*limit),
            ChannelQueue::Discipline(queue) => queue.fifo_limit(),
        }
    }

    pub fn settings(&self) -> QueueSettings {
        match self {
            ChannelQueue::PlainFifo(limit) => DropTail::new(*limit, None).settings(),
            ChannelQueue::Discipline(queue) => queue.settings(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, PacketPool};

    #[test]
    fn a_plain_fifo_is_its_limit_until_a_packet_needs_the_queue() {
        let limit = QueueLimit::Packets(1);
        let mut queue = ChannelQueue::new(Box::new(DropTail::new(limit, None)));
        assert!(matches!(queue, ChannelQueue::PlainFifo(QueueLimit::Packets(1))));
        assert_eq!(queue.settings(), DropTail::new(limit, None).settings());
        assert_eq!((queue.fifo_limit(), queue.len_packets(), queue.is_empty()), (Some(limit), 0, true));
        // Queued into, it is the drop-tail FIFO the scenario built: one packet in, the next dropped.
        let mut pool = PacketPool::default();
        let first = pool.insert(Packet { wire_bytes: 1500, ..Packet::default() });
        let second = pool.insert(Packet { wire_bytes: 1500, ..Packet::default() });
        let mut evicted = Vec::new();
        let outcomes = [first, second].map(|p| queue.discipline_mut().enqueue(p, &mut pool, 0, &mut evicted));
        assert!(matches!(
            outcomes,
            [crate::net::queue::EnqueueOutcome::Queued, crate::net::queue::EnqueueOutcome::Dropped]
        ));
        assert_eq!((queue.len_packets(), queue.len_bytes(), queue.fifo_limit()), (1, 1500, Some(limit)));
    }

    #[test]
    fn a_marking_fifo_stays_the_object_it_was_built_as() {
        let queue = ChannelQueue::new(Box::new(DropTail::new(QueueLimit::Packets(100), Some(QueueLimit::Packets(15)))));
        assert!(matches!(queue, ChannelQueue::Discipline(_)));
        assert_eq!(queue.settings().kind, "step");
        assert_eq!(queue.fifo_limit(), None);
    }
}
