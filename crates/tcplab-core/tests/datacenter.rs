//! Data-center fabrics: fat trees and leaf-spines built from scenarios, per-flow ECMP (spread over
//! the equal-cost paths, one path per flow), their parameters checked, and traffic patterns that
//! generate what they say.

use std::collections::{BTreeMap, HashMap};

use tcplab_core::net::channel::Channel;
use tcplab_core::net::fabric::Fabric;
use tcplab_core::net::packet::{flow_key, PacketKind};
use tcplab_core::net::queue::{DropTail, QueueLimit};
use tcplab_core::net::topology::Network;
use tcplab_core::results::Table;
use tcplab_core::sim::{rng_stream_seed, StreamKind};
use tcplab_core::{Results, Scenario, Simulation};

/// A fabric as a network of 10 Gbit/s, 1 us links, routed with ECMP under `salt`.
fn network_of(fabric: &Fabric, salt: u64) -> Network {
    let mut network = Network::default();
    for (name, switch) in &fabric.nodes {
        network.add_node(name, *switch);
    }
    let channel = |from: u32, to: u32| {
        let queue = Box::new(DropTail::new(QueueLimit::Packets(100), None));
        let rng_seed = rng_stream_seed(1, 0, StreamKind::Channel, 0);
        Channel::new(from, to, 10_000_000_000, 1_000, queue, rng_seed)
    };
    for link in &fabric.links {
        network.add_link(&link.name, channel(link.from, link.to), channel(link.to, link.from));
    }
    network.use_ecmp(salt);
    network.compute_routes();
    network
}

fn host(network: &Network, name: &str) -> u32 {
    let index = network.nodes.iter().position(|node| node.name == name);
    index.unwrap_or_else(|| panic!("no node {name}")) as u32
}

/// How many of `flows` flow keys take each path from `source` to `destination`.
fn paths_taken(network: &Network, source: &str, destination: &str, flows: u32) -> BTreeMap<Vec<u32>, u32> {
    let (s, d) = (host(network, source), host(network, destination));
    let mut counts = BTreeMap::new();
    for flow in 0..flows {
        let path = network.path(s, d, flow_key(PacketKind::TcpData, flow)).expect("hosts reach each other");
        *counts.entry(path).or_insert(0) += 1;
    }
    counts
}

#[test]
fn ecmp_spreads_flows_evenly_over_a_fat_trees_equal_cost_paths() {
    // Between pods, a k-ary fat tree has (k/2)^2 shortest paths: k/2 aggregation switches to go
    // up through, times k/2 core switches above each. With per-flow hashing independent at each
    // hop, each of N flows takes each path with probability p = 1 / (k/2)^2, so a path's count
    // is Binomial(N, p): mean Np, standard deviation sqrt(N p (1 - p)). With N = 1000 / p the
    // mean is 1000; a count outside five standard deviations has a chance below 6e-7 per path
    // for a fair hash (normal approximation, good at these counts), so the bound fails a fair
    // hash about once in 10^5 seeds, and a hash reusing one choice at both hops (half the paths
    // unused) always.
    for (k, source, destination) in [(4u32, "h0", "h15"), (8, "h3", "h100")] {
        let network = network_of(&Fabric::fat_tree(k, k / 2), 42);
        let paths = (k / 2) * (k / 2);
        let p = 1.0 / paths as f64;
        let flows = 1000 * paths;
        let counts = paths_taken(&network, source, destination, flows);
        assert_eq!(counts.len() as u32, paths, "k = {k}: every equal-cost path is used");
        let deviation = (flows as f64 * p * (1.0 - p)).sqrt();
        for (path, &count) in &counts {
            assert_eq!(path.len(), 6, "host, edge, aggregation, core, aggregation, edge, host");
            assert!((count as f64 - 1000.0).abs() < 5.0 * deviation, "k = {k}: {count} flows on one path");
        }
        // Within a pod there are k/2 paths (one per aggregation switch); within an edge switch one.
        let same_pod = paths_taken(&network, source, &format!("h{}", k / 2), 1000);
        assert_eq!(same_pod.len() as u32, k / 2);
        assert_eq!(paths_taken(&network, "h0", "h1", 100).len(), 1);
    }
}

#[test]
fn a_flow_keeps_its_path_and_the_salt_moves_it() {
    let fabric = Fabric::fat_tree(4, 2);
    let (a, b) = (network_of(&fabric, 1), network_of(&fabric, 2));
    let (s, d) = (host(&a, "h0"), host(&a, "h12"));
    let mut moved = 0;
    for flow in 0..64 {
        let key = flow_key(PacketKind::TcpData, flow);
        let path = a.path(s, d, key);
        // Routing is a function of the flow, the node and the salt: every packet of the flow,
        // whenever it is sent, takes the same path.
        assert!((0..10).all(|_| a.path(s, d, key) == path));
        moved += usize::from(b.path(s, d, key) != path);
    }
    // Another seed (salt) gives another assignment: the same path for all 64 flows would have a
    // chance of (1/4)^64.
    assert!(moved > 0);
}

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml(text).unwrap_or_else(|e| panic!("test scenario is invalid: {e}"))
}

fn run(text: &str) -> Results {
    Simulation::new(&scenario(text)).expect("test scenario builds").run()
}

fn column_sum(table: &Table, column: &str) -> u64 {
    table.u64(column).iter().sum()
}

/// Data packets carried by each link direction whose link name matches `pattern`.
fn carried(results: &Results, matches: impl Fn(&str, &str) -> bool) -> Vec<(String, u64)> {
    let links = &results.links;
    (0..links.rows())
        .filter(|&i| matches(links.text("link")[i], links.text("direction")[i]))
        .map(|i| (links.text("link")[i].to_string(), links.u64("transmitted_packets")[i]))
        .collect()
}

const FAT_TREE: &str = r#"
    [simulation]
    duration = "200ms"
    seed = SEED
    [topology]
    kind = "fat_tree"
    k = 4
    access = { rate = "1Gbps", delay = "5us", buffer = "1000p" }
"#;

#[test]
fn every_packet_of_a_flow_takes_one_path_through_the_fabric() {
    // One flow from h0 (pod 0) to h15 (pod 3): its data leaves edge0.0 on exactly one of the two
    // uplinks and crosses exactly one core switch, for every seed; over seeds, both uplinks and
    // all four core switches get used.
    let mut uplinks_used = HashMap::new();
    let mut cores_used = HashMap::new();
    for seed in 1..=24 {
        let text = FAT_TREE.replace("SEED", &seed.to_string())
            + "[[flows]]\ncc = \"cubic\"\nfrom = \"h0\"\nto = \"h15\"\nsize = \"300KB\"\n";
        let results = run(&text);
        assert_eq!(results.flows.u64("bytes_delivered")[0], 300_000);
        let up = carried(&results, |link, dir| link.starts_with("edge0.0-agg") && dir == "forward");
        let busy: Vec<&(String, u64)> = up.iter().filter(|(_, packets)| *packets > 0).collect();
        assert_eq!(busy.len(), 1, "seed {seed}: {up:?}");
        *uplinks_used.entry(busy[0].0.clone()).or_insert(0) += 1;
        // Pod 0's aggregation-to-core links carry the data up (pod 3's carry the ACKs).
        let core = carried(&results, |link, dir| link.starts_with("agg0.") && dir == "forward");
        let busy: Vec<&(String, u64)> = core.iter().filter(|(_, packets)| *packets > 0).collect();
        assert_eq!(busy.len(), 1, "seed {seed}: data crosses one core switch: {core:?}");
        *cores_used.entry(busy[0].0.split('-').nth(1).unwrap().to_string()).or_insert(0) += 1;
    }
    assert_eq!(uplinks_used.len(), 2, "{uplinks_used:?}");
    assert_eq!(cores_used.len(), 4, "{cores_used:?}");
}

#[test]
fn a_permutation_on_a_fat_tree_delivers_in_order_without_reordering_from_ecmp() {
    // Sixteen hosts, each sending 2 MB to another at once. Buffers hold everything (no loss), so
    // a retransmission could only come from packets arriving out of order: with per-packet
    // spraying over paths of different queues, duplicate ACKs would trigger fast retransmits.
    // (25,000 packets: more than the 16 transfers together, whatever their slow start overshoots.)
    let text = FAT_TREE.replace("SEED", "3").replace("1000p", "25000p")
        + "[[traffic]]\npattern = \"permutation\"\ncc = \"newreno\"\nsize = \"2MB\"\n";
    let results = run(&text);
    let flows = &results.flows;
    assert_eq!(flows.rows(), 16);
    assert_eq!(column_sum(&results.links, "queue_drops"), 0);
    for i in 0..16 {
        assert_eq!(flows.u64("bytes_delivered")[i], 2_000_000, "flow {i}");
        assert_eq!(flows.u64("retransmitted_segments")[i], 0, "flow {i}");
        assert_eq!(flows.u64("fast_recoveries")[i], 0, "flow {i}");
    }
    // Each host sends once and receives once.
    let mut sources: Vec<&str> = flows.text("source");
    let mut destinations: Vec<&str> = flows.text("destination");
    sources.sort_unstable();
    destinations.sort_unstable();
    assert_eq!(sources, destinations);
    sources.dedup();
    assert_eq!(sources.len(), 16);
}

#[test]
fn ecmp_applies_to_custom_topologies_and_single_routing_keeps_one_path() {
    // A diamond: a -> b -> d and a -> c -> d with equal delays. Forty flows from a host behind a
    // to a host behind d: with ECMP both b and c carry data (all on one has a chance of 2^-39);
    // with single-path routing only the first-numbered one does.
    let diamond = |routing: &str| {
        let mut text = format!(
            r#"
            [simulation]
            duration = "100ms"
            [topology]
            kind = "custom"
            routing = "{routing}"
            nodes = ["s", "a", "b", "c", "d", "r"]
            links = [
                {{ from = "s", to = "a", rate = "10Gbps", delay = "10us" }},
                {{ from = "a", to = "b", rate = "1Gbps", delay = "50us" }},
                {{ from = "a", to = "c", rate = "1Gbps", delay = "50us" }},
                {{ from = "b", to = "d", rate = "1Gbps", delay = "50us" }},
                {{ from = "c", to = "d", rate = "1Gbps", delay = "50us" }},
                {{ from = "d", to = "r", rate = "10Gbps", delay = "10us" }},
            ]
            "#
        );
        text += "[[flows]]\ncc = \"cubic\"\nfrom = \"s\"\nto = \"r\"\ncount = 40\nsize = \"50KB\"\n";
        run(&text)
    };
    let used = |results: &Results| {
        carried(results, |link, dir| (link == "link1" || link == "link2") && dir == "forward")
            .into_iter()
            .filter(|(_, packets)| *packets > 0)
            .count()
    };
    assert_eq!(used(&diamond("ecmp")), 2);
    assert_eq!(used(&diamond("single")), 1);
}

fn error_of(text: &str) -> tcplab_core::scenario::ScenarioError {
    Scenario::from_toml(text).expect_err("scenario should be rejected")
}

#[test]
fn fat_trees_and_leaf_spines_refuse_bad_parameters_by_key() {
    let fat = |keys: &str| {
        format!(
            "[simulation]\nduration = \"1s\"\n[topology]\nkind = \"fat_tree\"\n{keys}\n[[flows]]\ncc = \"cubic\"\nfrom = \"h0\"\nto = \"h1\"\n"
        )
    };
    let access = "access = { rate = \"10Gbps\", delay = \"1us\" }";
    for (keys, key, fragment) in [
        (format!("k = 5\n{access}"), "topology.k", "5 is not a fat tree's k: allowed an even number from 4 to 48"),
        (format!("k = 2\n{access}"), "topology.k", "allowed an even number from 4 to 48"),
        (format!("k = 50\n{access}"), "topology.k", "50 is not a fat tree's k"),
        (access.to_string(), "topology.k", "a fat tree needs k"),
        ("k = 4".to_string(), "topology.access", "needs its host links"),
        (format!("k = 4\noversubscription = 0\n{access}"), "topology.oversubscription", "0 is outside 1 to"),
        (format!("k = 4\nspines = 2\n{access}"), "topology.spines", "only applies to leaf_spine topologies"),
        (
            format!("k = 4\nbottleneck = {{ rate = \"1Gbps\", delay = \"1ms\" }}\n{access}"),
            "topology.bottleneck",
            "dumbbell",
        ),
        (format!("k = 4\nedge_agg = {{ rate = \"0bps\", delay = \"1us\" }}\n{access}"), "topology.edge_agg.rate", ""),
    ] {
        let err = error_of(&fat(&keys));
        assert_eq!(err.key, key, "{keys}: {err}");
        assert!(err.message.contains(fragment), "{keys}: {err}");
    }
    // A host the tree does not have.
    let err = error_of(&fat(&format!("k = 4\n{access}")).replace("\"h1\"", "\"h16\""));
    assert_eq!(err.key, "flows.0.to");
    assert!(err.message.contains("'h16' is not a node") && err.message.contains("hosts are h0 to h15"), "{err}");
    let spine = |keys: &str| fat(keys).replace("fat_tree", "leaf_spine");
    for (keys, key, fragment) in [
        (format!("leaves = 4\nspines = 0\nhosts_per_leaf = 2\n{access}"), "topology.spines", "0 is outside 1 to 4096"),
        (format!("leaves = 4\nhosts_per_leaf = 2\n{access}"), "topology.spines", "needs the number of spine switches"),
        (format!("spines = 2\nhosts_per_leaf = 2\n{access}"), "topology.leaves", "needs the number of leaf switches"),
        (format!("leaves = 4\nspines = 2\nhosts_per_leaf = 0\n{access}"), "topology.hosts_per_leaf", "0 is outside"),
        (
            format!("leaves = 400\nspines = 2\nhosts_per_leaf = 400\n{access}"),
            "topology.hosts_per_leaf",
            "160000 hosts",
        ),
        (
            format!("leaves = 4\nspines = 2\nhosts_per_leaf = 2\nk = 4\n{access}"),
            "topology.k",
            "only applies to fat_tree",
        ),
        (
            "leaves = 4\nspines = 2\nhosts_per_leaf = 2".to_string(),
            "topology.access",
            "a leaf-spine needs its host links",
        ),
    ] {
        let err = error_of(&spine(&keys));
        assert_eq!(err.key, key, "{keys}: {err}");
        assert!(err.message.contains(fragment), "{keys}: {err}");
    }
    let err = error_of(&MINIMAL_DUMBBELL.replace("[[flows]]", "k = 4\n[[flows]]"));
    assert_eq!(err.key, "topology.k");
    assert!(err.message.contains("only applies to fat_tree topologies, not 'dumbbell'"), "{err}");
}

const MINIMAL_DUMBBELL: &str = "[simulation]\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n[[flows]]\ncc = \"cubic\"\n";

#[test]
fn a_leaf_spine_routes_between_leaves_over_every_spine() {
    let text = r#"
        [simulation]
        duration = "1s"
        [topology]
        kind = "leaf_spine"
        leaves = 2
        spines = 4
        hosts_per_leaf = 8
        access = { rate = "10Gbps", delay = "1us", buffer = "500p" }
        uplink = { rate = "40Gbps", delay = "2us" }
        [[traffic]]
        pattern = "all_to_all"
        cc = "cubic"
        size = "20KB"
    "#;
    let results = run(text);
    // 16 hosts, every ordered pair: 240 flows, all complete.
    assert_eq!(results.flows.rows(), 240);
    assert!(results.flows.u64("bytes_delivered").iter().all(|&b| b == 20_000));
    // 128 flows cross between the leaves (8 x 8 each way); their data uses all four spines.
    let up = carried(&results, |link, dir| link.starts_with("leaf0-spine") && dir == "forward");
    assert_eq!(up.len(), 4);
    assert!(up.iter().all(|(_, packets)| *packets > 0), "{up:?}");
    let rates = results.links.u64("rate_bps");
    let uplink_row = (0..results.links.rows()).find(|&i| results.links.text("link")[i] == "leaf1-spine3").unwrap();
    assert_eq!(rates[uplink_row], 40_000_000_000);
}

#[test]
fn the_shipped_fat_tree_permutation_runs_and_repeats_itself() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/fat-tree-permutation.toml");
    let text = std::fs::read_to_string(path).expect("the scenario is shipped");
    let results = run(&text);
    let flows = &results.flows;
    assert_eq!(flows.rows(), 16);
    for i in 0..16 {
        let goodput = flows.f64("goodput_bps")[i];
        assert!(goodput > 0.0 && goodput <= 10e9, "flow {i}: {goodput}");
        assert_ne!(flows.text("source")[i], flows.text("destination")[i]);
    }
    // Same scenario and seed, same results.
    assert_eq!(format!("{:?}", run(&text)), format!("{results:?}"));
}

const K4: &str = r#"
    [simulation]
    duration = "50ms"
    [topology]
    kind = "fat_tree"
    k = 4
    access = { rate = "10Gbps", delay = "1us", buffer = "200p" }
"#;

#[test]
fn an_incast_has_its_senders_send_to_one_receiver_at_once() {
    let text = K4.to_string()
        + "[[traffic]]\npattern = \"incast\"\nreceiver = \"h5\"\nsenders = 8\nstart = \"1ms\"\nsize = \"64KB\"\ncc = \"dctcp\"\n";
    let incast = scenario(&text);
    assert_eq!(incast.flows.len(), 8);
    let mut senders: Vec<&str> = incast.flows.iter().map(|f| f.from.as_deref().unwrap()).collect();
    assert!(incast.flows.iter().all(|f| f.to.as_deref() == Some("h5")));
    assert!(incast.flows.iter().all(|f| f.start.nanos() == 1_000_000 && f.size.map(|s| s.0) == Some(64_000)));
    senders.sort_unstable();
    senders.dedup();
    assert_eq!(senders.len(), 8, "eight distinct senders");
    assert!(!senders.contains(&"h5"));
    // The run: every sender's 64 KB arrives; the flows start together.
    let results = Simulation::new(&incast).unwrap().run();
    assert!(results.flows.u64("bytes_delivered").iter().all(|&b| b == 64_000));
    assert!(results.flows.f64("start_s").iter().all(|&s| s == 0.001));
    // Another seed picks other senders (the same eight of fifteen: a chance of 1 / C(15, 8)).
    let other = scenario(&text.replace("duration = \"50ms\"", "duration = \"50ms\"\nseed = 2"));
    let mut again: Vec<&str> = other.flows.iter().map(|f| f.from.as_deref().unwrap()).collect();
    again.sort_unstable();
    assert_ne!(again, senders);
}

#[test]
fn all_to_all_and_poisson_patterns_expand_into_their_flows() {
    let all = scenario(
        &(K4.to_string() + "[[traffic]]\npattern = \"all_to_all\"\ncc = \"cubic\"\nhosts = [\"h0\", \"h4\", \"h8\"]\n"),
    );
    let pairs: Vec<(&str, &str)> =
        all.flows.iter().map(|f| (f.from.as_deref().unwrap(), f.to.as_deref().unwrap())).collect();
    assert_eq!(pairs, [("h0", "h4"), ("h0", "h8"), ("h4", "h0"), ("h4", "h8"), ("h8", "h0"), ("h8", "h4")]);
    assert_eq!(all.flows[0].name.as_deref(), Some("all_to_all-0"));
    let poisson = scenario(
        &(K4.to_string()
            + "[[traffic]]\npattern = \"poisson\"\nname = \"web\"\ncc = \"dctcp\"\nload = 0.3\nsizes = \"web_search\"\nstart = \"10ms\"\nstop = \"40ms\"\n"),
    );
    // 16 hosts x 10 Gbit/s x 0.3 / (8 x 1,711,250 B) = 3,506 transfers a second: about 105 in
    // 30 ms (a Poisson count: standard deviation 10).
    let n = poisson.flows.len();
    assert!((55..155).contains(&n), "{n}");
    for flow in &poisson.flows {
        assert!((10_000_000..40_000_000).contains(&flow.start.nanos()));
        assert!(flow.size.is_some_and(|s| s.0 >= 1 && s.0 <= 30_000_000));
        assert_ne!(flow.from, flow.to);
        assert!(flow.stop.is_none(), "arrivals stop at `stop`; transfers run to completion");
    }
    // The resolved scenario lists the flows and no patterns, and reads back the same.
    let written = poisson.resolved().to_toml();
    assert!(!written.contains("[[traffic]]"));
    assert_eq!(Scenario::from_toml(&written).unwrap().flows.len(), n);
}

#[test]
fn traffic_patterns_refuse_what_they_cannot_mean() {
    let entry = |keys: &str| K4.to_string() + "[[traffic]]\ncc = \"cubic\"\n" + keys + "\n";
    for (keys, key, fragment) in [
        ("pattern = \"incast\"\nsenders = 16", "traffic.0.senders", "16 is outside 1 to 15"),
        ("pattern = \"incast\"", "traffic.0.senders", "needs the number of senders"),
        ("pattern = \"incast\"\nsenders = 2\nreceiver = \"h99\"", "traffic.0.receiver", "'h99' is not one of"),
        ("pattern = \"poisson\"\nsizes = \"web_search\"\nload = 1.5", "traffic.0.load", "1.5 is outside (0, 1]"),
        ("pattern = \"poisson\"\nload = 0.5", "traffic.0.sizes", "web_search or data_mining"),
        ("pattern = \"poisson\"\nsizes = \"websearch\"\nload = 0.5", "traffic.0.sizes", "web_search"),
        (
            "pattern = \"poisson\"\nsizes = \"web_search\"\nload = 0.5\nsize = \"1MB\"",
            "traffic.0.size",
            "only applies to",
        ),
        ("pattern = \"permutation\"\nload = 0.5", "traffic.0.load", "only applies to poisson"),
        ("pattern = \"permutation\"\nhosts = [\"h0\"]", "traffic.0.hosts", "at least two hosts"),
        ("pattern = \"permutation\"\nhosts = [\"h0\", \"h0\"]", "traffic.0.hosts.1", "listed twice"),
        ("pattern = \"permutation\"\ncc = \"cubik\"", "", ""),
        ("pattern = \"permutation\"\nstop = \"0s\"", "traffic.0.stop", "not after start 0s"),
        (
            "pattern = \"poisson\"\nsizes = \"web_search\"\nload = 0.5\nstart = \"60ms\"",
            "traffic.0.start",
            "end of the run",
        ),
        ("pattern = \"shuffle\"", "traffic.0.pattern", "permutation"),
    ] {
        let text = entry(keys).replace(
            "cc = \"cubic\"\npattern = \"permutation\"\ncc = \"cubik\"",
            "pattern = \"permutation\"\ncc = \"cubik\"",
        );
        let err = error_of(&text);
        let (key, fragment) =
            if keys.contains("cubik") { ("traffic.0.cc", "did you mean 'cubic'") } else { (key, fragment) };
        assert_eq!(err.key, key, "{keys}: {err}");
        assert!(err.message.contains(fragment), "{keys}: {err}");
    }
    let err = error_of(
        &MINIMAL_DUMBBELL.replace("[[flows]]", "[[traffic]]\npattern = \"permutation\"\ncc = \"cubic\"\n[[flows]]"),
    );
    assert_eq!(err.key, "traffic.0.hosts");
    let too_many = K4.replace("k = 4", "k = 48") + "[[traffic]]\npattern = \"all_to_all\"\ncc = \"cubic\"\n";
    let err = error_of(&too_many);
    assert_eq!(err.key, "traffic.0");
    // 27,648 hosts, each sending to every other.
    let flows = 27_648u64 * 27_647;
    assert!(err.message.contains(&format!("stand for about {flows} flows")), "{err}");
    // Within the flow cap but beyond the memory limit: 128 x 127 = 16,256 flows of at least 10 KB
    // of state each (tcplab's estimate) are more than a limit of 100 MB holds.
    let limited = K4.replace("k = 4", "k = 8").replace("[simulation]", "[simulation]\nmax_memory = \"100MB\"");
    let err = error_of(&(limited + "[[traffic]]\npattern = \"all_to_all\"\ncc = \"cubic\"\n"));
    assert_eq!(err.key, "traffic.0");
    assert!(err.message.contains("16256 flows, whose state needs about"), "{err}");
    assert!(err.message.contains("simulation.max_memory = 100 MB"), "{err}");
}
