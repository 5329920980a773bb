//! One run of one kind (`sim.kind`): packet traffic through the server, or
//! a microbenchmark or device model. Each kind is its own simulator with
//! its own report body (the DPA's and NetDIMM's live with their devices,
//! in `devices/`); this is the one place that picks between them.

pub mod check;
pub mod copy_bench;
pub mod hostnet;
pub mod mem_bench;
pub mod packet;
pub mod pcie_bench;

use crate::config::SimKind;
use crate::sim::Guard;
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

/// [`run`], telling `progress` how far the run has got (a packet run: the
/// share of its simulated time; the other kinds: the share of their work)
/// from time to time; `progress` returning false stops it with the error
/// "interrupted", so Ctrl-C reaches every kind.
pub fn run_with(cfg: &Cfg, progress: &mut dyn FnMut(f64) -> bool) -> Result<Report, String> {
    let mut g = Guard::new(progress);
    match cfg.sim.kind {
        SimKind::PcieBench => pcie_bench::run_guarded(cfg, &mut g),
        SimKind::CopyBench => copy_bench::run_guarded(cfg, &mut g),
        SimKind::MemBench => mem_bench::run_guarded(cfg, &mut g),
        SimKind::Hostnet => hostnet::run_guarded(cfg, &mut g),
        SimKind::Dpa => crate::devices::dpa::bench::run_guarded(cfg, &mut g),
        SimKind::Netdimm => crate::devices::netdimm::system::run_guarded(cfg, &mut g),
        SimKind::Packet => packet::World::build_with(cfg, &mut *g.progress)?
            .run_with(g.progress)
            .map_err(|e| format!("{e} (seed {})", cfg.sim.seed)),
    }
}
