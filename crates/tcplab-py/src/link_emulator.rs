//! Binding of the Linux back-end's link emulator (crate `tcplab-emu`). Python creates it (which
//! creates the TUN devices), moves the devices into the hosts' namespaces, runs it on a thread of
//! its own (the GIL released) while the endpoints run, stops it, and takes its tables.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use tcplab_core::simulation::FlowEnds;
use tcplab_core::tcp::RecoveryMode;
use tcplab_emu::{EmulatorError, LinkEmulator as Emulator};

use crate::{parse, scenario_error, table_to_dict};

#[pyclass(module = "tcplab._core")]
pub struct LinkEmulator {
    /// None once the results were taken.
    inner: Mutex<Option<Emulator>>,
    stop: Arc<AtomicBool>,
}

impl LinkEmulator {
    fn lock(&self) -> PyResult<MutexGuard<'_, Option<Emulator>>> {
        self.inner.lock().map_err(|_| PyRuntimeError::new_err("the emulator failed earlier"))
    }

    fn with<T>(&self, f: impl FnOnce(&mut Emulator) -> T) -> PyResult<T> {
        let mut guard = self.lock()?;
        Ok(f(guard.as_mut().ok_or_else(results_taken)?))
    }
}

fn results_taken() -> PyErr {
    PyRuntimeError::new_err("the emulator's results were taken")
}

#[pymethods]
impl LinkEmulator {
    /// Builds the scenario's links and creates a TUN device `{device_prefix}{node}` per host.
    #[new]
    fn new(py: Python<'_>, scenario_json: &str, device_prefix: &str) -> PyResult<Self> {
        let scenario = parse(py, scenario_json)?;
        let emulator = Emulator::new(&scenario, device_prefix).map_err(|error| match error {
            EmulatorError::Scenario(e) => scenario_error(py, e),
            device => PyOSError::new_err(device.to_string()),
        })?;
        Ok(Self { inner: Mutex::new(Some(emulator)), stop: Arc::new(AtomicBool::new(false)) })
    }

    /// (node, device, address) per host.
    fn hosts(&self) -> PyResult<Vec<(String, String, String)>> {
        self.with(|e| e.hosts().into_iter().map(|h| (h.node, h.device, h.address.to_string())).collect())
    }

    /// Per flow (by flow id): where it runs and what its application does, in ns, bits per
    /// second and bytes; TCP flows add their algorithm and the options the hosts are set from.
    fn flows<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let rows = self.with(|e| {
            e.flows()
                .iter()
                .map(|f| (f.clone(), e.node_name(f.source).to_string(), e.node_name(f.sink).to_string()))
                .collect::<Vec<_>>()
        })?;
        rows.into_iter().map(|(f, source, sink)| flow_dict(py, f, source, sink)).collect()
    }

    /// (duration, sample interval) of the scenario, in ns.
    fn timing(&self) -> PyResult<(u64, u64)> {
        self.with(|e| e.timing())
    }

    /// Runs the links from `epoch_ns` (CLOCK_MONOTONIC) for `duration_ns`, or until `stop()`.
    fn run(&self, py: Python<'_>, epoch_ns: u64, duration_ns: u64) -> PyResult<()> {
        let stop = Arc::clone(&self.stop);
        self.with(|emulator| py.detach(|| emulator.run(epoch_ns, duration_ns, &stop)))?
            .map_err(|e| PyOSError::new_err(e.to_string()))
    }

    /// Asks a running `run` to return (within 5 ms).
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// `links` and `queues` tables as the simulator's, and `emulator`: its own counters and
    /// timing error. Closes the TUN devices, which removes them.
    fn take_results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let emulator = self.lock()?.take().ok_or_else(results_taken)?;
        let (links, queues, stats) = emulator.results();
        let own = PyDict::new(py);
        own.set_item("realtime", stats.realtime)?;
        own.set_item("packets_read", stats.packets_read)?;
        own.set_item("packets_written", stats.packets_written)?;
        own.set_item("packets_ignored", stats.packets_ignored)?;
        own.set_item("largest_packet_bytes", stats.largest_packet_bytes)?;
        own.set_item("write_failures", stats.write_failures)?;
        own.set_item("lateness_p50_ms", stats.lateness.quantile_ms(0.5))?;
        own.set_item("lateness_p99_ms", stats.lateness.quantile_ms(0.99))?;
        own.set_item("lateness_max_ms", stats.lateness.quantile_ms(1.0))?;
        own.set_item("ran_for_s", stats.ran_for as f64 / 1e9)?;
        // Per flow id.
        let delays = &stats.one_way_delay;
        own.set_item("one_way_delay_mean_ms", delays.iter().map(|h| h.mean_ms()).collect::<Vec<_>>())?;
        own.set_item("one_way_delay_p50_ms", delays.iter().map(|h| h.quantile_ms(0.5)).collect::<Vec<_>>())?;
        own.set_item("one_way_delay_p95_ms", delays.iter().map(|h| h.quantile_ms(0.95)).collect::<Vec<_>>())?;
        own.set_item("data_packets_lost", stats.data_packets_lost)?;
        let out = PyDict::new(py);
        out.set_item("links", table_to_dict(py, links)?)?;
        out.set_item("queues", table_to_dict(py, queues)?)?;
        out.set_item("emulator", own)?;
        Ok(out)
    }

    /// Closes the TUN devices without taking results (a failed or interrupted run).
    fn close(&self) -> PyResult<()> {
        self.stop.store(true, Ordering::Relaxed);
        if let Ok(mut guard) = self.inner.lock() {
            guard.take();
        }
        Ok(())
    }
}

fn flow_dict<'py>(py: Python<'py>, f: FlowEnds, source: String, sink: String) -> PyResult<Bound<'py, PyDict>> {
    let row = PyDict::new(py);
    row.set_item("flow_id", f.flow_id)?;
    row.set_item("name", f.name)?;
    row.set_item("source", source)?;
    row.set_item("sink", sink)?;
    row.set_item("base_rtt_ns", f.base_rtt)?;
    row.set_item("start_ns", f.start)?;
    row.set_item("stop_ns", f.stop)?;
    row.set_item("rate_bps", f.rate_bps)?;
    row.set_item("on_off_ns", f.on_off.map(|(on, off, _)| (on, off)))?;
    row.set_item("on_off_exponential", f.on_off.is_some_and(|(_, _, exponential)| exponential))?;
    row.set_item("datagram_bytes", f.datagram_bytes)?;
    row.set_item("protocol", if f.tcp.is_some() { "tcp" } else { "udp" })?;
    if let Some((algorithm, config, size)) = f.tcp {
        row.set_item("cc", algorithm)?;
        row.set_item("size_bytes", size)?;
        row.set_item("mss", config.mss)?;
        row.set_item("header_bytes", config.header_bytes)?;
        row.set_item("initial_window", config.initial_window_segments)?;
        row.set_item("sack", config.recovery == RecoveryMode::Sack)?;
        row.set_item("timestamps", config.timestamps)?;
        row.set_item("ecn", config.ecn)?;
        row.set_item("delayed_ack", config.delayed_ack)?;
        row.set_item("min_rto_ns", config.min_rto)?;
        row.set_item("receive_window", config.receive_window)?;
    }
    Ok(row)
}
