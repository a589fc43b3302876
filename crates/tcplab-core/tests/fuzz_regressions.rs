//! Inputs the fuzzers (fuzz/, cargo-fuzz) once broke tcplab with, replayed on every test run.
//! Each file under `fuzz_regressions/<target>/` is an input exactly as the fuzzer saved it; drop a
//! new crash there and it is a regression test.

use std::path::Path;

use tcplab_core::cc::{self, properties};
use tcplab_core::Scenario;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions").join(target);
    // A target without findings yet has no folder (git keeps no empty folders).
    let Ok(entries) = std::fs::read_dir(&folder) else { return Vec::new() };
    let mut files: Vec<_> = entries.map(|entry| entry.expect("a readable entry").path()).collect();
    files.sort();
    files.iter().map(|p| (p.display().to_string(), std::fs::read(p).expect("a readable input"))).collect()
}

#[test]
fn algorithm_inputs_keep_every_invariant() {
    // As fuzz/fuzz_targets/algorithms.rs: the first byte picks the algorithm, the rest the events.
    let names = cc::names();
    for (file, data) in inputs("algorithms") {
        let (&pick, events) = data.split_first().expect("a non-empty input");
        let name = names[pick as usize % names.len()];
        let result =
            properties::exercise_with(name, &serde_json::Value::Null, &mut properties::FromBytes(events), 10_000);
        assert!(result.is_ok(), "{file} ({name}): {result:?}");
    }
}

#[test]
fn scenario_inputs_are_answered() {
    // As fuzz/fuzz_targets/scenario.rs: a value or an error, and a valid scenario round-trips.
    for (file, data) in inputs("scenario") {
        let Ok(text) = std::str::from_utf8(&data) else { continue };
        for scenario in [Scenario::from_toml(text), Scenario::from_json(text)].into_iter().flatten() {
            let resolved = scenario.resolved().to_toml();
            let again = Scenario::from_toml(&resolved).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(again.resolved().to_toml(), resolved, "{file}");
        }
    }
}
