//! Whole scenarios with invariants and published behaviour: reliable in-order delivery under loss
//! and reordering, queue conservation, utilization, the Mathis et al. throughput model, timeouts,
//! determinism, ECN, and the traffic and loss models.

use tcplab_core::results::Table;
use tcplab_core::{Results, Scenario, Simulation};

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml(text).unwrap_or_else(|e| panic!("test scenario is invalid: {e}"))
}

fn run(text: &str) -> Results {
    Simulation::new(&scenario(text)).expect("test scenario builds").run()
}

fn row(table: &Table, key: &str, value: &str) -> usize {
    table.text(key).iter().position(|&v| v == value).unwrap_or_else(|| panic!("no row with {key} = {value}"))
}

/// Row of the forward direction of a named link.
fn forward(results: &Results, link: &str) -> usize {
    let links = &results.links;
    (0..links.rows())
        .find(|&i| links.text("link")[i] == link && links.text("direction")[i] == "forward")
        .unwrap_or_else(|| panic!("no link {link}"))
}

#[test]
fn every_byte_arrives_once_and_in_order_under_loss_and_reordering() {
    // Random loss both ways, and jitter that reorders data packets; finite transfers with each
    // recovery mode and algorithm must all complete, delivering exactly their size.
    let results = run(r#"
        [simulation]
        duration = "120s"
        seed = 7
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "10Mbps", delay = "15ms", buffer = "50p", forward = { loss = { model = "bernoulli", p = 0.02 }, jitter = { distribution = "uniform", max = "4ms", reorder = true } }, reverse = { loss = { model = "bernoulli", p = 0.01 } } }
        [[flows]]
        cc = "cubic"
        size = "2MB"
        [[flows]]
        cc = "reno"
        size = "1MB"
        tcp = { recovery = "newreno" }
        [[flows]]
        cc = "newreno"
        size = "1.5MB"
        tcp = { recovery = "newreno", delayed_ack = false }
        [[flows]]
        cc = "cubic"
        size = "777777B"
        tcp = { limited_transmit = false }
    "#);
    let flows = &results.flows;
    let sizes = [2_000_000u64, 1_000_000, 1_500_000, 777_777];
    for (i, size) in sizes.iter().enumerate() {
        assert_eq!(flows.u64("bytes_delivered")[i], *size, "flow {i} delivered exactly its size");
        assert!(flows.f64("completion_time_s")[i].is_finite(), "flow {i} completed");
        assert!(flows.u64("retransmitted_segments")[i] > 0, "flow {i} saw losses");
    }
    // Reordering produced out-of-order arrivals that were repaired without double delivery.
    assert!(flows.u64("duplicate_bytes").iter().sum::<u64>() > 0);
}

#[test]
fn queues_conserve_packets() {
    let mut simulation = Simulation::new(&scenario(r#"
        [simulation]
        duration = "10s"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "20Mbps", delay = "10ms", buffer = "30p", forward = { loss = { model = "bernoulli", p = 0.001 } } }
        [[flows]]
        cc = "cubic"
        count = 4
        [[flows]]
        protocol = "udp"
        rate = "5Mbps"
    "#)).unwrap();
    // Stop in the middle of the action so queues and wires are not empty.
    simulation.run_until(7_345_678_901);
    let results = simulation.results();
    let links = &results.links;
    let mut queued_total = 0;
    let mut on_wires = 0;
    for i in 0..links.rows() {
        let offered = links.u64("offered_packets")[i];
        let transmitted = links.u64("transmitted_packets")[i];
        let dropped = links.u64("queue_drops")[i] + links.u64("aqm_drops")[i];
        let queued = links.u64("queued_packets")[i];
        assert_eq!(offered, transmitted + dropped + queued, "link row {i}: offered = sent + dropped + queued");
        let delivered = links.u64("delivered_packets")[i];
        let lost = links.u64("wire_losses")[i];
        assert!(transmitted >= delivered + lost);
        on_wires += transmitted - delivered - lost;
        queued_total += queued;
    }
    let bottleneck = forward(&results, "bottleneck");
    assert!(links.u64("queue_drops")[bottleneck] > 0, "the test must exercise drops");
    // Every live packet is in a queue or on a wire: nothing leaks, nothing is counted twice.
    assert_eq!(simulation.live_packets() as u64, queued_total + on_wires);
}

#[test]
fn the_results_taken_at_the_end_are_those_read_before_the_run_state_is_freed() {
    // `take_results` frees the packets, pending events and scoreboards of a finished run before
    // it builds the tables; what it reports must be what `results` reads with them still there.
    let mut simulation = Simulation::new(&scenario(r#"
        [simulation]
        duration = "3s"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "20Mbps", delay = "10ms", buffer = "20p", forward = { loss = { model = "bernoulli", p = 0.002 } } }
        [[flows]]
        cc = "cubic"
        count = 3
        [[flows]]
        protocol = "udp"
        rate = "4Mbps"
    "#)).unwrap();
    simulation.run_until(u64::MAX);
    assert!(simulation.is_finished());
    assert!(simulation.live_packets() > 0, "the test must end with packets still in the network");
    let read = simulation.results();
    let taken = simulation.take_results();
    assert_eq!(format!("{:?}", taken.summary), format!("{:?}", read.summary));
    for (name, taken, read) in [
        ("flows", &taken.flows, &read.flows),
        ("links", &taken.links, &read.links),
        ("events", &taken.events, &read.events),
        ("flow_series", &taken.flow_series, &read.flow_series),
        ("queue_series", &taken.queue_series, &read.queue_series),
    ] {
        assert_eq!(format!("{taken:?}"), format!("{read:?}"), "{name} differ");
    }
    assert_eq!(simulation.live_packets(), 0, "the packets' room was given back");
}

#[test]
fn single_reno_flow_fills_the_link_with_a_one_bdp_buffer() {
    let results = run(r#"
        [simulation]
        duration = "60s"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "20Mbps", delay = "20ms", buffer = "1BDP" }
        access = { rate = "1Gbps", delay = "2ms", buffer = "1000p" }
        [[flows]]
        cc = "reno"
    "#);
    let utilization = results.links.f64("utilization")[forward(&results, "bottleneck")];
    assert!(utilization >= 0.90, "utilization {utilization}");
}

/// Reno goodput under random loss against MSS/RTT * sqrt(3/2) / sqrt(p) (Mathis et al. 1997),
/// on a fast path with a large buffer so that the random losses are the only congestion signal.
fn mathis_ratio(p: f64) -> f64 {
    let text = format!(
        r#"
        [simulation]
        duration = "300s"
        seed = 3
        [topology]
        kind = "dumbbell"
        bottleneck = {{ rate = "100Mbps", delay = "48ms", buffer = "10BDP", forward = {{ loss = {{ model = "bernoulli", p = {p} }} }} }}
        access = {{ rate = "1Gbps", delay = "1ms", buffer = "10000p" }}
        [tcp]
        delayed_ack = false
        [[flows]]
        cc = "reno"
    "#
    );
    let results = run(&text);
    let flows = &results.flows;
    // The model's RTT is the one the flow experienced.
    let rtt = flows.f64("rtt_mean_ms")[0] / 1000.0;
    let model = 1448.0 * 8.0 / rtt * (1.5f64).sqrt() / p.sqrt();
    flows.f64("goodput_bps")[0] / model
}

#[test]
fn reno_goodput_follows_the_mathis_model_at_one_in_a_thousand_loss() {
    let ratio = mathis_ratio(0.001);
    assert!((0.75..=1.25).contains(&ratio), "goodput / Mathis = {ratio}");
}

#[test]
fn reno_goodput_follows_the_mathis_model_at_one_percent_loss() {
    let ratio = mathis_ratio(0.01);
    assert!((0.75..=1.25).contains(&ratio), "goodput / Mathis = {ratio}");
}

#[test]
fn a_loss_burst_with_a_one_second_min_rto_times_out_and_recovers() {
    let results = run(r#"
        [simulation]
        duration = "20s"
        sample_interval = "500ms"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "10Mbps", delay = "20ms", buffer = "1BDP", forward = { outages = [{ at = "5s", duration = "400ms" }] } }
        [tcp]
        min_rto = "1s"
        [[flows]]
        cc = "newreno"
    "#);
    let flows = &results.flows;
    assert!(flows.u64("timeouts")[0] >= 1, "the burst wiped out a window: only the timer can recover");
    // After the outage and the 1 s timer the flow is back near the link rate.
    let series = &results.flow_series;
    let late: Vec<f64> = (0..series.rows())
        .filter(|&i| series.f64("time_s")[i] >= 12.0)
        .map(|i| series.f64("throughput_bps")[i])
        .collect();
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    assert!(mean > 8e6, "goodput after recovery {mean} bit/s");
    // The sample at 6.0 s covers (5.5 s, 6.0 s]: data sent before the burst has arrived by then,
    // and the 1 s timer armed by the last ACK (just after 5 s) has not fired yet.
    let waiting = (0..series.rows()).find(|&i| (series.f64("time_s")[i] - 6.0).abs() < 1e-9).expect("a sample at 6 s");
    assert_eq!(series.f64("throughput_bps")[waiting], 0.0, "the flow waited for its timer");
}

const RANDOM: &str = r#"
    [simulation]
    duration = "8s"
    seed = SEED
    [topology]
    kind = "dumbbell"
    bottleneck = { rate = "30Mbps", delay = "10ms", buffer = "1BDP", forward = { loss = { model = "gilbert_elliott", p_good_to_bad = 0.001, p_bad_to_good = 0.3 }, jitter = { distribution = "normal", mean = "1ms", std = "0.5ms" } } }
    [[flows]]
    cc = "cubic"
    count = 3
    start_spread = "1s"
    [[flows]]
    cc = "newreno"
    on_time = "1s"
    off_time = "500ms"
    on_off_distribution = "exponential"
"#;

#[test]
fn the_same_seed_gives_identical_results_and_another_seed_does_not() {
    let a = run(&RANDOM.replace("SEED", "11"));
    let b = run(&RANDOM.replace("SEED", "11"));
    let c = run(&RANDOM.replace("SEED", "12"));
    for (x, y) in [
        (&a.flows, &b.flows),
        (&a.links, &b.links),
        (&a.flow_series, &b.flow_series),
        (&a.queue_series, &b.queue_series),
    ] {
        assert!(identical(x, y), "same seed, different results:\n{x:?}\n{y:?}");
    }
    assert!(!identical(&a.flows, &c.flows));
}

#[test]
fn time_series_left_out_change_no_other_result() {
    let kept = |series: &str| RANDOM.replace("SEED", "11").replace("[simulation]", &format!("[simulation]\n{series}"));
    let both = run(&kept(""));
    assert!(both.flow_series.rows() > 0 && both.queue_series.rows() > 0);
    for (series, flow_rows, queue_rows) in [
        ("time_series = []", 0, 0),
        ("time_series = [\"flows\"]", both.flow_series.rows(), 0),
        ("time_series = [\"queues\"]", 0, both.queue_series.rows()),
    ] {
        let other = run(&kept(series));
        assert_eq!((other.flow_series.rows(), other.queue_series.rows()), (flow_rows, queue_rows), "{series}");
        assert!(identical(&both.flows, &other.flows), "{series}: flows differ");
        assert!(identical(&both.links, &other.links), "{series}: links differ");
        assert_eq!(both.summary.events, other.summary.events, "{series}");
        assert_eq!(both.summary.packets_transmitted, other.summary.packets_transmitted, "{series}");
    }
    assert!(identical(&both.flow_series, &run(&kept("time_series = [\"flows\"]")).flow_series));
    assert!(identical(&both.queue_series, &run(&kept("time_series = [\"queues\"]")).queue_series));
}

#[test]
fn the_shipped_100000_flow_scenario_is_within_the_default_memory_estimate_only_without_queue_series() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/scale-100k-flows.toml");
    let text = std::fs::read_to_string(path).expect("scenarios/scale-100k-flows.toml");
    let shipped = scenario(&text);
    assert_eq!(shipped.flows[0].count, 100_000);
    // Its 400,004 link directions' rows at every sample are what would not fit in 2 GB.
    let all_series = text.replace("time_series = [\"flows\"]", "time_series = [\"flows\", \"queues\"]");
    assert_ne!(all_series, text);
    let err = Scenario::from_toml(&all_series.replace("\"100ms\"", "\"10ms\"")).expect_err("over the estimate");
    assert_eq!(err.key, "simulation.sample_interval", "{err}");
}

/// Tables equal bit for bit (NaN equals NaN here, unlike with `==`).
fn identical(a: &Table, b: &Table) -> bool {
    use tcplab_core::results::Column;
    a.columns.len() == b.columns.len()
        && a.columns.iter().zip(&b.columns).all(|((na, ca), (nb, cb))| {
            na == nb
                && match (ca, cb) {
                    (Column::F64(x), Column::F64(y)) => {
                        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
                    }
                    _ => ca == cb,
                }
        })
}

#[test]
fn ecn_marks_replace_drops_and_the_sender_reacts() {
    let results = run(r#"
        [simulation]
        duration = "10s"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "20Mbps", delay = "10ms", buffer = "500p", queue = { kind = "step", threshold = "20p" } }
        [tcp]
        ecn = true
        [[flows]]
        cc = "cubic"
        count = 2
    "#);
    let b = forward(&results, "bottleneck");
    assert!(results.links.u64("ecn_marks")[b] > 0);
    assert_eq!(results.links.u64("queue_drops")[b], 0, "marking kept the queue short of the limit");
    assert!(results.links.u64("max_queue_packets")[b] < 100);
    for i in 0..2 {
        assert!(results.flows.u64("ecn_reductions")[i] > 0);
        assert_eq!(results.flows.u64("retransmitted_segments")[i], 0);
    }
}

#[test]
fn chain_routes_cross_traffic_over_the_shared_hop_only() {
    let results = run(r#"
        [simulation]
        duration = "20s"
        [topology]
        kind = "chain"
        routers = 3
        hops = [{ rate = "20Mbps", delay = "5ms", buffer = "1BDP" }, { rate = "10Mbps", delay = "5ms", buffer = "1BDP" }]
        [[flows]]
        cc = "newreno"
        from = "r0"
        to = "r2"
        [[flows]]
        protocol = "udp"
        rate = "4Mbps"
        from = "r1"
        to = "r2"
    "#);
    let flows = &results.flows;
    let tcp = row(flows, "protocol", "tcp");
    let udp = row(flows, "protocol", "udp");
    // The UDP flow never crosses r0-r1.
    let first_hop = forward(&results, "r0-r1");
    let second_hop = forward(&results, "r1-r2");
    let tcp_bytes = flows.u64("bytes_sent")[tcp] as f64;
    let first_hop_bytes = results.links.u64("transmitted_bytes")[first_hop] as f64;
    assert!(first_hop_bytes < tcp_bytes * 1.1, "only TCP data (with headers) crosses r0-r1");
    assert!(results.links.f64("utilization")[second_hop] > 0.95);
    // TCP takes what UDP leaves: 10 Mbit/s minus about 4 (UDP loses some packets to the queue).
    let tcp_goodput = flows.f64("goodput_bps")[tcp];
    let udp_goodput = flows.f64("goodput_bps")[udp];
    assert!((4.5e6..6.5e6).contains(&tcp_goodput), "TCP goodput {tcp_goodput}");
    assert!((3.0e6..4.1e6).contains(&udp_goodput), "UDP goodput {udp_goodput}");
}

/// UDP through a lossy link: the delivered fraction matches the loss model's stationary rate.
fn udp_delivery_ratio(loss: &str) -> f64 {
    let results = run(&format!(
        r#"
        [simulation]
        duration = "100s"
        seed = 5
        [topology]
        kind = "dumbbell"
        bottleneck = {{ rate = "10Mbps", delay = "5ms", buffer = "100p", forward = {{ loss = {loss} }} }}
        [[flows]]
        protocol = "udp"
        rate = "1Mbps"
        packet_size = "1000B"
    "#
    ));
    let sent = results.flows.u64("packets_sent")[0] as f64;
    let received = results.flows.u64("bytes_delivered")[0] as f64 / 972.0;
    received / sent
}

#[test]
fn loss_models_lose_at_their_stationary_rate() {
    // 12 500 datagrams: the binomial standard deviation of a 5% loss rate is 0.2 percentage points.
    let bernoulli = 1.0 - udp_delivery_ratio(r#"{ model = "bernoulli", p = 0.05 }"#);
    assert!((0.043..0.057).contains(&bernoulli), "Bernoulli loss {bernoulli}");
    // Gilbert-Elliott: P(bad) = 0.01 / (0.01 + 0.1) = 0.0909, all packets lost in bad, none in good.
    let ge = 1.0 - udp_delivery_ratio(r#"{ model = "gilbert_elliott", p_good_to_bad = 0.01, p_bad_to_good = 0.1 }"#);
    assert!((0.07..0.11).contains(&ge), "Gilbert-Elliott loss {ge}");
}

#[test]
fn jitter_without_reordering_causes_no_spurious_recovery() {
    let text = r#"
        [simulation]
        duration = "20s"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "10Mbps", delay = "20ms", buffer = "10BDP", forward = { jitter = { distribution = "uniform", max = "5ms", reorder = REORDER } } }
        [[flows]]
        cc = "newreno"
        size = "5MB"
        # 88 segments at most in flight: the buffer never overflows, so only reordering could
        # trigger a fast retransmit.
        tcp = { receive_window = "128KB" }
    "#;
    let in_order = run(&text.replace("REORDER", "false"));
    let reordered = run(&text.replace("REORDER", "true"));
    assert_eq!(in_order.flows.u64("fast_recoveries")[0], 0);
    assert_eq!(in_order.flows.u64("duplicate_bytes")[0], 0);
    assert!(reordered.flows.u64("fast_recoveries")[0] > 0, "reordering fools the dupack rule");
    assert_eq!(reordered.flows.u64("bytes_delivered")[0], 5_000_000);
}

#[test]
fn application_rate_limits_and_linux_freezes_cwnd_when_not_cwnd_limited() {
    let text = r#"
        [simulation]
        duration = "30s"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "50Mbps", delay = "20ms", buffer = "1BDP" }
        [[flows]]
        cc = "CC"
        rate = "5Mbps"
    "#;
    let reno = run(&text.replace("CC", "reno"));
    let newreno = run(&text.replace("CC", "newreno"));
    for results in [&reno, &newreno] {
        let goodput = results.flows.f64("goodput_bps")[0];
        assert!((4.8e6..5.1e6).contains(&goodput), "goodput {goodput}");
    }
    // 5 Mbit/s at ~44 ms RTT is about 19 segments in flight. Linux Reno stops growing near that
    // (in slow start at twice the largest flight of a round, `tcp_is_cwnd_limited`: the data the
    // application wrote during the handshake leaves in the first rounds, so about 2 x 42);
    // ns-2-style NewReno keeps growing on every ACK.
    let last = |r: &Results| *r.flow_series.f64("cwnd_bytes").last().unwrap() / 1448.0;
    assert!(last(&reno) < 100.0, "reno cwnd {}", last(&reno));
    assert!(last(&newreno) > 200.0, "newreno cwnd {}", last(&newreno));
}

#[test]
fn on_off_sources_send_about_their_duty_cycle() {
    let results = run(r#"
        [simulation]
        duration = "100s"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "20Mbps", delay = "5ms", buffer = "1BDP" }
        [[flows]]
        protocol = "udp"
        rate = "4Mbps"
        on_time = "1s"
        off_time = "3s"
        [[flows]]
        protocol = "udp"
        rate = "4Mbps"
        on_time = "1s"
        off_time = "1s"
        on_off_distribution = "exponential"
        stop = "50s"
    "#);
    let constant = results.flows.f64("goodput_bps")[0];
    assert!((0.95e6..1.05e6).contains(&constant), "1 s on in every 4 s at 4 Mbit/s: {constant}");
    // Exponential 50% duty cycle for 50 s of a 100 s run: about 1 Mbit/s averaged over the run.
    let exponential = results.flows.f64("goodput_bps")[1];
    assert!((0.6e6..1.4e6).contains(&exponential), "exponential on/off: {exponential}");
}

#[test]
fn ecn_reductions_count_only_echoes_the_algorithm_answered_by_reducing() {
    // BBR ignores ECN: marked, echoed, yet never reduced. CUBIC on the same link reduces.
    let text = |cc: &str| {
        format!(
            r#"
        [simulation]
        duration = "10s"
        [topology]
        kind = "dumbbell"
        bottleneck = {{ rate = "20Mbps", delay = "10ms", buffer = "100p", queue = {{ kind = "red", ecn = true }} }}
        [tcp]
        ecn = true
        [[flows]]
        cc = "{cc}"
        count = 2
    "#
        )
    };
    let bbr = run(&text("bbr"));
    let b = forward(&bbr, "bottleneck");
    assert!(bbr.links.u64("ecn_marks")[b] > 0, "the link marked BBR's packets");
    assert_eq!(bbr.flows.u64("ecn_reductions").iter().sum::<u64>(), 0);
    let cubic = run(&text("cubic"));
    assert!(cubic.flows.u64("ecn_reductions").iter().all(|&n| n > 0));
}

#[test]
fn ns2s_sender_delivers_every_byte_once_through_loss_reordering_ecn_waits_and_handshakes() {
    // The ns2 profile (SYN, timed segments, ns-2's RTO, the RFC 3168 response) with heavy ECN
    // marking, random loss both ways (SYNs and SYN-ACKs too) and reordering; each recovery mode;
    // finite transfers, some on restarting connections.
    let results = run(r#"
        [simulation]
        duration = "120s"
        seed = 11
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "2Mbps", delay = "10ms", buffer = "40p", queue = { kind = "red", ecn = true, max_p = 0.5 }, forward = { loss = { model = "bernoulli", p = 0.02 }, jitter = { distribution = "uniform", max = "3ms", reorder = true } }, reverse = { loss = { model = "bernoulli", p = 0.02 } } }
        [tcp]
        profile = "ns2"
        ecn = true
        [[flows]]
        cc = "newreno"
        count = 4
        size = "300KB"
        [[flows]]
        cc = "reno"
        size = "200KB"
        tcp = { recovery = "reno" }
        [[flows]]
        cc = "newreno"
        size = "200KB"
        tcp = { recovery = "sack" }
        [[flows]]
        cc = "newreno"
        count = 2
        size = "20KB"
        restart = true
    "#);
    let flows = &results.flows;
    let delivered = flows.u64("bytes_delivered");
    for (i, size) in [300_000u64, 300_000, 300_000, 300_000, 200_000, 200_000].iter().enumerate() {
        assert_eq!(delivered[i], *size, "flow {i} delivered exactly its size");
        assert!(flows.f64("completion_time_s")[i].is_finite(), "flow {i} completed");
    }
    for (i, bytes) in delivered.iter().enumerate().skip(6) {
        assert!(*bytes > 20_000 * 10, "restarting flow {i} completed transfers: {bytes}");
    }
    let timeouts = flows.u64("timeouts");
    let after_loss = flows.u64("timeouts_after_loss");
    assert!(timeouts.iter().zip(after_loss).all(|(t, a)| a <= t));
    assert!(flows.u64("ecn_reductions").iter().sum::<u64>() > 0);
    let waits = results.events.text("event").iter().filter(|e| **e == "ecn_timer").count();
    assert!(waits > 0, "some ECN reductions found the window at one segment");
    assert!(timeouts.iter().sum::<u64>() > after_loss.iter().sum::<u64>());
}

#[test]
fn access_delay_gives_a_flow_its_own_rtt_on_every_topology() {
    // Two flows over the same path; the second's sender link has 21 ms of delay. On a chain it
    // replaces a 1 ms access link (40 ms more RTT); on a custom topology it is added (42 ms).
    let flows = r#"
        [[flows]]
        cc = "reno"
        from = "FROM"
        to = "TO"
        [[flows]]
        cc = "reno"
        from = "FROM"
        to = "TO"
        access_delay = "21ms"
    "#;
    let chain = format!(
        r#"
        [simulation]
        duration = "2s"
        [topology]
        kind = "chain"
        routers = 3
        hops = [{{ rate = "10Mbps", delay = "5ms" }}]
        {}"#,
        flows.replace("FROM", "r0").replace("TO", "r2")
    );
    let custom = format!(
        r#"
        [simulation]
        duration = "2s"
        [topology]
        kind = "custom"
        nodes = ["a", "b"]
        links = [{{ from = "a", to = "b", rate = "10Mbps", delay = "5ms" }}]
        {}"#,
        flows.replace("FROM", "a").replace("TO", "b")
    );
    for (text, extra_ms) in [(chain, 40.0), (custom, 42.0)] {
        let results = run(&text);
        let base = results.flows.f64("base_rtt_ms");
        assert!((base[1] - base[0] - extra_ms).abs() < 1e-9, "{base:?}");
        assert!(results.flows.u64("bytes_delivered").iter().all(|&b| b > 0));
    }
}
