//! Scripted ACK/loss sequences through the fake sender, with hand-worked expected windows.

use serde_json::{json, Value};
use tcplab_core::cc::harness::FakeSender;
use tcplab_core::cc::{CongestionEvent, CongestionKind};
use tcplab_core::time::{NANOS_PER_MILLI as MS, NANOS_PER_SEC as SEC};

const MSS: u64 = 1000;

fn sender(name: &str, params: Value, rtt_ms: u64) -> FakeSender {
    FakeSender::new(name, &params, MSS, 10, rtt_ms * MS)
}

#[test]
fn reno_doubles_per_rtt_in_slow_start_even_with_delayed_acks() {
    // Linux counts acked segments, so an ACK for 2 segments grows cwnd by 2: 10 -> 20 -> 40.
    let mut s = sender("reno", Value::Null, 100);
    s.round_trip(2);
    assert_eq!(s.cwnd_segments(), 20.0);
    s.round_trip(2);
    assert_eq!(s.cwnd_segments(), 40.0);
}

#[test]
fn reno_halves_on_loss_holds_during_recovery_then_adds_one_per_rtt() {
    let mut s = sender("reno", Value::Null, 100);
    s.round_trip(1);
    s.round_trip(1); // cwnd 40
    s.fill_window();
    s.lose();
    assert_eq!((s.cwnd_segments(), s.ssthresh_segments()), (20.0, 20.0));
    // ACKs during recovery do not grow the window.
    s.ack(10);
    assert_eq!(s.cwnd_segments(), 20.0);
    s.advance(100 * MS);
    while s.in_flight() > 0 {
        s.ack(1);
    }
    // Recovery ends on the last ACK with cwnd = ssthresh = 20; that ACK is the first credit.
    assert_eq!(s.cwnd_segments(), 20.0);
    for expected in [21.0, 22.0, 23.0] {
        s.round_trip(1);
        assert_eq!(s.cwnd_segments(), expected);
    }
}

#[test]
fn reno_timeout_sets_the_loss_window() {
    let mut s = sender("reno", Value::Null, 100);
    s.round_trip(1); // 20
    s.fill_window();
    s.timeout();
    assert_eq!((s.cwnd_segments(), s.ssthresh_segments()), (1.0, 10.0));
    s.round_trip(1);
    s.round_trip(1);
    s.round_trip(1);
    s.round_trip(1);
    // Slow start 1 -> 2 -> 4 -> 8 -> 10 (stops at ssthresh), leftover acks go to avoidance.
    assert_eq!(s.cwnd_segments(), 10.0);
}

#[test]
fn reno_does_not_grow_when_not_cwnd_limited_unless_told_to() {
    let mut frozen = sender("reno", Value::Null, 100);
    frozen.cwnd_limited = false;
    frozen.round_trip(1);
    assert_eq!(frozen.cwnd_segments(), 10.0);
    let mut growing = sender("reno", json!({"freeze_when_not_cwnd_limited": false}), 100);
    growing.cwnd_limited = false;
    growing.round_trip(1);
    assert_eq!(growing.cwnd_segments(), 20.0);
}

#[test]
fn newreno_grows_per_ack_so_delayed_acks_slow_it_down() {
    // RFC 5681 per-ACK growth by min(acked, 1 SMSS): 10 segments in 5 ACKs -> 15.
    let mut s = sender("newreno", Value::Null, 100);
    s.round_trip(2);
    assert_eq!(s.cwnd_segments(), 15.0);
    // With RFC 3465 L = 2 each 2-segment ACK adds 2: 10 -> 20.
    let mut abc = sender("newreno", json!({"abc_limit": 2}), 100);
    abc.round_trip(2);
    assert_eq!(abc.cwnd_segments(), 20.0);
}

#[test]
fn newreno_loss_uses_flight_size_and_congestion_avoidance_adds_about_one_segment_per_rtt() {
    let mut s = sender("newreno", Value::Null, 100);
    s.round_trip(1); // 20
    s.fill_window();
    s.ack(4); // 4 segments acknowledged: cwnd 24, flight 20 + 4 new = 20 after refill
    s.fill_window();
    let flight = s.in_flight();
    s.lose();
    assert_eq!(s.cc.ssthresh(), flight / 2);
    assert_eq!(s.cc.cwnd(), flight / 2);
    s.advance(100 * MS);
    while s.in_flight() > 0 {
        s.ack(1);
    }
    let before = s.cc.cwnd();
    s.round_trip(1);
    // Per ACK cwnd += MSS^2 / cwnd: one window of ACKs adds a little under one segment.
    let grown = (s.cc.cwnd() - before) as f64 / MSS as f64;
    assert!((0.9..=1.0).contains(&grown), "grew by {grown} segments");
}

/// The algorithm's reduction for an event with this basis (the window under RFC 3168's response).
fn reduce(s: &mut FakeSender, kind: CongestionKind, basis: u64) {
    s.cc.on_congestion_event(&CongestionEvent { now: s.now, kind, bytes_in_flight: basis, snd_nxt: s.snd_nxt });
}

#[test]
fn newreno_with_ns2_slowdown_halves_cwnd_on_ecn_and_keeps_ssthresh_in_whole_segments() {
    // ns-2 tcp.cc slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF) with precision_reduce_: halfwin =
    // window / 2; ssthresh_ = (int) halfwin, at least 2; cwnd_ = halfwin.
    let mut s = sender("newreno", json!({"reduction": "ns2_slowdown"}), 100);
    s.round_trip(1); // 20 segments
    s.fill_window();
    let flight = s.in_flight();
    assert_eq!(flight, 20 * MSS);
    s.ecn_echo();
    assert_eq!(s.cc.ssthresh(), 10 * MSS);
    assert_eq!(s.cc.cwnd(), 10 * MSS);
    // From a window of 3 segments: ssthresh 1.5 -> 1 -> the floor of 2, cwnd 1.5 segments, where
    // RFC 5681's rule (the default) leaves cwnd at the 2-segment ssthresh.
    for (reduction, cwnd) in [("ns2_slowdown", 3 * MSS / 2), ("rfc5681", 2 * MSS)] {
        let mut small = sender("newreno", json!({"reduction": reduction}), 100);
        reduce(&mut small, CongestionKind::Ecn, 3 * MSS);
        assert_eq!(small.cc.ssthresh(), 2 * MSS, "{reduction}");
        assert_eq!(small.cc.cwnd(), cwnd, "{reduction}");
    }
    // A loss: ssthresh 7 whole segments from a basis of 15.5, cwnd = ssthresh.
    let mut lossy = sender("newreno", json!({"reduction": "ns2_slowdown"}), 100);
    reduce(&mut lossy, CongestionKind::FastRetransmit, 31 * MSS / 2);
    assert_eq!((lossy.cc.ssthresh(), lossy.cc.cwnd()), (7 * MSS, 7 * MSS));
}

/// Slow start from 10 segments until cwnd passes 100 (it reaches 160), then a loss and the end
/// of its recovery.
fn cubic_after_slow_start_loss(params: Value, rtt_ms: u64) -> FakeSender {
    let mut s = sender("cubic", params, rtt_ms);
    while s.cwnd_segments() < 100.0 {
        s.round_trip(1);
    }
    s.lose();
    s.advance(rtt_ms * MS);
    while s.in_flight() > 0 {
        s.ack(1);
    }
    s
}

#[test]
fn cubic_returns_to_w_max_near_k_then_probes_beyond() {
    let mut s = cubic_after_slow_start_loss(json!({"hystart": false, "tcp_friendliness": false}), 100);
    // Slow start stopped at 160 segments (10 -> 20 -> ... -> 160); W_max = 160, cwnd = 112.
    let w_max = 160.0;
    assert_eq!(s.cwnd_segments(), 112.0);
    // K = cbrt((160 - 112) / 0.4) = cbrt(120) = 4.93 s. The epoch starts at the first ACK in
    // congestion avoidance, one RTT after the loss.
    let k = ((w_max - 112.0) / 0.4f64).cbrt();
    let epoch_start = s.now;
    while (s.now - epoch_start) as f64 / SEC as f64 + 0.1 < k {
        s.round_trip(1);
    }
    let at_k = s.cwnd_segments();
    assert!((w_max - 3.0..=w_max + 1.0).contains(&at_k), "cwnd {at_k} at t = K, W_max {w_max}");
    // Past K the curve is convex: the second 20 round trips add more than the first 20.
    let mut history = vec![at_k];
    for _ in 0..40 {
        s.round_trip(1);
        history.push(s.cwnd_segments());
    }
    let first_half = history[20] - history[0];
    let second_half = history[40] - history[20];
    assert!(second_half > first_half, "convex region accelerates: {first_half} then {second_half}");
}

#[test]
fn cubic_reno_friendly_region_dominates_at_short_rtt() {
    // At 1 ms RTT the cubic curve barely moves in 0.1 s, but W_est grows by alpha = 0.53
    // segments per RTT: about 53 segments in 100 RTTs.
    let mut friendly = cubic_after_slow_start_loss(json!({"hystart": false}), 1);
    let mut pure = cubic_after_slow_start_loss(json!({"hystart": false, "tcp_friendliness": false}), 1);
    let start = friendly.cwnd_segments();
    assert_eq!(start, pure.cwnd_segments());
    for _ in 0..100 {
        friendly.round_trip(1);
        pure.round_trip(1);
    }
    let friendly_gain = friendly.cwnd_segments() - start;
    let pure_gain = pure.cwnd_segments() - start;
    assert!((40.0..=60.0).contains(&friendly_gain), "Reno-friendly gain {friendly_gain}");
    assert!(pure_gain < 10.0, "cubic-only gain {pure_gain}");
}

#[test]
fn cubic_hystart_leaves_slow_start_when_the_rtt_rises() {
    let mut s = sender("cubic", Value::Null, 100);
    s.round_trip(1);
    s.round_trip(1); // 40 segments, min RTT 100 ms
                     // Threshold: 100 ms + clamp(100 / 8, 4, 16) = 112.5 ms. A round at 120 ms exits after 8 samples.
    s.rtt = 120 * MS;
    s.round_trip(1);
    assert!(s.ssthresh_segments() < 1e6, "HyStart set ssthresh");
    assert!(s.cwnd_segments() <= s.ssthresh_segments() + 40.0);
    let mut without = sender("cubic", json!({"hystart": false}), 100);
    without.round_trip(1);
    without.round_trip(1);
    without.rtt = 120 * MS;
    without.round_trip(1);
    assert!(without.ssthresh_segments() > 1e6, "no HyStart: still in slow start");
}

#[test]
fn cubic_hystart_counts_rounds_from_the_first_ack_not_from_cwnd_16() {
    // Linux 6.13's round-start fix: one ACK per segment, IW 10, min RTT 100 ms. The first round
    // begins at ACK 1 (it ends once segment 10 is acknowledged), the second at ACK 11, the third
    // at ACK 31. ACKs 23 to 31 carry a 130 ms RTT (queue left by the second flight), above the
    // 112.5 ms threshold. Counted from cwnd 16 (ACK 7, the rule before the fix), a round would
    // begin at ACK 23 with nine such samples and the delay rule would end slow start; counted
    // from ACK 1, no round's first samples are all high, so slow start goes on.
    let mut s = sender("cubic", Value::Null, 100);
    s.fill_window();
    for ack in 1..=40u64 {
        if ack == 11 || ack == 31 {
            s.advance(100 * MS);
        }
        s.rtt = if (23..=31).contains(&ack) { 130 * MS } else { 100 * MS };
        s.ack(1);
        s.fill_window();
    }
    assert_eq!(s.cwnd_segments(), 50.0, "still doubling: 10 + 40 ACKs");
    assert!(s.ssthresh_segments() > 1e6, "HyStart must not have ended slow start");
}

#[test]
fn cubic_fast_convergence_releases_bandwidth() {
    // Two losses in a row at falling windows: the second W_max is (1 + 0.7) / 2 of cwnd.
    let mut s = sender("cubic", json!({"hystart": false}), 100);
    for _ in 0..3 {
        s.round_trip(1);
    } // 80
    s.lose(); // W_max 80, cwnd 56
    s.lose(); // cwnd 56 < W_max: W_max = 56 * 0.85 = 47, cwnd = 39
    assert_eq!(s.cwnd_segments(), 39.0);
}

/// Slow start from 10 segments to 160 (per-segment ACKs), then one loss and its recovery.
fn after_loss_at_160(name: &str, params: Value, rtt_ms: u64) -> FakeSender {
    let mut s = sender(name, params, rtt_ms);
    while s.cwnd_segments() < 160.0 {
        s.round_trip(1);
    }
    assert_eq!(s.cwnd_segments(), 160.0, "{name} slow start");
    s.lose();
    s.advance(rtt_ms * MS);
    while s.in_flight() > 0 {
        s.ack(1);
    }
    s
}

#[test]
fn bic_binary_search_closes_half_the_distance_to_w_max() {
    // Loss at 160: W_max 160, cwnd = 0.8 x 160 = 128. At the start dist = (160 - 128) / 4 = 8,
    // cnt = 128 / 8 = 16 acks per segment; cnt is recomputed per ACK as the distance shrinks
    // (dist 7 from cwnd 129: cnt 18, ...), so the round's 128 ACKs add 6, not 8.
    let mut s = after_loss_at_160("bic", json!({}), 100);
    assert_eq!(s.cwnd_segments(), 128.0);
    s.round_trip(1);
    assert_eq!(s.cwnd_segments(), 134.0);
}

#[test]
fn veno_cuts_to_four_fifths_on_an_empty_queue_and_half_on_a_full_one() {
    // RTT at its minimum: backlog 0 < 3: a loss is random, 160 x 4/5 = 128.
    let calm = after_loss_at_160("veno", json!({}), 100);
    assert_eq!(calm.cwnd_segments(), 128.0);
    // RTT 50% above its minimum: backlog = 160 x (1 - 100/150) = 53 segments: congestive, 80.
    let mut s = sender("veno", json!({}), 100);
    while s.cwnd_segments() < 160.0 {
        s.round_trip(1);
    }
    s.rtt = 150 * MS;
    s.ack(1); // slow start: 161 segments; the backlog is measured on ACKs that advance
    s.lose();
    assert_eq!(s.cwnd_segments(), 80.0);
}

#[test]
fn highspeed_keeps_more_than_half_above_low_window() {
    // b(160) = 0.5 - 0.4 (ln 160 - ln 38) / (ln 83000 - ln 38) = 0.4252: cwnd = floor(160 x 0.5748) = 91.
    let s = after_loss_at_160("highspeed", json!({}), 100);
    assert_eq!(s.cwnd_segments(), 91.0);
}

#[test]
fn vegas_adds_one_segment_per_rtt_while_nothing_queues() {
    let mut s = after_loss_at_160("vegas", json!({}), 100);
    let start = s.cwnd_segments();
    for _ in 0..5 {
        s.round_trip(1);
    }
    // diff = 0 < alpha every round: +1 per round (the first round after recovery only restarts
    // the bookkeeping), so 4 or 5 segments.
    let gained = s.cwnd_segments() - start;
    assert!((4.0..=5.0).contains(&gained), "gained {gained}");
}

#[test]
fn vegas_reno_fallback_freezes_when_not_cwnd_limited_as_linux_and_its_own_rule_does_not() {
    // cwnd 80 after the loss; ACKs of 50 segments (50 and 30 per round) leave 2 RTT samples
    // when a round closes, too few for Vegas (tcp_vegas.c: cntRTT <= 2), so Reno's rule runs
    // with the closing 50-segment ACK: 50 segments of credit per round, one segment per cwnd of
    // credit, so +5 in 10 rounds (81 at round 3, then 82, 83, 84, 85). Linux's
    // tcp_reno_cong_avoid does nothing while the flow is not cwnd-limited.
    let stretch_acked = |cwnd_limited: bool, params: Value| {
        let mut s = after_loss_at_160("vegas", params, 100);
        s.cwnd_limited = cwnd_limited;
        let start = s.cwnd_segments();
        for _ in 0..10 {
            s.round_trip(50);
        }
        s.cwnd_segments() - start
    };
    assert_eq!(stretch_acked(true, json!({})), 5.0);
    assert_eq!(stretch_acked(false, json!({})), 0.0);
    assert_eq!(stretch_acked(false, json!({"freeze_when_not_cwnd_limited": false})), 5.0);
    // With an ACK per segment Vegas's own rule runs; Linux applies it whether cwnd-limited or not:
    // diff = 0 < alpha, +1 per round after the first (which only restarts the bookkeeping).
    let mut s = after_loss_at_160("vegas", json!({}), 100);
    s.cwnd_limited = false;
    let start = s.cwnd_segments();
    for _ in 0..5 {
        s.round_trip(1);
    }
    let gained = s.cwnd_segments() - start;
    assert!((4.0..=5.0).contains(&gained), "gained {gained}");
}

#[test]
fn compound_outgrows_reno_while_the_rtt_stays_at_its_base() {
    let mut compound = after_loss_at_160("compound", json!({}), 100);
    let mut reno = after_loss_at_160("reno", json!({"freeze_when_not_cwnd_limited": false}), 100);
    // Loss split: win 160 -> cwnd 80 + dwnd 0 (no dwnd yet in slow start) = 80.
    assert_eq!(compound.cwnd_segments(), 80.0);
    for _ in 0..10 {
        compound.round_trip(1);
        reno.round_trip(1);
    }
    // Reno: +1 per RTT. Compound: dwnd += 0.125 win^0.75 - 1 per RTT (about 2.6 at 80).
    assert_eq!(reno.cwnd_segments(), 90.0);
    assert!(compound.cwnd_segments() > 100.0, "{}", compound.cwnd_segments());
}

#[test]
fn cwnd_clamp_stops_slow_start_and_avoidance_and_the_next_loss_starts_from_it() {
    // Linux snd_cwnd_clamp (ns-2's Agent/TCP/Linux sets it from window_): 30 segments.
    use tcplab_core::cc::ConnectionInfo;
    let info = |clamp| ConnectionInfo {
        mss: MSS,
        initial_window_segments: 10,
        initial_ssthresh_segments: None,
        cwnd_clamp_segments: clamp,
        seed: 1,
    };
    for name in ["reno", "newreno", "cubic", "bic"] {
        let params = if name == "cubic" { json!({"hystart": false}) } else { Value::Null };
        let mut s = FakeSender::with_info(name, &params, info(Some(30)), 100 * MS);
        s.round_trip(1); // 10 -> 20
        s.round_trip(1); // 20 -> 40, held at 30
        assert_eq!(s.cwnd_segments(), 30.0, "{name}: slow start stops at the clamp");
        for _ in 0..5 {
            s.round_trip(1);
        }
        assert_eq!(s.cwnd_segments(), 30.0, "{name}: no growth past the clamp");
        s.fill_window();
        s.lose();
        let after = s.ssthresh_segments();
        let expected = match name {
            "reno" | "newreno" => 15.0,
            "cubic" => 21.0, // floor(0.7 x 30)
            _ => 24.0,       // bic: floor(30 x 819 / 1024)
        };
        assert_eq!(after, expected, "{name}: the reduction starts from the clamped window");
    }
    // Without the clamp, the same ACKs grow cwnd past 30.
    let mut free = FakeSender::with_info("reno", &Value::Null, info(None), 100 * MS);
    free.round_trip(1);
    free.round_trip(1);
    assert_eq!(free.cwnd_segments(), 40.0);
}

#[test]
fn roccet_judges_a_standing_queue_by_the_first_rtt_it_saw() {
    // RTT_min is the smallest RTT sample, kept for the connection's life (the paper, Sec. IV;
    // docs/algorithms/roccet.md, "Two ROCCET flows against one"). Two flows on a 30 ms path meet
    // the same standing queue, an RTT of 116 ms: one whose first samples were 30 ms (it started
    // on an empty path), one whose first samples were 67 ms (it started into a queue).
    let on_the_queue = |first_rtt_ms: u64| {
        let mut s = sender("roccet", Value::Null, first_rtt_ms);
        for _ in 0..3 {
            s.round_trip(1); // LAUNCH: 10 -> 80 segments, srRTT 0
        }
        s.fill_window();
        s.lose(); // LAUNCH ends at its first loss (ssthresh = cwnd)
        s.round_trip(1); // recovery ends
        s.rtt = 116 * MS;
        let (start, mut events) = (s.now, 0);
        while s.now < start + 5 * SEC {
            s.round_trip(1);
            events += usize::from(s.cc.take_event() == Some("roccet_event"));
        }
        (events, s.cwnd_segments())
    };
    // 116 ms is 287% above 30 ms: srRTT passes its 100% bound and ORBITER cuts cwnd by 0.3 at
    // most of its checks (every 5 x 30 ms, after each 100 ms drain); CUBIC's regrowth between
    // cuts cannot lift it back to the window LAUNCH left with (80 segments).
    let (early_events, early_cwnd) = on_the_queue(30);
    assert!(early_events >= 15, "{early_events} ROCCET events in 5 s");
    assert!(early_cwnd < 20.0, "cwnd {early_cwnd}");
    // 116 ms is 73% above 67 ms: below the bound, never a ROCCET event, and CUBIC grows cwnd
    // (without limit here: the fake sender has no bottleneck).
    let (late_events, late_cwnd) = on_the_queue(67);
    assert_eq!(late_events, 0);
    assert!(late_cwnd > 80.0, "cwnd {late_cwnd}");
}
