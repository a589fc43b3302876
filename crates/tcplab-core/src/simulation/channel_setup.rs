//! One link direction set up from its spec: the queue discipline with its limit and (for RED)
//! thresholds resolved, and the channel's loss model, jitter, outages and rate and delay schedules.

use std::collections::HashMap;

use crate::net::cellular_trace;
use crate::net::channel::Channel;
use crate::net::codel::{Codel, CodelParams};
use crate::net::delivery_trace::{read_mahimahi, DeliveryTrace};
use crate::net::fq_codel::FqCodel;
use crate::net::pie::{Pie, PieParams};
use crate::net::queue::{DropTail, QueueDiscipline, QueueLimit};
use crate::net::red::{Red, RedParams};
use crate::net::wire::{Drift, Harq, Jitter, JitterDistribution, LossModel, Outage};
use crate::scenario::{
    DirectionSpec, HarqUnit, JitterKind, LossModelKind, QueueKind, QueueSpec, ScenarioError, TraceSpec,
};
use crate::sim::SimRng;
use crate::units::Buffer;

/// The queue discipline of one channel, with its limit and (for RED) thresholds resolved.
pub(super) fn build_queue(
    spec: &QueueSpec,
    limit: QueueLimit,
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
        QueueKind::DropTail => Box::new(DropTail::new(limit, None)),
        QueueKind::Step => {
            let threshold = match spec.threshold.expect("validated: a step queue has a threshold") {
                Buffer::Packets(k) => QueueLimit::Packets(k),
                Buffer::Bytes(k) => QueueLimit::Bytes(k),
                // At least one byte: a threshold of 0 would mark every packet.
                Buffer::Bdp(multiple) => QueueLimit::Bytes(((bdp_bytes * multiple).round() as u64).max(1)),
            };
            Box::new(DropTail::new(limit, Some(threshold)))
        }
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
        QueueKind::Red => Box::new(Red::new(red_params(spec, limit, bdp_bytes, rate_bps), limit, rng)),
        QueueKind::Pie => {
            let defaults = PieParams::default();
            let params = PieParams {
                target: spec.target.map_or(defaults.target, |d| d.nanos()),
                tupdate: spec.tupdate.map_or(defaults.tupdate, |d| d.nanos()),
                alpha: spec.alpha.unwrap_or(defaults.alpha),
                beta: spec.beta.unwrap_or(defaults.beta),
                max_burst: spec.max_burst.map_or(defaults.max_burst, |d| d.nanos()),
                ecn: spec.ecn.unwrap_or(defaults.ecn),
                derandomize: spec.derandomize.unwrap_or(defaults.derandomize),
            };
            Box::new(Pie::new(params, limit, rng))
        }
    }
}

/// RED's parameters, its thresholds in the unit it measures (packets, or bytes in byte mode) and
/// by default a sixth and half of the buffer.
fn red_params(spec: &QueueSpec, limit: QueueLimit, bdp_bytes: f64, rate_bps: u64) -> RedParams {
    let mean_packet = spec.mean_packet_size.map_or(1500, |b| b.0) as f64;
    let byte_mode = spec.byte_mode.unwrap_or(false);
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
    RedParams {
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
        mark_p: spec.mark_p.unwrap_or(1.0),
    }
}

/// Loss, jitter, outages and rate changes of one channel.
pub(super) fn configure_direction(channel: &mut Channel, spec: &DirectionSpec) {
    if let Some(loss) = &spec.loss {
        channel.set_loss(match loss.model {
            LossModelKind::Bernoulli => LossModel::Bernoulli { probability: loss.p.unwrap_or(0.0) },
            LossModelKind::GilbertElliott => LossModel::GilbertElliott {
                good_to_bad: loss.p_good_to_bad.unwrap_or(0.0),
                bad_to_good: loss.p_bad_to_good.unwrap_or(1.0),
                loss_in_good: loss.loss_in_good.unwrap_or(0.0),
                loss_in_bad: loss.loss_in_bad.unwrap_or(1.0),
                in_bad: false,
            },
        });
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
            JitterKind::Drift => {
                let (min, max) = (jitter.min.map_or(0, |d| d.nanos()), jitter.max.map_or(0, |d| d.nanos()));
                JitterDistribution::Drift(Drift::new(min, max, jitter.interval.map_or(max - min, |d| d.nanos())))
            }
            JitterKind::Harq => JitterDistribution::Harq(Harq::new(
                jitter.p.unwrap_or(HARQ_DEFAULT_FAILURE),
                jitter.retransmission_delay.map_or(HARQ_DEFAULT_RTT, |d| d.nanos()),
                jitter.max_retransmissions.unwrap_or(HARQ_DEFAULT_MAX_RETRANSMISSIONS),
                match jitter.per.unwrap_or(HarqUnit::Slot) {
                    HarqUnit::Slot => Some(jitter.slot.map_or(HARQ_DEFAULT_SLOT, |d| d.nanos())),
                    HarqUnit::Packet => None,
                },
            )),
        };
        channel.set_jitter(Jitter { distribution, reorder: jitter.reorder });
    }
    channel.set_outages(
        spec.outages.iter().map(|o| Outage { start: o.at.nanos(), end: o.at.nanos() + o.duration.nanos() }).collect(),
    );
    channel.set_rate_schedule(spec.rate_schedule.iter().map(|s| (s.at.nanos(), s.rate.bps())).collect());
    channel.set_delay_schedule(spec.delay_schedule.iter().map(|s| (s.at.nanos(), s.delay.nanos())).collect());
}

/// HARQ defaults: a 10% block error target for the first transmission (the usual LTE/NR link
/// adaptation target), 8 ms between a transmission and its retransmission (LTE FDD's HARQ round
/// trip, 3GPP TS 36.213), and at most 3 retransmissions (4 transmissions in all, a common
/// maximum in deployed LTE networks). One outcome per 1 ms slot: LTE's TTI, in which a carrier
/// sends one transport block (3GPP TS 36.211), and the resolution of mahimahi delivery traces.
pub const HARQ_DEFAULT_FAILURE: f64 = 0.1;
pub const HARQ_DEFAULT_RTT: u64 = 8_000_000;
pub const HARQ_DEFAULT_MAX_RETRANSMISSIONS: u32 = 3;
pub const HARQ_DEFAULT_SLOT: u64 = 1_000_000;

/// A channel's delivery trace: a mahimahi file (read once per path) or a generated one.
pub(super) fn load_trace(
    spec: &TraceSpec,
    key: &str,
    mut rng: SimRng,
    files: &mut HashMap<String, Vec<u64>>,
) -> Result<DeliveryTrace, ScenarioError> {
    if let Some(path) = &spec.file {
        if !files.contains_key(path) {
            let offsets = read_mahimahi(path).map_err(|e| ScenarioError::new(format!("{key}.file"), e))?;
            files.insert(path.clone(), offsets);
        }
        return Ok(DeliveryTrace::new(files[path].clone()));
    }
    let params = spec.cellular.as_ref().expect("validated: a trace has a file or a generator").params();
    Ok(DeliveryTrace::new(cellular_trace::generate(&params, &mut rng)))
}
