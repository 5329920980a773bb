//! The narrow boundary the Python binding calls: JSON in, JSON out.
//! Errors are one line of text naming the parameter, the value and what is
//! allowed.

use crate::params;
use serde_json::Value;

/// Every parameter as JSON metadata (key, kind, unit, base_unit, default,
/// min, max, doc); min and max are in the base unit.
pub fn params_json() -> String {
    let list: Vec<Value> = params::PARAMS
        .iter()
        .map(|p| {
            let mut v = serde_json::to_value(p).expect("param serialises");
            v["base_unit"] = Value::from(p.unit.base());
            v
        })
        .collect();
    serde_json::to_string(&list).expect("params serialise")
}

/// Validate a scenario (nested JSON object, profile already merged) and
/// return the normalised flat config in base units.
pub fn validate_json(scenario: &str) -> Result<String, String> {
    let v: Value =
        serde_json::from_str(scenario).map_err(|e| format!("scenario is not valid JSON: {e}"))?;
    let cfg = params::validate(&v)?;
    Ok(serde_json::to_string(&cfg).expect("config serialises"))
}

/// Validate and run a scenario; returns the report as JSON.
pub fn run_json(scenario: &str) -> Result<String, String> {
    let v: Value =
        serde_json::from_str(scenario).map_err(|e| format!("scenario is not valid JSON: {e}"))?;
    let cfg = params::validate(&v)?;
    let report = run(&cfg)?;
    Ok(serde_json::to_string(&report).expect("report serialises"))
}

/// Run a validated config. An `Err` here is a broken run invariant: an
/// engine bug, reported with the seed so it can be reproduced.
pub fn run(cfg: &params::Config) -> Result<crate::report::Report, String> {
    if cfg.text("pcie_bench.mode") != "off" {
        return crate::world::pciebench::run(cfg);
    }
    if cfg.text("copy_bench.mode") != "off" {
        return crate::world::copybench::run(cfg);
    }
    if cfg.text("dpa_bench.workload") != "off" {
        return crate::world::dpa::run(cfg);
    }
    if cfg.text("netdimm.nic") != "off" {
        return crate::world::netdimm::run(cfg);
    }
    reserve(cfg)?;
    let w = crate::world::World::build(cfg)?;
    w.run()
        .map_err(|e| format!("{e} (seed {})", cfg.u64("sim.seed")))
}

/// Try to allocate the scenario's estimated memory before building it, so
/// that an address-space limit (`ulimit -v`) the estimate passed is an error
/// naming the estimate, not an abort in the middle of the build. (Memory
/// that is reserved but never touched costs nothing; a cgroup limit is
/// checked against the estimate at validation.)
fn reserve(cfg: &params::Config) -> Result<(), String> {
    let parts = params::memory_estimate(cfg);
    let total: u64 = parts.iter().map(|p| p.2).sum();
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(total as usize).map_err(|_| {
        let (key, what, bytes) = parts.iter().max_by_key(|p| p.2).expect("parts");
        format!(
            "{key} = {}: cannot allocate the {:.1} GiB the scenario needs ({what} {:.1} GiB); the process's memory limit is lower",
            cfg.u64(key),
            total as f64 / (1u64 << 30) as f64,
            *bytes as f64 / (1u64 << 30) as f64
        )
    })
}

/// Replay a trace of line addresses through one LRU cache of `sets` (a
/// power of two, modulo indexed) x `ways`, loads only: (hits, misses,
/// seconds spent in the model). For side-by-side checks against other cache
/// simulators on the same trace.
pub fn lru_trace(sets: u64, ways: usize, lines: &[u64]) -> Result<(u64, u64, f64), String> {
    use crate::mem::cache::{Cache, Indexing, Policy, MAX_WAYS};
    if !sets.is_power_of_two() || !(1..=MAX_WAYS).contains(&ways) {
        return Err(format!(
            "sets = {sets}, ways = {ways}: sets must be a power of two and ways 1..={MAX_WAYS}"
        ));
    }
    if let Some(l) = lines.iter().find(|&&l| l >= crate::mem::cache::MAX_LINE) {
        return Err(format!(
            "line address {l:#x} beyond the modelled {:#x}",
            crate::mem::cache::MAX_LINE
        ));
    }
    let mut c = Cache::new(
        sets * ways as u64 * 64,
        ways,
        Indexing::Modulo,
        Policy::Lru,
        crate::sim::rng(0, 0, 0),
    );
    let all = c.all_ways();
    let (mut hits, mut misses) = (0, 0);
    let start = std::time::Instant::now();
    for &l in lines {
        match c.find(l) {
            Some(s) => {
                c.touch(s);
                hits += 1;
            }
            None => {
                c.insert(l, all, false);
                misses += 1;
            }
        }
    }
    Ok((hits, misses, start.elapsed().as_secs_f64()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under an address-space limit the validation did not see (set after
    /// it), the reservation turns the would-be abort into an error naming
    /// the estimate. The limit is set in a child process: the test binary
    /// runs itself with this one test and `PACKETPATH_RESERVE_CHILD` set.
    #[test]
    fn reserving_under_an_address_space_limit_is_an_error_not_an_abort() {
        if std::env::var_os("PACKETPATH_RESERVE_CHILD").is_some() {
            // 16 Mi-entry tables on 8 cores: ~2.5 GiB estimated, under a 1 GiB limit
            let cfg = params::validate(&serde_json::json!({
                "app": {"nf": "nat", "flow_table_size": 16_777_216, "preload_flows": false},
                "cpu": {"cores": 8, "max_cores": 16}
            }));
            let cfg = cfg.expect("validates: ~2.5 GiB fits the machine before the limit");
            let rl = libc::rlimit { rlim_cur: 1 << 30, rlim_max: libc::RLIM_INFINITY };
            // SAFETY: setrlimit reads the struct it is given; this is the child's own limit.
            assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_AS, &rl) }, 0);
            let e = reserve(&cfg).unwrap_err();
            assert!(e.starts_with("app.flow_table_size = 16777216: cannot allocate the"), "{e}");
            return;
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "api::tests::reserving_under_an_address_space_limit_is_an_error_not_an_abort", "--nocapture"])
            .env("PACKETPATH_RESERVE_CHILD", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "child: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
    }
}
