//! A generator of 5G-like delivery traces (mahimahi's format, see `delivery_trace`): the capacity a
//! non-standalone 5G user sees, an LTE anchor carrier that is always there plus a wide NR carrier
//! that carrier aggregation adds and removes as the user moves (the situation the ROCCET paper
//! describes, Sec. III, after Prause and Akselrod, VTC2023-Fall), each with slow fading.
//!
//! The model, per 1 ms slot (the LTE TTI and mahimahi's resolution):
//! - each carrier's rate is its mean rate times a log-normal fading factor; the factor's dB value is
//!   a first-order autoregressive Gaussian process with standard deviation `fading_std_db` and
//!   correlation time `fading_coherence`, capped at `PEAK_FACTOR` (a carrier cannot beat its peak
//!   modulation and coding rate) and scaled so that the capped factor's mean is 1;
//! - the NR carrier is on or off for exponentially distributed times with means `nr_on_mean` and
//!   `nr_off_mean` (`nr_off_mean = 0`: always on, a stationary user);
//! - the bytes the carriers offer accumulate, and every 1500 of them become one delivery
//!   opportunity at the end of the slot.
//!
//! Deep RLC buffers, HARQ retransmission delay and rare residual losses are the link direction's
//! `buffer`, `jitter = { distribution = "harq" }` and `loss`, set beside the trace
//! (docs/traces.md).

use rand_distr::{Distribution, Exp, StandardNormal};

use crate::net::delivery_trace::OPPORTUNITY_BYTES;
use crate::sim::SimRng;
use crate::time::{SimDuration, NANOS_PER_MILLI, NANOS_PER_SEC};

/// The most a carrier's rate rises above its mean: a good channel is limited by the highest
/// modulation and coding scheme.
pub const PEAK_FACTOR: f64 = 2.0;

/// The generator's parameters in simulator units (bits per second, nanoseconds).
#[derive(Clone, Debug, PartialEq)]
pub struct CellularTraceParams {
    /// The trace's length before it repeats.
    pub length: SimDuration,
    /// Mean rate of the LTE anchor carrier (always connected).
    pub lte_rate_bps: u64,
    /// Mean rate of the NR carrier while it is aggregated.
    pub nr_rate_bps: u64,
    pub nr_on_mean: SimDuration,
    /// 0: the NR carrier never drops out.
    pub nr_off_mean: SimDuration,
    pub fading_std_db: f64,
    pub fading_coherence: SimDuration,
}

impl Default for CellularTraceParams {
    /// Defaults: a 20 MHz LTE anchor (about 40 Mbit/s for one user) and a 100 MHz NR carrier
    /// (about 200 Mbit/s), the ">= 90 MHz" situation of the ROCCET paper's mobile runs; NR present
    /// 8 s and absent 4 s on average on a bike ride; 4 dB shadowing with 200 ms correlation. These
    /// are typical values chosen for a plausible shape, not measured ones (docs/traces.md).
    fn default() -> Self {
        Self {
            length: 60 * NANOS_PER_SEC,
            lte_rate_bps: 40_000_000,
            nr_rate_bps: 200_000_000,
            nr_on_mean: 8 * NANOS_PER_SEC,
            nr_off_mean: 4 * NANOS_PER_SEC,
            fading_std_db: 4.0,
            fading_coherence: 200 * NANOS_PER_MILLI,
        }
    }
}

/// Log-normal fading with mean 1: an AR(1) process in dB.
struct Fading {
    db: f64,
    correlation: f64,
    std_db: f64,
    mean_correction: f64,
}

impl Fading {
    fn new(params: &CellularTraceParams, rng: &mut SimRng) -> Self {
        let std_db = params.fading_std_db;
        let correlation = if params.fading_coherence == 0 {
            0.0
        } else {
            (-(NANOS_PER_MILLI as f64) / params.fading_coherence as f64).exp()
        };
        let start: f64 = StandardNormal.sample(rng);
        Self { db: start * std_db, correlation, std_db, mean_correction: capped_mean_scale(std_db) }
    }

    fn next_factor(&mut self, rng: &mut SimRng) -> f64 {
        let noise: f64 = StandardNormal.sample(rng);
        self.db = self.correlation * self.db + (1.0 - self.correlation * self.correlation).sqrt() * self.std_db * noise;
        (10f64.powf(self.db / 10.0) / self.mean_correction).min(PEAK_FACTOR)
    }
}

/// The scale m with E[min(10^(X/10) / m, PEAK_FACTOR)] = 1 for X ~ N(0, std_db^2): the capped
/// mean by numerical integration over the normal density, m by bisection (the capped mean falls
/// as m grows).
fn capped_mean_scale(std_db: f64) -> f64 {
    let capped_mean = |scale: f64| -> f64 {
        let (steps, half_width) = (4000, 8.0);
        let dz = 2.0 * half_width / steps as f64;
        (0..=steps)
            .map(|i| {
                let z = -half_width + i as f64 * dz;
                let density = (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
                (10f64.powf(z * std_db / 10.0) / scale).min(PEAK_FACTOR) * density * dz
            })
            .sum()
    };
    let (mut low, mut high): (f64, f64) = (1e-3, 1e3);
    for _ in 0..60 {
        let middle = (low * high).sqrt();
        if capped_mean(middle) > 1.0 {
            low = middle;
        } else {
            high = middle;
        }
    }
    (low * high).sqrt()
}

/// Delivery opportunity times (nanoseconds, whole milliseconds, non-decreasing) for one period.
pub fn generate(params: &CellularTraceParams, rng: &mut SimRng) -> Vec<SimDuration> {
    let exponential = Exp::new(1.0).expect("rate 1 is a valid exponential");
    let draw = |mean: SimDuration, rng: &mut SimRng| (exponential.sample(rng) * mean as f64) as SimDuration;
    let mut lte = Fading::new(params, rng);
    let mut nr = Fading::new(params, rng);
    let mut nr_on = true;
    let mut nr_toggle_at = draw(params.nr_on_mean, rng);
    let slots = (params.length / NANOS_PER_MILLI).max(1);
    let mut credit_bytes = 0.0;
    let mut times = Vec::new();
    for slot in 0..slots {
        let slot_end = (slot + 1) * NANOS_PER_MILLI;
        while params.nr_off_mean > 0 && slot_end > nr_toggle_at {
            nr_on = !nr_on;
            nr_toggle_at += draw(if nr_on { params.nr_on_mean } else { params.nr_off_mean }, rng).max(NANOS_PER_MILLI);
        }
        let lte_factor = lte.next_factor(rng);
        let nr_factor = nr.next_factor(rng);
        let mut rate = params.lte_rate_bps as f64 * lte_factor;
        if nr_on {
            rate += params.nr_rate_bps as f64 * nr_factor;
        }
        credit_bytes += rate / 8.0 / 1000.0;
        while credit_bytes >= OPPORTUNITY_BYTES as f64 {
            credit_bytes -= OPPORTUNITY_BYTES as f64;
            times.push(slot_end);
        }
    }
    if times.is_empty() {
        // A trace needs one opportunity to have a period: the whole length, nearly unusable.
        times.push(slots * NANOS_PER_MILLI);
    }
    times
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{rng_stream, StreamKind};

    fn mean_rate(times: &[SimDuration]) -> f64 {
        times.len() as f64 * 1500.0 * 8.0 / (*times.last().unwrap() as f64 / 1e9)
    }

    #[test]
    fn an_always_on_trace_without_fading_is_the_sum_of_the_carriers() {
        let params = CellularTraceParams {
            length: 10 * NANOS_PER_SEC,
            lte_rate_bps: 12_000_000,
            nr_rate_bps: 24_000_000,
            nr_off_mean: 0,
            fading_std_db: 0.0,
            ..CellularTraceParams::default()
        };
        let times = generate(&params, &mut rng_stream(1, 0, StreamKind::Channel, 0));
        // 36 Mbit/s is exactly three 1500-byte opportunities per millisecond.
        assert_eq!(times.len(), 30_000);
        assert_eq!(&times[..4], &[NANOS_PER_MILLI, NANOS_PER_MILLI, NANOS_PER_MILLI, 2 * NANOS_PER_MILLI]);
    }

    #[test]
    fn the_mean_rate_follows_the_carriers_and_the_nr_duty_cycle() {
        let params = CellularTraceParams { length: 600 * NANOS_PER_SEC, ..CellularTraceParams::default() };
        let times = generate(&params, &mut rng_stream(7, 0, StreamKind::Channel, 0));
        // Expected: 40 + 200 x 8 / (8 + 4) = 173 Mbit/s; over 600 s about 50 NR periods, so the
        // duty cycle is within about 10%.
        let rate = mean_rate(&times);
        assert!((150e6..200e6).contains(&rate), "{rate}");
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
        assert!(times.iter().all(|t| t % NANOS_PER_MILLI == 0));
    }

    #[test]
    fn the_capped_fading_factor_has_mean_one() {
        assert!((capped_mean_scale(0.0) - 1.0).abs() < 1e-6);
        // 4 dB: the uncapped factor's mean is exp((4 ln10 / 10)^2 / 2) = 1.53; the cap at 2
        // takes the top of the distribution off, leaving about 1.19.
        let scale = capped_mean_scale(4.0);
        assert!((1.1..1.3).contains(&scale), "{scale}");
    }

    #[test]
    fn the_same_seed_gives_the_same_trace_and_another_seed_another() {
        let params = CellularTraceParams { length: 5 * NANOS_PER_SEC, ..CellularTraceParams::default() };
        let a = generate(&params, &mut rng_stream(3, 0, StreamKind::Channel, 0));
        let b = generate(&params, &mut rng_stream(3, 0, StreamKind::Channel, 0));
        let c = generate(&params, &mut rng_stream(3, 1, StreamKind::Channel, 0));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
