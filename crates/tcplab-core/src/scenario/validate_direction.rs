//! Validation of one direction of a link: its loss model, jitter, delivery trace, outages and
//! rate and delay schedules. Errors name the key, the value and what is allowed.

use super::error::ScenarioError;
use super::model::{
    CellularTraceSpec, DirectionSpec, HarqUnit, JitterKind, JitterSpec, LossModelKind, LossSpec, TraceSpec,
};
use crate::net::delivery_trace::read_mahimahi;

/// Loss, jitter, outages and schedules of one direction of a link.
pub(super) fn validate_direction(key: &str, spec: &DirectionSpec) -> Result<(), ScenarioError> {
    if let Some(loss) = &spec.loss {
        validate_loss(&format!("{key}.loss"), loss)?;
    }
    if let Some(jitter) = &spec.jitter {
        validate_jitter(&format!("{key}.jitter"), jitter)?;
    }
    if let Some(trace) = &spec.trace {
        validate_trace(&format!("{key}.trace"), trace, spec)?;
    }
    for (i, outage) in spec.outages.iter().enumerate() {
        if outage.duration.nanos() == 0 {
            return Err(ScenarioError::new(format!("{key}.outages[{i}].duration"), "must be more than 0s"));
        }
    }
    for (i, step) in spec.rate_schedule.iter().enumerate().skip(1) {
        if step.at <= spec.rate_schedule[i - 1].at {
            return Err(ScenarioError::new(
                format!("{key}.rate_schedule[{i}].at"),
                "rate steps must be in increasing time order",
            ));
        }
    }
    for (i, step) in spec.delay_schedule.iter().enumerate().skip(1) {
        if step.at <= spec.delay_schedule[i - 1].at {
            return Err(ScenarioError::new(
                format!("{key}.delay_schedule[{i}].at"),
                "delay steps must be in increasing time order",
            ));
        }
    }
    Ok(())
}

fn validate_loss(key: &str, loss: &LossSpec) -> Result<(), ScenarioError> {
    match loss.model {
        LossModelKind::Bernoulli => {
            check_probability(format!("{key}.p"), loss.p, true)?;
            for (field, value) in [
                ("p_good_to_bad", loss.p_good_to_bad),
                ("p_bad_to_good", loss.p_bad_to_good),
                ("loss_in_good", loss.loss_in_good),
                ("loss_in_bad", loss.loss_in_bad),
            ] {
                if value.is_some() {
                    return Err(ScenarioError::new(
                        format!("{key}.{field}"),
                        "only applies to model = \"gilbert_elliott\"",
                    ));
                }
            }
        }
        LossModelKind::GilbertElliott => {
            if loss.p.is_some() {
                return Err(ScenarioError::new(format!("{key}.p"), "only applies to model = \"bernoulli\""));
            }
            check_probability(format!("{key}.p_good_to_bad"), loss.p_good_to_bad, true)?;
            check_probability(format!("{key}.p_bad_to_good"), loss.p_bad_to_good, true)?;
            check_probability(format!("{key}.loss_in_good"), loss.loss_in_good, false)?;
            check_probability(format!("{key}.loss_in_bad"), loss.loss_in_bad, false)?;
        }
    }
    Ok(())
}

fn validate_jitter(key: &str, jitter: &JitterSpec) -> Result<(), ScenarioError> {
    // The keys each distribution takes; any other key set is an error naming it.
    let (allowed, example): (&[&str], &str) = match jitter.distribution {
        JitterKind::Uniform => (&["max"], "max = \"2ms\""),
        JitterKind::Normal => (&["mean", "std"], "mean = \"1ms\", std = \"0.5ms\""),
        JitterKind::Drift => (&["min", "max", "interval"], "min = \"0.5ms\", max = \"1.5ms\""),
        JitterKind::Harq => (&["p", "retransmission_delay", "max_retransmissions", "per", "slot"], "p = 0.1"),
    };
    let given = [
        ("max", jitter.max.is_some()),
        ("mean", jitter.mean.is_some()),
        ("std", jitter.std.is_some()),
        ("min", jitter.min.is_some()),
        ("interval", jitter.interval.is_some()),
        ("p", jitter.p.is_some()),
        ("retransmission_delay", jitter.retransmission_delay.is_some()),
        ("max_retransmissions", jitter.max_retransmissions.is_some()),
        ("per", jitter.per.is_some()),
        ("slot", jitter.slot.is_some()),
    ];
    let name = format!("{:?}", jitter.distribution).to_lowercase();
    for (field, set) in given {
        if set && !allowed.contains(&field) {
            return Err(ScenarioError::new(
                format!("{key}.{field}"),
                format!("does not apply to distribution = \"{name}\", which takes {}", allowed.join(", ")),
            ));
        }
    }
    let required: &[(&str, bool)] = match jitter.distribution {
        JitterKind::Uniform => &[("max", jitter.max.is_some())],
        JitterKind::Normal => &[("mean", jitter.mean.is_some()), ("std", jitter.std.is_some())],
        JitterKind::Drift => &[("min", jitter.min.is_some()), ("max", jitter.max.is_some())],
        JitterKind::Harq => &[],
    };
    if let Some((field, _)) = required.iter().find(|(_, set)| !set) {
        return Err(ScenarioError::new(format!("{key}.{field}"), format!("{name} jitter needs {example}")));
    }
    match jitter.distribution {
        JitterKind::Drift => validate_drift(key, jitter),
        JitterKind::Harq => validate_harq(key, jitter),
        JitterKind::Uniform | JitterKind::Normal => Ok(()),
    }
}

fn validate_harq(key: &str, jitter: &JitterSpec) -> Result<(), ScenarioError> {
    check_probability(format!("{key}.p"), jitter.p, false)?;
    if jitter.p == Some(1.0) {
        return Err(ScenarioError::new(format!("{key}.p"), "1 would fail every attempt: allowed 0 to below 1"));
    }
    if jitter.max_retransmissions.is_some_and(|n| n > 32) {
        return Err(ScenarioError::new(format!("{key}.max_retransmissions"), "allowed 0 to 32"));
    }
    match (jitter.per, jitter.slot) {
        (Some(HarqUnit::Packet), Some(slot)) => Err(ScenarioError::new(
            format!("{key}.slot"),
            format!(
                "{slot} does not apply to per = \"packet\", which draws for each packet; \
                 leave slot out or use per = \"slot\""
            ),
        )),
        (_, Some(slot)) if slot.nanos() == 0 => {
            Err(ScenarioError::new(format!("{key}.slot"), format!("{slot} is not a slot length: allowed more than 0s")))
        }
        _ => Ok(()),
    }
}

/// A drifting delay must not change faster than time passes, or it would reorder packets.
fn validate_drift(key: &str, jitter: &JitterSpec) -> Result<(), ScenarioError> {
    let (min, max) = (jitter.min.expect("checked above"), jitter.max.expect("checked above"));
    if min > max {
        return Err(ScenarioError::new(format!("{key}.min"), format!("{min} is above max = {max}")));
    }
    if let Some(interval) = jitter.interval {
        if interval.nanos() < max.nanos() - min.nanos() || interval.nanos() == 0 {
            return Err(ScenarioError::new(
                format!("{key}.interval"),
                format!("{interval} is shorter than max - min, so the delay could fall faster than time passes and reorder packets; allowed at least {} and more than 0s", crate::units::Duration(max.nanos() - min.nanos())),
            ));
        }
    }
    if jitter.reorder {
        return Err(ScenarioError::new(format!("{key}.reorder"), "drift jitter never reorders; leave reorder out"));
    }
    Ok(())
}

/// A trace names a file or a generator, not both, and a file must be a mahimahi trace.
fn validate_trace(key: &str, trace: &TraceSpec, spec: &DirectionSpec) -> Result<(), ScenarioError> {
    match (&trace.file, &trace.cellular) {
        (Some(_), Some(_)) | (None, None) => return Err(ScenarioError::new(
            key,
            "give file = \"path\" (a mahimahi trace) or cellular = { ... } (a generated 5G-like trace), one of them",
        )),
        (Some(path), None) => {
            read_mahimahi(path).map_err(|e| ScenarioError::new(format!("{key}.file"), e))?;
        }
        (None, Some(cellular)) => validate_cellular(&format!("{key}.cellular"), cellular)?,
    }
    if !spec.rate_schedule.is_empty() {
        return Err(ScenarioError::new(
            key,
            "a trace sets the direction's capacity; it cannot be combined with rate_schedule",
        ));
    }
    Ok(())
}

/// The generator's parameters are in range (also used for `tcplab trace cellular`).
pub fn validate_cellular(key: &str, spec: &CellularTraceSpec) -> Result<(), ScenarioError> {
    if spec.length.is_some_and(|d| d.nanos() < crate::time::NANOS_PER_MILLI) {
        return Err(ScenarioError::new(format!("{key}.length"), "must be at least 1ms"));
    }
    if spec.nr_on_mean.is_some_and(|d| d.nanos() == 0) {
        return Err(ScenarioError::new(format!("{key}.nr_on_mean"), "must be more than 0s"));
    }
    if let Some(std) = spec.fading_std_db {
        if !(0.0..=20.0).contains(&std) {
            return Err(ScenarioError::new(format!("{key}.fading_std_db"), format!("{std} is outside 0 to 20 dB")));
        }
    }
    if spec.lte_rate.is_some_and(|r| r.bps() == 0) && spec.nr_rate.is_some_and(|r| r.bps() == 0) {
        return Err(ScenarioError::new(format!("{key}.lte_rate"), "the carriers together must offer more than 0bps"));
    }
    Ok(())
}

fn check_probability(key: String, value: Option<f64>, required: bool) -> Result<(), ScenarioError> {
    match value {
        None if required => Err(ScenarioError::new(key, "is required: a probability from 0 to 1")),
        None => Ok(()),
        Some(p) if !(0.0..=1.0).contains(&p) || p.is_nan() => {
            Err(ScenarioError::new(key, format!("{p} is not a probability: allowed 0 to 1")))
        }
        Some(_) => Ok(()),
    }
}
