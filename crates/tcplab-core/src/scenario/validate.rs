//! Validation: everything serde cannot check. Ranges, keys that only apply to some kinds, required
//! combinations and references between sections. Every error names the key, the value and what is
//! allowed; the first problem found is reported.

use super::error::{did_you_mean, ScenarioError};
use super::model::{FlowSpec, LinkSpec, OffUnsent, Protocol, QueueKind, QueueSpec, Scenario, TcpSpec, TopologyKind};
use super::validate_direction::validate_direction;
use super::validate_fabric::check_kind_keys;
use crate::cc;
use std::collections::HashSet;

use crate::units::Buffer;

impl Scenario {
    /// Checks everything serde cannot: ranges, required combinations, references.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.simulation.duration.nanos() == 0 {
            return Err(ScenarioError::new("simulation.duration", "must be more than 0s"));
        }
        if self.simulation.sample_interval.nanos() == 0 {
            return Err(ScenarioError::new("simulation.sample_interval", "must be more than 0s"));
        }
        self.tcp.to_config("tcp")?;
        self.validate_topology()?;
        if !self.traffic.is_empty() {
            return Err(ScenarioError::new(
                "traffic",
                "is expanded into flows when a scenario is read (Scenario::from_toml or from_json), not after",
            ));
        }
        if self.flows.is_empty() {
            return Err(ScenarioError::new("flows", "at least one [[flows]] or [[traffic]] entry is required"));
        }
        self.check_resources()?;
        let node_names: Vec<String> = self.node_names();
        let nodes = Nodes { known: node_names.iter().map(String::as_str).collect(), names: &node_names };
        for (index, flow) in self.flows.iter().enumerate() {
            self.validate_flow(&format!("flows[{index}]"), flow, &nodes)?;
        }
        self.check_set_up()
    }

    pub(super) fn node_names(&self) -> Vec<String> {
        match self.topology.kind {
            TopologyKind::Dumbbell => vec![],
            TopologyKind::Chain => (0..self.topology.routers.unwrap_or(0)).map(|i| format!("r{i}")).collect(),
            TopologyKind::Custom => self.topology.nodes.clone().unwrap_or_default(),
            TopologyKind::FatTree | TopologyKind::LeafSpine => {
                self.fabric().map(|fabric| fabric.nodes.into_iter().map(|(name, _)| name).collect()).unwrap_or_default()
            }
        }
    }

    pub(super) fn validate_topology(&self) -> Result<(), ScenarioError> {
        let topology = &self.topology;
        match topology.kind {
            TopologyKind::Dumbbell => self.validate_dumbbell()?,
            TopologyKind::Chain => self.validate_chain()?,
            TopologyKind::Custom => self.validate_custom()?,
            TopologyKind::FatTree | TopologyKind::LeafSpine => {
                let links = if topology.kind == TopologyKind::FatTree {
                    self.validate_fat_tree()?
                } else {
                    self.validate_leaf_spine()?
                };
                for (key, link) in links {
                    validate_link(&format!("topology.{key}"), link, false)?;
                }
            }
        }
        check_kind_keys(topology)?;
        if let Some(access) = &topology.access {
            validate_link("topology.access", access, false)?;
        }
        if topology.bdp_rtt.is_some_and(|d| d.nanos() == 0) {
            return Err(ScenarioError::new("topology.bdp_rtt", "must be more than 0s"));
        }
        Ok(())
    }

    fn validate_dumbbell(&self) -> Result<(), ScenarioError> {
        let topology = &self.topology;
        let bottleneck = topology.bottleneck.as_ref().ok_or_else(|| {
            ScenarioError::new("topology.bottleneck", "a dumbbell needs a [topology.bottleneck] link")
        })?;
        validate_link("topology.bottleneck", bottleneck, false)?;
        Ok(())
    }

    fn validate_chain(&self) -> Result<(), ScenarioError> {
        let topology = &self.topology;
        let routers = topology
            .routers
            .ok_or_else(|| ScenarioError::new("topology.routers", "a chain needs the number of routers (2 or more)"))?;
        if !(2..=1000).contains(&routers) {
            return Err(ScenarioError::new("topology.routers", format!("{routers} is outside 2 to 1000")));
        }
        let hops = topology.hops.as_ref().ok_or_else(|| {
            ScenarioError::new("topology.hops", "a chain needs [[topology.hops]]: one link, or one per hop")
        })?;
        if hops.len() != 1 && hops.len() != routers as usize - 1 {
            return Err(ScenarioError::new(
                "topology.hops",
                format!("has {} entries; give 1 (used for every hop) or {} (one per hop)", hops.len(), routers - 1),
            ));
        }
        for (i, hop) in hops.iter().enumerate() {
            validate_link(&format!("topology.hops[{i}]"), hop, false)?;
        }
        Ok(())
    }

    fn validate_custom(&self) -> Result<(), ScenarioError> {
        let topology = &self.topology;
        let nodes = topology
            .nodes
            .as_ref()
            .ok_or_else(|| ScenarioError::new("topology.nodes", "a custom topology needs a list of node names"))?;
        let mut known: HashSet<&str> = HashSet::with_capacity(nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            if node.is_empty() || !known.insert(node.as_str()) {
                return Err(ScenarioError::new(
                    format!("topology.nodes[{i}]"),
                    format!("'{node}' is empty or named twice; node names must be unique"),
                ));
            }
        }
        let links = topology
            .links
            .as_ref()
            .ok_or_else(|| ScenarioError::new("topology.links", "a custom topology needs [[topology.links]]"))?;
        for (i, link) in links.iter().enumerate() {
            let key = format!("topology.links[{i}]");
            validate_link(&key, link, true)?;
            for (end, value) in [("from", &link.from), ("to", &link.to)] {
                if !known.contains(value.as_deref().expect("validate_link checks from/to")) {
                    return Err(ScenarioError::new(
                        format!("{key}.{end}"),
                        format!("'{}' is not a node; known: {}", value.as_ref().unwrap(), nodes.join(", ")),
                    ));
                }
            }
        }
        // Flows with access_delay get a sender host "s<i>" (the i-th flow after `count` is
        // expanded): a node of that name would be ambiguous.
        for (i, _) in self.expanded_flows().enumerate().filter(|(_, (_, flow))| flow.access_delay.is_some()) {
            let host = format!("s{i}");
            if let Some(position) = nodes.iter().position(|node| *node == host) {
                return Err(ScenarioError::new(
                    format!("topology.nodes[{position}]"),
                    format!("'{host}' is the sender host a flow with access_delay gets; rename the node"),
                ));
            }
        }
        Ok(())
    }

    fn validate_flow(&self, key: &str, flow: &FlowSpec, nodes: &Nodes) -> Result<(), ScenarioError> {
        if flow.count == 0 || flow.count > 100_000 {
            return Err(ScenarioError::new(format!("{key}.count"), format!("{} is outside 1 to 100000", flow.count)));
        }
        match flow.protocol {
            Protocol::Tcp => self.validate_tcp_flow(key, flow)?,
            Protocol::Udp => validate_udp_flow(key, flow)?,
        }
        validate_flow_timing(key, flow)?;
        self.validate_flow_placement(key, flow, nodes)
    }

    pub(super) fn validate_tcp_flow(&self, key: &str, flow: &FlowSpec) -> Result<(), ScenarioError> {
        let name = flow.cc.as_ref().ok_or_else(|| {
            ScenarioError::new(
                format!("{key}.cc"),
                format!("a TCP flow needs an algorithm; available: {}", cc::available()),
            )
        })?;
        let info = cc::ConnectionInfo::new(1448, 10, 1);
        if !cc::exists(name) {
            let hint =
                did_you_mean(name, cc::names()).map_or(String::new(), |close| format!("did you mean '{close}'? "));
            return Err(ScenarioError::new(
                format!("{key}.cc"),
                format!("unknown algorithm '{name}'; {hint}available: {}", cc::available()),
            ));
        }
        cc::resolve(name).map_err(|e| ScenarioError::new(format!("{key}.cc"), e))?;
        let controller =
            cc::create(name, &flow.params, info).map_err(|e| ScenarioError::new(format!("{key}.params"), e))?;
        if controller.required_ecn().is_some() {
            // The flow's own `ecn` wins over the scenario's.
            let own = flow.tcp.as_ref().and_then(|t| t.ecn);
            let ecn_key = match (own, self.tcp.ecn) {
                (Some(false), _) => Some(format!("{key}.tcp.ecn")),
                (None, Some(false)) => Some("tcp.ecn".to_string()),
                _ => None,
            };
            if let Some(ecn_key) = ecn_key {
                return Err(ScenarioError::new(
                    ecn_key,
                    format!(
                        "false, but {key} runs '{name}', which needs ECN (Linux negotiates ECN for it whatever \
                         net.ipv4.tcp_ecn says): leave ecn unset or true for this flow"
                    ),
                ));
            }
        }
        if flow.tcp.as_ref().is_some_and(|t| t.profile.is_some()) {
            return Err(ScenarioError::new(
                format!("{key}.tcp.profile"),
                "a profile applies to the whole scenario: set it in [tcp]",
            ));
        }
        let tcp = TcpSpec::for_flow(&flow.tcp.clone().unwrap_or_default(), &self.tcp);
        tcp.to_config(&format!("{key}.tcp"))?;
        if flow.packet_size.is_some() {
            return Err(ScenarioError::new(
                format!("{key}.packet_size"),
                "only applies to UDP flows (TCP uses tcp.mss)",
            ));
        }
        Ok(())
    }

    /// Where a flow enters and leaves: dumbbells place it themselves, other topologies name nodes.
    fn validate_flow_placement(&self, key: &str, flow: &FlowSpec, nodes: &Nodes) -> Result<(), ScenarioError> {
        match self.topology.kind {
            TopologyKind::Dumbbell => {
                for (field, present) in [("from", flow.from.is_some()), ("to", flow.to.is_some())] {
                    if present {
                        return Err(ScenarioError::new(
                            format!("{key}.{field}"),
                            "dumbbell flows get their own sender and receiver; from/to apply to chain and custom topologies",
                        ));
                    }
                }
            }
            kind => {
                if kind.is_fabric() && flow.access_delay.is_some() {
                    return Err(ScenarioError::new(
                        format!("{key}.access_delay"),
                        "applies to dumbbell, chain and custom topologies; a fabric's hosts have their access links",
                    ));
                }
                for (field, value) in [("from", &flow.from), ("to", &flow.to)] {
                    let value = value.as_ref().ok_or_else(|| {
                        ScenarioError::new(
                            format!("{key}.{field}"),
                            format!("is required; known nodes: {}", nodes.listing()),
                        )
                    })?;
                    if !nodes.known.contains(value.as_str()) {
                        return Err(ScenarioError::new(
                            format!("{key}.{field}"),
                            format!("'{value}' is not a node; known: {}", nodes.listing()),
                        ));
                    }
                }
                if flow.from == flow.to {
                    return Err(ScenarioError::new(format!("{key}.to"), "must differ from `from`"));
                }
            }
        }
        Ok(())
    }
}

impl QueueSpec {
    fn validate(&self, key: &str) -> Result<(), ScenarioError> {
        // Every key set (the spec serialises only those) must belong to the queue's kind.
        let set = serde_json::to_value(self).expect("a queue spec serialises");
        for field in set.as_object().into_iter().flat_map(|table| table.keys()) {
            let kinds = QueueKind::taking(field);
            if field != "kind" && !kinds.contains(&self.kind) {
                let names: Vec<&str> = kinds.iter().map(|kind| kind.name()).collect();
                return Err(ScenarioError::new(
                    format!("{key}.{field}"),
                    format!("only applies to {} queues", join_and(&names)),
                ));
            }
        }
        self.validate_step(key)?;
        for (field, value) in [("w_q", self.w_q), ("max_p", self.max_p), ("mark_p", self.mark_p)] {
            if let Some(v) = value {
                if !(v > 0.0 && v <= 1.0) {
                    return Err(ScenarioError::new(format!("{key}.{field}"), format!("{v} is outside (0, 1]")));
                }
            }
        }
        if let (Some(min), Some(max)) = (self.min_th, self.max_th) {
            let same_unit = matches!(
                (min, max),
                (Buffer::Packets(_), Buffer::Packets(_))
                    | (Buffer::Bytes(_), Buffer::Bytes(_))
                    | (Buffer::Bdp(_), Buffer::Bdp(_))
            );
            let ordered = match (min, max) {
                (Buffer::Packets(a), Buffer::Packets(b)) | (Buffer::Bytes(a), Buffer::Bytes(b)) => a < b,
                (Buffer::Bdp(a), Buffer::Bdp(b)) => a < b,
                _ => true,
            };
            if !same_unit || !ordered {
                return Err(ScenarioError::new(
                    format!("{key}.max_th"),
                    format!("{max} must be above min_th {min}, in the same unit"),
                ));
            }
        }
        // PIE's gains: Linux takes 0 to 32 sixteenths, i.e. 0 to 2 per second.
        for (field, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            if let Some(v) = value {
                if !(0.0..=2.0).contains(&v) {
                    return Err(ScenarioError::new(
                        format!("{key}.{field}"),
                        format!("{v} is outside 0 to 2 (per second)"),
                    ));
                }
            }
        }
        for (field, value) in [("target", self.target), ("interval", self.interval), ("tupdate", self.tupdate)] {
            if value.is_some_and(|d| d.nanos() == 0) {
                return Err(ScenarioError::new(format!("{key}.{field}"), "must be more than 0s"));
            }
        }
        if let Some(flows) = self.flows {
            if !(1..=65_536).contains(&flows) {
                return Err(ScenarioError::new(format!("{key}.flows"), format!("{flows} is outside 1 to 65536")));
            }
        }
        if let Some(quantum) = self.quantum.filter(|q| q.0 < 64) {
            return Err(ScenarioError::new(
                format!("{key}.quantum"),
                format!("{}B is below the minimum of 64B", quantum.0),
            ));
        }
        if self.mean_packet_size.is_some_and(|m| m.0 == 0) {
            return Err(ScenarioError::new(format!("{key}.mean_packet_size"), "must be more than 0B"));
        }
        Ok(())
    }
}

impl QueueSpec {
    /// A step queue needs its threshold K, above 0.
    fn validate_step(&self, key: &str) -> Result<(), ScenarioError> {
        if self.kind != QueueKind::Step {
            return Ok(());
        }
        match self.threshold {
            None => Err(ScenarioError::new(
                format!("{key}.threshold"),
                "is required for a step queue: the queue length K at which it marks, e.g. \"65p\", \"97KB\" or \"0.2BDP\"",
            )),
            Some(k) if is_empty_buffer(&k) => Err(ScenarioError::new(
                format!("{key}.threshold"),
                format!("{k} must be more than 0: a step queue would mark every packet"),
            )),
            Some(_) => Ok(()),
        }
    }
}

/// "a", "a and b", "a, b and c".
fn join_and(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The topology's node names, in order for messages and as a set for lookups (so validation
/// stays linear in the number of flows and nodes).
struct Nodes<'a> {
    names: &'a [String],
    known: HashSet<&'a str>,
}

impl Nodes<'_> {
    /// The names for a message: all of them, or for a large fabric the first dozen, the count and
    /// how its hosts are named.
    fn listing(&self) -> String {
        const SHOWN: usize = 12;
        if self.names.len() <= 2 * SHOWN {
            return self.names.join(", ");
        }
        let hosts = self.names.iter().filter(|name| name.starts_with('h') && name[1..].parse::<u32>().is_ok()).count();
        let hint = if hosts > 0 { format!(" (hosts are h0 to h{})", hosts - 1) } else { String::new() };
        format!("{}, ... and {} more{hint}", self.names[..SHOWN].join(", "), self.names.len() - SHOWN)
    }
}

fn validate_udp_flow(key: &str, flow: &FlowSpec) -> Result<(), ScenarioError> {
    if flow.rate.is_none() {
        return Err(ScenarioError::new(format!("{key}.rate"), "a UDP flow needs a rate, e.g. \"10Mbps\""));
    }
    for (field, present) in [
        ("cc", flow.cc.is_some()),
        ("params", !flow.params.is_null()),
        ("size", flow.size.is_some()),
        ("restart", flow.restart),
        ("tcp", flow.tcp.is_some()),
    ] {
        if present {
            return Err(ScenarioError::new(format!("{key}.{field}"), "only applies to TCP flows"));
        }
    }
    if let Some(size) = flow.packet_size {
        if !(29..=65_535).contains(&size.0) {
            return Err(ScenarioError::new(format!("{key}.packet_size"), format!("{size} is outside 29B to 65535B")));
        }
    }
    Ok(())
}

/// Size, stop time and on/off periods.
fn validate_flow_timing(key: &str, flow: &FlowSpec) -> Result<(), ScenarioError> {
    if flow.size.is_some_and(|s| s.0 == 0) {
        return Err(ScenarioError::new(format!("{key}.size"), "must be at least 1B"));
    }
    if let (Some(stop), start) = (flow.stop, flow.start) {
        if stop <= start {
            return Err(ScenarioError::new(format!("{key}.stop"), format!("{stop} is not after start {start}")));
        }
    }
    match (flow.on_time, flow.off_time) {
        (Some(on), Some(off)) if on.nanos() == 0 || off.nanos() == 0 => {
            return Err(ScenarioError::new(format!("{key}.on_time"), "on_time and off_time must be more than 0s"))
        }
        (Some(_), None) | (None, Some(_)) => {
            return Err(ScenarioError::new(format!("{key}.on_time"), "give both on_time and off_time, or neither"))
        }
        _ => {}
    }
    validate_restart(key, flow)?;
    if flow.off_unsent == OffUnsent::Keep {
        if flow.on_time.is_none() || flow.protocol != Protocol::Tcp {
            return Err(ScenarioError::new(
                format!("{key}.off_unsent"),
                "applies to TCP on/off flows (on_time and off_time)",
            ));
        }
        if flow.rate.is_none() {
            return Err(ScenarioError::new(
                format!("{key}.off_unsent"),
                "\"keep\" needs the application's rate (e.g. rate = \"200Mbps\"): without one it writes without end while on",
            ));
        }
    }
    Ok(())
}

/// Restarting transfers: TCP with a size, not on/off; a think time only with them.
fn validate_restart(key: &str, flow: &FlowSpec) -> Result<(), ScenarioError> {
    if flow.think_time.is_some() && !flow.restart {
        return Err(ScenarioError::new(format!("{key}.think_time"), "applies to restarting flows (restart = true)"));
    }
    if !flow.restart {
        return Ok(());
    }
    if flow.size.is_none() {
        return Err(ScenarioError::new(
            format!("{key}.restart"),
            "needs the size of each transfer, e.g. size = \"19200B\"",
        ));
    }
    if flow.on_time.is_some() {
        return Err(ScenarioError::new(format!("{key}.restart"), "cannot be combined with on_time and off_time"));
    }
    Ok(())
}

fn validate_link(key: &str, link: &LinkSpec, needs_ends: bool) -> Result<(), ScenarioError> {
    validate_link_ends(key, link, needs_ends)?;
    let buffers = [
        ("buffer", Some(link.buffer)),
        ("forward.buffer", link.forward.buffer),
        ("reverse.buffer", link.reverse.buffer),
    ];
    for (field, buffer) in buffers {
        if let Some(buffer) = buffer.filter(is_empty_buffer) {
            return Err(ScenarioError::new(
                format!("{key}.{field}"),
                format!("{buffer} holds no packet, so the link would drop everything; the smallest buffer is 1p"),
            ));
        }
    }
    link.queue.validate(&format!("{key}.queue"))?;
    if let Some(threshold) = link.queue.threshold {
        let buffers = [
            ("buffer", Some(link.buffer)),
            ("forward.buffer", link.forward.buffer),
            ("reverse.buffer", link.reverse.buffer),
        ];
        for (field, buffer) in buffers {
            let Some(buffer) = buffer else { continue };
            let below = match (threshold, buffer) {
                (Buffer::Packets(k), Buffer::Packets(b)) | (Buffer::Bytes(k), Buffer::Bytes(b)) => Some(k < b),
                (Buffer::Bdp(k), Buffer::Bdp(b)) => Some(k < b),
                // Mixed units are not compared (docs/queues/step.md): a threshold above the
                // buffer then never marks.
                _ => None,
            };
            if below == Some(false) {
                return Err(ScenarioError::new(
                    format!("{key}.queue.threshold"),
                    format!("{threshold} is not below the {field} {buffer}: the queue would drop before it marks"),
                ));
            }
        }
    }
    for (direction, spec) in [("forward", &link.forward), ("reverse", &link.reverse)] {
        validate_direction(&format!("{key}.{direction}"), spec)?;
    }
    Ok(())
}

/// Custom topologies' links name the nodes they join; other links must not.
fn validate_link_ends(key: &str, link: &LinkSpec, needs_ends: bool) -> Result<(), ScenarioError> {
    if needs_ends {
        for (end, value) in [("from", &link.from), ("to", &link.to)] {
            if value.is_none() {
                return Err(ScenarioError::new(format!("{key}.{end}"), "is required for links of a custom topology"));
            }
        }
        if link.from == link.to {
            return Err(ScenarioError::new(format!("{key}.to"), "a link must join two different nodes"));
        }
    } else {
        for (end, value) in [("from", &link.from), ("to", &link.to)] {
            if value.is_some() {
                return Err(ScenarioError::new(
                    format!("{key}.{end}"),
                    "only links of a custom topology name their nodes",
                ));
            }
        }
    }
    Ok(())
}

fn is_empty_buffer(buffer: &Buffer) -> bool {
    match *buffer {
        Buffer::Packets(n) | Buffer::Bytes(n) => n == 0,
        Buffer::Bdp(multiple) => multiple == 0.0,
    }
}
