//! Packets are plain structs kept in an arena and referred to by index, so the steady state of a
//! simulation allocates nothing per packet: a freed slot is reused by the next packet.

use crate::sim::NextHop;
pub use crate::sim::PacketId;
use crate::time::{SimDuration, SimTime};

/// The most SACK blocks one ACK carries (RFC 2018 allows 3 alongside timestamps).
pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PacketKind {
    #[default]
    TcpData,
    TcpAck,
    Udp,
}

/// The two-bit ECN field of the IP header (RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect,
    Ce,
}

/// The part of a destination's routing entry the hops before it read: its router (as a core
/// node) and the channel down to it. A packet carries it (`Packet::destination_route`), filled
/// where it enters the network, because at 10,000 flows each hop's look-up of the destination's
/// entry was a cache miss (20,000 hosts' entries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DestinationRoute {
    /// The destination's router's index among the core nodes (its own, for a core node).
    pub core: u32,
    /// The channel into the destination from its router (`NO_ROUTE` for a core node).
    pub downlink: u32,
}

impl DestinationRoute {
    /// Not filled in: `Network::route_to` looks the destination up.
    pub const UNKNOWN: DestinationRoute = DestinationRoute { core: u32::MAX, downlink: u32::MAX };
}

impl Default for DestinationRoute {
    fn default() -> Self {
        Self::UNKNOWN
    }
}

/// One packet: the IP-level fields every hop reads, then the TCP fields the endpoints read. The
/// order is fixed (`repr(C)`) and a packet is two aligned 64-byte cache lines, so that a hop and a
/// data segment's delivery touch the first line only; what only ACKs carry (the cumulative ACK,
/// the receive window, the SACK blocks) is in the second.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub struct Packet {
    pub kind: PacketKind,
    pub ecn: Ecn,
    /// Which connection of a restarting flow (`restart = true`) the packet belongs to: packets of
    /// an earlier connection are discarded where they arrive.
    pub connection: u16,
    /// Index of the TCP flow or UDP source this packet belongs to.
    pub flow: u32,
    /// Node the packet is addressed to.
    pub destination: u32,
    /// Bytes on the wire, headers included: what links serialise and byte-limited queues count.
    pub wire_bytes: u32,
    /// When the packet entered the queue it is in, for sojourn-time measurement.
    pub enqueued_at: SimTime,
    /// TCP data: first payload byte's sequence number (bytes from the start of the stream, no wrap).
    pub sequence: u64,
    /// TCP data or UDP: payload bytes.
    pub payload_bytes: u32,
    /// TCP ACK: ECN-Echo. TCP data: Congestion Window Reduced.
    pub ece: bool,
    pub cwr: bool,
    pub sack_count: u8,
    /// The destination's routing entry, filled where the packet enters the network so that the
    /// hops on its way do not look it up (`Network::route_to`).
    pub destination_route: DestinationRoute,
    /// When the sender sent this packet (the TCP timestamp value, and the UDP send time).
    pub sent_at: SimTime,
    /// TCP data: the send time of the last ACK the sender processed (a timestamp echo, as RFC
    /// 7323's TSecr), which lets the receiver measure the RTT.
    pub ts_echo: SimTime,
    /// TCP ACK: receive window in bytes (at most TCP's largest, 1,073,725,440: RFC 7323).
    pub receive_window: u32,
    /// TCP ACK: cumulative acknowledgement (next byte expected).
    pub ack: u64,
    /// TCP ACK: SACK blocks [start, end), most recent first, as signed distances in bytes from
    /// `ack` (`set_sack_blocks`, `sack_blocks`). TCP's sequence numbers are 32 bits and its
    /// window at most 2^30 bytes, so every block an ACK can report lies well within 2^31 bytes of
    /// it; half the size of absolute 64-bit edges, which keeps a packet in two cache lines.
    pub sack: [(i32, i32); MAX_SACK_BLOCKS],
    /// Exact receiver-based delay control: the queueing delay the packet would have met in large
    /// FIFO buffers along its path beyond what it actually waited, stamped by routers.
    pub delay_stamp: SimDuration,
    /// Exact RDC: the wait in the virtual large FIFO of the link the packet is queued at, set when
    /// it arrives there; the stamp takes the part of it the real queue did not impose.
    pub virtual_wait: SimDuration,
    /// TCP ACK: when the receiver got the data segment whose send time `ts_echo` echoes, so the
    /// sender learns that segment's one-way delay without the receiver's ACK delay (the delay
    /// RFC 6817 §2.3 has the receiver compute at arrival and send back). Fills the second cache
    /// line's last 8 bytes.
    pub ts_echo_arrival: SimTime,
}

impl Packet {
    /// What ECMP hashes to keep a flow on one path (`Network::route`): the flow's index and which
    /// of its numberings and directions the packet belongs to (TCP data, TCP ACKs, UDP).
    #[inline]
    pub fn flow_key(&self) -> u64 {
        flow_key(self.kind, self.flow)
    }

    /// The SACK blocks, most recent first, as [start, end) byte ranges of the stream.
    pub fn sack_blocks(&self) -> impl ExactSizeIterator<Item = (u64, u64)> + '_ {
        let edge = |distance: i32| self.ack.wrapping_add_signed(distance as i64);
        self.sack[..self.sack_count as usize].iter().map(move |&(start, end)| (edge(start), edge(end)))
    }

    /// Sets the SACK blocks (at most `MAX_SACK_BLOCKS`, most recent first), after `ack`.
    pub fn set_sack_blocks(&mut self, blocks: &[(u64, u64)]) {
        assert!(blocks.len() <= MAX_SACK_BLOCKS, "an ACK carries at most {MAX_SACK_BLOCKS} SACK blocks");
        let distance = |edge: u64| {
            i32::try_from(edge as i64 - self.ack as i64).expect("a SACK block lies within 2^31 bytes of the ACK")
        };
        for (slot, &(start, end)) in self.sack.iter_mut().zip(blocks) {
            *slot = (distance(start), distance(end));
        }
        self.sack_count = blocks.len() as u8;
    }
}

/// The ECMP key of the packets of kind `kind` of flow `flow` (TCP flows and UDP sources are
/// numbered apart; a TCP flow's data and ACKs are hashed apart, as two directions of a real
/// connection's 5-tuple are).
#[inline]
pub fn flow_key(kind: PacketKind, flow: u32) -> u64 {
    let class = match kind {
        PacketKind::TcpData => 0u64,
        PacketKind::TcpAck => 1,
        PacketKind::Udp => 2,
    };
    class << 32 | flow as u64
}

/// Where a packet on a link's wire behind the one whose arrival is scheduled is due, and which
/// packet follows it there (`WireQueue`, `net/wire_queue.rs`). A packet is on at most one wire at
/// a time, so the pool keeps one such place per slot.
#[derive(Clone, Copy, Debug)]
pub struct WirePlace {
    pub arrival: SimTime,
    /// The arrival event's tie-break sequence, taken when the packet went onto the wire.
    pub sequence: u64,
    pub next_hop: NextHop,
    /// The packet behind this one on the same wire (`NO_PACKET`: none).
    pub behind: PacketId,
}

/// No packet: the end of a wire's list.
pub const NO_PACKET: PacketId = PacketId::MAX;

const UNUSED_PLACE: WirePlace = WirePlace { arrival: 0, sequence: 0, next_hop: NextHop::UNKNOWN, behind: NO_PACKET };

/// Arena of packets with a free list. Packets the network discards (a full queue, an AQM, a lossy
/// or broken wire) are counted per flow here, where every packet's life ends.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    /// Beside each slot, its packet's place on a wire (read only while it is on one).
    wire_places: Vec<WirePlace>,
    free: Vec<PacketId>,
    /// TCP data segments and UDP datagrams discarded, by flow index (grown on demand).
    tcp_data_discarded: Vec<u64>,
    udp_discarded: Vec<u64>,
}

impl PacketPool {
    pub fn insert(&mut self, packet: Packet) -> PacketId {
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = packet;
                id
            }
            None => {
                self.slots.push(packet);
                self.wire_places.push(UNUSED_PLACE);
                (self.slots.len() - 1) as PacketId
            }
        }
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Asks the CPU to start loading a packet that will be needed soon (the next one to leave a
    /// queue or to arrive off a wire). With thousands of packets queued, a packet's slot has left
    /// the caches by the time it is used, and waiting for that load was most of the run time at
    /// 100 flows; a hint issued one packet ahead hides it. Changes no result.
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        if let Some(slot) = self.slots.get(id as usize) {
            crate::prefetch::prefetch_all(slot);
        }
    }

    #[inline]
    pub fn wire_place(&self, id: PacketId) -> &WirePlace {
        &self.wire_places[id as usize]
    }

    #[inline]
    pub fn wire_place_mut(&mut self, id: PacketId) -> &mut WirePlace {
        &mut self.wire_places[id as usize]
    }

    /// Starts loading a packet's wire place, which the next arrival off its wire reads.
    #[inline]
    pub fn prefetch_wire_place(&self, id: PacketId) {
        if let Some(place) = self.wire_places.get(id as usize) {
            crate::prefetch::prefetch(place);
        }
    }

    /// Gives back every slot's room at the end of a run (no packet id may be used after it);
    /// the discard counts stay.
    pub fn free_slots(&mut self) {
        self.slots = Vec::new();
        self.wire_places = Vec::new();
        self.free = Vec::new();
    }

    /// Returns a slot to the pool; the id must not be used again.
    pub fn release(&mut self, id: PacketId) {
        self.free.push(id);
    }

    /// The network discards a packet: counted against its flow, then released.
    pub fn discard(&mut self, id: PacketId) {
        self.release(id);
        let packet = &self.slots[id as usize];
        let counts = match packet.kind {
            PacketKind::TcpData => &mut self.tcp_data_discarded,
            PacketKind::Udp => &mut self.udp_discarded,
            PacketKind::TcpAck => return,
        };
        let flow = packet.flow as usize;
        if counts.len() <= flow {
            counts.resize(flow + 1, 0);
        }
        counts[flow] += 1;
    }

    /// Data segments of TCP flow `flow` the network discarded.
    pub fn tcp_data_discarded(&self, flow: u32) -> u64 {
        self.tcp_data_discarded.get(flow as usize).copied().unwrap_or(0)
    }

    /// Datagrams of UDP flow `flow` the network discarded.
    pub fn udp_discarded(&self, flow: u32) -> u64 {
        self.udp_discarded.get(flow as usize).copied().unwrap_or(0)
    }

    /// Packets currently alive (in queues or in flight on links).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Slots ever allocated: the pool's high-water mark.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn a_packet_is_two_cache_lines_and_hops_and_data_segments_read_the_first() {
        assert_eq!((size_of::<Packet>(), align_of::<Packet>()), (128, 64));
        let first_line = [
            offset_of!(Packet, kind),
            offset_of!(Packet, ecn),
            offset_of!(Packet, connection),
            offset_of!(Packet, flow),
            offset_of!(Packet, destination),
            offset_of!(Packet, wire_bytes),
            offset_of!(Packet, enqueued_at),
            offset_of!(Packet, sequence),
            offset_of!(Packet, payload_bytes),
            offset_of!(Packet, cwr),
            offset_of!(Packet, destination_route) + size_of::<DestinationRoute>() - 1,
            offset_of!(Packet, sent_at),
            offset_of!(Packet, ts_echo) + size_of::<SimTime>() - 1,
        ];
        assert!(first_line.iter().all(|&offset| offset < 64), "{first_line:?}");
    }
}
