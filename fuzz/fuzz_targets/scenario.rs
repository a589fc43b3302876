//! Any text, as TOML and as JSON: parsing, validation (with its resource estimates), warnings and
//! the resolved scenario must answer with a value or a ScenarioError, never panic, and a scenario
//! that validates must round-trip through its resolved TOML.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tcplab_core::Scenario;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for parsed in [Scenario::from_toml(text), Scenario::from_json(text)] {
        let Ok(scenario) = parsed else { continue };
        let _ = scenario.warnings();
        let resolved = scenario.resolved().to_toml();
        let again = Scenario::from_toml(&resolved).expect("a resolved scenario parses again");
        assert_eq!(again.resolved().to_toml(), resolved, "the resolved scenario round-trips");
    }
});
