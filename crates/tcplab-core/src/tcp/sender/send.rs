//! The send path: what the window, the receiver's window, pacing and the application let out,
//! retransmissions before new data; the SYN exchange of `syn = true` (ns-2's one-way agents with
//! `syn_`); and the packet each data segment becomes.

use super::{Segment, TcpSender, SCOREBOARD_PREFETCH_AHEAD};
use crate::net::packet::{Ecn, Packet, PacketKind};
use crate::tcp::{EcnResponse, EndpointContext, RecoveryMode, RttSampling};
use crate::time::{transmission_time, SimTime, NANOS_PER_SEC};

/// Linux paces a connection only from its tenth data segment on, as the original fq qdisc did
/// (`tcp_update_skb_after_send`: no pacing gap while `data_segs_out` < 10, counted after the
/// segment), so an initial window of ten leaves as a burst.
const UNPACED_SEGMENTS: u8 = 10;

/// The connection set-up with `syn = true` (ns-2's one-way agents with `syn_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Handshake {
    /// No SYN (or the SYN-ACK arrived): data flows.
    Done,
    /// The SYN leaves with the application's first write.
    Pending,
    /// The SYN is out; `retransmitted` once the timer resent it (no RTT sample then, Karn).
    SynSent { sent_at: SimTime, retransmitted: bool },
}

impl TcpSender {
    // ----- sending -----

    /// Sends whatever the window, the receiver window, pacing and the application allow; returns
    /// whether new data went out (the tail loss probe is then re-armed).
    pub fn try_send(&mut self, ctx: &mut EndpointContext) -> bool {
        if self.handshake != Handshake::Done {
            if self.handshake == Handshake::Pending {
                self.send_syn(false, ctx);
            }
            return false;
        }
        let now = ctx.events.now();
        let mut window_was_limit = false;
        let mut sent_new = false;
        loop {
            if self.ecn_wait {
                window_was_limit = true;
                break;
            }
            // Segments of one GSO packet leave together: pacing spaces the packets.
            if now < self.next_send_time && self.pacing_rate().is_some() && self.gso_segments_left == 0 {
                if !self.pacing_timer_pending {
                    self.pacing_timer_pending = true;
                    ctx.events.schedule(self.next_send_time, crate::sim::Event::PacingTimer { flow: self.flow });
                }
                break;
            }
            let in_flight = self.bytes_in_flight();
            let window = self.send_window();
            // F-RTO step 2b: new data goes first, the lost-marked segments wait.
            let retransmission = if self.frto_send_new { None } else { self.next_retransmission() };
            let length = match retransmission {
                Some(offset) => self.segment_len(self.snd_una + offset as u64 * self.config.mss),
                None => match self.sendable_new_segment() {
                    Some(length) => length,
                    None => {
                        let available = self.app_written.min(self.stream_end.unwrap_or(u64::MAX));
                        if self.snd_nxt >= available && in_flight + self.config.mss <= window {
                            self.app_limited = true;
                            // Rate samples stay app-limited until this flight is delivered.
                            self.app_limited_until = (self.delivered + in_flight).max(1);
                        }
                        break;
                    }
                },
            };
            if in_flight + length > window && in_flight > 0 {
                window_was_limit = true;
                break;
            }
            match retransmission {
                Some(offset) => {
                    self.gso_segments_left = 0;
                    self.retransmit(offset, ctx);
                }
                None => {
                    if self.config.gso && !self.gso_admits_segment(now, in_flight, window) {
                        window_was_limit = true;
                        break;
                    }
                    self.app_limited = false;
                    self.send_new(length, ctx);
                    sent_new = true;
                }
            }
        }
        // The GSO packet ends with this transmission opportunity.
        self.gso_segments_left = 0;
        self.update_cwnd_limited(window_was_limit);
        if sent_new {
            self.schedule_loss_probe(ctx);
        }
        sent_new
    }

    /// The window for the pipe comparison: cwnd, NewReno inflation or PRR, RFC 3042 limited
    /// transmit.
    pub(super) fn send_window(&self) -> u64 {
        let cwnd = self.effective_cwnd();
        let limited_transmit = self.config.limited_transmit
            && self.config.recovery != RecoveryMode::Sack
            && !self.in_recovery
            && (1..=2).contains(&self.duplicate_acks);
        let window = if limited_transmit { cwnd + self.duplicate_acks as u64 * self.config.mss } else { cwnd };
        if self.one_segment_cap {
            window.min(self.config.mss)
        } else {
            window
        }
    }

    /// The first lost segment not yet retransmitted (RFC 6675 NextSeg rule 1).
    pub(super) fn next_retransmission(&mut self) -> Option<usize> {
        if self.lost_count == 0 {
            return None;
        }
        let start = self.retransmit_hint as usize;
        for offset in start..self.segments.len() {
            let segment = &self.segments[offset];
            if segment.lost && !segment.sacked && !segment.retransmission_in_flight {
                self.retransmit_hint = offset as u64;
                return Some(offset);
            }
        }
        self.retransmit_hint = self.segments.len() as u64;
        None
    }

    /// Resends the segment at `offset`: a lost one, or (for a tail loss probe) one not marked.
    pub(super) fn retransmit(&mut self, offset: usize, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        let start = self.snd_una + offset as u64 * self.config.mss;
        let length = self.segment_len(start);
        self.stamp_delivery_state(offset, now);
        let segment = &mut self.segments[offset];
        debug_assert!(!segment.retransmission_in_flight && !segment.sacked);
        // A lost segment stays marked lost while its retransmission is in flight: the pipe
        // counts it once (- lost + retransmitted). A probe of a segment not marked lost counts
        // twice, original and probe, as in Linux.
        segment.retransmission_in_flight = true;
        segment.ever_retransmitted = true;
        segment.sent_at = now;
        self.retransmissions_in_flight += 1;
        self.retransmit_hint = self.retransmit_hint.max(offset as u64 + 1);
        self.retransmission_order.push_back((start, now));
        self.first_retransmission_at.get_or_insert(now);
        self.stats.retransmitted_segments += 1;
        self.stats.retransmitted_bytes += length;
        // ns-2 (`SetCWRonRetransmit_ true` since 2008/06/05, tcp.cc `output`) sets CWR on the
        // next segment, retransmissions included, so that the receiver stops echoing ECE even
        // while only retransmissions may leave (after a timeout or an ECN wait).
        let cwr = self.config.ecn_response == EcnResponse::Rfc3168 && std::mem::take(&mut self.cwr_pending);
        self.emit(start, length, cwr, true, ctx);
    }

    pub(super) fn send_new(&mut self, length: u64, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        let start = self.snd_nxt;
        if self.config.rtt_sampling == RttSampling::TimedSegment && self.rtt_timed.is_none() {
            // ns-2 `output`: a segment never sent before starts the timing when none is timed.
            self.rtt_timed = Some((start + length, now));
        }
        self.segments.push_back(Segment { sent_at: now, ..Segment::default() });
        crate::prefetch::prefetch_fifo_slot_past_back(&self.segments, SCOREBOARD_PREFETCH_AHEAD);
        self.stamp_delivery_state(self.segments.len() - 1, now);
        self.snd_nxt += length;
        if !self.in_recovery && !self.in_timeout_recovery && self.duplicate_acks > 0 {
            self.limited_transmit_bytes += length;
        }
        let cwr = std::mem::take(&mut self.cwr_pending);
        self.emit(start, length, cwr, false, ctx);
    }

    /// Sends the SYN: a header-only packet at sequence 0, never ECN-capable (ns-2 `output` for
    /// seqno 0 with `syn_`: size `tcpip_base_hdr_size_`, no ECT). It carries no stream byte:
    /// data starts at 0 after the SYN-ACK.
    pub(super) fn send_syn(&mut self, retransmitted: bool, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        self.handshake = Handshake::SynSent { sent_at: now, retransmitted };
        ctx.outbox.push(Packet {
            kind: PacketKind::TcpData,
            flow: self.flow,
            destination: self.destination,
            wire_bytes: self.config.header_bytes as u32,
            sequence: 0,
            payload_bytes: 0,
            ecn: Ecn::NotEct,
            sent_at: now,
            ts_echo: self.last_ack_sent_at,
            ..Packet::default()
        });
        self.stats.segments_sent += 1;
        if retransmitted {
            self.stats.retransmitted_segments += 1;
        }
        self.arm_rto(ctx);
    }

    /// The SYN-ACK arrived: its RTT seeds the estimator unless the SYN was resent (ns-2 times
    /// the SYN like any new segment), and data may flow. With ns-2's `delay_growth_` the window
    /// does not grow on it: the algorithm sees it only as the connection's start
    /// (`on_connection_established`), so the data starts with the initial
    /// window (one segment after a SYN timeout, as the algorithm's loss window; ns-2 likewise
    /// drops `windowInit_` to 1 when the first packet was lost, `bugfix_ss_`).
    pub(super) fn on_syn_ack(&mut self, ack: &Packet, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        let Handshake::SynSent { sent_at, retransmitted } = self.handshake else { return };
        self.handshake = Handshake::Done;
        self.peer_window = ack.receive_window as u64;
        self.last_ack_sent_at = self.last_ack_sent_at.max(ack.sent_at);
        let syn_rtt = (!retransmitted).then(|| now - sent_at);
        if syn_rtt.is_some() {
            // The SYN's RTT seeds the timer; the RTT statistics stay about data segments.
            let (min_rtt, latest) = (self.rtt.min_rtt, self.rtt.latest);
            self.rtt.on_sample_sent_at(sent_at, now, true, self.sequence_window());
            (self.rtt.min_rtt, self.rtt.latest) = (min_rtt, latest);
        }
        self.cc.on_connection_established(now, syn_rtt);
        self.rto_deadline = None;
        self.try_send(ctx);
        self.schedule_timer_event(ctx);
    }

    /// Whether the SYN is out and its SYN-ACK not yet in.
    pub fn awaiting_syn_ack(&self) -> bool {
        matches!(self.handshake, Handshake::SynSent { .. })
    }

    /// Records the connection's delivery state in a segment about to be sent. A send into an empty
    /// pipe starts a new flight: its intervals start now.
    pub(super) fn stamp_delivery_state(&mut self, offset: usize, now: SimTime) {
        if self.bytes_in_flight() == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let in_flight = self.bytes_in_flight() + self.config.mss;
        let (delivered, lost, app_limited) = (self.delivered, self.lost_bytes, self.app_limited_until != 0);
        let segment = &mut self.segments[offset];
        segment.delivered_time = self.delivered_time;
        segment.first_sent_time = self.first_sent_time;
        segment.stamp(delivered, lost, in_flight, app_limited);
    }

    /// Hands a data segment to the network. Retransmissions are not ECN-capable (RFC 3168
    /// section 6.1.5: a router must not mark a packet the sender could not react to) unless
    /// `ect_retransmissions` (ns-2 marks every data packet ECT).
    ///
    /// Pacing charges the payload only, as Linux does (net/ipv4/tcp_output.c
    /// `tcp_update_skb_after_send` spaces packets by the length of the data, before headers are
    /// added) and as ns-3's pacing does: a rate estimated from delivered payload then sends that
    /// payload rate, not 3.5% less.
    pub(super) fn emit(&mut self, start: u64, length: u64, cwr: bool, retransmission: bool, ctx: &mut EndpointContext) {
        let now = ctx.events.now();
        let wire_bytes = length + self.config.header_bytes;
        let in_flight_before = self.bytes_in_flight().saturating_sub(length);
        ctx.outbox.push(Packet {
            kind: PacketKind::TcpData,
            flow: self.flow,
            destination: self.destination,
            wire_bytes: wire_bytes as u32,
            sequence: start,
            payload_bytes: length as u32,
            ecn: if self.config.ecn && (!retransmission || self.config.ect_retransmissions) {
                Ecn::Ect
            } else {
                Ecn::NotEct
            },
            cwr,
            sent_at: now,
            ts_echo: self.last_ack_sent_at,
            ..Packet::default()
        });
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += length;
        if let Some(prr) = self.prr.as_mut().filter(|_| self.in_recovery) {
            prr.on_sent(length);
        }
        self.cc.on_packet_sent(now, length, in_flight_before);
        self.data_segments_sent = self.data_segments_sent.saturating_add(1).min(UNPACED_SEGMENTS);
        // Paced: the earliest time of the next transmission; otherwise the time of this one
        // (Linux's `tcp_wstamp_ns`, which GSO deferral reads).
        self.next_send_time = self.next_send_time.max(now);
        if let Some(rate) = self.pacing_rate().filter(|_| self.data_segments_sent >= UNPACED_SEGMENTS) {
            self.next_send_time += transmission_time(length, rate.max(1));
        }
        if self.rto_deadline.is_none() {
            self.arm_rto(ctx);
        }
    }

    /// The rate the sender paces at: the algorithm's, or with the `pacing` option Linux's internal
    /// rate. No pacing before the first RTT sample.
    pub(super) fn pacing_rate(&self) -> Option<u64> {
        match self.cc.pacing_rate() {
            Some(rate) => Some(rate),
            None if self.config.pacing => self.linux_pacing_rate(),
            None => None,
        }
    }

    /// The algorithm's pacing rate, else Linux's `tcp_update_pacing_rate`: MSS x max(cwnd,
    /// packets out) / srtt, times 2 while cwnd < ssthresh / 2 and 1.2 after (None before an RTT
    /// sample). Linux keeps it for every socket; it paces by it only with fq or the option.
    pub(super) fn linux_pacing_rate(&self) -> Option<u64> {
        if let Some(rate) = self.cc.pacing_rate() {
            return Some(rate);
        }
        let srtt = self.rtt.srtt?;
        let cwnd = self.cc.cwnd();
        let percent: u128 = if cwnd < self.cc.ssthresh() / 2 { 200 } else { 120 };
        let window = cwnd.max(self.packets_out() * self.config.mss) as u128;
        let bits_per_second = window * 8 * percent * NANOS_PER_SEC as u128 / (100 * srtt.max(1) as u128);
        Some(bits_per_second.min(u64::MAX as u128) as u64)
    }
}
