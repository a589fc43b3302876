//! Constant-bit-rate UDP: one datagram of a fixed wire size every wire size / rate, and the
//! counters of what was sent and received.

use crate::histogram::DelayHistogram;
use crate::net::packet::{Packet, PacketKind};
use crate::time::SimTime;

/// IPv4 (20 bytes) and UDP (8 bytes) headers: a datagram's wire size minus these is its payload.
pub const UDP_IP_HEADER_BYTES: u64 = 28;

/// A datagram of `wire_bytes` on the wire, sent now by UDP flow `flow` towards node `destination`.
pub fn datagram(flow: u32, destination: u32, wire_bytes: u64, now: SimTime) -> Packet {
    Packet {
        kind: PacketKind::Udp,
        flow,
        destination,
        wire_bytes: wire_bytes as u32,
        payload_bytes: wire_bytes.saturating_sub(UDP_IP_HEADER_BYTES) as u32,
        sent_at: now,
        ..Packet::default()
    }
}

/// Payload counters of one UDP flow.
#[derive(Default)]
pub struct UdpStats {
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub received_packets: u64,
    pub received_bytes: u64,
    /// One-way delays of received datagrams.
    pub one_way_delay: DelayHistogram,
}

impl UdpStats {
    pub fn record_sent(&mut self, datagram: &Packet) {
        self.sent_packets += 1;
        self.sent_bytes += datagram.payload_bytes as u64;
    }

    pub fn record_received(&mut self, datagram: &Packet, now: SimTime) {
        self.received_packets += 1;
        self.received_bytes += datagram.payload_bytes as u64;
        self.one_way_delay.record(now - datagram.sent_at);
    }
}
