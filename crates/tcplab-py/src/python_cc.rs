//! Congestion control algorithms written in Python (`tcplab.python_cc`), run by the simulator.
//!
//! [`PythonAlgorithms`] is the core's external algorithm source: it asks the Python module which
//! names it knows and to create instances. [`PythonAlgorithm`] implements the core's trait by
//! calling the instance's methods, taking the GIL for each call (the simulation itself runs
//! without it), and reads the outputs (`cwnd`, `ssthresh`, `pacing_rate`, `state`, `events`)
//! once after each call, so the sender's many reads of cwnd cost no Python at all.
//!
//! The trait's methods cannot fail; an exception or an unusable output is kept as the algorithm's
//! failure (with the simulated time and the method), the object is not called again, and the
//! binding raises it when the current slice of the run returns.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PyString};
use serde_json::Value;

use tcplab_core::cc::external::ExternalAlgorithms;
use tcplab_core::cc::{AckEvent, CongestionControl, CongestionEvent, CongestionKind, ConnectionInfo};
use tcplab_core::time::{SimTime, NANOS_PER_SEC};

/// Distinct state and event names a process may intern: the trait hands out `&'static str`, so
/// each distinct name is leaked once. An algorithm that invents names without end is refused.
const MAX_INTERNED_NAMES: usize = 10_000;

/// The fields of the core's `AckEvent`, as Python sees them (times in ns, sizes in bytes, rates in
/// bit/s).
#[pyclass(module = "tcplab._core", name = "AckEvent", frozen, get_all)]
struct PyAckEvent {
    now: u64,
    acked_bytes: u64,
    acked_segments: u32,
    rtt_sample: Option<u64>,
    srtt: u64,
    min_rtt: u64,
    one_way_delay: Option<u64>,
    bytes_in_flight_before: u64,
    bytes_in_flight: u64,
    in_recovery: bool,
    cwnd_limited: bool,
    app_limited: bool,
    snd_una_advanced: bool,
    delivery_rate: Option<u64>,
    delivery_rate_app_limited: bool,
    delivered: u64,
    prior_delivered: u64,
    newly_lost_segments: u32,
    tx_in_flight: u64,
    lost_since_sent: u64,
    ece: bool,
    snd_una: u64,
    snd_nxt: u64,
}

#[pymethods]
impl PyAckEvent {
    /// Grow only on in-order delivery, never in recovery (Linux `tcp_may_raise_cwnd`).
    #[getter]
    fn may_raise_cwnd(&self) -> bool {
        self.snd_una_advanced && !self.in_recovery
    }
}

impl From<&AckEvent> for PyAckEvent {
    fn from(a: &AckEvent) -> Self {
        Self {
            now: a.now,
            acked_bytes: a.acked_bytes,
            acked_segments: a.acked_segments,
            rtt_sample: a.rtt_sample,
            srtt: a.srtt,
            min_rtt: a.min_rtt,
            one_way_delay: a.one_way_delay,
            bytes_in_flight_before: a.bytes_in_flight_before,
            bytes_in_flight: a.bytes_in_flight,
            in_recovery: a.in_recovery,
            cwnd_limited: a.cwnd_limited,
            app_limited: a.app_limited,
            snd_una_advanced: a.snd_una_advanced,
            delivery_rate: a.delivery_rate,
            delivery_rate_app_limited: a.delivery_rate_app_limited,
            delivered: a.delivered,
            prior_delivered: a.prior_delivered,
            newly_lost_segments: a.newly_lost_segments,
            tx_in_flight: a.tx_in_flight,
            lost_since_sent: a.lost_since_sent,
            ece: a.ece,
            snd_una: a.snd_una,
            snd_nxt: a.snd_nxt,
        }
    }
}

/// The core's `CongestionEvent`; `kind` is "fast_retransmit", "timeout" or "ecn".
#[pyclass(module = "tcplab._core", name = "CongestionEvent", frozen, get_all)]
struct PyCongestionEvent {
    now: u64,
    kind: &'static str,
    bytes_in_flight: u64,
    snd_nxt: u64,
}

pub fn add_classes(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PyAckEvent>()?;
    module.add_class::<PyCongestionEvent>()
}

/// The core's source of algorithms named `python:package.module:Class` or registered in Python.
pub struct PythonAlgorithms;

fn python_cc(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("tcplab.python_cc")
}

impl ExternalAlgorithms for PythonAlgorithms {
    fn knows(&self, name: &str) -> bool {
        Python::attach(|py| python_cc(py)?.call_method1("_knows", (name,))?.extract::<bool>()).unwrap_or(false)
    }

    fn resolve(&self, name: &str) -> Result<(), String> {
        Python::attach(|py| python_cc(py)?.call_method1("_resolve", (name,)).map(drop))
            .map_err(|e| Python::attach(|py| describe(py, &e)))
    }

    fn create(&self, name: &str, params: &Value, info: ConnectionInfo) -> Result<Box<dyn CongestionControl>, String> {
        Python::attach(|py| {
            let params_json = if params.is_null() { String::new() } else { params.to_string() };
            let object = python_cc(py)
                .and_then(|m| {
                    m.call_method1("_create", (name, params_json, info.mss, info.initial_window_segments, info.seed))
                })
                .map_err(|e| describe(py, &e))?;
            let algorithm = PythonAlgorithm::new(&object, info.mss).map_err(|why| format!("{name}: {why}"))?;
            Ok(Box::new(algorithm) as Box<dyn CongestionControl>)
        })
    }

    fn name_form(&self) -> &'static str {
        "python:package.module:ClassName"
    }
}

/// What the simulator reads from a Python algorithm after each call.
struct Outputs {
    cwnd: u64,
    ssthresh: u64,
    pacing_rate: Option<u64>,
    state: &'static str,
    events: Vec<&'static str>,
}

/// One connection's Python algorithm behind the core's trait.
pub struct PythonAlgorithm {
    object: Py<PyAny>,
    mss: u64,
    outputs: Outputs,
    events: VecDeque<&'static str>,
    failure: Option<String>,
    /// The class defines these; otherwise they are not called (one call per packet is costly).
    calls_on_packet_sent: bool,
    calls_on_timeout_recovery_exit: bool,
}

impl PythonAlgorithm {
    fn new(object: &Bound<'_, PyAny>, mss: u64) -> Result<Self, String> {
        let py = object.py();
        let base = python_cc(py).and_then(|m| m.getattr("CongestionControl")).map_err(|e| describe(py, &e))?;
        let overrides = |method: &str| -> bool {
            let class = object.get_type();
            match (class.getattr(method), base.getattr(method)) {
                (Ok(own), Ok(inherited)) => !own.is(&inherited),
                _ => false,
            }
        };
        Ok(Self {
            outputs: read_outputs(object, mss)?,
            object: object.clone().unbind(),
            mss,
            events: VecDeque::new(),
            failure: None,
            calls_on_packet_sent: overrides("on_packet_sent"),
            calls_on_timeout_recovery_exit: overrides("on_timeout_recovery_exit"),
        })
    }

    /// Calls a method of the object, then reads its outputs; a failure stops further calls.
    fn call<A>(&mut self, now: SimTime, method: &str, args: impl FnOnce(Python<'_>) -> PyResult<A>)
    where
        A: for<'py> pyo3::call::PyCallArgs<'py>,
    {
        if self.failure.is_some() {
            return;
        }
        let outcome = Python::attach(|py| {
            let object = self.object.bind(py);
            let arguments = args(py).map_err(|e| describe(py, &e))?;
            object.call_method1(method, arguments).map_err(|e| describe(py, &e))?;
            read_outputs(object, self.mss)
        });
        match outcome {
            Ok(outputs) => {
                self.events.extend(outputs.events.iter().copied());
                self.outputs = outputs;
            }
            Err(why) => {
                self.failure = Some(format!("at {:.6} s, in {method}: {why}", now as f64 / NANOS_PER_SEC as f64));
            }
        }
    }
}

impl CongestionControl for PythonAlgorithm {
    fn on_ack(&mut self, ack: &AckEvent) {
        self.call(ack.now, "on_ack", |py| Ok((Py::new(py, PyAckEvent::from(ack))?,)));
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let kind = match event.kind {
            CongestionKind::FastRetransmit => "fast_retransmit",
            CongestionKind::Timeout => "timeout",
            CongestionKind::Ecn => "ecn",
        };
        let python_event =
            PyCongestionEvent { now: event.now, kind, bytes_in_flight: event.bytes_in_flight, snd_nxt: event.snd_nxt };
        self.call(event.now, "on_congestion_event", |py| Ok((Py::new(py, python_event)?,)));
    }

    fn on_recovery_exit(&mut self, now: SimTime) {
        self.call(now, "on_recovery_exit", |_| Ok((now,)));
    }

    fn undo_reduction(&mut self, now: SimTime, prior_cwnd: u64, prior_ssthresh: u64) {
        let ssthresh = (prior_ssthresh != u64::MAX).then_some(prior_ssthresh);
        self.call(now, "undo_reduction", |_| Ok((prior_cwnd, ssthresh)));
    }

    fn on_packet_sent(&mut self, now: SimTime, bytes: u64, bytes_in_flight_before: u64) {
        if self.calls_on_packet_sent {
            self.call(now, "on_packet_sent", |_| Ok((now, bytes, bytes_in_flight_before)));
        }
    }

    fn on_timeout_recovery_exit(&mut self, now: SimTime) {
        if self.calls_on_timeout_recovery_exit {
            self.call(now, "on_timeout_recovery_exit", |_| Ok((now,)));
        }
    }

    fn cwnd(&self) -> u64 {
        self.outputs.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.outputs.ssthresh
    }

    fn pacing_rate(&self) -> Option<u64> {
        self.outputs.pacing_rate
    }

    fn state_name(&self) -> &'static str {
        self.outputs.state
    }

    fn take_event(&mut self) -> Option<&'static str> {
        self.events.pop_front()
    }

    fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }
}

/// The object's outputs, checked: cwnd at least one segment, numbers finite and not negative.
fn read_outputs(object: &Bound<'_, PyAny>, mss: u64) -> Result<Outputs, String> {
    let py = object.py();
    let attribute = |name: &str| object.getattr(name).map_err(|e| describe(py, &e));
    let cwnd = whole_number(&attribute("cwnd")?, "cwnd", "bytes")?;
    if cwnd < mss {
        return Err(format!("cwnd = {cwnd} bytes is below one segment ({mss} bytes)"));
    }
    let ssthresh = attribute("ssthresh")?;
    let ssthresh = if ssthresh.is_none() { u64::MAX } else { whole_number(&ssthresh, "ssthresh", "bytes or None")? };
    let pacing = attribute("pacing_rate")?;
    let pacing_rate = if pacing.is_none() {
        None
    } else {
        Some(whole_number(&pacing, "pacing_rate", "bits per second or None")?.max(1))
    };
    let state = attribute("state")?;
    let state = state.cast::<PyString>().map_err(|_| format!("state must be a str, got {}", type_name(&state)))?;
    let state = intern(state.to_str().map_err(|e| describe(py, &e))?)?;
    let events_attribute = attribute("events")?;
    let list = events_attribute
        .cast::<PyList>()
        .map_err(|_| format!("events must be a list of str, got {}", type_name(&events_attribute)))?;
    let mut events = Vec::with_capacity(list.len());
    for item in list.iter() {
        let name = item.cast::<PyString>().map_err(|_| format!("events holds {}, not a str", type_name(&item)))?;
        events.push(intern(name.to_str().map_err(|e| describe(py, &e))?)?);
    }
    if !events.is_empty() {
        list.call_method0("clear").map_err(|e| describe(py, &e))?;
    }
    Ok(Outputs { cwnd, ssthresh, pacing_rate, state, events })
}

/// A non-negative finite number (an int, or a float rounded down); NaN, booleans and other types
/// are errors naming the attribute.
fn whole_number(value: &Bound<'_, PyAny>, name: &str, unit: &str) -> Result<u64, String> {
    if value.is_instance_of::<PyBool>() {
        return Err(format!("{name} must be a number of {unit}, got a bool"));
    }
    if let Ok(whole) = value.extract::<u64>() {
        return Ok(whole);
    }
    match value.extract::<f64>() {
        Ok(number) if number.is_finite() && number >= 0.0 => Ok(number as u64),
        Ok(number) => Err(format!("{name} = {number} is not a finite, non-negative number of {unit}")),
        Err(_) => Err(format!("{name} must be a number of {unit}, got {}", type_name(value))),
    }
}

fn intern(name: &str) -> Result<&'static str, String> {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut guard = NAMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let names = guard.get_or_insert_with(HashSet::new);
    if let Some(&known) = names.get(name) {
        return Ok(known);
    }
    if names.len() >= MAX_INTERNED_NAMES {
        return Err(format!("more than {MAX_INTERNED_NAMES} distinct state and event names; '{name}' is one too many"));
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(leaked);
    Ok(leaked)
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "an object".to_string())
}

/// "ExceptionType: message (file.py:line)", the innermost frame of the traceback.
fn describe(py: Python<'_>, error: &PyErr) -> String {
    let kind = error.get_type(py).name().map(|n| n.to_string()).unwrap_or_else(|_| "Exception".to_string());
    let message = error.value(py).to_string();
    let place = error.traceback(py).and_then(|traceback| {
        let frames = py.import("traceback").ok()?.call_method1("extract_tb", (traceback,)).ok()?;
        let last = frames.get_item(-1).ok()?;
        let file: String = last.getattr("filename").ok()?.extract().ok()?;
        let line: u64 = last.getattr("lineno").ok()?.extract().ok()?;
        let short = std::path::Path::new(&file).file_name().map_or(file.clone(), |f| f.to_string_lossy().into_owned());
        // tcplab's own checks (python_cc.py) explain themselves; a user's code gets its place.
        (short != "python_cc.py").then(|| format!(" ({short}:{line})"))
    });
    let text = if kind == "ValueError" { message } else { format!("{kind}: {message}") };
    format!("{text}{}", place.unwrap_or_default())
}
