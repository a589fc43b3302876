//! An application's activity over time: bulk (always on), finite (the sender stops at the stream's
//! end), rate-limited (a segment every MSS / rate) and on/off (alternating periods of constant or
//! exponentially distributed length).

use rand_distr::{Distribution, Exp};

use crate::sim::SimRng;
use crate::time::{SimDuration, SimTime};

/// How an application offers data over time.
pub struct Application {
    pub start: SimTime,
    pub stop: Option<SimTime>,
    /// Bits per second the application writes at; None: as fast as the transport takes it.
    pub rate: Option<u64>,
    pub on_off: Option<OnOff>,
    pub active: bool,
    /// A rate-limited write (or UDP send) chain is scheduled.
    pub write_pending: bool,
    /// The flow's own random stream (start spread, on/off periods).
    pub rng: SimRng,
}

/// Mean lengths of the on and off periods.
pub struct OnOff {
    pub on: SimDuration,
    pub off: SimDuration,
    /// Periods drawn from exponential distributions with these means, instead of constant.
    pub exponential: bool,
    /// Data written but not sent stays in the send buffer across an off period (ns-3's OnOff
    /// application over TCP) instead of being withdrawn.
    pub keep_unsent: bool,
}

impl Application {
    /// An application that has not started yet.
    pub fn new(start: SimTime, stop: Option<SimTime>, rate: Option<u64>, on_off: Option<OnOff>, rng: SimRng) -> Self {
        Self { start, stop, rate, on_off, active: false, write_pending: false, rng }
    }

    fn period(&mut self, mean: SimDuration, exponential: bool) -> SimDuration {
        if exponential {
            let exp = Exp::new(1.0).expect("rate 1 is a valid exponential");
            ((exp.sample(&mut self.rng) * mean as f64).round() as SimDuration).max(1)
        } else {
            mean
        }
    }

    /// The length of the next on period (None: not an on/off application).
    pub fn next_on_period(&mut self) -> Option<SimDuration> {
        let (on, exponential) = self.on_off.as_ref().map(|o| (o.on, o.exponential))?;
        Some(self.period(on, exponential))
    }

    /// The length of the next off period (None: not an on/off application).
    pub fn next_off_period(&mut self) -> Option<SimDuration> {
        let (off, exponential) = self.on_off.as_ref().map(|o| (o.off, o.exponential))?;
        Some(self.period(off, exponential))
    }

    /// Data written but not yet sent stays when an off period begins.
    pub fn keeps_unsent(&self) -> bool {
        self.on_off.as_ref().is_some_and(|o| o.keep_unsent)
    }

    /// The application has reached its stop time.
    pub fn stopped(&self, now: SimTime) -> bool {
        self.stop.is_some_and(|stop| now >= stop)
    }
}
