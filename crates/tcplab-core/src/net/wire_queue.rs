//! The packets on a link's wire behind the one whose arrival is scheduled, in arrival order: a
//! list threaded through the packet pool's wire places (`PacketPool::wire_place`) rather than a
//! buffer per link direction.
//!
//! A buffer per direction keeps the largest room it ever grew into, and every direction of a
//! 10,000-flow run (40,004 of them) grows into a slow-start burst at some time: at the scale
//! benchmark's 1,000 and 10,000 flows those buffers held 5.8 and 9.8 MB at the heap's peak while
//! the packets on wires needed a tenth of that. A packet is on one wire at a time, so a place
//! beside each pool slot (24 bytes, as a buffer's entry was) holds them all, and a wire holds two
//! packet ids.

use crate::net::packet::{PacketId, PacketPool, WirePlace, NO_PACKET};
use crate::sim::NextHop;
use crate::time::SimTime;

/// A wire's packets in arrival order: the first and the last (`NO_PACKET` when empty).
#[derive(Clone, Copy, Debug)]
pub struct WireQueue {
    front: PacketId,
    back: PacketId,
}

impl Default for WireQueue {
    fn default() -> Self {
        WireQueue { front: NO_PACKET, back: NO_PACKET }
    }
}

impl WireQueue {
    /// Puts `packet`, due at `arrival` with tie-break `sequence`, behind the last packet.
    #[inline]
    pub fn push_back(
        &mut self,
        pool: &mut PacketPool,
        packet: PacketId,
        arrival: SimTime,
        sequence: u64,
        next_hop: NextHop,
    ) {
        *pool.wire_place_mut(packet) = WirePlace { arrival, sequence, next_hop, behind: NO_PACKET };
        if self.back == NO_PACKET {
            self.front = packet;
        } else {
            pool.wire_place_mut(self.back).behind = packet;
        }
        self.back = packet;
    }

    /// Takes the first packet and its place; starts loading the next one's place, which the
    /// next take reads.
    #[inline]
    pub fn pop_front(&mut self, pool: &PacketPool) -> Option<(PacketId, WirePlace)> {
        if self.front == NO_PACKET {
            return None;
        }
        let packet = self.front;
        let place = *pool.wire_place(packet);
        self.front = place.behind;
        if self.front == NO_PACKET {
            self.back = NO_PACKET;
        } else {
            pool.prefetch_wire_place(self.front);
        }
        Some((packet, place))
    }

    /// The first packet, if any (to prefetch its place ahead of its take).
    pub fn front(&self) -> Option<PacketId> {
        (self.front != NO_PACKET).then_some(self.front)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;

    fn packet(pool: &mut PacketPool) -> PacketId {
        pool.insert(Packet::default())
    }

    #[test]
    fn packets_leave_in_the_order_they_went_on_with_their_places() {
        let mut pool = PacketPool::default();
        let mut wire = WireQueue::default();
        assert!(wire.front().is_none() && wire.pop_front(&pool).is_none());
        let ids: Vec<PacketId> = (0..5).map(|_| packet(&mut pool)).collect();
        for (i, &id) in ids.iter().enumerate() {
            wire.push_back(&mut pool, id, 100 + i as u64, 7 + i as u64, NextHop::channel(i as u32));
        }
        assert_eq!(wire.front(), Some(ids[0]));
        for (i, &id) in ids.iter().enumerate() {
            let (taken, place) = wire.pop_front(&pool).expect("a packet is on the wire");
            assert_eq!(
                (taken, place.arrival, place.sequence, place.next_hop),
                (id, 100 + i as u64, 7 + i as u64, NextHop::channel(i as u32))
            );
        }
        assert!(wire.front().is_none() && wire.pop_front(&pool).is_none());
    }

    #[test]
    fn two_wires_share_the_pool_and_a_packet_moves_from_one_to_the_other() {
        let mut pool = PacketPool::default();
        let (mut first, mut second) = (WireQueue::default(), WireQueue::default());
        let (a, b, c) = (packet(&mut pool), packet(&mut pool), packet(&mut pool));
        first.push_back(&mut pool, a, 1, 1, NextHop::UNKNOWN);
        second.push_back(&mut pool, b, 2, 2, NextHop::UNKNOWN);
        first.push_back(&mut pool, c, 3, 3, NextHop::UNKNOWN);
        let (moved, _) = first.pop_front(&pool).unwrap();
        second.push_back(&mut pool, moved, 4, 4, NextHop::UNKNOWN);
        let order = |wire: &mut WireQueue, pool: &PacketPool| {
            std::iter::from_fn(|| wire.pop_front(pool).map(|(id, p)| (id, p.arrival))).collect::<Vec<_>>()
        };
        assert_eq!(order(&mut first, &pool), vec![(c, 3)]);
        assert_eq!(order(&mut second, &pool), vec![(b, 2), (a, 4)]);
        // Emptied, a wire takes packets again from the start.
        first.push_back(&mut pool, b, 5, 5, NextHop::UNKNOWN);
        assert_eq!(order(&mut first, &pool), vec![(b, 5)]);
    }
}
