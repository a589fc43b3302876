//! The TCP receiver: reassembly, in-order delivery to the application, cumulative ACKs with SACK
//! blocks (RFC 2018), delayed ACKs (RFC 5681 section 4.2), ECN echo (RFC 3168, or DCTCP's of RFC
//! 8257 section 3.2) and the receive window.
//!
//! ACK policy `counted`: out-of-order, duplicate and hole-filling segments are acknowledged at once;
//! so are the first `quick_ack_segments` segments of the connection; after that in-order segments
//! are acknowledged every `delayed_ack_count` segments or when the delayed-ACK timer expires, and
//! the window offered is the free buffer. Policy `linux` follows Linux's rules instead
//! (`linux_ack.rs`: quick-ACK mode, window growth and autotuning, compressed SACKs).
//!
//! Timestamps (RFC 7323 section 4.3): every ACK echoes TS.Recent, the send time of the segment
//! that last advanced the left edge of the window: TS.Recent takes a segment's send time when the
//! segment starts at or below the last acknowledgement sent. A delayed ACK therefore echoes the
//! earlier of its two segments, a duplicate ACK the last in-order segment, and the ACK for a
//! retransmission that fills a hole the retransmission itself. The first SACK block covers the segment that triggered the ACK, then the other blocks
//! from the highest down (RFC 2018 section 4 asks for the most recent first).
//!
//! Receiver-based delay control (Active Delay Control, papers/active-delay-control.txt) holds each
//! ACK before it leaves, in order: for the delay routers stamped on the data (exact RDC), or for a
//! delay the receiver adapts from CE marks (1-bit RDC). 1-bit RDC applies the update laws of
//! `cc::sdc` once per round of R + D, with R measured from the sender's timestamp echo and W the
//! segments received in the last round, so that the rate W / (R + D) follows AIMD together with
//! the sender's own growth; while W is at most `ONE_BIT_WINDOW_THRESHOLD` it absorbs CE marks
//! instead of echoing them, so the sender does not halve as well; above it the delay drains
//! gradually (docs/algorithms/rdc.md).

use std::collections::VecDeque;
use std::sync::Arc;

use crate::cc::sdc::{delay_after_calm_round, delay_after_mark};
use crate::histogram::DelayHistogram;
use crate::net::packet::{Ecn, Packet, PacketKind, MAX_SACK_BLOCKS};
use crate::sim::Event;
use crate::tcp::linux_ack::{AckTiming, Arrival, LinuxAckPolicy};
use crate::tcp::{AckDelayMode, AckPolicy, EcnEcho, EndpointContext, RecoveryMode, TcpConfig};
use crate::time::{SimDuration, SimTime};

/// 1-bit RDC delays only while the estimated window is at most this many segments (as SDC).
pub const ONE_BIT_WINDOW_THRESHOLD: u64 = 8;

/// The 1-bit RDC controller's state.
#[derive(Clone, Debug, Default)]
pub struct OneBitRdc {
    pub delay: SimDuration,
    pub base_rtt: Option<SimDuration>,
    /// When the current round began (the first segment, or the one that closed the last round).
    round_start: Option<SimTime>,
    segments_in_round: u64,
    ce_in_round: bool,
    /// Segments received in the last complete round: the sender's window as seen here.
    pub window_estimate: Option<u64>,
}

impl OneBitRdc {
    /// One data segment arrived at `now`, echoing the ACK sent at `ts_echo`, maybe CE-marked.
    pub fn on_segment(&mut self, now: SimTime, ts_echo: SimTime, ce: bool, max_delay: SimDuration) {
        if ts_echo > 0 && now > ts_echo {
            let rtt = now - ts_echo;
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        }
        self.segments_in_round += 1;
        self.ce_in_round |= ce;
        let start = *self.round_start.get_or_insert(now);
        let Some(base) = self.base_rtt else { return };
        if now - start < base + self.delay {
            return;
        }
        let (window, marked) = (self.segments_in_round.max(1), self.ce_in_round);
        self.close_round(base, window, marked, max_delay);
        self.round_start = Some(now);
        self.segments_in_round = 0;
        self.ce_in_round = false;
    }

    /// The per-round update: `window` segments arrived in the round, `marked` if any carried CE.
    ///
    /// The flow's rate W / (R + D) follows AIMD with the sender's window and this delay together
    /// (docs/algorithms/rdc.md): at or below the threshold a mark doubles R + D (the receiver
    /// absorbs it, so the window stays), and a calm round lowers D only when the sender's window
    /// did not grow by itself; above it marks reach the sender, which halves its window, and D
    /// drains by the additive-increase law instead of vanishing at once.
    pub fn close_round(&mut self, base_rtt: SimDuration, window: u64, marked: bool, max_delay: SimDuration) {
        let sender_grew = self.window_estimate.is_some_and(|previous| window > previous);
        self.window_estimate = Some(window);
        if self.delay == 0 && (window > ONE_BIT_WINDOW_THRESHOLD || !marked) {
            return;
        }
        if window <= ONE_BIT_WINDOW_THRESHOLD && marked {
            self.delay = delay_after_mark(base_rtt, self.delay).min(max_delay);
        } else if window > ONE_BIT_WINDOW_THRESHOLD && !marked || window <= ONE_BIT_WINDOW_THRESHOLD && !sender_grew {
            self.delay = delay_after_calm_round(base_rtt, self.delay, window);
        }
    }

    /// Whether CE marks are absorbed (delay control) rather than echoed to the sender.
    pub fn absorbs_marks(&self) -> bool {
        self.window_estimate.is_some_and(|w| w <= ONE_BIT_WINDOW_THRESHOLD)
    }
}

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
    /// One-way delay of every data segment that arrived: sender to receiver, queues included.
    pub one_way_delay: DelayHistogram,
}

pub struct TcpReceiver {
    flow: u32,
    /// The node the ACKs go to (the sender's host).
    destination: u32,
    /// Shared with the sender and every flow with the same options (`TcpConfig`).
    config: Arc<TcpConfig>,
    /// Next byte expected; everything before it has been delivered.
    rcv_nxt: u64,
    /// Received ranges above `rcv_nxt`, sorted and disjoint, and their total length.
    out_of_order: Vec<(u64, u64)>,
    held_bytes: u64,
    /// The right edge of the last window advertised (ACK number + window): later ACKs never
    /// offer less (RFC 9293 section 3.8.6.2.2, Linux `tcp_select_window`: no shrinking).
    window_right_edge: u64,
    /// The byte range of the data segment that arrived last.
    last_arrival: (u64, u64),
    /// Segments received since the last ACK, and in all (for quick ACKs).
    unacknowledged_segments: u32,
    segments_received: u64,
    /// RFC 7323: the timestamp to echo, and the acknowledgement number of the last ACK sent.
    ts_recent: SimTime,
    /// When the segment whose send time is `ts_recent` arrived.
    ts_recent_arrival: SimTime,
    last_ack_sent: u64,
    delayed_ack_deadline: Option<SimTime>,
    delayed_ack_event_at: Option<SimTime>,
    /// Echo ECE on the next ACK: RFC 3168, from a CE segment until a segment with CWR arrives;
    /// DCTCP, exactly while the last data segment was CE (its CE state).
    ece_pending: bool,
    /// Receiver-based delay control: ACKs waiting to leave (release time, ACK), the largest
    /// router stamp since the last ACK (exact RDC), and the 1-bit controller.
    held_acks: VecDeque<(SimTime, Packet)>,
    pending_stamp: SimDuration,
    /// Made at the first segment under 1-bit RDC (boxed: 72 bytes other flows need not carry).
    one_bit: Option<Box<OneBitRdc>>,
    /// The Linux ACK policy's state (`ack_policy = "linux"`).
    linux: Option<Box<LinuxAckPolicy>>,
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    /// Memory outside this struct that the next data segment is likely to touch: where its
    /// one-way delay goes (a hint for `Simulation::prefetch_upcoming`).
    pub fn memory_hint(&self) -> crate::prefetch::Hint {
        self.stats.one_way_delay.next_listed_address()
    }

    pub fn new(flow: u32, destination: u32, config: impl Into<Arc<TcpConfig>>) -> Self {
        let config = config.into();
        let linux = (config.ack_policy == AckPolicy::Linux).then(|| {
            let sack = config.recovery == RecoveryMode::Sack;
            Box::new(LinuxAckPolicy::new(config.mss, config.receive_window, config.quick_ack_segments, sack))
        });
        Self {
            flow,
            destination,
            rcv_nxt: 0,
            out_of_order: Vec::new(),
            held_bytes: 0,
            // The sender starts with the window a SYN-ACK would offer.
            window_right_edge: linux.as_ref().map_or(config.receive_window, |policy| policy.offered_window(0)),
            last_arrival: (0, 0),
            unacknowledged_segments: 0,
            segments_received: 0,
            ts_recent: 0,
            ts_recent_arrival: 0,
            last_ack_sent: 0,
            delayed_ack_deadline: None,
            delayed_ack_event_at: None,
            ece_pending: false,
            held_acks: VecDeque::new(),
            pending_stamp: 0,
            one_bit: None,
            linux,
            stats: ReceiverStats::default(),
            config,
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// The window the next ACK offers: the free buffer (held out-of-order bytes are not free),
    /// but never a right edge left of one already offered. Without that rule a hole would pull
    /// the edge back as SACKed data piles up above it, and a sender limited by the window could
    /// send almost nothing in recovery; Linux and ns-2's sinks never do that.
    fn advertised_window(&mut self) -> u64 {
        let free = match &self.linux {
            Some(policy) => policy.offered_window(self.held_bytes),
            None => self.config.receive_window.saturating_sub(self.held_bytes),
        };
        let window = free.max(self.window_right_edge.saturating_sub(self.rcv_nxt));
        self.window_right_edge = self.rcv_nxt + window;
        window
    }

    /// What receiver-based delay control takes from a data segment that arrived at `now`: the
    /// router's stamp (exact RDC), or the round's count and marks (1-bit RDC).
    fn note_for_delay_control(&mut self, data: &Packet, now: SimTime, ce: bool) {
        match self.config.ack_delay {
            AckDelayMode::None => {}
            AckDelayMode::ExactRdc => self.pending_stamp = self.pending_stamp.max(data.delay_stamp),
            AckDelayMode::OneBitRdc => {
                let one_bit = self.one_bit.get_or_insert_with(Box::default);
                one_bit.on_segment(now, data.ts_echo, ce, self.config.ack_delay_max);
            }
        }
    }

    pub fn on_data(&mut self, data: &Packet, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        if data.payload_bytes == 0 {
            // A SYN (`syn = true`): answered at once with a header-only SYN-ACK, even with
            // delayed ACKs, as ns-2's sinks (TCPSink acks every packet; the delayed-ACK sink
            // answers seqno 0 at once with SYN_immediate_ack_, tcp/tcp-sink.cc). It carries no
            // data: nothing is delivered or counted.
            self.stats.acks_sent += 1;
            ctx.outbox.push(Packet {
                kind: PacketKind::TcpAck,
                flow: self.flow,
                destination: self.destination,
                wire_bytes: self.config.header_bytes as u32,
                ack: self.rcv_nxt,
                receive_window: u32::try_from(self.window_right_edge).unwrap_or(u32::MAX),
                sent_at: now,
                ts_echo: data.sent_at,
                ts_echo_arrival: now,
                ..Packet::default()
            });
            return;
        }
        let ce = data.ecn == Ecn::Ce;
        let ce_state_changed = self.dctcp_ce_state_change(ce, ctx);
        self.note_for_delay_control(data, now, ce);
        if ce {
            self.stats.ce_received += 1;
        }
        let ece_was_pending = self.ece_pending;
        if self.config.ecn_echo == EcnEcho::Rfc3168 {
            if data.cwr {
                self.ece_pending = false;
            }
            let absorbed = self.one_bit.as_ref().is_some_and(|one_bit| one_bit.absorbs_marks());
            if ce && self.config.ecn && !absorbed {
                self.ece_pending = true;
            }
        }
        let start = data.sequence;
        let end = start + data.payload_bytes as u64;
        self.stats.one_way_delay.record(now.saturating_sub(data.sent_at));
        if start <= self.last_ack_sent && data.sent_at >= self.ts_recent {
            self.ts_recent = data.sent_at;
            self.ts_recent_arrival = now;
        }
        let had_holes = !self.out_of_order.is_empty();
        self.last_arrival = (start, end);
        let arrival = if end <= self.rcv_nxt || self.is_held(start, end) {
            self.stats.duplicate_bytes += data.payload_bytes as u64;
            Arrival::Duplicate
        } else if start <= self.rcv_nxt {
            self.deliver_up_to(end, now);
            Arrival::InOrder
        } else {
            self.linux_sack_block(start, end, ctx);
            self.hold(start, end);
            Arrival::OutOfOrder
        };
        self.unacknowledged_segments += 1;
        self.segments_received += 1;
        let ce_episode = self.ece_pending && !ece_was_pending;
        // The Linux policy runs on every segment: its window and RTT follow the data even when
        // the ACK goes at once anyway (DCTCP's echo, or delayed ACKs off: Linux's `quickack`).
        let timing = match self.linux.is_some() {
            true => self.linux_timing(data, arrival, had_holes, ce_episode, now),
            false => self.counted_timing(arrival, had_holes),
        };
        let timing = if ce_state_changed || !self.config.delayed_ack { AckTiming::Now } else { timing };
        match timing {
            AckTiming::Now => self.send_ack(Some((start, end)), ctx),
            AckTiming::After(delay) => self.arm_ack_timer(now + delay, ctx),
            AckTiming::Delayed => self.arm_ack_timer(now + self.config.delayed_ack_timeout, ctx),
        }
    }

    /// RFC 5681 section 4.2: at once for anything but in-order data into a buffer without holes,
    /// for the first `quick_ack_segments` segments, and for every `delayed_ack_count`th.
    fn counted_timing(&self, arrival: Arrival, had_holes: bool) -> AckTiming {
        let immediate = arrival != Arrival::InOrder || had_holes;
        let enough = self.unacknowledged_segments >= self.config.delayed_ack_count;
        let quick = self.segments_received <= self.config.quick_ack_segments as u64;
        if immediate || quick || enough {
            AckTiming::Now
        } else {
            AckTiming::Delayed
        }
    }

    /// Linux's rules (`linux_ack.rs`), told of the segment and of what the application read.
    fn linux_timing(
        &mut self,
        data: &Packet,
        arrival: Arrival,
        had_holes: bool,
        ce_episode: bool,
        now: SimTime,
    ) -> AckTiming {
        let ts_echo = if self.config.timestamps { data.ts_echo } else { 0 };
        let holes = !self.out_of_order.is_empty();
        let policy = self.linux.as_deref_mut().expect("called with the Linux policy only");
        policy.on_segment(now, data.payload_bytes as u64, ts_echo, arrival, self.rcv_nxt, self.held_bytes);
        if arrival == Arrival::OutOfOrder {
            let highest_held = self.out_of_order.last().map_or(self.rcv_nxt, |&(_, end)| end);
            policy.on_held_out_of_order(highest_held - self.rcv_nxt);
        }
        if ce_episode {
            policy.on_ce_episode();
        }
        if arrival == Arrival::InOrder {
            policy.on_read(now, self.stats.delivered_bytes);
        }
        policy.timing(self.rcv_nxt - self.last_ack_sent, holes, had_holes && !holes, self.rcv_nxt)
    }

    /// Linux with SACK: out-of-order data [start, end) enters the SACK blocks; if it pushes out
    /// a block while a compressed ACK is pending, that ACK goes first, so the sender hears of
    /// the block (`linux_sack.rs`).
    fn linux_sack_block(&mut self, start: u64, end: u64, ctx: &mut EndpointContext) {
        let Some(policy) = self.linux.as_deref() else { return };
        if !policy.sack() {
            return;
        }
        if policy.compressing() && policy.sack_blocks.would_push_one_out(start, end) {
            self.send_ack(None, ctx);
        }
        if let Some(policy) = self.linux.as_deref_mut() {
            policy.sack_blocks.on_out_of_order(start, end);
        }
    }

    /// The ACK goes out by `deadline` at the latest (a pending earlier deadline stays).
    fn arm_ack_timer(&mut self, deadline: SimTime, ctx: &mut EndpointContext) {
        let deadline = self.delayed_ack_deadline.map_or(deadline, |pending| pending.min(deadline));
        self.delayed_ack_deadline = Some(deadline);
        if self.delayed_ack_event_at.is_none_or(|at| at > deadline) {
            self.delayed_ack_event_at = Some(deadline);
            ctx.events.schedule(deadline, Event::DelayedAckTimer { flow: self.flow });
        }
    }

    /// DCTCP's echo (RFC 8257 section 3.2): the CE state follows each data segment, and a
    /// change is acknowledged at once (the caller's immediate ACK); the segments a delayed ACK
    /// was still waiting for are acknowledged first, with the old state. Returns whether the
    /// state changed; nothing happens with the RFC 3168 echo.
    fn dctcp_ce_state_change(&mut self, ce: bool, ctx: &mut EndpointContext) -> bool {
        if !self.config.ecn || self.config.ecn_echo != EcnEcho::Dctcp || ce == self.ece_pending {
            return false;
        }
        if self.unacknowledged_segments > 0 {
            self.send_ack(None, ctx);
        }
        self.ece_pending = ce;
        true
    }

    pub fn on_delayed_ack_timer(&mut self, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        if self.delayed_ack_event_at == Some(now) {
            self.delayed_ack_event_at = None;
        }
        match self.delayed_ack_deadline {
            // A compressed SACK leads with the block of the segment that arrived last (Linux keeps
            // its SACK blocks most recently changed first, `tcp_sack_new_ofo_skb`).
            Some(deadline) if deadline <= now => self.send_ack(Some(self.last_arrival), ctx),
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
        if let Some(policy) = self.linux.as_deref_mut() {
            policy.sack_blocks.on_cumulative_ack(new_next);
        }
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

    /// The SACK blocks of the counted policy: the one holding `trigger` (the segment that
    /// prompted the ACK) first, then the highest.
    fn newest_and_highest_sack_blocks(&self, trigger: Option<(u64, u64)>) -> ([(u64, u64); MAX_SACK_BLOCKS], usize) {
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
        (sack, count)
    }

    fn send_ack(&mut self, trigger: Option<(u64, u64)>, ctx: &mut EndpointContext) {
        if let Some(policy) = self.linux.as_deref_mut() {
            policy.on_ack_sent();
        }
        self.unacknowledged_segments = 0;
        self.delayed_ack_deadline = None;
        self.last_ack_sent = self.rcv_nxt;
        let (sack, count) = match self.linux.as_deref().filter(|policy| policy.sack()) {
            Some(policy) => {
                let reported = policy.sack_blocks.reported();
                let mut sack = [(0, 0); MAX_SACK_BLOCKS];
                sack[..reported.len()].copy_from_slice(reported);
                (sack, reported.len())
            }
            None => self.newest_and_highest_sack_blocks(trigger),
        };
        // SACK option: 2 bytes kind/length + 8 per block, padded to 4 bytes with two NOPs.
        let option_bytes = if count > 0 { 4 + 8 * count as u64 } else { 0 };
        self.stats.acks_sent += 1;
        let hold = match self.config.ack_delay {
            AckDelayMode::None => 0,
            AckDelayMode::ExactRdc => std::mem::take(&mut self.pending_stamp).min(self.config.ack_delay_max),
            AckDelayMode::OneBitRdc => self.one_bit.as_ref().map_or(0, |one_bit| one_bit.delay),
        };
        let mut ack = Packet {
            kind: PacketKind::TcpAck,
            flow: self.flow,
            destination: self.destination,
            wire_bytes: (self.config.header_bytes + option_bytes) as u32,
            ack: self.rcv_nxt,
            receive_window: u32::try_from(self.advertised_window()).unwrap_or(u32::MAX),
            ece: self.ece_pending,
            sent_at: ctx.events.now(),
            ts_echo: self.ts_recent,
            ts_echo_arrival: self.ts_recent_arrival,
            ..Packet::default()
        };
        ack.set_sack_blocks(&sack[..count]);
        if hold == 0 && self.held_acks.is_empty() {
            ctx.outbox.push(ack);
            return;
        }
        // Held ACKs leave in order: never before the one held ahead of them.
        let now = ctx.events.now();
        let release = self.held_acks.back().map_or(now + hold, |&(last, _)| last.max(now + hold));
        self.held_acks.push_back((release, ack));
        ctx.events.schedule(release, Event::AckSendRelease { flow: self.flow });
    }

    /// Sends the held ACKs whose time has come (stamped with their actual send time).
    pub fn on_ack_send_release(&mut self, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        while self.held_acks.front().is_some_and(|&(release, _)| release <= now) {
            let (_, mut ack) = self.held_acks.pop_front().expect("checked above");
            ack.sent_at = now;
            ctx.outbox.push(ack);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MILLI as MS;

    #[test]
    fn one_bit_rdc_laws_per_round() {
        let mut rdc = OneBitRdc::default();
        let (base, max) = (100 * MS, 2_000 * MS);
        rdc.close_round(base, 4, false, max);
        assert_eq!(rdc.delay, 0);
        assert!(rdc.absorbs_marks());
        // A marked round doubles R + D: D = 100 ms, then 100 + 2 x 100 = 300 ms.
        rdc.close_round(base, 4, true, max);
        assert_eq!(rdc.delay, 100 * MS);
        rdc.close_round(base, 4, true, max);
        assert_eq!(rdc.delay, 300 * MS);
        // Calm, and the sender's window did not grow: R + D = 400 ms x 4/5 = 320 ms, D = 220 ms.
        rdc.close_round(base, 4, false, max);
        assert_eq!(rdc.delay, 220 * MS);
        // Calm, and the sender grew by a segment: that is the round's additive increase already.
        rdc.close_round(base, 5, false, max);
        assert_eq!(rdc.delay, 220 * MS);
        for _ in 0..10 {
            rdc.close_round(base, 5, true, max);
        }
        assert_eq!(rdc.delay, max, "bounded by the maximum");
        // Above 8 segments a mark is the sender's to answer: the delay stays, marks are echoed.
        rdc.close_round(base, 40, true, max);
        assert_eq!(rdc.delay, max);
        assert!(!rdc.absorbs_marks());
    }

    #[test]
    fn one_bit_rdc_delay_changes_smoothly_across_the_window_threshold() {
        let mut rdc = OneBitRdc { delay: 300 * MS, window_estimate: Some(5), ..OneBitRdc::default() };
        let (base, max) = (100 * MS, 2_000 * MS);
        let mut round_trip = base + rdc.delay;
        // A sender in congestion avoidance grows one segment per round from 6 to 20.
        for window in 6..=20u64 {
            rdc.close_round(base, window, false, max);
            let next = base + rdc.delay;
            // At most the additive-increase step R + D -> (R + D) W / (W + 1): no jump to zero.
            assert!(next <= round_trip && round_trip - next <= round_trip / (window + 1) + 1, "W = {window}");
            if window <= ONE_BIT_WINDOW_THRESHOLD {
                assert_eq!(rdc.delay, 300 * MS, "below the threshold the sender's growth is the increase");
            }
            round_trip = next;
        }
        assert!(rdc.delay > 0 && rdc.delay < 300 * MS, "draining, not gone: {} ms", rdc.delay / MS);
        // Keeps draining to zero.
        for _ in 0..200 {
            rdc.close_round(base, 20, false, max);
        }
        assert_eq!(rdc.delay, 0);
    }

    #[test]
    fn one_bit_rdc_rounds_last_r_plus_d_and_measure_r_from_the_echo() {
        let mut rdc = OneBitRdc::default();
        // Segments every 10 ms, each echoing an ACK sent 100 ms before it arrived; one CE.
        for i in 0..30u64 {
            let now = 1_000 * MS + i * 10 * MS;
            rdc.on_segment(now, now - 100 * MS, i == 5, 2_000 * MS);
        }
        assert_eq!(rdc.base_rtt, Some(100 * MS));
        // The first round (100 ms, 11 segments: more than 8) turned control off; the window is
        // measured per round.
        assert_eq!(rdc.window_estimate, Some(10));
        assert_eq!(rdc.delay, 0);
    }
}
