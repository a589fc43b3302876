//! Packet captures (`simulation.capture`): the packets a link direction transmitted, written as a
//! pcap file that tcpdump, tshark and Wireshark read.
//!
//! Each packet becomes an Ethernet II / IPv4 / TCP (or UDP) frame with real header fields: the
//! flow's sequence numbers (bytes from a per-flow initial sequence number, modulo 2^32), the
//! cumulative ACK, SACK blocks (RFC 2018), the timestamp option (RFC 7323: TSval and TSecr in
//! milliseconds) when the flow's header has room for it (52 bytes: 20 IP + 20 TCP + 12 options),
//! the ECN field, ECE and CWR (RFC 3168), and the receiver's advertised window (scaled by 2^7,
//! the scale Linux uses for large buffers). The capture keeps the headers only, as `tcpdump -s` does with a
//! small snap length: each record's original length is the whole frame, the payload is not
//! stored. Timestamps are in nanoseconds of simulated time.
//!
//! Addresses: node n is 10.0.0.0 + n + 1 with MAC 02:00:00 followed by the same three bytes;
//! TCP flow i sends from port 10000 + i (modulo 55000) to port 5201, UDP flow i from 20000 + i
//! to 5001. The simulator has no handshake, so the capture has no SYN: Wireshark shows relative
//! sequence numbers from the first packet it sees and the window scale as unknown.

use std::time::Duration;

use etherparse::{EtherType, Ethernet2Header, IpEcn, IpNumber, Ipv4Header, TcpHeader, TcpOptionElement, UdpHeader};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};

use crate::net::packet::{Ecn, Packet, PacketKind};
use crate::time::{SimTime, NANOS_PER_MILLI};

/// The hosts of every flow, to give packets their addresses.
pub struct FlowEndpoints {
    /// (sender node, receiver node) of each TCP flow, by the index its packets carry.
    pub tcp: Vec<(u32, u32)>,
    /// (source node, sink node) of each UDP flow.
    pub udp: Vec<(u32, u32)>,
}

/// Bytes of IPv4 + TCP headers without options.
const BASE_HEADER_BYTES: u32 = 40;
/// The timestamp option with its two NOPs of padding.
const TIMESTAMP_OPTION_BYTES: u32 = 12;
/// Window scale applied to the advertised window.
const WINDOW_SCALE: u32 = 7;
const TCP_RECEIVER_PORT: u16 = 5201;
const UDP_SINK_PORT: u16 = 5001;
/// Payload bytes are zeros; the checksum needs them, the capture does not keep them.
static ZEROS: [u8; 65_536] = [0; 65_536];

/// A pcap file of `packets`, each with the time it started to leave the link.
pub fn pcap_bytes(packets: &[(SimTime, Packet)], endpoints: &FlowEndpoints) -> Vec<u8> {
    let header = PcapHeader {
        datalink: DataLink::ETHERNET,
        ts_resolution: TsResolution::NanoSecond,
        snaplen: 65_535,
        ..PcapHeader::default()
    };
    let mut writer = PcapWriter::with_header(Vec::new(), header).expect("writing to memory cannot fail");
    let mut frame = Vec::with_capacity(128);
    for (time, packet) in packets {
        frame.clear();
        let Some(full_length) = encode(packet, endpoints, &mut frame) else { continue };
        let record = PcapPacket::new(Duration::from_nanos(*time), full_length, &frame);
        writer.write_packet(&record).expect("writing to memory cannot fail");
    }
    writer.into_writer()
}

fn ipv4_of(node: u32) -> [u8; 4] {
    (0x0A00_0000u32 + node + 1).to_be_bytes()
}

fn mac_of(node: u32) -> [u8; 6] {
    let [_, a, b, c] = (node + 1).to_be_bytes();
    [0x02, 0x00, 0x00, a, b, c]
}

/// A per-flow initial sequence number (deterministic, spread over the space).
fn initial_sequence(flow: u32) -> u32 {
    flow.wrapping_mul(2_654_435_761).wrapping_add(1)
}

fn millis(time: SimTime) -> u32 {
    (time / NANOS_PER_MILLI) as u32
}

fn ecn_of(ecn: Ecn) -> IpEcn {
    match ecn {
        Ecn::NotEct => IpEcn::NotEct,
        Ecn::Ect => IpEcn::Ect0,
        Ecn::Ce => IpEcn::CongestionExperienced,
    }
}

/// Writes the headers of `packet`'s frame into `frame`; returns the whole frame's length, or None
/// for a packet of a flow the endpoints do not know.
fn encode(packet: &Packet, endpoints: &FlowEndpoints, frame: &mut Vec<u8>) -> Option<u32> {
    let flow = packet.flow;
    let (source, destination, transport) = match packet.kind {
        PacketKind::TcpData => {
            let &(sender, receiver) = endpoints.tcp.get(flow as usize)?;
            (sender, receiver, Transport::Tcp(tcp_header(packet, true)))
        }
        PacketKind::TcpAck => {
            let &(sender, receiver) = endpoints.tcp.get(flow as usize)?;
            (receiver, sender, Transport::Tcp(tcp_header(packet, false)))
        }
        PacketKind::Udp => {
            let &(source, sink) = endpoints.udp.get(flow as usize)?;
            let port = 20_000 + (flow % 40_000) as u16;
            let header = UdpHeader { source_port: port, destination_port: UDP_SINK_PORT, length: 0, checksum: 0 };
            (source, sink, Transport::Udp(header))
        }
    };
    let payload = &ZEROS[..(packet.payload_bytes as usize).min(ZEROS.len())];
    let ethernet =
        Ethernet2Header { source: mac_of(source), destination: mac_of(destination), ether_type: EtherType::IPV4 };
    let (protocol, transport_length) = match &transport {
        Transport::Tcp(tcp) => (IpNumber::TCP, tcp.header_len() + payload.len()),
        Transport::Udp(_) => (IpNumber::UDP, UdpHeader::LEN + payload.len()),
    };
    let mut ip = Ipv4Header::new(transport_length as u16, 64, protocol, ipv4_of(source), ipv4_of(destination)).ok()?;
    ip.ecn = ecn_of(packet.ecn);
    ip.header_checksum = ip.calc_header_checksum();
    ethernet.write(frame).ok()?;
    ip.write(frame).ok()?;
    match transport {
        Transport::Tcp(mut tcp) => {
            tcp.checksum = tcp.calc_checksum_ipv4(&ip, payload).ok()?;
            tcp.write(frame).ok()?;
        }
        Transport::Udp(mut udp) => {
            udp.length = (UdpHeader::LEN + payload.len()) as u16;
            udp.checksum = udp.calc_checksum_ipv4(&ip, payload).ok()?;
            udp.write(frame).ok()?;
        }
    }
    Some((frame.len() + payload.len()) as u32)
}

enum Transport {
    Tcp(TcpHeader),
    Udp(UdpHeader),
}

/// The TCP header of a data segment (`data`) or an ACK, with its options.
fn tcp_header(packet: &Packet, data: bool) -> TcpHeader {
    let flow = packet.flow;
    let isn = initial_sequence(flow);
    let sender_port = 10_000 + (flow % 55_000) as u16;
    // ACKs advertise the receiver's free buffer; data segments the sender's own, which receives
    // no data and is never short of room.
    let window = if data { u16::MAX } else { (packet.receive_window >> WINDOW_SCALE).min(u16::MAX as u32) as u16 };
    let (source_port, destination_port) =
        if data { (sender_port, TCP_RECEIVER_PORT) } else { (TCP_RECEIVER_PORT, sender_port) };
    let mut tcp = TcpHeader::new(source_port, destination_port, 0, window);
    tcp.ack = true;
    let mut options = Vec::new();
    // The data direction's header size tells whether the flow uses timestamps; ACKs carry the
    // same base header plus their SACK option.
    let option_room = packet.wire_bytes.saturating_sub(packet.payload_bytes).saturating_sub(BASE_HEADER_BYTES);
    let sack_bytes = if packet.sack_count > 0 { 4 + 8 * packet.sack_count as u32 } else { 0 };
    if option_room >= sack_bytes + TIMESTAMP_OPTION_BYTES {
        let (value, echo) = (millis(packet.sent_at), millis(packet.ts_echo));
        options.extend([TcpOptionElement::Noop, TcpOptionElement::Noop, TcpOptionElement::Timestamp(value, echo)]);
    }
    // `tcp.syn`: the SYN is the only data packet without payload, and its SYN-ACK the only ACK
    // that acknowledges nothing and holds nothing out of order. The SYN takes the sequence number
    // before the first data byte.
    let syn = if data { packet.payload_bytes == 0 } else { packet.ack == 0 && packet.sack_count == 0 };
    if data && syn {
        tcp.sequence_number = isn.wrapping_sub(1);
        tcp.acknowledgment_number = 0;
        tcp.ack = false;
        tcp.syn = true;
    } else if data {
        tcp.sequence_number = isn.wrapping_add(packet.sequence as u32);
        // The receiver's initial sequence number is 0 here: data segments acknowledge nothing.
        tcp.acknowledgment_number = 1;
        tcp.psh = true;
        tcp.cwr = packet.cwr;
    } else if syn {
        tcp.sequence_number = 0;
        tcp.acknowledgment_number = isn;
        tcp.syn = true;
    } else {
        tcp.sequence_number = 1;
        tcp.acknowledgment_number = isn.wrapping_add(packet.ack as u32);
        tcp.ece = packet.ece;
        let to_wire = |(start, end): (u64, u64)| (isn.wrapping_add(start as u32), isn.wrapping_add(end as u32));
        let mut blocks = packet.sack_blocks().map(to_wire);
        if let Some(first) = blocks.next() {
            let mut more = [None; 3];
            for (slot, block) in more.iter_mut().zip(blocks) {
                *slot = Some(block);
            }
            options.extend([
                TcpOptionElement::Noop,
                TcpOptionElement::Noop,
                TcpOptionElement::SelectiveAcknowledgement(first, more),
            ]);
        }
    }
    // Options never exceed TCP's 40 bytes here (12 for timestamps, at most 28 for 3 SACK blocks).
    tcp.set_options(&options).expect("at most 40 bytes of options");
    tcp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_carry_the_flows_sequence_numbers_options_and_ecn() {
        let endpoints = FlowEndpoints { tcp: vec![(4, 9)], udp: vec![] };
        let data = Packet {
            kind: PacketKind::TcpData,
            flow: 0,
            wire_bytes: 1500,
            payload_bytes: 1448,
            sequence: 2896,
            sent_at: 5 * NANOS_PER_MILLI,
            ts_echo: 3 * NANOS_PER_MILLI,
            ecn: Ecn::Ect,
            receive_window: 64_000_000,
            ..Packet::default()
        };
        let mut frame = Vec::new();
        let length = encode(&data, &endpoints, &mut frame).unwrap();
        assert_eq!(length, 14 + 1500, "the frame is as long as the simulated packet plus Ethernet");
        let parsed = etherparse::LaxPacketHeaders::from_ethernet(&frame).expect("headers parse");
        let Some(etherparse::NetHeaders::Ipv4(ip, _)) = parsed.net else { panic!("IPv4") };
        assert_eq!((ip.source, ip.destination, ip.total_len), ([10, 0, 0, 5], [10, 0, 0, 10], 1500));
        assert_eq!(ip.ecn, IpEcn::Ect0);
        let Some(etherparse::TransportHeader::Tcp(tcp)) = parsed.transport else { panic!("TCP") };
        assert_eq!(tcp.sequence_number, initial_sequence(0).wrapping_add(2896));
        let options: Vec<_> = tcp.options_iterator().map(|o| o.unwrap()).collect();
        assert!(options.contains(&TcpOptionElement::Timestamp(5, 3)));

        let mut ack = Packet {
            kind: PacketKind::TcpAck,
            flow: 0,
            wire_bytes: 52 + 12,
            ack: 1448,
            ece: true,
            ..Packet::default()
        };
        ack.set_sack_blocks(&[(2896, 5792)]);
        frame.clear();
        assert_eq!(encode(&ack, &endpoints, &mut frame), Some(14 + 64), "timestamps and one SACK block");
        let parsed = etherparse::LaxPacketHeaders::from_ethernet(&frame).unwrap();
        let Some(etherparse::TransportHeader::Tcp(tcp)) = parsed.transport else { panic!("TCP") };
        assert!(tcp.ece);
        assert_eq!(tcp.acknowledgment_number, initial_sequence(0).wrapping_add(1448));
        let isn = initial_sequence(0);
        let sack = TcpOptionElement::SelectiveAcknowledgement((isn + 2896, isn + 5792), [None; 3]);
        assert!(tcp.options_iterator().any(|o| o.unwrap() == sack));
    }

    #[test]
    fn the_syn_and_syn_ack_carry_the_syn_flag() {
        let endpoints = FlowEndpoints { tcp: vec![(0, 1)], udp: vec![] };
        let tcp_of = |packet: &Packet| {
            let mut frame = Vec::new();
            encode(packet, &endpoints, &mut frame).unwrap();
            let parsed = etherparse::LaxPacketHeaders::from_ethernet(&frame).unwrap();
            let Some(etherparse::TransportHeader::Tcp(tcp)) = parsed.transport else { panic!("TCP") };
            tcp
        };
        let isn = initial_sequence(0);
        let syn = tcp_of(&Packet { kind: PacketKind::TcpData, wire_bytes: 40, ..Packet::default() });
        assert!(syn.syn && !syn.ack && !syn.psh);
        assert_eq!(syn.sequence_number, isn.wrapping_sub(1), "the SYN takes the number before the data");
        let syn_ack = tcp_of(&Packet { kind: PacketKind::TcpAck, wire_bytes: 40, ..Packet::default() });
        assert!(syn_ack.syn && syn_ack.ack);
        assert_eq!((syn_ack.sequence_number, syn_ack.acknowledgment_number), (0, isn));
        let ack = tcp_of(&Packet { kind: PacketKind::TcpAck, wire_bytes: 40, ack: 1000, ..Packet::default() });
        assert!(!ack.syn);
    }

    #[test]
    fn a_pcap_library_reads_the_file_back() {
        let endpoints = FlowEndpoints { tcp: vec![(0, 1)], udp: vec![(2, 3)] };
        let packets: Vec<(SimTime, Packet)> = (0..3)
            .map(|i| {
                let packet = Packet {
                    kind: PacketKind::TcpData,
                    wire_bytes: 1040,
                    payload_bytes: 1000,
                    sequence: i * 1000,
                    ..Packet::default()
                };
                (i * 1_000_000 + 7, packet)
            })
            .chain([(
                5_000_000,
                Packet { kind: PacketKind::Udp, wire_bytes: 1028, payload_bytes: 1000, ..Packet::default() },
            )])
            .collect();
        let bytes = pcap_bytes(&packets, &endpoints);
        let mut reader = pcap_file::pcap::PcapReader::new(&bytes[..]).unwrap();
        assert_eq!(reader.header().ts_resolution, TsResolution::NanoSecond);
        let mut records = Vec::new();
        while let Some(record) = reader.next_packet() {
            let record = record.unwrap();
            records.push((record.timestamp.as_nanos() as u64, record.orig_len, record.data.len()));
        }
        // Headers only: 14 + 20 + 20 captured of 14 + 1040 (TCP), 14 + 20 + 8 of 14 + 1028 (UDP).
        assert_eq!(records, vec![(7, 1054, 54), (1_000_007, 1054, 54), (2_000_007, 1054, 54), (5_000_000, 1042, 42)]);
    }
}
