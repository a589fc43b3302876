//! Benchmark: the 1 Gbit/s, 10-flow dumbbell (1-BDP drop-tail buffer, 10 ms bottleneck delay,
//! 1448-byte MSS) simulated for 10 s with every registered algorithm. Prints wall time, wall time
//! per simulated second, the ratio to NewReno, simulated packets per wall second, events per
//! second and peak memory (VmHWM of this process), and the simulated event and packet counts, which
//! a change that must not alter behaviour (a refactor) leaves exactly as they were.
//!
//! Run: `cargo bench -p tcplab-core --bench dumbbell` (add `-- <algorithm> ...` to choose).
//! Targets: under 1 s of wall time per 10 simulated seconds and under 100 MB peak memory
//! (NewReno and CUBIC); no algorithm more than 2x slower than NewReno.

use std::time::Instant;

use tcplab_core::{Scenario, Simulation};

const SCENARIO: &str = include_str!("../scenarios/dumbbell-1g-10flows.toml");

fn peak_memory_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn main() {
    let requested: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let algorithms: Vec<String> =
        if requested.is_empty() { tcplab_core::cc::names().into_iter().map(String::from).collect() } else { requested };
    println!(
        "{:<10} {:>8} {:>9} {:>12} {:>11} {:>15} {:>14} {:>17} {:>7} {:>10} {:>10}",
        "algorithm",
        "sim s",
        "wall s",
        "wall/sim s",
        "x newreno",
        "packets/wall s",
        "events/wall s",
        "goodput Mb/s",
        "util %",
        "events",
        "packets"
    );
    let mut newreno_wall_per_sim: Option<f64> = None;
    for algorithm in algorithms {
        let text = SCENARIO.replace("cc = \"newreno\"", &format!("cc = \"{algorithm}\""));
        let scenario = Scenario::from_toml(&text).expect("the benchmark scenario is valid");
        let started = Instant::now();
        let simulation = Simulation::new(&scenario).expect("the benchmark scenario builds");
        let results = simulation.run();
        let wall = started.elapsed().as_secs_f64();
        let summary = &results.summary;
        let utilization = results.links.f64("utilization")[0] * 100.0;
        let wall_per_sim = wall / summary.simulated_seconds;
        if algorithm == "newreno" {
            newreno_wall_per_sim = Some(wall_per_sim);
        }
        let ratio = newreno_wall_per_sim.map_or("-".to_string(), |n| format!("{:.2}", wall_per_sim / n));
        println!(
            "{:<10} {:>8.1} {:>9.3} {:>12.4} {:>11} {:>15.0} {:>14.0} {:>17.6} {:>7.1} {:>10} {:>10}",
            algorithm,
            summary.simulated_seconds,
            wall,
            wall_per_sim,
            ratio,
            summary.packets_transmitted as f64 / wall,
            summary.events as f64 / wall,
            summary.total_goodput_bps / 1e6,
            utilization,
            summary.events,
            summary.packets_transmitted
        );
    }
    match peak_memory_mb() {
        Some(mb) => println!("peak memory (VmHWM): {mb:.1} MB"),
        None => println!("peak memory: not available on this platform"),
    }
}
