//! PyO3 binding: conversion only, no logic. A validated scenario goes in as
//! JSON text, a report comes out as JSON text; a config error becomes
//! `ValueError`, an engine panic becomes `packetpath._engine.EngineError`.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(
    packetpath._engine,
    EngineError,
    PyException,
    "The engine failed; the message names the scenario seed to reproduce it."
);

fn guarded<F: FnOnce() -> Result<String, String> + Send>(py: Python<'_>, f: F) -> PyResult<String> {
    // The simulation runs without the GIL so a thread pool can use all cores.
    let out = py.allow_threads(|| catch_unwind(AssertUnwindSafe(f)));
    match out {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(msg)) => Err(PyValueError::new_err(msg)),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(EngineError::new_err(msg))
        }
    }
}

#[pyfunction]
fn params_json() -> String {
    packetpath_engine::api::params_json()
}

#[pyfunction]
fn metrics_json() -> String {
    packetpath_engine::api::metrics_json()
}

/// A quantity with a unit in a parameter's base unit (`quantity("traffic.rate", "25Gbps")` is 25000.0).
#[pyfunction]
fn quantity(key: String, text: String) -> PyResult<f64> {
    packetpath_engine::config::parse::quantity(&key, &text).map_err(PyValueError::new_err)
}

#[pyfunction]
fn validate_json(py: Python<'_>, scenario: String) -> PyResult<String> {
    guarded(py, || packetpath_engine::api::validate_json(&scenario))
}

/// Run a scenario. From time to time (every 2^16 events of a packet run)
/// the engine takes the GIL back: a pending signal (Ctrl-C) stops the run
/// and is raised, and `progress`, if given, is called with the share of the
/// simulated time done (an exception it raises stops the run too).
#[pyfunction]
#[pyo3(signature = (scenario, progress=None))]
fn run_json(py: Python<'_>, scenario: String, progress: Option<PyObject>) -> PyResult<String> {
    let mut stopped: Option<PyErr> = None;
    let out = guarded(py, || {
        packetpath_engine::api::run_json_with(&scenario, &mut |done| {
            Python::with_gil(|py| {
                let call = || progress.as_ref().map_or(Ok(()), |f| f.call1(py, (done,)).map(drop));
                match py.check_signals().and_then(|_| call()) {
                    Ok(()) => true,
                    Err(e) => {
                        stopped = Some(e);
                        false
                    }
                }
            })
        })
    });
    match stopped {
        Some(e) => Err(e),
        None => out,
    }
}

/// `lines`: a buffer of u64 (a NumPy uint64 array, read in place when
/// contiguous) or a sequence of ints.
#[pyfunction]
fn lru_trace(py: Python<'_>, sets: u64, ways: usize, lines: &Bound<'_, PyAny>) -> PyResult<(u64, u64, f64)> {
    // A contiguous buffer is read in place, holding the GIL (its cells may
    // change under other threads otherwise); anything else is copied first.
    let buffer = pyo3::buffer::PyBuffer::<u64>::get(lines).ok();
    let result = match buffer.as_ref().and_then(|b| b.as_slice(py)) {
        Some(cells) => packetpath_engine::api::lru_trace_by(sets, ways, cells.len(), |i| cells[i].get()),
        None => {
            let lines: Vec<u64> = match &buffer {
                Some(b) => b.to_vec(py)?,
                None => lines.extract()?,
            };
            py.allow_threads(|| packetpath_engine::api::lru_trace(sets, ways, &lines))
        }
    };
    result.map_err(PyValueError::new_err)
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__build__", env!("PACKETPATH_BUILD"))?;
    m.add_function(wrap_pyfunction!(params_json, m)?)?;
    m.add_function(wrap_pyfunction!(metrics_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(quantity, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(lru_trace, m)?)?;
    Ok(())
}
