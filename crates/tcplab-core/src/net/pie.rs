//! PIE: Proportional Integral controller Enhanced (RFC 8033, Pan, Natarajan, Baker and White),
//! with the defaults and details of Linux's sch_pie.c (include/net/pie.h, net/sched/sch_pie.c),
//! facts only.
//!
//! Every `tupdate` (15 ms) the drop probability moves by
//! p += alpha (qdelay - target) + beta (qdelay - qdelay_old), alpha = 0.125 and beta = 1.25 per
//! second (Linux's 2/16 and 20/16), qdelay the queueing delay now and qdelay_old the one at the
//! previous update. Auto-tuning (RFC 8033 §4.2, the same table in Linux): the step is divided by
//! 2 while p < 10%, 8 below 1%, 32 below 0.1%, 128 below 0.01%, 512 below 0.001% and 2048 below
//! 0.0001%. Above 10% a step is capped at +2%; a qdelay above 250 ms adds 2% (Linux); two updates
//! in a row with no delay decay p to 63/64 of itself (Linux; RFC 8033 says 98%).
//!
//! On arrival: a full buffer drops. Otherwise `drop_early` decides, with no early action while
//! burst allowance (150 ms, spent at 15 ms per update while the queue is congested) is left,
//! while qdelay < target / 2 and p < 20%, or while fewer than two packets (of the largest size
//! seen) are queued. An early decision drops, or with `ecn` marks an ECN-capable packet CE while
//! p <= 10% (Linux's ecn option); above 10% ECN-capable packets are dropped too. With
//! `derandomize` (Linux, RFC 8033 §5.1) the probabilities of successive arrivals accumulate:
//! nothing before they reach 0.85, always at 8.5, a random draw in between.
//!
//! qdelay is the sojourn time of the packet last dequeued (0 once the queue is empty), Linux's
//! default (its `dq_rate_estimator` off); RFC 8033's departure-rate estimate is not offered. The
//! burst allowance comes back when p is 0 and both delays are under target / 2 (RFC 8033 §4.3).

use std::collections::VecDeque;

use crate::net::packet::{Ecn, PacketId, PacketPool};
use crate::net::queue::{EnqueueOutcome, QueueDiscipline, QueueLimit, QueueSettings};
use crate::sim::{unit_f64, SimRng};
use crate::time::{as_secs_f64, SimDuration, SimTime, NANOS_PER_MILLI};

#[derive(Clone, Copy, Debug)]
pub struct PieParams {
    pub target: SimDuration,
    pub tupdate: SimDuration,
    /// Per second: p moves by alpha x (qdelay - target in seconds) per update.
    pub alpha: f64,
    /// Per second: p moves by beta x (qdelay - qdelay_old in seconds) per update.
    pub beta: f64,
    pub max_burst: SimDuration,
    pub ecn: bool,
    pub derandomize: bool,
}

impl Default for PieParams {
    /// RFC 8033 §4 and Linux's pie_params_init.
    fn default() -> Self {
        Self {
            target: 15 * NANOS_PER_MILLI,
            tupdate: 15 * NANOS_PER_MILLI,
            alpha: 0.125,
            beta: 1.25,
            max_burst: 150 * NANOS_PER_MILLI,
            ecn: false,
            derandomize: true,
        }
    }
}

/// ECN-capable packets are marked only while p is at most this (Linux: MAX_PROB / 10).
pub const ECN_MARK_LIMIT: f64 = 0.1;
/// Above this p, early drops happen even while the delay is under target / 2 (RFC 8033 §4.1).
const LOW_DELAY_PROBABILITY: f64 = 0.2;
/// The most one update raises p by once p >= 10%, and what a delay over 250 ms adds.
const MAX_STEP: f64 = 0.02;
const HIGH_DELAY: SimDuration = 250 * NANOS_PER_MILLI;

/// The auto-tuning divisor for the step at probability `p` (RFC 8033 §4.2).
pub fn step_divisor(p: f64) -> f64 {
    if p >= 0.1 {
        return 1.0;
    }
    let mut divisor = 2.0;
    let mut threshold = 0.01;
    while p < threshold && threshold >= 1e-6 {
        divisor *= 4.0;
        threshold /= 10.0;
    }
    divisor
}

pub struct Pie {
    params: PieParams,
    limit: QueueLimit,
    packets: VecDeque<PacketId>,
    bytes: u64,
    rng: SimRng,
    /// The drop probability.
    pub prob: f64,
    /// The sojourn of the packet last dequeued, and qdelay at the previous update.
    pub qdelay: SimDuration,
    pub qdelay_old: SimDuration,
    pub burst_allowance: SimDuration,
    next_update: SimTime,
    accumulated: f64,
    /// The largest packet seen: "two packets" in `drop_early` are two of these.
    max_packet: u64,
    pub early_drops: u64,
    pub early_marks: u64,
}

impl Pie {
    pub fn new(params: PieParams, limit: QueueLimit, rng: SimRng) -> Self {
        Self {
            params,
            limit,
            packets: VecDeque::new(),
            bytes: 0,
            rng,
            prob: 0.0,
            qdelay: 0,
            qdelay_old: 0,
            burst_allowance: params.max_burst,
            next_update: params.tupdate,
            accumulated: 0.0,
            max_packet: 0,
            early_drops: 0,
            early_marks: 0,
        }
    }

    /// One periodic update of p (RFC 8033 §4.2, Linux's calculate_probability).
    pub fn update_probability(&mut self) {
        let p = &self.params;
        let (qdelay, qdelay_old) = (self.qdelay, self.qdelay_old);
        let error = as_secs_f64(qdelay) - as_secs_f64(p.target);
        let trend = as_secs_f64(qdelay) - as_secs_f64(qdelay_old);
        let mut step = (p.alpha * error + p.beta * trend) / step_divisor(self.prob);
        if step > MAX_STEP && self.prob >= 0.1 {
            step = MAX_STEP;
        }
        if qdelay > HIGH_DELAY {
            step += MAX_STEP;
        }
        self.prob = (self.prob + step).clamp(0.0, 1.0);
        // Linux skips this decay when qdelay is 0 with packets queued (a tiny queue).
        if qdelay == 0 && qdelay_old == 0 && self.packets.is_empty() {
            self.prob -= self.prob / 64.0;
        }
        self.burst_allowance = self.burst_allowance.saturating_sub(p.tupdate);
        if self.prob == 0.0 && qdelay < p.target / 2 && qdelay_old < p.target / 2 {
            self.burst_allowance = p.max_burst;
            self.accumulated = 0.0;
        }
        self.qdelay_old = qdelay;
    }

    /// Runs the updates due by `now` (a timer every tupdate in Linux). Once the queue has been
    /// idle long enough for every update to change nothing, it skips ahead.
    fn catch_up(&mut self, now: SimTime) {
        while self.next_update <= now {
            let settled = self.prob == 0.0
                && self.qdelay == 0
                && self.qdelay_old == 0
                && self.burst_allowance == self.params.max_burst
                && self.packets.is_empty();
            if settled {
                let missed = (now - self.next_update) / self.params.tupdate + 1;
                self.next_update += missed * self.params.tupdate;
                break;
            }
            self.update_probability();
            self.next_update += self.params.tupdate;
        }
    }

    /// RFC 8033 §4.1 drop_early with Linux's conditions; true: drop (or mark) this arrival.
    pub fn drop_early(&mut self) -> bool {
        let p = &self.params;
        if self.burst_allowance > 0 {
            return false;
        }
        if self.qdelay < p.target / 2 && self.prob < LOW_DELAY_PROBABILITY {
            return false;
        }
        if self.bytes < 2 * self.max_packet {
            return false;
        }
        if p.derandomize {
            if self.prob == 0.0 {
                self.accumulated = 0.0;
            }
            self.accumulated += self.prob;
            if self.accumulated < 0.85 {
                return false;
            }
            if self.accumulated >= 8.5 {
                self.accumulated = 0.0;
                return true;
            }
        }
        if unit_f64(&mut self.rng) < self.prob {
            self.accumulated = 0.0;
            return true;
        }
        false
    }
}

impl QueueDiscipline for Pie {
    fn settings(&self) -> QueueSettings {
        let p = &self.params;
        let switch = |on: bool| if on { 1.0 } else { 0.0 };
        QueueSettings {
            kind: "pie",
            limit: self.limit,
            parameters: vec![
                ("target_ns", p.target as f64),
                ("tupdate_ns", p.tupdate as f64),
                ("alpha", p.alpha),
                ("beta", p.beta),
                ("max_burst_ns", p.max_burst as f64),
                ("ecn", switch(p.ecn)),
                ("derandomize", switch(p.derandomize)),
            ],
        }
    }

    fn enqueue(
        &mut self,
        packet: PacketId,
        pool: &mut PacketPool,
        now: SimTime,
        _evicted: &mut Vec<PacketId>,
    ) -> EnqueueOutcome {
        self.catch_up(now);
        let size = pool.get(packet).wire_bytes as u64;
        self.max_packet = self.max_packet.max(size);
        if !self.limit.admits(self.packets.len(), self.bytes, size) {
            self.accumulated = 0.0;
            return EnqueueOutcome::Dropped;
        }
        let mut outcome = EnqueueOutcome::Queued;
        if self.drop_early() {
            let header = pool.get_mut(packet);
            if self.params.ecn && header.ecn != Ecn::NotEct && self.prob <= ECN_MARK_LIMIT {
                header.ecn = Ecn::Ce;
                self.early_marks += 1;
                outcome = EnqueueOutcome::QueuedMarked;
            } else {
                self.early_drops += 1;
                return EnqueueOutcome::Dropped;
            }
        }
        pool.get_mut(packet).enqueued_at = now;
        self.bytes += size;
        self.packets.push_back(packet);
        outcome
    }

    fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime, _dropped: &mut Vec<PacketId>) -> Option<PacketId> {
        self.catch_up(now);
        let packet = self.packets.pop_front()?;
        let header = pool.get(packet);
        self.bytes -= header.wire_bytes as u64;
        self.qdelay = if self.packets.is_empty() { 0 } else { now - header.enqueued_at };
        Some(packet)
    }

    fn len_packets(&self) -> usize {
        self.packets.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn early_drops(&self) -> u64 {
        self.early_drops
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;
    use crate::sim::{rng_stream, StreamKind};
    use crate::time::NANOS_PER_MILLI as MS;

    fn pie(params: PieParams) -> Pie {
        Pie::new(params, QueueLimit::Packets(100_000), rng_stream(1, 0, StreamKind::Channel, 0))
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn auto_tuning_divides_the_step_by_probability_range() {
        for (p, divisor) in [
            (0.5, 1.0),
            (0.1, 1.0),
            (0.05, 2.0),
            (0.005, 8.0),
            (0.0005, 32.0),
            (0.00005, 128.0),
            (0.000005, 512.0),
            (0.0000005, 2048.0),
            (0.0, 2048.0),
        ] {
            assert_eq!(step_divisor(p), divisor, "p = {p}");
        }
    }

    #[test]
    fn probability_update_by_hand() {
        let mut q = pie(PieParams::default());
        q.burst_allowance = 0;
        // p = 0.05, qdelay 30 ms, qdelay_old 20 ms: alpha (0.030 - 0.015) + beta (0.030 - 0.020)
        // = 0.125 x 0.015 + 1.25 x 0.010 = 0.001875 + 0.0125 = 0.014375, divided by 2 (p < 10%)
        // = 0.0071875: p = 0.0571875.
        q.prob = 0.05;
        q.qdelay = 30 * MS;
        q.qdelay_old = 20 * MS;
        q.update_probability();
        assert!(close(q.prob, 0.0571875), "{}", q.prob);
        assert_eq!(q.qdelay_old, 30 * MS);
        // p = 0.005 (divisor 8), qdelay 10 ms, old 12 ms: 0.125 x -0.005 + 1.25 x -0.002 =
        // -0.000625 - 0.0025 = -0.003125, / 8 = -0.000390625: p = 0.004609375.
        q.prob = 0.005;
        q.qdelay = 10 * MS;
        q.qdelay_old = 12 * MS;
        q.update_probability();
        assert!(close(q.prob, 0.004609375), "{}", q.prob);
        // p = 0.3 (no division): 0.125 x 0.085 + 1.25 x 0.08 = 0.010625 + 0.1 = 0.110625,
        // capped at +0.02 because p >= 10%: p = 0.32.
        q.prob = 0.3;
        q.qdelay = 100 * MS;
        q.qdelay_old = 20 * MS;
        q.update_probability();
        assert!(close(q.prob, 0.32), "{}", q.prob);
        // Over 250 ms: the capped 0.02 plus Linux's extra 0.02: 0.32 -> 0.36.
        q.qdelay = 300 * MS;
        q.qdelay_old = 300 * MS;
        q.update_probability();
        assert!(close(q.prob, 0.36), "{}", q.prob);
        // Empty queue, no delay twice: 0.125 x -0.015 / 2 = -0.0009375 from p = 0.05, then
        // x 63/64: (0.05 - 0.0009375) x 63 / 64 = 0.048296...
        q.prob = 0.05;
        q.qdelay = 0;
        q.qdelay_old = 0;
        q.update_probability();
        assert!(close(q.prob, (0.05 - 0.0009375) * 63.0 / 64.0), "{}", q.prob);
    }

    fn fill(q: &mut Pie, pool: &mut PacketPool, n: usize, ecn: Ecn) -> Vec<EnqueueOutcome> {
        (0..n)
            .map(|_| {
                let p = pool.insert(Packet { wire_bytes: 1500, ecn, ..Packet::default() });
                q.enqueue(p, pool, 0, &mut Vec::new())
            })
            .collect()
    }

    #[test]
    fn burst_allowance_is_spent_at_one_tupdate_per_congested_update() {
        let mut q = pie(PieParams::default());
        let mut pool = PacketPool::default();
        fill(&mut q, &mut pool, 100, Ecn::NotEct);
        // A queue of 100 packets whose head waited 40 ms: congested, p grows from the first
        // update, but 150 ms of allowance = 10 updates of 15 ms pass before any early drop.
        q.qdelay = 40 * MS;
        for update in 1..=10 {
            q.update_probability();
            assert_eq!(q.burst_allowance, 150 * MS - update * 15 * MS);
        }
        assert!(q.prob > 0.0);
        // Allowance 0: early drops are now possible (p forced to 1 makes the draw certain).
        q.prob = 1.0;
        q.params.derandomize = false;
        assert!(q.drop_early());
        q.burst_allowance = 15 * MS;
        assert!(!q.drop_early(), "any allowance left: no early drop");
        // It comes back in full once p is 0 and both delays are under target / 2.
        q.prob = 0.0;
        q.qdelay = 5 * MS;
        q.qdelay_old = 5 * MS;
        q.update_probability();
        assert_eq!(q.burst_allowance, 150 * MS);
    }

    #[test]
    fn no_early_drop_at_low_delay_and_low_probability_or_with_under_two_packets() {
        let mut q = pie(PieParams { derandomize: false, ..PieParams::default() });
        let mut pool = PacketPool::default();
        fill(&mut q, &mut pool, 10, Ecn::NotEct);
        q.burst_allowance = 0;
        // qdelay 7 ms < target / 2 = 7.5 ms with p = 0.19 < 20%: never.
        q.qdelay = 7 * MS;
        q.prob = 0.19;
        assert!((0..1000).all(|_| !q.drop_early()));
        // The same delay at p = 1 (>= 20%): always. At 8 ms delay with p = 1: always.
        q.prob = 1.0;
        assert!(q.drop_early());
        q.qdelay = 8 * MS;
        assert!(q.drop_early());
        // One packet queued (less than two of 1500 B): never.
        let mut dropped = Vec::new();
        while q.len_packets() > 1 {
            q.dequeue(&mut pool, 0, &mut dropped);
        }
        q.qdelay = 8 * MS;
        assert!(!q.drop_early());
    }

    #[test]
    fn derandomized_drops_wait_for_accumulated_probability() {
        let mut q = pie(PieParams::default());
        let mut pool = PacketPool::default();
        fill(&mut q, &mut pool, 10, Ecn::NotEct);
        q.burst_allowance = 0;
        q.qdelay = 20 * MS;
        // p = 0.1: the first 8 arrivals accumulate 0.8 < 0.85 and are never dropped.
        q.prob = 0.1;
        assert!((0..8).all(|_| !q.drop_early()));
        // p = 1.0 reaches 8.5 within 9 arrivals at the latest (1.0 each; random below).
        q.prob = 1.0;
        assert!(q.drop_early(), "0.8 + 1.0 >= 0.85 and the draw is below 1");
    }

    #[test]
    fn ecn_marks_at_or_below_ten_percent_and_drops_above() {
        let mut q = pie(PieParams { ecn: true, derandomize: false, ..PieParams::default() });
        let mut pool = PacketPool::default();
        fill(&mut q, &mut pool, 10, Ecn::NotEct);
        q.burst_allowance = 0;
        q.qdelay = 30 * MS;
        // The queue is not updated in between (all at time 0 < tupdate), so p stays as set. p =
        // 0.1: every early decision on an ECN-capable packet marks; with ~10% chance each, 1000
        // arrivals give about 100 marks and no early drop.
        q.prob = 0.1;
        let outcomes = fill(&mut q, &mut pool, 1000, Ecn::Ect);
        let marked = outcomes.iter().filter(|o| **o == EnqueueOutcome::QueuedMarked).count();
        assert!((50..=150).contains(&marked), "{marked} marks");
        assert_eq!(q.early_drops, 0);
        // p = 0.11 > 10%: ECN-capable packets are dropped early, none marked.
        q.prob = 0.11;
        let before = q.early_marks;
        let outcomes = fill(&mut q, &mut pool, 500, Ecn::Ect);
        // About 11% of 500 = 55 early drops.
        assert!((25..=90).contains(&q.early_drops), "{} early drops", q.early_drops);
        assert_eq!(q.early_marks, before);
        assert!(!outcomes.contains(&EnqueueOutcome::QueuedMarked));
        // Without ECN the same p = 0.1 drops.
        let mut plain = pie(PieParams { derandomize: false, ..PieParams::default() });
        fill(&mut plain, &mut pool, 10, Ecn::NotEct);
        plain.burst_allowance = 0;
        plain.qdelay = 30 * MS;
        plain.prob = 0.1;
        fill(&mut plain, &mut pool, 1000, Ecn::Ect);
        assert!(plain.early_drops > 50 && plain.early_marks == 0);
    }

    #[test]
    fn qdelay_is_the_last_dequeued_sojourn_and_updates_run_every_tupdate() {
        let mut q = pie(PieParams::default());
        let mut pool = PacketPool::default();
        fill(&mut q, &mut pool, 3, Ecn::NotEct);
        let mut dropped = Vec::new();
        q.dequeue(&mut pool, 20 * MS, &mut dropped);
        assert_eq!(q.qdelay, 20 * MS);
        // The update at 15 ms ran before this dequeue (qdelay then 0); the one at 30 ms sees 20 ms:
        // 0.125 x 0.005 + 1.25 x 0.020 = 0.025625, / 2048 (p = 0) = 0.0000125122...
        q.dequeue(&mut pool, 30 * MS, &mut dropped);
        assert!(close(q.prob, 0.025625 / 2048.0), "{}", q.prob);
        assert_eq!(q.qdelay, 30 * MS);
        // The last packet leaves: the queue is empty, qdelay 0.
        q.dequeue(&mut pool, 31 * MS, &mut dropped);
        assert_eq!(q.qdelay, 0);
    }
}
