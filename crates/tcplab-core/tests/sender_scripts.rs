//! Scripted ACK sequences through the real TCP sender: what it retransmits, when, and what window
//! it uses, for NewReno (RFC 6582) and SACK (RFC 6675) recovery, the retransmission timer
//! (RFC 6298, Karn) and ECN (RFC 3168).

use serde_json::Value;
use tcplab_core::cc::{self, ConnectionInfo};
use tcplab_core::net::packet::{Packet, PacketKind, MAX_SACK_BLOCKS};
use tcplab_core::sim::{Event, EventQueue};
use tcplab_core::tcp::sender::TcpSender;
use tcplab_core::tcp::{EndpointContext, RecoveryMode, TcpConfig};
use tcplab_core::time::{NANOS_PER_MILLI as MS, NANOS_PER_SEC as SEC};

const MSS: u64 = 1000;

struct Script {
    sender: TcpSender,
    events: EventQueue,
    outbox: Vec<Packet>,
}

fn config(recovery: RecoveryMode) -> TcpConfig {
    TcpConfig {
        mss: MSS,
        header_bytes: 40,
        initial_window_segments: 10,
        recovery,
        limited_transmit: true,
        duplicate_threshold: 3,
        min_rto: 200 * MS,
        initial_rto: SEC,
        max_rto: 60 * SEC,
        clock_granularity: MS,
        delayed_ack: false,
        delayed_ack_count: 2,
        delayed_ack_timeout: 40 * MS,
        ecn: true,
        receive_window: 1_000_000,
        pacing: false,
        ack_delay: tcplab_core::scenario::AckDelayMode::None,
        ack_delay_max: 2 * SEC,
    }
}

impl Script {
    /// A bulk sender with `newreno` window rules; it sends its initial window at once.
    fn new(recovery: RecoveryMode) -> Self {
        Self::with_config(config(recovery))
    }

    fn with_config(config: TcpConfig) -> Self {
        let controller =
            cc::create("newreno", &Value::Null, ConnectionInfo { mss: MSS, initial_window_segments: 10, seed: 1 })
                .unwrap();
        let mut script =
            Script { sender: TcpSender::new(0, 1, config, controller), events: EventQueue::new(), outbox: Vec::new() };
        script
            .sender
            .app_write(u64::MAX, &mut EndpointContext { events: &mut script.events, outbox: &mut script.outbox });
        script
    }

    /// Segment numbers of the data packets sent since the last call.
    fn sent(&mut self) -> Vec<u64> {
        self.outbox.drain(..).map(|p| p.sequence / MSS).collect()
    }

    fn at(&mut self, millis: u64) {
        self.at_nanos(millis * MS);
    }

    fn at_nanos(&mut self, nanos: u64) {
        // Fire due timers on the way, as the simulation would.
        while let Some(event) = self.events.pop_until(nanos) {
            let mut ctx = EndpointContext { events: &mut self.events, outbox: &mut self.outbox };
            match event {
                Event::RetransmitTimer { .. } => self.sender.on_rto_timer(&mut ctx),
                Event::PacingTimer { .. } => self.sender.on_pacing_timer(&mut ctx),
                _ => {}
            }
        }
        self.events.advance_to(nanos);
    }

    /// An ACK for segments below `next_segment`, with SACK blocks in segments [start, end).
    fn ack(&mut self, next_segment: u64, sack: &[(u64, u64)]) {
        self.ack_with(next_segment, sack, false);
    }

    fn ack_with(&mut self, next_segment: u64, sack: &[(u64, u64)], ece: bool) {
        let mut blocks = [(0, 0); MAX_SACK_BLOCKS];
        for (slot, &(s, e)) in blocks.iter_mut().zip(sack) {
            *slot = (s * MSS, e * MSS);
        }
        let packet = Packet {
            kind: PacketKind::TcpAck,
            ack: next_segment * MSS,
            sack: blocks,
            sack_count: sack.len() as u8,
            receive_window: 1_000_000,
            ece,
            ..Packet::default()
        };
        self.sender.on_ack(&packet, &mut EndpointContext { events: &mut self.events, outbox: &mut self.outbox });
    }

    fn cwnd_segments(&self) -> f64 {
        self.sender.effective_cwnd() as f64 / MSS as f64
    }
}

#[test]
fn newreno_retransmits_on_the_third_duplicate_ack_and_inflates() {
    let mut s = Script::new(RecoveryMode::NewReno);
    assert_eq!(s.sent(), (0..10).collect::<Vec<_>>());
    s.at(100);
    // Segment 0 arrives; segment 1 is lost; 2, 3, 4 produce duplicate ACKs.
    s.ack(1, &[]);
    assert_eq!(s.sent(), vec![10, 11], "slow start: one ACK opens 2 segments (cwnd 11)");
    s.ack(1, &[]);
    assert_eq!(s.sent(), vec![12], "limited transmit after duplicate 1");
    s.ack(1, &[]);
    assert_eq!(s.sent(), vec![13], "limited transmit after duplicate 2");
    s.ack(1, &[]);
    // FlightSize at the third duplicate: segments 1..13 = 13 -> ssthresh = 6.5 segments.
    assert_eq!(s.sent(), vec![1], "fast retransmit of the first unacknowledged segment");
    assert_eq!(s.sender.stats.fast_recoveries, 1);
    assert_eq!(s.sender.cc.ssthresh(), 6_500);
    assert_eq!(s.cwnd_segments(), 9.5, "ssthresh + 3 segments of inflation");
    // Each further duplicate inflates by one segment; new data goes out once the pipe allows.
    for _ in 0..7 {
        s.ack(1, &[]);
    }
    assert_eq!(s.cwnd_segments(), 16.5);
    assert_eq!(s.sent(), vec![14, 15, 16], "flight 13 < 16.5 - 1: three new segments");
}

#[test]
fn newreno_partial_ack_retransmits_the_next_hole_and_full_ack_ends_recovery() {
    let mut s = Script::new(RecoveryMode::NewReno);
    s.sent();
    s.at(100);
    // Segments 0 and 5 are lost: duplicates for 1..4 and 6..9 (8 of them). Duplicates 1 and 2
    // send a new segment each (limited transmit), the third retransmits segment 0.
    for _ in 0..3 {
        s.ack(0, &[]);
    }
    assert_eq!(s.sent(), vec![10, 11, 0]);
    for _ in 0..6 {
        s.ack(0, &[]);
    }
    s.sent();
    s.at(200);
    // The retransmitted 0 arrives: the ACK covers 0..4 and stops at the hole at 5 (partial).
    s.ack(5, &[]);
    assert_eq!(s.sent().first(), Some(&5), "partial ACK retransmits the next hole at once");
    assert!(s.sender.is_in_recovery());
    // Everything up to the recovery point arrives: recovery ends with cwnd = ssthresh.
    let recover = 10 + 2; // 10 initial + 2 limited-transmit segments were outstanding at entry
    s.at(300);
    s.ack(recover, &[]);
    assert!(!s.sender.is_in_recovery());
    assert_eq!(s.sender.effective_cwnd(), s.sender.cc.ssthresh());
    assert_eq!(s.sender.stats.retransmitted_segments, 2);
    assert_eq!(s.sender.stats.timeouts, 0);
}

#[test]
fn sack_marks_lost_after_three_sacked_segments_and_repairs_two_holes_in_one_recovery() {
    let mut s = Script::new(RecoveryMode::Sack);
    s.sent();
    s.at(100);
    // Segment 1 and 5 are lost.
    s.ack(1, &[]);
    assert_eq!(s.sent(), vec![10, 11]);
    // Each SACKed segment leaves the pipe, so one new segment goes out per duplicate ACK; the
    // window itself does not grow on duplicates (growth needs in-order delivery).
    s.ack(1, &[(2, 3)]);
    s.ack(1, &[(2, 4)]);
    assert_eq!(s.sent(), vec![12, 13], "not lost yet: only 2 segments SACKed above segment 1");
    s.ack(1, &[(2, 5)]);
    let sent = s.sent();
    assert_eq!(sent.first(), Some(&1), "IsLost(1): three segments SACKed above it");
    assert_eq!(s.sender.stats.fast_recoveries, 1);
    // 6, 7, 8 arrive: segment 5 now has three SACKed segments above it and is lost. The pipe is
    // 13 outstanding - 6 SACKed - 2 lost + 1 retransmitted = 6 segments, not below cwnd = 6.5,
    // so the repair waits (RFC 6675 sends only while pipe < cwnd)...
    s.ack(1, &[(6, 7), (2, 5)]);
    s.ack(1, &[(6, 8), (2, 5)]);
    s.ack(1, &[(6, 9), (2, 5)]);
    assert!(!s.sent().contains(&5));
    // ...until one more SACKed segment lowers the pipe to 5: the lost segment goes first.
    s.ack(1, &[(6, 10), (2, 5)]);
    let sent = s.sent();
    assert_eq!(sent.first(), Some(&5), "second hole retransmitted without a timeout: {sent:?}");
    assert_eq!(s.sender.stats.fast_recoveries, 1);
    assert_eq!(s.sender.stats.retransmitted_segments, 2);
}

#[test]
fn timeout_goes_back_to_one_segment_backs_off_and_karn_ignores_the_retransmission() {
    let mut s = Script::new(RecoveryMode::Sack);
    s.sent();
    // No ACK at all: the initial RTO (1 s) expires.
    s.at(999);
    assert!(s.sent().is_empty());
    s.at(1000);
    assert_eq!(s.sent(), vec![0], "the first segment is retransmitted");
    assert_eq!(s.sender.stats.timeouts, 1);
    assert_eq!(s.sender.cc.cwnd(), MSS, "loss window");
    // The backed-off timer is 2 s: nothing at 2.9 s, the second timeout at 3 s.
    s.at(2999);
    assert!(s.sent().is_empty());
    s.at(3000);
    assert_eq!(s.sent(), vec![0]);
    assert_eq!(s.sender.stats.timeouts, 2);
    // The ACK for a retransmitted segment gives no RTT sample (Karn).
    s.at(3100);
    s.ack(1, &[]);
    assert_eq!(s.sender.rtt.srtt, None);
    assert_eq!(s.sent(), vec![1, 2], "slow start from the loss window, go-back-N");
}

#[test]
fn rtt_samples_set_the_timer() {
    let mut s = Script::new(RecoveryMode::Sack);
    s.sent();
    s.at(100);
    s.ack(1, &[]);
    // First sample 100 ms: SRTT 100, RTTVAR 50, RTO = 100 + 200 = 300 ms.
    assert_eq!(s.sender.rtt.srtt, Some(100 * MS));
    assert_eq!(s.sender.rtt.rto(), 300 * MS);
}

#[test]
fn ecn_echo_reduces_once_per_window_and_sets_cwr() {
    let mut s = Script::new(RecoveryMode::Sack);
    s.sent();
    s.at(100);
    s.ack(1, &[]); // cwnd 11, segments 10, 11 sent
    s.outbox.clear();
    s.ack_with(2, &[], true);
    assert_eq!(s.sender.stats.ecn_reductions, 1);
    let cwnd_after = s.sender.cc.cwnd();
    // FlightSize was 11 segments: ssthresh = cwnd = 5.5 segments.
    assert_eq!(cwnd_after, 5_500);
    // More ECE within the same window: no second reduction.
    s.ack_with(3, &[], true);
    s.ack_with(4, &[], true);
    assert_eq!(s.sender.stats.ecn_reductions, 1);
    // The next new segment carries CWR.
    s.ack(9, &[]);
    let sent: Vec<Packet> = s.outbox.drain(..).collect();
    assert!(!sent.is_empty());
    assert!(sent[0].cwr, "first new segment after the reduction carries CWR");
    assert!(sent[1..].iter().all(|p| !p.cwr));
}

#[test]
fn receive_window_limits_the_sender() {
    let mut s = Script::new(RecoveryMode::Sack);
    s.sent();
    s.at(100);
    let packet = Packet { kind: PacketKind::TcpAck, ack: MSS, receive_window: 3 * MSS, ..Packet::default() };
    s.sender.on_ack(&packet, &mut EndpointContext { events: &mut s.events, outbox: &mut s.outbox });
    assert!(s.sent().is_empty(), "9 segments outstanding exceed a 3-segment window");
}

#[test]
fn pacing_option_spaces_segments_at_twice_cwnd_over_srtt_in_slow_start() {
    let mut s = Script::with_config(TcpConfig { pacing: true, ..config(RecoveryMode::Sack) });
    // No RTT sample yet: the initial window leaves at once.
    assert_eq!(s.sent().len(), 10);
    s.at(100);
    s.ack(1, &[]);
    // cwnd 11 allows two segments, but the rate is 2 x 11 000 B x 8 / 100 ms = 1.76 Mbit/s:
    // one 1040-byte packet every 4.727 ms.
    assert_eq!(s.sent(), vec![10]);
    s.at_nanos(100 * MS + 4_727_272);
    assert!(s.sent().is_empty(), "too early by a nanosecond");
    s.at_nanos(100 * MS + 4_727_273);
    assert_eq!(s.sent(), vec![11]);
}

/// Records every ACK event the sender reports, behind a fixed window.
struct Recorder(std::sync::Arc<std::sync::Mutex<Vec<tcplab_core::cc::AckEvent>>>);

impl tcplab_core::cc::CongestionControl for Recorder {
    fn on_ack(&mut self, ack: &tcplab_core::cc::AckEvent) {
        self.0.lock().unwrap().push(*ack);
    }
    fn on_congestion_event(&mut self, _: &tcplab_core::cc::CongestionEvent) {}
    fn on_recovery_exit(&mut self, _: u64) {}
    fn cwnd(&self) -> u64 {
        10 * MSS
    }
    fn ssthresh(&self) -> u64 {
        u64::MAX
    }
    fn state_name(&self) -> &'static str {
        "fixed"
    }
}

#[test]
fn delivery_rate_samples_follow_the_draft() {
    let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut events_q = EventQueue::new();
    let mut outbox = Vec::new();
    let mut sender = TcpSender::new(0, 1, config(RecoveryMode::Sack), Box::new(Recorder(events.clone())));
    // The application writes exactly 20 segments: 10 now (the window), 10 more later.
    sender.set_stream_end(20 * MSS);
    sender.app_write(u64::MAX, &mut EndpointContext { events: &mut events_q, outbox: &mut outbox });
    assert_eq!(outbox.len(), 10);
    events_q.advance_to(100 * MS);
    for n in 1..=10 {
        let ack = Packet { kind: PacketKind::TcpAck, ack: n * MSS, receive_window: 1_000_000, ..Packet::default() };
        sender.on_ack(&ack, &mut EndpointContext { events: &mut events_q, outbox: &mut outbox });
    }
    let recorded = events.lock().unwrap().clone();
    // Every segment of the flight was sent at 0 with nothing delivered: the k-th ACK at 100 ms
    // samples k segments over 100 ms. The last: 10 x 1000 B x 8 / 0.1 s = 800 kbit/s.
    assert_eq!(recorded[0].delivery_rate, Some(80_000));
    assert_eq!(recorded[9].delivery_rate, Some(800_000));
    assert!(recorded.iter().all(|e| !e.delivery_rate_app_limited));
    assert_eq!((recorded[9].delivered, recorded[9].prior_delivered), (10 * MSS, 0));
}

#[test]
fn delivery_rate_samples_are_app_limited_when_their_segment_was_sent_app_limited() {
    let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut events_q = EventQueue::new();
    let mut outbox = Vec::new();
    let mut sender = TcpSender::new(0, 1, config(RecoveryMode::Sack), Box::new(Recorder(events.clone())));
    // 5 segments into a 10-segment window: the sender runs out of data, so it is app-limited.
    sender.app_write(5 * MSS, &mut EndpointContext { events: &mut events_q, outbox: &mut outbox });
    events_q.advance_to(50 * MS);
    // 5 more at 50 ms: sent while app-limited.
    sender.app_write(5 * MSS, &mut EndpointContext { events: &mut events_q, outbox: &mut outbox });
    assert_eq!(outbox.len(), 10);
    events_q.advance_to(100 * MS);
    for n in 1..=5 {
        let ack = Packet { kind: PacketKind::TcpAck, ack: n * MSS, receive_window: 1_000_000, ..Packet::default() };
        sender.on_ack(&ack, &mut EndpointContext { events: &mut events_q, outbox: &mut outbox });
    }
    events_q.advance_to(150 * MS);
    let ack = Packet { kind: PacketKind::TcpAck, ack: 6 * MSS, receive_window: 1_000_000, ..Packet::default() };
    sender.on_ack(&ack, &mut EndpointContext { events: &mut events_q, outbox: &mut outbox });
    let recorded = events.lock().unwrap().clone();
    assert!(recorded[..5].iter().all(|e| !e.delivery_rate_app_limited), "sent before the application ran dry");
    assert!(recorded[5].delivery_rate_app_limited, "sent while app-limited");
}
