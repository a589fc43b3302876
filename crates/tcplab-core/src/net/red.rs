//! RED: Random Early Detection (Floyd and Jacobson, "Random early detection gateways for congestion
//! avoidance", IEEE/ACM ToN 1993), with the options of ns-2's RED queue, the simulator the Active
//! Delay Control and Compound TCP papers used.
//!
//! On every arrival the average queue is updated, avg = (1 - w_q) avg + w_q q; after an idle
//! period it first decays as if m small packets had arrived to an empty queue, avg = (1 - w_q)^m
//! avg, with m = idle time x link rate / mean packet size. Then:
//! - avg < min_th: accept;
//! - min_th <= avg < max_th: p_b = max_p (avg - min_th) / (max_th - min_th);
//! - gentle and max_th <= avg < 2 max_th: p_b = max_p + (1 - max_p) (avg - max_th) / max_th;
//! - above that (max_th without gentle): a forced drop.
//!
//! In the probabilistic region the packet is dropped (or, with `ecn`, marked CE if ECN-capable)
//! with p_a = p_b / (1 - count p_b) (uniform spacing), or with `wait` (ns-2's default) p_a = 0
//! while count p_b < 1, p_b / (2 - count p_b) while below 2, else 1, where count is the number
//! of packets accepted since the last drop or mark. In byte mode the queue and thresholds are in
//! bytes, count is the bytes since the last drop over the mean packet size (whole packets), and
//! p_a scales with size / mean packet size. A full buffer always drops.
//!
//! Details as ns-2.35's queue/red.cc (`REDQueue::enque`, `drop_early`, `modify_p`), which the
//! ns-2 back-end is checked against: nothing is dropped or marked early while the queue holds at
//! most one packet (or byte); the arrival on which the average first reaches min_th only starts
//! the count (at 1) and is never dropped; the idle decay counts whole packet times
//! (`int(ptc * idle)`). With `mark_p` (ns-2's `use_mark_p_`/`mark_p_`), an ECN-capable packet is
//! marked only while p_b is at most mark_p and dropped above it. One difference remains: ns-2's
//! queue counts as idle from the end of the last packet's transmission, this one from its start
//! (one packet time earlier).

use std::collections::VecDeque;

use crate::net::packet::{Ecn, PacketId, PacketPool};
use crate::net::queue::{EnqueueOutcome, QueueDiscipline, QueueLimit, QueueSettings};
use crate::sim::{unit_f64, SimRng};
use crate::time::{as_secs_f64, SimTime};

/// RED's settings, resolved to the units the queue measures (packets, or bytes in byte mode).
#[derive(Clone, Debug)]
pub struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    pub w_q: f64,
    pub max_p: f64,
    pub gentle: bool,
    pub wait: bool,
    pub byte_mode: bool,
    pub ecn: bool,
    pub idle_decay: bool,
    pub mean_packet_bytes: f64,
    /// Link rate in bits per second, for the idle decay.
    pub link_rate_bps: u64,
    /// Mark ECN-capable packets only while p_b is at most this, drop them above (1: always mark).
    pub mark_p: f64,
}

pub struct Red {
    params: RedParams,
    limit: QueueLimit,
    packets: VecDeque<PacketId>,
    bytes: u64,
    /// The average queue, in packets or bytes.
    pub average: f64,
    /// Packets accepted since the last early drop or mark (-1 below min_th, as in the paper).
    count: i64,
    /// Bytes accepted since the last early drop or mark: byte mode's count.
    count_bytes: u64,
    idle_since: Option<SimTime>,
    rng: SimRng,
    /// Probabilistic drops and marks, and forced drops (average above the threshold).
    pub early_drops: u64,
    pub early_marks: u64,
    pub forced_drops: u64,
}

impl Red {
    pub fn new(params: RedParams, limit: QueueLimit, rng: SimRng) -> Self {
        Self {
            params,
            limit,
            packets: VecDeque::new(),
            bytes: 0,
            average: 0.0,
            count: -1,
            count_bytes: 0,
            idle_since: Some(0),
            rng,
            early_drops: 0,
            early_marks: 0,
            forced_drops: 0,
        }
    }

    fn instantaneous(&self) -> f64 {
        if self.params.byte_mode {
            self.bytes as f64
        } else {
            self.packets.len() as f64
        }
    }

    fn update_average(&mut self, now: SimTime) {
        let p = &self.params;
        if let Some(since) = self.idle_since.take() {
            if p.idle_decay {
                // Whole packet times, as ns-2's m = int(ptc * idle time).
                let packets_meanwhile = as_secs_f64(now - since) * p.link_rate_bps as f64 / (8.0 * p.mean_packet_bytes);
                self.average *= (1.0 - p.w_q).powi(packets_meanwhile.floor().min(i32::MAX as f64) as i32);
            }
        }
        self.average = (1.0 - p.w_q) * self.average + p.w_q * self.instantaneous();
    }

    /// The marking/dropping probability p_b for the current average, and whether it is forced.
    pub fn base_probability(&self) -> (f64, bool) {
        let p = &self.params;
        let avg = self.average;
        if avg < p.min_th {
            (0.0, false)
        } else if avg < p.max_th {
            (p.max_p * (avg - p.min_th) / (p.max_th - p.min_th), false)
        } else if p.gentle && avg < 2.0 * p.max_th {
            (p.max_p + (1.0 - p.max_p) * (avg - p.max_th) / p.max_th, false)
        } else {
            (1.0, true)
        }
    }

    /// p_a from p_b, the count since the last drop and the packet's size (ns-2's modify_p).
    pub fn spaced_probability(&self, p_b: f64, size: u64) -> f64 {
        let count = if self.params.byte_mode {
            (self.count_bytes / self.params.mean_packet_bytes as u64) as f64
        } else {
            self.count.max(0) as f64
        };
        let mut p = if self.params.wait {
            if count * p_b < 1.0 {
                0.0
            } else if count * p_b < 2.0 {
                p_b / (2.0 - count * p_b)
            } else {
                1.0
            }
        } else if count * p_b < 1.0 {
            p_b / (1.0 - count * p_b)
        } else {
            1.0
        };
        if self.params.byte_mode && p < 1.0 {
            p = p * size as f64 / self.params.mean_packet_bytes;
        }
        p.min(1.0)
    }

    fn fits(&self, size: u64) -> bool {
        self.limit.admits(self.packets.len(), self.bytes, size)
    }
}

impl QueueDiscipline for Red {
    fn settings(&self) -> QueueSettings {
        let p = &self.params;
        let switch = |on: bool| if on { 1.0 } else { 0.0 };
        QueueSettings {
            kind: "red",
            limit: self.limit,
            parameters: vec![
                ("min_th", p.min_th),
                ("max_th", p.max_th),
                ("w_q", p.w_q),
                ("max_p", p.max_p),
                ("gentle", switch(p.gentle)),
                ("wait", switch(p.wait)),
                ("byte_mode", switch(p.byte_mode)),
                ("ecn", switch(p.ecn)),
                ("idle_decay", switch(p.idle_decay)),
                ("mean_packet_bytes", p.mean_packet_bytes),
                ("mark_p", p.mark_p),
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
        self.update_average(now);
        let size = pool.get(packet).wire_bytes as u64;
        let (p_b, forced) = self.base_probability();
        let mut outcome = EnqueueOutcome::Queued;
        if forced {
            self.count = 0;
            self.forced_drops += 1;
            return EnqueueOutcome::Dropped;
        }
        if p_b > 0.0 && self.instantaneous() > 1.0 {
            if self.count < 0 {
                // The average has just reached min_th: start counting, drop nothing yet.
                self.count = 1;
                self.count_bytes = size;
            } else {
                self.count += 1;
                self.count_bytes += size;
                let p_a = self.spaced_probability(p_b, size);
                if unit_f64(&mut self.rng) < p_a {
                    self.count = 0;
                    self.count_bytes = 0;
                    let header = pool.get_mut(packet);
                    if self.params.ecn && header.ecn != Ecn::NotEct && p_b <= self.params.mark_p {
                        header.ecn = Ecn::Ce;
                        self.early_marks += 1;
                        outcome = EnqueueOutcome::QueuedMarked;
                    } else {
                        self.early_drops += 1;
                        return EnqueueOutcome::Dropped;
                    }
                }
            }
        } else {
            self.count = -1;
        }
        if !self.fits(size) {
            return EnqueueOutcome::Dropped;
        }
        pool.get_mut(packet).enqueued_at = now;
        self.bytes += size;
        self.packets.push_back(packet);
        outcome
    }

    fn dequeue(&mut self, pool: &mut PacketPool, now: SimTime, _dropped: &mut Vec<PacketId>) -> Option<PacketId> {
        let packet = self.packets.pop_front()?;
        self.bytes -= pool.get(packet).wire_bytes as u64;
        if self.packets.is_empty() {
            self.idle_since = Some(now);
        }
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

    fn red(gentle: bool, wait: bool) -> Red {
        let params = RedParams {
            min_th: 5.0,
            max_th: 15.0,
            w_q: 0.002,
            max_p: 0.1,
            gentle,
            wait,
            byte_mode: false,
            ecn: true,
            idle_decay: true,
            mean_packet_bytes: 1000.0,
            link_rate_bps: 8_000_000,
            mark_p: 1.0,
        };
        Red::new(params, QueueLimit::Packets(100), rng_stream(1, 0, StreamKind::Channel, 0))
    }

    /// Queues `n` packets of 1000 B below min_th (nothing early can happen to them).
    fn fill(r: &mut Red, pool: &mut PacketPool, n: usize) {
        let (average, w_q) = (r.average, r.params.w_q);
        r.average = 0.0;
        r.params.w_q = 0.0;
        for _ in 0..n {
            let p = pool.insert(Packet { wire_bytes: 1000, ..Packet::default() });
            assert_eq!(r.enqueue(p, pool, 0, &mut Vec::new()), EnqueueOutcome::Queued);
        }
        r.average = average;
        r.params.w_q = w_q;
    }

    #[test]
    fn no_early_action_with_one_packet_waiting_and_none_on_first_crossing() {
        // ns-2 red.cc enque: early drops need qlen > 1; the arrival on which the average first
        // reaches min_th sets count = 1 and is accepted.
        let mut r = red(false, false);
        r.params.ecn = false;
        r.params.w_q = 0.0;
        r.average = 14.9; // p_b = 0.099
        let mut pool = PacketPool::default();
        let mut evicted = Vec::new();
        for _ in 0..2 {
            r.count = 1_000; // would give p_a = 1
            let p = pool.insert(Packet { wire_bytes: 1000, ..Packet::default() });
            assert_eq!(r.enqueue(p, &mut pool, 0, &mut evicted), EnqueueOutcome::Queued);
            assert_eq!(r.count, -1, "queue of 0 or 1 packet: out of the probabilistic region");
        }
        // Two waiting now: this arrival is the first crossing.
        let p = pool.insert(Packet { wire_bytes: 1000, ..Packet::default() });
        assert_eq!(r.enqueue(p, &mut pool, 0, &mut evicted), EnqueueOutcome::Queued);
        assert_eq!(r.count, 1);
        // The next one is tested with count 2: p_a = 0.099 / (1 - 0.198) = 0.1234 (no wait).
        assert!((r.spaced_probability(0.099, 1000) - 0.099 / (1.0 - 0.099)).abs() < 1e-12, "count 1 before");
    }

    #[test]
    fn mark_p_drops_ecn_capable_packets_above_it() {
        let mut r = red(true, false);
        r.params.mark_p = 0.1;
        r.params.w_q = 0.0;
        let mut pool = PacketPool::default();
        let mut evicted = Vec::new();
        fill(&mut r, &mut pool, 2);
        r.count = 1;
        // avg 14 in [5, 15]: p_b = 0.09 <= mark_p: marked (count 1_000 makes p_a = 1).
        for (average, expected) in [(14.0, EnqueueOutcome::QueuedMarked), (16.0, EnqueueOutcome::Dropped)] {
            r.average = average;
            r.count = 1_000;
            let p = pool.insert(Packet { wire_bytes: 1000, ecn: Ecn::Ect, ..Packet::default() });
            assert_eq!(r.enqueue(p, &mut pool, 0, &mut evicted), expected, "avg {average}");
        }
        // avg 16 is in the gentle region: p_b = 0.1 + 0.9 x 1/15 = 0.16 > mark_p, dropped early.
        assert_eq!((r.early_marks, r.early_drops), (1, 1));
    }

    #[test]
    fn idle_decay_counts_whole_packet_times() {
        let mut r = red(true, true);
        r.average = 4.0;
        let mut pool = PacketPool::default();
        // 8 Mbit/s and 1000-byte mean packets: 1000 packet times per second; 2.5 ms idle is
        // 2.5 packet times, of which ns-2 counts 2 (int(ptc * idle)).
        r.idle_since = Some(0);
        let p = pool.insert(Packet { wire_bytes: 1000, ..Packet::default() });
        r.enqueue(p, &mut pool, 2_500_000, &mut Vec::new());
        assert!((r.average - 4.0 * 0.998f64.powi(2) * 0.998).abs() < 1e-12, "{}", r.average);
    }

    #[test]
    fn byte_mode_counts_bytes_in_mean_packets() {
        let mut r = red(false, false);
        r.params.byte_mode = true;
        // 2,500 bytes since the last drop at a 1000-byte mean: count 2 (whole packets, as
        // ns-2's count_bytes / mean_pktsize); p_a = 0.05 / (1 - 0.1) x 500 / 1000.
        r.count = 3;
        r.count_bytes = 2_500;
        assert!((r.spaced_probability(0.05, 500) - 0.05 / 0.9 * 0.5).abs() < 1e-12);
    }

    #[test]
    fn probability_curve() {
        let mut r = red(true, false);
        for (avg, expected, forced) in
            [(4.0, 0.0, false), (10.0, 0.05, false), (15.0, 0.1, false), (22.5, 0.55, false), (30.0, 1.0, true)]
        {
            r.average = avg;
            let (p, f) = r.base_probability();
            assert!((p - expected).abs() < 1e-12 && f == forced, "avg {avg}: {p} {f}");
        }
        let mut plain = red(false, false);
        plain.average = 15.0;
        assert_eq!(plain.base_probability(), (1.0, true), "without gentle, max_th forces");
    }

    #[test]
    fn spacing_by_count() {
        let mut r = red(false, false);
        r.count = 5;
        // p_b = 0.05, count 5: 0.05 / (1 - 0.25) = 0.0667.
        assert!((r.spaced_probability(0.05, 1000) - 0.05 / 0.75).abs() < 1e-12);
        let mut w = red(false, true);
        w.count = 5;
        assert_eq!(w.spaced_probability(0.05, 1000), 0.0, "wait: nothing before 1 / p_b packets");
        w.count = 30;
        // count p_b = 1.5: 0.05 / 0.5 = 0.1.
        assert!((w.spaced_probability(0.05, 1000) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn average_follows_the_ewma_and_decays_when_idle() {
        let mut r = red(true, true);
        let mut pool = PacketPool::default();
        let mut evicted = Vec::new();
        for _ in 0..3 {
            let p = pool.insert(Packet { wire_bytes: 1000, ..Packet::default() });
            r.enqueue(p, &mut pool, 0, &mut evicted);
        }
        // q before each arrival: 0, 1, 2 -> avg = 0.002 x 1 x 0.998 + 0.002 x 2 = 0.005996.
        assert!((r.average - 0.005_996).abs() < 1e-12, "{}", r.average);
        let mut dropped = Vec::new();
        for _ in 0..3 {
            r.dequeue(&mut pool, 1_000_000, &mut dropped);
        }
        // One second idle at 1000 packets per second: avg x 0.998^1000 before the next update.
        let before = r.average;
        let p = pool.insert(Packet { wire_bytes: 1000, ..Packet::default() });
        r.enqueue(p, &mut pool, 1_001_000_000, &mut evicted);
        assert!((r.average - before * 0.998f64.powf(1000.0) * 0.998).abs() < 1e-12);
    }

    #[test]
    fn with_ecn_it_marks_below_max_th_and_drops_at_or_above_it() {
        let mut r = red(false, false);
        let mut pool = PacketPool::default();
        let mut evicted = Vec::new();
        // Two packets waiting, so that early action is possible (ns-2 takes none at one or none).
        r.params.w_q = 0.0;
        fill(&mut r, &mut pool, 2);
        // Hold the average in the probabilistic region (w_q = 0 freezes it) with a count that
        // makes p_a = 1: every ECN-capable arrival is marked, none is dropped.
        r.average = 14.9;
        for _ in 0..20 {
            r.count = 1_000;
            let p = pool.insert(Packet { wire_bytes: 1000, ecn: Ecn::Ect, ..Packet::default() });
            assert_eq!(r.enqueue(p, &mut pool, 0, &mut evicted), EnqueueOutcome::QueuedMarked);
        }
        // A packet that is not ECN-capable is dropped in the same region.
        r.count = 1_000;
        let plain = pool.insert(Packet { wire_bytes: 1000, ..Packet::default() });
        assert_eq!(r.enqueue(plain, &mut pool, 0, &mut evicted), EnqueueOutcome::Dropped);
        // At max_th (no gentle) the drop is forced, ECN or not.
        r.average = 15.0;
        let ect = pool.insert(Packet { wire_bytes: 1000, ecn: Ecn::Ect, ..Packet::default() });
        assert_eq!(r.enqueue(ect, &mut pool, 0, &mut evicted), EnqueueOutcome::Dropped);
        assert_eq!(r.forced_drops, 1);
    }
}
