//! Scripted data segments through a whole receiver of the `linux` profile (its Linux ACK policy,
//! `tcp/linux_ack.rs`): which segments are ACKed at once, what the ACKs carry, and when the
//! timers send the rest. Times in ns, sizes in bytes.

use tcplab_core::net::packet::{Packet, PacketKind};
use tcplab_core::scenario::TcpSpec;
use tcplab_core::sim::{Event, EventQueue};
use tcplab_core::tcp::receiver::TcpReceiver;
use tcplab_core::tcp::{EndpointContext, TcpConfig};
use tcplab_core::time::{NANOS_PER_MICRO as US, NANOS_PER_MILLI as MS};

const MSS: u64 = 1448;
/// A full segment's spacing at 50 Mbit/s (1500 bytes on the wire): 240 us.
const SPACING: u64 = 240 * US;

struct Script {
    receiver: TcpReceiver,
    events: EventQueue,
    acks: Vec<Packet>,
}

fn linux_config() -> TcpConfig {
    TcpSpec::default().to_config("tcp").expect("the linux profile is valid")
}

impl Script {
    fn new() -> Self {
        Self::with_config(linux_config())
    }

    fn with_config(config: TcpConfig) -> Self {
        Self { receiver: TcpReceiver::new(0, 1, config), events: EventQueue::new(), acks: Vec::new() }
    }

    /// A receiver that got segments 0 to 39 in order from 100 ms on, each echoing a 10 ms RTT:
    /// past its quick ACKs, with every ACK sent and read; and the ACK number so far.
    fn past_quick_acks() -> (Self, u64) {
        let mut script = Self::new();
        let mut acked = 0;
        for i in 0..40 {
            let now = 100 * MS + i * SPACING;
            script.segment(i, now, now - 10 * MS);
        }
        script.ack_sizes(&mut acked);
        (script, acked)
    }

    /// Moves to `now`, firing the receiver's timers on the way.
    fn at(&mut self, now: u64) {
        while let Some(event) = self.events.pop_until(now) {
            if let Event::DelayedAckTimer { .. } = event {
                let mut ctx = EndpointContext { events: &mut self.events, outbox: &mut self.acks };
                self.receiver.on_delayed_ack_timer(&mut ctx);
            }
        }
        self.events.advance_to(now);
    }

    /// Segment `index` arrives at `now`, sent `rtt` after the ACK it echoes (the sender's clock).
    fn segment(&mut self, index: u64, now: u64, echo: u64) {
        self.at(now);
        let data = Packet {
            kind: PacketKind::TcpData,
            sequence: index * MSS,
            payload_bytes: MSS as u32,
            wire_bytes: (MSS + 52) as u32,
            sent_at: now.saturating_sub(20 * MS),
            ts_echo: echo,
            ..Packet::default()
        };
        let mut ctx = EndpointContext { events: &mut self.events, outbox: &mut self.acks };
        self.receiver.on_data(&data, &mut ctx);
    }

    /// Segments acknowledged by each ACK sent since the last call (ACK number deltas).
    fn ack_sizes(&mut self, from_ack: &mut u64) -> Vec<u64> {
        self.acks
            .drain(..)
            .map(|ack| {
                let covered = (ack.ack - *from_ack) / MSS;
                *from_ack = ack.ack;
                covered
            })
            .collect()
    }
}

#[test]
fn a_slow_start_stream_is_acked_segment_by_segment_while_the_window_grows() {
    let mut s = Script::new();
    let mut acked = 0;
    // A 40 ms receiver RTT: every segment echoes an ACK sent 40 ms before it arrives.
    let echo = |now: u64| now.saturating_sub(40 * MS).max(1);
    // The first round: 10 segments. Quick-ACK mode gives 16 immediate ACKs: all 10 are ACKed alone.
    for i in 0..10 {
        s.segment(i, i * SPACING, 0);
    }
    assert_eq!(s.ack_sizes(&mut acked), vec![1; 10]);
    // The window grew from 65,535 B by 2,896 B per segment up to the starting clamp of 80,896 B
    // with the first six; their ACKs were paid by the growth bit, the other four used quick
    // ACKs: twelve are left. 40 ms later, 60 more back to back: twelve ACKed alone, then every
    // second segment (autotuning's first reading, 11 segments, asks for less than the clamp).
    let start = 40 * MS;
    for i in 10..70 {
        let now = start + (i - 10) * SPACING;
        s.segment(i, now, echo(now));
    }
    let sizes = s.ack_sizes(&mut acked);
    assert!(sizes[..12].iter().all(|&n| n == 1), "{sizes:?}");
    assert!(sizes[12..].iter().all(|&n| n == 2), "then every second segment: {sizes:?}");
    assert_eq!(sizes.iter().sum::<u64>(), 60);
    // One receiver RTT after the first data the application has read 70 segments, more than
    // the starting record of 10: autotuning raises the clamp far above the window, and every
    // segment of the next round grows the window and is ACKed at once.
    let start = 80 * MS;
    for i in 70..200 {
        let now = start + (i - 70) * SPACING;
        s.segment(i, now, echo(now));
    }
    // (The round's first segment arrives before the application reads it, so it still finds
    // the old clamp and waits for the second.)
    let sizes = s.ack_sizes(&mut acked);
    assert_eq!(sizes[0], 2);
    assert!(sizes[1..].iter().all(|&n| n == 1), "{sizes:?}");
    assert_eq!(sizes.len(), 129);
}

#[test]
fn the_offered_window_grows_two_segments_per_quick_ack() {
    let mut s = Script::new();
    for i in 0..4 {
        s.segment(i, i * SPACING, 0);
    }
    let windows: Vec<u64> = s.acks.iter().map(|a| a.ack + a.receive_window as u64).collect();
    // Right edges: the growth limit 65,535 + 2,896 per segment, rounded up to the window-scale
    // unit (2,048 B for the profile's 64 MB window), offered from each ACK number.
    let expected: Vec<u64> = (1..=4u64).map(|n| n * MSS + (65_535 + 2_896 * n).div_ceil(2_048) * 2_048).collect();
    assert_eq!(windows, expected);
}

#[test]
fn out_of_order_data_gets_three_immediate_acks_then_one_compressed_sack() {
    let (mut s, _) = Script::past_quick_acks();
    // Segment 40 is lost; 41 to 50 arrive above the hole, 50 us apart.
    let base = 100 * MS + 41 * SPACING;
    for i in 41..=50 {
        s.segment(i, base + (i - 41) * 50 * US, base - 10 * MS);
    }
    assert_eq!(s.acks.len(), 3, "three duplicate ACKs at once");
    assert!(s.acks.iter().all(|a| a.ack == 40 * MSS));
    s.acks.clear();
    // The rest wait for the compression timer: 5% of the 10 ms RTT = 0.5 ms after the first
    // compressed one (segment 44 at base + 150 us).
    let first_compressed = base + 150 * US;
    s.at(first_compressed + 500 * US - 1);
    assert!(s.acks.is_empty());
    s.at(first_compressed + 500 * US);
    assert_eq!(s.acks.len(), 1);
    // It SACKs everything that arrived: [41, 51) segments, led by the block of the last arrival.
    assert_eq!(s.acks[0].sack_blocks().next(), Some((41 * MSS, 51 * MSS)));
    s.acks.clear();
    // The retransmission of 40 closes the hole: ACKed at once, for everything.
    s.segment(40, base + 20 * MS, base + 10 * MS);
    assert_eq!(s.acks.len(), 1);
    assert_eq!(s.acks[0].ack, 51 * MSS);
}

#[test]
fn compressed_sacks_still_report_every_block_that_arrived() {
    // A slow-start overshoot: from 40 on, every third segment is lost, so every second arrival
    // starts a block. Linux keeps four blocks and reports three; a fifth pushes the oldest out,
    // and if an ACK is being compressed then, it goes first (`tcp_sack_compress_send_ack`). So the
    // sender hears of every block although the compression timer (0.5 ms) is longer than the
    // whole burst.
    let (mut s, _) = Script::past_quick_acks();
    let base = 100 * MS + 41 * SPACING;
    let arrived: Vec<u64> = (41..=88).filter(|i| i % 3 != 1).collect();
    for (k, &i) in arrived.iter().enumerate() {
        s.segment(i, base + k as u64 * 20 * US, base - 10 * MS);
    }
    s.at(base + 20 * MS);
    assert!(s.acks.iter().all(|a| a.ack == 40 * MSS));
    assert!(s.acks.len() < arrived.len(), "some ACKs were compressed: {}", s.acks.len());
    for &i in &arrived {
        let reported =
            s.acks.iter().any(|a| a.sack_blocks().any(|(start, end)| start <= i * MSS && (i + 1) * MSS <= end));
        assert!(reported, "segment {i} arrived but no ACK reported it");
    }
    // Each ACK leads with the newest block and carries at most three.
    for ack in &s.acks {
        assert!(ack.sack_blocks().len() <= 3);
        let starts: Vec<u64> = ack.sack_blocks().map(|(start, _)| start).collect();
        assert!(starts.windows(2).all(|w| w[0] > w[1]), "most recent first: {starts:?}");
    }
}

#[test]
fn a_duplicate_segment_is_acked_at_once_and_restarts_quick_acks() {
    let (mut s, mut acked) = Script::past_quick_acks();
    // A spurious retransmission of segment 5.
    let now = 100 * MS + 40 * SPACING;
    s.segment(5, now, now - 10 * MS);
    assert_eq!(s.acks.len(), 1, "at once");
    assert_eq!(s.acks[0].ack, 40 * MSS);
    s.acks.clear();
    // The next segments are ACKed one by one again (quick-ACK mode).
    for i in 40..46 {
        let now = 100 * MS + (i + 1) * SPACING;
        s.segment(i, now, now - 10 * MS);
    }
    assert_eq!(s.ack_sizes(&mut acked), vec![1; 6]);
}

#[test]
fn a_lone_segment_waits_for_the_delayed_ack_timer() {
    let (mut s, _) = Script::past_quick_acks();
    // One more segment, after which the sender is quiet: the 40 ms timer sends its ACK.
    let now = 100 * MS + 40 * SPACING;
    s.segment(40, now, now - 10 * MS);
    s.at(now + 40 * MS - 1);
    let pending = s.acks.len();
    s.at(now + 40 * MS);
    assert_eq!(s.acks.len(), pending + 1);
    assert_eq!(s.acks.last().unwrap().ack, 41 * MSS);
}

#[test]
fn without_delayed_acks_every_segment_is_acked_and_the_window_still_grows() {
    let mut s = Script::with_config(TcpConfig { delayed_ack: false, ..linux_config() });
    let mut acked = 0;
    for i in 0..40 {
        s.segment(i, i * SPACING, 0);
    }
    let last = s.acks.last().unwrap();
    // Every segment grew the limit until the starting clamp, 80,896 B (six segments).
    assert_eq!(last.receive_window as u64, (80_896u64).div_ceil(2_048) * 2_048);
    assert_eq!(s.ack_sizes(&mut acked), vec![1; 40]);
}

#[test]
fn data_held_above_a_hole_leaves_room_to_grow_the_window_after_the_repair() {
    // The state of the slow-start test's second round: the window has reached its clamp, 80,896
    // B, and every second segment is ACKed; autotuning's last reading was 11 segments (15,928 B)
    // at 40 ms, and the next comes one receiver RTT (40 ms) later.
    let mut s = Script::new();
    let mut acked = 0;
    let echo = |now: u64| now.saturating_sub(40 * MS).max(1);
    for i in 0..10 {
        s.segment(i, i * SPACING, 0);
    }
    let start = 40 * MS;
    for i in 10..70 {
        let now = start + (i - 10) * SPACING;
        s.segment(i, now, echo(now));
    }
    // Segment 70 is lost; 71 to 130 arrive above the hole, and its retransmission fills it at
    // 69 ms. Held out of order, they raised the clamp to 2 x 15,928 + 61 x 1,448 = 120,184 B
    // (Linux 6.16's `tcp_rcvbuf_grow` from `tcp_data_queue_ofo`).
    let held_from = start + 60 * SPACING;
    for i in 71..=130 {
        let now = held_from + (i - 71) * SPACING;
        s.segment(i, now, echo(now));
    }
    s.ack_sizes(&mut acked);
    s.segment(70, 69 * MS, echo(69 * MS));
    assert_eq!(s.ack_sizes(&mut acked), vec![61], "the repair is ACKed at once, for everything");
    // Ten more in order before autotuning's next reading: each grows the window by 2,896 B
    // (80,896 + 28,960 = 109,856 stays below the clamp) and so is ACKed alone. With the clamp
    // left at 80,896 B the window could not grow and every second segment would wait.
    for i in 131..141 {
        let now = 69 * MS + (i - 130) * SPACING;
        s.segment(i, now, echo(now));
    }
    assert_eq!(s.ack_sizes(&mut acked), vec![1; 10]);
}
