//! tcplab-core: a fast, deterministic packet-level simulator for TCP congestion control.
//!
//! Layers: `time` and `units` (integer nanoseconds, bits per second, bytes), `sim` (event queue,
//! RNG streams), `net` (packets, queues, channels, routing), `tcp` (sender and receiver), `cc`
//! (the algorithm trait and the algorithms), `scenario` (the TOML model), `simulation` (the event
//! loop that ties them together) and `results` (columnar output).

pub mod cc;
pub mod net;
pub mod results;
pub mod scenario;
pub mod sim;
pub mod simulation;
pub mod tcp;
pub mod time;
pub mod units;

pub use results::Results;
pub use scenario::{Scenario, ScenarioError};
pub use simulation::Simulation;

/// Parses, validates and runs a TOML scenario to completion.
pub fn run_toml(text: &str) -> Result<Results, ScenarioError> {
    let scenario = Scenario::from_toml(text)?;
    Ok(Simulation::new(&scenario)?.run())
}
