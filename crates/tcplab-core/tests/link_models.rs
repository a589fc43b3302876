//! Link models whole: trace-driven directions (mahimahi traces, generated 5G-like ones), delay
//! that drifts without reordering, HARQ delay, and on/off TCP sources that keep unsent data.

use tcplab_core::{Results, Scenario, Simulation};

fn run(text: &str) -> Results {
    let scenario = Scenario::from_toml(text).unwrap_or_else(|e| panic!("test scenario is invalid: {e}"));
    Simulation::new(&scenario).expect("test scenario builds").run()
}

/// Writes a trace file for one test (removed when the guard drops).
struct TraceFile(std::path::PathBuf);

impl TraceFile {
    fn new(name: &str, text: &str) -> Self {
        let path = std::env::temp_dir().join(format!("tcplab-{}-{name}.trace", std::process::id()));
        std::fs::write(&path, text).expect("the temporary directory is writable");
        Self(path)
    }

    fn path(&self) -> String {
        self.0.display().to_string().replace('\\', "/")
    }
}

impl Drop for TraceFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A UDP source at `rate` through a bottleneck whose forward direction is `forward`: datagrams
/// delivered.
fn udp_delivered(forward: &str, duration: &str, rate: &str) -> u64 {
    let results = run(&format!(
        r#"
        [simulation]
        duration = "{duration}"
        [topology]
        kind = "dumbbell"
        bottleneck = {{ rate = "12Mbps", delay = "5ms", buffer = "1000p", forward = {forward} }}
        [[flows]]
        protocol = "udp"
        rate = "{rate}"
        packet_size = "1500B"
    "#
    ));
    results.flows.u64("bytes_delivered")[0] / 1472
}

#[test]
fn a_constant_trace_delivers_what_a_constant_rate_link_delivers_within_one_packet() {
    // One 1500-byte opportunity every millisecond is 12 Mbit/s.
    let trace = TraceFile::new("constant", "1\n");
    let fixed = udp_delivered("{}", "10s", "20Mbps");
    let traced = udp_delivered(&format!(r#"{{ trace = {{ file = "{}" }} }}"#, trace.path()), "10s", "20Mbps");
    assert!(fixed > 9_900, "{fixed}");
    assert!(fixed.abs_diff(traced) <= 1, "constant rate {fixed}, trace {traced}");
}

#[test]
fn a_hand_written_mahimahi_trace_delivers_at_its_opportunities() {
    // Two opportunities at 2 ms, one at 5 ms, one at 10 ms, repeating every 10 ms: 400 a second.
    let trace = TraceFile::new("hand", "2\n2\n5\n10\n");
    let delivered = udp_delivered(&format!(r#"{{ trace = {{ file = "{}" }} }}"#, trace.path()), "1s", "10Mbps");
    // The first datagram reaches the bottleneck after about 1 ms and the last ones are still on
    // the 5 ms wire at the end: 400 less the few opportunities in those edges.
    assert!((395..=399).contains(&delivered), "{delivered}");
}

#[test]
fn a_generated_cellular_trace_changes_with_the_run_and_not_with_a_rerun() {
    let text = |run: u32| {
        format!(
            r#"
        [simulation]
        duration = "5s"
        run = {run}
        [topology]
        kind = "dumbbell"
        bottleneck = {{ rate = "100Mbps", delay = "20ms", buffer = "2000p", forward = {{ trace = {{ cellular = {{ length = "5s" }} }} }} }}
        [[flows]]
        cc = "cubic"
    "#
        )
    };
    let goodput = |r: &Results| r.flows.f64("goodput_bps")[0];
    let (a, b, c) = (run(&text(0)), run(&text(0)), run(&text(1)));
    assert_eq!(goodput(&a), goodput(&b));
    assert_ne!(goodput(&a), goodput(&c));
    // The defaults offer 40 Mbit/s of LTE plus 200 Mbit/s of NR two thirds of the time, each
    // carrier's fading capped at twice its mean: never more than 80 + 400 Mbit/s.
    assert!((20e6..480e6).contains(&goodput(&a)), "{}", goodput(&a));
}

/// Mean one-way delay of a 100 Mbit/s UDP stream over a 1 Gbit/s bottleneck with `jitter`.
fn mean_delay_ms(jitter: &str, delay: &str) -> f64 {
    let results = run(&format!(
        r#"
        [simulation]
        duration = "2s"
        [topology]
        kind = "dumbbell"
        bottleneck = {{ rate = "1Gbps", delay = "{delay}", buffer = "1000p", forward = {{ jitter = {jitter} }} }}
        [[flows]]
        protocol = "udp"
        rate = "100Mbps"
    "#
    ));
    results.flows.f64("one_way_delay_mean_ms")[0]
}

#[test]
fn drifting_delay_keeps_its_mean_where_held_fifo_jitter_raises_it() {
    // Both draw delays from 0.5 to 1.5 ms; packets leave 120 us apart.
    let base = mean_delay_ms(r#"{ distribution = "uniform", max = "0ms" }"#, "0ms");
    let drift = mean_delay_ms(r#"{ distribution = "drift", min = "0.5ms", max = "1.5ms" }"#, "0ms");
    let held = mean_delay_ms(r#"{ distribution = "uniform", max = "1ms" }"#, "0.5ms");
    // 2 s hold 2000 intervals of 1 ms: the mean of the knots is 1 ms within about 0.02 ms.
    assert!(((drift - base) - 1.0).abs() < 0.05, "drift adds {} ms", drift - base);
    // Held behind slower packets sent before it, a FIFO's delay is pushed up (1.17 ms at this
    // spacing when this test was written; more the closer packets follow each other).
    assert!(held - drift > 0.1, "held FIFO jitter adds {} ms, drift {} ms", held - base, drift - base);
}

#[test]
fn drifting_delay_never_reorders_a_tcp_flow() {
    let results = run(r#"
        [simulation]
        duration = "5s"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "1Gbps", delay = "1ms", buffer = "10BDP", forward = { jitter = { distribution = "drift", min = "0.5ms", max = "1.5ms" } } }
        [[flows]]
        cc = "newreno"
        size = "20MB"
        tcp = { receive_window = "256KB" }
    "#);
    assert_eq!(results.flows.u64("fast_recoveries")[0], 0);
    assert_eq!(results.flows.u64("duplicate_bytes")[0], 0);
    assert_eq!(results.flows.u64("bytes_delivered")[0], 20_000_000);
}

#[test]
fn harq_adds_the_expected_retransmission_delay() {
    // Datagrams 16 ms apart never wait for each other. Expected retransmissions with a 10% failure
    // and at most 3: 0.1 + 0.01 + 0.001 = 0.111, so 0.888 ms at 8 ms each.
    let results = |jitter: &str| {
        run(&format!(
            r#"
        [simulation]
        duration = "200s"
        [topology]
        kind = "dumbbell"
        bottleneck = {{ rate = "10Mbps", delay = "10ms", forward = {{ jitter = {jitter} }} }}
        [[flows]]
        protocol = "udp"
        rate = "0.5Mbps"
        packet_size = "1000B"
    "#
        ))
        .flows
        .f64("one_way_delay_mean_ms")[0]
    };
    let added = results(r#"{ distribution = "harq" }"#) - results(r#"{ distribution = "harq", p = 0 }"#);
    assert!((0.8..0.98).contains(&added), "HARQ adds {added} ms");
}

#[test]
fn on_off_tcp_keeps_unsent_data_across_off_periods_when_asked() {
    // 200 Mbit/s written for 0.1 s in every 0.3 s is 66.7 Mbit/s offered; the 100 Mbit/s link
    // cannot take a whole on period's data while the source is on.
    let text = |unsent: &str| {
        format!(
            r#"
        [simulation]
        duration = "30s"
        [topology]
        kind = "dumbbell"
        bottleneck = {{ rate = "100Mbps", delay = "5ms", buffer = "1BDP" }}
        [[flows]]
        cc = "cubic"
        rate = "200Mbps"
        on_time = "0.1s"
        off_time = "0.2s"
        off_unsent = "{unsent}"
    "#
        )
    };
    let goodput = |unsent: &str| run(&text(unsent)).flows.f64("goodput_bps")[0];
    let (kept, discarded) = (goodput("keep"), goodput("discard"));
    assert!((64e6..67e6).contains(&kept), "kept: {kept}");
    assert!(discarded < 40e6, "discarded: {discarded}");
}

#[test]
fn packets_queued_before_a_delay_step_but_leaving_after_it_take_the_new_delay() {
    // 20 Mbit/s of 1500-byte datagrams into a 10 Mbit/s link (833 packets a second) whose delay
    // steps from 10 ms to 500 ms at 1 s: about 833 packets are queued then. docs/scenarios.md:
    // packets leaving after a step take the new delay. By 2 s, those that left before 1 s
    // (about 833) and those that left from 1 s to 1.5 s (about 417) have arrived: about 1250.
    // Had the queued packets kept the old delay, the 833 leaving from 1 s to 2 s would have
    // arrived too: about 1666.
    let results = run(r#"
        [simulation]
        duration = "2s"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "10Mbps", delay = "10ms", buffer = "5000p", forward = { delay_schedule = [{ at = "1s", delay = "500ms" }] } }
        [[flows]]
        protocol = "udp"
        rate = "20Mbps"
        packet_size = "1500B"
    "#);
    let delivered = results.flows.u64("bytes_delivered")[0] / 1472;
    assert!((1230..=1270).contains(&delivered), "{delivered} datagrams delivered");
}

#[test]
fn harq_draws_once_per_slot_so_a_slot_does_not_wait_for_its_worst_packet() {
    // Twelve 1500-byte opportunities at the same instant every 30 ms (4.8 Mbit/s), kept busy by a
    // 6 Mbit/s source: each burst of 12 datagrams leaves in one 1 ms slot, and bursts are further
    // apart than the largest HARQ delay (3 x 8 ms), so no burst waits behind another.
    // - per slot (the default): the burst shares one draw, E = 8 ms x (0.1 + 0.01 + 0.001)
    //   = 0.888 ms for every datagram;
    // - per packet, held in order: the i-th datagram of a burst arrives with the slowest of the
    //   first i draws, E = 8 ms x sum over k = 1..3 of (1 - (1 - 0.1^k)^i); the mean over
    //   i = 1..12 is 4.25 ms (the 12th waits 6.74 ms on average).
    let trace = TraceFile::new("harq-bursts", &"30\n".repeat(12));
    let delay = |jitter: &str| {
        run(&format!(
            r#"
        [simulation]
        duration = "200s"
        [topology]
        kind = "dumbbell"
        # Access links fast enough that a burst arriving at once queues for microseconds only.
        access = {{ rate = "100Gbps", delay = "0ms" }}
        bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = "24p", forward = {{ trace = {{ file = "{}" }}, jitter = {jitter} }} }}
        [[flows]]
        protocol = "udp"
        rate = "6Mbps"
        packet_size = "1500B"
    "#,
            trace.path()
        ))
        .flows
        .f64("one_way_delay_mean_ms")[0]
    };
    let without = delay(r#"{ distribution = "harq", p = 0 }"#);
    let per_slot = delay(r#"{ distribution = "harq" }"#) - without;
    // The same seed draws the same outcomes.
    assert_eq!(delay(r#"{ distribution = "harq" }"#) - without, per_slot);
    let per_packet = delay(r#"{ distribution = "harq", per = "packet" }"#) - without;
    assert!((0.75..1.05).contains(&per_slot), "per slot adds {per_slot} ms");
    assert!((3.9..4.6).contains(&per_packet), "per packet adds {per_packet} ms");
    // Slots of 30 ms hold a whole burst and the next opportunity instant, so they draw as 1 ms does.
    let long_slots = delay(r#"{ distribution = "harq", slot = "30ms" }"#) - without;
    assert!((0.75..1.05).contains(&long_slots), "30 ms slots add {long_slots} ms");
}
