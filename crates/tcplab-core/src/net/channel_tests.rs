//! Tests of `channel.rs`: a link direction's transmitter, lazy sending and RDC stamping.

use super::*;
use crate::net::packet::{Ecn, Packet};
use crate::net::queue::{DropTail, QueueLimit};
use crate::sim::{rng_stream_seed, StreamKind};
use crate::time::NANOS_PER_MILLI as MS;

/// A 1 Mbit/s direction (a 1500-byte packet takes 12 ms) that stamps for exact RDC.
fn stamping_channel(real_limit_packets: u64) -> Channel {
    let queue = Box::new(DropTail::new(QueueLimit::Packets(real_limit_packets), None));
    let mut channel = Channel::new(0, 1, 1_000_000, 0, queue, rng_stream_seed(1, 0, StreamKind::Channel, 0));
    channel.set_rdc_stamp(true);
    channel
}

/// Runs the channel's transmitter events up to `until`.
fn run_transmitter(channel: &mut Channel, pool: &mut PacketPool, events: &mut EventQueue, until: SimTime) {
    while let Some(event) = events.pop_until(until) {
        if let Event::TransmitterFree { channel: index } = event {
            channel.on_transmitter_free(index, pool, events);
        }
    }
    events.advance_to(until);
}

fn offer_packets(channel: &mut Channel, pool: &mut PacketPool, events: &mut EventQueue, n: usize) -> Vec<PacketId> {
    let ids: Vec<PacketId> = (0..n).map(|_| pool.insert(Packet { wire_bytes: 1500, ..Packet::default() })).collect();
    for &id in &ids {
        channel.offer(0, id, NextHop::UNKNOWN, pool, events);
    }
    ids
}

/// A 1 Mbit/s direction with `queue` in front, and one packet of `wire_bytes` offered to it
/// while it is idle: what the channel counted, and the packet's ECN field.
fn offer_one_to_an_idle_link(queue: DropTail, wire_bytes: u32) -> (ChannelStats, Ecn) {
    let mut channel = Channel::new(
        0,
        1,
        1_000_000,
        0,
        Box::new(DropTail::new(QueueLimit::Packets(0), None)),
        rng_stream_seed(1, 0, StreamKind::Channel, 0),
    );
    channel.install_queue(Box::new(queue));
    let (mut pool, mut events) = (PacketPool::default(), EventQueue::new());
    let id = pool.insert(Packet { wire_bytes, ecn: Ecn::Ect, ..Packet::default() });
    channel.offer(0, id, NextHop::UNKNOWN, &mut pool, &mut events);
    (channel.stats.clone(), pool.get(id).ecn)
}

#[test]
fn a_rate_change_times_the_next_packet_of_the_same_size_at_the_new_rate() {
    // 1 Mbit/s, then 2 Mbit/s from 100 ms: a 1500-byte packet takes 12 ms, then 6 ms.
    let queue = Box::new(DropTail::new(QueueLimit::Packets(10), None));
    let mut channel = Channel::new(0, 1, 1_000_000, 0, queue, rng_stream_seed(1, 0, StreamKind::Channel, 0));
    channel.set_rate_schedule(vec![(100 * MS, 2_000_000)]);
    let (mut pool, mut events) = (PacketPool::default(), EventQueue::new());
    offer_packets(&mut channel, &mut pool, &mut events, 1);
    run_transmitter(&mut channel, &mut pool, &mut events, 100 * MS);
    assert_eq!(channel.stats.busy_time, 12 * MS);
    channel.apply_rate_change(0);
    offer_packets(&mut channel, &mut pool, &mut events, 1);
    run_transmitter(&mut channel, &mut pool, &mut events, 200 * MS);
    assert_eq!((channel.stats.transmitted_packets, channel.stats.busy_time), (2, 18 * MS));
}

#[test]
fn a_direction_takes_five_cache_lines() {
    assert_eq!((std::mem::size_of::<Channel>(), std::mem::align_of::<Channel>()), (320, 64));
}

#[test]
fn an_idle_link_sends_at_once_what_its_queue_admits() {
    let sent = |(stats, _): &(ChannelStats, Ecn)| (stats.transmitted_packets, stats.queue_drops);
    // Drop-tail (sent lazily) that admits the packet: sent at once, zero sojourn.
    let (stats, ecn) = offer_one_to_an_idle_link(DropTail::new(QueueLimit::Packets(10), None), 1500);
    assert_eq!(
        (stats.transmitted_packets, stats.sojourn.len(), stats.sojourn.quantile_ms(1.0), ecn),
        (1, 1, 0.0, Ecn::Ect)
    );
    assert_eq!(sent(&offer_one_to_an_idle_link(DropTail::new(QueueLimit::Bytes(1500), None), 1500)), (1, 0));
    // A queue that cannot hold the packet drops it even on an idle link.
    assert_eq!(sent(&offer_one_to_an_idle_link(DropTail::new(QueueLimit::Bytes(1499), None), 1500)), (0, 1));
    assert_eq!(sent(&offer_one_to_an_idle_link(DropTail::new(QueueLimit::Packets(0), None), 1500)), (0, 1));
    // A step marker (sent through the queue) with a threshold of 0 marks even the first packet
    // of an empty queue.
    let (stats, ecn) =
        offer_one_to_an_idle_link(DropTail::new(QueueLimit::Packets(10), Some(QueueLimit::Packets(0))), 1500);
    assert_eq!((stats.transmitted_packets, stats.ecn_marks, ecn), (1, 1, Ecn::Ce));
}

#[test]
fn a_drop_tail_link_sends_lazily_and_counts_each_transmission_when_it_starts() {
    // 1 Mbit/s: a 1500-byte packet takes 12 ms. Room for one waiting packet.
    let queue = DropTail::new(QueueLimit::Packets(1), None);
    let mut channel = Channel::new(0, 1, 1_000_000, MS, Box::new(queue), rng_stream_seed(1, 0, StreamKind::Channel, 0));
    let (mut pool, mut events) = (PacketPool::default(), EventQueue::new());
    offer_packets(&mut channel, &mut pool, &mut events, 3);
    // The first starts at once, the second waits, the third finds the queue full.
    assert_eq!((channel.stats.transmitted_packets, channel.queued(), channel.stats.queue_drops), (1, (1, 1500), 1));
    assert_eq!(channel.stats.max_queue_packets, 1);
    channel.catch_up(12 * MS - 1);
    assert_eq!((channel.stats.transmitted_packets, channel.queued().0), (1, 1));
    channel.catch_up(12 * MS);
    assert_eq!((channel.stats.transmitted_packets, channel.queued().0, channel.stats.busy_time), (2, 0, 24 * MS));
    // Both are on the wire already: the only events are their arrivals, 12 ms apart, and
    // the second waited 12 ms.
    let mut arrivals = Vec::new();
    while let Some(event) = events.pop_until(u64::MAX) {
        assert!(matches!(event, Event::WireArrival { .. }), "{event:?}");
        arrivals.push(events.now());
        channel.on_head_arrival(0, &pool, &mut events);
    }
    assert_eq!(arrivals, vec![13 * MS, 25 * MS]);
    assert_eq!(channel.stats.sojourn.quantiles_ms([0.5, 1.0]), [0.0, 12.007]);
}

#[test]
fn a_lazy_link_counts_each_waiting_packets_own_transmission_time() {
    // 1 Mbit/s: 1500, 500 and 125 bytes take 12, 4 and 1 ms; all three are offered at 0, so
    // they are sent over [0, 12), [12, 16) and [16, 17) ms.
    let queue = DropTail::new(QueueLimit::Packets(10), None);
    let mut channel = Channel::new(0, 1, 1_000_000, MS, Box::new(queue), rng_stream_seed(1, 0, StreamKind::Channel, 0));
    let (mut pool, mut events) = (PacketPool::default(), EventQueue::new());
    for wire_bytes in [1500, 500, 125] {
        let id = pool.insert(Packet { wire_bytes, ..Packet::default() });
        channel.offer(0, id, NextHop::UNKNOWN, &mut pool, &mut events);
    }
    let counted = |c: &Channel| (c.stats.transmitted_packets, c.stats.transmitted_bytes, c.stats.busy_time);
    assert_eq!(counted(&channel), (1, 1500, 12 * MS));
    channel.catch_up(12 * MS);
    assert_eq!(counted(&channel), (2, 2000, 16 * MS));
    channel.catch_up(16 * MS);
    assert_eq!(counted(&channel), (3, 2125, 17 * MS));
    assert_eq!(channel.queued(), (0, 0));
}

#[test]
fn rdc_stamp_is_zero_for_a_packet_that_waited_the_whole_virtual_delay() {
    // A real queue as large as the virtual one: each packet waits 0, 12, 24 ms in both.
    let (mut channel, mut pool, mut events) = (stamping_channel(100), PacketPool::default(), EventQueue::new());
    let ids = offer_packets(&mut channel, &mut pool, &mut events, 3);
    run_transmitter(&mut channel, &mut pool, &mut events, 100 * MS);
    let virtual_waits: Vec<u64> = ids.iter().map(|&id| pool.get(id).virtual_wait).collect();
    assert_eq!(virtual_waits, vec![0, 12 * MS, 24 * MS]);
    assert!(ids.iter().all(|&id| pool.get(id).delay_stamp == 0));
}

#[test]
fn rdc_stamps_the_virtual_wait_beyond_the_real_one() {
    // The real queue holds one packet: of three arriving at once the third is dropped, but the
    // virtual FIFO keeps it (backlog 36 ms of data).
    let (mut channel, mut pool, mut events) = (stamping_channel(1), PacketPool::default(), EventQueue::new());
    let ids = offer_packets(&mut channel, &mut pool, &mut events, 3);
    assert_eq!(channel.stats.queue_drops, 1);
    run_transmitter(&mut channel, &mut pool, &mut events, 30 * MS);
    // The second packet waited its whole virtual 12 ms in the real queue: nothing to add.
    assert_eq!((pool.get(ids[1]).virtual_wait, pool.get(ids[1]).delay_stamp), (12 * MS, 0));
    // At 30 ms the real queue is empty but 6 ms of virtual backlog remain: the stamp is 6 ms.
    let late = offer_packets(&mut channel, &mut pool, &mut events, 1)[0];
    assert_eq!(pool.get(late).delay_stamp, 6 * MS);
}
