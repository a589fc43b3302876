//! What the emulator needs from a real packet (etherparse reads the headers): its size on the
//! wire, its ECN field, where it goes, whether it carries TCP payload, and its ports. And the one
//! change it makes: setting the ECN field to CE when a queue marks the packet (RFC 3168), with the
//! header checksum recomputed.

use etherparse::{IpEcn, IpNumber, Ipv4Header, Ipv4HeaderSlice, TcpHeaderSlice, UdpHeaderSlice};
use tcplab_core::net::packet::{Ecn, PacketKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datagram {
    /// The IP packet's total length: what links serialise and byte-limited queues count.
    pub wire_bytes: u32,
    pub ecn: Ecn,
    pub destination: [u8; 4],
    pub kind: PacketKind,
    /// TCP or UDP payload bytes.
    pub payload_bytes: u32,
    /// (source, destination) ports; (0, 0) for other protocols.
    pub ports: (u16, u16),
}

/// The packet's headers, or None for anything that is not a well-formed IPv4 packet.
pub fn inspect(bytes: &[u8]) -> Option<Datagram> {
    let ip = Ipv4HeaderSlice::from_slice(bytes).ok()?;
    let wire_bytes = ip.total_len() as u32;
    let header_bytes = ip.ihl() as usize * 4;
    let transport = bytes.get(header_bytes..wire_bytes as usize)?;
    let ecn = match ip.ecn() {
        IpEcn::NotEct => Ecn::NotEct,
        IpEcn::Ect0 | IpEcn::Ect1 => Ecn::Ect,
        IpEcn::CongestionExperienced => Ecn::Ce,
    };
    let (kind, payload_bytes, ports) = match ip.protocol() {
        IpNumber::TCP => {
            let tcp = TcpHeaderSlice::from_slice(transport).ok()?;
            let payload = transport.len().saturating_sub(tcp.data_offset() as usize * 4) as u32;
            let kind = if payload > 0 { PacketKind::TcpData } else { PacketKind::TcpAck };
            (kind, payload, (tcp.source_port(), tcp.destination_port()))
        }
        IpNumber::UDP => {
            let udp = UdpHeaderSlice::from_slice(transport).ok()?;
            (PacketKind::Udp, transport.len().saturating_sub(8) as u32, (udp.source_port(), udp.destination_port()))
        }
        _ => (PacketKind::Udp, 0, (0, 0)),
    };
    Some(Datagram { wire_bytes, ecn, destination: ip.destination(), kind, payload_bytes, ports })
}

/// Sets the ECN field to CE and recomputes the header checksum. Returns false (and changes
/// nothing) when the bytes do not start with an IPv4 header.
pub fn set_congestion_experienced(bytes: &mut [u8]) -> bool {
    let Ok((mut header, _)) = Ipv4Header::from_slice(bytes) else {
        return false;
    };
    header.ecn = IpEcn::CongestionExperienced;
    header.header_checksum = header.calc_header_checksum();
    let written = header.to_bytes();
    bytes[..written.len()].copy_from_slice(&written);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;

    fn tcp_packet(payload: &[u8], ecn: IpEcn) -> Vec<u8> {
        let builder = PacketBuilder::ipv4([10, 128, 0, 2], [10, 128, 0, 3], 64).tcp(40000, 20001, 7, 65535);
        let mut bytes = Vec::new();
        builder.write(&mut bytes, payload).unwrap();
        // PacketBuilder writes ECN 0; set it by hand, as a sender's kernel would.
        bytes[1] = (bytes[1] & !0b11) | ecn.value();
        let (mut header, _) = Ipv4Header::from_slice(&bytes).unwrap();
        header.header_checksum = header.calc_header_checksum();
        bytes[..20].copy_from_slice(&header.to_bytes());
        bytes
    }

    #[test]
    fn reads_size_ports_and_kind() {
        let data = inspect(&tcp_packet(&[0; 1448], IpEcn::Ect0)).unwrap();
        assert_eq!(data.wire_bytes, 20 + 20 + 1448);
        assert_eq!((data.kind, data.payload_bytes, data.ports), (PacketKind::TcpData, 1448, (40000, 20001)));
        assert_eq!((data.ecn, data.destination), (Ecn::Ect, [10, 128, 0, 3]));
        let ack = inspect(&tcp_packet(&[], IpEcn::NotEct)).unwrap();
        assert_eq!((ack.kind, ack.payload_bytes, ack.ecn), (PacketKind::TcpAck, 0, Ecn::NotEct));
    }

    #[test]
    fn marking_sets_ce_and_keeps_the_checksum_valid() {
        let mut bytes = tcp_packet(&[1, 2, 3], IpEcn::Ect1);
        assert!(set_congestion_experienced(&mut bytes));
        assert_eq!(inspect(&bytes).unwrap().ecn, Ecn::Ce);
        let (header, _) = Ipv4Header::from_slice(&bytes).unwrap();
        assert_eq!(header.header_checksum, header.calc_header_checksum());
        assert_eq!(&bytes[20..], &tcp_packet(&[1, 2, 3], IpEcn::Ect1)[20..], "only the IP header changes");
    }

    #[test]
    fn rejects_what_is_not_ipv4() {
        assert_eq!(inspect(&[0x60, 0, 0, 0]), None, "an IPv6 header");
        assert_eq!(inspect(&[]), None);
        assert!(!set_congestion_experienced(&mut [0x60; 40]));
    }
}
