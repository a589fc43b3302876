//! Random event sequences every algorithm must survive: sends, ACKs over jumping RTTs, losses, ECN
//! marks, timeouts, idle periods and cwnd-limited switches, driven through the fake sender. After
//! each step the algorithm must report cwnd of at least one segment and below an absurd size,
//! ssthresh of at least two segments, a positive pacing rate if any, a state name, and no failure.
//! The Rust property test runs it over the registry; the Python binding runs it over algorithms
//! written in Python.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::Value;

use super::harness::FakeSender;
use crate::cc;
use crate::time::{NANOS_PER_MICRO, NANOS_PER_MILLI, NANOS_PER_SEC};

const MSS: u64 = 1448;
/// Twice the largest window an algorithm may hold (2^32 segments, Linux's u32 cwnd).
const ABSURD_WINDOW: u64 = (1 << 33) * MSS;

fn draw(rng: &mut Xoshiro256PlusPlus, below: u64) -> u64 {
    rng.next_u64() % below
}

fn check(sender: &FakeSender, name: &str, step: usize) -> Result<(), String> {
    let cc = &sender.cc;
    let (cwnd, ssthresh) = (cc.cwnd(), cc.ssthresh());
    let fail = |what: String| Err(format!("{name} step {step}: {what}"));
    if let Some(why) = cc.failure() {
        return fail(format!("failed: {why}"));
    }
    if cwnd < MSS {
        return fail(format!("cwnd {cwnd} below one segment"));
    }
    if cwnd >= ABSURD_WINDOW {
        return fail(format!("cwnd {cwnd} absurd"));
    }
    if ssthresh < 2 * MSS {
        return fail(format!("ssthresh {ssthresh} below two segments"));
    }
    if cc.pacing_rate() == Some(0) {
        return fail("zero pacing rate".to_string());
    }
    if cc.state_name().is_empty() {
        return fail("empty state name".to_string());
    }
    Ok(())
}

/// Runs `steps` random events (chosen by `seed`) through algorithm `name`; the first broken
/// invariant is the error.
pub fn exercise(name: &str, params: &Value, seed: u64, steps: usize) -> Result<(), String> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let initial_window = 1 + draw(&mut rng, 20) as u32;
    // An algorithm that cannot be created is an error here, not the fake sender's panic.
    let info = cc::ConnectionInfo { mss: MSS, initial_window_segments: initial_window, seed: 1 };
    cc::create(name, params, info).map(drop)?;
    let mut sender = FakeSender::new(name, params, MSS, initial_window, 50 * NANOS_PER_MILLI);
    check(&sender, name, 0)?;
    for step in 1..=steps {
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
        check(&sender, name, step)?;
    }
    Ok(())
}
