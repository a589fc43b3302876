//! The features few link directions have, kept apart from `Channel` and made only for a
//! direction that has one (`Channel::features`).

use rand::SeedableRng;

use crate::net::delivery_trace::DeliveryTrace;
use crate::net::packet::Packet;
use crate::net::wire::{Jitter, LossModel, Outage};
use crate::sim::SimRng;
use crate::time::{SimDuration, SimTime};

/// What few link directions have: loss, jitter, outages, schedules, a trace, a capture, RDC's
/// virtual FIFO, and the random stream loss and jitter draw from. Boxed, and only for a direction
/// that has one of them: in the channel they took 280 of its 768 bytes, and at 10,000 flows the
/// dumbbell has 40,000 directions, nearly all plain access links (12 MB of the peak).
pub(super) struct Features {
    pub(super) outages: Vec<Outage>,
    /// (time, new rate) pairs applied by `RateChange` events.
    pub(super) rate_schedule: Vec<(SimTime, u64)>,
    /// (time, new delay) pairs applied by `DelayChange` events.
    pub(super) delay_schedule: Vec<(SimTime, SimDuration)>,
    /// `simulation.capture`: every packet this direction transmitted, with the time it started.
    pub(super) capture: Option<Vec<(SimTime, Packet)>>,
    pub(super) loss: LossModel,
    pub(super) jitter: Option<Jitter>,
    /// Deliver only at a trace's opportunities instead of at `rate_bps`.
    pub(super) trace: Option<DeliveryTrace>,
    /// Exact RDC's virtual FIFO: its backlog in bits, and when it was last drained.
    pub(super) virtual_backlog_bits: f64,
    pub(super) virtual_updated: SimTime,
    /// Draws of the loss model and jitter: the channel's stream, started from its seed when the
    /// features are made (nothing draws from it before).
    pub(super) rng: SimRng,
}

impl Features {
    pub(super) fn new(rng_seed: u64) -> Self {
        Self {
            outages: Vec::new(),
            rate_schedule: Vec::new(),
            delay_schedule: Vec::new(),
            capture: None,
            loss: LossModel::None,
            jitter: None,
            trace: None,
            virtual_backlog_bits: 0.0,
            virtual_updated: 0,
            rng: SimRng::seed_from_u64(rng_seed),
        }
    }
}
