//! Every registered algorithm driven through event sequences the fuzzer chooses (the property
//! test's operations: sends, ACKs over jumping RTTs, losses, ECN marks, timeouts, idle periods):
//! the first byte picks the algorithm, the rest the events. A broken invariant (cwnd below one
//! segment, ssthresh below two, a zero pacing rate, ...) or a panic is a finding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tcplab_core::cc::{self, properties};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, events)) = data.split_first() else { return };
    let names = cc::names();
    let name = names[pick as usize % names.len()];
    let mut choices = properties::FromBytes(events);
    if let Err(broken) = properties::exercise_with(name, &serde_json::Value::Null, &mut choices, 10_000) {
        panic!("{broken}");
    }
});
