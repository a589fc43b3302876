//! Benchmark: the 1 Gbit/s, 10-flow dumbbell (1-BDP drop-tail buffer, 10 ms bottleneck delay,
//! 1448-byte MSS) simulated for 10 s with NewReno and with CUBIC. Prints wall time, simulated
//! packets per wall second, events per second and peak memory (VmHWM of this process).
//!
//! Run: `cargo bench -p tcplab-core --bench dumbbell` (add `-- <algorithm> ...` to choose).
//! Target (issue 2): under 1 s of wall time per 10 simulated seconds, under 100 MB peak memory.

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
        if requested.is_empty() { vec!["newreno".into(), "cubic".into()] } else { requested };
    println!(
        "{:<10} {:>10} {:>12} {:>14} {:>14} {:>12} {:>10}",
        "algorithm", "sim s", "wall s", "packets/wall s", "events/wall s", "goodput Mb/s", "util %"
    );
    for algorithm in algorithms {
        let text = SCENARIO.replace("cc = \"newreno\"", &format!("cc = \"{algorithm}\""));
        let scenario = Scenario::from_toml(&text).expect("the benchmark scenario is valid");
        let started = Instant::now();
        let simulation = Simulation::new(&scenario).expect("the benchmark scenario builds");
        let results = simulation.run();
        let wall = started.elapsed().as_secs_f64();
        let summary = &results.summary;
        let utilization = results.links.f64("utilization")[0] * 100.0;
        println!(
            "{:<10} {:>10.1} {:>12.3} {:>14.0} {:>14.0} {:>12.1} {:>10.1}",
            algorithm,
            summary.simulated_seconds,
            wall,
            summary.packets_transmitted as f64 / wall,
            summary.events as f64 / wall,
            summary.total_goodput_bps / 1e6,
            utilization
        );
    }
    match peak_memory_mb() {
        Some(mb) => println!("peak memory (VmHWM): {mb:.1} MB"),
        None => println!("peak memory: not available on this platform"),
    }
}
