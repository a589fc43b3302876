//! A simulation: the network, the flows and the event loop, built from a [`Scenario`].
//!
//! Packets move between nodes by static routes; at their destination node they are handed to the
//! endpoint of their flow (TCP receiver, TCP sender or UDP sink). Endpoints never touch the network
//! directly: they push packets into an outbox that the simulation injects at their node.

use rand::Rng;
use rand_distr::{Distribution, Exp};

use crate::cc::{self, ConnectionInfo};
use crate::net::channel::{Channel, Jitter, JitterDistribution, LossModel, Outage};
use crate::net::codel::{Codel, CodelParams};
use crate::net::fq_codel::FqCodel;
use crate::net::packet::{Packet, PacketId, PacketKind, PacketPool};
use crate::net::queue::{DropTail, QueueDiscipline, QueueLimit};
use crate::net::red::{Red, RedParams};
use crate::net::topology::{Network, NO_ROUTE};
use crate::results::{jain_index, Column, Results, Summary, Table};
use crate::scenario::{
    DirectionSpec, FlowSpec, JitterKind, LinkSpec, LossModelKind, OnOffDistribution, Protocol, QueueKind, QueueSpec,
    Scenario, ScenarioError, TopologyKind,
};
use crate::sim::{rng_stream, unit_f64, Event, EventQueue, SimRng, StreamKind};
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::sender::TcpSender;
use crate::tcp::EndpointContext;
use crate::time::{as_secs_f64, transmission_time, SimDuration, SimTime, NANOS_PER_MILLI};
use crate::units::Buffer;

/// How an application offers data over time.
struct Application {
    start: SimTime,
    stop: Option<SimTime>,
    /// Bits per second the application writes at; None: as fast as the transport takes it.
    rate: Option<u64>,
    on_off: Option<OnOff>,
    active: bool,
    /// A rate-limited write (or UDP send) chain is scheduled.
    write_pending: bool,
    rng: SimRng,
}

struct OnOff {
    on: SimDuration,
    off: SimDuration,
    exponential: bool,
}

impl Application {
    fn period(&mut self, mean: SimDuration, exponential: bool) -> SimDuration {
        if exponential {
            let exp = Exp::new(1.0).expect("rate 1 is a valid exponential");
            ((exp.sample(&mut self.rng) * mean as f64).round() as SimDuration).max(1)
        } else {
            mean
        }
    }

    fn next_on_period(&mut self) -> Option<SimDuration> {
        let (on, exponential) = self.on_off.as_ref().map(|o| (o.on, o.exponential))?;
        Some(self.period(on, exponential))
    }

    fn next_off_period(&mut self) -> Option<SimDuration> {
        let (off, exponential) = self.on_off.as_ref().map(|o| (o.off, o.exponential))?;
        Some(self.period(off, exponential))
    }

    fn stopped(&self, now: SimTime) -> bool {
        self.stop.is_some_and(|stop| now >= stop)
    }
}

struct TcpFlow {
    id: usize,
    name: String,
    algorithm: String,
    source: u32,
    sink: u32,
    size: Option<u64>,
    base_rtt: SimDuration,
    sender: TcpSender,
    receiver: TcpReceiver,
    app: Application,
    delivered_at_last_sample: u64,
}

#[derive(Default)]
struct UdpStats {
    sent_packets: u64,
    sent_bytes: u64,
    received_packets: u64,
    received_bytes: u64,
    delay_sum: u128,
}

struct UdpFlow {
    id: usize,
    name: String,
    source: u32,
    sink: u32,
    packet_bytes: u64,
    base_rtt: SimDuration,
    app: Application,
    stats: UdpStats,
    received_at_last_sample: u64,
}

/// Columns of the time series, filled as samples are taken.
#[derive(Default)]
struct SeriesColumns {
    flow_time: Vec<f64>,
    flow_id: Vec<u64>,
    cwnd: Vec<f64>,
    ssthresh: Vec<f64>,
    srtt_ms: Vec<f64>,
    in_flight: Vec<f64>,
    throughput: Vec<f64>,
    state: Vec<&'static str>,
    queue_time: Vec<f64>,
    queue_link: Vec<String>,
    queue_direction: Vec<&'static str>,
    queue_packets: Vec<u64>,
    queue_bytes: Vec<u64>,
}

pub struct Simulation {
    scenario: Scenario,
    events: EventQueue,
    pool: PacketPool,
    network: Network,
    tcp: Vec<TcpFlow>,
    udp: Vec<UdpFlow>,
    outbox: Vec<Packet>,
    end: SimTime,
    sample_interval: SimDuration,
    series: SeriesColumns,
    /// Channel index -> (link name, "forward"/"reverse"), for reports.
    channel_labels: Vec<(String, &'static str)>,
    unroutable_packets: u64,
}

/// What a flow's entry point and exit point are, and the spec it came from.
struct FlowPlan<'a> {
    spec: &'a FlowSpec,
    entry: usize,
    source: u32,
    sink: u32,
}

impl Simulation {
    pub fn new(scenario: &Scenario) -> Result<Simulation, ScenarioError> {
        scenario.validate()?;
        let scenario = scenario.resolved();
        let seed = scenario.simulation.seed;
        let run = scenario.simulation.run;
        let mut network = Network::default();
        let mut channel_buffers: Vec<(Buffer, Option<u64>, QueueSpec)> = Vec::new();
        let mut channel_labels = Vec::new();
        let mut add_link = |network: &mut Network, name: &str, from: u32, to: u32, spec: &LinkSpec| {
            for (direction, a, b, dir_spec) in
                [("forward", from, to, &spec.forward), ("reverse", to, from, &spec.reverse)]
            {
                let index = network.channels.len() as u64;
                let mut channel = Channel::new(
                    name.to_string(),
                    a,
                    b,
                    spec.rate.bps(),
                    spec.delay.nanos(),
                    Box::new(DropTail::new(QueueLimit::Packets(0), None)),
                    String::new(),
                    rng_stream(seed, run, StreamKind::Channel, index),
                );
                channel.rdc_stamp = spec.rdc_stamp;
                configure_direction(&mut channel, dir_spec);
                network.channels.push(channel);
                let threshold = match spec.ecn_mark_threshold {
                    Some(Buffer::Packets(n)) => Some(n),
                    _ => None,
                };
                channel_buffers.push((dir_spec.buffer.unwrap_or(spec.buffer), threshold, spec.queue.with_defaults()));
                channel_labels.push((name.to_string(), direction));
            }
            let forward = network.channels.len() as u32 - 2;
            network.links.push(crate::net::topology::Link { name: name.to_string(), forward, reverse: forward + 1 });
        };

        // Nodes, links and each flow's endpoints.
        let expanded: Vec<(usize, &FlowSpec)> = scenario.expanded_flows().collect();
        let mut plans: Vec<FlowPlan> = Vec::with_capacity(expanded.len());
        let topology = &scenario.topology;
        let access = topology.access.clone().unwrap_or_else(|| scenario.default_access_link());
        match topology.kind {
            TopologyKind::Dumbbell => {
                let left = network.add_node("left", true);
                let right = network.add_node("right", true);
                let bottleneck = topology.bottleneck.as_ref().expect("validated: dumbbells have a bottleneck");
                add_link(&mut network, "bottleneck", left, right, bottleneck);
                for (i, &(entry, spec)) in expanded.iter().enumerate() {
                    let sender = network.add_node(&format!("s{i}"), false);
                    let receiver = network.add_node(&format!("d{i}"), false);
                    let mut sender_access = access.clone();
                    if let Some(delay) = spec.access_delay {
                        sender_access.delay = delay;
                    }
                    add_link(&mut network, &format!("access-s{i}"), sender, left, &sender_access);
                    add_link(&mut network, &format!("access-d{i}"), right, receiver, &access);
                    plans.push(FlowPlan { spec, entry, source: sender, sink: receiver });
                }
            }
            TopologyKind::Chain => {
                let routers = topology.routers.expect("validated: chains have routers");
                let hops = topology.hops.as_ref().expect("validated: chains have hops");
                let ids: Vec<u32> = (0..routers).map(|r| network.add_node(&format!("r{r}"), true)).collect();
                for hop in 0..routers as usize - 1 {
                    let spec = if hops.len() == 1 { &hops[0] } else { &hops[hop] };
                    let name = spec.name.clone().unwrap_or_else(|| format!("r{hop}-r{}", hop + 1));
                    add_link(&mut network, &name, ids[hop], ids[hop + 1], spec);
                }
                for (i, &(entry, spec)) in expanded.iter().enumerate() {
                    let sender = network.add_node(&format!("s{i}"), false);
                    let receiver = network.add_node(&format!("d{i}"), false);
                    let from = network.node(spec.from.as_ref().expect("validated")).expect("validated");
                    let to = network.node(spec.to.as_ref().expect("validated")).expect("validated");
                    add_link(&mut network, &format!("access-s{i}"), sender, from, &access);
                    add_link(&mut network, &format!("access-d{i}"), to, receiver, &access);
                    plans.push(FlowPlan { spec, entry, source: sender, sink: receiver });
                }
            }
            TopologyKind::Custom => {
                for name in topology.nodes.as_ref().expect("validated") {
                    network.add_node(name, false);
                }
                for (i, spec) in topology.links.as_ref().expect("validated").iter().enumerate() {
                    let from = network.node(spec.from.as_ref().expect("validated")).expect("validated");
                    let to = network.node(spec.to.as_ref().expect("validated")).expect("validated");
                    let name = spec.name.clone().unwrap_or_else(|| format!("link{i}"));
                    add_link(&mut network, &name, from, to, spec);
                }
                for &(entry, spec) in &expanded {
                    let source = network.node(spec.from.as_ref().expect("validated")).expect("validated");
                    let sink = network.node(spec.to.as_ref().expect("validated")).expect("validated");
                    plans.push(FlowPlan { spec, entry, source, sink });
                }
            }
        }
        network.compute_routes();

        // Paths, base RTTs, and which flows cross each channel (for BDP buffers).
        let mut crossing_rtts: Vec<Vec<SimDuration>> = vec![Vec::new(); network.channels.len()];
        let mut base_rtts = Vec::with_capacity(plans.len());
        for plan in &plans {
            let key = format!("flows[{}]", plan.entry);
            let there = network.path(plan.source, plan.sink).ok_or_else(|| {
                ScenarioError::new(
                    format!("{key}.to"),
                    format!(
                        "no route from '{}' to '{}'",
                        network.nodes[plan.source as usize].name, network.nodes[plan.sink as usize].name
                    ),
                )
            })?;
            let back = network.path(plan.sink, plan.source).ok_or_else(|| {
                ScenarioError::new(
                    format!("{key}.from"),
                    format!(
                        "no route back from '{}' to '{}'",
                        network.nodes[plan.sink as usize].name, network.nodes[plan.source as usize].name
                    ),
                )
            })?;
            let rtt: SimDuration = there.iter().chain(&back).map(|&c| network.channels[c as usize].delay).sum();
            for &c in there.iter().chain(&back) {
                crossing_rtts[c as usize].push(rtt);
            }
            base_rtts.push(rtt);
        }
        let mean_rtt_all = mean(&base_rtts).max(1);
        let largest_packet = plans
            .iter()
            .map(|p| match p.spec.protocol {
                Protocol::Tcp => {
                    let tcp = p.spec.tcp.clone().unwrap_or_default().over(&scenario.tcp);
                    tcp.mss.map_or(1448, |b| b.0) + tcp.header.map_or(52, |b| b.0)
                }
                Protocol::Udp => p.spec.packet_size.map_or(1500, |b| b.0),
            })
            .max()
            .unwrap_or(1500);

        // Queues, now that BDPs are known.
        for (index, channel) in network.channels.iter_mut().enumerate() {
            let (buffer, mark_threshold, queue) = &channel_buffers[index];
            let rtt = topology.bdp_rtt.map(|d| d.nanos()).unwrap_or_else(|| {
                let crossing = &crossing_rtts[index];
                if crossing.is_empty() {
                    mean_rtt_all
                } else {
                    mean(crossing)
                }
            });
            let bdp_bytes = channel.rate_bps as f64 * as_secs_f64(rtt) / 8.0;
            let limit = match *buffer {
                Buffer::Packets(n) => QueueLimit::Packets(n),
                Buffer::Bytes(b) => QueueLimit::Bytes(b),
                // Never smaller than one packet: a queue that cannot hold a packet drops all
                // traffic that finds the link busy.
                Buffer::Bdp(multiple) => QueueLimit::Bytes(((bdp_bytes * multiple).round() as u64).max(largest_packet)),
            };
            channel.limit_description = match limit {
                QueueLimit::Packets(n) => format!("{n}p"),
                QueueLimit::Bytes(b) => format!("{b}B ({buffer})"),
            };
            let rng = rng_stream(seed, run, StreamKind::Queue, index as u64);
            channel.queue = build_queue(queue, limit, *mark_threshold, bdp_bytes, channel.rate_bps, rng);
        }

        let mut simulation = Simulation {
            end: scenario.simulation.duration.nanos(),
            sample_interval: scenario.simulation.sample_interval.nanos(),
            events: EventQueue::new(),
            pool: PacketPool::default(),
            network,
            tcp: Vec::new(),
            udp: Vec::new(),
            outbox: Vec::new(),
            series: SeriesColumns::default(),
            channel_labels,
            unroutable_packets: 0,
            scenario: Scenario { flows: vec![], ..scenario.clone() },
        };

        // Flows and their applications.
        for (id, plan) in plans.iter().enumerate() {
            let spec = plan.spec;
            let mut rng = rng_stream(seed, run, StreamKind::Flow, id as u64);
            let spread = spec.start_spread.map_or(0, |d| d.nanos());
            let start = spec.start.nanos() + (unit_f64(&mut rng) * spread as f64) as SimDuration;
            let app = Application {
                start,
                stop: spec.stop.map(|d| d.nanos()),
                rate: spec.rate.map(|r| r.bps()),
                on_off: match (spec.on_time, spec.off_time) {
                    (Some(on), Some(off)) => Some(OnOff {
                        on: on.nanos(),
                        off: off.nanos(),
                        exponential: spec.on_off_distribution == OnOffDistribution::Exponential,
                    }),
                    _ => None,
                },
                active: false,
                write_pending: false,
                rng,
            };
            let default_name = match spec.protocol {
                Protocol::Tcp => spec.cc.clone().expect("validated: TCP flows name an algorithm"),
                Protocol::Udp => "udp".to_string(),
            };
            let base = spec.name.clone().unwrap_or(default_name);
            let name = if spec.count > 1 || spec.name.is_none() { format!("{base}-{id}") } else { base };
            match spec.protocol {
                Protocol::Tcp => {
                    let key = format!("flows[{}]", plan.entry);
                    let tcp_spec = spec.tcp.clone().unwrap_or_default().over(&simulation.scenario.tcp);
                    let config = tcp_spec.to_config(&format!("{key}.tcp"))?;
                    let algorithm = spec.cc.clone().expect("validated: TCP flows name an algorithm");
                    let controller = cc::create(
                        &algorithm,
                        &spec.params,
                        ConnectionInfo {
                            mss: config.mss,
                            initial_window_segments: config.initial_window_segments,
                            seed: rng_stream(seed, run, StreamKind::Algorithm, id as u64).next_u64(),
                        },
                    )
                    .map_err(|e| ScenarioError::new(format!("{key}.params"), e))?;
                    let index = simulation.tcp.len() as u32;
                    let mut sender = TcpSender::new(index, plan.sink, config.clone(), controller);
                    if let Some(size) = spec.size {
                        sender.set_stream_end(size.0);
                    }
                    simulation.tcp.push(TcpFlow {
                        id,
                        name,
                        algorithm,
                        source: plan.source,
                        sink: plan.sink,
                        size: spec.size.map(|s| s.0),
                        base_rtt: base_rtts[id],
                        sender,
                        receiver: TcpReceiver::new(index, plan.source, config),
                        app,
                        delivered_at_last_sample: 0,
                    });
                    simulation.events.schedule(start, Event::FlowStart { flow: index });
                }
                Protocol::Udp => {
                    let index = simulation.udp.len() as u32;
                    simulation.udp.push(UdpFlow {
                        id,
                        name,
                        source: plan.source,
                        sink: plan.sink,
                        packet_bytes: spec.packet_size.map_or(1500, |b| b.0),
                        base_rtt: base_rtts[id],
                        app,
                        stats: UdpStats::default(),
                        received_at_last_sample: 0,
                    });
                    simulation.events.schedule(start, Event::UdpToggle { source: index });
                }
            }
        }
        for (index, channel) in simulation.network.channels.iter().enumerate() {
            for (step, &(at, _)) in channel.rate_schedule.iter().enumerate() {
                simulation.events.schedule(at, Event::RateChange { channel: index as u32, index: step as u32 });
            }
            for (step, &(at, _)) in channel.delay_schedule.iter().enumerate() {
                simulation.events.schedule(at, Event::DelayChange { channel: index as u32, index: step as u32 });
            }
        }
        simulation.scenario = scenario;
        simulation.events.schedule(0, Event::Sample);
        Ok(simulation)
    }

    pub fn now(&self) -> SimTime {
        self.events.now()
    }

    pub fn end_time(&self) -> SimTime {
        self.end
    }

    pub fn is_finished(&self) -> bool {
        self.events.now() >= self.end
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Runs every event up to `until` (bounded by the scenario's duration).
    pub fn run_until(&mut self, until: SimTime) {
        let limit = until.min(self.end);
        while let Some(event) = self.events.pop_until(limit) {
            self.dispatch(event);
        }
        self.events.advance_to(limit);
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self) -> Results {
        self.run_until(self.end);
        self.results()
    }

    fn dispatch(&mut self, event: Event) {
        match event {
            Event::Arrival { channel, packet } => {
                let channel = &mut self.network.channels[channel as usize];
                channel.stats.delivered_packets += 1;
                let node = channel.to;
                self.forward(node, packet);
            }
            Event::TransmitterFree { channel } => {
                self.network.channels[channel as usize].on_transmitter_free(channel, &mut self.pool, &mut self.events)
            }
            Event::RateChange { channel, index } => {
                self.network.channels[channel as usize].apply_rate_change(index as usize)
            }
            Event::DelayChange { channel, index } => {
                self.network.channels[channel as usize].apply_delay_change(index as usize)
            }
            Event::FlowStart { flow } => self.start_tcp_flow(flow as usize),
            Event::AppToggle { flow } => self.toggle_tcp_app(flow as usize),
            Event::AppWrite { flow } => self.tcp_app_write(flow as usize),
            Event::RetransmitTimer { flow } => {
                let f = &mut self.tcp[flow as usize];
                f.sender.on_rto_timer(&mut EndpointContext { events: &mut self.events, outbox: &mut self.outbox });
                let node = f.source;
                self.flush(node);
            }
            Event::PacingTimer { flow } => {
                let f = &mut self.tcp[flow as usize];
                f.sender.on_pacing_timer(&mut EndpointContext { events: &mut self.events, outbox: &mut self.outbox });
                let node = f.source;
                self.flush(node);
            }
            Event::AckRelease { flow } => {
                let f = &mut self.tcp[flow as usize];
                f.sender.on_ack_release(&mut EndpointContext { events: &mut self.events, outbox: &mut self.outbox });
                let node = f.source;
                self.flush(node);
            }
            Event::AckSendRelease { flow } => {
                let f = &mut self.tcp[flow as usize];
                f.receiver
                    .on_ack_send_release(&mut EndpointContext { events: &mut self.events, outbox: &mut self.outbox });
                let node = f.sink;
                self.flush(node);
            }
            Event::DelayedAckTimer { flow } => {
                let f = &mut self.tcp[flow as usize];
                f.receiver
                    .on_delayed_ack_timer(&mut EndpointContext { events: &mut self.events, outbox: &mut self.outbox });
                let node = f.sink;
                self.flush(node);
            }
            Event::UdpSend { source } => self.udp_send(source as usize),
            Event::UdpToggle { source } => self.toggle_udp(source as usize),
            Event::Sample => {
                self.sample();
                let next = self.events.now() + self.sample_interval;
                if next <= self.end {
                    self.events.schedule(next, Event::Sample);
                }
            }
        }
    }

    /// Moves a packet that is at `node` one step on, or hands it to its endpoint.
    fn forward(&mut self, node: u32, packet: PacketId) {
        let destination = self.pool.get(packet).destination;
        if destination == node {
            self.deliver(packet);
            return;
        }
        let channel = self.network.route(node, destination);
        if channel == NO_ROUTE {
            self.unroutable_packets += 1;
            self.pool.release(packet);
            return;
        }
        self.network.channels[channel as usize].offer(channel, packet, &mut self.pool, &mut self.events);
    }

    fn deliver(&mut self, packet: PacketId) {
        let packet = self.pool.release(packet);
        let mut ctx = EndpointContext { events: &mut self.events, outbox: &mut self.outbox };
        let node = match packet.kind {
            PacketKind::TcpData => {
                let flow = &mut self.tcp[packet.flow as usize];
                flow.receiver.on_data(&packet, &mut ctx);
                flow.sink
            }
            PacketKind::TcpAck => {
                let flow = &mut self.tcp[packet.flow as usize];
                flow.sender.on_ack_arrival(&packet, &mut ctx);
                flow.source
            }
            PacketKind::Udp => {
                let flow = &mut self.udp[packet.flow as usize];
                flow.stats.received_packets += 1;
                flow.stats.received_bytes += packet.payload_bytes as u64;
                flow.stats.delay_sum += (self.events.now() - packet.sent_at) as u128;
                return;
            }
        };
        self.flush(node);
    }

    /// Injects the packets endpoints produced at `node`.
    fn flush(&mut self, node: u32) {
        if self.outbox.is_empty() {
            return;
        }
        let mut outbox = std::mem::take(&mut self.outbox);
        for packet in outbox.drain(..) {
            let id = self.pool.insert(packet);
            self.forward(node, id);
        }
        self.outbox = outbox;
    }

    // ----- TCP applications -----

    fn start_tcp_flow(&mut self, flow: usize) {
        let now = self.events.now();
        if self.tcp[flow].app.stopped(now) {
            return;
        }
        self.activate_tcp_app(flow);
        let app = &mut self.tcp[flow].app;
        if let Some(stop) = app.stop {
            self.events.schedule(stop, Event::AppToggle { flow: flow as u32 });
        }
        if let Some(on) = app.next_on_period() {
            self.events.schedule(now + on, Event::AppToggle { flow: flow as u32 });
        }
    }

    fn activate_tcp_app(&mut self, flow: usize) {
        let f = &mut self.tcp[flow];
        f.app.active = true;
        match f.app.rate {
            Some(_) => {
                if !f.app.write_pending {
                    f.app.write_pending = true;
                    self.events.schedule(self.events.now(), Event::AppWrite { flow: flow as u32 });
                }
            }
            None => {
                f.sender
                    .app_write(u64::MAX, &mut EndpointContext { events: &mut self.events, outbox: &mut self.outbox });
                let node = f.source;
                self.flush(node);
            }
        }
    }

    fn toggle_tcp_app(&mut self, flow: usize) {
        let now = self.events.now();
        let f = &mut self.tcp[flow];
        if f.app.stopped(now) || f.app.active {
            f.app.active = false;
            f.sender.app_pause();
            if !f.app.stopped(now) {
                if let Some(off) = f.app.next_off_period() {
                    self.events.schedule(now + off, Event::AppToggle { flow: flow as u32 });
                }
            }
        } else {
            self.activate_tcp_app(flow);
            if let Some(on) = self.tcp[flow].app.next_on_period() {
                self.events.schedule(now + on, Event::AppToggle { flow: flow as u32 });
            }
        }
    }

    /// A rate-limited application writes one segment and schedules its next write.
    fn tcp_app_write(&mut self, flow: usize) {
        let f = &mut self.tcp[flow];
        f.app.write_pending = false;
        if !f.app.active {
            return;
        }
        let rate = f.app.rate.expect("only rate-limited applications schedule writes");
        let chunk = f.sender.mss();
        f.sender.app_write(chunk, &mut EndpointContext { events: &mut self.events, outbox: &mut self.outbox });
        f.app.write_pending = true;
        self.events.schedule(self.events.now() + transmission_time(chunk, rate), Event::AppWrite { flow: flow as u32 });
        let node = f.source;
        self.flush(node);
    }

    // ----- UDP sources -----

    fn toggle_udp(&mut self, source: usize) {
        let now = self.events.now();
        let f = &mut self.udp[source];
        let first_start = !f.app.active && f.stats.sent_packets == 0 && now == f.app.start;
        if f.app.active || f.app.stopped(now) {
            f.app.active = false;
            if !f.app.stopped(now) {
                if let Some(off) = f.app.next_off_period() {
                    self.events.schedule(now + off, Event::UdpToggle { source: source as u32 });
                }
            }
            return;
        }
        f.app.active = true;
        if !f.app.write_pending {
            f.app.write_pending = true;
            self.events.schedule(now, Event::UdpSend { source: source as u32 });
        }
        if let Some(on) = f.app.next_on_period() {
            self.events.schedule(now + on, Event::UdpToggle { source: source as u32 });
        }
        if first_start {
            if let Some(stop) = f.app.stop {
                self.events.schedule(stop, Event::UdpToggle { source: source as u32 });
            }
        }
    }

    fn udp_send(&mut self, source: usize) {
        let now = self.events.now();
        let f = &mut self.udp[source];
        f.app.write_pending = false;
        if !f.app.active || f.app.stopped(now) {
            return;
        }
        let rate = f.app.rate.expect("validated: UDP flows have a rate");
        let packet = Packet {
            kind: PacketKind::Udp,
            flow: source as u32,
            destination: f.sink,
            wire_bytes: f.packet_bytes as u32,
            payload_bytes: f.packet_bytes.saturating_sub(28) as u32,
            sent_at: now,
            ..Packet::default()
        };
        f.stats.sent_packets += 1;
        f.stats.sent_bytes += packet.payload_bytes as u64;
        f.app.write_pending = true;
        self.events.schedule(now + transmission_time(f.packet_bytes, rate), Event::UdpSend { source: source as u32 });
        let node = f.source;
        let id = self.pool.insert(packet);
        self.forward(node, id);
    }

    // ----- measurement -----

    fn sample(&mut self) {
        let now = self.events.now();
        let seconds = as_secs_f64(now);
        let interval = as_secs_f64(self.sample_interval);
        let series = &mut self.series;
        for f in &mut self.tcp {
            let delivered = f.receiver.stats.delivered_bytes;
            let ssthresh = f.sender.cc.ssthresh();
            // A flow that has not started has no window yet: NaN keeps it off the plots.
            let started = now >= f.app.start;
            let if_started = |value: f64| if started { value } else { f64::NAN };
            series.flow_time.push(seconds);
            series.flow_id.push(f.id as u64);
            series.cwnd.push(if_started(f.sender.effective_cwnd() as f64));
            series.ssthresh.push(if ssthresh == u64::MAX { f64::NAN } else { if_started(ssthresh as f64) });
            series.srtt_ms.push(f.sender.rtt.srtt.map_or(f64::NAN, ms));
            series.in_flight.push(if_started(f.sender.bytes_in_flight() as f64));
            series.throughput.push(if now == 0 {
                0.0
            } else {
                (delivered - f.delivered_at_last_sample) as f64 * 8.0 / interval
            });
            let state = if f.sender.is_in_recovery() { "recovery" } else { f.sender.cc.state_name() };
            series.state.push(state);
            f.delivered_at_last_sample = delivered;
        }
        for f in &mut self.udp {
            let received = f.stats.received_bytes;
            series.flow_time.push(seconds);
            series.flow_id.push(f.id as u64);
            series.cwnd.push(f64::NAN);
            series.ssthresh.push(f64::NAN);
            series.srtt_ms.push(f64::NAN);
            series.in_flight.push(f64::NAN);
            series.throughput.push(if now == 0 {
                0.0
            } else {
                (received - f.received_at_last_sample) as f64 * 8.0 / interval
            });
            series.state.push(if f.app.active { "on" } else { "off" });
            f.received_at_last_sample = received;
        }
        for (index, channel) in self.network.channels.iter().enumerate() {
            let (link, direction) = &self.channel_labels[index];
            series.queue_time.push(seconds);
            series.queue_link.push(link.clone());
            series.queue_direction.push(*direction);
            series.queue_packets.push(channel.queue.len_packets() as u64);
            series.queue_bytes.push(channel.queue.len_bytes());
        }
    }

    /// Packets alive in queues and on wires right now (for conservation checks).
    pub fn live_packets(&self) -> usize {
        self.pool.live()
    }

    pub fn results(&self) -> Results {
        let duration = self.events.now().max(1);
        let duration_s = as_secs_f64(duration);
        let mut goodputs = Vec::new();
        let mut rows = FlowRows::default();
        for f in &self.tcp {
            let delivered = f.receiver.stats.delivered_bytes;
            let complete = f.size.is_some_and(|size| delivered >= size);
            let end = if complete { f.receiver.stats.last_delivery_at } else { duration };
            let active = end.saturating_sub(f.app.start).max(1);
            let goodput = delivered as f64 * 8.0 / as_secs_f64(active);
            if f.app.start < duration {
                goodputs.push(goodput);
            }
            let stats = &f.sender.stats;
            let rtt_count = stats.rtt_us.len();
            let percentile =
                |q: f64| if rtt_count == 0 { f64::NAN } else { stats.rtt_us.value_at_quantile(q) as f64 / 1000.0 };
            rows.push_common(
                f.id,
                &f.name,
                "tcp",
                &f.algorithm,
                &self.network.nodes[f.source as usize].name,
                &self.network.nodes[f.sink as usize].name,
                f.app.start,
                f.base_rtt,
            );
            rows.mss.push(f.sender.mss());
            rows.size.push(f.size.map_or(f64::NAN, |s| s as f64));
            rows.delivered.push(delivered);
            rows.goodput.push(goodput);
            rows.sent.push(stats.bytes_sent);
            rows.throughput.push(stats.bytes_sent as f64 * 8.0 / as_secs_f64(active));
            rows.packets_sent.push(stats.segments_sent);
            rows.retransmitted_segments.push(stats.retransmitted_segments);
            rows.retransmitted_bytes.push(stats.retransmitted_bytes);
            rows.timeouts.push(stats.timeouts);
            rows.fast_recoveries.push(stats.fast_recoveries);
            rows.ecn_reductions.push(stats.ecn_reductions);
            rows.rtt_mean.push(if rtt_count == 0 {
                f64::NAN
            } else {
                stats.rtt_sum as f64 / rtt_count as f64 / NANOS_PER_MILLI as f64
            });
            rows.rtt_min.push(f.sender.rtt.min_rtt.map_or(f64::NAN, ms));
            rows.rtt_p50.push(percentile(0.5));
            rows.rtt_p95.push(percentile(0.95));
            rows.rtt_p99.push(percentile(0.99));
            rows.completion.push(if complete { as_secs_f64(end - f.app.start) } else { f64::NAN });
            rows.duplicate.push(f.receiver.stats.duplicate_bytes);
            rows.delay_mean.push(f64::NAN);
        }
        for f in &self.udp {
            let active = duration.saturating_sub(f.app.start).max(1);
            rows.push_common(
                f.id,
                &f.name,
                "udp",
                "",
                &self.network.nodes[f.source as usize].name,
                &self.network.nodes[f.sink as usize].name,
                f.app.start,
                f.base_rtt,
            );
            rows.mss.push(f.packet_bytes);
            rows.size.push(f64::NAN);
            rows.delivered.push(f.stats.received_bytes);
            rows.goodput.push(f.stats.received_bytes as f64 * 8.0 / as_secs_f64(active));
            rows.sent.push(f.stats.sent_bytes);
            rows.throughput.push(f.stats.sent_bytes as f64 * 8.0 / as_secs_f64(active));
            rows.packets_sent.push(f.stats.sent_packets);
            for column in [
                &mut rows.retransmitted_segments,
                &mut rows.retransmitted_bytes,
                &mut rows.timeouts,
                &mut rows.fast_recoveries,
                &mut rows.ecn_reductions,
                &mut rows.duplicate,
            ] {
                column.push(0);
            }
            for column in [
                &mut rows.rtt_mean,
                &mut rows.rtt_min,
                &mut rows.rtt_p50,
                &mut rows.rtt_p95,
                &mut rows.rtt_p99,
                &mut rows.completion,
            ] {
                column.push(f64::NAN);
            }
            let received = f.stats.received_packets;
            rows.delay_mean.push(if received == 0 {
                f64::NAN
            } else {
                f.stats.delay_sum as f64 / received as f64 / NANOS_PER_MILLI as f64
            });
        }
        let flows = rows.into_table();
        let links = self.link_table(duration);
        let s = &self.series;
        let mut flow_series = Table::default();
        flow_series.push("time_s", Column::F64(s.flow_time.clone()));
        flow_series.push("flow_id", Column::U64(s.flow_id.clone()));
        flow_series.push("cwnd_bytes", Column::F64(s.cwnd.clone()));
        flow_series.push("ssthresh_bytes", Column::F64(s.ssthresh.clone()));
        flow_series.push("srtt_ms", Column::F64(s.srtt_ms.clone()));
        flow_series.push("in_flight_bytes", Column::F64(s.in_flight.clone()));
        flow_series.push("throughput_bps", Column::F64(s.throughput.clone()));
        flow_series.push("state", Column::Str(s.state.iter().map(|state| state.to_string()).collect()));
        let mut queue_series = Table::default();
        queue_series.push("time_s", Column::F64(s.queue_time.clone()));
        queue_series.push("link", Column::Str(s.queue_link.clone()));
        queue_series.push("direction", Column::Str(s.queue_direction.iter().map(|d| d.to_string()).collect()));
        queue_series.push("queue_packets", Column::U64(s.queue_packets.clone()));
        queue_series.push("queue_bytes", Column::U64(s.queue_bytes.clone()));

        let mut event_time = Vec::new();
        let mut event_flow = Vec::new();
        let mut event_name = Vec::new();
        let mut event_kind = Vec::new();
        for f in &self.tcp {
            for &(at, event) in &f.sender.stats.events {
                event_time.push(as_secs_f64(at));
                event_flow.push(f.id as u64);
                event_name.push(f.name.clone());
                event_kind.push(event.to_string());
            }
        }
        let mut order: Vec<usize> = (0..event_time.len()).collect();
        order.sort_by(|&a, &b| event_time[a].total_cmp(&event_time[b]).then(event_flow[a].cmp(&event_flow[b])));
        let mut events = Table::default();
        events.push("time_s", Column::F64(order.iter().map(|&i| event_time[i]).collect()));
        events.push("flow_id", Column::U64(order.iter().map(|&i| event_flow[i]).collect()));
        events.push("name", Column::Str(order.iter().map(|&i| event_name[i].clone()).collect()));
        events.push("event", Column::Str(order.iter().map(|&i| event_kind[i].clone()).collect()));

        Results {
            events,
            summary: Summary {
                scenario: self.scenario.name.clone(),
                seed: self.scenario.simulation.seed,
                run: self.scenario.simulation.run,
                simulated_seconds: duration_s,
                events: self.events.processed(),
                packets_transmitted: self.network.channels.iter().map(|c| c.stats.transmitted_packets).sum(),
                jain_fairness: jain_index(&goodputs),
                total_goodput_bps: goodputs.iter().sum(),
                peak_live_packets: self.pool.capacity() as u64,
            },
            flows,
            links,
            flow_series,
            queue_series,
        }
    }

    fn link_table(&self, duration: SimDuration) -> Table {
        let duration_s = as_secs_f64(duration);
        let channels = &self.network.channels;
        let nodes = &self.network.nodes;
        let stat = |f: &dyn Fn(&Channel) -> u64| Column::U64(channels.iter().map(f).collect());
        let float = |f: &dyn Fn(&Channel) -> f64| Column::F64(channels.iter().map(f).collect());
        let quantile = |c: &Channel, q: f64| {
            if c.stats.sojourn_us.is_empty() {
                f64::NAN
            } else {
                c.stats.sojourn_us.value_at_quantile(q) as f64 / 1000.0
            }
        };
        let mut table = Table::default();
        table.push("link", Column::Str(self.channel_labels.iter().map(|(l, _)| l.clone()).collect()));
        table.push("direction", Column::Str(self.channel_labels.iter().map(|(_, d)| d.to_string()).collect()));
        table.push("from", Column::Str(channels.iter().map(|c| nodes[c.from as usize].name.clone()).collect()));
        table.push("to", Column::Str(channels.iter().map(|c| nodes[c.to as usize].name.clone()).collect()));
        table.push("rate_bps", stat(&|c| c.rate_bps));
        table.push("delay_ms", float(&|c| c.delay as f64 / NANOS_PER_MILLI as f64));
        table.push("buffer", Column::Str(channels.iter().map(|c| c.limit_description.clone()).collect()));
        table.push("utilization", float(&|c| (as_secs_f64(c.stats.busy_time) / duration_s).min(1.0)));
        table.push("throughput_bps", float(&|c| c.stats.transmitted_bytes as f64 * 8.0 / duration_s));
        table.push("offered_packets", stat(&|c| c.stats.offered_packets));
        table.push("transmitted_packets", stat(&|c| c.stats.transmitted_packets));
        table.push("transmitted_bytes", stat(&|c| c.stats.transmitted_bytes));
        table.push("delivered_packets", stat(&|c| c.stats.delivered_packets));
        table.push("queue_drops", stat(&|c| c.stats.queue_drops));
        table.push("early_drops", stat(&|c| c.queue.early_drops()));
        table.push("aqm_drops", stat(&|c| c.stats.aqm_drops));
        table.push("wire_losses", stat(&|c| c.stats.wire_losses));
        table.push("ecn_marks", stat(&|c| c.stats.ecn_marks));
        table.push("queued_packets", stat(&|c| c.queue.len_packets() as u64));
        table.push("max_queue_packets", stat(&|c| c.stats.max_queue_packets));
        table.push("max_queue_bytes", stat(&|c| c.stats.max_queue_bytes));
        table.push(
            "queue_delay_mean_ms",
            float(&|c| {
                let n = c.stats.sojourn_us.len();
                if n == 0 {
                    f64::NAN
                } else {
                    c.stats.sojourn_sum as f64 / n as f64 / NANOS_PER_MILLI as f64
                }
            }),
        );
        table.push("queue_delay_p50_ms", float(&|c| quantile(c, 0.5)));
        table.push("queue_delay_p95_ms", float(&|c| quantile(c, 0.95)));
        table.push("queue_delay_p99_ms", float(&|c| quantile(c, 0.99)));
        table
    }
}

fn ms(d: SimDuration) -> f64 {
    d as f64 / NANOS_PER_MILLI as f64
}

fn mean(values: &[SimDuration]) -> SimDuration {
    if values.is_empty() {
        0
    } else {
        (values.iter().map(|&v| v as u128).sum::<u128>() / values.len() as u128) as SimDuration
    }
}

/// The queue discipline of one channel, with its limit and (for RED) thresholds resolved.
fn build_queue(
    spec: &QueueSpec,
    limit: QueueLimit,
    mark_threshold: Option<u64>,
    bdp_bytes: f64,
    rate_bps: u64,
    rng: SimRng,
) -> Box<dyn QueueDiscipline> {
    let codel = || CodelParams {
        target: spec.target.map_or(0, |d| d.nanos()),
        interval: spec.interval.map_or(0, |d| d.nanos()),
        ecn: spec.ecn.unwrap_or(false),
    };
    match spec.kind {
        QueueKind::DropTail => Box::new(DropTail::new(limit, mark_threshold)),
        QueueKind::Codel => Box::new(Codel::new(codel(), limit)),
        QueueKind::FqCodel => {
            let packets = match limit {
                QueueLimit::Packets(n) => n,
                QueueLimit::Bytes(b) => (b / 1500).max(1),
            };
            Box::new(FqCodel::new(
                codel(),
                spec.flows.unwrap_or(1024) as usize,
                spec.quantum.map_or(1514, |q| q.0),
                packets,
            ))
        }
        QueueKind::Red => {
            let mean_packet = spec.mean_packet_size.map_or(1500, |b| b.0) as f64;
            let byte_mode = spec.byte_mode.unwrap_or(false);
            // Thresholds in the unit RED measures: packets, or bytes in byte mode.
            let in_unit = |buffer: Buffer| -> f64 {
                let bytes = match buffer {
                    Buffer::Packets(n) => n as f64 * mean_packet,
                    Buffer::Bytes(b) => b as f64,
                    Buffer::Bdp(x) => x * bdp_bytes,
                };
                if byte_mode {
                    bytes
                } else {
                    bytes / mean_packet
                }
            };
            let capacity = match limit {
                QueueLimit::Packets(n) => Buffer::Packets(n),
                QueueLimit::Bytes(b) => Buffer::Bytes(b),
            };
            let params = RedParams {
                min_th: spec.min_th.map_or(in_unit(capacity) / 6.0, in_unit),
                max_th: spec.max_th.map_or(in_unit(capacity) / 2.0, in_unit),
                w_q: spec.w_q.unwrap_or(0.002),
                max_p: spec.max_p.unwrap_or(0.1),
                gentle: spec.gentle.unwrap_or(true),
                wait: spec.wait.unwrap_or(true),
                byte_mode,
                ecn: spec.ecn.unwrap_or(false),
                idle_decay: spec.idle_decay.unwrap_or(true),
                mean_packet_bytes: mean_packet,
                link_rate_bps: rate_bps,
            };
            Box::new(Red::new(params, limit, rng))
        }
    }
}

/// Loss, jitter, outages and rate changes of one channel.
fn configure_direction(channel: &mut Channel, spec: &DirectionSpec) {
    if let Some(loss) = &spec.loss {
        channel.loss = match loss.model {
            LossModelKind::Bernoulli => LossModel::Bernoulli { probability: loss.p.unwrap_or(0.0) },
            LossModelKind::GilbertElliott => LossModel::GilbertElliott {
                good_to_bad: loss.p_good_to_bad.unwrap_or(0.0),
                bad_to_good: loss.p_bad_to_good.unwrap_or(1.0),
                loss_in_good: loss.loss_in_good.unwrap_or(0.0),
                loss_in_bad: loss.loss_in_bad.unwrap_or(1.0),
                in_bad: false,
            },
        };
    }
    if let Some(jitter) = &spec.jitter {
        let distribution = match jitter.distribution {
            JitterKind::Uniform => JitterDistribution::Uniform { max: jitter.max.map_or(0, |d| d.nanos()) },
            JitterKind::Normal => JitterDistribution::Normal(
                rand_distr::Normal::new(
                    jitter.mean.map_or(0, |d| d.nanos()) as f64,
                    jitter.std.map_or(0, |d| d.nanos()) as f64,
                )
                .expect("validated: a standard deviation is a finite non-negative duration"),
            ),
        };
        channel.jitter = Some(Jitter { distribution, reorder: jitter.reorder });
    }
    channel.outages =
        spec.outages.iter().map(|o| Outage { start: o.at.nanos(), end: o.at.nanos() + o.duration.nanos() }).collect();
    channel.rate_schedule = spec.rate_schedule.iter().map(|s| (s.at.nanos(), s.rate.bps())).collect();
    channel.delay_schedule = spec.delay_schedule.iter().map(|s| (s.at.nanos(), s.delay.nanos())).collect();
}

/// Columns of the per-flow table, filled row by row.
#[derive(Default)]
struct FlowRows {
    id: Vec<u64>,
    name: Vec<String>,
    protocol: Vec<String>,
    cc: Vec<String>,
    source: Vec<String>,
    destination: Vec<String>,
    start: Vec<f64>,
    base_rtt: Vec<f64>,
    mss: Vec<u64>,
    size: Vec<f64>,
    delivered: Vec<u64>,
    goodput: Vec<f64>,
    sent: Vec<u64>,
    throughput: Vec<f64>,
    packets_sent: Vec<u64>,
    retransmitted_segments: Vec<u64>,
    retransmitted_bytes: Vec<u64>,
    timeouts: Vec<u64>,
    fast_recoveries: Vec<u64>,
    ecn_reductions: Vec<u64>,
    rtt_mean: Vec<f64>,
    rtt_min: Vec<f64>,
    rtt_p50: Vec<f64>,
    rtt_p95: Vec<f64>,
    rtt_p99: Vec<f64>,
    completion: Vec<f64>,
    duplicate: Vec<u64>,
    delay_mean: Vec<f64>,
}

impl FlowRows {
    #[allow(clippy::too_many_arguments)]
    fn push_common(
        &mut self,
        id: usize,
        name: &str,
        protocol: &str,
        cc: &str,
        source: &str,
        destination: &str,
        start: SimTime,
        base_rtt: SimDuration,
    ) {
        self.id.push(id as u64);
        self.name.push(name.to_string());
        self.protocol.push(protocol.to_string());
        self.cc.push(cc.to_string());
        self.source.push(source.to_string());
        self.destination.push(destination.to_string());
        self.start.push(as_secs_f64(start));
        self.base_rtt.push(ms(base_rtt));
    }

    /// Rows sorted by flow id (TCP and UDP flows were pushed in two groups).
    fn into_table(self) -> Table {
        let mut order: Vec<usize> = (0..self.id.len()).collect();
        order.sort_by_key(|&i| self.id[i]);
        let pick_u = |v: &Vec<u64>| Column::U64(order.iter().map(|&i| v[i]).collect());
        let pick_f = |v: &Vec<f64>| Column::F64(order.iter().map(|&i| v[i]).collect());
        let pick_s = |v: &Vec<String>| Column::Str(order.iter().map(|&i| v[i].clone()).collect());
        let mut t = Table::default();
        t.push("flow_id", pick_u(&self.id));
        t.push("name", pick_s(&self.name));
        t.push("protocol", pick_s(&self.protocol));
        t.push("cc", pick_s(&self.cc));
        t.push("source", pick_s(&self.source));
        t.push("destination", pick_s(&self.destination));
        t.push("start_s", pick_f(&self.start));
        t.push("base_rtt_ms", pick_f(&self.base_rtt));
        t.push("packet_payload_bytes", pick_u(&self.mss));
        t.push("size_bytes", pick_f(&self.size));
        t.push("bytes_delivered", pick_u(&self.delivered));
        t.push("goodput_bps", pick_f(&self.goodput));
        t.push("bytes_sent", pick_u(&self.sent));
        t.push("throughput_bps", pick_f(&self.throughput));
        t.push("packets_sent", pick_u(&self.packets_sent));
        t.push("retransmitted_segments", pick_u(&self.retransmitted_segments));
        t.push("retransmitted_bytes", pick_u(&self.retransmitted_bytes));
        t.push("timeouts", pick_u(&self.timeouts));
        t.push("fast_recoveries", pick_u(&self.fast_recoveries));
        t.push("ecn_reductions", pick_u(&self.ecn_reductions));
        t.push("rtt_mean_ms", pick_f(&self.rtt_mean));
        t.push("rtt_min_ms", pick_f(&self.rtt_min));
        t.push("rtt_p50_ms", pick_f(&self.rtt_p50));
        t.push("rtt_p95_ms", pick_f(&self.rtt_p95));
        t.push("rtt_p99_ms", pick_f(&self.rtt_p99));
        t.push("completion_time_s", pick_f(&self.completion));
        t.push("duplicate_bytes", pick_u(&self.duplicate));
        t.push("one_way_delay_mean_ms", pick_f(&self.delay_mean));
        t
    }
}
