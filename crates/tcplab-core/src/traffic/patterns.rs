//! Data-center traffic patterns over n hosts, numbered 0 .. n - 1: who sends to whom, and for
//! Poisson arrivals when and how much. `scenario/traffic.rs` turns them into flows; every draw
//! comes from the random stream it is given, so a pattern is fixed by the seed.

use rand::Rng;
use rand_distr::{Distribution, Exp1};

use super::workloads::Workload;
use crate::sim::{unit_f64, SimRng};
use crate::time::{SimDuration, SimTime, NANOS_PER_SEC};

/// A uniform integer in 0 .. n (n >= 1) by a multiply-shift of 32 random bits: off uniform by at
/// most n / 2^32, far below anything a pattern of at most millions of hosts could show.
fn below(rng: &mut SimRng, n: usize) -> usize {
    (((rng.next_u64() >> 32) * n as u64) >> 32) as usize
}

/// A uniformly random derangement of 0 .. n (n >= 2): `targets[i]` is the host i sends to, never
/// i itself, and every host is some host's target once. A Fisher-Yates shuffle is drawn until it
/// has no fixed point: a fraction 1/e of shuffles qualify, so it takes e draws on average, and
/// every derangement is equally likely (each is one of the equally likely shuffles).
pub fn derangement(n: usize, rng: &mut SimRng) -> Vec<usize> {
    assert!(n >= 2, "a derangement needs two hosts");
    let mut targets: Vec<usize> = (0..n).collect();
    loop {
        for i in (1..n).rev() {
            targets.swap(i, below(rng, i + 1));
        }
        if targets.iter().enumerate().all(|(i, &t)| i != t) {
            return targets;
        }
    }
}

/// `count` distinct hosts out of 0 .. n other than `excluded`, uniformly (a partial shuffle).
pub fn choose_except(n: usize, excluded: usize, count: usize, rng: &mut SimRng) -> Vec<usize> {
    let mut pool: Vec<usize> = (0..n).filter(|&h| h != excluded).collect();
    assert!(count <= pool.len(), "cannot choose {count} of {} hosts", pool.len());
    for i in 0..count {
        let j = i + below(rng, pool.len() - i);
        pool.swap(i, j);
    }
    pool.truncate(count);
    pool
}

/// One transfer of a Poisson arrival process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub at: SimTime,
    pub source: usize,
    pub destination: usize,
    pub bytes: u64,
}

/// Transfers arriving as a Poisson process in [start, end) among n hosts (n >= 2), each from a
/// uniformly random host to a uniformly random other host, of a size drawn from `workload`.
/// The process's rate makes the expected bytes offered per second `load` times the hosts'
/// combined link rate: rate = load * n * host_rate_bps / (8 * mean size) transfers per second.
pub fn poisson_arrivals(
    n: usize,
    host_rate_bps: u64,
    load: f64,
    workload: Workload,
    (start, end): (SimTime, SimTime),
    rng: &mut SimRng,
) -> Vec<Arrival> {
    let per_second = arrival_rate(n, host_rate_bps, load, workload);
    let mut arrivals = Vec::new();
    let mut at = start as f64;
    loop {
        let gap: f64 = Exp1.sample(rng);
        at += gap / per_second * NANOS_PER_SEC as f64;
        if at >= end as f64 {
            return arrivals;
        }
        let source = below(rng, n);
        let destination = (source + 1 + below(rng, n - 1)) % n;
        let bytes = workload.size_at(unit_f64(rng));
        arrivals.push(Arrival { at: at as SimTime, source, destination, bytes });
    }
}

/// Transfers per second that offer `load` of n hosts' links of `host_rate_bps` (see
/// `poisson_arrivals`).
pub fn arrival_rate(n: usize, host_rate_bps: u64, load: f64, workload: Workload) -> f64 {
    let (mean_bytes, _) = workload.moments();
    load * n as f64 * host_rate_bps as f64 / (8.0 * mean_bytes)
}

/// The expected number of transfers in a window of `length` (for refusing patterns that would
/// make too many flows before drawing them).
pub fn expected_arrivals(n: usize, host_rate_bps: u64, load: f64, workload: Workload, length: SimDuration) -> f64 {
    arrival_rate(n, host_rate_bps, load, workload) * length as f64 / NANOS_PER_SEC as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{rng_stream, StreamKind};

    fn rng(index: u64) -> SimRng {
        rng_stream(7, 0, StreamKind::Traffic, index)
    }

    #[test]
    fn a_derangement_sends_from_and_to_every_host_once_and_never_to_itself() {
        for n in [2usize, 3, 16, 128, 1024] {
            let targets = derangement(n, &mut rng(n as u64));
            let mut received = vec![0; n];
            for (source, &target) in targets.iter().enumerate() {
                assert_ne!(source, target);
                received[target] += 1;
            }
            assert!(received.iter().all(|&r| r == 1), "n = {n}");
        }
        // Uniform: over 3 hosts there are exactly two derangements, (1 2 0) and (2 0 1). In 4000
        // draws each is Binomial(4000, 1/2): mean 2000, standard deviation sqrt(4000 / 4) = 31.6;
        // five deviations (158) leave a chance below 1e-6 that a fair generator fails.
        let mut generator = rng(99);
        let first = (0..4000).filter(|_| derangement(3, &mut generator) == vec![1, 2, 0]).count();
        assert!((2000usize.abs_diff(first)) < 158, "{first}");
    }

    #[test]
    fn chosen_senders_are_distinct_and_never_the_receiver() {
        let chosen = choose_except(64, 5, 63, &mut rng(1));
        let mut sorted = chosen.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 63);
        assert!(!chosen.contains(&5));
        assert_eq!(choose_except(64, 5, 8, &mut rng(2)).len(), 8);
    }

    #[test]
    fn poisson_arrivals_offer_the_target_load_within_a_statistical_bound() {
        // 64 hosts of 10 Gbit/s at 40% load for 2 s offer 64e9 bytes on average. The bytes offered
        // are a compound Poisson sum: variance = (arrivals expected) * E[size^2]; a result more
        // than five standard deviations off has a chance below 1e-6 for a right generator.
        let (n, rate, load, seconds) = (64usize, 10_000_000_000u64, 0.4, 2u64);
        for workload in Workload::ALL {
            let arrivals = poisson_arrivals(n, rate, load, workload, (0, seconds * NANOS_PER_SEC), &mut rng(3));
            let offered: f64 = arrivals.iter().map(|a| a.bytes as f64).sum();
            let target = load * n as f64 * rate as f64 / 8.0 * seconds as f64;
            let expected = expected_arrivals(n, rate, load, workload, seconds * NANOS_PER_SEC);
            let (_, square) = workload.moments();
            let deviation = (expected * square).sqrt();
            assert!(
                (offered - target).abs() < 5.0 * deviation,
                "{}: {offered} vs {target} +- {deviation}",
                workload.name()
            );
            // The count of arrivals is Poisson: standard deviation sqrt(expected).
            assert!((arrivals.len() as f64 - expected).abs() < 5.0 * expected.sqrt());
            assert!(arrivals.windows(2).all(|w| w[0].at <= w[1].at));
            assert!(arrivals.iter().all(|a| a.source != a.destination && a.source < n && a.destination < n));
        }
    }
}
