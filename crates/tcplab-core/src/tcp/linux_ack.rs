//! When a Linux 6.x receiver sends its ACKs, and the window it offers (`ack_policy = "linux"`; the
//! other policy, `"counted"`, is RFC 5681 section 4.2's, in `receiver.rs`). Linux ties the two:
//! growing the offered window is itself a reason to ACK at once. Written from the kernel's
//! net/ipv4/tcp_input.c, tcp_output.c and tcp.c (v6.x); each rule names the function it follows:
//!
//! 1. **Quick-ACK mode** (`tcp_incr_quickack`, `tcp_in_quickack_mode`, `tcp_dec_quickack_mode`):
//!    while quick ACKs are left every data segment is ACKed at once, and each ACK sent uses one.
//!    The first in-order data gives min(window / (2 MSS), 16) of them (`tcp_event_data_recv`),
//!    and so does data after a silence longer than the receiver's RTO; a duplicate segment gives
//!    them too (`tcp_data_queue`: `tcp_enter_quickack_mode`), and the first CE mark of an episode
//!    two (`tcp_ecn_check_ce`, RFC 3168 echo only).
//! 2. **Window growth** (`tcp_grow_window`): every segment of at least 128 bytes that arrives
//!    while the window's growth limit `rcv_ssthresh` is below the free part of the window clamp
//!    (out-of-order data held takes its share, `tcp_space`) raises the limit by max(2 MSS,
//!    2 x its length), up to that, and sets the lowest bit of the quick-ACK count
//!    (`icsk_ack.quick |= 1`): an even count gains one, so the ACK that segment earns does not use
//!    up a quick ACK left from quick-ACK mode. Through slow start the receiver therefore ACKs
//!    (almost) every segment, where the counted policy ACKs every second.
//!    Out-of-order segments grow it too when SACK is on (`tcp_data_queue_ofo`).
//! 3. **Receive-buffer autotuning** (`tcp_rcv_space_adjust`): once per receiver RTT, when the
//!    application read more than ever before in one RTT (`copied`), the window clamp becomes
//!    2 copied + 16 MSS, plus twice that times the reading's growth over the last record, at most
//!    the largest window. This is the formula of Linux 4.19 to 6.15. 6.16 grew the clamp to
//!    2 copied only, and 6.18 ("tcp: fix too slow tcp_rcvbuf_grow() action") to the old formula
//!    without its 16-MSS cushion; but without the cushion the simulator's CUBIC flows at 150 ms
//!    leave slow start with 1,386 KB where the kernel of this machine (6.18) and the simulator
//!    with it leave with 920 KB (docs/linux-fidelity.md). The receiver's RTT comes from
//!    timestamp echoes (`tcp_rcv_rtt_measure_ts`; the timestamp clock counts whole ms), a sample
//!    below the estimate taking its place at once and a larger one moving it by 1/8
//!    (`tcp_rcv_rtt_update`, Linux 6.16 and the stable kernels since, "tcp: always seek for
//!    minimal rtt"), or without timestamps the shortest time to receive one window
//!    (`tcp_rcv_rtt_measure`).
//!    Out-of-order data grows the clamp too, to twice the most read in one RTT plus the span
//!    from `rcv_nxt` to the highest byte held (`tcp_data_queue_ofo` calling `tcp_rcvbuf_grow`,
//!    Linux 6.16 and later): a sender repairing holes is not held back by its own held data.
//! 4. **Offered window** (`__tcp_select_window`): the free space up to `rcv_ssthresh`, rounded up
//!    to the window-scale unit; the right edge never moves left (the caller's rule).
//! 5. **Two full segments** (`__tcp_ack_snd_check`): more than one MSS received since the last ACK.
//! 6. **A filled hole** (`tcp_data_queue`: `ICSK_ACK_NOW`): ACK at once when the last hole closes.
//! 7. **Out-of-order data** (`__tcp_ack_snd_check`): with SACK, the first three ACKs at one
//!    `rcv_nxt` go at once; later ones are compressed into one per min(1 ms, RTT / 20)
//!    (`tcp_comp_sack_delay_ns`), at most 44 in one (`tcp_comp_sack_nr`), and sooner if a new
//!    SACK block would push an unreported one out (`linux_sack.rs`). Without SACK, at once.
//! 8. Otherwise the delayed-ACK timer (`tcp_send_delayed_ack`; a bulk receiver's ATO stays at
//!    TCP_ATO_MIN, 40 ms: the caller's `delayed_ack_timeout`).
//!
//! Not modelled, with why: the ACK a full segment carrying PSH earns once the application has read
//! it (`tcp_measure_rcv_mss` sets ICSK_ACK_PUSHED, `tcp_cleanup_rbuf` sends): it depends on where
//! the sending application's writes end, which the simulator does not model; pingpong
//! (interactive) mode; memory pressure; and a slow reader (the application reads at once).
//! docs/tcp.md has the rules with their sources, and docs/linux-fidelity.md what they change.

use crate::tcp::linux_sack::SackBlocks;
use crate::time::{SimDuration, SimTime, NANOS_PER_MILLI};

/// Quick ACKs a new episode gives at most (TCP_MAX_QUICKACKS, include/net/tcp.h).
pub const MAX_QUICK_ACKS: u32 = 16;
/// Receive buffer a socket starts with, bytes (tcp_rmem[1] default since Linux 4.19, commit "tcp:
/// up initial rmem to 128KB and SYN rwin to around 64KB"; the Linux back-end sets the same).
pub const INITIAL_RECEIVE_BUFFER: u64 = 131_072;
/// Window a connection starts with, bytes (the SYN's 16-bit window, same commit).
pub const INITIAL_WINDOW: u64 = 65_535;
/// The share of receive-buffer memory the kernel offers as window, in 256ths (`scaling_ratio`,
/// `tcp_win_from_space`): payload over the socket buffer's true size, which the kernel measures
/// per device. 158 is this back-end's TUN devices': the first window plateau of a kernel receiver
/// was 80,896 B = 131,072 x 158 / 256 (docs/linux-fidelity.md).
pub const WINDOW_SHARE_OF_BUFFER_256THS: u64 = 158;
/// Segments shorter than this do not grow the window (`tcp_event_data_recv`).
const GROWTH_MIN_SEGMENT_BYTES: u64 = 128;
/// ACKs at one `rcv_nxt` sent at once before SACK compression (TCP_FASTRETRANS_THRESH).
const UNCOMPRESSED_DUPLICATE_ACKS: u32 = 3;
/// Compressed ACKs at most in one (net.ipv4.tcp_comp_sack_nr).
const MAX_COMPRESSED_ACKS: u32 = 44;
/// The longest wait of a compressed ACK, ns (net.ipv4.tcp_comp_sack_delay_ns).
const MAX_COMPRESSION_DELAY: SimDuration = NANOS_PER_MILLI;
/// The receiver's RTO floor, ns (TCP_RTO_MIN), for the idle rule.
const MIN_RTO: SimDuration = 200 * NANOS_PER_MILLI;
/// The RTO before any RTT is known, ns (TCP_TIMEOUT_INIT).
const INITIAL_RTO: SimDuration = 1_000 * NANOS_PER_MILLI;
/// The TCP timestamp clock's tick, ns: Linux's timestamps count milliseconds (TCP_TS_HZ) unless
/// a route asks for microseconds.
const TIMESTAMP_TICK: SimDuration = NANOS_PER_MILLI;
/// net.core.rmem_max's default, bytes: with tcp_rmem[2] it sets the window scale.
const DEFAULT_RMEM_MAX: u64 = 212_992;

/// What a data segment was to the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// New data at `rcv_nxt`.
    InOrder,
    /// New data above a hole.
    OutOfOrder,
    /// Data received before (a spurious or repeated retransmission).
    Duplicate,
}

/// When the ACK for what has arrived goes out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckTiming {
    Now,
    /// A compressed SACK: after this long, unless another ACK goes first.
    After(SimDuration),
    /// On the delayed-ACK timer, unless a later segment sends it.
    Delayed,
}

/// One receiving connection's Linux ACK state (bytes, ns).
#[derive(Clone, Debug)]
pub struct LinuxAckPolicy {
    mss: u64,
    max_quick_acks: u32,
    sack: bool,
    quick_acks_left: u32,
    /// The offered window's growth limit (`rcv_ssthresh`) and its ceiling (`window_clamp`).
    rcv_ssthresh: u64,
    window_clamp: u64,
    /// The largest window autotuning may reach (tcp_rmem[2] x the share).
    largest_clamp: u64,
    /// 1 << the window scale: offered windows are multiples of it.
    window_unit: u64,
    /// The receiver's RTT estimate, and the timestamp echo it last used (in timestamp ticks).
    rcv_rtt: Option<SimDuration>,
    last_echo: Option<u64>,
    /// Without timestamps: when the window measurement began and the byte that ends it.
    window_measure: Option<(SimTime, u64)>,
    /// Autotuning: the most read in one RTT, and where and when the current RTT began.
    read_per_rtt: u64,
    read_mark: u64,
    read_mark_at: Option<SimTime>,
    last_in_order_at: Option<SimTime>,
    /// SACK compression: ACKs sent at once at `duplicate_acks_at`, and ACKs compressed since
    /// the last one sent.
    duplicate_acks_at: u64,
    duplicate_acks: u32,
    compressed: u32,
    /// The SACK blocks this receiver reports, with SACK on (`linux_sack.rs`).
    pub sack_blocks: SackBlocks,
}

impl LinuxAckPolicy {
    /// A receiver whose window may grow to `largest_window` bytes (the scenario's
    /// `receive_window`; the Linux back-end sets tcp_rmem[2] to the buffer that offers it).
    pub fn new(mss: u64, largest_window: u64, max_quick_acks: u32, sack: bool) -> Self {
        let window_clamp = (INITIAL_RECEIVE_BUFFER * WINDOW_SHARE_OF_BUFFER_256THS / 256).min(largest_window);
        // tcp_select_initial_window: the scale makes the largest buffer (tcp_rmem[2], at least
        // net.core.rmem_max) fit in 16 bits.
        let largest_buffer = buffer_for_window(largest_window).max(DEFAULT_RMEM_MAX);
        let scale = (largest_buffer.ilog2() as u64).saturating_sub(15).min(14);
        let rcv_ssthresh = INITIAL_WINDOW.min(window_clamp);
        Self {
            mss,
            max_quick_acks,
            sack,
            quick_acks_left: 0,
            rcv_ssthresh,
            window_clamp,
            largest_clamp: largest_window,
            window_unit: 1 << scale,
            rcv_rtt: None,
            last_echo: None,
            window_measure: None,
            // tcp_init_buffer_space: min(rcv_ssthresh, rcv_wnd, TCP_INIT_CWND x advmss).
            read_per_rtt: rcv_ssthresh.min(10 * mss),
            read_mark: 0,
            read_mark_at: None,
            last_in_order_at: None,
            duplicate_acks_at: 0,
            duplicate_acks: 0,
            compressed: 0,
            sack_blocks: SackBlocks::default(),
        }
    }

    /// A data segment of `length` bytes arrived at `now`, echoing `ts_echo` (0: no echo yet or no
    /// timestamps); `rcv_nxt` is the next byte expected after it, `held` the out-of-order bytes in
    /// the buffer.
    pub fn on_segment(
        &mut self,
        now: SimTime,
        length: u64,
        ts_echo: SimTime,
        arrival: Arrival,
        rcv_nxt: u64,
        held: u64,
    ) {
        if ts_echo > 0 {
            self.measure_rtt_from_echo(now, length, ts_echo);
        }
        match arrival {
            Arrival::InOrder => {
                if ts_echo == 0 {
                    self.measure_rtt_from_window(now, rcv_nxt);
                }
                let idle = self.last_in_order_at.is_none_or(|at| now - at > self.rto());
                self.last_in_order_at = Some(now);
                self.read_mark_at.get_or_insert(now);
                if idle {
                    self.add_quick_acks(self.max_quick_acks);
                }
                self.grow_window(length, held);
            }
            Arrival::OutOfOrder if self.sack => self.grow_window(length, held),
            Arrival::OutOfOrder => {}
            Arrival::Duplicate => self.add_quick_acks(self.max_quick_acks),
        }
    }

    /// Out-of-order data is held up to `span` bytes past `rcv_nxt` (Linux 6.16 and later,
    /// `tcp_data_queue_ofo` calling `tcp_rcvbuf_grow`, "tcp: adjust rcvbuf in presence of
    /// reorders"): the clamp grows to twice the most read in one RTT plus that span, so the
    /// held data does not shrink the window the sender needs while it repairs the holes.
    pub fn on_held_out_of_order(&mut self, span: u64) {
        let window = (2 * self.read_per_rtt + span).min(self.largest_clamp);
        self.window_clamp = self.window_clamp.max(window);
    }

    /// A CE mark started an RFC 3168 echo episode: two quick ACKs (`tcp_ecn_check_ce`).
    pub fn on_ce_episode(&mut self) {
        self.add_quick_acks(2);
    }

    /// The application has now read `read` bytes in all.
    pub fn on_read(&mut self, now: SimTime, read: u64) {
        let (Some(rtt), Some(mark_at)) = (self.rcv_rtt, self.read_mark_at) else { return };
        if now - mark_at < rtt {
            return;
        }
        let copied = read - self.read_mark;
        if copied > self.read_per_rtt {
            // Twice the RTT's reading plus 16 segments, and twice that again for each doubling
            // of the reading from one RTT to the next (the sender may be in slow start).
            let base = 2 * copied + 16 * self.mss;
            let growth = base * (copied - self.read_per_rtt) / self.read_per_rtt;
            let window = (base + 2 * growth).min(self.largest_clamp);
            self.window_clamp = self.window_clamp.max(window);
            self.read_per_rtt = copied;
        }
        self.read_mark = read;
        self.read_mark_at = Some(now);
    }

    /// When to ACK what has arrived: `unacknowledged` bytes delivered since the last ACK,
    /// `holes` whether out-of-order data is still held, `hole_closed` whether this segment closed
    /// the last hole.
    pub fn timing(&mut self, unacknowledged: u64, holes: bool, hole_closed: bool, rcv_nxt: u64) -> AckTiming {
        if self.quick_acks_left > 0 || hole_closed || unacknowledged > self.mss {
            return AckTiming::Now;
        }
        if !holes {
            return AckTiming::Delayed;
        }
        if !self.sack || self.compressed >= MAX_COMPRESSED_ACKS {
            return AckTiming::Now;
        }
        if self.duplicate_acks_at != rcv_nxt {
            (self.duplicate_acks_at, self.duplicate_acks) = (rcv_nxt, 0);
        }
        if self.duplicate_acks < UNCOMPRESSED_DUPLICATE_ACKS {
            self.duplicate_acks += 1;
            return AckTiming::Now;
        }
        self.compressed += 1;
        // 5% of the RTT (the kernel's rtt_us is unknown, 0, before the first measurement).
        match self.rcv_rtt {
            Some(rtt) if rtt / 20 > 0 => AckTiming::After((rtt / 20).min(MAX_COMPRESSION_DELAY)),
            _ => AckTiming::Now,
        }
    }

    /// Whether SACK is on: the ACKs report `sack_blocks`.
    pub fn sack(&self) -> bool {
        self.sack
    }

    /// Whether an ACK is being held back by SACK compression.
    pub fn compressing(&self) -> bool {
        self.compressed > 0
    }

    /// An ACK went out: it uses a quick ACK and ends a compression.
    pub fn on_ack_sent(&mut self) {
        self.quick_acks_left = self.quick_acks_left.saturating_sub(1);
        self.compressed = 0;
    }

    /// The window to offer with `held` bytes of out-of-order data in the buffer.
    pub fn offered_window(&self, held: u64) -> u64 {
        let free = self.window_clamp.saturating_sub(held).min(self.rcv_ssthresh);
        free.div_ceil(self.window_unit) * self.window_unit
    }

    pub fn quick_acks_left(&self) -> u32 {
        self.quick_acks_left
    }

    pub fn window_clamp(&self) -> u64 {
        self.window_clamp
    }

    pub fn rcv_ssthresh(&self) -> u64 {
        self.rcv_ssthresh
    }

    pub fn rcv_rtt(&self) -> Option<SimDuration> {
        self.rcv_rtt
    }

    /// `tcp_incr_quickack`: at least min(window / (2 MSS), `most`) quick ACKs, and at least two.
    fn add_quick_acks(&mut self, most: u32) {
        let by_window = (self.offered_window(0) / (2 * self.mss)).max(2);
        let quick = u32::try_from(by_window).unwrap_or(u32::MAX).min(most);
        self.quick_acks_left = self.quick_acks_left.max(quick);
    }

    /// `tcp_grow_window`: the room is what the buffer has free (`tcp_space`: held out-of-order
    /// data takes its part) above the growth limit.
    fn grow_window(&mut self, length: u64, held: u64) {
        let free = self.window_clamp.saturating_sub(held);
        if length < GROWTH_MIN_SEGMENT_BYTES || self.rcv_ssthresh >= free {
            return;
        }
        let room = free - self.rcv_ssthresh;
        self.rcv_ssthresh += room.min((2 * self.mss).max(2 * length));
        self.quick_acks_left |= 1;
    }

    /// `tcp_rcv_rtt_measure_ts`: a full segment with a new echo, timed in the whole milliseconds
    /// of the timestamp clock (a zero sample is dropped); `tcp_rcv_rtt_update`: a sample below the
    /// estimate replaces it, a larger one moves it by 1/8.
    fn measure_rtt_from_echo(&mut self, now: SimTime, length: u64, ts_echo: SimTime) {
        let (now_ms, echo_ms) = (now / TIMESTAMP_TICK, ts_echo / TIMESTAMP_TICK);
        if self.last_echo == Some(echo_ms) || length < self.mss || now_ms <= echo_ms {
            return;
        }
        self.last_echo = Some(echo_ms);
        let sample = (now_ms - echo_ms) * TIMESTAMP_TICK;
        self.rcv_rtt = Some(match self.rcv_rtt {
            Some(rtt) if sample >= rtt => rtt - rtt / 8 + sample / 8,
            _ => sample,
        });
    }

    /// `tcp_rcv_rtt_measure`: the time to receive one offered window; the smallest is kept.
    fn measure_rtt_from_window(&mut self, now: SimTime, rcv_nxt: u64) {
        if let Some((started, end)) = self.window_measure {
            if rcv_nxt < end {
                return;
            }
            let sample = (now - started).max(1);
            self.rcv_rtt = Some(self.rcv_rtt.map_or(sample, |rtt| rtt.min(sample)));
        }
        self.window_measure = Some((now, rcv_nxt + self.offered_window(0)));
    }

    /// The receiver's RTO for the idle rule: a passive opener's first estimate from its RTT,
    /// srtt + max(2 srtt, TCP_RTO_MIN) (`tcp_rtt_estimator` on the first sample).
    fn rto(&self) -> SimDuration {
        self.rcv_rtt.map_or(INITIAL_RTO, |rtt| rtt + (2 * rtt).max(MIN_RTO))
    }
}

/// The receive buffer (tcp_rmem[2]) whose share is `window` bytes, rounded up.
pub fn buffer_for_window(window: u64) -> u64 {
    (window * 256).div_ceil(WINDOW_SHARE_OF_BUFFER_256THS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MILLI as MS;

    const MSS: u64 = 1448;

    #[test]
    fn starting_values_follow_the_kernels_defaults() {
        let policy = LinuxAckPolicy::new(MSS, 64_000_000, MAX_QUICK_ACKS, true);
        // 131,072 x 158 / 256 = 80,896 B; the first window is the SYN's 65,535 B rounded up to
        // the 2,048 B unit of window scale 11: a 64 MB window needs a 103,696,203 B buffer,
        // ilog2 = 26, minus 15.
        assert_eq!(buffer_for_window(64_000_000), 103_696_203);
        assert_eq!(policy.window_clamp(), 80_896);
        assert_eq!(policy.rcv_ssthresh(), 65_535);
        assert_eq!(policy.offered_window(0), 65_536);
        assert_eq!(policy.largest_clamp, 64_000_000);
        // A window smaller than the starting buffer's share caps it.
        assert_eq!(LinuxAckPolicy::new(MSS, 20_000, MAX_QUICK_ACKS, true).window_clamp(), 20_000);
    }

    #[test]
    fn first_data_gives_sixteen_quick_acks_and_each_ack_uses_one() {
        // A small buffer: the window cannot grow, so only quick-ACK mode makes ACKs immediate.
        let mut policy = LinuxAckPolicy::new(MSS, 100_000, MAX_QUICK_ACKS, true);
        policy.rcv_ssthresh = policy.window_clamp;
        policy.on_segment(0, MSS, 0, Arrival::InOrder, MSS, 0);
        // min(window / (2 MSS), 16): the 80,896 B window / 2,896 = 27 -> 16.
        assert_eq!(policy.quick_acks_left(), 16);
        for _ in 0..16 {
            assert_eq!(policy.timing(MSS, false, false, MSS), AckTiming::Now);
            policy.on_ack_sent();
        }
        assert_eq!(policy.timing(MSS, false, false, MSS), AckTiming::Delayed, "one segment waits");
        assert_eq!(policy.timing(2 * MSS, false, false, MSS), AckTiming::Now, "two full segments do not");
    }

    #[test]
    fn a_small_window_gives_fewer_quick_acks() {
        // window_clamp = 131,072 x 158 / 256 for any buffer up to 131,072: 80,896 B. Forced
        // down to 8 KB: 8,192 / 2,896 = 2 quick ACKs.
        let mut policy = LinuxAckPolicy::new(MSS, 64_000_000, MAX_QUICK_ACKS, true);
        (policy.window_clamp, policy.rcv_ssthresh) = (8_192, 8_192);
        policy.on_segment(0, MSS, 0, Arrival::InOrder, MSS, 0);
        assert_eq!(policy.quick_acks_left(), 2);
    }

    #[test]
    fn the_window_grows_two_segments_per_segment_up_to_the_clamp_with_a_quick_ack_each() {
        let mut policy = LinuxAckPolicy::new(MSS, 64_000_000, MAX_QUICK_ACKS, true);
        policy.quick_acks_left = 0;
        policy.last_in_order_at = Some(0);
        let mut acks_now = 0;
        for i in 1..=10u64 {
            policy.on_segment(i * MS / 10, MSS, 0, Arrival::InOrder, i * MSS, 0);
            if policy.timing(MSS, false, false, i * MSS) == AckTiming::Now {
                acks_now += 1;
                policy.on_ack_sent();
            }
        }
        // 65,535 + 2,896 x 5 = 80,015; the sixth segment fills the room to 80,896; then no growth.
        assert_eq!(policy.rcv_ssthresh(), 80_896);
        assert_eq!(acks_now, 6, "a quick ACK for each segment that grew the window");
        assert_eq!(policy.quick_acks_left(), 0, "with none left, each growth's bit paid its own ACK");
        // Offered in whole units of 2,048 B (window scale 11), rounded up.
        assert_eq!(policy.offered_window(0), 81_920);
        assert_eq!(policy.offered_window(10_000), 71_680, "held data is not free: 70,896 up to 2,048s");
        // Out-of-order data held in the buffer leaves less room: none at all here.
        policy.window_clamp = 90_000;
        policy.on_segment(MS, MSS, 0, Arrival::OutOfOrder, 10 * MSS, 10_000);
        assert_eq!(policy.rcv_ssthresh(), 80_896);
        policy.on_segment(MS, MSS, 0, Arrival::OutOfOrder, 10 * MSS, 5_000);
        assert_eq!(policy.rcv_ssthresh(), 83_792, "2,896 more fits below 85,000");
        // Short segments never grow it.
        policy.window_clamp = 1_000_000;
        policy.on_segment(MS, 100, 0, Arrival::InOrder, 11 * MSS, 0);
        assert_eq!(policy.rcv_ssthresh(), 83_792);
        // A 2 KB segment (GRO) grows it by twice its length.
        policy.on_segment(MS, 2_000, 0, Arrival::InOrder, 12 * MSS, 0);
        assert_eq!(policy.rcv_ssthresh(), 87_792);
    }

    #[test]
    fn held_out_of_order_data_grows_the_clamp_by_its_span() {
        let mut policy = LinuxAckPolicy::new(MSS, 1_000_000, MAX_QUICK_ACKS, true);
        // The first RTT's reading is min(rcv_ssthresh, 10 MSS) = 14,480 B: 2 x 14,480 = 28,960
        // plus a 40,000 B span is below the starting 80,896 B clamp, which stays.
        policy.on_held_out_of_order(40_000);
        assert_eq!(policy.window_clamp(), 80_896);
        // 28,960 + 300,000 = 328,960 B: the held data no longer takes the sender's window.
        policy.on_held_out_of_order(300_000);
        assert_eq!(policy.window_clamp(), 328_960);
        assert_eq!(policy.offered_window(250_000), 65_536, "rcv_ssthresh, 65,535 B, still caps the offer");
        // Never past the largest window, and never shrinking when the holes close.
        policy.on_held_out_of_order(5_000_000);
        assert_eq!(policy.window_clamp(), 1_000_000);
        policy.on_held_out_of_order(0);
        assert_eq!(policy.window_clamp(), 1_000_000);
    }

    #[test]
    fn autotuning_raises_the_clamp_from_the_most_read_in_one_rtt_and_its_growth() {
        let mut policy = LinuxAckPolicy::new(MSS, 64_000_000, MAX_QUICK_ACKS, true);
        // RTT from echoes: 40 ms, then 48 ms moves the average an eighth of the way: 41 ms.
        policy.on_segment(100 * MS, MSS, 60 * MS, Arrival::InOrder, MSS, 0);
        assert_eq!(policy.rcv_rtt(), Some(40 * MS));
        policy.on_segment(110 * MS, MSS, 60 * MS, Arrival::InOrder, 2 * MSS, 0);
        assert_eq!(policy.rcv_rtt(), Some(40 * MS), "the same echo is used once");
        policy.on_segment(120 * MS, MSS, 72 * MS, Arrival::InOrder, 3 * MSS, 0);
        assert_eq!(policy.rcv_rtt(), Some(41 * MS));
        // The measurement began at the first data (100 ms); 140 ms is within one RTT: no change.
        policy.on_read(140 * MS, 100_000);
        assert_eq!(policy.window_clamp(), 80_896);
        // 150 ms: 100,000 B read in one RTT against the starting record of 10 MSS = 14,480 B:
        // base 2 x 100,000 + 16 x 1,448 = 223,168; growth 223,168 x 85,520 / 14,480 = 1,318,047;
        // clamp 223,168 + 2 x 1,318,047 = 2,859,262.
        policy.on_read(150 * MS, 100_000);
        assert_eq!(policy.window_clamp(), 2_859_262);
        // Less in the next RTT: no change, and the record stays 100,000. Then 150,000 B: base
        // 323,168, growth half of it, 646,336 in all: below the clamp, which never falls.
        policy.on_read(200 * MS, 150_000);
        policy.on_read(250 * MS, 300_000);
        assert_eq!((policy.window_clamp(), policy.read_per_rtt), (2_859_262, 150_000));
        // Never above the largest window.
        policy.on_read(300 * MS, 100_000_000);
        assert_eq!(policy.window_clamp(), 64_000_000);
    }

    #[test]
    fn a_smaller_echo_sample_replaces_the_rtt_and_samples_count_whole_milliseconds() {
        let mut policy = LinuxAckPolicy::new(MSS, 64_000_000, MAX_QUICK_ACKS, true);
        // Timestamps tick in whole milliseconds: sent at 60.9 ms (tick 60), back at 100.2 ms
        // (tick 100): 40 ms.
        policy.on_segment(100_200_000, MSS, 60_900_000, Arrival::InOrder, MSS, 0);
        assert_eq!(policy.rcv_rtt(), Some(40 * MS));
        // An echo of the same tick is the same echo: not used again.
        policy.on_segment(130 * MS, MSS, 60_100_000, Arrival::InOrder, 2 * MSS, 0);
        assert_eq!(policy.rcv_rtt(), Some(40 * MS));
        // 36 ms is below the estimate and takes its place at once (Linux 6.16's
        // tcp_rcv_rtt_update); 44 ms above it moves it by an eighth of the gap: 37 ms.
        policy.on_segment(136 * MS, MSS, 100 * MS, Arrival::InOrder, 3 * MSS, 0);
        assert_eq!(policy.rcv_rtt(), Some(36 * MS));
        policy.on_segment(180 * MS, MSS, 136 * MS, Arrival::InOrder, 4 * MSS, 0);
        assert_eq!(policy.rcv_rtt(), Some(37 * MS));
        // Within the same tick the sample is zero: dropped.
        policy.on_segment(190_900_000, MSS, 190_100_000, Arrival::InOrder, 5 * MSS, 0);
        assert_eq!(policy.rcv_rtt(), Some(37 * MS));
    }

    #[test]
    fn window_growth_keeps_the_quick_acks_an_even_count_had() {
        // Linux sets the lowest bit of the count (icsk_ack.quick |= 1) when the window grows: from
        // an even count the ACK that follows is paid by that bit, from an odd one it uses one.
        let mut policy = LinuxAckPolicy::new(MSS, 64_000_000, MAX_QUICK_ACKS, true);
        policy.on_segment(0, MSS, 0, Arrival::InOrder, MSS, 0);
        assert_eq!(policy.quick_acks_left(), 17, "16 from the first data, and the growth bit");
        policy.on_ack_sent();
        for i in 2..=6u64 {
            policy.on_segment(i * MS, MSS, 0, Arrival::InOrder, i * MSS, 0);
            policy.on_ack_sent();
        }
        assert_eq!((policy.rcv_ssthresh(), policy.quick_acks_left()), (80_896, 16), "growth paid its ACKs");
        // Without growth each ACK uses one, and from an odd count the bit adds nothing.
        policy.on_segment(7 * MS, MSS, 0, Arrival::InOrder, 7 * MSS, 0);
        policy.on_ack_sent();
        assert_eq!(policy.quick_acks_left(), 15);
        policy.window_clamp = 100_000;
        policy.on_segment(8 * MS, MSS, 0, Arrival::InOrder, 8 * MSS, 0);
        assert_eq!(policy.quick_acks_left(), 15);
    }

    #[test]
    fn without_timestamps_the_rtt_is_the_shortest_time_to_receive_a_window() {
        let mut policy = LinuxAckPolicy::new(MSS, 64_000_000, MAX_QUICK_ACKS, true);
        // The measurement ends one offered window (as offered before the segment) past it.
        let window_end = MSS + policy.offered_window(0);
        policy.on_segment(0, MSS, 0, Arrival::InOrder, MSS, 0);
        policy.on_segment(30 * MS, MSS, 0, Arrival::InOrder, window_end - 1, 0);
        assert_eq!(policy.rcv_rtt(), None);
        policy.on_segment(50 * MS, MSS, 0, Arrival::InOrder, window_end, 0);
        assert_eq!(policy.rcv_rtt(), Some(50 * MS));
    }

    #[test]
    fn a_duplicate_a_silence_and_a_first_ce_mark_start_quick_acks() {
        let mut policy = LinuxAckPolicy::new(MSS, 64_000_000, MAX_QUICK_ACKS, true);
        policy.rcv_ssthresh = policy.window_clamp;
        policy.on_segment(0, MSS, 0, Arrival::InOrder, MSS, 0);
        policy.quick_acks_left = 0;
        policy.on_segment(MS, MSS, 0, Arrival::Duplicate, MSS, 0);
        assert_eq!(policy.quick_acks_left(), 16);
        policy.quick_acks_left = 0;
        policy.on_segment(2 * MS, MSS, 0, Arrival::InOrder, 2 * MSS, 0);
        policy.on_ce_episode();
        assert_eq!(policy.quick_acks_left(), 2, "CE: two");
        policy.quick_acks_left = 0;
        // No RTT known: the RTO is TCP_TIMEOUT_INIT, 1 s. 0.9 s of silence is not enough, 1.1 s is.
        policy.on_segment(902 * MS, MSS, 0, Arrival::InOrder, 3 * MSS, 0);
        assert_eq!(policy.quick_acks_left(), 0);
        policy.on_segment(2_100 * MS, MSS, 0, Arrival::InOrder, 4 * MSS, 0);
        assert_eq!(policy.quick_acks_left(), 16);
    }

    #[test]
    fn out_of_order_acks_three_at_once_then_compresses_them() {
        let mut policy = LinuxAckPolicy::new(MSS, 64_000_000, MAX_QUICK_ACKS, true);
        (policy.rcv_ssthresh, policy.rcv_rtt) = (policy.window_clamp, Some(10 * MS));
        let rcv_nxt = 10 * MSS;
        for _ in 0..3 {
            assert_eq!(policy.timing(0, true, false, rcv_nxt), AckTiming::Now);
            policy.on_ack_sent();
        }
        // 10 ms / 20 = 0.5 ms, below the 1 ms ceiling.
        assert_eq!(policy.timing(0, true, false, rcv_nxt), AckTiming::After(MS / 2));
        for _ in 1..MAX_COMPRESSED_ACKS {
            assert_eq!(policy.timing(0, true, false, rcv_nxt), AckTiming::After(MS / 2));
        }
        assert_eq!(policy.timing(0, true, false, rcv_nxt), AckTiming::Now, "the 45th goes at once");
        policy.on_ack_sent();
        // A partial fill moves rcv_nxt: three at once again. Closing the last hole: at once.
        assert_eq!(policy.timing(0, true, false, rcv_nxt + MSS), AckTiming::Now);
        assert_eq!(policy.timing(0, false, true, rcv_nxt + 5 * MSS), AckTiming::Now);
        // Long RTTs: at most 1 ms. Without SACK every out-of-order ACK goes at once.
        policy.rcv_rtt = Some(200 * MS);
        policy.duplicate_acks = 3;
        assert_eq!(policy.timing(0, true, false, rcv_nxt + MSS), AckTiming::After(MS));
        let mut no_sack = LinuxAckPolicy::new(MSS, 64_000_000, MAX_QUICK_ACKS, false);
        no_sack.duplicate_acks = 3;
        assert_eq!(no_sack.timing(0, true, false, rcv_nxt), AckTiming::Now);
    }
}
