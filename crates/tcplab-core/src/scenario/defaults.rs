//! Defaults: what an unset key means. `Scenario::resolved` writes every default out, so the scenario
//! stored beside results says exactly what ran.

use serde_json::Value;

use super::model::{DirectionSpec, LinkSpec, QueueKind, QueueSpec, Scenario, TcpProfile, TcpSpec, TopologyKind};
use crate::cc;
use crate::net::pie::PieParams;
use crate::tcp::{
    AckDelayMode, AckPolicy, AlgorithmRtt, EcnResponse, RecoveryMode, ReductionBase, RtoFormula, RtoRestart,
    RttSampling,
};
use crate::time::{NANOS_PER_MILLI, NANOS_PER_SEC};
use crate::units::{Buffer, Bytes, Duration, Rate};

impl QueueSpec {
    /// The spec with every scalar default of its kind written out (RED's thresholds stay
    /// relative to the buffer unless given).
    pub fn with_defaults(&self) -> QueueSpec {
        let mut spec = self.clone();
        match spec.kind {
            QueueKind::DropTail | QueueKind::Step => {}
            QueueKind::Red => {
                spec.w_q.get_or_insert(0.002);
                spec.max_p.get_or_insert(0.1);
                spec.gentle.get_or_insert(true);
                spec.wait.get_or_insert(true);
                spec.byte_mode.get_or_insert(false);
                spec.idle_decay.get_or_insert(true);
                spec.mean_packet_size.get_or_insert(Bytes(1500));
                spec.ecn.get_or_insert(false);
                spec.mark_p.get_or_insert(1.0);
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
            QueueKind::Pie => {
                let pie = PieParams::default();
                spec.target.get_or_insert(Duration(pie.target));
                spec.tupdate.get_or_insert(Duration(pie.tupdate));
                spec.alpha.get_or_insert(pie.alpha);
                spec.beta.get_or_insert(pie.beta);
                spec.max_burst.get_or_insert(Duration(pie.max_burst));
                spec.ecn.get_or_insert(pie.ecn);
                spec.derandomize.get_or_insert(pie.derandomize);
            }
        }
        spec
    }
}

impl TcpSpec {
    /// The defaults of the Linux profile (see [`TcpSpec::profile_defaults`]).
    pub fn defaults() -> TcpSpec {
        TcpSpec::profile_defaults(TcpProfile::Linux)
    }

    /// Every key's default under a profile; docs/tcp.md lists each value with its source.
    pub fn profile_defaults(profile: TcpProfile) -> TcpSpec {
        let specific = match profile {
            TcpProfile::Linux => linux_profile(),
            TcpProfile::Ns3 => ns3_profile(),
            TcpProfile::Ns2 => ns2_profile(),
            TcpProfile::Ns2Legacy => ns2_legacy_profile(),
        };
        let common = TcpSpec {
            profile: Some(profile),
            initial_ssthresh: None,
            cwnd_clamp: None,
            rto_restart: Some(RtoRestart::NewData),
            duplicate_threshold: Some(3),
            ecn: Some(false),
            pacing: Some(false),
            gso: Some(false),
            ack_delay: Some(AckDelayMode::None),
            ack_policy: Some(AckPolicy::Counted),
            ack_delay_max: seconds(2),
            ..TcpSpec::default()
        };
        specific.over(&common)
    }

    /// `self` with every unset key taken from `base`.
    pub fn over(&self, base: &TcpSpec) -> TcpSpec {
        macro_rules! pick {
            ($($field:ident),*) => { TcpSpec { $($field: self.$field.or(base.$field)),* } };
        }
        pick!(
            profile,
            mss,
            header,
            initial_window,
            initial_ssthresh,
            cwnd_clamp,
            recovery,
            rack,
            tail_loss_probe,
            prr,
            timestamps,
            frto,
            undo,
            rto_formula,
            rtt_sampling,
            algorithm_rtt,
            reduction_base,
            ecn_response,
            syn,
            ect_retransmissions,
            rto_restart,
            quick_acks,
            ack_policy,
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
            send_buffer,
            pacing,
            gso,
            ack_delay,
            ack_delay_max
        )
    }

    /// The spec with its profile's defaults under every unset key. RACK and tail loss probes
    /// need SACK: when the spec chooses another recovery they are off unless it sets them.
    pub fn with_profile_defaults(&self) -> TcpSpec {
        self.without_sack_only_defaults().over(&TcpSpec::profile_defaults(self.profile.unwrap_or_default()))
    }

    /// A flow's `tcp` table over the scenario's (resolved) one: the keys the flow sets win.
    pub fn for_flow(flow: &TcpSpec, scenario: &TcpSpec) -> TcpSpec {
        flow.without_sack_only_defaults().over(scenario)
    }

    fn without_sack_only_defaults(&self) -> TcpSpec {
        let mut spec = self.clone();
        if spec.recovery.is_some_and(|r| r != RecoveryMode::Sack) {
            spec.rack.get_or_insert(false);
            spec.tail_loss_probe.get_or_insert(false);
        }
        spec
    }
}

fn millis(n: u64) -> Option<Duration> {
    Some(Duration(n * NANOS_PER_MILLI))
}

fn seconds(n: u64) -> Option<Duration> {
    Some(Duration(n * NANOS_PER_SEC))
}

/// Linux 6.x (net/ipv4: tcp_input.c, tcp_output.c, tcp_recovery.c, tcp_timer.c; include/net/tcp.h):
/// 1448 + 52 = 1500-byte packets with timestamps.
fn linux_profile() -> TcpSpec {
    TcpSpec {
        mss: Some(Bytes(1448)),
        header: Some(Bytes(52)),
        initial_window: Some(10),
        recovery: Some(RecoveryMode::Sack),
        rack: Some(true),
        tail_loss_probe: Some(true),
        prr: Some(true),
        timestamps: Some(true),
        frto: Some(true),
        undo: Some(true),
        rto_formula: Some(RtoFormula::Linux),
        rtt_sampling: Some(RttSampling::EveryAck),
        algorithm_rtt: Some(AlgorithmRtt::Sample),
        reduction_base: Some(ReductionBase::FlightSize),
        ecn_response: Some(EcnResponse::Linux),
        syn: Some(true),
        ect_retransmissions: Some(false),
        quick_acks: Some(16),
        ack_policy: Some(AckPolicy::Linux),
        limited_transmit: Some(true),
        min_rto: millis(200),
        initial_rto: seconds(1),
        max_rto: seconds(120),
        clock_granularity: millis(1),
        delayed_ack: Some(true),
        delayed_ack_count: Some(2),
        delayed_ack_timeout: millis(40),
        receive_window: Some(Bytes(64_000_000)),
        ..TcpSpec::default()
    }
}

/// ns-3 3.4x TcpSocketBase, TcpSocket and TcpRxBuffer attribute defaults.
fn ns3_profile() -> TcpSpec {
    TcpSpec {
        mss: Some(Bytes(536)),
        header: Some(Bytes(52)),
        initial_window: Some(10),
        recovery: Some(RecoveryMode::Sack),
        rack: Some(false),
        tail_loss_probe: Some(false),
        prr: Some(true),
        timestamps: Some(true),
        frto: Some(false),
        undo: Some(false),
        rto_formula: Some(RtoFormula::Rfc6298),
        rtt_sampling: Some(RttSampling::EveryAck),
        algorithm_rtt: Some(AlgorithmRtt::Smoothed),
        reduction_base: Some(ReductionBase::Pipe),
        ecn_response: Some(EcnResponse::Linux),
        // TcpSocketBase always opens with a handshake, and times the SYN with ConnTimeout (3 s).
        syn: Some(true),
        ect_retransmissions: Some(false),
        quick_acks: Some(0),
        limited_transmit: Some(true),
        min_rto: seconds(1),
        initial_rto: seconds(3),
        max_rto: seconds(60),
        clock_granularity: millis(1),
        delayed_ack: Some(true),
        delayed_ack_count: Some(2),
        delayed_ack_timeout: millis(200),
        receive_window: Some(Bytes(131_072)),
        // TcpSocket SndBufSize: unacknowledged data stays in it, so it caps the flight too.
        send_buffer: Some(Bytes(131_072)),
        ..TcpSpec::default()
    }
}

/// ns-2.35's one-way agents (Agent/TCP/Newreno with Agent/TCPSink) with the defaults of
/// tcl/lib/ns-default.tcl; docs/tcp.md gives each value's line. packetSize_ 1000, window_ 20
/// packets, windowInit_ 2, syn_ and delay_growth_ true, minrto_ 0.2 s, maxrto_ 60 s,
/// rtxcur_init_ 3 s, tcpTick_ 10 ms, singledup_ 1, no SACK, no timestamps (one segment timed per
/// round trip), TCPSink without delayed ACKs, 40-byte IP + TCP headers.
fn ns2_profile() -> TcpSpec {
    TcpSpec {
        mss: Some(Bytes(1000)),
        header: Some(Bytes(40)),
        initial_window: Some(2),
        // `reset` starts ssthresh_ at window_ (20 packets): slow start ends there.
        initial_ssthresh: Some(20),
        recovery: Some(RecoveryMode::NewReno),
        rack: Some(false),
        tail_loss_probe: Some(false),
        prr: Some(false),
        timestamps: Some(false),
        frto: Some(false),
        undo: Some(false),
        rto_formula: Some(RtoFormula::Ns2),
        rtt_sampling: Some(RttSampling::TimedSegment),
        algorithm_rtt: Some(AlgorithmRtt::Sample),
        reduction_base: Some(ReductionBase::FlightSize),
        ecn_response: Some(EcnResponse::Rfc3168),
        syn: Some(true),
        // tcp.cc output() sets ECT on every data packet of an ECN agent, retransmissions included.
        ect_retransmissions: Some(true),
        quick_acks: Some(0),
        limited_transmit: Some(true),
        min_rto: millis(200),
        initial_rto: seconds(3),
        max_rto: seconds(60),
        clock_granularity: millis(10),
        delayed_ack: Some(false),
        delayed_ack_count: Some(2),
        delayed_ack_timeout: millis(100),
        receive_window: Some(Bytes(20_000)),
        ..TcpSpec::default()
    }
}

/// `ns2` with the values older ns-2 releases shipped and the ADC and Compound TCP era papers
/// ran with: minrto_ 1 s (0.2 s since 2004/10/14), maxrto_ 100000 s (60 s since 2007/03/28)
/// and no Limited Transmit (singledup_ 0; 1 since 2001/11/28).
fn ns2_legacy_profile() -> TcpSpec {
    TcpSpec { limited_transmit: Some(false), min_rto: seconds(1), max_rto: seconds(100_000), ..ns2_profile() }
}

impl Scenario {
    /// A copy with every default written out: TCP options, algorithm parameters, access links.
    pub fn resolved(&self) -> Scenario {
        let mut scenario = self.clone();
        scenario.tcp = self.tcp.with_profile_defaults();
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
                    // What the flow builder forces (see `CongestionControl::required_ecn`),
                    // written out so that the resolved scenario says what ran; such a flow also
                    // sends retransmissions ECN-capable unless it says otherwise, as Linux's
                    // tcp_ecn_send does for algorithms that need ECN (and ns-3's DctcpEcn mode).
                    let info = cc::ConnectionInfo::new(1448, 10, 1);
                    if (algorithm.create)(&flow.params, info).is_ok_and(|c| c.required_ecn().is_some()) {
                        let tcp = flow.tcp.get_or_insert_with(TcpSpec::default);
                        tcp.ecn = Some(true);
                        tcp.ect_retransmissions.get_or_insert(true);
                    }
                }
            }
        }
        let uses_access = scenario.topology.kind != TopologyKind::Custom
            || scenario.flows.iter().any(|flow| flow.access_delay.is_some());
        if uses_access && scenario.topology.access.is_none() {
            scenario.topology.access = Some(self.default_access_link());
        }
        scenario.resolve_fabric();
        let topology = &mut scenario.topology;
        let links = topology
            .bottleneck
            .iter_mut()
            .chain(topology.access.iter_mut())
            .chain(topology.hops.iter_mut().flatten())
            .chain(topology.links.iter_mut().flatten())
            .chain(topology.edge_agg.iter_mut())
            .chain(topology.agg_core.iter_mut())
            .chain(topology.uplink.iter_mut());
        for link in links {
            link.queue = link.queue.with_defaults();
        }
        scenario
    }

    /// A fabric's tiers and routing written out: edge_agg and uplink as access, agg_core as
    /// edge_agg, oversubscription 1, routing "ecmp".
    fn resolve_fabric(&mut self) {
        use crate::net::fabric::Tier;
        let kind = self.topology.kind;
        if !kind.is_fabric() {
            return;
        }
        self.topology.routing = Some(self.topology.routing());
        if kind == TopologyKind::FatTree {
            self.topology.oversubscription.get_or_insert(1);
            self.topology.edge_agg = self.tier_link(Tier::EdgeAgg).cloned();
            self.topology.agg_core = self.tier_link(Tier::AggCore).cloned();
        } else {
            self.topology.uplink = self.tier_link(Tier::Uplink).cloned();
        }
    }

    /// Access links when the scenario gives none: 10x the fastest core link, 1 ms, 1000 packets.
    pub fn default_access_link(&self) -> LinkSpec {
        let fastest = match self.topology.kind {
            TopologyKind::Dumbbell => self.topology.bottleneck.as_ref().map_or(1, |b| b.rate.bps()),
            TopologyKind::Chain => self.topology.hops.iter().flatten().map(|h| h.rate.bps()).max().unwrap_or(1),
            TopologyKind::Custom => self.topology.links.iter().flatten().map(|l| l.rate.bps()).max().unwrap_or(1),
            // Validation requires a fabric's access links; this serves only unvalidated scenarios.
            TopologyKind::FatTree | TopologyKind::LeafSpine => 1,
        };
        LinkSpec {
            name: None,
            from: None,
            to: None,
            rate: Rate(fastest.saturating_mul(10)),
            delay: Duration(NANOS_PER_MILLI),
            buffer: Buffer::Packets(1000),
            queue: QueueSpec::default(),
            rdc_stamp: false,
            forward: DirectionSpec::default(),
            reverse: DirectionSpec::default(),
        }
    }
}
