//! Every registered algorithm, driven through random sequences of sends, ACKs, losses, ECN marks,
//! timeouts and idle periods: it must never panic (overflow checks are on in tests), never report
//! cwnd below one segment or ssthresh below two, and never report absurd windows.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::{json, Value};
use tcplab_core::cc::harness::FakeSender;
use tcplab_core::cc::registry;
use tcplab_core::time::{NANOS_PER_MICRO, NANOS_PER_MILLI, NANOS_PER_SEC};

const MSS: u64 = 1448;
/// Twice the largest window an algorithm may hold (2^32 segments, Linux's u32 cwnd).
const ABSURD_WINDOW: u64 = (1 << 33) * MSS;

fn draw(rng: &mut Xoshiro256PlusPlus, below: u64) -> u64 {
    rng.next_u64() % below
}

fn check(sender: &FakeSender, name: &str, step: usize) {
    let cwnd = sender.cc.cwnd();
    let ssthresh = sender.cc.ssthresh();
    assert!(cwnd >= MSS, "{name} step {step}: cwnd {cwnd} below one segment");
    assert!(cwnd < ABSURD_WINDOW, "{name} step {step}: cwnd {cwnd} absurd");
    assert!(ssthresh >= 2 * MSS, "{name} step {step}: ssthresh {ssthresh} below two segments");
    if let Some(rate) = sender.cc.pacing_rate() {
        assert!(rate > 0, "{name} step {step}: zero pacing rate");
    }
    assert!(!sender.cc.state_name().is_empty());
}

fn exercise(name: &str, params: &Value, seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let initial_window = 1 + draw(&mut rng, 20) as u32;
    let mut sender = FakeSender::new(name, params, MSS, initial_window, 50 * NANOS_PER_MILLI);
    check(&sender, name, 0);
    for step in 1..=3000 {
        match draw(&mut rng, 100) {
            0..=29 => {
                sender.fill_window();
            }
            30..=69 => {
                // RTTs from 10 us to 3 s, occasionally jumping.
                if draw(&mut rng, 10) == 0 {
                    sender.rtt = NANOS_PER_MICRO * 10 + draw(&mut rng, 3 * NANOS_PER_SEC);
                }
                sender.advance(draw(&mut rng, sender.rtt + 1));
                sender.ack(1 + draw(&mut rng, 8));
            }
            // A round trip in at most about 64 ACKs, however large the window has grown.
            70..=79 => sender.round_trip(1 + draw(&mut rng, 3) + sender.in_flight() / MSS / 64),
            80..=85 => sender.lose(),
            86..=89 => sender.ecn_echo(),
            90..=92 => sender.timeout(),
            93..=96 => sender.advance(draw(&mut rng, 10 * NANOS_PER_SEC)),
            _ => sender.cwnd_limited = !sender.cwnd_limited,
        }
        check(&sender, name, step);
    }
}

#[test]
fn every_algorithm_survives_random_event_sequences() {
    for algorithm in registry() {
        for seed in 0..12 {
            exercise(algorithm.name, &Value::Null, seed * 7919 + 1);
        }
    }
}

#[test]
fn non_default_parameters_survive_too() {
    let variants: &[(&str, Value)] = &[
        (
            "cubic",
            json!({"hystart": false, "fast_convergence": false, "tcp_friendliness": false, "c": 10.0, "beta": 0.1}),
        ),
        ("reno", json!({"freeze_when_not_cwnd_limited": false})),
        ("newreno", json!({"abc_limit": 2})),
        ("bic", json!({"b": 2, "max_increment": 1, "low_window": 2, "smooth_part": 1})),
        ("highspeed", json!({"low_window": 2, "high_window": 100})),
        ("hybla", json!({"rtt0": "1ms"})),
        ("scalable", json!({"ai_count": 1, "md_shift": 1})),
        ("vegas", json!({"alpha": 0, "beta": 1, "gamma": 0})),
        ("veno", json!({"beta": 1})),
        ("westwood", json!({"min_sample_window": "1ms"})),
        ("compound", json!({"alpha": 1.0, "k": 1.0, "gamma": 0.0, "gamma_auto_tuning": true, "low_window_rule": true})),
        ("compound", json!({"alpha": 1.0, "k": 1.0, "gamma": 10_000.0, "zeta": 0.0})),
    ];
    for (name, params) in variants {
        for seed in 0..6 {
            exercise(name, params, seed * 104_729 + 3);
        }
    }
}
