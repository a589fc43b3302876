//! Defaults: what an unset key means. `Scenario::resolved` writes every default out, so the scenario
//! stored beside results says exactly what ran.

use serde_json::Value;

use super::model::{DirectionSpec, LinkSpec, QueueKind, QueueSpec, Scenario, TcpSpec, TopologyKind};
use crate::cc;
use crate::tcp::{AckDelayMode, RecoveryMode};
use crate::time::{NANOS_PER_MILLI, NANOS_PER_SEC};
use crate::units::{Buffer, Bytes, Duration, Rate};

impl QueueSpec {
    /// The spec with every scalar default of its kind written out (RED's thresholds stay
    /// relative to the buffer unless given).
    pub fn with_defaults(&self) -> QueueSpec {
        let mut spec = self.clone();
        match spec.kind {
            QueueKind::DropTail => {}
            QueueKind::Red => {
                spec.w_q.get_or_insert(0.002);
                spec.max_p.get_or_insert(0.1);
                spec.gentle.get_or_insert(true);
                spec.wait.get_or_insert(true);
                spec.byte_mode.get_or_insert(false);
                spec.idle_decay.get_or_insert(true);
                spec.mean_packet_size.get_or_insert(Bytes(1500));
                spec.ecn.get_or_insert(false);
            }
            QueueKind::Codel | QueueKind::FqCodel => {
                spec.target.get_or_insert(Duration(5 * NANOS_PER_MILLI));
                spec.interval.get_or_insert(Duration(100 * NANOS_PER_MILLI));
                spec.ecn.get_or_insert(false);
                if spec.kind == QueueKind::FqCodel {
                    spec.flows.get_or_insert(1024);
                    spec.quantum.get_or_insert(Bytes(1514));
                }
            }
        }
        spec
    }
}

impl TcpSpec {
    /// The defaults: Linux-like (IW 10, min RTO 200 ms, SACK, delayed ACK 40 ms), 1448-byte MSS
    /// with 52 bytes of IP/TCP/timestamp headers so full packets are 1500 bytes.
    pub fn defaults() -> TcpSpec {
        TcpSpec {
            mss: Some(Bytes(1448)),
            header: Some(Bytes(52)),
            initial_window: Some(10),
            recovery: Some(RecoveryMode::Sack),
            limited_transmit: Some(true),
            duplicate_threshold: Some(3),
            min_rto: Some(Duration(200 * NANOS_PER_MILLI)),
            initial_rto: Some(Duration(NANOS_PER_SEC)),
            max_rto: Some(Duration(60 * NANOS_PER_SEC)),
            clock_granularity: Some(Duration(NANOS_PER_MILLI)),
            delayed_ack: Some(true),
            delayed_ack_count: Some(2),
            delayed_ack_timeout: Some(Duration(40 * NANOS_PER_MILLI)),
            ecn: Some(false),
            receive_window: Some(Bytes(64_000_000)),
            pacing: Some(false),
            ack_delay: Some(AckDelayMode::None),
            ack_delay_max: Some(Duration(2 * NANOS_PER_SEC)),
        }
    }

    /// `self` with every unset key taken from `base`.
    pub fn over(&self, base: &TcpSpec) -> TcpSpec {
        macro_rules! pick {
            ($($field:ident),*) => { TcpSpec { $($field: self.$field.or(base.$field)),* } };
        }
        pick!(
            mss,
            header,
            initial_window,
            recovery,
            limited_transmit,
            duplicate_threshold,
            min_rto,
            initial_rto,
            max_rto,
            clock_granularity,
            delayed_ack,
            delayed_ack_count,
            delayed_ack_timeout,
            ecn,
            receive_window,
            pacing,
            ack_delay,
            ack_delay_max
        )
    }
}

impl Scenario {
    /// A copy with every default written out: TCP options, algorithm parameters, access links.
    pub fn resolved(&self) -> Scenario {
        let mut scenario = self.clone();
        scenario.tcp = self.tcp.over(&TcpSpec::defaults());
        for flow in &mut scenario.flows {
            if let Some(name) = &flow.cc {
                if let Some(algorithm) = cc::find(name) {
                    let mut params = (algorithm.defaults)();
                    if let (Some(table), Value::Object(given)) = (params.as_object_mut(), &flow.params) {
                        for (k, v) in given {
                            table.insert(k.clone(), v.clone());
                        }
                    }
                    flow.params = params;
                }
            }
        }
        if scenario.topology.kind != TopologyKind::Custom && scenario.topology.access.is_none() {
            scenario.topology.access = Some(self.default_access_link());
        }
        let topology = &mut scenario.topology;
        let links = topology
            .bottleneck
            .iter_mut()
            .chain(topology.access.iter_mut())
            .chain(topology.hops.iter_mut().flatten())
            .chain(topology.links.iter_mut().flatten());
        for link in links {
            link.queue = link.queue.with_defaults();
        }
        scenario
    }

    /// Access links when the scenario gives none: 10x the fastest core link, 1 ms, 1000 packets.
    pub fn default_access_link(&self) -> LinkSpec {
        let fastest = match self.topology.kind {
            TopologyKind::Dumbbell => self.topology.bottleneck.as_ref().map_or(1, |b| b.rate.bps()),
            _ => self.topology.hops.iter().flatten().map(|h| h.rate.bps()).max().unwrap_or(1),
        };
        LinkSpec {
            name: None,
            from: None,
            to: None,
            rate: Rate(fastest.saturating_mul(10)),
            delay: Duration(NANOS_PER_MILLI),
            buffer: Buffer::Packets(1000),
            queue: QueueSpec::default(),
            ecn_mark_threshold: None,
            rdc_stamp: false,
            forward: DirectionSpec::default(),
            reverse: DirectionSpec::default(),
        }
    }
}
