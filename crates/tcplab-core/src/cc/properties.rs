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

/// Where the events' choices come from: a seeded generator (the property tests) or a fuzzer's
/// bytes. `None` ends the sequence.
pub trait Choices {
    fn below(&mut self, bound: u64) -> Option<u64>;
}

struct Seeded(Xoshiro256PlusPlus);

impl Choices for Seeded {
    fn below(&mut self, bound: u64) -> Option<u64> {
        Some(self.0.next_u64() % bound)
    }
}

/// Choices read from bytes, eight at a time (fewer at the end), until they run out: a fuzzer
/// steers the sequence by editing the bytes.
pub struct FromBytes<'a>(pub &'a [u8]);

impl Choices for FromBytes<'_> {
    fn below(&mut self, bound: u64) -> Option<u64> {
        if self.0.is_empty() {
            return None;
        }
        let (head, rest) = self.0.split_at(self.0.len().min(8));
        self.0 = rest;
        let value = head.iter().rev().fold(0u64, |acc, &b| (acc << 8) | b as u64);
        Some(value % bound)
    }
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
    exercise_with(name, params, &mut Seeded(Xoshiro256PlusPlus::seed_from_u64(seed)), steps)
}

/// Runs up to `steps` events chosen by `choices` through algorithm `name` (fewer if the choices
/// run out); the first broken invariant is the error.
pub fn exercise_with(name: &str, params: &Value, choices: &mut dyn Choices, steps: usize) -> Result<(), String> {
    let Some(initial_window) = choices.below(20).map(|w| 1 + w as u32) else { return Ok(()) };
    // An algorithm that cannot be created is an error here, not the fake sender's panic.
    let info = cc::ConnectionInfo::new(MSS, initial_window, 1);
    cc::create(name, params, info).map(drop)?;
    let mut sender = FakeSender::new(name, params, MSS, initial_window, 50 * NANOS_PER_MILLI);
    check(&sender, name, 0)?;
    for step in 1..=steps {
        let Some(event) = choices.below(100) else { break };
        if play(&mut sender, event, choices).is_none() {
            break;
        }
        check(&sender, name, step)?;
    }
    Ok(())
}

/// One event, chosen by `event` (0 to 99); `None` when the choices ran out mid-event.
fn play(sender: &mut FakeSender, event: u64, choices: &mut dyn Choices) -> Option<()> {
    match event {
        0..=29 => {
            sender.fill_window();
        }
        30..=69 => {
            // RTTs from 10 us to 3 s, occasionally jumping.
            if choices.below(10)? == 0 {
                sender.rtt = NANOS_PER_MICRO * 10 + choices.below(3 * NANOS_PER_SEC)?;
            }
            sender.advance(choices.below(sender.rtt + 1)?);
            sender.ack(1 + choices.below(8)?);
        }
        // A round trip in at most about 64 ACKs, however large the window has grown.
        70..=79 => sender.round_trip(1 + choices.below(3)? + sender.in_flight() / MSS / 64),
        80..=85 => sender.lose(),
        86..=89 => sender.ecn_echo(),
        90..=92 => sender.timeout(),
        93..=96 => sender.advance(choices.below(10 * NANOS_PER_SEC)?),
        _ => sender.cwnd_limited = !sender.cwnd_limited,
    }
    Some(())
}
