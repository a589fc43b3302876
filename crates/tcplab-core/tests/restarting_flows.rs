//! Closed loops of finite transfers (`restart = true`): each transfer on a new connection, the
//! next one a think time after the receiver has the last byte, and nothing of an old connection
//! leaking into a new one.

use tcplab_core::{Results, Scenario, Simulation};

fn run(text: &str) -> Results {
    let scenario = Scenario::from_toml(text).unwrap_or_else(|e| panic!("test scenario is invalid: {e}"));
    Simulation::new(&scenario).expect("test scenario builds").run()
}

/// Per flow, (start, completion) times of its transfers in seconds; the last may be unfinished.
fn transfers(results: &Results, flow: u64) -> Vec<(f64, Option<f64>)> {
    let events = &results.events;
    let mut list: Vec<(f64, Option<f64>)> = Vec::new();
    for ((&time, &id), event) in events.f64("time_s").iter().zip(events.u64("flow_id")).zip(events.text("event")) {
        if id != flow {
            continue;
        }
        match event {
            "transfer_start" => list.push((time, None)),
            "transfer_complete" => {
                let last = list.last_mut().expect("a completion follows a start");
                assert!(last.1.is_none(), "two completions for one transfer");
                last.1 = Some(time);
            }
            _ => {}
        }
    }
    list
}

const LOSSY_DUMBBELL: &str = r#"
    [simulation]
    duration = "20s"
    [topology]
    kind = "dumbbell"
    access = { rate = "100Mbps", delay = "5ms" }
    bottleneck = { rate = "2Mbps", delay = "20ms", buffer = "10p", forward = { loss = { model = "bernoulli", p = 0.03 } } }
    [[flows]]
    cc = "newreno"
    count = 3
    size = "20000B"
    restart = true
    think_time = "100ms"
"#;

#[test]
fn each_transfer_is_delivered_whole_and_the_next_starts_a_think_time_later() {
    let results = run(LOSSY_DUMBBELL);
    let delivered = results.flows.u64("bytes_delivered");
    for flow in 0..3u64 {
        let list = transfers(&results, flow);
        let done = list.iter().filter(|t| t.1.is_some()).count() as u64;
        assert!(done >= 20, "flow {flow}: only {done} transfers in 20 s");
        // Every completed transfer delivered exactly its 20,000 bytes; the unfinished one less.
        let bytes = delivered[flow as usize];
        assert!(
            bytes >= done * 20_000 && bytes < (done + 1) * 20_000,
            "flow {flow}: {bytes} bytes for {done} transfers"
        );
        for pair in list.windows(2) {
            let (finished, next_start) = (pair[0].1.expect("only the last may be unfinished"), pair[1].0);
            assert!((next_start - finished - 0.1).abs() < 1e-9, "think time: {finished} -> {next_start}");
        }
    }
    // Per-flow completion times are for single transfers: a restarting flow has none.
    assert!(results.flows.f64("completion_time_s").iter().all(|t| t.is_nan()));
}

#[test]
fn a_new_connection_starts_afresh_and_old_packets_do_not_reach_it() {
    // With 3% loss, retransmissions and ACKs of a finished connection are still on the wire when
    // the next one starts; if its data reached the new receiver, a transfer would complete
    // sooner than a fresh connection can send it: 20,000 bytes are 14 segments; from an initial
    // window of 10 the last 4 leave after one round trip (60 ms), take 24 ms to serialise at
    // 2 Mbit/s and 30 ms to arrive.
    // Without a think time the old connection's last ACKs are on their way back when the new
    // connection starts.
    let scenario = Scenario::from_toml(&LOSSY_DUMBBELL.replace("100ms", "0s")).expect("valid");
    let mut simulation = Simulation::new(&scenario).expect("builds");
    simulation.run_until(simulation.end_time());
    assert!(simulation.stale_packets() > 0, "the test needs packets that outlive their connection");
    let results = simulation.run();
    for flow in 0..3u64 {
        for (start, end) in transfers(&results, flow) {
            let Some(end) = end else { continue };
            assert!(end - start >= 0.114 - 1e-9, "flow {flow}: a transfer took {} s", end - start);
        }
    }
}

#[test]
fn restart_needs_a_size_and_think_time_needs_restart() {
    let base = "[simulation]\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = { rate = \"1Mbps\", delay = \"1ms\" }\n[[flows]]\ncc = \"reno\"\n";
    let error = Scenario::from_toml(&format!("{base}restart = true\n")).expect_err("no size");
    assert!(error.to_string().contains("flows.0.restart"), "{error}");
    let error = Scenario::from_toml(&format!("{base}think_time = \"1s\"\n")).expect_err("no restart");
    assert!(error.to_string().contains("flows.0.think_time"), "{error}");
}
