//! Data-center fabrics laid out as nodes and links: the k-ary fat tree of Al-Fares, Loukissas
//! and Vahdat ("A Scalable, Commodity Data Center Network Architecture", SIGCOMM 2008, section
//! 3.3) and the two-tier leaf-spine. Only names and wiring: `simulation/build.rs` gives the links
//! their rates, delays and queues by tier.
//!
//! Names (docs/datacenter.md): hosts are `h0`, `h1`, ... numbered below their switches in order
//! (a fat tree's pod by pod, edge switch by edge switch); fat-tree switches are `core<i>`,
//! `agg<pod>.<i>` and `edge<pod>.<i>`; leaf-spine switches `spine<i>` and `leaf<i>`. A link is
//! named by its two ends, lower tier first ("h5-edge1.0", "edge1.0-agg1.1", "agg1.1-core2").

/// Which tier a link belongs to, which picks its settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Host to edge (fat tree) or leaf (leaf-spine) switch: `topology.access`.
    Access,
    /// Fat tree: edge to aggregation switch (`topology.edge_agg`).
    EdgeAgg,
    /// Fat tree: aggregation to core switch (`topology.agg_core`).
    AggCore,
    /// Leaf-spine: leaf to spine switch (`topology.uplink`).
    Uplink,
}

/// A link from `from` (the lower tier) to `to`, as indices into `Fabric::nodes`.
#[derive(Clone, Debug)]
pub struct FabricLink {
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub tier: Tier,
}

/// A fabric's nodes (name, is a switch) and links, switches first, then hosts in number order.
#[derive(Clone, Debug, Default)]
pub struct Fabric {
    pub nodes: Vec<(String, bool)>,
    pub links: Vec<FabricLink>,
    /// Index in `nodes` of host h0; host hi is at `first_host + i`.
    pub first_host: u32,
}

/// The name of host `i`.
pub fn host_name(i: u32) -> String {
    format!("h{i}")
}

impl Fabric {
    fn add_node(&mut self, name: String, is_switch: bool) -> u32 {
        self.nodes.push((name, is_switch));
        self.nodes.len() as u32 - 1
    }

    fn add_link(&mut self, from: u32, to: u32, tier: Tier) {
        let name = format!("{}-{}", self.nodes[from as usize].0, self.nodes[to as usize].0);
        self.links.push(FabricLink { name, from, to, tier });
    }

    /// The number of hosts.
    pub fn hosts(&self) -> u32 {
        self.nodes.len() as u32 - self.first_host
    }

    /// A k-ary fat tree (k even) whose edge switches serve `hosts_per_edge` hosts each (k/2 in
    /// Al-Fares's tree). Core switch i is joined to aggregation switch i / (k/2) of every pod,
    /// so aggregation switch a of each pod reaches core switches a(k/2) .. a(k/2) + k/2 - 1.
    pub fn fat_tree(k: u32, hosts_per_edge: u32) -> Fabric {
        let half = k / 2;
        let mut fabric = Fabric::default();
        let core: Vec<u32> = (0..half * half).map(|i| fabric.add_node(format!("core{i}"), true)).collect();
        let mut edges = Vec::with_capacity((k * half) as usize);
        for pod in 0..k {
            let aggs: Vec<u32> = (0..half).map(|i| fabric.add_node(format!("agg{pod}.{i}"), true)).collect();
            let pod_edges: Vec<u32> = (0..half).map(|i| fabric.add_node(format!("edge{pod}.{i}"), true)).collect();
            for &edge in &pod_edges {
                for &agg in &aggs {
                    fabric.add_link(edge, agg, Tier::EdgeAgg);
                }
            }
            for (a, &agg) in aggs.iter().enumerate() {
                for &switch in &core[a * half as usize..(a + 1) * half as usize] {
                    fabric.add_link(agg, switch, Tier::AggCore);
                }
            }
            edges.extend(pod_edges);
        }
        fabric.add_hosts(&edges, hosts_per_edge);
        fabric
    }

    /// `leaves` leaf switches each joined to all `spines` spine switches, `hosts_per_leaf` hosts
    /// below each leaf.
    pub fn leaf_spine(leaves: u32, spines: u32, hosts_per_leaf: u32) -> Fabric {
        let mut fabric = Fabric::default();
        let spine_ids: Vec<u32> = (0..spines).map(|i| fabric.add_node(format!("spine{i}"), true)).collect();
        let leaf_ids: Vec<u32> = (0..leaves).map(|i| fabric.add_node(format!("leaf{i}"), true)).collect();
        for &leaf in &leaf_ids {
            for &spine in &spine_ids {
                fabric.add_link(leaf, spine, Tier::Uplink);
            }
        }
        fabric.add_hosts(&leaf_ids, hosts_per_leaf);
        fabric
    }

    /// `per_switch` hosts below each of `switches`, numbered in switch order.
    fn add_hosts(&mut self, switches: &[u32], per_switch: u32) {
        self.first_host = self.nodes.len() as u32;
        self.nodes.reserve(switches.len() * per_switch as usize);
        let mut next = 0;
        for &switch in switches {
            for _ in 0..per_switch {
                let host = self.add_node(host_name(next), false);
                self.add_link(host, switch, Tier::Access);
                next += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(fabric: &Fabric, tier: Tier) -> usize {
        fabric.links.iter().filter(|l| l.tier == tier).count()
    }

    #[test]
    fn a_fat_tree_has_the_papers_counts_and_every_switch_k_ports() {
        for k in [4u32, 6, 8] {
            let fabric = Fabric::fat_tree(k, k / 2);
            let switches = fabric.nodes.iter().filter(|(_, switch)| *switch).count() as u32;
            // Al-Fares et al. section 3.3: k pods of k/2 + k/2 switches, (k/2)^2 core switches,
            // k^3/4 hosts.
            assert_eq!(switches, k * k + k * k / 4);
            assert_eq!(fabric.hosts(), k * k * k / 4);
            assert_eq!(count(&fabric, Tier::Access) as u32, k * k * k / 4);
            assert_eq!(count(&fabric, Tier::EdgeAgg) as u32, k * (k / 2) * (k / 2));
            assert_eq!(count(&fabric, Tier::AggCore) as u32, k * (k / 2) * (k / 2));
            let mut ports = vec![0u32; fabric.nodes.len()];
            for link in &fabric.links {
                ports[link.from as usize] += 1;
                ports[link.to as usize] += 1;
            }
            for (index, (name, switch)) in fabric.nodes.iter().enumerate() {
                let expected = if *switch { k } else { 1 };
                assert_eq!(ports[index], expected, "{name}");
            }
            // Each core switch reaches every pod once.
            let core0_pods: Vec<&str> = fabric
                .links
                .iter()
                .filter(|l| fabric.nodes[l.to as usize].0 == "core0")
                .map(|l| fabric.nodes[l.from as usize].0.as_str())
                .collect();
            let expected: Vec<String> = (0..k).map(|pod| format!("agg{pod}.0")).collect();
            assert_eq!(core0_pods, expected);
        }
    }

    #[test]
    fn hosts_are_numbered_below_their_switches_in_order() {
        let fabric = Fabric::fat_tree(4, 2);
        let host = |i: u32| fabric.first_host + i;
        let switch_of = |node: u32| {
            let link = fabric.links.iter().find(|l| l.from == node && l.tier == Tier::Access).unwrap();
            fabric.nodes[link.to as usize].0.clone()
        };
        assert_eq!(fabric.nodes[host(5) as usize].0, "h5");
        assert_eq!(switch_of(host(0)), "edge0.0");
        assert_eq!(switch_of(host(3)), "edge0.1");
        assert_eq!(switch_of(host(5)), "edge1.0");
        assert_eq!(switch_of(host(15)), "edge3.1");
        let oversubscribed = Fabric::fat_tree(4, 6);
        assert_eq!(oversubscribed.hosts(), 48);
        let spine = Fabric::leaf_spine(3, 2, 4);
        assert_eq!((spine.hosts(), count(&spine, Tier::Uplink)), (12, 6));
        assert_eq!(spine.links.last().unwrap().name, "h11-leaf2");
    }
}
