//! Building a simulation from a scenario: nodes and links of the topology, each flow's endpoints,
//! routes, base RTTs, queues sized from the BDPs those RTTs give, and the flows themselves.
//!
//! Random streams are keyed by what they serve (channel, queue, flow, algorithm) and its index, so
//! the build order below fixes which stream each component draws from.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rand::Rng;

use super::channel_setup::{build_queue, configure_direction, load_trace};
use super::flows::{connection_endpoints, Restart, TcpFlow, TcpFlowLabel, UdpFlow};
use super::{FlowHints, Simulation, PREFETCH_AHEAD_ABOVE_BYTES};
use crate::cc::{self, ConnectionInfo};
use crate::metrics::TimeSeries;
use crate::net::channel::Channel;
use crate::net::packet::{flow_key, PacketKind, PacketPool};
use crate::net::queue::{DropTail, QueueLimit};
use crate::net::topology::{ChannelSetup, Network};
use crate::scenario::{
    FlowSpec, LinkSpec, OffUnsent, OnOffDistribution, Protocol, QueueSpec, Routing, Scenario, ScenarioError, TcpSpec,
    TopologyKind, TopologySpec, TraceSpec,
};
use crate::sim::{rng_stream, rng_stream_seed, unit_f64, Event, EventQueue, StreamKind};
use crate::tcp::TcpConfig;
use crate::time::{as_secs_f64, SimDuration};
use crate::traffic::{Application, OnOff, UdpStats};
use crate::units::Buffer;

/// A flow's spec, the index of its `[[flows]]` entry (for error keys), and its two end nodes.
struct FlowPlan<'a> {
    spec: &'a FlowSpec,
    entry: usize,
    source: u32,
    sink: u32,
}

/// A channel's queue settings, kept until the BDP its buffer may be measured in is known.
struct PendingQueue {
    buffer: Buffer,
    queue: QueueSpec,
}

/// The network while it is being built.
struct NetworkBuilder {
    network: Network,
    seed: u64,
    run: u64,
    /// Per channel, in channel order.
    pending_queues: Vec<PendingQueue>,
    /// Channels that deliver at a trace's times, with the trace's spec.
    pending_traces: Vec<(usize, TraceSpec)>,
    /// Node name -> index, for the flows and links that name their nodes. Only while building:
    /// at 10,000 flows a copy of 20,002 names and a table of them (issue 33).
    node_index: HashMap<String, u32>,
}

/// What flows built so far have in common, each distinct value once: their TCP options (a
/// flow's sender and receiver read them) and their algorithms' names.
#[derive(Default)]
struct SharedFlowParts {
    configs: HashSet<Arc<TcpConfig>>,
    algorithms: HashSet<Arc<str>>,
}

/// The one copy of `value` in `distinct`, added if it is not there yet.
fn share<T: Eq + std::hash::Hash + ?Sized>(distinct: &mut HashSet<Arc<T>>, value: Box<T>) -> Arc<T> {
    if let Some(existing) = distinct.get(&*value) {
        return Arc::clone(existing);
    }
    let added: Arc<T> = value.into();
    distinct.insert(Arc::clone(&added));
    added
}

/// Base RTTs of the flows and, per channel, the base RTTs of the flows that cross it.
struct FlowPaths {
    base_rtts: Vec<SimDuration>,
    crossing_rtts: Vec<Vec<SimDuration>>,
}

impl Simulation {
    pub fn new(scenario: &Scenario) -> Result<Simulation, ScenarioError> {
        scenario.validate()?;
        let scenario = scenario.resolved();
        let mut builder = NetworkBuilder {
            network: Network::default(),
            seed: scenario.simulation.seed,
            run: scenario.simulation.run,
            pending_queues: Vec::new(),
            pending_traces: Vec::new(),
            node_index: HashMap::new(),
        };
        let expanded: Vec<(usize, &FlowSpec)> = scenario.expanded_flows().collect();
        let plans = builder.place(&scenario, &expanded);
        if scenario.topology.routing() == Routing::Ecmp {
            let mut salt = rng_stream(builder.seed, builder.run, StreamKind::Ecmp, 0);
            builder.network.use_ecmp(salt.next_u64());
        }
        builder.network.compute_routes();
        let paths = FlowPaths::measure(&builder.network, &plans)?;
        builder.install_queues(&scenario.topology, &paths, largest_packet(&plans, &scenario));
        builder.start_captures(&scenario.simulation.capture)?;
        builder.install_traces()?;

        let mut simulation = Simulation {
            end: scenario.simulation.duration.nanos(),
            sample_interval: scenario.simulation.sample_interval.nanos(),
            events: EventQueue::new(),
            pool: PacketPool::default(),
            network: builder.network,
            // Reserved at once (a TCP flow's record is 1.5 KB): see `Network::reserve`.
            tcp: Vec::with_capacity(plans.len()),
            tcp_labels: Vec::with_capacity(plans.len()),
            udp: Vec::new(),
            outbox: Vec::new(),
            series: TimeSeries::default(),
            transmitted_at_last_sample: Vec::new(),
            unroutable_packets: 0,
            tcp_hints: Vec::new(),
            prefetch_ahead: false,
            stale_packets: 0,
            // The flows stay in `plans`; the full scenario is stored once they are built.
            scenario: Scenario { flows: vec![], ..scenario.clone() },
        };
        let mut shared = SharedFlowParts::default();
        for (id, plan) in plans.iter().enumerate() {
            simulation.add_flow(id, plan, paths.base_rtts[id], &mut shared)?;
        }
        let network = &simulation.network;
        simulation.tcp_hints = simulation
            .tcp
            .iter()
            .zip(0u32..)
            .map(|(f, index)| FlowHints {
                first_hops: [
                    network.route(f.source, f.sink, flow_key(PacketKind::TcpData, index)),
                    network.route(f.sink, f.source, flow_key(PacketKind::TcpAck, index)),
                ],
                destinations: [network.destination_route(f.sink), network.destination_route(f.source)],
                ..FlowHints::default()
            })
            .collect();
        let state_bytes = simulation.tcp.len() * std::mem::size_of::<TcpFlow>()
            + network.channels.len() * std::mem::size_of::<Channel>();
        simulation.prefetch_ahead = state_bytes > PREFETCH_AHEAD_ABOVE_BYTES;
        schedule_link_changes(&simulation.network, &mut simulation.events);
        simulation.scenario = scenario;
        simulation.events.schedule(0, Event::Sample);
        Ok(simulation)
    }

    /// A flow and its application; schedules the flow's start.
    fn add_flow(
        &mut self,
        id: usize,
        plan: &FlowPlan,
        base_rtt: SimDuration,
        shared: &mut SharedFlowParts,
    ) -> Result<(), ScenarioError> {
        let spec = plan.spec;
        let (seed, run) = (self.scenario.simulation.seed, self.scenario.simulation.run);
        let mut rng = rng_stream(seed, run, StreamKind::Flow, id as u64);
        let spread = spec.start_spread.map_or(0, |d| d.nanos());
        let start = spec.start.nanos() + (unit_f64(&mut rng) * spread as f64) as SimDuration;
        let on_off = match (spec.on_time, spec.off_time) {
            (Some(on), Some(off)) => Some(OnOff {
                on: on.nanos(),
                off: off.nanos(),
                exponential: spec.on_off_distribution == OnOffDistribution::Exponential,
                keep_unsent: spec.off_unsent == OffUnsent::Keep,
            }),
            _ => None,
        };
        let app = Application::new(start, spec.stop.map(|d| d.nanos()), spec.rate.map(|r| r.bps()), on_off, rng);
        let name = flow_name(spec, id);
        match spec.protocol {
            Protocol::Tcp => self.add_tcp_flow(id, plan, (name, app, base_rtt), shared)?,
            Protocol::Udp => {
                let index = self.udp.len() as u32;
                self.udp.push(UdpFlow {
                    id,
                    name,
                    source: plan.source,
                    sink: plan.sink,
                    packet_bytes: spec.packet_size.map_or(1500, |b| b.0),
                    base_rtt,
                    app,
                    stats: UdpStats::default(),
                    received_at_last_sample: 0,
                });
                self.events.schedule(start, Event::UdpToggle { source: index });
            }
        }
        Ok(())
    }

    fn add_tcp_flow(
        &mut self,
        id: usize,
        plan: &FlowPlan,
        (name, app, base_rtt): (String, Application, SimDuration),
        shared: &mut SharedFlowParts,
    ) -> Result<(), ScenarioError> {
        let spec = plan.spec;
        let key = format!("flows[{}]", plan.entry);
        let tcp_spec = TcpSpec::for_flow(&spec.tcp.clone().unwrap_or_default(), &self.scenario.tcp);
        let mut config = tcp_spec.to_config(&format!("{key}.tcp"))?;
        let algorithm = spec.cc.clone().expect("validated: TCP flows name an algorithm");
        let (seed, run) = (self.scenario.simulation.seed, self.scenario.simulation.run);
        let mut algorithm_rng = rng_stream(seed, run, StreamKind::Algorithm, id as u64);
        let info = ConnectionInfo {
            mss: config.mss,
            initial_window_segments: config.initial_window_segments,
            initial_ssthresh_segments: config.initial_ssthresh_segments,
            cwnd_clamp_segments: config.cwnd_clamp_segments,
            seed: algorithm_rng.next_u64(),
        };
        let controller =
            cc::create(&algorithm, &spec.params, info).map_err(|e| ScenarioError::new(format!("{key}.params"), e))?;
        // An algorithm that needs ECN (dctcp) gets it with its echo at both ends, as Linux
        // negotiates ECN for such algorithms; validation refused a `tcp.ecn = false` here.
        if let Some(echo) = controller.required_ecn() {
            config.ecn = true;
            config.ecn_echo = echo;
        }
        let config = share(&mut shared.configs, Box::new(config));
        let index = self.tcp.len() as u32;
        let size = spec.size.map(|s| s.0);
        let (mut sender, receiver) = connection_endpoints(index, (plan.source, plan.sink), &config, controller, size);
        if config.rto_formula == crate::tcp::RtoFormula::Ns2 {
            // ns-2's `boot_time_`: each connection's tick clock has a random phase in [0, tick),
            // from a stream of its own so that no other draw changes.
            let mut clock = rng_stream(seed, run, StreamKind::TcpClock, id as u64);
            sender.rtt.set_clock_phase(clock.next_u64() % config.clock_granularity.max(1));
        }
        let restart = spec.restart.then(|| {
            Box::new(Restart {
                think_time: spec.think_time.map_or(0, |t| t.nanos()),
                config,
                params: spec.params.clone(),
                info,
                rng: algorithm_rng,
                pending: false,
                failure: None,
            })
        });
        let start = app.start;
        let algorithm = share(&mut shared.algorithms, algorithm.into_boxed_str());
        self.tcp_labels.push(TcpFlowLabel { id, name, algorithm, base_rtt });
        self.tcp.push(TcpFlow {
            source: plan.source,
            sink: plan.sink,
            size,
            sender,
            receiver,
            app,
            delivered_at_last_sample: 0,
            connection: 0,
            restart,
        });
        self.events.schedule(start, Event::FlowStart { flow: index });
        Ok(())
    }
}

/// Every link's rate and delay steps, as events (in the simulator's queue, or in the Linux
/// back-end's link emulator's).
pub(super) fn schedule_link_changes(network: &Network, events: &mut EventQueue) {
    for (index, channel) in network.channels.iter().enumerate() {
        for (step, &(at, _)) in channel.rate_schedule().iter().enumerate() {
            events.schedule(at, Event::RateChange { channel: index as u32, index: step as u32 });
        }
        for (step, &(at, _)) in channel.delay_schedule().iter().enumerate() {
            events.schedule(at, Event::DelayChange { channel: index as u32, index: step as u32 });
        }
    }
}

impl NetworkBuilder {
    fn add_node(&mut self, name: &str, is_router: bool) -> u32 {
        let index = self.network.add_node(name, is_router);
        self.node_index.insert(name.to_string(), index);
        index
    }

    fn node(&self, name: &str) -> Option<u32> {
        self.node_index.get(name).copied()
    }

    /// The topology's nodes and links, and each flow's two end nodes.
    fn place<'a>(&mut self, scenario: &Scenario, expanded: &[(usize, &'a FlowSpec)]) -> Vec<FlowPlan<'a>> {
        let access = scenario.topology.access.clone().unwrap_or_else(|| scenario.default_access_link());
        // Dumbbells and chains give each flow two access links (four channels). Channels are
        // 64-byte aligned, which the allocator cannot grow in place: without this, every doubling
        // of the vector copied it (about 7 ms of the set-up at 10,000 flows).
        self.network.channels.reserve(4 * expanded.len());
        match scenario.topology.kind {
            TopologyKind::Dumbbell => self.place_dumbbell(&scenario.topology, &access, expanded),
            TopologyKind::Chain => self.place_chain(&scenario.topology, &access, expanded),
            TopologyKind::Custom => self.place_custom(&scenario.topology, &access, expanded),
            TopologyKind::FatTree | TopologyKind::LeafSpine => self.place_fabric(scenario, &access, expanded),
        }
    }

    /// A fat tree's or leaf-spine's switches, hosts and links (`net/fabric.rs`), each link with
    /// its tier's settings; flows run between the nodes they name.
    fn place_fabric<'a>(
        &mut self,
        scenario: &Scenario,
        access: &LinkSpec,
        expanded: &[(usize, &'a FlowSpec)],
    ) -> Vec<FlowPlan<'a>> {
        let fabric = scenario.fabric().expect("validated: the fabric's sizes are set");
        self.network.channels.reserve(2 * fabric.links.len());
        let ids: Vec<u32> = fabric.nodes.iter().map(|(name, switch)| self.add_node(name, *switch)).collect();
        for link in &fabric.links {
            let spec = scenario.tier_link(link.tier).expect("validated: fabrics have access links");
            self.add_link(&link.name, ids[link.from as usize], ids[link.to as usize], spec);
        }
        self.place_named_flows(access, expanded)
    }

    /// Two routers joined by the bottleneck; every flow gets its own sender and receiver host.
    fn place_dumbbell<'a>(
        &mut self,
        topology: &TopologySpec,
        access: &LinkSpec,
        expanded: &[(usize, &'a FlowSpec)],
    ) -> Vec<FlowPlan<'a>> {
        // Two routers and the bottleneck, and two hosts and two access links a flow.
        self.network.reserve(2 + 2 * expanded.len(), 1 + 2 * expanded.len());
        let left = self.add_node("left", true);
        let right = self.add_node("right", true);
        let bottleneck = topology.bottleneck.as_ref().expect("validated: dumbbells have a bottleneck");
        self.add_link("bottleneck", left, right, bottleneck);
        let mut plans = Vec::with_capacity(expanded.len());
        for (i, &(entry, spec)) in expanded.iter().enumerate() {
            let sender_access = with_access_delay(access, spec);
            plans.push(self.add_hosts(i, entry, spec, (left, right), (&sender_access, access)));
        }
        plans
    }

    /// Routers r0 .. r(n-1) in a line; every flow gets its own hosts, attached at its routers.
    fn place_chain<'a>(
        &mut self,
        topology: &TopologySpec,
        access: &LinkSpec,
        expanded: &[(usize, &'a FlowSpec)],
    ) -> Vec<FlowPlan<'a>> {
        let routers = topology.routers.expect("validated: chains have routers");
        let hops = topology.hops.as_ref().expect("validated: chains have hops");
        self.network.reserve(routers as usize + 2 * expanded.len(), routers as usize - 1 + 2 * expanded.len());
        let ids: Vec<u32> = (0..routers).map(|r| self.add_node(&format!("r{r}"), true)).collect();
        for hop in 0..routers as usize - 1 {
            let spec = if hops.len() == 1 { &hops[0] } else { &hops[hop] };
            let name = spec.name.clone().unwrap_or_else(|| format!("r{hop}-r{}", hop + 1));
            self.add_link(&name, ids[hop], ids[hop + 1], spec);
        }
        let mut plans = Vec::with_capacity(expanded.len());
        for (i, &(entry, spec)) in expanded.iter().enumerate() {
            let from = self.node(spec.from.as_ref().expect("validated")).expect("validated");
            let to = self.node(spec.to.as_ref().expect("validated")).expect("validated");
            let sender_access = with_access_delay(access, spec);
            plans.push(self.add_hosts(i, entry, spec, (from, to), (&sender_access, access)));
        }
        plans
    }

    /// Flow `i`'s own sender host "s{i}" and receiver host "d{i}", attached by access links to the
    /// routers it enters and leaves at.
    fn add_hosts<'a>(
        &mut self,
        i: usize,
        entry: usize,
        spec: &'a FlowSpec,
        (entry_router, exit_router): (u32, u32),
        (sender_access, receiver_access): (&LinkSpec, &LinkSpec),
    ) -> FlowPlan<'a> {
        let sender = self.add_node(&format!("s{i}"), false);
        let receiver = self.add_node(&format!("d{i}"), false);
        self.add_link(&format!("access-s{i}"), sender, entry_router, sender_access);
        self.add_link(&format!("access-d{i}"), exit_router, receiver, receiver_access);
        FlowPlan { spec, entry, source: sender, sink: receiver }
    }

    /// Named nodes and links; flows run between the nodes they name. A flow with `access_delay`
    /// gets its own sender host "s{i}" behind its `from` node, joined by an access link with that
    /// delay (different RTTs without writing a link per flow).
    fn place_custom<'a>(
        &mut self,
        topology: &TopologySpec,
        access: &LinkSpec,
        expanded: &[(usize, &'a FlowSpec)],
    ) -> Vec<FlowPlan<'a>> {
        for name in topology.nodes.as_ref().expect("validated") {
            self.add_node(name, false);
        }
        for (i, spec) in topology.links.as_ref().expect("validated").iter().enumerate() {
            let from = self.node(spec.from.as_ref().expect("validated")).expect("validated");
            let to = self.node(spec.to.as_ref().expect("validated")).expect("validated");
            let name = spec.name.clone().unwrap_or_else(|| format!("link{i}"));
            self.add_link(&name, from, to, spec);
        }
        self.place_named_flows(access, expanded)
    }

    /// Flows between the nodes they name (`from`, `to`), behind their own sender host when they
    /// set `access_delay`.
    fn place_named_flows<'a>(&mut self, access: &LinkSpec, expanded: &[(usize, &'a FlowSpec)]) -> Vec<FlowPlan<'a>> {
        let mut plans = Vec::with_capacity(expanded.len());
        for (i, &(entry, spec)) in expanded.iter().enumerate() {
            let mut source = self.node(spec.from.as_ref().expect("validated")).expect("validated");
            let sink = self.node(spec.to.as_ref().expect("validated")).expect("validated");
            if spec.access_delay.is_some() {
                let host = self.add_node(&format!("s{i}"), false);
                self.add_link(&format!("access-s{i}"), host, source, &with_access_delay(access, spec));
                source = host;
            }
            plans.push(FlowPlan { spec, entry, source, sink });
        }
        plans
    }

    /// A full-duplex link: a forward channel `from` -> `to` and a reverse one, each with the random
    /// stream of its channel index. Their queues are placeholders until `install_queues`.
    fn add_link(&mut self, name: &str, from: u32, to: u32, spec: &LinkSpec) {
        let first_index = self.network.channels.len() as u64;
        let directions = [("forward", from, to, &spec.forward), ("reverse", to, from, &spec.reverse)];
        let [forward, reverse] = [0, 1].map(|offset| {
            let (_, a, b, direction) = directions[offset];
            let mut channel = Channel::new(
                a,
                b,
                spec.rate.bps(),
                spec.delay.nanos(),
                Box::new(DropTail::new(QueueLimit::Packets(0), None)),
                rng_stream_seed(self.seed, self.run, StreamKind::Channel, first_index + offset as u64),
            );
            channel.set_rdc_stamp(spec.rdc_stamp);
            configure_direction(&mut channel, direction);
            channel
        });
        self.network.add_link(name, forward, reverse);
        for (offset, (_, _, _, direction)) in directions.into_iter().enumerate() {
            if let Some(trace) = &direction.trace {
                self.pending_traces.push((first_index as usize + offset, trace.clone()));
            }
            self.pending_queues.push(PendingQueue {
                buffer: direction.buffer.unwrap_or(spec.buffer),
                queue: spec.queue.with_defaults(),
            });
        }
    }

    /// `simulation.capture`: each entry is a link's name (both directions) or "name:direction".
    fn start_captures(&mut self, entries: &[String]) -> Result<(), ScenarioError> {
        for (index, entry) in entries.iter().enumerate() {
            let (link, direction) = match entry.split_once(':') {
                Some((link, direction)) => (link, Some(direction)),
                None => (entry.as_str(), None),
            };
            let key = format!("simulation.capture[{index}]");
            if let Some(direction) = direction.filter(|d| !["forward", "reverse"].contains(d)) {
                return Err(ScenarioError::new(
                    key,
                    format!("'{direction}' is not a direction: write '{link}', '{link}:forward' or '{link}:reverse'"),
                ));
            }
            let mut found = false;
            for index in 0..self.network.channels.len() {
                let (name, label) = self.network.channel_label(index);
                if name == link && direction.is_none_or(|d| d == label) {
                    self.network.channels[index].start_capture();
                    found = true;
                }
            }
            if !found {
                let mut names: Vec<&str> = self.network.channel_labels().map(|(name, _)| name).collect();
                names.dedup();
                let shown = names.iter().take(12).copied().collect::<Vec<_>>().join(", ");
                let more = if names.len() > 12 { format!(" and {} more", names.len() - 12) } else { String::new() };
                return Err(ScenarioError::new(key, format!("no link named '{link}'; links: {shown}{more}")));
            }
        }
        Ok(())
    }

    /// Trace-driven channels: each file is read once, each generated trace drawn from the
    /// channel's own trace stream.
    fn install_traces(&mut self) -> Result<(), ScenarioError> {
        let mut files = std::collections::HashMap::new();
        for (index, spec) in std::mem::take(&mut self.pending_traces) {
            let (name, label) = self.network.channel_label(index);
            let key = format!("link '{name}' {label}.trace");
            let rng = rng_stream(self.seed, self.run, StreamKind::Trace, index as u64);
            self.network.channels[index].set_trace(load_trace(&spec, &key, rng, &mut files)?);
        }
        Ok(())
    }

    /// Every channel's queue discipline, its buffer resolved against the BDP of the flows crossing
    /// it (or `topology.bdp_rtt`).
    fn install_queues(&mut self, topology: &TopologySpec, paths: &FlowPaths, largest_packet: u64) {
        let mean_rtt_all = mean(&paths.base_rtts).max(1);
        // Each distinct description once (a dumbbell's access links all have the same).
        let mut descriptions: HashSet<Arc<str>> = HashSet::new();
        let mut setups = Vec::with_capacity(self.network.channels.len());
        for (index, channel) in self.network.channels.iter_mut().enumerate() {
            let pending = &self.pending_queues[index];
            let rtt = topology.bdp_rtt.map(|d| d.nanos()).unwrap_or_else(|| {
                let crossing = &paths.crossing_rtts[index];
                if crossing.is_empty() {
                    mean_rtt_all
                } else {
                    mean(crossing)
                }
            });
            let bdp_bytes = channel.rate_bps() as f64 * as_secs_f64(rtt) / 8.0;
            let limit = match pending.buffer {
                Buffer::Packets(n) => QueueLimit::Packets(n),
                Buffer::Bytes(b) => QueueLimit::Bytes(b),
                // Never smaller than one packet: a queue that cannot hold a packet drops all
                // traffic that finds the link busy.
                Buffer::Bdp(multiple) => QueueLimit::Bytes(((bdp_bytes * multiple).round() as u64).max(largest_packet)),
            };
            let description = match limit {
                QueueLimit::Packets(n) => format!("{n}p"),
                QueueLimit::Bytes(b) => format!("{b}B ({})", pending.buffer),
            };
            let limit_description = share(&mut descriptions, description.into_boxed_str());
            setups.push(ChannelSetup { limit_description, bdp_rtt: rtt });
            let rng = rng_stream(self.seed, self.run, StreamKind::Queue, index as u64);
            let queue = build_queue(&pending.queue, limit, bdp_bytes, channel.rate_bps(), rng);
            channel.install_queue(queue);
        }
        self.network.setups = setups;
    }
}

impl FlowPaths {
    /// Each flow's base RTT (propagation there and back); an error names a flow with no route.
    /// Paths are those of the flow's own packets (ECMP keys them by the flow's index among the
    /// TCP flows or among the UDP sources, in plan order, as `add_flow` numbers them).
    fn measure(network: &Network, plans: &[FlowPlan]) -> Result<FlowPaths, ScenarioError> {
        let mut crossing_rtts: Vec<Vec<SimDuration>> = vec![Vec::new(); network.channels.len()];
        let mut base_rtts = Vec::with_capacity(plans.len());
        let mut numbered = [0u32; 2];
        for plan in plans {
            let key = format!("flows[{}]", plan.entry);
            let name = |node: u32| &network.nodes[node as usize].name;
            let (data, back_kind, slot) = match plan.spec.protocol {
                Protocol::Tcp => (PacketKind::TcpData, PacketKind::TcpAck, 0),
                Protocol::Udp => (PacketKind::Udp, PacketKind::Udp, 1),
            };
            let index = numbered[slot];
            numbered[slot] += 1;
            let there = network.path(plan.source, plan.sink, flow_key(data, index)).ok_or_else(|| {
                ScenarioError::new(
                    format!("{key}.to"),
                    format!("no route from '{}' to '{}'", name(plan.source), name(plan.sink)),
                )
            })?;
            let back = network.path(plan.sink, plan.source, flow_key(back_kind, index)).ok_or_else(|| {
                ScenarioError::new(
                    format!("{key}.from"),
                    format!("no route back from '{}' to '{}'", name(plan.sink), name(plan.source)),
                )
            })?;
            let rtt: SimDuration = there.iter().chain(&back).map(|&c| network.channels[c as usize].delay).sum();
            for &c in there.iter().chain(&back) {
                crossing_rtts[c as usize].push(rtt);
            }
            base_rtts.push(rtt);
        }
        Ok(FlowPaths { base_rtts, crossing_rtts })
    }
}

/// The largest packet any flow sends, in bytes on the wire: the floor of a BDP-sized buffer.
fn largest_packet(plans: &[FlowPlan], scenario: &Scenario) -> u64 {
    plans.iter().map(|p| scenario.data_packet_bytes(p.spec)).max().unwrap_or(1500)
}

/// "cubic-3" for the fourth flow of an unnamed or repeated entry; the entry's name when it stands
/// for one named flow. An algorithm named by its module path ("python:pkg.mod:Gentle") lends its
/// class name ("Gentle-3"): the path stays in the `cc` column.
fn flow_name(spec: &FlowSpec, id: usize) -> String {
    let default_name = match spec.protocol {
        Protocol::Tcp => {
            let cc = spec.cc.as_deref().expect("validated: TCP flows name an algorithm");
            cc.rsplit(':').next().unwrap_or(cc).to_string()
        }
        Protocol::Udp => "udp".to_string(),
    };
    let base = spec.name.clone().unwrap_or(default_name);
    if spec.count > 1 || spec.name.is_none() {
        format!("{base}-{id}")
    } else {
        base
    }
}

/// The access link a flow's sender uses: the topology's, with the flow's `access_delay` if set.
fn with_access_delay(access: &LinkSpec, spec: &FlowSpec) -> LinkSpec {
    let mut link = access.clone();
    if let Some(delay) = spec.access_delay {
        link.delay = delay;
    }
    link
}

fn mean(values: &[SimDuration]) -> SimDuration {
    if values.is_empty() {
        0
    } else {
        (values.iter().map(|&v| v as u128).sum::<u128>() / values.len() as u128) as SimDuration
    }
}
