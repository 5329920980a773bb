//! One run of one kind (`sim.kind`): packet traffic through the server, or
//! a microbenchmark or device model. Each kind is its own simulator with
//! its own report body; this is the one place that picks between them.

pub mod check;
pub mod copy_bench;
pub mod dpa;
pub mod netdimm;
pub mod packet;
pub mod pcie_bench;

use crate::config::Cfg;
use crate::report::Report;
use serde_json::Value;

/// Parse and check a scenario (profile already merged in): the typed
/// sections and the flat values, or a one-line error naming the key.
pub fn validate(scenario: &Value) -> Result<(crate::config::Values, Cfg), String> {
    let (values, cfg) = crate::config::typed(scenario)?;
    check::cross_check(&cfg)?;
    Ok((values, cfg))
}

/// [`validate`]'s typed sections alone (tests and tools).
pub fn validated(scenario: &Value) -> Result<Cfg, String> {
    validate(scenario).map(|(_, cfg)| cfg)
}

/// Run a validated scenario. An `Err` here is a broken run invariant (an
/// engine bug, reported with the seed) or a check only building can make
/// (an unreadable pcap).
pub fn run(cfg: &Cfg) -> Result<Report, String> {
    run_with(cfg, &mut |_| true)
}

/// [`run`], telling `progress` how far a packet run has got (share of its
/// simulated time) from time to time; `progress` returning false stops it
/// with the error "interrupted". The other kinds are short and do not call it.
pub fn run_with(cfg: &Cfg, progress: &mut dyn FnMut(f64) -> bool) -> Result<Report, String> {
    match cfg.sim.kind {
        "pcie_bench" => pcie_bench::run(cfg),
        "copy_bench" => copy_bench::run(cfg),
        "dpa" => dpa::run(cfg),
        "netdimm" => netdimm::run(cfg),
        _ => packet::World::build(cfg)?
            .run_with(progress)
            .map_err(|e| format!("{e} (seed {})", cfg.sim.seed)),
    }
}
