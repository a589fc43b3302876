//! A simulation: the network, the flows and the event loop, built from a [`Scenario`].
//!
//! Packets move between nodes by static routes; at their destination node they are handed to the
//! endpoint of their flow (TCP receiver, TCP sender or UDP sink). Endpoints never touch the network
//! directly: they push packets into an outbox that the simulation injects at their node.
//!
//! - `mod.rs`: the [`Simulation`], its event loop and dispatch, and packet forwarding;
//! - `build.rs`: the network and the flows from a resolved scenario;
//! - `channel_setup.rs`: one link direction's queue discipline, loss, jitter and schedules;
//! - `flows.rs`: the record kept per TCP and UDP flow;
//! - `applications.rs`: application events (flow start, on/off toggles, paced writes, restarts,
//!   UDP sends);
//! - `measurements.rs`: samples taken during the run and the results tables at the end;
//! - `link_network.rs`: the network alone, for the Linux back-end's link emulator.

mod applications;
mod build;
mod channel_setup;
mod flows;
mod link_network;
mod measurements;

pub use link_network::{FlowEnds, LinkNetwork};
pub use measurements::sample_queues;

use crate::metrics::TimeSeries;
use crate::net::packet::{flow_key, DestinationRoute, Packet, PacketId, PacketKind, PacketPool};
use crate::net::topology::{Network, NO_ROUTE};
use crate::prefetch::{prefetch_hint, Hint};
use crate::results::Results;
use crate::scenario::Scenario;
use crate::sim::{Event, EventQueue, NextHop, NextHopKind};
use crate::tcp::EndpointContext;
use crate::time::{SimDuration, SimTime};
use flows::{TcpFlow, TcpFlowLabel, UdpFlow};

/// The size of the flows' and links' state above which the event loop prefetches for the next
/// event: about the last-level cache of a server. Measured on the scale benchmark (a 32-MB L3):
/// 10,000 flows (48 MB of state) run 10% faster with it, 100 and 1,000 flows (0.5 and 4.8 MB,
/// cached) 7% and 13% slower, paying for hints about data that was in the cache anyway.
const PREFETCH_AHEAD_ABOVE_BYTES: usize = 16 << 20;

/// What a TCP flow's endpoints touch outside their own state, prefetched with them one event
/// ahead: the first channel of its data (from the sender) and of its ACKs (from the receiver), or
/// NO_ROUTE, which is also the route every packet they send takes first (`flush`); and the
/// addresses the endpoints gave after their latest event (`memory_hints`), which the loop could
/// not find in time itself, since it would first have to load the endpoint.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct FlowHints {
    first_hops: [u32; 2],
    /// What its data's and its ACKs' destinations are to routing, which their packets carry.
    destinations: [DestinationRoute; 2],
    sender: [Hint; 4],
    receiver: Hint,
}

pub struct Simulation {
    scenario: Scenario,
    events: EventQueue,
    pool: PacketPool,
    network: Network,
    tcp: Vec<TcpFlow>,
    /// Per TCP flow, in the order of `tcp`: its id, name, algorithm and base RTT.
    tcp_labels: Vec<TcpFlowLabel>,
    udp: Vec<UdpFlow>,
    outbox: Vec<Packet>,
    end: SimTime,
    sample_interval: SimDuration,
    series: TimeSeries,
    /// Bytes each channel had transmitted at the previous sample (for per-interval throughput).
    transmitted_at_last_sample: Vec<u64>,
    unroutable_packets: u64,
    /// Per TCP flow, what its endpoints touch outside their own state, for prefetching.
    tcp_hints: Vec<FlowHints>,
    /// Whether the event loop prefetches for the next event (`prefetch_upcoming`).
    prefetch_ahead: bool,
    /// Packets of an earlier connection of a restarting flow, discarded where they arrived.
    stale_packets: u64,
}

impl Simulation {
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
            if self.prefetch_ahead {
                self.prefetch_upcoming();
            }
            self.dispatch(event);
        }
        self.events.advance_to(limit);
        // Links that send lazily count a transmission when it starts: bring them to `limit`.
        self.network.catch_up(limit);
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self) -> Results {
        self.run_until(self.end);
        self.take_results()
    }

    /// The first flow whose algorithm stopped working (an external algorithm raised an error),
    /// as "flow NAME (ALGORITHM): why". Its window stays as it last was, so results after it
    /// mean nothing: callers stop and report it.
    pub fn algorithm_failure(&self) -> Option<String> {
        self.tcp.iter().zip(&self.tcp_labels).find_map(|(f, label)| {
            let restart_failure = f.restart.as_ref().and_then(|r| r.failure.as_deref());
            let (name, algorithm) = (&label.name, &label.algorithm);
            f.sender.cc.failure().or(restart_failure).map(|why| format!("flow {name} ({algorithm}): {why}"))
        })
    }

    /// Packets of finished connections of restarting flows that arrived after their connection
    /// ended (discarded, never handed to the new connection's endpoints).
    pub fn stale_packets(&self) -> u64 {
        self.stale_packets
    }

    /// Packets alive in queues and on wires right now (for conservation checks).
    pub fn live_packets(&self) -> usize {
        self.pool.live()
    }

    /// At 10,000 flows the channel, packet and flow an event touches have left the caches since
    /// they were last used, and each first touch waited for memory: the loads for the next link
    /// event start now, while this one runs. Only for networks whose state is far beyond the
    /// caches (`PREFETCH_AHEAD_ABOVE_BYTES`).
    fn prefetch_upcoming(&self) {
        let Some(Event::WireArrival { channel, packet, next_hop }) = self.events.upcoming_link_event() else {
            return;
        };
        let channels = &self.network.channels;
        channels[channel as usize].prefetch_for_arrival(&self.pool);
        self.pool.prefetch(packet);
        let first_hop = match next_hop.target() {
            Some((NextHopKind::Channel, index)) => Some(index),
            Some((NextHopKind::TcpSender, flow)) => {
                let flow = flow as usize;
                crate::prefetch::prefetch(&self.tcp[flow].connection);
                crate::prefetch::prefetch_all(&self.tcp[flow].sender);
                let hints = &self.tcp_hints[flow];
                hints.sender.into_iter().for_each(prefetch_hint);
                Some(hints.first_hops[0])
            }
            Some((NextHopKind::TcpReceiver, flow)) => {
                let flow = flow as usize;
                crate::prefetch::prefetch(&self.tcp[flow].connection);
                crate::prefetch::prefetch_all(&self.tcp[flow].receiver);
                let hints = &self.tcp_hints[flow];
                prefetch_hint(hints.receiver);
                Some(hints.first_hops[1])
            }
            None => None,
        };
        if let Some(channel) = first_hop.and_then(|index| channels.get(index as usize)) {
            channel.prefetch_for_offer();
        }
    }

    fn dispatch(&mut self, event: Event) {
        match event {
            Event::WireArrival { channel: index, packet, next_hop } => {
                let channel = &mut self.network.channels[index as usize];
                channel.on_head_arrival(index, &self.pool, &mut self.events);
                channel.stats.delivered_packets += 1;
                let node = channel.to;
                self.forward(node, packet, next_hop);
            }
            Event::Arrival { channel, packet } => {
                let channel = &mut self.network.channels[channel as usize];
                channel.stats.delivered_packets += 1;
                let node = channel.to;
                self.forward(node, packet, NextHop::UNKNOWN);
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
            Event::FlowRestart { flow } => self.restart_tcp_flow(flow as usize),
            Event::AppToggle { flow } => self.toggle_tcp_app(flow as usize),
            Event::AppWrite { flow } => self.tcp_app_write(flow as usize),
            Event::RetransmitTimer { .. }
            | Event::PacingTimer { .. }
            | Event::AckRelease { .. }
            | Event::AckSendRelease { .. }
            | Event::DelayedAckTimer { .. } => self.tcp_timer(event),
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

    /// A TCP endpoint's timer fired: hand it to the sender or receiver, then send what it produced.
    fn tcp_timer(&mut self, event: Event) {
        let mut ctx = EndpointContext { events: &mut self.events, outbox: &mut self.outbox };
        let node = match event {
            Event::RetransmitTimer { flow } => {
                let f = &mut self.tcp[flow as usize];
                f.sender.on_rto_timer(&mut ctx);
                f.source
            }
            Event::PacingTimer { flow } => {
                let f = &mut self.tcp[flow as usize];
                f.sender.on_pacing_timer(&mut ctx);
                f.source
            }
            Event::AckRelease { flow } => {
                let f = &mut self.tcp[flow as usize];
                f.sender.on_ack_release(&mut ctx);
                f.source
            }
            Event::AckSendRelease { flow } => {
                let f = &mut self.tcp[flow as usize];
                f.receiver.on_ack_send_release(&mut ctx);
                f.sink
            }
            Event::DelayedAckTimer { flow } => {
                let f = &mut self.tcp[flow as usize];
                f.receiver.on_delayed_ack_timer(&mut ctx);
                f.sink
            }
            other => unreachable!("{other:?} is not a TCP timer"),
        };
        self.flush(node);
    }

    /// Moves a packet that is at `node` one step on, or hands it to its endpoint. `next_hop` is
    /// what the packet takes next if that is known: when it is a channel (the route `hop_after`
    /// looked up as the packet left the previous link, or the flow's first link for a packet its
    /// endpoint sends; routes are static), it is not looked up again.
    fn forward(&mut self, node: u32, packet: PacketId, next_hop: NextHop) {
        let Packet { destination, kind, flow, destination_route, .. } = *self.pool.get(packet);
        if destination == node {
            self.deliver(packet);
            return;
        }
        let channel = match next_hop.target() {
            Some((NextHopKind::Channel, channel)) => channel,
            _ => self.network.route_to(node, destination, destination_route, flow_key(kind, flow)),
        };
        if channel == NO_ROUTE {
            self.unroutable_packets += 1;
            self.pool.release(packet);
            return;
        }
        let next_hop = if self.prefetch_ahead {
            self.hop_after(channel, (destination, destination_route), kind, flow)
        } else {
            NextHop::UNKNOWN
        };
        self.network.channels[channel as usize].offer(channel, packet, next_hop, &mut self.pool, &mut self.events);
    }

    /// What a packet for `destination` touches once it has crossed `channel`: for prefetching,
    /// and as the next link's route, which its arrival event hands back to `forward`.
    fn hop_after(&self, channel: u32, destination: (u32, DestinationRoute), kind: PacketKind, flow: u32) -> NextHop {
        let to = self.network.channels[channel as usize].to;
        match kind {
            _ if to != destination.0 => {
                NextHop::channel(self.network.route_to(to, destination.0, destination.1, flow_key(kind, flow)))
            }
            PacketKind::TcpData => NextHop::tcp_receiver(flow),
            PacketKind::TcpAck => NextHop::tcp_sender(flow),
            PacketKind::Udp => NextHop::UNKNOWN,
        }
    }

    /// Hands a packet to its endpoint. The endpoint reads it where it lies in the pool (a copy
    /// read both of its cache lines; a data segment's fields fit in the first).
    fn deliver(&mut self, id: PacketId) {
        let packet = self.pool.get(id);
        let (kind, flow) = (packet.kind, packet.flow as usize);
        if kind != PacketKind::Udp && packet.connection != self.tcp[flow].connection {
            // Left over from an earlier connection of a restarting flow.
            self.stale_packets += 1;
            self.pool.release(id);
            return;
        }
        let mut ctx = EndpointContext { events: &mut self.events, outbox: &mut self.outbox };
        let node = match kind {
            PacketKind::TcpData => {
                self.tcp[flow].receiver.on_data(packet, &mut ctx);
                self.tcp[flow].sink
            }
            PacketKind::TcpAck => {
                self.tcp[flow].sender.on_ack_arrival(packet, &mut ctx);
                self.tcp[flow].source
            }
            PacketKind::Udp => {
                let now = self.events.now();
                self.udp[flow].stats.record_received(packet, now);
                self.pool.release(id);
                return;
            }
        };
        if self.prefetch_ahead {
            self.refresh_hints(flow, kind);
        }
        // Freed before the endpoint's packets are injected: the first of them reuses the slot
        // while it is still in the cache.
        self.pool.release(id);
        if kind == PacketKind::TcpData {
            self.check_transfer_complete(flow);
        }
        self.flush(node);
    }

    /// Takes the memory hints of flow `flow`'s endpoint that just ran (the receiver for data, the
    /// sender for an ACK): its state is in the cache now, so this costs a few loads.
    fn refresh_hints(&mut self, flow: usize, kind: PacketKind) {
        let f = &self.tcp[flow];
        let hints = &mut self.tcp_hints[flow];
        match kind {
            PacketKind::TcpData => hints.receiver = f.receiver.memory_hint(),
            PacketKind::TcpAck => hints.sender = f.sender.memory_hints(),
            PacketKind::Udp => {}
        }
    }

    /// Injects the packets endpoints produced at `node`.
    fn flush(&mut self, node: u32) {
        if self.outbox.is_empty() {
            return;
        }
        let mut outbox = std::mem::take(&mut self.outbox);
        for mut packet in outbox.drain(..) {
            // A TCP endpoint's first link is fixed for the flow's life (static routes, fixed
            // endpoints): taken from the flow's hints, not looked up per packet.
            let direction = match packet.kind {
                PacketKind::TcpData => 0,
                PacketKind::TcpAck => 1,
                PacketKind::Udp => unreachable!("UDP datagrams are sent by `udp_send`"),
            };
            let hints = &self.tcp_hints[packet.flow as usize];
            let first_hop = NextHop::channel(hints.first_hops[direction]);
            packet.destination_route = hints.destinations[direction];
            packet.connection = self.tcp[packet.flow as usize].connection;
            let id = self.pool.insert(packet);
            self.forward(node, id, first_hop);
        }
        self.outbox = outbox;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prefetching for the next event (on by itself only for networks beyond the caches) is a
    /// hint: a run with it gives exactly the results of a run without it.
    #[test]
    fn prefetching_changes_no_result() {
        let scenario = Scenario::from_toml(
            r#"
            [simulation]
            duration = "2s"
            [topology]
            kind = "dumbbell"
            bottleneck = { rate = "20Mbps", delay = "10ms", buffer = "1BDP" }
            access = { rate = "1Gbps", delay = "1ms", buffer = "1000p" }
            [[flows]]
            cc = "cubic"
            count = 3
            [[flows]]
            cc = "newreno"
            start = "0.5s"
            "#,
        )
        .unwrap();
        let plain = Simulation::new(&scenario).unwrap();
        assert!(!plain.prefetch_ahead);
        let mut prefetching = Simulation::new(&scenario).unwrap();
        prefetching.prefetch_ahead = true;
        assert_eq!(format!("{:?}", prefetching.run()), format!("{:?}", plain.run()));
    }
}
