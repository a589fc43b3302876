//! Nodes, channels and static routing. The dumbbell, chain and custom topologies are built from a
//! scenario in `simulation/build.rs`.

use std::collections::HashMap;

use crate::net::channel::Channel;

pub const NO_ROUTE: u32 = u32::MAX;

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

#[derive(Default)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub channels: Vec<Channel>,
    pub links: Vec<Link>,
    node_index: HashMap<String, u32>,
    /// `next_hop[node * nodes + destination]`: the channel a packet at `node` takes towards
    /// `destination`, or [`NO_ROUTE`].
    next_hop: Vec<u32>,
}

impl Network {
    pub fn add_node(&mut self, name: &str, is_router: bool) -> u32 {
        let index = self.nodes.len() as u32;
        self.nodes.push(Node { name: name.to_string(), is_router });
        self.node_index.insert(name.to_string(), index);
        index
    }

    pub fn node(&self, name: &str) -> Option<u32> {
        self.node_index.get(name).copied()
    }

    /// Adds a link as its forward (a -> b) and reverse (b -> a) channels.
    pub fn add_link(&mut self, name: &str, forward: Channel, reverse: Channel) -> usize {
        let forward_index = self.channels.len() as u32;
        self.channels.push(forward);
        self.channels.push(reverse);
        self.links.push(Link { name: name.to_string(), forward: forward_index, reverse: forward_index + 1 });
        self.links.len() - 1
    }

    /// Computes static routes: fewest hops first, then least propagation delay, then the channel
    /// added first, so routes are deterministic. Dijkstra from every destination over reversed
    /// channels; topologies are small (hundreds of nodes at most), so O(n^2) per destination is fine.
    pub fn compute_routes(&mut self) {
        let n = self.nodes.len();
        self.next_hop = vec![NO_ROUTE; n * n];
        for destination in 0..n {
            let mut cost: Vec<Option<(u32, u64)>> = vec![None; n];
            let mut done = vec![false; n];
            cost[destination] = Some((0, 0));
            loop {
                let current = (0..n).filter(|&v| !done[v] && cost[v].is_some()).min_by_key(|&v| (cost[v], v));
                let Some(current) = current else { break };
                done[current] = true;
                let (hops, delay) = cost[current].expect("selected nodes have a cost");
                // Channels that end at `current` extend the path backwards to their source.
                for (index, channel) in self.channels.iter().enumerate() {
                    if channel.to as usize != current {
                        continue;
                    }
                    let from = channel.from as usize;
                    let candidate = (hops + 1, delay + channel.delay);
                    let better = match cost[from] {
                        None => true,
                        Some(existing) => candidate < existing,
                    };
                    if better && !done[from] {
                        cost[from] = Some(candidate);
                        self.next_hop[from * n + destination] = index as u32;
                    }
                }
            }
        }
    }

    #[inline]
    pub fn route(&self, node: u32, destination: u32) -> u32 {
        self.next_hop[node as usize * self.nodes.len() + destination as usize]
    }

    /// The channels a packet crosses from `source` to `destination`, or None if unreachable.
    pub fn path(&self, source: u32, destination: u32) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        let mut node = source;
        while node != destination {
            let channel = self.route(node, destination);
            if channel == NO_ROUTE || path.len() > self.nodes.len() {
                return None;
            }
            path.push(channel);
            node = self.channels[channel as usize].to;
        }
        Some(path)
    }
}
