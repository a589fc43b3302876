//! Scripted ACK sequences through the real TCP sender: what it retransmits, when, and what window
//! it uses, for Reno (RFC 5681), NewReno (RFC 6582) and SACK (RFC 6675) recovery, RACK-TLP
//! (RFC 8985), PRR (RFC 6937), timestamps (RFC 7323), F-RTO (RFC 5682), the retransmission timer
//! (RFC 6298, Karn) and ECN (RFC 3168).

use serde_json::Value;
use tcplab_core::cc::{self, ConnectionInfo};
use tcplab_core::net::packet::{Ecn, Packet, PacketKind};
use tcplab_core::sim::{Event, EventQueue};
use tcplab_core::tcp::sender::TcpSender;
use tcplab_core::tcp::{AckPolicy, EcnEcho, EndpointContext, RecoveryMode, TcpConfig};
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
        rtt_sampling: tcplab_core::tcp::RttSampling::EveryAck,
        algorithm_rtt: tcplab_core::tcp::AlgorithmRtt::Sample,
        reduction_base: tcplab_core::tcp::ReductionBase::FlightSize,
        ecn_response: tcplab_core::tcp::EcnResponse::Linux,
        syn: false,
        ect_retransmissions: false,
        rto_restart: tcplab_core::tcp::RtoRestart::NewData,
        quick_ack_segments: 0,
        ack_policy: AckPolicy::Counted,
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
        ecn_echo: EcnEcho::Rfc3168,
        receive_window: 1_000_000,
        send_buffer: None,
        pacing: false,
        gso: false,
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
            initial_ssthresh_segments: config.initial_ssthresh_segments,
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

/// One window whose RTT steps from 100 to 350 ms (a queue filling), then silence: the RTO
/// after the step's nine ACKs, and the timeouts by 1.2 s.
fn rto_after_an_rtt_step(rto_formula: tcplab_core::tcp::RtoFormula) -> (u64, u64) {
    let mut s = Script::with_config(TcpConfig { rto_formula, ..config(RecoveryMode::Sack) });
    s.sent();
    s.at(100);
    s.ack(1, &[]);
    s.at(350);
    for next in 2..=10 {
        s.ack(next, &[]);
    }
    let rto = s.sender.rtt.rto();
    s.at(1200);
    (rto, s.sender.stats.timeouts)
}

#[test]
fn linux_rto_keeps_a_round_trips_variance_where_rfc6298_lets_it_decay() {
    // SRTT 100 ms, then nine samples of 350 ms within the first round trip (snd_una reaches
    // but does not pass the snd_nxt of the first sample): SRTT 274.8 ms either way. RFC 6298's
    // RTTVAR peaks at 150.7 ms and decays to 116.5: RTO 274.8 + 466.2 = 741.0 ms. Linux keeps
    // the round's largest 4 x deviation, 602.8 ms: RTO 877.7 ms.
    let (rfc_rto, rfc_timeouts) = rto_after_an_rtt_step(tcplab_core::tcp::RtoFormula::Rfc6298);
    let (linux_rto, linux_timeouts) = rto_after_an_rtt_step(tcplab_core::tcp::RtoFormula::Linux);
    assert!(rfc_rto.abs_diff(741_000_000) < 100_000, "{rfc_rto}");
    assert!(linux_rto.abs_diff(877_700_000) < 100_000, "{linux_rto}");
    // No ACK from 350 to 1,200 ms, as while other flows' trains drain: RFC 6298's timer fires
    // (at 1,091 ms), Linux's does not (1,227.7 ms).
    assert_eq!((rfc_timeouts, linux_timeouts), (1, 0));
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
fn the_send_buffer_bounds_what_is_outstanding() {
    // A 4-segment send buffer under a 10-segment initial window: four segments leave; each
    // cumulative ACK frees one segment's room, a SACK frees none (the data stays buffered until
    // it is acknowledged cumulatively, as in ns-3's TcpTxBuffer).
    let mut s = Script::with_config(TcpConfig { send_buffer: Some(4 * MSS), ..config(RecoveryMode::Sack) });
    assert_eq!(s.sent(), vec![0, 1, 2, 3]);
    s.at(100);
    s.ack(0, &[(1, 2)]);
    assert!(s.sent().is_empty());
    s.ack(2, &[]);
    assert_eq!(s.sent(), vec![4, 5]);
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

#[test]
fn gso_holds_new_data_until_the_window_has_room_for_a_gso_packet() {
    let config = TcpConfig { gso: true, initial_window_segments: 40, ..config(RecoveryMode::Sack) };
    let mut s = Script::with_config(config);
    // No RTT yet: the packet may be 64 KB; the initial window leaves at once.
    assert_eq!(s.sent(), (0..40).collect::<Vec<_>>());
    s.at(20);
    s.ack(1, &[]);
    // cwnd 41, 39 in flight: room for 2. The last transmission was 20 ms ago (over 1 ms): send.
    assert_eq!(s.sent(), vec![40, 41]);
    s.at_nanos(20 * MS + 100_000);
    s.ack(2, &[]);
    // cwnd 42, 40 in flight: room for 2 of the 4 a packet holds (2 x 42,000 B / 20.0125 ms =
    // 4,197,376 B/s, >> 10 = 4,099 B: 4 segments). The last transmission was 0.1 ms ago, the ACK
    // for segment 2 (sent at 0) is due at 20.0125 ms, already past, and 2 < 42 / 3: wait.
    assert!(s.sent().is_empty(), "room for half a GSO packet waits for the next ACK");
    s.at_nanos(20 * MS + 200_000);
    s.ack(3, &[]);
    // cwnd 43, 39 in flight: room for 4, a whole packet (4,292 B per 2^-10 s: 4 segments).
    assert_eq!(s.sent(), vec![42, 43, 44, 45]);
}

#[test]
fn gso_deferral_ends_when_the_last_transmission_is_over_a_millisecond_old() {
    // Congestion avoidance at cwnd 100: Linux's rate is 1.2 x 100,000 B / 20 ms = 6,000,000 B/s,
    // >> 10 = 5,859 B: a packet holds 5 segments.
    let config = TcpConfig {
        gso: true,
        initial_window_segments: 100,
        initial_ssthresh_segments: Some(10),
        ..config(RecoveryMode::Sack)
    };
    let mut s = Script::with_config(config);
    assert_eq!(s.sent().len(), 100);
    s.at(20);
    s.ack(1, &[]);
    assert_eq!(s.sent(), vec![100], "the last transmission was 20 ms ago");
    s.at_nanos(20 * MS + 500_000);
    s.ack(2, &[]);
    assert!(s.sent().is_empty(), "room for 1 of 5, the last transmission 0.5 ms ago: wait");
    s.at_nanos(21 * MS + 600_000);
    s.ack(3, &[]);
    assert_eq!(s.sent(), vec![101, 102], "room for 2 of 5, but the last transmission was 1.6 ms ago");
}

#[test]
fn a_paced_gso_flow_sends_each_packet_as_one_burst() {
    // BBR from the SYN's RTT of 10 ms with an initial window of 40: 2.885 x 40 x 8,000 bit /
    // 10 ms x 0.99 = 91.4 Mbit/s, 11,159 B per 2^-10 s: 11 segments a GSO packet.
    let mut sends = Vec::new();
    for gso in [false, true] {
        let config = TcpConfig { syn: true, gso, initial_window_segments: 40, ..config(RecoveryMode::Sack) };
        let mut s = Script::build_with("bbr", config, None);
        s.outbox.clear();
        s.at(10);
        s.ack(0, &[]);
        // (time in us after the SYN-ACK, segments sent then), polled every 10 us for 4 ms.
        let mut groups = vec![(0, s.outbox.drain(..).count())];
        for step in 1..=400 {
            s.at_nanos(10 * MS + step * 10_000);
            let sent = s.outbox.drain(..).count();
            if sent > 0 {
                groups.push((step * 10, sent));
            }
        }
        sends.push(groups);
    }
    let (without, with) = (&sends[0], &sends[1]);
    // Without GSO: ten unpaced, then one segment per gap of 87.5 us (11,159 B at 91.4 Mbit/s
    // is 11 of them), until the window's 40 are out.
    assert_eq!(without[0].1, 10);
    assert!(without[1..].iter().all(|&(_, n)| n == 1), "{without:?}");
    // With GSO: packets of 11, the first paced one 2 x 87.5 us after the start (the tenth and
    // eleventh segments open the clock), each next one 11 x 87.5 = 962 us later; the window
    // ends the fourth at 7.
    let sizes: Vec<usize> = with.iter().map(|&(_, n)| n).collect();
    assert_eq!(sizes, vec![11, 11, 11, 7], "{with:?}");
    let gap = with[2].0 - with[1].0;
    assert!((960..=970).contains(&gap), "{with:?}");
}

#[test]
fn bbr_sends_its_first_ten_segments_unpaced_then_paces_from_the_syns_rtt() {
    let config = TcpConfig { syn: true, initial_window_segments: 12, ..config(RecoveryMode::Sack) };
    let mut s = Script::build_with("bbr", config, None);
    assert_eq!(s.outbox.drain(..).count(), 1, "the SYN");
    s.at(10);
    s.ack(0, &[]);
    // Linux paces from the tenth data segment on: ten leave at once, the eleventh after the
    // tenth's 8,000 bits at 2.885 x 12 x 8,000 bit / 10 ms (the SYN's RTT) x 0.99 =
    // 27.41904 Mbit/s, 291,768.2 ns later (with no RTT the rate would be ten times higher).
    assert_eq!(s.sent(), (0..10).collect::<Vec<_>>());
    s.at_nanos(10 * MS + 291_768);
    assert!(s.sent().is_empty(), "the eleventh waits for its pacing gap");
    s.at_nanos(10 * MS + 291_769);
    assert_eq!(s.sent(), vec![10]);
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
fn reduction_base_pipe_halves_what_ns3_counts_in_flight() {
    // Ten segments out, the first lost, three duplicate ACKs (no limited transmit). NewReno halves
    // what it is given: FlightSize, 10 segments -> ssthresh 5; ns-3's pipe without SACK counts
    // each duplicate ACK as a segment delivered: 10 - 3 = 7 -> 3.5 segments (3500 bytes).
    let ssthresh_after_three_duplicates = |reduction_base, recovery| {
        let config = TcpConfig { reduction_base, limited_transmit: false, ..config(recovery) };
        let mut s = Script::with_config(config);
        assert_eq!(s.sent().len(), 10);
        s.at(100);
        for sacked_up_to in 2..=4 {
            let blocks = if recovery == RecoveryMode::Sack { vec![(1, sacked_up_to)] } else { vec![] };
            s.ack(0, &blocks);
        }
        s.sender.cc.ssthresh()
    };
    use tcplab_core::tcp::ReductionBase::{FlightSize, Pipe};
    assert_eq!(ssthresh_after_three_duplicates(FlightSize, RecoveryMode::NewReno), 5 * MSS);
    assert_eq!(ssthresh_after_three_duplicates(Pipe, RecoveryMode::NewReno), 3 * MSS + MSS / 2);
    // With SACK the pipe is the outstanding data less the three SACKed segments and the lost
    // first one: 10 - 3 - 1 = 6 -> 3 segments.
    assert_eq!(ssthresh_after_three_duplicates(FlightSize, RecoveryMode::Sack), 5 * MSS);
    assert_eq!(ssthresh_after_three_duplicates(Pipe, RecoveryMode::Sack), 3 * MSS);
}

#[test]
fn algorithm_rtt_smoothed_hands_the_algorithm_srtt_and_its_minimum() {
    // Two ACKs: the first samples 100 ms, the second 200 ms. Samples: 100 then 200, minimum 100.
    // Smoothed (RFC 6298): SRTT 100, then 7/8 x 100 + 1/8 x 200 = 112.5 ms; minimum SRTT 100.
    let run = |algorithm_rtt| {
        let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut events_q = EventQueue::new();
        let mut outbox = Vec::new();
        let config = TcpConfig { algorithm_rtt, ..config(RecoveryMode::Sack) };
        let mut sender = TcpSender::new(0, 1, config, Box::new(Recorder(events.clone())));
        sender.app_write(u64::MAX, &mut EndpointContext { events: &mut events_q, outbox: &mut outbox });
        for (n, at) in [(1, 100 * MS), (2, 200 * MS)] {
            events_q.advance_to(at);
            let ack = Packet { kind: PacketKind::TcpAck, ack: n * MSS, receive_window: 1_000_000, ..Packet::default() };
            sender.on_ack(&ack, &mut EndpointContext { events: &mut events_q, outbox: &mut outbox });
        }
        let recorded = events.lock().unwrap().clone();
        recorded.iter().map(|e| (e.rtt_sample, e.min_rtt)).collect::<Vec<_>>()
    };
    assert_eq!(
        run(tcplab_core::tcp::AlgorithmRtt::Sample),
        vec![(Some(100 * MS), 100 * MS), (Some(200 * MS), 100 * MS)]
    );
    assert_eq!(
        run(tcplab_core::tcp::AlgorithmRtt::Smoothed),
        vec![(Some(100 * MS), 100 * MS), (Some(112_500_000), 100 * MS)]
    );
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

// ----- ns-2's sender: timed segments, its RTO, the RFC 3168 ECN response, the SYN -----

/// ns-2.35's defaults where they matter here: 1000-byte segments, 2-segment initial window,
/// tcpTick_ 10 ms, minrto_ 200 ms, rtxcur_init_ 3 s, maxrto_ 60 s, one timed segment per RTT.
fn ns2_config() -> TcpConfig {
    TcpConfig {
        initial_window_segments: 2,
        recovery: RecoveryMode::NewReno,
        undo: false,
        rto_formula: tcplab_core::tcp::RtoFormula::Ns2,
        rtt_sampling: tcplab_core::tcp::RttSampling::TimedSegment,
        ecn_response: tcplab_core::tcp::EcnResponse::Rfc3168,
        min_rto: 200 * MS,
        initial_rto: 3 * SEC,
        max_rto: 60 * SEC,
        clock_granularity: 10 * MS,
        ..config(RecoveryMode::NewReno)
    }
}

#[test]
fn one_timed_segment_per_round_trip_gives_ns2s_rto() {
    let mut s = Script::with_config(ns2_config());
    // Segments 0 and 1 leave at 0 ms; segment 0 is timed. The clock's phase is 0 here.
    assert_eq!(s.sent(), vec![0, 1]);
    assert_eq!(s.sender.rtt.rto(), 3 * SEC, "rtxcur_init_ before a sample");
    s.at(105);
    s.ack(1, &[]);
    // Segment 0: sent at 0, ACK at 105 ms: tick boundaries 10..100 ms, m = 10 ticks.
    // srtt8 = 80, rttvar4 = 20; RTO = (8 x 20 + 80) >> 3 = 30 ticks = 300 ms.
    assert_eq!(s.sent(), vec![2, 3], "slow start; segment 2 is the next timed one");
    assert_eq!(s.sender.rtt.rto(), 300 * MS);
    s.at(110);
    s.ack(2, &[]);
    assert_eq!(s.sent(), vec![4, 5]);
    assert_eq!(s.sender.rtt.rto(), 300 * MS, "segment 1 was not timed: no sample");
    s.at(265);
    s.ack(3, &[]);
    // Segment 2: sent at 105, ACK at 265: boundaries 110..260 ms, m = 26 - 10 = 16 ticks.
    // d = 16 - (80 >> 3) = 6: srtt8 = 86; rttvar4 = 20 + 6 - (20 >> 2) = 21;
    // RTO = (8 x 21 + 86) >> 3 = 254 >> 3 = 31 ticks = 310 ms. (Every ACK sampled, RFC 6298
    // would have averaged 105, 110 and 160 ms.)
    assert_eq!(s.sent(), vec![6, 7]);
    assert_eq!(s.sender.rtt.rto(), 310 * MS);
    // Nothing more arrives: the timer armed at 265 ms fires at 575 ms.
    s.at(574);
    assert!(s.sent().is_empty());
    s.at(575);
    assert_eq!(s.sent(), vec![3], "go-back-N from the first unacknowledged segment");
    assert_eq!((s.sender.stats.timeouts, s.sender.stats.timeouts_after_loss), (1, 1));
    assert_eq!(s.sender.rtt.rto(), 620 * MS, "backoff 2");
    // The timeout cancelled the timing of segment 6 (Karn): this ACK gives no sample and the
    // backoff stays.
    s.at(700);
    s.ack(8, &[]);
    assert_eq!(s.sender.rtt.rto(), 620 * MS);
    let sent = s.sent();
    assert_eq!(sent.first(), Some(&8), "new data after the timeout recovery: {sent:?}");
    // Segment 8 (sent at 700) is timed; ACK at 800: m = 80 - 70 = 10 ticks. d = 10 - 10 = 0:
    // srtt8 = 86, rttvar4 = 21 + 0 - 5 = 16; RTO = (128 + 86) >> 3 = 26 ticks = 260 ms, and the
    // timed ACK ends the backoff.
    s.at(800);
    s.ack(9, &[]);
    assert_eq!(s.sender.rtt.rto(), 260 * MS);
}

#[test]
fn ecn_at_one_segment_waits_for_the_timer_and_backs_off_on_the_next() {
    let mut s = Script::with_config(TcpConfig {
        initial_window_segments: 1,
        ecn_response: tcplab_core::tcp::EcnResponse::Rfc3168,
        ..config(RecoveryMode::NewReno)
    });
    assert_eq!(s.sent(), vec![0]);
    s.at(100);
    // ECN-Echo with a window of one segment: ns-2 halves it to half a segment, so nothing may
    // leave; the timer is restarted: RFC 6298 with the 100 ms sample, 100 + 4 x 50 = 300 ms.
    s.ack_with(1, &[], true);
    assert!(s.sent().is_empty());
    assert_eq!(s.sender.effective_cwnd(), MSS / 2, "below one segment");
    assert_eq!(s.sender.stats.ecn_reductions, 1);
    s.at(399);
    assert!(s.sent().is_empty(), "the next new segment waits for the timer");
    s.at(400);
    assert_eq!(s.sent(), vec![1], "one segment when the timer fires");
    assert_eq!(s.sender.stats.timeouts, 1, "the expiry is counted as a timeout");
    assert_eq!(s.sender.stats.timeouts_after_loss, 0, "but not as a loss (ns-2's nrexmit_)");
    let events: Vec<_> = s.sender.stats.events.iter().filter(|(t, _)| *t == 400 * MS).map(|(_, e)| *e).collect();
    assert_eq!(events, vec!["timeout", "ecn_timer"]);
    assert_eq!(s.sender.stats.retransmitted_segments, 0);
    // Congestion persists: ECN-Echo again at one segment. This time the timer backs off
    // (ecn_backoff_): RTT 100 ms again, RTTVAR 37.5 ms, RTO 250 ms, doubled to 500 ms.
    s.at(500);
    s.ack_with(2, &[], true);
    assert!(s.sent().is_empty());
    assert_eq!(s.sender.rtt.rto(), 500 * MS);
    s.at(999);
    assert!(s.sent().is_empty());
    s.at(1000);
    assert_eq!(s.sent(), vec![2]);
    assert_eq!((s.sender.stats.timeouts, s.sender.stats.timeouts_after_loss), (2, 0));
    // An ACK without ECN-Echo ends the episode: the algorithm's window (2 segments) applies.
    s.at(1100);
    s.ack(3, &[]);
    assert_eq!(s.sent(), vec![3, 4]);
    // RTTVAR 3/4 x 37.5 = 28.125 ms: 100 + 112.5 = 212.5 ms, no longer doubled.
    assert_eq!(s.sender.rtt.rto(), 212_500_000, "the sample ended the backoff");
}

#[test]
fn linux_ecn_response_keeps_sending_at_the_algorithms_floor() {
    let mut s = Script::with_config(TcpConfig { initial_window_segments: 1, ..config(RecoveryMode::NewReno) });
    assert_eq!(s.sent(), vec![0]);
    s.at(100);
    s.ack_with(1, &[], true);
    assert_eq!(s.sent(), vec![1, 2], "cwnd = ssthresh = 2 segments at once");
    assert_eq!(s.sender.stats.timeouts, 0);
}

#[test]
fn a_timeout_in_the_window_after_an_ecn_reduction_is_not_a_loss_timeout() {
    let mut s = Script::new(RecoveryMode::NewReno);
    s.sent();
    s.at(100);
    // ECN-Echo on the first ACK: one reduction for the window up to segment 11.
    s.ack_with(1, &[], true);
    assert_eq!(s.sender.stats.ecn_reductions, 1);
    s.sent();
    // Nothing else arrives: the timer (100 + 300 ms) fires inside that window.
    s.at(400);
    assert_eq!(s.sent(), vec![1]);
    assert_eq!((s.sender.stats.timeouts, s.sender.stats.timeouts_after_loss), (1, 0));
    // The backed-off timer (600 ms) fires again, no longer after an ECN reduction.
    s.at(1000);
    assert_eq!(s.sent(), vec![1]);
    assert_eq!((s.sender.stats.timeouts, s.sender.stats.timeouts_after_loss), (2, 1));
}

#[test]
fn the_syn_precedes_the_data_and_its_rtt_seeds_the_estimator() {
    let mut s =
        Script::with_config(TcpConfig { syn: true, initial_window_segments: 2, ..config(RecoveryMode::NewReno) });
    let syn: Vec<_> = s.outbox.drain(..).collect();
    assert_eq!(syn.len(), 1, "only the SYN before the SYN-ACK");
    assert_eq!((syn[0].payload_bytes, syn[0].wire_bytes, syn[0].sequence), (0, 40, 0));
    assert_eq!(syn[0].ecn, tcplab_core::net::packet::Ecn::NotEct, "a SYN is not ECN-capable");
    s.at(50);
    assert!(s.outbox.is_empty());
    assert_eq!(s.sender.effective_cwnd(), MSS, "a window of one (the SYN) until the SYN-ACK");
    s.at(100);
    s.ack(0, &[]);
    // The SYN-ACK: the initial window goes out (no growth on it, ns-2's delay_growth_), and the
    // SYN's 100 ms is the first sample: RTO 100 + 4 x 50 = 300 ms.
    assert_eq!(s.sent(), vec![0, 1]);
    assert_eq!(s.sender.rtt.srtt, Some(100 * MS));
    assert_eq!(s.sender.rtt.rto(), 300 * MS);
    assert_eq!(s.sender.stats.segments_sent, 3);
    s.at(200);
    s.ack(2, &[]);
    assert_eq!(s.sent(), vec![2, 3, 4], "slow start from the initial window: cwnd 3");
}

#[test]
fn a_lost_syn_is_resent_after_the_initial_rto_and_the_data_starts_with_one_segment() {
    let mut s =
        Script::with_config(TcpConfig { syn: true, initial_window_segments: 2, ..config(RecoveryMode::NewReno) });
    s.outbox.clear();
    s.at(999);
    assert!(s.outbox.is_empty());
    s.at(1000);
    let syn: Vec<_> = s.outbox.drain(..).collect();
    assert_eq!((syn.len(), syn[0].payload_bytes), (1, 0), "the SYN again");
    assert_eq!((s.sender.stats.timeouts, s.sender.stats.timeouts_after_loss), (1, 1));
    assert_eq!(s.sender.rtt.rto(), 2 * SEC, "backed off");
    s.at(1100);
    s.ack(0, &[]);
    // No sample from a resent SYN (Karn); the loss window of one segment (ns-2: windowInit_
    // drops to 1 when the first packet was lost).
    assert_eq!(s.sent(), vec![0]);
    assert_eq!(s.sender.rtt.srtt, None);
}

#[test]
fn rfc3168_answers_ecn_at_once_after_a_timeout_and_the_next_expiry_is_not_a_loss_timeout() {
    let mut s = Script::with_config(TcpConfig {
        initial_window_segments: 2,
        ecn_response: tcplab_core::tcp::EcnResponse::Rfc3168,
        ..config(RecoveryMode::NewReno)
    });
    assert_eq!(s.sent(), vec![0, 1]);
    // No ACK: the initial 1 s timer fires, the window is one segment, segment 0 is resent.
    s.at(1000);
    assert_eq!(s.sent(), vec![0]);
    assert_eq!((s.sender.stats.timeouts, s.sender.stats.timeouts_after_loss), (1, 1));
    // Its ACK carries ECN-Echo, with segment 1 still outstanding. ns-2 answers at once after a
    // timeout (last_cwnd_action_ TIMEOUT): one segment halves below one, nothing more is sent.
    s.at(1100);
    s.ack_with(1, &[], true);
    assert!(s.sent().is_empty(), "segment 1 is not resent: the window is below one segment");
    assert_eq!(s.sender.stats.ecn_reductions, 1);
    assert_eq!(s.sender.effective_cwnd(), MSS / 2);
    // The restarted timer (no sample: segment 0 was resent; 2 s backed off) fires with segment 1
    // outstanding, inside the window of that ECN reduction: a timeout, not one after a loss.
    s.at(3099);
    assert!(s.sent().is_empty());
    s.at(3100);
    let resent: Vec<_> = s.outbox.drain(..).map(|p| (p.sequence / MSS, p.cwr)).collect();
    // The retransmission carries CWR (ns-2's SetCWRonRetransmit_), so the receiver stops
    // echoing ECE although no new segment can leave yet.
    assert_eq!(resent, vec![(1, true)]);
    assert_eq!((s.sender.stats.timeouts, s.sender.stats.timeouts_after_loss), (2, 1));
}

#[test]
fn rfc3168_grows_on_acks_without_ece_and_not_on_later_acks_with_it() {
    let run = |response| {
        let mut s = Script::with_config(TcpConfig { ecn_response: response, ..config(RecoveryMode::NewReno) });
        s.sent();
        s.at(100);
        // The first ECE: one reduction, to 5 segments (half of the 10-segment window).
        s.ack_with(1, &[], true);
        let after_first = s.sender.cc.cwnd();
        s.ack_with(2, &[], true);
        let after_second_ece = s.sender.cc.cwnd();
        s.ack(3, &[]);
        (after_first, after_second_ece, s.sender.cc.cwnd())
    };
    let (first, second, plain) = run(tcplab_core::tcp::EcnResponse::Rfc3168);
    // ns-2: the connection's first ECE ACK still opens cwnd (ect_ is not yet set), a later one
    // does not, an ACK without ECE does, even within the reduced window.
    assert!(first > 5 * MSS, "{first}");
    assert_eq!(second, first);
    assert!(plain > second, "{plain} {second}");
    // Linux's CWR round: no growth until the window that saw the ECE is acknowledged.
    let (first, second, plain) = run(tcplab_core::tcp::EcnResponse::Linux);
    assert_eq!((first, second, plain), (5 * MSS, 5 * MSS, 5 * MSS));
}

#[test]
fn rfc3168_repairs_a_loss_in_the_window_of_an_ecn_reduction_without_a_second_reduction() {
    let run = |response| {
        let mut s = Script::with_config(TcpConfig {
            ecn_response: response,
            limited_transmit: false,
            ..config(RecoveryMode::NewReno)
        });
        s.sent();
        s.at(100);
        // Segment 0 arrives with CE; segment 1 is lost, 2, 3 and 4 arrive.
        s.ack_with(1, &[], true);
        s.sent();
        for _ in 0..3 {
            s.ack(1, &[]);
        }
        (s.sent(), s.sender.stats.fast_recoveries, s.sender.cc.ssthresh())
    };
    let (sent, recoveries, ssthresh) = run(tcplab_core::tcp::EcnResponse::Rfc3168);
    assert_eq!((sent.first(), recoveries), (Some(&1), 1), "fast retransmit: {sent:?}");
    assert_eq!(ssthresh, 5 * MSS, "ns-2 dupack_action: the ECN reduction stands, no second one");
    let (_, _, ssthresh) = run(tcplab_core::tcp::EcnResponse::Linux);
    assert!(ssthresh < 5 * MSS, "Linux's response reduces again: {ssthresh}");
}

#[test]
fn rfc3168_with_sack_also_repairs_a_loss_in_the_ecn_window_without_a_second_reduction() {
    let mut s = Script::with_config(TcpConfig {
        ecn_response: tcplab_core::tcp::EcnResponse::Rfc3168,
        ..config(RecoveryMode::Sack)
    });
    s.sent();
    s.at(100);
    s.ack_with(1, &[], true);
    assert_eq!(s.sender.cc.ssthresh(), 5 * MSS);
    s.sent();
    // Segment 1 lost, 2..4 SACKed: Sack1's dupack_action in the ECN window.
    s.ack(1, &[(2, 3)]);
    s.ack(1, &[(2, 4)]);
    s.ack(1, &[(2, 5)]);
    assert_eq!(s.sender.stats.fast_recoveries, 1);
    assert!(s.sent().contains(&1));
    assert_eq!(s.sender.cc.ssthresh(), 5 * MSS);
}

#[test]
fn rfc3168_keeps_ssthresh_at_a_timeout_in_the_window_of_an_ecn_reduction() {
    let run = |response| {
        let mut s = Script::with_config(TcpConfig { ecn_response: response, ..config(RecoveryMode::NewReno) });
        s.sent();
        s.at(100);
        s.ack_with(1, &[], true);
        let after_ecn = s.sender.cc.ssthresh();
        // Nothing more arrives: the timer fires inside the reduced window.
        s.at(400);
        assert_eq!(s.sent(), vec![1]);
        (after_ecn, s.sender.cc.ssthresh(), s.sender.cc.cwnd())
    };
    // ns-2: the ECN reduction halved the 10-segment window; the timeout only drops cwnd to one.
    let rfc3168 = run(tcplab_core::tcp::EcnResponse::Rfc3168);
    assert_eq!(rfc3168, (5 * MSS, 5 * MSS, MSS));
    // Linux's response: the timeout halves the 9 segments in flight again.
    let linux = run(tcplab_core::tcp::EcnResponse::Linux);
    assert_eq!(linux, (5 * MSS, 4_500, MSS));
}

#[test]
fn retransmissions_are_ecn_capable_only_when_configured_as_ns2_sends_them() {
    // RFC 3168 section 6.1.5: a retransmission is not ECT; ns-2's tcp.cc output() makes every
    // data packet of an ECN agent ECT.
    for (ect_retransmissions, expected) in [(false, Ecn::NotEct), (true, Ecn::Ect)] {
        let mut s = Script::with_config(TcpConfig { ect_retransmissions, ..config(RecoveryMode::NewReno) });
        let first: Vec<_> = s.outbox.drain(..).collect();
        assert!(first.iter().all(|p| p.ecn == Ecn::Ect), "new data is ECT");
        s.at(100);
        for _ in 0..4 {
            s.ack(1, &[]);
        }
        let retransmission = s.outbox.drain(..).find(|p| p.sequence == MSS).expect("segment 1 is retransmitted");
        assert_eq!(retransmission.ecn, expected, "ect_retransmissions = {ect_retransmissions}");
    }
}

/// In-order full-sized data segments, CE-marked where `marks` says, at a receiver with delayed
/// ACKs every 2 segments (no quick ACKs, a 40 ms timer); then the delayed-ACK timer. Returns
/// each ACK as (acknowledged segments, ECE).
fn echo(ecn_echo: EcnEcho, marks: &[bool], cwr_on: Option<usize>) -> Vec<(u64, bool)> {
    use tcplab_core::tcp::receiver::TcpReceiver;
    let config = TcpConfig { delayed_ack: true, ecn_echo, ..config(RecoveryMode::Sack) };
    let mut receiver = TcpReceiver::new(0, 1, config);
    let (mut events, mut outbox) = (EventQueue::new(), Vec::new());
    for (i, &ce) in marks.iter().enumerate() {
        let data = Packet {
            kind: PacketKind::TcpData,
            sequence: i as u64 * MSS,
            payload_bytes: MSS as u32,
            ecn: if ce { Ecn::Ce } else { Ecn::Ect },
            cwr: cwr_on == Some(i),
            ..Packet::default()
        };
        receiver.on_data(&data, &mut EndpointContext { events: &mut events, outbox: &mut outbox });
    }
    events.advance_to(SEC);
    receiver.on_delayed_ack_timer(&mut EndpointContext { events: &mut events, outbox: &mut outbox });
    outbox.iter().map(|ack| (ack.ack / MSS, ack.ece)).collect()
}

#[test]
fn dctcp_echo_follows_the_ce_state_and_acks_each_change_at_once() {
    let (n, c) = (false, true);
    let marks = [n, n, n, c, c, c, n, c, n, n];
    // 0, 1: a delayed ACK for both, no ECE. 2 waits. 3 is CE, a change: the ACK waiting for
    // 2 leaves first without ECE (ack 3), then 3 is acknowledged at once with ECE (ack 4).
    // 4, 5: CE, no change: one delayed ACK with ECE. 6: back to no CE, nothing waiting:
    // ack 7 at once without ECE; 7 (CE) and 8 (not) are changes too; 9 waits for the timer.
    assert_eq!(
        echo(EcnEcho::Dctcp, &marks, Some(6)),
        vec![(2, false), (3, false), (4, true), (6, true), (7, false), (8, true), (9, false), (10, false)]
    );
    // RFC 3168 on the same data, CWR on segment 6: ECE from the first CE on, cleared by the
    // CWR and set again by segment 7; it stays on the timer's ACK although 8 and 9 were not
    // CE. No ACKs beyond the delayed-ACK rule.
    assert_eq!(echo(EcnEcho::Rfc3168, &marks, Some(6)), vec![(2, false), (4, true), (6, true), (8, true), (10, true)]);
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
