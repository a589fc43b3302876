//! `[[traffic]]`: traffic patterns that stand for many flows (docs/datacenter.md). When a scenario is
//! read, each entry is checked and expanded into `[[flows]]` entries, one per transfer, so the
//! scenario stored beside the results lists every flow that ran. The draws come from the entry's
//! own random stream (seed, run, entry index): the same scenario gives the same flows.

use super::error::ScenarioError;
use super::model::{FlowSpec, OffUnsent, OnOffDistribution, Protocol, Scenario, TopologyKind};
use super::resources::{human_bytes, FLOW_STATE_BYTES};
use super::traffic_spec::{Pattern, TrafficSpec};
use crate::sim::{rng_stream, StreamKind};
use crate::traffic::patterns::{choose_except, derangement, expected_arrivals, poisson_arrivals};
use crate::traffic::workloads::Workload;
use crate::units::{Bytes, Duration};

/// The most flows all `[[traffic]]` entries may expand into; the run's memory estimate usually
/// refuses far fewer (`simulation.max_memory`).
const MAX_GENERATED_FLOWS: f64 = 1_000_000.0;

/// What an entry expands into, before the flows are written.
struct Transfers {
    /// (source host, destination host, start, size) per flow; host indices into `hosts`.
    pairs: Vec<(usize, usize, Duration, Option<Bytes>)>,
    hosts: Vec<String>,
}

impl Scenario {
    /// Replaces every `[[traffic]]` entry by the flows it stands for, appended to `flows`.
    pub(super) fn expand_traffic(&mut self) -> Result<(), ScenarioError> {
        let entries = std::mem::take(&mut self.traffic);
        let mut generated = 0.0;
        let limit = self.simulation.max_memory.0 as f64;
        for (index, entry) in entries.iter().enumerate() {
            let key = format!("traffic[{index}]");
            self.validate_tcp_flow(&key, &entry.template())?;
            let hosts = self.pattern_hosts(&key, entry)?;
            generated += self.expected_flows(&key, entry, hosts.len())?;
            // Refused before the flows exist (each entry is about 2 KB, each flow's state is
            // estimated at 20 KB): the run's memory check would refuse them anyway.
            let state = (generated + self.flows.len() as f64) * FLOW_STATE_BYTES;
            if generated > MAX_GENERATED_FLOWS || state > limit {
                return Err(ScenarioError::new(
                    key,
                    format!(
                        "the traffic patterns stand for about {generated:.0} flows, whose state needs about {}: more \
                         than {MAX_GENERATED_FLOWS:.0} flows or simulation.max_memory = {}; use fewer hosts, a lower \
                         load or a shorter window, or raise simulation.max_memory",
                        human_bytes(state),
                        human_bytes(limit)
                    ),
                ));
            }
            let transfers = self.transfers(&key, index, entry, hosts)?;
            let base = entry.name.clone().unwrap_or_else(|| entry.pattern.name().to_string());
            self.flows.reserve(transfers.pairs.len());
            for (i, (source, destination, start, size)) in transfers.pairs.into_iter().enumerate() {
                let mut flow = entry.template();
                flow.name = Some(format!("{base}-{i}"));
                flow.from = Some(transfers.hosts[source].clone());
                flow.to = Some(transfers.hosts[destination].clone());
                flow.start = start;
                flow.size = size;
                self.flows.push(flow);
            }
        }
        Ok(())
    }

    /// The entry's hosts: as listed (each a node, at least two), or every host of a fabric.
    fn pattern_hosts(&self, key: &str, entry: &TrafficSpec) -> Result<Vec<String>, ScenarioError> {
        let hosts = match (&entry.hosts, self.fabric()) {
            (Some(hosts), _) => hosts.clone(),
            (None, Some(fabric)) => {
                fabric.nodes[fabric.first_host as usize..].iter().map(|(name, _)| name.clone()).collect()
            }
            (None, None) => {
                return Err(ScenarioError::new(
                    format!("{key}.hosts"),
                    format!(
                        "is required on a {} topology (only fat_tree and leaf_spine have hosts of their own): list the \
                         nodes that take part",
                        self.topology.kind.name()
                    ),
                ))
            }
        };
        if self.topology.kind == TopologyKind::Dumbbell {
            return Err(ScenarioError::new(
                format!("{key}.pattern"),
                "traffic patterns run between named hosts: use a fat_tree, leaf_spine, chain or custom topology",
            ));
        }
        let known: std::collections::HashSet<String> = self.node_names().into_iter().collect();
        let mut seen = std::collections::HashSet::new();
        for (i, host) in hosts.iter().enumerate() {
            if !known.contains(host) || !seen.insert(host) {
                return Err(ScenarioError::new(
                    format!("{key}.hosts[{i}]"),
                    format!("'{host}' is not a node of the topology, or is listed twice"),
                ));
            }
        }
        if hosts.len() < 2 {
            return Err(ScenarioError::new(format!("{key}.hosts"), "a traffic pattern needs at least two hosts"));
        }
        Ok(hosts)
    }

    /// How many flows an entry will make (Poisson: the expected number), checking the keys that
    /// apply to its pattern.
    fn expected_flows(&self, key: &str, entry: &TrafficSpec, hosts: usize) -> Result<f64, ScenarioError> {
        let pattern = entry.pattern;
        let only = |field: &str, present: bool, patterns: &str| {
            if present {
                Err(ScenarioError::new(format!("{key}.{field}"), format!("only applies to {patterns} patterns")))
            } else {
                Ok(())
            }
        };
        only("receiver", entry.receiver.is_some() && pattern != Pattern::Incast, "incast")?;
        only("senders", entry.senders.is_some() && pattern != Pattern::Incast, "incast")?;
        only("load", entry.load.is_some() && pattern != Pattern::Poisson, "poisson")?;
        only("sizes", entry.sizes.is_some() && pattern != Pattern::Poisson, "poisson")?;
        only("size", entry.size.is_some() && pattern == Pattern::Poisson, "permutation, all_to_all and incast")?;
        if entry.size.is_some_and(|s| s.0 == 0) {
            return Err(ScenarioError::new(format!("{key}.size"), "must be at least 1B"));
        }
        let end = entry.stop.unwrap_or(self.simulation.duration);
        if end <= entry.start && (entry.stop.is_some() || pattern == Pattern::Poisson) {
            let (field, what) = if entry.stop.is_some() { ("stop", "") } else { ("start", " (the end of the run)") };
            let ending = if pattern == Pattern::Poisson { "arrivals would end" } else { "the flows would stop" };
            return Err(ScenarioError::new(
                format!("{key}.{field}"),
                format!("{ending} at {end}{what}, not after start {}", entry.start),
            ));
        }
        Ok(match pattern {
            Pattern::Permutation => hosts as f64,
            Pattern::AllToAll => hosts as f64 * (hosts as f64 - 1.0),
            Pattern::Incast => self.incast_senders(key, entry, hosts)? as f64,
            Pattern::Poisson => {
                let (load, workload) = poisson_settings(key, entry)?;
                let rate = self.host_rate_bps();
                expected_arrivals(hosts, rate, load, workload, end.nanos() - entry.start.nanos())
            }
        })
    }

    fn incast_senders(&self, key: &str, entry: &TrafficSpec, hosts: usize) -> Result<usize, ScenarioError> {
        let senders = entry.senders.ok_or_else(|| {
            ScenarioError::new(format!("{key}.senders"), "an incast needs the number of senders, e.g. senders = 8")
        })?;
        if senders == 0 || senders as usize >= hosts {
            return Err(ScenarioError::new(
                format!("{key}.senders"),
                format!("{senders} is outside 1 to {} (the hosts other than the receiver)", hosts - 1),
            ));
        }
        Ok(senders as usize)
    }

    /// The flows of one entry, drawn from its random stream.
    fn transfers(
        &self,
        key: &str,
        index: usize,
        entry: &TrafficSpec,
        hosts: Vec<String>,
    ) -> Result<Transfers, ScenarioError> {
        let mut rng = rng_stream(self.simulation.seed, self.simulation.run, StreamKind::Traffic, index as u64);
        let n = hosts.len();
        let (start, size) = (entry.start, entry.size);
        let pairs = match entry.pattern {
            Pattern::Permutation => {
                derangement(n, &mut rng).into_iter().enumerate().map(|(s, d)| (s, d, start, size)).collect()
            }
            Pattern::AllToAll => {
                (0..n).flat_map(|s| (0..n).filter(move |&d| d != s).map(move |d| (s, d, start, size))).collect()
            }
            Pattern::Incast => {
                let receiver = match &entry.receiver {
                    None => 0,
                    Some(name) => hosts.iter().position(|h| h == name).ok_or_else(|| {
                        ScenarioError::new(
                            format!("{key}.receiver"),
                            format!("'{name}' is not one of the pattern's hosts"),
                        )
                    })?,
                };
                let senders = self.incast_senders(key, entry, n)?;
                choose_except(n, receiver, senders, &mut rng).into_iter().map(|s| (s, receiver, start, size)).collect()
            }
            Pattern::Poisson => {
                let (load, workload) = poisson_settings(key, entry)?;
                let end = entry.stop.unwrap_or(self.simulation.duration).nanos();
                let window = (start.nanos(), end);
                poisson_arrivals(n, self.host_rate_bps(), load, workload, window, &mut rng)
                    .into_iter()
                    .map(|a| (a.source, a.destination, Duration(a.at), Some(Bytes(a.bytes))))
                    .collect()
            }
        };
        Ok(Transfers { pairs, hosts })
    }

    /// The rate of a host's link that a Poisson load is a fraction of: the fabric's access link
    /// (custom topologies: their fastest link).
    fn host_rate_bps(&self) -> u64 {
        match &self.topology.access {
            Some(access) if self.topology.kind.is_fabric() => access.rate.bps(),
            _ => self.topology.links.iter().flatten().map(|l| l.rate.bps()).max().unwrap_or(0),
        }
    }
}

fn poisson_settings(key: &str, entry: &TrafficSpec) -> Result<(f64, Workload), ScenarioError> {
    let load = entry.load.ok_or_else(|| {
        ScenarioError::new(
            format!("{key}.load"),
            "Poisson arrivals need a load: the fraction of the host links' capacity, e.g. 0.5",
        )
    })?;
    if !(load > 0.0 && load <= 1.0) {
        return Err(ScenarioError::new(format!("{key}.load"), format!("{load} is outside (0, 1]")));
    }
    let names: Vec<&str> = Workload::ALL.iter().map(|w| w.name()).collect();
    let workload = entry.sizes.ok_or_else(|| {
        ScenarioError::new(
            format!("{key}.sizes"),
            format!("Poisson arrivals need a size distribution: {}", names.join(" or ")),
        )
    })?;
    Ok((load, workload))
}

impl TrafficSpec {
    /// The flow every flow of the entry starts from: its TCP settings, no ends yet.
    fn template(&self) -> FlowSpec {
        FlowSpec {
            name: None,
            protocol: Protocol::Tcp,
            cc: self.cc.clone(),
            params: self.params.clone(),
            count: 1,
            start: self.start,
            start_spread: None,
            stop: self.stop.filter(|_| self.pattern != Pattern::Poisson),
            size: self.size,
            rate: None,
            packet_size: None,
            on_time: None,
            off_time: None,
            on_off_distribution: OnOffDistribution::Constant,
            off_unsent: OffUnsent::Discard,
            restart: false,
            think_time: None,
            tcp: self.tcp.clone(),
            access_delay: None,
            from: None,
            to: None,
        }
    }
}
