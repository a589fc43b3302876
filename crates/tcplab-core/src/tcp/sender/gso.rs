//! The unit Linux sends in, with `gso = true`: a GSO packet of several segments that leaves
//! back to back, sized to about a millisecond of the pacing rate, and held back while the window
//! has room for less than one of them and an ACK that will make room is due (net/ipv4/tcp_output.c
//! of Linux 6.18: `tcp_tso_autosize`, `tcp_tso_segs`, `tcp_tso_should_defer`, called from
//! `tcp_write_xmit` for every socket whose route's device does GSO, as the Linux back-end's TUN
//! devices and any NIC with TSO do).
//!
//! Why it matters: a kernel CUBIC or Reno flow in congestion avoidance sends four segments on
//! every second ACK rather than two on each (a capture of one Reno flow at 50 Mbit/s, 150 ms:
//! 2,029 bursts of four and 92 of two in 2 s, docs/linux-fidelity.md), and a paced flow (BBR)
//! sends its segments in bursts of two or more at line rate. Queues see those bursts: on a
//! shallow buffer they decide which packets are dropped.

use super::TcpSender;
use crate::time::{SimDuration, SimTime, NANOS_PER_MILLI};

/// Linux's GSO size limit for a device without BIG TCP (GSO_LEGACY_MAX_SIZE), bytes.
const GSO_MAX_BYTES: u64 = 65_536;
/// `sk_pacing_shift`: a GSO packet carries about 2^-10 s (~1 ms) of the pacing rate.
const PACING_SHIFT: u32 = 10;
/// `tcp_tso_rtt_log` (Linux 5.18+): below 2^9 us of min RTT, GSO packets grow by up to 64 KB.
const TSO_RTT_LOG: u32 = 9;
/// `tcp_tso_win_divisor`: room for a third of the window is always worth sending.
const TSO_WIN_DIVISOR: u64 = 3;
/// Deferral holds only while the last transmission is this recent, and only when the next ACK
/// is due within min(this, srtt / 2) (Linux 6.18, "tcp: fix tcp_tso_should_defer() vs large RTT").
const DEFER_HORIZON: SimDuration = NANOS_PER_MILLI;

/// Segments per GSO packet (`tcp_tso_autosize`): the pacing rate's bytes per 2^-10 s, plus
/// 64 KB >> (min RTT in us >> 9) on short paths, at most 64 KB, at least `min_segments`
/// (`tcp_min_tso_segs`, 2, or the algorithm's `min_tso_segs`). Without a rate (Linux's
/// `sk_pacing_rate` starts unlimited) the packet is as large as GSO allows.
pub(super) fn tso_segments(
    pacing_rate_bps: Option<u64>,
    min_rtt: Option<SimDuration>,
    mss: u64,
    min_segments: u64,
) -> u64 {
    let mut bytes = pacing_rate_bps.map_or(u64::MAX, |rate| (rate / 8) >> PACING_SHIFT);
    let shift = min_rtt.map_or(u64::MAX, |rtt| (rtt / 1_000) >> TSO_RTT_LOG);
    if shift < 64 {
        bytes = bytes.saturating_add(GSO_MAX_BYTES >> shift);
    }
    (bytes.min(GSO_MAX_BYTES) / mss.max(1)).max(min_segments)
}

impl TcpSender {
    /// Segments the next GSO packet may carry (`tcp_tso_segs`).
    pub(super) fn gso_segments(&self) -> u64 {
        let rate = self.linux_pacing_rate();
        tso_segments(rate, self.rtt.min_rtt, self.config.mss, self.cc.min_tso_segments(rate))
    }

    /// Whether the next new segment may leave now: it belongs to the GSO packet being sent, or
    /// it starts one that need not wait for an ACK. Counts it against the packet's segments.
    pub(super) fn gso_admits_segment(&mut self, now: SimTime, in_flight: u64, window: u64) -> bool {
        if self.gso_segments_left == 0 {
            if self.should_defer_for_gso(now, in_flight, window) {
                return false;
            }
            self.gso_segments_left = self.gso_segments().clamp(1, u8::MAX as u64) as u8;
        }
        self.gso_segments_left -= 1;
        true
    }

    /// Whether new data should wait for the next ACK (`tcp_tso_should_defer`), given the bytes
    /// in flight and the window. Linux asks only for a packet of more than one segment and never
    /// in recovery. It sends at once when the last transmission is over 1 ms old; when the room
    /// the windows leave (`limit`) fits a whole GSO packet or a third of the window; when nothing
    /// is outstanding; or when the next ACK is not due within min(1 ms, srtt / 2). Otherwise it
    /// waits while the room is less than the packet at the head of the queue, and also when the
    /// whole packet fits but is the last of what the application wrote and no FIN ends it (it
    /// may still grow).
    pub(super) fn should_defer_for_gso(&self, now: SimTime, in_flight: u64, window: u64) -> bool {
        let mss = self.config.mss;
        if self.is_in_recovery() || now > self.next_send_time + DEFER_HORIZON {
            return false;
        }
        let stream_end = self.stream_end.unwrap_or(u64::MAX);
        let unsent = self.app_written.min(stream_end).saturating_sub(self.snd_nxt);
        let congestion_room = window.saturating_sub(in_flight);
        let receive_room = (self.snd_una + self.peer_window).saturating_sub(self.snd_nxt);
        let limit = congestion_room.min(receive_room);
        if unsent <= mss || limit >= window.min(self.peer_window) / TSO_WIN_DIVISOR {
            return false;
        }
        let Some(head) = self.segments.front() else { return false };
        let srtt = self.rtt.srtt.unwrap_or(0);
        let ack_due_in = (head.sent_at + srtt) as i128 - now as i128;
        if ack_due_in > (srtt / 2).min(DEFER_HORIZON) as i128 {
            return false;
        }
        // The cheap tests are done; only now the packet size (a division of the rate).
        let packet = self.gso_segments() * mss;
        if limit >= packet {
            return false;
        }
        let ends_with_fin = self.app_written >= stream_end;
        limit < unsent.min(packet) || !ends_with_fin
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gso_packet_carries_a_millisecond_of_the_pacing_rate() {
        // 60 Mbit/s = 7,500,000 B/s; >> 10 = 7,324 B = 5 segments of 1448 B (10 ms min RTT:
        // 10,000 us >> 9 = 19, and 65,536 >> 19 = 0 adds nothing).
        assert_eq!(tso_segments(Some(60_000_000), Some(10_000_000), 1448, 2), 5);
        // Slow: the floor of two segments (one for BBR below 1.2 Mbit/s).
        assert_eq!(tso_segments(Some(1_000_000), Some(10_000_000), 1448, 2), 2);
        assert_eq!(tso_segments(Some(1_000_000), Some(10_000_000), 1448, 1), 1);
        // No rate yet: as large as GSO allows, 65,536 / 1448 = 45 segments.
        assert_eq!(tso_segments(None, None, 1448, 2), 45);
        // A 1 ms path: 1,000 us >> 9 = 1, so 32,768 B more: (7,324 + 32,768) / 1448 = 27.
        assert_eq!(tso_segments(Some(60_000_000), Some(1_000_000), 1448, 2), 27);
    }
}
