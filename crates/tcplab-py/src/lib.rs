//! Python bindings for tcplab-core. Bindings only: scenarios arrive as JSON text (the Python layer
//! reads TOML and applies overrides), results leave as NumPy columns, and algorithms written in
//! Python run behind the core's trait (`python_cc.rs`); the Linux back-end's link emulator is driven
//! from Python (`link_emulator.rs`). No simulation logic here.

mod link_emulator;
mod python_cc;

use std::sync::{Mutex, MutexGuard};

use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use pyo3::PyTypeInfo;

use tcplab_core::results::{Column, Table};
use tcplab_core::{cc, Scenario, ScenarioError as CoreScenarioError};

create_exception!(_core, ScenarioError, PyValueError, "A scenario key has a value tcplab cannot use.");
create_exception!(
    _core,
    AlgorithmError,
    ScenarioError,
    "A congestion control algorithm written in Python raised an error or gave an unusable output."
);

/// An error whose `str()` is "key: message" and which carries `.key` and `.message` for callers
/// that want them apart.
fn keyed_error<E: PyTypeInfo>(py: Python<'_>, key: &str, message: &str, text: String) -> PyErr {
    let error = PyErr::new::<E, _>(text);
    let value = error.value(py);
    if value.setattr("key", key).and_then(|_| value.setattr("message", message)).is_err() {
        return PyRuntimeError::new_err(format!("could not describe the error for key {key}: {message}"));
    }
    error
}

fn scenario_error(py: Python<'_>, error: CoreScenarioError) -> PyErr {
    keyed_error::<ScenarioError>(py, &error.key, &error.message, error.to_string())
}

fn parse(py: Python<'_>, scenario_json: &str) -> PyResult<Scenario> {
    Scenario::from_json(scenario_json).map_err(|e| scenario_error(py, e))
}

/// The table's columns as NumPy arrays (numbers, which take the Rust vectors without a copy) and
/// lists of strings.
fn table_to_dict<'py>(py: Python<'py>, table: Table) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, column) in table.columns {
        match column {
            Column::U64(v) => dict.set_item(name, v.into_pyarray(py))?,
            Column::I64(v) => dict.set_item(name, v.into_pyarray(py))?,
            Column::F64(v) => dict.set_item(name, v.into_pyarray(py))?,
            Column::Bool(v) => dict.set_item(name, v.into_pyarray(py))?,
            Column::Str(v) => dict.set_item(name, PyList::new(py, v)?)?,
            Column::Labels { labels, codes } => {
                // One Python string per label, referenced by every row that has it.
                let labels: Vec<Bound<'py, PyString>> = labels.iter().map(|l| PyString::new(py, l)).collect();
                let rows = codes.iter().map(|&code| labels[code as usize].clone());
                dict.set_item(name, PyList::new(py, rows)?)?
            }
        }
    }
    Ok(dict)
}

/// A simulation built from a scenario (JSON text), advanced in steps so callers can show progress.
///
/// The mutex makes the object shareable between threads, as Python may drop it on any thread (a
/// Dask worker's profiler holds frames of its task threads and releases them on its event loop);
/// only one call uses the simulation at a time anyway.
#[pyclass(module = "tcplab._core")]
struct Simulation {
    inner: Mutex<tcplab_core::Simulation>,
}

impl Simulation {
    fn lock(&self) -> PyResult<MutexGuard<'_, tcplab_core::Simulation>> {
        self.inner.lock().map_err(|_| PyRuntimeError::new_err("the simulation failed in an earlier call"))
    }
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(py: Python<'_>, scenario_json: &str) -> PyResult<Self> {
        let scenario = parse(py, scenario_json)?;
        let inner = tcplab_core::Simulation::new(&scenario).map_err(|e| scenario_error(py, e))?;
        Ok(Self { inner: Mutex::new(inner) })
    }

    /// Simulated time so far, in nanoseconds.
    #[getter]
    fn now_ns(&self) -> PyResult<u64> {
        Ok(self.lock()?.now())
    }

    /// The scenario's duration, in nanoseconds.
    #[getter]
    fn end_ns(&self) -> PyResult<u64> {
        Ok(self.lock()?.end_time())
    }

    #[getter]
    fn finished(&self) -> PyResult<bool> {
        Ok(self.lock()?.is_finished())
    }

    /// Runs all events up to `until_ns` without holding the GIL.
    /// Raises AlgorithmError when a Python algorithm failed during the slice.
    fn run_until(&self, py: Python<'_>, until_ns: u64) -> PyResult<()> {
        let mut guard = self.lock()?;
        let simulation: &mut tcplab_core::Simulation = &mut guard;
        py.detach(|| simulation.run_until(until_ns));
        match simulation.algorithm_failure() {
            Some(why) => Err(keyed_error::<AlgorithmError>(py, "flows.cc", &why, why.clone())),
            None => Ok(()),
        }
    }

    /// The scenario with every default written out, as TOML.
    fn resolved_toml(&self) -> PyResult<String> {
        Ok(self.lock()?.scenario().to_toml())
    }

    /// The results at the end of the run: a dict with `summary` (scalars) and tables of NumPy
    /// columns. The time series move out of the simulation, so call it once.
    fn take_results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let results = self.lock()?.take_results();
        let summary = PyDict::new(py);
        let s = &results.summary;
        summary.set_item("scenario", &s.scenario)?;
        summary.set_item("seed", s.seed)?;
        summary.set_item("run", s.run)?;
        summary.set_item("simulated_seconds", s.simulated_seconds)?;
        summary.set_item("events", s.events)?;
        summary.set_item("packets_transmitted", s.packets_transmitted)?;
        summary.set_item("jain_fairness", s.jain_fairness)?;
        summary.set_item("total_goodput_bps", s.total_goodput_bps)?;
        summary.set_item("peak_live_packets", s.peak_live_packets)?;
        let out = PyDict::new(py);
        out.set_item("summary", summary)?;
        out.set_item("flows", table_to_dict(py, results.flows)?)?;
        out.set_item("links", table_to_dict(py, results.links)?)?;
        out.set_item("flow_series", table_to_dict(py, results.flow_series)?)?;
        out.set_item("queue_series", table_to_dict(py, results.queue_series)?)?;
        out.set_item("events", table_to_dict(py, results.events)?)?;
        let captures = PyDict::new(py);
        for (name, bytes) in results.captures {
            captures.set_item(name, pyo3::types::PyBytes::new(py, &bytes))?;
        }
        out.set_item("captures", captures)?;
        Ok(out)
    }
}

/// Validates a scenario (JSON text); returns the resolved scenario as TOML or raises ScenarioError.
/// The network the scenario builds (nodes, link directions with their queues, flows with every
/// TCP option resolved) as JSON text, for the ns-2 back-end's translator.
#[pyfunction]
fn network(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    let scenario = parse(py, scenario_json)?;
    let simulation = tcplab_core::Simulation::new(&scenario).map_err(|e| scenario_error(py, e))?;
    let mut description = simulation.into_link_network().describe();
    description["duration_ns"] = scenario.simulation.duration.nanos().into();
    description["sample_interval_ns"] = scenario.simulation.sample_interval.nanos().into();
    Ok(description.to_string())
}

#[pyfunction]
fn validate(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    let scenario = parse(py, scenario_json)?;
    // Building catches what only the assembled network shows (unreachable destinations).
    tcplab_core::Simulation::new(&scenario).map_err(|e| scenario_error(py, e))?;
    Ok(scenario.resolved().to_toml())
}

/// What in a valid scenario (JSON text) is probably a mistake: a list of (key, message).
#[pyfunction]
fn warnings(py: Python<'_>, scenario_json: &str) -> PyResult<Vec<(String, String)>> {
    let scenario = parse(py, scenario_json)?;
    Ok(scenario.warnings().into_iter().map(|w| (w.key, w.message)).collect())
}

/// Drives algorithm `name` (built-in or Python) through `steps` random sends, ACKs, losses, ECN
/// marks and timeouts chosen by `seed`, as the Rust property test does; raises ValueError naming
/// the first broken invariant (cwnd below a segment, ssthresh below two, a failure, ...).
#[pyfunction]
#[pyo3(signature = (name, params_json, seed, steps=3000))]
fn check_algorithm_properties(name: &str, params_json: &str, seed: u64, steps: usize) -> PyResult<()> {
    let params: serde_json::Value = if params_json.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_str(params_json).map_err(|e| PyValueError::new_err(format!("params: {e}")))?
    };
    cc::properties::exercise(name, &params, seed, steps).map_err(PyValueError::new_err)
}

/// A generated 5G-like delivery trace: the opportunity times in nanoseconds for the generator's
/// parameters (JSON text, the keys of a scenario's `trace.cellular` table) and a seed.
#[pyfunction]
fn cellular_trace(py: Python<'_>, params_json: &str, seed: u64, run: u64) -> PyResult<Vec<u64>> {
    let spec: tcplab_core::scenario::CellularTraceSpec = serde_json::from_str(params_json)
        .map_err(|e| keyed_error::<ScenarioError>(py, "cellular", &e.to_string(), format!("cellular: {e}")))?;
    tcplab_core::scenario::validate_cellular("cellular", &spec).map_err(|e| scenario_error(py, e))?;
    let mut rng = tcplab_core::sim::rng_stream(seed, run, tcplab_core::sim::StreamKind::Trace, 0);
    Ok(tcplab_core::net::cellular_trace::generate(&spec.params(), &mut rng))
}

/// The cellular trace generator's parameters at their defaults, as JSON text in the scenario's
/// units (`{"length": "30s", ...}`).
#[pyfunction]
fn cellular_trace_defaults() -> String {
    serde_json::to_string(&tcplab_core::scenario::CellularTraceSpec::defaults()).expect("the spec serialises")
}

/// Every registered algorithm with its parameters: a list of dicts.
#[pyfunction]
fn algorithms<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for algorithm in cc::registry() {
        let entry = PyDict::new(py);
        entry.set_item("name", algorithm.name)?;
        entry.set_item("summary", algorithm.summary)?;
        entry.set_item("source", algorithm.source)?;
        let defaults = (algorithm.defaults)();
        let params = PyList::empty(py);
        for spec in algorithm.params {
            let param = PyDict::new(py);
            param.set_item("name", spec.name)?;
            param.set_item("default", defaults[spec.name].to_string())?;
            param.set_item("unit", spec.unit)?;
            param.set_item("range", spec.kind.range())?;
            param.set_item("description", spec.description)?;
            // A choice's names in order: the Linux back-end passes a choice to a BPF algorithm
            // as its index in this list.
            if let cc::ParamKind::Choice { allowed } = &spec.kind {
                param.set_item("choices", allowed.to_vec())?;
            }
            params.append(param)?;
        }
        entry.set_item("params", params)?;
        list.append(entry)?;
    }
    Ok(list)
}

/// The Linux receive buffer (tcp_rmem[2], bytes) whose window share is `window` bytes: the Linux
/// back-end sets it so that the kernel's window may grow as far as the simulator's.
#[pyfunction]
fn linux_receive_buffer(window: u64) -> u64 {
    tcplab_core::tcp::linux_ack::buffer_for_window(window)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("AlgorithmError", m.py().get_type::<AlgorithmError>())?;
    python_cc::add_classes(m)?;
    // Once per process: re-importing the module (a second interpreter) finds it installed.
    tcplab_core::cc::external::install(Box::new(python_cc::PythonAlgorithms));
    m.add_class::<Simulation>()?;
    m.add_class::<link_emulator::LinkEmulator>()?;
    m.add("FLOW_PORT_BASE", tcplab_emu::FLOW_PORT_BASE)?;
    m.add_function(wrap_pyfunction!(linux_receive_buffer, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(network, m)?)?;
    m.add_function(wrap_pyfunction!(warnings, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(check_algorithm_properties, m)?)?;
    m.add_function(wrap_pyfunction!(cellular_trace, m)?)?;
    m.add_function(wrap_pyfunction!(cellular_trace_defaults, m)?)?;
    Ok(())
}
