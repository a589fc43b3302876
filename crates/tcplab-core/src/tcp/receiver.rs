//! The TCP receiver: reassembly, in-order delivery to the application, cumulative ACKs with SACK
//! blocks (RFC 2018), delayed ACKs (RFC 5681 section 4.2), ECN echo (RFC 3168) and the receive
//! window.
//!
//! ACK policy: out-of-order, duplicate and hole-filling segments are acknowledged at once; in-order
//! segments are acknowledged every `delayed_ack_count` segments or when the delayed-ACK timer
//! expires. The first SACK block covers the segment that triggered the ACK, then the other blocks
//! from the highest down (RFC 2018 section 4 asks for the most recent first).

use crate::net::packet::{Ecn, Packet, PacketKind, MAX_SACK_BLOCKS};
use crate::sim::Event;
use crate::tcp::{EndpointContext, TcpConfig};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct ReceiverStats {
    /// Bytes handed to the application, in order and exactly once.
    pub delivered_bytes: u64,
    /// Payload bytes that arrived although they had been received before.
    pub duplicate_bytes: u64,
    pub acks_sent: u64,
    pub ce_received: u64,
    /// When the application received its last byte so far.
    pub last_delivery_at: SimTime,
}

pub struct TcpReceiver {
    flow: u32,
    /// The node the ACKs go to (the sender's host).
    destination: u32,
    config: TcpConfig,
    /// Next byte expected; everything before it has been delivered.
    rcv_nxt: u64,
    /// Received ranges above `rcv_nxt`, sorted and disjoint, and their total length.
    out_of_order: Vec<(u64, u64)>,
    held_bytes: u64,
    /// Segments received since the last ACK.
    unacknowledged_segments: u32,
    delayed_ack_deadline: Option<SimTime>,
    delayed_ack_event_at: Option<SimTime>,
    /// Echo ECE on every ACK until a segment with CWR arrives.
    ece_pending: bool,
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    pub fn new(flow: u32, destination: u32, config: TcpConfig) -> Self {
        Self {
            flow,
            destination,
            config,
            rcv_nxt: 0,
            out_of_order: Vec::new(),
            held_bytes: 0,
            unacknowledged_segments: 0,
            delayed_ack_deadline: None,
            delayed_ack_event_at: None,
            ece_pending: false,
            stats: ReceiverStats::default(),
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn on_data(&mut self, data: &Packet, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        if data.cwr {
            self.ece_pending = false;
        }
        if data.ecn == Ecn::Ce {
            self.stats.ce_received += 1;
            if self.config.ecn {
                self.ece_pending = true;
            }
        }
        let start = data.sequence;
        let end = start + data.payload_bytes as u64;
        let had_holes = !self.out_of_order.is_empty();
        let immediate;
        if end <= self.rcv_nxt || self.is_held(start, end) {
            self.stats.duplicate_bytes += data.payload_bytes as u64;
            immediate = true;
        } else if start <= self.rcv_nxt {
            self.deliver_up_to(end, now);
            immediate = had_holes;
        } else {
            self.hold(start, end);
            immediate = true;
        }
        self.unacknowledged_segments += 1;
        let enough = self.unacknowledged_segments >= self.config.delayed_ack_count;
        if immediate || !self.config.delayed_ack || enough {
            self.send_ack(Some((start, end)), ctx);
        } else if self.delayed_ack_deadline.is_none() {
            let deadline = now + self.config.delayed_ack_timeout;
            self.delayed_ack_deadline = Some(deadline);
            if self.delayed_ack_event_at.is_none_or(|at| at > deadline) {
                self.delayed_ack_event_at = Some(deadline);
                ctx.events.schedule(deadline, Event::DelayedAckTimer { flow: self.flow });
            }
        }
    }

    pub fn on_delayed_ack_timer(&mut self, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        if self.delayed_ack_event_at == Some(now) {
            self.delayed_ack_event_at = None;
        }
        match self.delayed_ack_deadline {
            Some(deadline) if deadline <= now => self.send_ack(None, ctx),
            Some(deadline) if self.delayed_ack_event_at.is_none() => {
                self.delayed_ack_event_at = Some(deadline);
                ctx.events.schedule(deadline, Event::DelayedAckTimer { flow: self.flow });
            }
            _ => {}
        }
    }

    /// The held range that contains byte `at`, if any (binary search: ranges are sorted).
    fn held_range(&self, at: u64) -> Option<(u64, u64)> {
        let after = self.out_of_order.partition_point(|&(s, _)| s <= at);
        let candidate = *self.out_of_order.get(after.checked_sub(1)?)?;
        (at < candidate.1).then_some(candidate)
    }

    fn is_held(&self, start: u64, end: u64) -> bool {
        self.held_range(start).is_some_and(|(_, e)| end <= e)
    }

    /// Delivers [rcv_nxt, end) and any held ranges that became contiguous.
    fn deliver_up_to(&mut self, end: u64, now: SimTime) {
        let mut new_next = end.max(self.rcv_nxt);
        let mut joined = 0;
        for &(s, e) in &self.out_of_order {
            if s > new_next {
                break;
            }
            new_next = new_next.max(e);
            self.held_bytes -= e - s;
            joined += 1;
        }
        self.out_of_order.drain(..joined);
        self.stats.delivered_bytes += new_next - self.rcv_nxt;
        self.stats.last_delivery_at = now;
        self.rcv_nxt = new_next;
    }

    /// Adds [start, end) to the held ranges, merging the ones it touches, in place (no
    /// allocation once the list has its working capacity).
    fn hold(&mut self, start: u64, end: u64) {
        let ranges = &mut self.out_of_order;
        // The first range that ends at or after `start` is the first that may touch it.
        let first = ranges.partition_point(|&(_, e)| e < start);
        let mut last = first;
        let (mut merged_start, mut merged_end) = (start, end);
        let mut replaced = 0;
        while last < ranges.len() && ranges[last].0 <= end {
            merged_start = merged_start.min(ranges[last].0);
            merged_end = merged_end.max(ranges[last].1);
            replaced += ranges[last].1 - ranges[last].0;
            last += 1;
        }
        if last == first {
            ranges.insert(first, (start, end));
        } else {
            ranges[first] = (merged_start, merged_end);
            ranges.drain(first + 1..last);
        }
        self.held_bytes = self.held_bytes + (merged_end - merged_start) - replaced;
    }

    fn send_ack(&mut self, trigger: Option<(u64, u64)>, ctx: &mut EndpointContext) {
        self.unacknowledged_segments = 0;
        self.delayed_ack_deadline = None;
        let mut sack = [(0, 0); MAX_SACK_BLOCKS];
        let mut count = 0;
        if let Some(block) = trigger.and_then(|(start, _)| self.held_range(start)) {
            sack[0] = block;
            count = 1;
        }
        for &block in self.out_of_order.iter().rev() {
            if count == MAX_SACK_BLOCKS {
                break;
            }
            if count == 1 && sack[0] == block {
                continue;
            }
            sack[count] = block;
            count += 1;
        }
        // SACK option: 2 bytes kind/length + 8 per block, padded to 4 bytes with two NOPs.
        let option_bytes = if count > 0 { 4 + 8 * count as u64 } else { 0 };
        self.stats.acks_sent += 1;
        ctx.outbox.push(Packet {
            kind: PacketKind::TcpAck,
            flow: self.flow,
            destination: self.destination,
            wire_bytes: (self.config.header_bytes + option_bytes) as u32,
            ack: self.rcv_nxt,
            sack,
            sack_count: count as u8,
            receive_window: self.config.receive_window.saturating_sub(self.held_bytes),
            ece: self.ece_pending,
            sent_at: ctx.events.now(),
            ..Packet::default()
        });
    }
}
