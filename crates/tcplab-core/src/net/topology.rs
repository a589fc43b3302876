//! Nodes, channels and static routing, with equal-cost multipath (ECMP) as an option. The
//! topologies are built from a scenario in `simulation/build.rs` (fat trees and leaf-spines laid
//! out by `net/fabric.rs`).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use crate::net::channel::Channel;
use crate::net::packet::DestinationRoute;
use crate::time::{SimDuration, SimTime};

pub const NO_ROUTE: u32 = u32::MAX;

/// A next-hop entry with this bit set names an ECMP group (its index in the low bits), not a
/// channel. Channel indices stay far below 2^31 (a channel is 64 bytes or more).
const GROUP: u32 = 1 << 31;

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub is_router: bool,
}

/// A full-duplex link as the user named it, made of two channels.
#[derive(Clone, Debug)]
pub struct Link {
    pub name: String,
    pub forward: u32,
    pub reverse: u32,
}

/// How a channel was set up, as reports give it: kept beside the channels rather than in them,
/// since no packet reads it (it was 56 of a channel's 384 bytes, and a string on the heap each).
#[derive(Clone, Debug, Default)]
pub struct ChannelSetup {
    /// The queue limit as configured, in bytes and packets; channels with the same limit share
    /// one text.
    pub limit_description: Arc<str>,
    /// The RTT the link's BDP was taken at (the mean base RTT of the flows crossing it, or
    /// `topology.bdp_rtt`): BDP buffers and thresholds were resolved against rate x this.
    pub bdp_rtt: SimDuration,
}

#[derive(Default)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub channels: Vec<Channel>,
    /// Per channel, in channel order (empty until the builder sets the queues up).
    pub setups: Vec<ChannelSetup>,
    pub links: Vec<Link>,
    routes: Routes,
    /// `Some(salt)`: equal-cost next hops are kept and a flow's hash picks among them (ECMP);
    /// `None`: one next hop per destination.
    ecmp_salt: Option<u64>,
}

/// Static routes, in memory linear in the number of hosts.
///
/// Most nodes are hosts hanging off one router by one link ("stubs": one channel out and one in,
/// both to the same neighbour). A stub sends everything up its one link, and a packet for a stub
/// goes to the stub's router first, then down. Shortest paths are therefore computed only between
/// the other ("core") nodes: a dumbbell with 10,000 flows has 2 core nodes and 20,000 stubs, so
/// its routes take a 2 x 2 table instead of 20,002^2 entries and all-pairs searches over them.
#[derive(Default)]
struct Routes {
    /// Per node, the three numbers routing reads about it, together so that a lookup for a node
    /// reads one cache line (at 10,000 flows the table is far beyond the first-level cache).
    per_node: Vec<NodeRoute>,
    core_count: usize,
    /// `core_next_hop[core * core_count + destination_core]`: a channel, or `GROUP | index` of
    /// an ECMP group in `groups`.
    core_next_hop: Vec<u32>,
    /// ECMP groups as (first, count) in `group_channels`; each distinct set of equal-cost
    /// channels is kept once (a fat tree's edge switch has one: its uplinks).
    groups: Vec<(u32, u32)>,
    group_channels: Vec<u32>,
}

/// What routing knows about one node. 16 bytes, so that no entry straddles two cache lines.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct NodeRoute {
    /// The channel a stub sends everything on, or [`NO_ROUTE`] for a core node.
    uplink: u32,
    /// The channel into a stub from its router, or [`NO_ROUTE`] for a core node.
    downlink: u32,
    /// Its index among the core nodes, or for a stub its router's.
    core: u32,
}

impl Network {
    pub fn add_node(&mut self, name: &str, is_router: bool) -> u32 {
        let index = self.nodes.len() as u32;
        self.nodes.push(Node { name: name.to_string(), is_router });
        index
    }

    /// Makes room for `nodes` more nodes and `links` more links at once. A builder that knows its
    /// network's size calls it first: growing by doubling copies the arrays as they grow (at
    /// 10,000 flows 30 MB of channels and 20 MB of flows), and the copies' pages stay in the peak.
    pub fn reserve(&mut self, nodes: usize, links: usize) {
        self.nodes.reserve_exact(nodes);
        self.channels.reserve_exact(2 * links);
        self.links.reserve_exact(links);
    }

    /// Channel `index`'s link name and direction ("forward" or "reverse"), for reports: link k's
    /// channels are 2k and 2k + 1, since `add_link` is the only way to add them. (A list of the
    /// names per channel had been two strings a link: 2.2 MB at 10,000 flows.)
    pub fn channel_label(&self, index: usize) -> (&str, &'static str) {
        let link = &self.links[index / 2];
        (&link.name, if link.forward as usize == index { "forward" } else { "reverse" })
    }

    /// Every channel's `channel_label`, in channel order.
    pub fn channel_labels(&self) -> impl ExactSizeIterator<Item = (&str, &'static str)> + Clone {
        (0..self.channels.len()).map(|index| self.channel_label(index))
    }

    /// Adds a link as its forward (a -> b) and reverse (b -> a) channels.
    pub fn add_link(&mut self, name: &str, forward: Channel, reverse: Channel) -> usize {
        let forward_index = self.channels.len() as u32;
        self.channels.push(forward);
        self.channels.push(reverse);
        self.links.push(Link { name: name.to_string(), forward: forward_index, reverse: forward_index + 1 });
        self.links.len() - 1
    }

    /// Routes computed after this keep every equal-cost next hop, and each flow takes the one a
    /// hash of `salt`, the flow's key (`Packet::flow_key`) and the node picks: per-flow ECMP, so
    /// all packets of a flow take one path. Hashing the node too keeps the choices of successive
    /// hops independent (with one hash for all, a flow's choice at an edge switch would fix its
    /// choice at the aggregation switch, and a fat tree's core would be used k/2 times less).
    pub fn use_ecmp(&mut self, salt: u64) {
        self.ecmp_salt = Some(salt);
    }

    /// Computes static routes: fewest hops first, then least propagation delay, then the channel
    /// added first, so routes are deterministic (with ECMP, every next hop of least cost is kept).
    /// Stubs are found in one pass over the channels; between core nodes, Dijkstra from every
    /// destination over reversed channels.
    pub fn compute_routes(&mut self) {
        let unrouted = NodeRoute { uplink: NO_ROUTE, downlink: NO_ROUTE, core: NO_ROUTE };
        let mut per_node = vec![unrouted; self.nodes.len()];
        let stub_links = self.stub_links();
        let mut core_nodes = Vec::new();
        for (node, link) in stub_links.iter().enumerate() {
            match *link {
                Some((up, down)) => (per_node[node].uplink, per_node[node].downlink) = (up, down),
                None => {
                    per_node[node].core = core_nodes.len() as u32;
                    core_nodes.push(node);
                }
            }
        }
        // A stub's router is a core node, numbered in the pass above.
        for (node, link) in stub_links.iter().enumerate() {
            if let Some((up, _)) = *link {
                per_node[node].core = per_node[self.channels[up as usize].to as usize].core;
            }
        }
        let core_of: Vec<u32> = per_node.iter().map(|route| route.core).collect();
        let (core_next_hop, groups, group_channels) = self.core_next_hops(&core_nodes, &core_of);
        self.routes = Routes { per_node, core_count: core_nodes.len(), core_next_hop, groups, group_channels };
    }

    /// Per node, `Some((uplink, downlink))` if it is a stub whose neighbour is not a stub itself
    /// (two nodes joined by one link are both core, so each has somewhere to route to).
    fn stub_links(&self) -> Vec<Option<(u32, u32)>> {
        let n = self.nodes.len();
        let mut outgoing: Vec<(u32, u32)> = vec![(0, NO_ROUTE); n];
        let mut incoming: Vec<(u32, u32)> = vec![(0, NO_ROUTE); n];
        for (index, channel) in self.channels.iter().enumerate() {
            let out = &mut outgoing[channel.from as usize];
            *out = (out.0 + 1, index as u32);
            let into = &mut incoming[channel.to as usize];
            *into = (into.0 + 1, index as u32);
        }
        let candidate: Vec<Option<(u32, u32)>> = (0..n)
            .map(|node| match (outgoing[node], incoming[node]) {
                ((1, up), (1, down)) if self.channels[up as usize].to == self.channels[down as usize].from => {
                    Some((up, down))
                }
                _ => None,
            })
            .collect();
        (0..n)
            .map(|node| {
                let (up, _) = candidate[node]?;
                let neighbour = self.channels[up as usize].to as usize;
                if candidate[neighbour].is_some() {
                    None
                } else {
                    candidate[node]
                }
            })
            .collect()
    }

    /// Next hops between core nodes: for each core destination, Dijkstra over the channels
    /// between core nodes, reversed, with (hops, delay) costs; ties go to the lower node index,
    /// then the lower channel index. With ECMP, a node with several channels of least cost gets
    /// an ECMP group. Returns the next-hop table, the groups and their channels.
    fn core_next_hops(&self, core_nodes: &[usize], core_of: &[u32]) -> (Vec<u32>, Vec<(u32, u32)>, Vec<u32>) {
        let k = core_nodes.len();
        // Channels between core nodes, grouped by the core node they end at and by the one they
        // start at, in channel order, each with what the searches read of it: the searches then
        // walk small arrays instead of the channels themselves (a k = 32 fat tree's 32,768
        // channels are far beyond the caches, and reading them was most of its set-up).
        let mut arriving: Vec<Vec<Edge>> = vec![Vec::new(); k];
        let mut leaving: Vec<Vec<Edge>> = vec![Vec::new(); k];
        for (index, channel) in self.channels.iter().enumerate() {
            let (from, to) = (channel.from as usize, channel.to as usize);
            if core_nodes.binary_search(&from).is_ok() && core_nodes.binary_search(&to).is_ok() {
                let (from, to) = (core_of[from], core_of[to]);
                let channel_index = index as u32;
                arriving[to as usize].push(Edge { node: from, channel: channel_index, delay: channel.delay });
                leaving[from as usize].push(Edge { node: to, channel: channel_index, delay: channel.delay });
            }
        }
        let mut next_hop = vec![NO_ROUTE; k * k];
        let mut groups = EcmpGroups::default();
        for destination in 0..k {
            let cost = costs_to(destination, &arriving, &mut next_hop);
            if self.ecmp_salt.is_none() {
                continue;
            }
            for (from, cost_here) in cost.iter().enumerate() {
                let Some(here) = *cost_here else { continue };
                groups.scratch.clear();
                for edge in &leaving[from] {
                    let there = cost[edge.node as usize];
                    if there.is_some_and(|(hops, delay)| (hops + 1, delay + edge.delay) == here) {
                        groups.scratch.push(edge.channel);
                    }
                }
                if groups.scratch.len() > 1 {
                    next_hop[from * k + destination] = GROUP | groups.intern();
                }
            }
        }
        (next_hop, groups.ranges, groups.channels)
    }

    /// Brings every channel's counters to `now` (`Channel::catch_up`): before they are read.
    pub fn catch_up(&mut self, now: SimTime) {
        for channel in &mut self.channels {
            channel.catch_up(now);
        }
    }

    /// The channel a packet of the flow with key `flow` (`Packet::flow_key`) at `node` takes
    /// towards `destination` (not `node` itself), or [`NO_ROUTE`].
    #[inline]
    pub fn route(&self, node: u32, destination: u32, flow: u64) -> u32 {
        self.route_to(node, destination, DestinationRoute::UNKNOWN, flow)
    }

    /// `route`, for a packet that carries its destination's routing entry (`destination_route`;
    /// `DestinationRoute::UNKNOWN` to look it up).
    #[inline]
    pub fn route_to(&self, node: u32, destination: u32, known: DestinationRoute, flow: u64) -> u32 {
        let routes = &self.routes;
        let here = routes.per_node[node as usize];
        if here.uplink != NO_ROUTE {
            return here.uplink;
        }
        let there = if known == DestinationRoute::UNKNOWN { self.destination_route(destination) } else { known };
        if here.core == there.core {
            // The destination is a stub of this router.
            return there.downlink;
        }
        let hop = routes.core_next_hop[here.core as usize * routes.core_count + there.core as usize];
        if hop < GROUP || hop == NO_ROUTE {
            return hop;
        }
        self.ecmp_pick(hop & !GROUP, flow, node)
    }

    /// The member of ECMP group `group` that flow `flow` takes at `node`: a hash of the salt, the
    /// flow and the node, reduced to the group's size by a multiply-shift (unbiased to 2^-32).
    /// Kept out of line, so that `route_to` stays as small as it was for single-path networks.
    #[cold]
    #[inline(never)]
    fn ecmp_pick(&self, group: u32, flow: u64, node: u32) -> u32 {
        let (first, count) = self.routes.groups[group as usize];
        let salt = self.ecmp_salt.unwrap_or(0);
        let hash = mix64(mix64(salt ^ flow) ^ node as u64);
        let member = ((hash >> 32) * count as u64) >> 32;
        self.routes.group_channels[(first as u64 + member) as usize]
    }

    /// What a packet for `destination` carries so that no hop looks the destination up.
    pub fn destination_route(&self, destination: u32) -> DestinationRoute {
        let entry = self.routes.per_node[destination as usize];
        DestinationRoute { core: entry.core, downlink: entry.downlink }
    }

    /// The channels a packet of flow key `flow` crosses from `source` to `destination`, or None
    /// if unreachable.
    pub fn path(&self, source: u32, destination: u32, flow: u64) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        let mut node = source;
        while node != destination {
            let channel = self.route(node, destination, flow);
            if channel == NO_ROUTE || path.len() > self.nodes.len() {
                return None;
            }
            path.push(channel);
            node = self.channels[channel as usize].to;
        }
        Some(path)
    }
}

/// A channel between core nodes as route searches see it: the core node at its other end, its
/// index and its propagation delay.
#[derive(Clone, Copy)]
struct Edge {
    node: u32,
    channel: u32,
    delay: u64,
}

/// Dijkstra towards core node `destination` over `arriving` (per core node, the channels that end
/// there): each core node's (hops, delay) to it, and its first channel of least cost written into
/// `next_hop`.
fn costs_to(destination: usize, arriving: &[Vec<Edge>], next_hop: &mut [u32]) -> Vec<Option<(u32, u64)>> {
    let k = arriving.len();
    let mut cost: Vec<Option<(u32, u64)>> = vec![None; k];
    let mut done = vec![false; k];
    let mut frontier = BinaryHeap::new();
    cost[destination] = Some((0, 0));
    frontier.push(Reverse(((0u32, 0u64), destination)));
    while let Some(Reverse((path_cost, current))) = frontier.pop() {
        if done[current] || cost[current] != Some(path_cost) {
            continue;
        }
        done[current] = true;
        let (hops, delay) = path_cost;
        for edge in &arriving[current] {
            let from = edge.node as usize;
            let candidate = (hops + 1, delay + edge.delay);
            if !done[from] && cost[from].is_none_or(|existing| candidate < existing) {
                cost[from] = Some(candidate);
                next_hop[from * k + destination] = edge.channel;
                frontier.push(Reverse((candidate, from)));
            }
        }
    }
    cost
}

/// SplitMix64's output function: each input bit flips about half of the output bits, so flows
/// whose keys differ in one bit still pick independently.
fn mix64(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// ECMP groups while routes are computed: each distinct set of channels stored once.
#[derive(Default)]
struct EcmpGroups {
    index: HashMap<Vec<u32>, u32>,
    ranges: Vec<(u32, u32)>,
    channels: Vec<u32>,
    /// The set being gathered, looked up without allocating.
    scratch: Vec<u32>,
}

impl EcmpGroups {
    /// The group index of the set in `scratch`, added if new.
    fn intern(&mut self) -> u32 {
        if let Some(&group) = self.index.get(self.scratch.as_slice()) {
            return group;
        }
        let group = self.ranges.len() as u32;
        self.ranges.push((self.channels.len() as u32, self.scratch.len() as u32));
        self.channels.extend_from_slice(&self.scratch);
        self.index.insert(self.scratch.clone(), group);
        group
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::{DropTail, QueueLimit};
    use crate::sim::{rng_stream_seed, StreamKind};

    fn channel(from: u32, to: u32, delay: u64) -> Channel {
        let queue = Box::new(DropTail::new(QueueLimit::Packets(10), None));
        Channel::new(from, to, 1_000_000, delay, queue, rng_stream_seed(1, 0, StreamKind::Channel, 0))
    }

    fn link(network: &mut Network, a: u32, b: u32, delay: u64) -> (u32, u32) {
        let index = network.add_link("l", channel(a, b, delay), channel(b, a, delay));
        (network.links[index].forward, network.links[index].reverse)
    }

    #[test]
    fn routes_prefer_fewer_hops_then_less_delay_and_reach_every_stub() {
        // Routers r0, r1, r2 in a triangle, r3 joined to r0 and r2. r0 -> r2 directly is slow
        // (50) but one hop; via r1 (10 + 10) or r3 (2 + 3) it is faster but two hops. From r1 to
        // r3 both ways are two hops: via r0 (10 + 2) is faster than via r2 (10 + 3).
        let mut network = Network::default();
        let r: Vec<u32> = (0..4).map(|i| network.add_node(&format!("r{i}"), true)).collect();
        let (r0_r1, r1_r0) = link(&mut network, r[0], r[1], 10);
        let (_r1_r2, _) = link(&mut network, r[1], r[2], 10);
        let (r0_r2, r2_r0) = link(&mut network, r[0], r[2], 50);
        let (r0_r3, _) = link(&mut network, r[0], r[3], 2);
        let (r3_r2, _) = link(&mut network, r[3], r[2], 3);
        let h0 = network.add_node("h0", false);
        let h2 = network.add_node("h2", false);
        let (h0_up, r0_h0) = link(&mut network, h0, r[0], 1);
        let (h2_up, r2_h2) = link(&mut network, h2, r[2], 1);
        network.compute_routes();
        // One hop beats two, whatever the delay.
        assert_eq!(network.path(h0, h2, 0), Some(vec![h0_up, r0_r2, r2_h2]));
        assert_eq!(network.path(h2, h0, 0), Some(vec![h2_up, r2_r0, r0_h0]));
        assert_eq!(network.path(r[1], r[3], 0), Some(vec![r1_r0, r0_r3]));
        assert_eq!(network.path(r[0], r[1], 0), Some(vec![r0_r1]));
        assert_eq!(network.path(r[3], r[2], 0), Some(vec![r3_r2]));
        assert_eq!(network.path(r[0], r[3], 0), Some(vec![r0_r3]));
    }

    #[test]
    fn two_nodes_joined_by_one_link_route_to_each_other() {
        let mut network = Network::default();
        let a = network.add_node("a", false);
        let b = network.add_node("b", false);
        let (ab, ba) = link(&mut network, a, b, 5);
        network.compute_routes();
        assert_eq!(network.path(a, b, 0), Some(vec![ab]));
        assert_eq!(network.path(b, a, 0), Some(vec![ba]));
    }

    #[test]
    fn stubs_of_one_router_reach_each_other_and_unconnected_nodes_do_not() {
        let mut network = Network::default();
        let router = network.add_node("r", true);
        let hosts: Vec<u32> = (0..3).map(|i| network.add_node(&format!("h{i}"), false)).collect();
        let lonely = network.add_node("lonely", false);
        let links: Vec<(u32, u32)> = hosts.iter().map(|&h| link(&mut network, h, router, 1)).collect();
        network.compute_routes();
        assert_eq!(network.path(hosts[0], hosts[2], 0), Some(vec![links[0].0, links[2].1]));
        assert_eq!(network.path(hosts[1], lonely, 0), None);
        assert_eq!(network.path(lonely, hosts[1], 0), None);
    }
}
