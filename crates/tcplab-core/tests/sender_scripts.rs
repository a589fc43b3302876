//! Scripted ACK sequences through the real TCP sender: what it retransmits, when, and what window
//! it uses, for Reno (RFC 5681), NewReno (RFC 6582) and SACK (RFC 6675) recovery, RACK-TLP
//! (RFC 8985), PRR (RFC 6937), timestamps (RFC 7323), F-RTO (RFC 5682), the retransmission timer
//! (RFC 6298, Karn) and ECN (RFC 3168).

use serde_json::Value;
use tcplab_core::cc::{self, ConnectionInfo};
use tcplab_core::net::packet::{Packet, PacketKind};
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
        initial_ssthresh_segments: None,
        cwnd_clamp_segments: None,
        recovery,
        rack: false,
        tail_loss_probe: false,
        prr: false,
        timestamps: false,
        frto: false,
        undo: true,
        rto_formula: tcplab_core::tcp::RtoFormula::Rfc6298,
        rto_restart: tcplab_core::tcp::RtoRestart::NewData,
        quick_ack_segments: 0,
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
        Self::build(config, None)
    }

    /// A sender whose application writes `segments` segments in all (a finite transfer).
    fn finite(config: TcpConfig, segments: u64) -> Self {
        Self::build(config, Some(segments))
    }

    fn build(config: TcpConfig, stream_segments: Option<u64>) -> Self {
        Self::build_with("newreno", config, stream_segments)
    }

    fn build_with(algorithm: &str, config: TcpConfig, stream_segments: Option<u64>) -> Self {
        let info = ConnectionInfo {
            mss: MSS,
            initial_window_segments: config.initial_window_segments,
            initial_ssthresh_segments: None,
            cwnd_clamp_segments: config.cwnd_clamp_segments,
            seed: 1,
        };
        let controller = cc::create(algorithm, &Value::Null, info).unwrap();
        let mut script =
            Script { sender: TcpSender::new(0, 1, config, controller), events: EventQueue::new(), outbox: Vec::new() };
        if let Some(segments) = stream_segments {
            script.sender.set_stream_end(segments * MSS);
        }
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
                Event::AckRelease { .. } => self.sender.on_ack_release(&mut ctx),
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
        self.ack_full(next_segment, sack, ece, 0);
    }

    /// An ACK echoing the timestamp (send time) `ts_echo_ms`.
    fn ack_echo(&mut self, next_segment: u64, sack: &[(u64, u64)], ts_echo_ms: u64) {
        self.ack_full(next_segment, sack, false, ts_echo_ms * MS);
    }

    fn ack_full(&mut self, next_segment: u64, sack: &[(u64, u64)], ece: bool, ts_echo: u64) {
        let blocks: Vec<(u64, u64)> = sack.iter().map(|&(s, e)| (s * MSS, e * MSS)).collect();
        let mut packet = Packet {
            kind: PacketKind::TcpAck,
            ack: next_segment * MSS,
            receive_window: 1_000_000,
            ece,
            ts_echo,
            ..Packet::default()
        };
        packet.set_sack_blocks(&blocks);
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
    // FlightSize at the third duplicate: segments 1..13 less the two sent by Limited Transmit
    // (RFC 5681 section 3.2 step 2) = 11 -> ssthresh = 5.5 segments.
    assert_eq!(s.sent(), vec![1], "fast retransmit of the first unacknowledged segment");
    assert_eq!(s.sender.stats.fast_recoveries, 1);
    assert_eq!(s.sender.cc.ssthresh(), 5_500);
    assert_eq!(s.cwnd_segments(), 8.5, "ssthresh + 3 segments of inflation");
    // Each further duplicate inflates by one segment; new data goes out once the pipe allows.
    for _ in 0..7 {
        s.ack(1, &[]);
    }
    assert_eq!(s.cwnd_segments(), 15.5);
    assert_eq!(s.sent(), vec![14, 15], "flight 13, window 15.5: two new segments");
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
    // cwnd = ssthresh = 5.5 segments: FlightSize 13 less the 2 segments (12, 13) that the SACK
    // credit let out before recovery, halved (RFC 5681 section 3.2 step 2).
    assert_eq!(s.sender.cc.ssthresh(), 5_500);
    // 6, 7, 8, 9 arrive: segment 5 has three SACKed segments above it and is lost. The pipe is
    // 13 outstanding - 7 SACKed - 2 lost + 1 retransmitted = 5 segments; one more would exceed
    // cwnd = 5.5, so the repair waits...
    s.ack(1, &[(6, 7), (2, 5)]);
    s.ack(1, &[(6, 8), (2, 5)]);
    s.ack(1, &[(6, 9), (2, 5)]);
    s.ack(1, &[(6, 10), (2, 5)]);
    assert!(!s.sent().contains(&5));
    // ...until one more SACKed segment lowers the pipe to 4: the lost segment goes first.
    s.ack(1, &[(6, 11), (2, 5)]);
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
    assert_eq!(s.sender.stats.events, vec![(1000 * MS, "timeout"), (3000 * MS, "timeout")]);
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
    let packet = Packet { kind: PacketKind::TcpAck, ack: MSS, receive_window: 3 * MSS as u32, ..Packet::default() };
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
    // one 1000-byte payload every 4.545 ms (pacing charges the payload, not the 40 header bytes).
    assert_eq!(s.sent(), vec![10]);
    s.at_nanos(100 * MS + 4_545_454);
    assert!(s.sent().is_empty(), "too early by a nanosecond");
    s.at_nanos(100 * MS + 4_545_455);
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

/// Linux's loss detection on the scripted sender: SACK with RACK and tail loss probes.
fn rack_tlp() -> TcpConfig {
    TcpConfig { rack: true, tail_loss_probe: true, ..config(RecoveryMode::Sack) }
}

#[test]
fn rack_marks_a_lost_retransmission_lost_without_a_timeout() {
    let mut s = Script::with_config(rack_tlp());
    s.sent();
    // Segment 1 is lost. (Segments sent in the same nanosecond are ordered by sequence, as
    // RFC 8985's RACK_sent_after does, so the script keeps new data and retransmissions apart.)
    s.at(99);
    s.ack(1, &[]);
    s.at(100);
    // Three SACKed segments above it: the reordering window is 0 and RACK marks it lost (it was
    // sent before segment 4, which was delivered, one RTT ago).
    s.ack(1, &[(2, 3)]);
    s.ack(1, &[(2, 4)]);
    s.ack(1, &[(2, 5)]);
    assert!(s.sent().contains(&1), "segment 1 retransmitted at 100 ms");
    // More segments arrive at 101 ms; the pipe falls below cwnd and new data leaves after the
    // retransmission.
    s.at(101);
    for top in 6..=11 {
        s.ack(1, &[(2, top)]);
    }
    let new_data = s.sent();
    assert!(!new_data.is_empty() && !new_data.contains(&1), "{new_data:?}");
    // The retransmission is lost too. One RTT later the new data is SACKed: it left after the
    // retransmission, so RACK marks the retransmission lost and it goes again, long before the
    // retransmission timer (300 ms after the last advance at 99 ms).
    s.at(201);
    s.ack(1, &[(new_data[0], new_data[0] + 1), (2, 11)]);
    assert_eq!(s.sent().first(), Some(&1), "second retransmission of segment 1 at 201 ms");
    assert_eq!(s.sender.stats.timeouts, 0);
    assert_eq!(s.sender.stats.fast_recoveries, 1);
}

#[test]
fn a_tail_loss_is_repaired_by_a_probe() {
    // Ten segments in all; the last two are lost.
    let mut s = Script::finite(rack_tlp(), 10);
    assert_eq!(s.sent().len(), 10);
    s.at(100);
    s.ack(8, &[]);
    // SRTT 100 ms: PTO = 2 x 100 + 2 ms; the RTO would fire at 100 + 300 ms.
    s.at(301);
    assert!(s.sent().is_empty());
    s.at(302);
    assert_eq!(s.sent(), vec![9], "the probe resends the highest outstanding segment");
    assert_eq!(s.sender.stats.tail_loss_probes, 1);
    // The probe's SACK reveals segment 8's loss: RACK marks it, fast recovery resends it.
    s.at(402);
    s.ack(8, &[(9, 10)]);
    assert_eq!(s.sent(), vec![8]);
    s.at(502);
    s.ack(10, &[]);
    assert!(s.sender.is_complete());
    assert_eq!(s.sender.stats.timeouts, 0);
}

#[test]
fn prr_sends_one_segment_for_every_two_delivered_down_to_ssthresh() {
    // RFC 6937's example: 20 segments in flight, one lost, ssthresh 10 (Reno's half). Limited
    // Transmit off so that recovery starts with exactly 20 outstanding.
    let config =
        TcpConfig { prr: true, limited_transmit: false, initial_window_segments: 20, ..config(RecoveryMode::Sack) };
    let mut s = Script::with_config(config);
    assert_eq!(s.sent().len(), 20);
    s.at(100);
    s.ack(0, &[(1, 2)]);
    s.ack(0, &[(1, 3)]);
    assert!(s.sent().is_empty());
    s.ack(0, &[(1, 4)]);
    assert_eq!(s.sent(), vec![0], "fast retransmission");
    assert_eq!(s.sender.cc.ssthresh(), 10 * MSS);
    let mut per_ack = Vec::new();
    for top in 5..=14 {
        s.ack(0, &[(1, top)]);
        per_ack.push(s.sent().len());
    }
    assert_eq!(per_ack, vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
}

#[test]
fn timestamps_give_an_rtt_sample_at_once_after_an_rtt_step_and_undo_the_spurious_timeout() {
    let mut s = Script::with_config(TcpConfig { timestamps: true, ..config(RecoveryMode::Sack) });
    s.sent();
    s.at(100);
    s.ack_echo(1, &[], 0);
    assert_eq!(s.sender.rtt.srtt, Some(100 * MS));
    assert_eq!(s.sent(), vec![10, 11]);
    // The path's RTT jumps to 650 ms: the timer (100 + 300 ms) expires spuriously.
    s.at(400);
    assert_eq!(s.sent(), vec![1]);
    assert_eq!(s.sender.stats.timeouts, 1);
    // The ACK for the original segment 1 (sent at 0) arrives. Karn's rule withholds the sample
    // from the segment (it was retransmitted); the echoed timestamp gives it: 650 ms.
    s.at(650);
    s.ack_echo(2, &[], 0);
    assert_eq!(s.sender.rtt.latest, Some(650 * MS));
    // The echo predates the retransmission: the timeout was spurious and is undone.
    assert_eq!(s.sender.stats.undone_reductions, 1);
    assert_eq!(s.sender.cc.cwnd(), 12 * MSS, "the 11 segments before the timeout, grown by this ACK");
    assert!(!s.sender.is_in_recovery());
}

#[test]
fn frto_detects_a_spurious_timeout_and_undoes_it() {
    let mut s = Script::with_config(TcpConfig { frto: true, ..config(RecoveryMode::Sack) });
    s.sent();
    s.at(100);
    s.ack(1, &[]);
    s.sent();
    s.at(400);
    assert_eq!(s.sent(), vec![1], "spurious timeout: segment 1 resent");
    // The first ACK after the timeout covers segment 1 only: F-RTO answers with new data
    // (segments 12 and 13 with cwnd 2), not with retransmissions of 2 and 3.
    s.at(650);
    s.ack(2, &[]);
    assert_eq!(s.sent(), vec![12, 13]);
    // The next ACK covers segment 2, which was sent only once: the timeout was spurious.
    s.ack(3, &[]);
    assert_eq!(s.sender.stats.undone_reductions, 1);
    assert_eq!(s.sender.cc.cwnd(), 12 * MSS, "the 11 segments before the timeout, grown by this ACK");
    assert!(!s.sender.is_in_recovery());
    assert!(!s.sent().contains(&3), "nothing below snd_nxt is resent after the undo");
    assert_eq!(s.sender.stats.retransmitted_segments, 1);
}

#[test]
fn classic_reno_leaves_recovery_on_the_first_partial_ack() {
    let mut s = Script::new(RecoveryMode::Reno);
    s.sent();
    s.at(100);
    // Segments 1 and 5 are lost.
    s.ack(1, &[]);
    for _ in 0..3 {
        s.ack(1, &[]);
    }
    assert!(s.sent().contains(&1));
    assert!(s.sender.is_in_recovery());
    // The retransmission fills the first hole; the ACK stops at the second.
    s.at(200);
    s.ack(5, &[]);
    assert!(!s.sender.is_in_recovery(), "Reno ends recovery on a partial ACK");
    assert_eq!(s.sender.effective_cwnd(), s.sender.cc.ssthresh(), "deflated to ssthresh");
    assert!(!s.sent().contains(&5), "no retransmission of the second hole");
    // Duplicates for the second hole start no new fast retransmit in the same window (ns-2's
    // bug_fix_): the timer repairs it.
    for _ in 0..5 {
        s.ack(5, &[]);
    }
    assert_eq!(s.sender.stats.fast_recoveries, 1);
    assert!(!s.sent().contains(&5));
    s.at(600);
    assert!(s.sent().contains(&5));
    assert_eq!(s.sender.stats.timeouts, 1);
}

#[test]
fn no_rtt_sample_from_an_ack_that_covers_a_retransmission_unless_timestamps_tell() {
    for timestamps in [false, true] {
        let mut s = Script::with_config(TcpConfig { timestamps, ..config(RecoveryMode::NewReno) });
        s.sent();
        s.at(100);
        s.ack_echo(1, &[], 0);
        for _ in 0..3 {
            s.ack_echo(1, &[], 0);
        }
        assert!(s.sent().contains(&1), "fast retransmit at 100 ms");
        // The full ACK at 300 ms covers the retransmission and segments 2..13, sent once at 0
        // and 100 ms: timing them would give 200-300 ms for a 100 ms path.
        s.at(300);
        s.ack_echo(14, &[], 100);
        let latest = s.sender.rtt.latest;
        if timestamps {
            assert_eq!(latest, Some(200 * MS), "the echo of the retransmission (sent at 100 ms)");
        } else {
            assert_eq!(latest, Some(100 * MS), "Karn: the last sample is still the one from 100 ms");
        }
    }
}

#[test]
fn an_ack_the_sender_itself_holds_does_not_let_the_retransmission_timer_fire() {
    // SDC on a path of 100 ms that marks every packet: each window's echo raises the sender's
    // ACK hold (R + 2D, up to 2 s), faster than the RTT samples raise the timer. The data arrived;
    // only the sender's own hold keeps its ACK, so the timer must wait for it.
    let mut config = config(RecoveryMode::NewReno);
    config.initial_window_segments = 2;
    let mut script = Script::build_with("sdc", config, None);
    let mut arrivals: std::collections::VecDeque<(u64, u64)> = std::collections::VecDeque::new();
    let mut hold_beyond_timer = false;
    // Millisecond steps: timers and releases fire, what was sent is ACKed 100 ms later.
    for millis in 0..20_000 {
        script.at(millis);
        for packet in script.outbox.drain(..) {
            arrivals.push_back((millis + 100, packet.sequence / MSS + 1));
        }
        while arrivals.front().is_some_and(|&(at, _)| at <= millis) {
            let (_, next_segment) = arrivals.pop_front().expect("checked above");
            let ack = Packet {
                kind: PacketKind::TcpAck,
                ack: next_segment * MSS,
                receive_window: 1_000_000,
                ece: true,
                ..Packet::default()
            };
            let mut ctx = EndpointContext { events: &mut script.events, outbox: &mut script.outbox };
            script.sender.on_ack_arrival(&ack, &mut ctx);
            hold_beyond_timer |= script.sender.cc.ack_processing_delay() > script.sender.rtt.rto();
        }
    }
    // About ten round trips of 2.1 s with a window of 2 to 4 segments.
    assert!(script.sender.stats.bytes_sent >= 20 * MSS, "the transfer stalled");
    assert!(hold_beyond_timer, "the script never held an ACK longer than the timer: it tests nothing");
    assert_eq!(script.sender.stats.timeouts, 0);
}

#[test]
fn the_receiver_never_pulls_the_right_edge_of_its_window_back() {
    // A 10-segment buffer. Segment 0 is lost and 1..=5 arrive: the buffer holds 5 segments, so
    // only 5 are free, but the ACKs keep offering the edge the first ACK offered (0 + 10), as
    // Linux's tcp_select_window and RFC 9293 section 3.8.6.2.2 require. When the hole fills, the
    // window is the free buffer again from the new ACK number.
    use tcplab_core::tcp::receiver::TcpReceiver;
    let config = TcpConfig { receive_window: 10 * MSS, ..config(RecoveryMode::Sack) };
    let mut receiver = TcpReceiver::new(0, 0, config);
    let (mut events, mut outbox) = (EventQueue::new(), Vec::new());
    let mut deliver = |receiver: &mut TcpReceiver, segment: u64| {
        let data = Packet {
            kind: PacketKind::TcpData,
            sequence: segment * MSS,
            payload_bytes: MSS as u32,
            ..Packet::default()
        };
        receiver.on_data(&data, &mut EndpointContext { events: &mut events, outbox: &mut outbox });
        let ack = outbox.pop().expect("out-of-order and hole-filling segments are ACKed at once");
        (ack.ack / MSS, ack.receive_window as u64 / MSS)
    };
    for segment in 1..=5 {
        assert_eq!(deliver(&mut receiver, segment), (0, 10), "segment {segment}: the edge stays at 10");
    }
    assert_eq!(deliver(&mut receiver, 0), (6, 10), "hole filled: 6 delivered, the whole buffer free");
}

#[test]
fn every_ack_restarts_the_timer_when_rto_restart_is_every_ack() {
    // An RTT sample of 100 ms: RTO = 100 + 4 x 50 = 300 ms from the ACK at 100 ms, due at 400 ms.
    // A duplicate ACK at 350 ms (one SACKed segment: no fast retransmit) restarts the timer only
    // with "every_ack" (ns-2's Agent/TCP/Linux). Its SACK gives a 350 ms sample: SRTT = 131.25,
    // RTTVAR = 100 ms, RTO = 531.25 ms, so the timer now fires at 881.25 ms.
    let timeouts_by = |restart, millis| {
        let mut s = Script::with_config(TcpConfig { rto_restart: restart, ..config(RecoveryMode::Sack) });
        s.sent();
        s.at(100);
        s.ack(1, &[]);
        s.at(350);
        s.ack(1, &[(5, 6)]);
        s.at(millis);
        s.sender.stats.timeouts
    };
    use tcplab_core::tcp::RtoRestart::{EveryAck, NewData};
    assert_eq!(timeouts_by(NewData, 399), 0);
    assert_eq!(timeouts_by(NewData, 400), 1);
    assert_eq!(timeouts_by(EveryAck, 881), 0);
    assert_eq!(timeouts_by(EveryAck, 882), 1);
}
