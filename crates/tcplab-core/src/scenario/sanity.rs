//! Set-ups whose every key is valid alone but which together cannot do what they say: a buffer
//! that holds no data packet, an AQM threshold the queue can never reach, ECN marking with no
//! ECN-capable flow, ECN-capable flows with nothing to mark them. Where no run could be meant the
//! scenario is refused (`check_set_up`); where one could, it warns (`set_up_warnings`).
//!
//! The ECN checks look at the scenario as a whole, not at each flow's path: a marking queue with
//! no ECN-capable flow anywhere, or ECN-capable flows with no marking queue anywhere.

use super::error::ScenarioError;
use super::model::{FlowSpec, LinkSpec, Protocol, QueueKind, Scenario, TcpSpec};
use super::warnings::ScenarioWarning;
use crate::cc;
use crate::units::Buffer;

/// TCP's default maximum segment size and header bytes (tcp_config.rs), and a UDP datagram's
/// default wire size: what a flow's data packets are on the wire unless the scenario says.
const DEFAULT_MSS_BYTES: u64 = 1448;
const DEFAULT_TCP_HEADER_BYTES: u64 = 52;
const DEFAULT_UDP_PACKET_BYTES: u64 = 1500;

impl Scenario {
    /// Wire bytes of one full data packet of `flow` (TCP: MSS plus headers; UDP: its datagrams).
    pub fn data_packet_bytes(&self, flow: &FlowSpec) -> u64 {
        match flow.protocol {
            Protocol::Tcp => {
                let tcp = flow.tcp.clone().unwrap_or_default().over(&self.tcp);
                tcp.mss.map_or(DEFAULT_MSS_BYTES, |b| b.0) + tcp.header.map_or(DEFAULT_TCP_HEADER_BYTES, |b| b.0)
            }
            Protocol::Udp => flow.packet_size.map_or(DEFAULT_UDP_PACKET_BYTES, |b| b.0),
        }
    }

    /// Every link with its key, as messages name it.
    fn keyed_links(&self) -> Vec<(String, &LinkSpec)> {
        let topology = &self.topology;
        let mut links: Vec<(String, &LinkSpec)> = Vec::new();
        links.extend(topology.bottleneck.iter().map(|l| ("topology.bottleneck".to_string(), l)));
        links.extend(topology.access.iter().map(|l| ("topology.access".to_string(), l)));
        for (link, name) in
            [(&topology.edge_agg, "edge_agg"), (&topology.agg_core, "agg_core"), (&topology.uplink, "uplink")]
        {
            links.extend(link.iter().map(|l| (format!("topology.{name}"), l)));
        }
        for (list, name) in [(&topology.hops, "hops"), (&topology.links, "links")] {
            links.extend(list.iter().flatten().enumerate().map(|(i, l)| (format!("topology.{name}[{i}]"), l)));
        }
        links
    }

    /// Refuses what no run could mean: a byte buffer smaller than every flow's data packet (the
    /// link would drop all data that finds it busy), and RED whose min_th is not below the buffer
    /// (the average queue never reaches it: RED never acts).
    pub(super) fn check_set_up(&self) -> Result<(), ScenarioError> {
        let sizes: Vec<u64> = self.flows.iter().map(|f| self.data_packet_bytes(f)).collect();
        let smallest = sizes.iter().copied().min().unwrap_or(DEFAULT_UDP_PACKET_BYTES);
        for (key, link) in self.keyed_links() {
            for (field, buffer) in buffers(link) {
                if let Buffer::Bytes(bytes) = buffer {
                    if bytes < smallest {
                        return Err(ScenarioError::new(
                            format!("{key}.{field}"),
                            format!(
                                "{buffer} holds no data packet (the smallest the flows send is {smallest}B on the \
                                 wire), so the link would drop all data that finds it busy; give at least {smallest}B \
                                 or a number of packets (\"10p\")"
                            ),
                        ));
                    }
                }
            }
            if link.queue.kind == QueueKind::Red {
                if let Some(min_th) = link.queue.min_th {
                    if let Some((field, buffer)) = first_buffer_not_above(link, min_th) {
                        return Err(ScenarioError::new(
                            format!("{key}.queue.min_th"),
                            format!(
                                "{min_th} is not below the {field} {buffer}: the average queue never reaches it, so \
                                 RED would never act"
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// What runs but is probably not what was meant.
    pub(super) fn set_up_warnings(&self) -> Vec<ScenarioWarning> {
        let mut warnings = Vec::new();
        let largest = self.flows.iter().map(|f| self.data_packet_bytes(f)).max().unwrap_or(0);
        let any_ecn_capable = self.flows.iter().any(|f| self.is_ecn_capable(f));
        let mut any_marking = false;
        for (key, link) in self.keyed_links() {
            for (field, buffer) in buffers(link) {
                if matches!(buffer, Buffer::Bytes(bytes) if bytes < largest) {
                    warnings.push(ScenarioWarning {
                        key: format!("{key}.{field}"),
                        message: format!(
                            "{buffer} is smaller than the largest data packet ({largest}B): the flows sending such \
                             packets lose every one that finds the link busy"
                        ),
                    });
                }
            }
            if let (QueueKind::Red, Some(max_th)) = (link.queue.kind, link.queue.max_th) {
                if let Some((field, buffer)) = first_buffer_not_above(link, max_th) {
                    warnings.push(ScenarioWarning {
                        key: format!("{key}.queue.max_th"),
                        message: format!(
                            "{max_th} is not below the {field} {buffer}: the queue fills before RED's probability \
                             reaches max_p"
                        ),
                    });
                }
            }
            let marks = match link.queue.kind {
                QueueKind::Step => true,
                QueueKind::DropTail => false,
                _ => link.queue.ecn.unwrap_or(false),
            };
            any_marking |= marks;
            if marks && !any_ecn_capable {
                let field = if link.queue.kind == QueueKind::Step { "kind" } else { "ecn" };
                warnings.push(ScenarioWarning {
                    key: format!("{key}.queue.{field}"),
                    message: "the queue marks ECN-capable packets, but no flow is ECN-capable (tcp.ecn is false): \
                              it will drop (or, a step queue, do nothing) instead; set tcp.ecn = true"
                        .to_string(),
                });
            }
        }
        if any_ecn_capable && !any_marking {
            warnings.push(ScenarioWarning {
                key: "tcp.ecn".to_string(),
                message: "flows are ECN-capable, but no queue marks (drop-tail never does; RED, CoDel, FQ-CoDel and \
                          PIE mark with ecn = true, the step queue always): congestion will show as losses only"
                    .to_string(),
            });
        }
        warnings
    }

    /// The flow's packets are ECN-capable: `tcp.ecn`, or an algorithm that needs ECN (DCTCP).
    fn is_ecn_capable(&self, flow: &FlowSpec) -> bool {
        if flow.protocol != Protocol::Tcp {
            return false;
        }
        let tcp = TcpSpec::for_flow(&flow.tcp.clone().unwrap_or_default(), &self.tcp);
        let needs_ecn = flow.cc.as_deref().is_some_and(|name| {
            cc::create(name, &flow.params, cc::ConnectionInfo::new(DEFAULT_MSS_BYTES, 10, 1))
                .is_ok_and(|controller| controller.required_ecn().is_some())
        });
        tcp.ecn.unwrap_or(false) || needs_ecn
    }
}

/// The link's buffer and its per-direction overrides, with their keys.
fn buffers(link: &LinkSpec) -> impl Iterator<Item = (&'static str, Buffer)> {
    [("buffer", Some(link.buffer)), ("forward.buffer", link.forward.buffer), ("reverse.buffer", link.reverse.buffer)]
        .into_iter()
        .filter_map(|(field, buffer)| buffer.map(|b| (field, b)))
}

/// The first of the link's buffers a threshold is not below, where both are in the same unit
/// (a BDP buffer is resolved only when the network is built, so it is not compared).
fn first_buffer_not_above(link: &LinkSpec, threshold: Buffer) -> Option<(&'static str, Buffer)> {
    buffers(link).find(|&(_, buffer)| match (threshold, buffer) {
        (Buffer::Packets(t), Buffer::Packets(b)) | (Buffer::Bytes(t), Buffer::Bytes(b)) => t >= b,
        (Buffer::Bdp(t), Buffer::Bdp(b)) => t >= b,
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: &str = r#"
        [simulation]
        duration = "5s"
        [topology]
        kind = "dumbbell"
        bottleneck = { rate = "10Mbps", delay = "10ms", buffer = "BUFFER" QUEUE }
        TCP
        [[flows]]
        cc = "cubic"
    "#;

    fn scenario(buffer: &str, queue: &str, tcp: &str) -> Result<Scenario, ScenarioError> {
        Scenario::from_toml(&PATH.replace("BUFFER", buffer).replace("QUEUE", queue).replace("TCP", tcp))
    }

    fn warning_keys(buffer: &str, queue: &str, tcp: &str) -> Vec<String> {
        scenario(buffer, queue, tcp).unwrap().warnings().into_iter().map(|w| w.key).collect()
    }

    #[test]
    fn a_buffer_below_one_data_packet_is_refused() {
        // CUBIC's packets are 1448 + 52 = 1500 B on the wire.
        let err = scenario("1000B", "", "").err().unwrap();
        assert_eq!(err.key, "topology.bottleneck.buffer");
        assert!(err.message.contains("holds no data packet") && err.message.contains("1500B"), "{err}");
        assert!(scenario("1500B", "", "").is_ok());
        // A smaller MSS makes 1000 B enough.
        assert!(scenario("1000B", "", "[tcp]\nmss = \"900B\"").is_ok());
        // Below the largest of several flows' packets, above the smallest: a warning.
        let mixed = PATH.replace("BUFFER", "1000B").replace("QUEUE", "").replace("TCP", "")
            + "[[flows]]\nprotocol = \"udp\"\nrate = \"1Mbps\"\npacket_size = \"200B\"\n";
        let warnings = Scenario::from_toml(&mixed).unwrap().warnings();
        assert_eq!(warnings[0].key, "topology.bottleneck.buffer", "{warnings:?}");
    }

    #[test]
    fn red_thresholds_the_queue_cannot_reach() {
        let err = scenario("97p", r#", queue = { kind = "red", min_th = "500p", max_th = "600p" }"#, "").err().unwrap();
        assert_eq!(err.key, "topology.bottleneck.queue.min_th");
        assert!(err.message.contains("RED would never act"), "{err}");
        let keys = warning_keys("97p", r#", queue = { kind = "red", min_th = "20p", max_th = "120p" }"#, "");
        assert_eq!(keys, ["topology.bottleneck.queue.max_th"]);
        assert!(warning_keys("97p", r#", queue = { kind = "red", min_th = "20p", max_th = "60p" }"#, "").is_empty());
    }

    #[test]
    fn ecn_marking_without_ecn_capable_flows_and_the_reverse_warn() {
        let red_ecn = r#", queue = { kind = "red", ecn = true }"#;
        assert_eq!(warning_keys("100p", red_ecn, ""), ["topology.bottleneck.queue.ecn"]);
        assert!(warning_keys("100p", red_ecn, "[tcp]\necn = true").is_empty());
        let step = r#", queue = { kind = "step", threshold = "20p" }"#;
        assert_eq!(warning_keys("100p", step, ""), ["topology.bottleneck.queue.kind"]);
        assert_eq!(warning_keys("100p", "", "[tcp]\necn = true"), ["tcp.ecn"]);
        // DCTCP is ECN-capable without tcp.ecn, as in Linux.
        let dctcp = PATH.replace("BUFFER", "100p").replace("QUEUE", step).replace("TCP", "").replace("cubic", "dctcp");
        assert!(Scenario::from_toml(&dctcp).unwrap().warnings().is_empty());
    }
}
