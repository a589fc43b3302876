//! tcplab-core: a fast, deterministic packet-level simulator for TCP congestion control.
//!
//! Layers, each using only the ones before it (docs/architecture.md): `time` and `units` (integer
//! nanoseconds, bits per second, bytes), `sim` (event queue, RNG streams), `net` (packets, queues,
//! channels, routing), `cc` (the algorithm trait and the algorithms), `tcp` (sender and receiver),
//! `traffic` (application sources), `results` (the output tables' shape), `metrics` (samples and
//! tables from the counters), `scenario` (the TOML model, its validation and defaults) and
//! `simulation` (the build of a network from a scenario, and the event loop that ties them
//! together).

pub mod capture;
pub mod cc;
pub mod histogram;
pub mod metrics;
pub mod net;
pub mod prefetch;
pub mod results;
pub mod scenario;
pub mod sim;
pub mod simulation;
pub mod slack;
pub mod tcp;
pub mod time;
pub mod traffic;
pub mod units;

pub use results::Results;
pub use scenario::{Scenario, ScenarioError};
pub use simulation::Simulation;

/// Parses, validates and runs a TOML scenario to completion.
pub fn run_toml(text: &str) -> Result<Results, ScenarioError> {
    let scenario = Scenario::from_toml(text)?;
    Ok(Simulation::new(&scenario)?.run())
}
