//! Scenarios: what a TOML scenario file may say, its defaults, and its validation.
//!
//! - `model.rs`: the serde types (deserialisation rejects unknown keys and catches type and unit
//!   errors with the key's path);
//! - `validate.rs`: [`Scenario::validate`], the checks of meaning (ranges, references between
//!   sections);
//! - `defaults.rs`: what unset keys mean; [`Scenario::resolved`] writes every default out so that
//!   the scenario stored beside results says exactly what ran;
//! - `resources.rs`: the memory and events a run implies, refused above `simulation.max_memory`
//!   and `simulation.max_events`;
//! - `tcp_spec.rs`: the `[tcp]` table's keys and the TCP profiles;
//! - `validate_fabric.rs`: fat trees' and leaf-spines' checks, and which topology keys belong
//!   to which kind;
//! - `traffic_spec.rs`, `traffic.rs`: `[[traffic]]` patterns, and their expansion into flows
//!   when a scenario is read;
//! - `shape.rs`: tables written as arrays are refused before serde reads them as structs;
//! - `tcp_config.rs`: the `[tcp]` table converted into the TCP layer's `TcpConfig`;
//! - `error.rs`: [`ScenarioError`], which names the key, the value and what is allowed;
//! - `warnings.rs`: [`Scenario::warnings`], what is allowed but probably a mistake.
//!
//! This layer describes a run and runs nothing: `simulation` builds a network from it.

mod defaults;
mod error;
mod model;
mod queue_kinds;
mod resources;
mod sanity;
mod shape;
mod tcp_config;
mod tcp_spec;
mod traffic;
mod traffic_spec;
mod validate;
mod validate_direction;
mod validate_fabric;
mod warnings;

pub use error::ScenarioError;
pub use model::*;
pub use traffic_spec::{Pattern, TrafficSpec};
pub use validate_direction::validate_cellular;
pub use warnings::ScenarioWarning;

use error::path_error;

/// An unknown key in a `queue` table lists the keys of that queue's kind, not every queue's.
fn queue_key_error(error: ScenarioError, document: &serde_json::Value) -> ScenarioError {
    let Some(unknown) = error.message.strip_prefix("unknown field `").and_then(|rest| rest.split('`').next()) else {
        return error;
    };
    // serde's path ends with the unknown key itself: the queue table is its parent.
    let queue_key = error.key.strip_suffix(&format!(".{unknown}")).unwrap_or(&error.key);
    if !queue_key.ends_with("queue") {
        return error;
    }
    let mut node = document;
    for part in queue_key.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((name, rest)) => (name, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        node = &node[name];
        if let Some(i) = index {
            node = &node[i];
        }
    }
    let kind_name = node["kind"].as_str().unwrap_or("droptail");
    let Some(kind) = QueueKind::ALL.into_iter().find(|kind| kind.name() == kind_name) else {
        return error;
    };
    let keys = kind.keys();
    let hint = error::did_you_mean(unknown, keys.iter().copied())
        .map_or(String::new(), |close| format!("; did you mean `{close}`?"));
    ScenarioError::new(
        format!("{queue_key}.{unknown}"),
        format!("is not a key of a {kind_name} queue, which takes {}{hint}", keys.join(", ")),
    )
}

impl Scenario {
    /// Parses a scenario from TOML text, with errors naming the key.
    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        let document: toml::Table =
            toml::from_str(text).map_err(|e| ScenarioError::new("", format!("not valid TOML: {}", e.message())))?;
        // Datetimes have no place in a scenario; as JSON they are tables, which the check ignores.
        let json = serde_json::to_value(&document).unwrap_or_default();
        shape::check_tables(&json)?;
        resources::check_flow_entries(&json)?;
        let deserializer = toml::Deserializer::parse(text)
            .map_err(|e| ScenarioError::new("", format!("not valid TOML: {}", e.message())))?;
        let mut scenario: Scenario = serde_path_to_error::deserialize(deserializer).map_err(|e| {
            let error = path_error(e, |inner: &toml::de::Error| inner.message().to_string());
            queue_key_error(error, &serde_json::to_value(&document).unwrap_or_default())
        })?;
        scenario.prepare()?;
        Ok(scenario)
    }

    /// Parses a scenario from JSON text (what the Python layer sends after applying overrides).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let document: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ScenarioError::new("", format!("not valid JSON: {e}")))?;
        shape::check_tables(&document)?;
        resources::check_flow_entries(&document)?;
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let mut scenario: Scenario = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
            let error = path_error(e, |inner: &serde_json::Error| {
                // serde_json appends the position ("at line 1 column 80"); the key says where already.
                let text = inner.to_string();
                text.find(" at line ").map_or(text.clone(), |cut| text[..cut].to_string())
            });
            queue_key_error(error, &document)
        })?;
        scenario.prepare()?;
        Ok(scenario)
    }

    /// After parsing: algorithm names as registered, traffic patterns expanded into flows (on a
    /// topology checked first, since the patterns need its hosts), then every check.
    fn prepare(&mut self) -> Result<(), ScenarioError> {
        self.use_registered_algorithm_names();
        if !self.traffic.is_empty() {
            self.validate_topology()?;
            self.expand_traffic()?;
        }
        self.validate()
    }

    /// A built-in algorithm's name in any case ("BBR", "Cubic") means that algorithm; it is
    /// written as registered, so results and the resolved scenario name it one way.
    fn use_registered_algorithm_names(&mut self) {
        let flows = self.flows.iter_mut().map(|flow| &mut flow.cc);
        for cc in flows.chain(self.traffic.iter_mut().map(|entry| &mut entry.cc)).filter_map(Option::as_mut) {
            if let Some(algorithm) = crate::cc::registry().iter().find(|a| a.name.eq_ignore_ascii_case(cc)) {
                *cc = algorithm.name.to_string();
            }
        }
    }

    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a scenario serialises to TOML")
    }

    /// The expanded list of flows: each entry repeated `count` times, with its index in `flows`.
    pub fn expanded_flows(&self) -> impl Iterator<Item = (usize, &FlowSpec)> {
        self.flows.iter().enumerate().flat_map(|(i, f)| std::iter::repeat_n((i, f), f.count as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MILLI;
    use crate::units::Bytes;

    const MINIMAL: &str = r#"
        [simulation]
        duration = "5s"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "10Mbps", delay = "10ms" }
        [[flows]]
        cc = "cubic"
    "#;

    fn error_of(text: &str) -> ScenarioError {
        Scenario::from_toml(text).expect_err("scenario should be rejected")
    }

    #[test]
    fn minimal_scenario_parses_with_defaults() {
        let scenario = Scenario::from_toml(MINIMAL).unwrap();
        assert_eq!(scenario.simulation.seed, 1);
        assert_eq!(scenario.simulation.sample_interval.nanos(), 100 * NANOS_PER_MILLI);
        let resolved = scenario.resolved();
        assert_eq!(resolved.tcp.mss, Some(Bytes(1448)));
        assert_eq!(resolved.flows[0].params["beta"], 0.7);
        // The resolved scenario round-trips through TOML.
        let again = Scenario::from_toml(&resolved.to_toml()).unwrap();
        assert_eq!(again.to_toml(), resolved.to_toml());
    }

    #[test]
    fn unit_errors_name_the_key() {
        let err = error_of(&MINIMAL.replace("\"10Mbps\"", "\"10MB\""));
        assert_eq!(err.key, "topology.bottleneck.rate");
        assert!(err.message.contains("is in bytes ('MB')"), "{err}");
        let err = error_of(&MINIMAL.replace("\"10Mbps\"", "\"-3Mbps\""));
        assert!(err.message.contains("is not positive"), "{err}");
        let err = error_of(&MINIMAL.replace("\"5s\"", "5"));
        assert_eq!(err.key, "simulation.duration");
        assert!(err.message.contains("no unit"), "{err}");
    }

    #[test]
    fn unknown_keys_and_algorithms_are_rejected() {
        let err = error_of(&MINIMAL.replace("cc = \"cubic\"", "cc = \"cubik\""));
        assert_eq!(err.key, "flows.0.cc");
        assert!(err.message.contains("available: reno, newreno, cubic"), "{err}");
        let err = error_of(&MINIMAL.replace("[simulation]", "[simulation]\nsed = 3"));
        assert!(err.message.contains("unknown field `sed`"), "{err}");
        let err = error_of(&MINIMAL.replace("cc = \"cubic\"", "cc = \"cubic\"\nparams = { beta = 2.0 }"));
        assert_eq!(err.key, "flows.0.params");
        assert!(err.message.contains("beta = 2.0"), "{err}");
    }

    #[test]
    fn an_unknown_queue_key_lists_the_keys_of_that_kind_only() {
        let err = error_of(
            &MINIMAL.replace("delay = \"10ms\" }", "delay = \"10ms\", queue = { kind = \"red\", min_thr = \"5p\" } }"),
        );
        assert_eq!(err.key, "topology.bottleneck.queue.min_thr");
        assert!(err.message.starts_with("is not a key of a red queue, which takes kind, min_th, max_th"), "{err}");
        assert!(!err.message.contains("target") && err.message.ends_with("did you mean `min_th`?"), "{err}");
        // Every key a queue table has (serde's list) belongs to some kind, and the kinds' lists cover them all.
        let err = error_of(&MINIMAL.replace("delay = \"10ms\" }", "delay = \"10ms\", queue = { zzz = 1 } }"));
        assert!(
            err.message.contains("droptail queue, which takes kind;") || err.message.ends_with("which takes kind"),
            "{err}"
        );
        let serde_error = serde_json::from_str::<QueueSpec>(r#"{"zzz": 1}"#).unwrap_err().to_string();
        let spec_keys: std::collections::BTreeSet<&str> = serde_error.split('`').skip(3).step_by(2).collect();
        let by_kind: std::collections::BTreeSet<&str> = QueueKind::ALL.iter().flat_map(|k| k.keys()).collect();
        assert_eq!(spec_keys, by_kind, "{serde_error}");
    }

    #[test]
    fn near_misses_get_a_suggestion_and_algorithm_names_any_case() {
        let err = error_of(&MINIMAL.replace("cc = \"cubic\"", "cc = \"cubik\""));
        assert!(err.message.contains("did you mean 'cubic'?"), "{err}");
        let err = error_of(&MINIMAL.replace("[simulation]", "[simulation]\nsed = 3"));
        assert!(err.message.ends_with("did you mean `seed`?"), "{err}");
        let err = error_of(&MINIMAL.replace("delay = \"10ms\" }", "delay = \"10ms\", queue = \"dropptail\" }"));
        assert!(err.message.contains("did you mean `droptail`?"), "{err}");
        // Nothing close: no suggestion.
        let err = error_of(&MINIMAL.replace("cc = \"cubic\"", "cc = \"zzzzzz\""));
        assert!(!err.message.contains("did you mean"), "{err}");
        let scenario = Scenario::from_toml(&MINIMAL.replace("cc = \"cubic\"", "cc = \"CUBIC\"")).unwrap();
        assert_eq!(scenario.flows[0].cc.as_deref(), Some("cubic"));
    }

    #[test]
    fn meaning_errors_name_the_key() {
        let err = error_of(&MINIMAL.replace("[[flows]]", "[tcp]\nmin_rto = \"0s\"\n[[flows]]"));
        assert_eq!(err.key, "tcp.min_rto");
        let text = MINIMAL.replace("cc = \"cubic\"", "protocol = \"udp\"");
        let err = error_of(&text);
        assert_eq!(err.key, "flows.0.rate");
        let err = error_of(&MINIMAL.replace(
            "delay = \"10ms\" }",
            "delay = \"10ms\", forward = { loss = { model = \"bernoulli\", p = 1.5 } } }",
        ));
        assert_eq!(err.key, "topology.bottleneck.forward.loss.p");
    }

    #[test]
    fn errors_blame_the_key_that_is_wrong() {
        let with_queue =
            |queue: &str| MINIMAL.replace("delay = \"10ms\" }", &format!("delay = \"10ms\", queue = {queue} }}"));
        let err = error_of(&with_queue("{ kind = \"codel\", interval = \"0s\" }"));
        assert_eq!(err.key, "topology.bottleneck.queue.interval");
        let err = error_of(&with_queue("{ kind = \"pie\", alpha = 2.5 }"));
        assert_eq!(err.key, "topology.bottleneck.queue.alpha");
        assert!(err.message.contains("2.5 is outside 0 to 2"), "{err}");
        let err = error_of(&with_queue("{ kind = \"pie\", tupdate = \"0s\" }"));
        assert_eq!(err.key, "topology.bottleneck.queue.tupdate");
        let err = error_of(&with_queue("{ kind = \"codel\", max_burst = \"100ms\" }"));
        assert_eq!(err.key, "topology.bottleneck.queue.max_burst");
        assert!(err.message.contains("only applies to pie queues"), "{err}");
        let err = error_of(&with_queue("{ kind = \"red\", mean_packet_size = \"0B\" }"));
        assert_eq!(err.key, "topology.bottleneck.queue.mean_packet_size");
        let err = error_of(&MINIMAL.replace("delay = \"10ms\" }", "delay = \"10ms\", buffer = \"0p\" }"));
        assert_eq!(err.key, "topology.bottleneck.buffer");
        assert!(err.message.contains("smallest buffer is 1p"), "{err}");
        let err = error_of(&MINIMAL.replace("[[flows]]", "[tcp]\ninitial_rto = \"200s\"\n[[flows]]"));
        assert_eq!(err.key, "tcp.initial_rto");
        assert!(err.message.contains("above max_rto 120s"), "{err}");
    }

    #[test]
    fn harq_draw_unit_and_slot_are_checked() {
        let with_harq = |keys: &str| {
            MINIMAL.replace(
                "delay = \"10ms\" }",
                &format!("delay = \"10ms\", forward = {{ jitter = {{ distribution = \"harq\", {keys} }} }} }}"),
            )
        };
        let scenario = Scenario::from_toml(&with_harq("per = \"slot\", slot = \"0.5ms\"")).unwrap();
        assert!(scenario.warnings().is_empty());
        let err = error_of(&with_harq("slot = \"0ms\""));
        assert_eq!(err.key, "topology.bottleneck.forward.jitter.slot");
        assert!(err.message.contains("0s is not a slot length: allowed more than 0s"), "{err}");
        let err = error_of(&with_harq("per = \"packet\", slot = \"1ms\""));
        assert_eq!(err.key, "topology.bottleneck.forward.jitter.slot");
        assert!(err.message.contains("does not apply to per = \"packet\""), "{err}");
        let err = error_of(&with_harq("per = \"tti\""));
        assert_eq!(err.key, "topology.bottleneck.forward.jitter.per");
        assert!(err.message.contains("slot") && err.message.contains("packet"), "{err}");
        let err = error_of(&MINIMAL.replace(
            "delay = \"10ms\" }",
            "delay = \"10ms\", forward = { jitter = { distribution = \"uniform\", max = \"1ms\", per = \"slot\" } } }",
        ));
        assert_eq!(err.key, "topology.bottleneck.forward.jitter.per");
    }

    #[test]
    fn tables_written_as_arrays_are_refused() {
        let err = error_of(&MINIMAL.replace("[simulation]\n        duration = \"5s\"", "simulation = [\"5s\", 3]"));
        assert_eq!(err.key, "simulation");
        assert!(err.message.contains("must be a table"), "{err}");
        let err = error_of(&MINIMAL.replace("delay = \"10ms\" }", "delay = \"10ms\", forward = [1, 2] }"));
        assert_eq!(err.key, "topology.bottleneck.forward");
        let json = r#"{"simulation": {"duration": "1s"}, "topology": {"kind": "dumbbell", "bottleneck": {"rate": "1Mbps", "delay": "1ms"}}, "flows": [["cubic"]]}"#;
        assert_eq!(Scenario::from_json(json).unwrap_err().key, "flows.0");
    }

    #[test]
    fn hours_are_a_duration_unit() {
        let scenario = Scenario::from_toml(&MINIMAL.replace("\"5s\"", "\"1.5h\"")).unwrap();
        assert_eq!(scenario.simulation.duration.nanos(), 5400 * crate::time::NANOS_PER_SEC);
    }

    #[test]
    fn suspicious_but_valid_scenarios_warn() {
        assert!(Scenario::from_toml(MINIMAL).unwrap().warnings().is_empty());
        let late = Scenario::from_toml(&MINIMAL.replace("cc = \"cubic\"", "cc = \"cubic\"\nstart = \"9s\"")).unwrap();
        let warnings = late.warnings();
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].key, "flows.0.start");
        let rdc =
            Scenario::from_toml(&MINIMAL.replace("[[flows]]", "[tcp]\nack_delay = \"exact_rdc\"\n[[flows]]")).unwrap();
        assert_eq!(rdc.warnings()[0].key, "tcp.ack_delay");
        let stamped = rdc.to_toml().replace("delay = \"10ms\"", "delay = \"10ms\"\nrdc_stamp = true");
        assert!(Scenario::from_toml(&stamped).unwrap().warnings().is_empty(), "{stamped}");
    }

    #[test]
    fn time_series_are_flows_and_queues_by_default_and_a_wrong_name_names_the_key() {
        let scenario = Scenario::from_toml(MINIMAL).unwrap();
        assert_eq!(scenario.simulation.time_series, [SeriesKind::Flows, SeriesKind::Queues]);
        // The default is not written out, so resolved scenarios read as they did before the key.
        assert!(!scenario.to_toml().contains("time_series"));
        let flows_only = MINIMAL.replace("duration = \"5s\"", "duration = \"5s\"\ntime_series = [\"flows\"]");
        let scenario = Scenario::from_toml(&flows_only).unwrap();
        assert_eq!(scenario.simulation.time_series, [SeriesKind::Flows]);
        assert!(scenario.to_toml().contains("time_series = [\"flows\"]"));
        let err = error_of(&MINIMAL.replace("duration = \"5s\"", "duration = \"5s\"\ntime_series = [\"links\"]"));
        assert!(err.key.starts_with("simulation.time_series"), "{err}");
        assert!(err.message.contains("links") && err.message.contains("queues"), "{err}");
    }

    #[test]
    fn deeply_nested_toml_is_an_error_not_a_crash() {
        let deep = format!("x = {}{}", "[".repeat(5000), "]".repeat(5000));
        let err = error_of(&deep);
        assert!(err.message.contains("not valid TOML"), "{err}");
    }

    #[test]
    fn runs_too_large_for_the_machine_are_refused_with_the_key_and_what_fits() {
        let err = error_of(&MINIMAL.replace("duration = \"5s\"", "duration = \"5s\"\nsample_interval = \"1ns\""));
        assert_eq!(err.key, "simulation.sample_interval");
        assert!(err.message.contains("the smallest interval within simulation.max_memory = 2.0 GB"), "{err}");
        let err = error_of(&MINIMAL.replace("\"5s\"", "\"30000h\"\nsample_interval = \"1h\""));
        assert_eq!(err.key, "simulation.duration");
        assert!(err.message.contains("the longest duration within simulation.max_events"), "{err}");
        let err = error_of(&MINIMAL.replace("cc = \"cubic\"", "cc = \"cubic\"\ncount = 200000"));
        assert_eq!(err.key, "flows");
        // 100,000 flows fit; their time series over 5 s do not, unless none are kept.
        let many = MINIMAL.replace("cc = \"cubic\"", "cc = \"cubic\"\ncount = 100000");
        assert_eq!(error_of(&many).key, "simulation.sample_interval");
        let without_series = many.replace("duration = \"5s\"", "duration = \"5s\"\ntime_series = []");
        assert!(Scenario::from_toml(&without_series).is_ok());
        // Raising the limits on purpose lets the same scenario through validation.
        let raised = MINIMAL.replace("\"5s\"", "\"30000h\"\nsample_interval = \"1h\"\nmax_events = 1000000000000000");
        assert!(Scenario::from_toml(&raised).is_ok());
    }

    #[test]
    fn step_queues_need_a_threshold_above_zero_and_below_the_buffer() {
        let with_queue = |link: &str| MINIMAL.replace("delay = \"10ms\" }", &format!("delay = \"10ms\", {link} }}"));
        let ok =
            Scenario::from_toml(&with_queue("buffer = \"100p\", queue = { kind = \"step\", threshold = \"20p\" }"));
        assert!(ok.is_ok(), "{ok:?}");
        for (link, fragment) in [
            ("queue = \"step\"", "is required for a step queue"),
            ("queue = { kind = \"step\", threshold = \"0p\" }", "must be more than 0"),
            ("buffer = \"100p\", queue = { kind = \"step\", threshold = \"100p\" }", "not below the buffer 100p"),
            ("buffer = \"1BDP\", queue = { kind = \"step\", threshold = \"1.5BDP\" }", "not below the buffer"),
            (
                "buffer = \"100p\", forward = { buffer = \"10p\" }, queue = { kind = \"step\", threshold = \"20p\" }",
                "not below the forward.buffer 10p",
            ),
        ] {
            let err = error_of(&with_queue(link));
            assert_eq!(err.key, "topology.bottleneck.queue.threshold", "{link}");
            assert!(err.message.contains(fragment), "{link}: {err}");
        }
        let err = error_of(&with_queue("queue = { kind = \"red\", threshold = \"5p\" }"));
        assert_eq!(err.key, "topology.bottleneck.queue.threshold");
        assert!(err.message.contains("only applies to step"), "{err}");
        let err = error_of(&with_queue("ecn_mark_threshold = \"20p\""));
        assert!(err.message.contains("ecn_mark_threshold"), "the old key is gone: {err}");
    }

    #[test]
    fn dctcp_refuses_ecn_turned_off_and_the_resolved_scenario_says_it_ran_with_ecn() {
        let dctcp = MINIMAL.replace("cc = \"cubic\"", "cc = \"dctcp\"");
        let err = error_of(&dctcp.replace("[[flows]]", "[tcp]\necn = false\n[[flows]]"));
        assert_eq!(err.key, "tcp.ecn");
        assert!(err.message.contains("'dctcp', which needs ECN"), "{err}");
        let err = error_of(&dctcp.replace("cc = \"dctcp\"", "cc = \"dctcp\"\ntcp = { ecn = false }"));
        assert_eq!(err.key, "flows.0.tcp.ecn");
        // The flow's own `ecn = true` over a scenario-wide false is consistent.
        let own = dctcp
            .replace("[[flows]]", "[tcp]\necn = false\n[[flows]]")
            .replace("cc = \"dctcp\"", "cc = \"dctcp\"\ntcp = { ecn = true }");
        assert!(Scenario::from_toml(&own).is_ok());
        // Unset: resolved with ecn = true on the flow, and that resolved scenario validates.
        let resolved = Scenario::from_toml(&dctcp).unwrap().resolved();
        assert_eq!(resolved.flows[0].tcp.as_ref().and_then(|t| t.ecn), Some(true));
        assert_eq!(resolved.flows[0].tcp.as_ref().and_then(|t| t.ect_retransmissions), Some(true));
        assert_eq!(resolved.tcp.ecn, Some(false));
        assert!(Scenario::from_toml(&resolved.to_toml()).is_ok());
    }

    #[test]
    fn ns2_sender_keys_are_checked_by_name_value_and_what_is_allowed() {
        let with_tcp = |lines: &str| MINIMAL.replace("[[flows]]", &format!("[tcp]\n{lines}\n[[flows]]"));
        let err = error_of(&with_tcp("rtt_sampling = \"per_rtt\""));
        assert_eq!(err.key, "tcp.rtt_sampling");
        assert!(err.message.contains("per_rtt") && err.message.contains("timed_segment"), "{err}");
        let err = error_of(&with_tcp("ecn_response = \"rfc3186\""));
        assert_eq!(err.key, "tcp.ecn_response");
        assert!(err.message.contains("rfc3186") && err.message.contains("rfc3168"), "{err}");
        let err = error_of(&with_tcp("rto_formula = \"ns-2\""));
        assert_eq!(err.key, "tcp.rto_formula");
        assert!(err.message.contains("ns2"), "{err}");
        let err = error_of(&with_tcp("syn = \"yes\""));
        assert_eq!(err.key, "tcp.syn");
        let err = error_of(&with_tcp("rto_formula = \"ns2\"\nclock_granularity = \"0s\""));
        assert_eq!(err.key, "tcp.clock_granularity");
        assert!(err.message.contains("ticks of clock_granularity"), "{err}");
        let err = error_of(&with_tcp("profile = \"ns2\"\ntimestamps = true"));
        assert_eq!(err.key, "tcp.rtt_sampling");
        assert!(err.message.contains("every_ack"), "{err}");
        assert!(Scenario::from_toml(&with_tcp("profile = \"ns2\"\ntimestamps = true\nrtt_sampling = \"every_ack\""))
            .is_ok());
    }

    #[test]
    fn the_simulator_profiles_hold_their_simulators_defaults() {
        use crate::tcp::{AckPolicy, AlgorithmRtt, EcnResponse, ReductionBase, RtoFormula, RttSampling};
        let config = |profile: &str| {
            let text = MINIMAL.replace("[[flows]]", &format!("[tcp]\nprofile = \"{profile}\"\n[[flows]]"));
            Scenario::from_toml(&text).unwrap().tcp.to_config("tcp").unwrap()
        };
        let ns2 = config("ns2");
        assert_eq!((ns2.mss, ns2.header_bytes, ns2.initial_window_segments, ns2.receive_window), (1000, 40, 2, 20_000));
        assert_eq!(
            (ns2.min_rto, ns2.initial_rto, ns2.max_rto),
            (200 * NANOS_PER_MILLI, 3_000 * NANOS_PER_MILLI, 60_000 * NANOS_PER_MILLI)
        );
        assert_eq!(ns2.clock_granularity, 10 * NANOS_PER_MILLI);
        assert!(ns2.limited_transmit && ns2.syn && !ns2.timestamps && !ns2.delayed_ack);
        assert_eq!(ns2.initial_ssthresh_segments, Some(20), "ssthresh_ starts at window_");
        assert_eq!(
            (ns2.rto_formula, ns2.rtt_sampling, ns2.ecn_response),
            (RtoFormula::Ns2, RttSampling::TimedSegment, EcnResponse::Rfc3168)
        );
        let legacy = config("ns2-legacy");
        assert_eq!((legacy.min_rto, legacy.max_rto), (1_000 * NANOS_PER_MILLI, 100_000_000 * NANOS_PER_MILLI));
        assert!(!legacy.limited_transmit && legacy.syn);
        assert_eq!(legacy.rto_formula, RtoFormula::Ns2);
        for profile in ["linux", "ns3"] {
            let c = config(profile);
            assert_eq!((c.rtt_sampling, c.ecn_response), (RttSampling::EveryAck, EcnResponse::Linux));
        }
        // Linux and ns-3's TcpSocketBase open with a handshake; ns-3 hands algorithms the SRTT.
        let (linux, ns3) = (config("linux"), config("ns3"));
        assert!(linux.syn && ns3.syn);
        assert_eq!((linux.ack_policy, ns3.ack_policy), (AckPolicy::Linux, AckPolicy::Counted));
        assert_eq!((linux.algorithm_rtt, ns3.algorithm_rtt), (AlgorithmRtt::Sample, AlgorithmRtt::Smoothed));
        assert_eq!((linux.reduction_base, ns3.reduction_base), (ReductionBase::FlightSize, ReductionBase::Pipe));
        assert_eq!(ns3.initial_rto, 3_000 * NANOS_PER_MILLI, "ConnTimeout times the SYN");
        assert_eq!((linux.send_buffer, ns3.send_buffer), (None, Some(131_072)), "SndBufSize");
    }
}
