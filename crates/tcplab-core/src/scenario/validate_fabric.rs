//! Validation of the data-center topologies (`fat_tree`, `leaf_spine`) and of which topology keys
//! belong to which kind; the fabric's nodes as flows and traffic patterns name them.

use super::error::ScenarioError;
use super::model::{LinkSpec, Scenario, TopologyKind, TopologySpec};
use crate::net::fabric::{Fabric, Tier};

/// The largest fat tree: k = 48 has 27,648 hosts and 2,880 switches, whose routing table between
/// switches takes 2,880^2 entries (33 MB) and as many Dijkstra searches as switches.
const MAX_K: u32 = 48;
/// The most hosts a fabric may have, and the most leaf or spine switches (the same table).
const MAX_HOSTS: u64 = 100_000;
const MAX_SWITCHES: u32 = 4_096;

/// Every topology key but `kind`, `access`, `routing` and `bdp_rtt`, with the kinds it applies to.
fn kind_keys(topology: &TopologySpec) -> [(&'static str, bool, &'static [TopologyKind]); 13] {
    use TopologyKind::*;
    [
        ("bottleneck", topology.bottleneck.is_some(), &[Dumbbell]),
        ("routers", topology.routers.is_some(), &[Chain]),
        ("hops", topology.hops.is_some(), &[Chain]),
        ("nodes", topology.nodes.is_some(), &[Custom]),
        ("links", topology.links.is_some(), &[Custom]),
        ("k", topology.k.is_some(), &[FatTree]),
        ("oversubscription", topology.oversubscription.is_some(), &[FatTree]),
        ("edge_agg", topology.edge_agg.is_some(), &[FatTree]),
        ("agg_core", topology.agg_core.is_some(), &[FatTree]),
        ("leaves", topology.leaves.is_some(), &[LeafSpine]),
        ("spines", topology.spines.is_some(), &[LeafSpine]),
        ("hosts_per_leaf", topology.hosts_per_leaf.is_some(), &[LeafSpine]),
        ("uplink", topology.uplink.is_some(), &[LeafSpine]),
    ]
}

/// An error for the first key set that belongs to other kinds of topology.
pub(super) fn check_kind_keys(topology: &TopologySpec) -> Result<(), ScenarioError> {
    for (key, present, kinds) in kind_keys(topology) {
        if present && !kinds.contains(&topology.kind) {
            let names: Vec<&str> = kinds.iter().map(|kind| kind.name()).collect();
            return Err(ScenarioError::new(
                format!("topology.{key}"),
                format!("only applies to {} topologies, not '{}'", names.join(" and "), topology.kind.name()),
            ));
        }
    }
    Ok(())
}

impl Scenario {
    /// A fat tree's k, oversubscription and links.
    pub(super) fn validate_fat_tree(&self) -> Result<Vec<(&'static str, &LinkSpec)>, ScenarioError> {
        let topology = &self.topology;
        let k = topology.k.ok_or_else(|| {
            ScenarioError::new(
                "topology.k",
                "a fat tree needs k, its switches' port count: an even number, e.g. 4 or 8",
            )
        })?;
        if k % 2 != 0 || !(4..=MAX_K).contains(&k) {
            return Err(ScenarioError::new(
                "topology.k",
                format!(
                    "{k} is not a fat tree's k: allowed an even number from 4 to {MAX_K} (k/2 ports of each switch face \
                     up and k/2 down)"
                ),
            ));
        }
        let oversubscription = topology.oversubscription.unwrap_or(1);
        let hosts = k as u64 * (k as u64 / 2) * (k as u64 / 2) * oversubscription as u64;
        if oversubscription == 0 || hosts > MAX_HOSTS {
            return Err(ScenarioError::new(
                "topology.oversubscription",
                format!(
                    "{oversubscription} is outside 1 to {}: each edge switch serves oversubscription x k/2 hosts, and \
                     a fat tree may have at most {MAX_HOSTS} hosts",
                    (MAX_HOSTS / (k as u64 * (k as u64 / 2) * (k as u64 / 2))).max(1)
                ),
            ));
        }
        self.fabric_links(
            "a fat tree",
            &[("edge_agg", topology.edge_agg.as_ref()), ("agg_core", topology.agg_core.as_ref())],
        )
    }

    /// A leaf-spine's switch and host counts and links.
    pub(super) fn validate_leaf_spine(&self) -> Result<Vec<(&'static str, &LinkSpec)>, ScenarioError> {
        let topology = &self.topology;
        for (key, value, what) in [
            ("leaves", topology.leaves, "leaf switches"),
            ("spines", topology.spines, "spine switches"),
            ("hosts_per_leaf", topology.hosts_per_leaf, "hosts below each leaf"),
        ] {
            let value = value.ok_or_else(|| {
                ScenarioError::new(
                    format!("topology.{key}"),
                    format!("a leaf-spine needs the number of {what} (1 or more)"),
                )
            })?;
            if value == 0 || (value > MAX_SWITCHES && key != "hosts_per_leaf") {
                return Err(ScenarioError::new(
                    format!("topology.{key}"),
                    format!("{value} is outside 1 to {MAX_SWITCHES}: the number of {what}"),
                ));
            }
        }
        let hosts = topology.leaves.unwrap_or(0) as u64 * topology.hosts_per_leaf.unwrap_or(0) as u64;
        if hosts > MAX_HOSTS {
            return Err(ScenarioError::new(
                "topology.hosts_per_leaf",
                format!("leaves x hosts_per_leaf = {hosts} hosts; at most {MAX_HOSTS} are allowed"),
            ));
        }
        self.fabric_links("a leaf-spine", &[("uplink", topology.uplink.as_ref())])
    }

    /// The fabric's `access` link (required) and its tiers' links, checked, with their keys.
    fn fabric_links<'a>(
        &'a self,
        what: &str,
        tiers: &[(&'static str, Option<&'a LinkSpec>)],
    ) -> Result<Vec<(&'static str, &'a LinkSpec)>, ScenarioError> {
        let access = self.topology.access.as_ref().ok_or_else(|| {
            ScenarioError::new(
                "topology.access",
                format!("{what} needs its host links, e.g. access = {{ rate = \"10Gbps\", delay = \"1us\" }}"),
            )
        })?;
        let mut links = vec![("access", access)];
        links.extend(tiers.iter().filter_map(|&(key, link)| link.map(|link| (key, link))));
        Ok(links)
    }

    /// The fabric a fat-tree or leaf-spine scenario describes (validated first).
    pub fn fabric(&self) -> Option<Fabric> {
        let topology = &self.topology;
        match topology.kind {
            TopologyKind::FatTree => {
                let k = topology.k?;
                Some(Fabric::fat_tree(k, k / 2 * topology.oversubscription.unwrap_or(1)))
            }
            TopologyKind::LeafSpine => {
                Some(Fabric::leaf_spine(topology.leaves?, topology.spines?, topology.hosts_per_leaf?))
            }
            _ => None,
        }
    }

    /// The settings of a fabric's links of `tier`: edge_agg defaults to access, agg_core to
    /// edge_agg, uplink to access.
    pub fn tier_link(&self, tier: Tier) -> Option<&LinkSpec> {
        let topology = &self.topology;
        let access = topology.access.as_ref();
        match tier {
            Tier::Access => access,
            Tier::EdgeAgg => topology.edge_agg.as_ref().or(access),
            Tier::AggCore => topology.agg_core.as_ref().or(topology.edge_agg.as_ref()).or(access),
            Tier::Uplink => topology.uplink.as_ref().or(access),
        }
    }

    /// How many links of each tier a fabric has, with their settings (for the resource estimates).
    pub(super) fn fabric_link_counts(&self) -> Vec<(&LinkSpec, f64)> {
        let topology = &self.topology;
        let (k, os) = (topology.k.unwrap_or(0) as f64, topology.oversubscription.unwrap_or(1) as f64);
        let (leaves, spines) = (topology.leaves.unwrap_or(0) as f64, topology.spines.unwrap_or(0) as f64);
        let counts = match topology.kind {
            TopologyKind::FatTree => {
                let per_tier = k * k * k / 4.0;
                vec![(Tier::Access, per_tier * os), (Tier::EdgeAgg, per_tier), (Tier::AggCore, per_tier)]
            }
            TopologyKind::LeafSpine => vec![
                (Tier::Access, leaves * topology.hosts_per_leaf.unwrap_or(0) as f64),
                (Tier::Uplink, leaves * spines),
            ],
            _ => vec![],
        };
        counts.into_iter().filter_map(|(tier, count)| Some((self.tier_link(tier)?, count))).collect()
    }
}
