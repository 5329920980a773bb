//! One run of one kind (`sim.kind`): packet traffic through the server, or
//! a microbenchmark or device model. Each kind is its own simulator with
//! its own report body; this is the one place that picks between them.

pub mod check;
pub mod copy_bench;
pub mod dpa;
pub mod hostnet;
pub mod mem_bench;
pub mod netdimm;
pub mod packet;
pub mod pcie_bench;

use crate::config::SimKind;
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
        SimKind::Dpa => dpa::run_guarded(cfg, &mut g),
        SimKind::Netdimm => netdimm::run_guarded(cfg, &mut g),
        SimKind::Packet => packet::World::build_with(cfg, &mut *g.progress)?
            .run_with(g.progress)
            .map_err(|e| format!("{e} (seed {})", cfg.sim.seed)),
    }
}

/// What a run kind's loops call once per unit of work (a transfer, a batch
/// of lines, a message, a load): every 2^16 units it tells `progress` the
/// share of the work done, and stops the run, with the error
/// "interrupted", when `progress` says so.
pub struct Guard<'a> {
    progress: &'a mut dyn FnMut(f64) -> bool,
    ticks: u64,
}

impl<'a> Guard<'a> {
    pub fn new(progress: &'a mut dyn FnMut(f64) -> bool) -> Guard<'a> {
        Guard { progress, ticks: 0 }
    }

    /// One unit of work; `done` (the share of the run's work done) is
    /// computed only when `progress` is told.
    #[inline]
    pub fn tick(&mut self, done: impl FnOnce() -> f64) -> Result<(), String> {
        self.ticks += 1;
        if self.ticks & 0xFFFF == 0 && !(self.progress)(done()) {
            return Err("interrupted".into());
        }
        Ok(())
    }
}

/// A guard that never stops a run (tests, tools).
pub fn unguarded<T>(f: impl FnOnce(&mut Guard) -> Result<T, String>) -> Result<T, String> {
    f(&mut Guard::new(&mut |_| true))
}
