//! A `[[traffic]]` entry: a traffic pattern and the settings of the flows it stands for
//! (docs/datacenter.md). `traffic.rs` expands it into flows.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tcp_spec::TcpSpec;
use crate::traffic::workloads::Workload;
use crate::units::{Bytes, Duration};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// Each host sends to one other host and receives from one: a random derangement.
    Permutation,
    /// Every host sends to every other host.
    AllToAll,
    /// `senders` hosts send to one `receiver`, all starting at `start`.
    Incast,
    /// Transfers arriving as a Poisson process at a target `load`, sizes from `sizes`.
    Poisson,
}

impl Pattern {
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Permutation => "permutation",
            Pattern::AllToAll => "all_to_all",
            Pattern::Incast => "incast",
            Pattern::Poisson => "poisson",
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    pub pattern: Pattern,
    /// Flows are named "<name>-<i>" (default: the pattern's name), i counting within the entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The hosts taking part (default: every host of a fat tree or leaf-spine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts: Option<Vec<String>>,
    /// The congestion control, its parameters and TCP options of every flow, as in `[[flows]]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<String>,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub params: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpSpec>,
    /// When the flows start (Poisson: when arrivals begin).
    #[serde(default)]
    pub start: Duration,
    /// When the applications stop writing (Poisson: when arrivals end; default: the end of the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// Permutation, all-to-all and incast: each flow's transfer size (default: unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Bytes>,
    /// Incast: the host receiving (default: the first of `hosts`) and how many send to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub senders: Option<u32>,
    /// Poisson: the offered load as a fraction of the hosts' link capacity (0 < load <= 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// Poisson: the flow-size distribution, "web_search" or "data_mining".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Workload>,
}
