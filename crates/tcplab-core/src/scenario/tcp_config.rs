//! The `[tcp]` table converted into the sender's and receiver's `TcpConfig`, with the range checks
//! that need every default in place (a per-flow `tcp` table is checked after merging it over the
//! scenario's).

use super::error::ScenarioError;
use super::model::TcpSpec;
use crate::tcp::{EcnEcho, TcpConfig};
use crate::tcp::{RecoveryMode, RtoFormula, RtoRestart, RttSampling};
use crate::units::Duration;

/// The largest window TCP can advertise: 65,535 bytes shifted by the largest window scale, 14
/// (RFC 7323, section 2.3). Packets carry the window in 32 bits on that account.
const LARGEST_WINDOW_BYTES: u64 = 65_535 << 14;

impl TcpSpec {
    /// Checks a fully resolved spec and converts it to the sender's config.
    pub fn to_config(&self, key: &str) -> Result<TcpConfig, ScenarioError> {
        let full = self.with_profile_defaults();
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
        let (duplicate_threshold, delayed_ack_count) = check_counts(&full, key)?;
        let (min_rto, initial_rto, max_rto) = check_timers(&full, key)?;
        check_ns2_options(&full, key)?;
        check_recovery_options(&full, key)?;
        let recovery = full.recovery.expect("defaults fill every key");
        let rack = full.rack.expect("defaults fill every key");
        let tail_loss_probe = full.tail_loss_probe.expect("defaults fill every key");
        let receive_window = check_receive_window(&full, mss, key)?;
        let send_buffer = check_send_buffer(&full, mss, key)?;
        Ok(TcpConfig {
            mss,
            header_bytes: header,
            initial_window_segments: initial_window,
            initial_ssthresh_segments: full.initial_ssthresh,
            cwnd_clamp_segments: full.cwnd_clamp,
            recovery,
            rack,
            tail_loss_probe,
            prr: full.prr.expect("defaults fill every key"),
            timestamps: full.timestamps.expect("defaults fill every key"),
            frto: full.frto.expect("defaults fill every key"),
            undo: full.undo.expect("defaults fill every key"),
            rto_formula: full.rto_formula.expect("defaults fill every key"),
            rtt_sampling: full.rtt_sampling.expect("defaults fill every key"),
            algorithm_rtt: full.algorithm_rtt.expect("defaults fill every key"),
            reduction_base: full.reduction_base.expect("defaults fill every key"),
            ecn_response: full.ecn_response.expect("defaults fill every key"),
            syn: full.syn.expect("defaults fill every key"),
            ect_retransmissions: full.ect_retransmissions.expect("defaults fill every key"),
            rto_restart: full.rto_restart.expect("defaults fill every key"),
            quick_ack_segments: full.quick_acks.expect("defaults fill every key"),
            ack_policy: full.ack_policy.expect("defaults fill every key"),
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
            ecn_echo: EcnEcho::Rfc3168,
            receive_window,
            send_buffer,
            pacing: full.pacing.expect("defaults fill every key"),
            gso: full.gso.expect("defaults fill every key"),
            ack_delay: full.ack_delay.expect("defaults fill every key"),
            ack_delay_max: full.ack_delay_max.expect("defaults fill every key").nanos(),
        })
    }
}

/// The duplicate-ACK threshold (1 to 100) and the segments per delayed ACK (1 to 64).
fn check_counts(full: &TcpSpec, key: &str) -> Result<(u32, u32), ScenarioError> {
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
    Ok((duplicate_threshold, delayed_ack_count))
}

/// The receive window in bytes: at least one segment, at most the largest window TCP can
/// advertise.
fn check_receive_window(full: &TcpSpec, mss: u64, key: &str) -> Result<u64, ScenarioError> {
    let receive_window = full.receive_window.expect("defaults fill every key").0;
    let why = if receive_window < mss {
        format!("{receive_window}B is smaller than one segment ({mss}B)")
    } else if receive_window > LARGEST_WINDOW_BYTES {
        format!("{receive_window}B is above TCP's largest window, {LARGEST_WINDOW_BYTES}B (65535 << 14, RFC 7323)")
    } else {
        return Ok(receive_window);
    };
    Err(ScenarioError::new(format!("{key}.receive_window"), why))
}

/// The send buffer in bytes, if bounded: at least one segment.
fn check_send_buffer(full: &TcpSpec, mss: u64, key: &str) -> Result<Option<u64>, ScenarioError> {
    match full.send_buffer.map(|b| b.0) {
        Some(bytes) if bytes < mss => Err(ScenarioError::new(
            format!("{key}.send_buffer"),
            format!("{bytes}B is smaller than one segment ({mss}B): no segment could ever be sent"),
        )),
        bounded => Ok(bounded),
    }
}

/// min RTO, initial RTO and max RTO in nanoseconds, checked against each other.
fn check_timers(full: &TcpSpec, key: &str) -> Result<(u64, u64, u64), ScenarioError> {
    let get = |v: Option<Duration>| v.expect("defaults fill every key").nanos();
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
    Ok((min_rto, initial_rto, max_rto))
}

/// The options whose meaning depends on others: ns-2's estimator counts in ticks of
/// `clock_granularity`, and one timed segment per round trip is what a sender without
/// timestamps does (with timestamps ns-2 samples every ACK).
fn check_ns2_options(full: &TcpSpec, key: &str) -> Result<(), ScenarioError> {
    let granularity = full.clock_granularity.expect("defaults fill every key").nanos();
    if full.rto_formula == Some(RtoFormula::Ns2) && granularity == 0 {
        return Err(ScenarioError::new(
            format!("{key}.clock_granularity"),
            "0s: rto_formula = \"ns2\" counts round-trip times in ticks of clock_granularity (ns-2's tcpTick_), \
             which must be more than 0s",
        ));
    }
    if full.rtt_sampling == Some(RttSampling::TimedSegment) && full.timestamps == Some(true) {
        return Err(ScenarioError::new(
            format!("{key}.rtt_sampling"),
            "\"timed_segment\" times one segment per round trip, which a sender with timestamps does not do: \
             set rtt_sampling = \"every_ack\" or timestamps = false",
        ));
    }
    Ok(())
}

/// The loss-recovery options' ranges, and RACK-TLP only with SACK.
fn check_recovery_options(full: &TcpSpec, key: &str) -> Result<(), ScenarioError> {
    if let Some(ssthresh) = full.initial_ssthresh {
        if !(2..=1_000_000_000).contains(&ssthresh) {
            return Err(ScenarioError::new(
                format!("{key}.initial_ssthresh"),
                format!("{ssthresh} is outside 2 to 1000000000 segments (leave it unset for unbounded)"),
            ));
        }
    }
    if let Some(clamp) = full.cwnd_clamp {
        if !(2..=1_000_000_000).contains(&clamp) {
            return Err(ScenarioError::new(
                format!("{key}.cwnd_clamp"),
                format!("{clamp} is outside 2 to 1000000000 segments (leave it unset for no clamp)"),
            ));
        }
    }
    let quick_acks = full.quick_acks.expect("defaults fill every key");
    if quick_acks > 1000 {
        return Err(ScenarioError::new(
            format!("{key}.quick_acks"),
            format!("{quick_acks} is outside 0 to 1000 segments"),
        ));
    }
    let recovery = full.recovery.expect("defaults fill every key");
    let rack = full.rack.expect("defaults fill every key");
    let tail_loss_probe = full.tail_loss_probe.expect("defaults fill every key");
    if recovery != RecoveryMode::Sack && rack {
        return Err(ScenarioError::new(
            format!("{key}.rack"),
            "RACK needs SACK: set recovery = \"sack\" or leave rack unset",
        ));
    }
    if full.rto_restart == Some(RtoRestart::EveryAck) && !(recovery == RecoveryMode::Sack && rack) {
        // Duplicate ACKs keep postponing the timer, so a lost retransmission that nothing else
        // detects would stall the flow for good (ns-2's Linux agent finds them on its scoreboard).
        return Err(ScenarioError::new(
            format!("{key}.rto_restart"),
            "\"every_ack\" needs lost retransmissions found without the timer: set recovery = \"sack\" and rack = true",
        ));
    }
    if recovery != RecoveryMode::Sack && tail_loss_probe {
        return Err(ScenarioError::new(
            format!("{key}.tail_loss_probe"),
            "tail loss probes need SACK: set recovery = \"sack\" or leave tail_loss_probe unset",
        ));
    }
    Ok(())
}
