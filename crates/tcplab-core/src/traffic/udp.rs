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
    /// Interarrival jitter (RFC 3550 section 6.4.1, as iperf3 reports it): a running mean, gain
    /// 1/16, of the change in one-way delay between consecutive datagrams; nanoseconds.
    pub jitter_ns: f64,
    /// The previous datagram's one-way delay, for the next jitter step.
    last_transit: Option<SimTime>,
}

impl UdpStats {
    pub fn record_sent(&mut self, datagram: &Packet) {
        self.sent_packets += 1;
        self.sent_bytes += datagram.payload_bytes as u64;
    }

    pub fn record_received(&mut self, datagram: &Packet, now: SimTime) {
        self.received_packets += 1;
        self.received_bytes += datagram.payload_bytes as u64;
        let transit = now - datagram.sent_at;
        self.one_way_delay.record(transit);
        if let Some(previous) = self.last_transit.replace(transit) {
            self.jitter_ns += (transit.abs_diff(previous) as f64 - self.jitter_ns) / 16.0;
        }
    }

    /// The jitter in milliseconds; NaN before two datagrams have arrived.
    pub fn jitter_ms(&self) -> f64 {
        if self.received_packets < 2 {
            f64::NAN
        } else {
            self.jitter_ns / 1e6
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_is_rfc_3550s_running_mean_of_delay_changes() {
        // Transit times 10, 14, 12 ms: changes 4 and 2 ms. J = 4/16 = 0.25 ms, then
        // J = 0.25 + (2 - 0.25)/16 = 0.359375 ms.
        let mut stats = UdpStats::default();
        assert!(stats.jitter_ms().is_nan());
        for (sent, transit_ms) in [(0, 10), (100, 14), (200, 12)] {
            let sent_at = sent * 1_000_000;
            let packet = Packet { sent_at, payload_bytes: 100, ..Packet::default() };
            stats.record_received(&packet, sent_at + transit_ms * 1_000_000);
        }
        assert!((stats.jitter_ms() - 0.359375).abs() < 1e-12, "{}", stats.jitter_ms());
    }
}
