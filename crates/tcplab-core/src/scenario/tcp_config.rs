//! The `[tcp]` table converted into the sender's and receiver's `TcpConfig`, with the range checks
//! that need every default in place (a per-flow `tcp` table is checked after merging it over the
//! scenario's).

use super::error::ScenarioError;
use super::model::TcpSpec;
use crate::tcp::TcpConfig;
use crate::units::Duration;

impl TcpSpec {
    /// Checks a fully resolved spec and converts it to the sender's config.
    pub fn to_config(&self, key: &str) -> Result<TcpConfig, ScenarioError> {
        let full = self.over(&TcpSpec::defaults());
        let get = |v: Option<Duration>| v.expect("defaults fill every key").nanos();
        let mss = full.mss.expect("defaults fill every key").0;
        if !(64..=65_000).contains(&mss) {
            return Err(ScenarioError::new(format!("{key}.mss"), format!("{mss}B is outside 64B to 65000B")));
        }
        let header = full.header.expect("defaults fill every key").0;
        if header > 1000 {
            return Err(ScenarioError::new(format!("{key}.header"), format!("{header}B is outside 0B to 1000B")));
        }
        let initial_window = full.initial_window.expect("defaults fill every key");
        if !(1..=1000).contains(&initial_window) {
            return Err(ScenarioError::new(
                format!("{key}.initial_window"),
                format!("{initial_window} is outside 1 to 1000 segments"),
            ));
        }
        let duplicate_threshold = full.duplicate_threshold.expect("defaults fill every key");
        if !(1..=100).contains(&duplicate_threshold) {
            return Err(ScenarioError::new(
                format!("{key}.duplicate_threshold"),
                format!("{duplicate_threshold} is outside 1 to 100"),
            ));
        }
        let delayed_ack_count = full.delayed_ack_count.expect("defaults fill every key");
        if !(1..=64).contains(&delayed_ack_count) {
            return Err(ScenarioError::new(
                format!("{key}.delayed_ack_count"),
                format!("{delayed_ack_count} is outside 1 to 64 segments"),
            ));
        }
        let (min_rto, initial_rto, max_rto) = (get(full.min_rto), get(full.initial_rto), get(full.max_rto));
        if min_rto == 0 {
            return Err(ScenarioError::new(format!("{key}.min_rto"), "must be more than 0s"));
        }
        if max_rto < min_rto {
            return Err(ScenarioError::new(
                format!("{key}.max_rto"),
                format!("{} is below min_rto {}", Duration(max_rto), Duration(min_rto)),
            ));
        }
        if initial_rto == 0 {
            return Err(ScenarioError::new(format!("{key}.initial_rto"), "must be more than 0s"));
        }
        if initial_rto > max_rto {
            return Err(ScenarioError::new(
                format!("{key}.initial_rto"),
                format!("{} is above max_rto {}", Duration(initial_rto), Duration(max_rto)),
            ));
        }
        let receive_window = full.receive_window.expect("defaults fill every key").0;
        if receive_window < mss {
            return Err(ScenarioError::new(
                format!("{key}.receive_window"),
                format!("{receive_window}B is smaller than one segment ({mss}B)"),
            ));
        }
        Ok(TcpConfig {
            mss,
            header_bytes: header,
            initial_window_segments: initial_window,
            recovery: full.recovery.expect("defaults fill every key"),
            limited_transmit: full.limited_transmit.expect("defaults fill every key"),
            duplicate_threshold,
            min_rto,
            initial_rto,
            max_rto,
            clock_granularity: get(full.clock_granularity),
            delayed_ack: full.delayed_ack.expect("defaults fill every key"),
            delayed_ack_count,
            delayed_ack_timeout: get(full.delayed_ack_timeout),
            ecn: full.ecn.expect("defaults fill every key"),
            receive_window,
            pacing: full.pacing.expect("defaults fill every key"),
            ack_delay: full.ack_delay.expect("defaults fill every key"),
            ack_delay_max: full.ack_delay_max.expect("defaults fill every key").nanos(),
        })
    }
}
