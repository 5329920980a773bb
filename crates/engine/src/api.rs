//! The narrow boundary the Python binding calls: JSON in, JSON out.
//! Errors are one line of text naming the parameter, the value and what is
//! allowed.

use crate::config;
use crate::run::{self, check::MemoryPart};
use crate::units::gib;
use serde_json::Value;

/// Every report metric as JSON metadata (path, unit, meaning,
/// counterpart), and the report sections only some runs carry.
pub fn metrics_json() -> String {
    serde_json::json!({"metrics": crate::metrics::METRICS, "optional_sections": crate::metrics::OPTIONAL_SECTIONS}).to_string()
}

/// Every parameter as JSON metadata (key, kind, unit, base_unit, default,
/// min, max, doc); min and max are in the base unit.
pub fn params_json() -> String {
    let list: Vec<Value> = config::PARAMS
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
    let (values, _) = run::validate(&v)?;
    Ok(serde_json::to_string(&values).expect("config serialises"))
}

/// Validate and run a scenario; returns the report as JSON. A scenario
/// whose simulation would not fit in this machine's memory is refused
/// before anything is built.
pub fn run_json(scenario: &str) -> Result<String, String> {
    run_json_with(scenario, &mut |_| true)
}

/// [`run_json`] with a progress hook (see [`run::run_with`]).
pub fn run_json_with(scenario: &str, progress: &mut dyn FnMut(f64) -> bool) -> Result<String, String> {
    let v: Value =
        serde_json::from_str(scenario).map_err(|e| format!("scenario is not valid JSON: {e}"))?;
    let (_, cfg) = run::validate(&v)?;
    let parts = run::check::memory_estimate(&cfg);
    check_resources(&parts, available_memory())?;
    reserve(&parts)?;
    let report = run::run_with(&cfg, progress)?;
    Ok(serde_json::to_string(&report).expect("report serialises"))
}

/// Try to allocate the scenario's estimated memory before building it, so
/// that an address-space limit (`ulimit -v`) the estimate passed is an error
/// naming the estimate, not an abort in the middle of the build. (Memory
/// that is reserved but never touched costs nothing.)
fn reserve(parts: &[MemoryPart]) -> Result<(), String> {
    let total: u64 = parts.iter().map(|p| p.bytes).sum();
    // The probe maps address space straight from the kernel (never touched,
    // no swap reserved) and gives it back: going through malloc instead would
    // raise glibc's mmap threshold, so that every large calloc of the build
    // after it would be served from the heap and zeroed by hand.
    // SAFETY: an anonymous mapping of no file, unmapped at once, never read or written.
    let fits = unsafe {
        let at = libc::mmap(
            std::ptr::null_mut(),
            total.max(1) as usize,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        );
        at != libc::MAP_FAILED && libc::munmap(at, total.max(1) as usize) == 0
    };
    fits.then_some(()).ok_or_else(|| {
        let p = parts.iter().max_by_key(|p| p.bytes).expect("parts");
        format!(
            "{} = {}: cannot allocate the {:.1} GiB the scenario needs ({} {:.1} GiB); the process's memory limit is lower",
            p.key,
            p.value,
            gib(total),
            p.what,
            gib(p.bytes)
        )
    })
}

/// Bytes this process may still allocate, if the OS says (Linux): the least
/// of the memory available, what the cgroup (a Slurm or container limit)
/// leaves, and what the address-space rlimit (`ulimit -v`) leaves.
fn available_memory() -> Option<u64> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let kib = |text: &str, key: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
    };
    let mut limits = vec![];
    limits.extend(read("/proc/meminfo").and_then(|t| kib(&t, "MemAvailable:")));
    // The process's own cgroup and its ancestors (a Slurm job's limit sits on
    // its step's cgroup, not the root): v2, then v1's memory controller.
    for (dir, max, cur) in cgroup_dirs(&read("/proc/self/cgroup").unwrap_or_default()) {
        limits.extend(headroom(read(&format!("{dir}/{max}")), read(&format!("{dir}/{cur}"))));
    }
    let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit only writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut rl) } == 0 && rl.rlim_cur != libc::RLIM_INFINITY {
        let used = read("/proc/self/status").and_then(|t| kib(&t, "VmSize:")).unwrap_or(0);
        limits.push((rl.rlim_cur as u64).saturating_sub(used));
    }
    limits.into_iter().min()
}

/// The cgroup folders whose memory limits bind this process, from
/// `/proc/self/cgroup`: its own and every ancestor, with the names of the
/// limit and usage files (cgroup v2, and v1's memory controller).
fn cgroup_dirs(own: &str) -> Vec<(String, &'static str, &'static str)> {
    let mut out = vec![];
    for line in own.lines() {
        let mut f = line.splitn(3, ':');
        let (_, controllers, path) = (f.next(), f.next().unwrap_or(""), f.next().unwrap_or(""));
        let (root, max, cur) = if controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max", "memory.current")
        } else if controllers.split(',').any(|c| c == "memory") {
            ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes")
        } else {
            continue;
        };
        let mut p = std::path::Path::new(path);
        loop {
            out.push((format!("{root}{}", p.display()).trim_end_matches('/').to_string(), max, cur));
            match p.parent() {
                Some(up) => p = up,
                None => break,
            }
        }
    }
    out
}

/// What a limit leaves beyond current use; None for no limit ("max", or a v1 "unlimited" near 2^63).
fn headroom(limit: Option<String>, used: Option<String>) -> Option<u64> {
    let limit: u64 = limit?.trim().parse().ok().filter(|&l: &u64| l < 1 << 60)?;
    let used: u64 = used.and_then(|u| u.trim().parse().ok()).unwrap_or(0);
    Some(limit.saturating_sub(used))
}

/// Refuse a simulation that would not fit in the memory this process may
/// still take, naming its largest part, with the estimate. The scenario is
/// valid; this machine is too small for it.
fn check_resources(parts: &[MemoryPart], available: Option<u64>) -> Result<(), String> {
    let Some(avail) = available else { return Ok(()) };
    let total: u64 = parts.iter().map(|p| p.bytes).sum::<u64>() + (256 << 20);
    if total <= avail {
        return Ok(());
    }
    let p = parts.iter().max_by_key(|p| p.bytes).expect("parts");
    let detail: Vec<String> = parts.iter().map(|p| format!("{} {:.1} GiB", p.what, gib(p.bytes))).collect();
    Err(format!(
        "{} = {}: the scenario needs about {:.1} GiB to simulate ({}), more than the {:.1} GiB available",
        p.key,
        p.value,
        gib(total),
        detail.join(", "),
        gib(avail)
    ))
}

/// Replay a trace of line addresses through one LRU cache of `sets` (a
/// power of two, modulo indexed) x `ways`, loads only: (hits, misses,
/// seconds spent in the model). For side-by-side checks against other cache
/// simulators on the same trace.
pub fn lru_trace(sets: u64, ways: usize, lines: &[u64]) -> Result<(u64, u64, f64), String> {
    lru_trace_by(sets, ways, lines.len(), |i| lines[i])
}

/// [`lru_trace`] over `n` line addresses read by `line(i)`: a caller's
/// buffer is read where it lies, not copied first.
pub fn lru_trace_by(sets: u64, ways: usize, n: usize, line: impl Fn(usize) -> u64) -> Result<(u64, u64, f64), String> {
    use crate::mem::cache::{Cache, Indexing, Policy, MAX_WAYS};
    if !sets.is_power_of_two() || !(1..=MAX_WAYS).contains(&ways) {
        return Err(format!(
            "sets = {sets}, ways = {ways}: sets must be a power of two and ways 1..={MAX_WAYS}"
        ));
    }
    if let Some(l) = (0..n).map(&line).find(|&l| l >= crate::mem::cache::MAX_LINE) {
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
    for l in (0..n).map(line) {
        // a miss inserts into the set its lookup hashed
        match c.lookup(l) {
            Ok(slot) => {
                c.touch(slot);
                hits += 1;
            }
            Err(set) => {
                c.insert_at(set, l, all, false);
                misses += 1;
            }
        }
    }
    Ok((hits, misses, start.elapsed().as_secs_f64()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::check::memory_estimate;

    #[test]
    fn the_guard_reads_the_process_own_cgroup_and_its_ancestors() {
        let v2 = cgroup_dirs("0::/system.slice/slurmstepd.scope/job_42/step_0\n");
        let dirs: Vec<&str> = v2.iter().map(|(d, _, _)| d.as_str()).collect();
        assert_eq!(dirs[0], "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_42/step_0");
        assert!(dirs.contains(&"/sys/fs/cgroup/system.slice/slurmstepd.scope/job_42"));
        assert_eq!(*dirs.last().unwrap(), "/sys/fs/cgroup");
        let v1 = cgroup_dirs("4:cpu,cpuacct:/slurm/uid_1/job_7\n9:memory:/slurm/uid_1/job_7\n");
        assert_eq!(v1[0], ("/sys/fs/cgroup/memory/slurm/uid_1/job_7".into(), "memory.limit_in_bytes", "memory.usage_in_bytes"));
        assert_eq!(v1.len(), 4);
    }
    use serde_json::json;

    #[test]
    fn a_scenario_too_big_to_simulate_is_refused_with_the_estimate() {
        // 32 cores' tables of 16 Mi entries: 2 Mi buckets of 64 B
        // + 16 Mi x 12 B = 320 MiB each, 10.0 GiB in all.
        let c = crate::run::validated(&json!({"app.nf": "nat", "app.flow_table_size": 16_777_216, "cpu.cores": 16, "nic.count": 2, "cpu.max_cores": 32})).unwrap();
        let e = check_resources(&memory_estimate(&c), Some(8 << 30)).unwrap_err();
        assert!(
            e.starts_with("app.flow_table_size = 16777216: the scenario needs about 10.3 GiB")
                && e.contains("(flow tables 10.0 GiB, cache tags ")
                && e.ends_with("more than the 8.0 GiB available"),
            "{e}"
        );
        assert!(check_resources(&memory_estimate(&c), Some(64 << 30)).is_ok());
        assert!(check_resources(&memory_estimate(&c), None).is_ok(), "no figure from the OS: no guard");
        let l2 = crate::run::validated(&json!({})).unwrap();
        assert!(check_resources(&memory_estimate(&l2), Some(1 << 30)).is_ok(), "the default scenario fits in 1 GiB");
        // a timeline sample every picosecond of 3 ms: 3e9 samples
        // (valid, but no machine holds it: refused before anything is built)
        let e = run_json(r#"{"sim": {"sample_period": "1ps"}}"#).unwrap_err();
        assert!(e.starts_with("sim.sample_period = 1: the scenario needs about") && e.contains("timeline samples"), "{e}");
        // every run kind is guarded: a billion DPA round trips keep a record each
        let dpa = crate::run::validated(&json!({"sim.kind": "dpa", "dpa_bench.workload": "latency", "dpa_bench.packets": 1_000_000_000})).unwrap();
        let e = check_resources(&memory_estimate(&dpa), Some(8 << 30)).unwrap_err();
        assert!(e.starts_with("dpa_bench.packets = 1000000000: the scenario needs about 15.") && e.contains("per-packet records"), "{e}");
        // ... and l3fwd's route table counts
        let l3 = crate::run::validated(&json!({"app.nf": "l3fwd", "app.l3fwd_routes": 10_000_000})).unwrap();
        let e = check_resources(&memory_estimate(&l3), Some(2 << 30)).unwrap_err();
        assert!(e.starts_with("app.l3fwd_routes = 10000000: the scenario needs about 5.") && e.contains("route table 4.8 GiB"), "{e}");
    }

    #[test]
    fn a_cgroup_limit_leaves_what_is_not_used() {
        let s = |x: &str| Some(x.to_string());
        assert_eq!(headroom(s("1073741824\n"), s("73741824\n")), Some(1_000_000_000));
        assert_eq!(headroom(s("max\n"), s("5\n")), None, "cgroup v2 without a limit");
        assert_eq!(headroom(s("9223372036854771712\n"), s("5\n")), None, "cgroup v1's 'unlimited'");
        assert_eq!(headroom(s("100"), s("200")), Some(0));
        assert_eq!(headroom(None, None), None);
    }


    /// Under an address-space limit the validation did not see (set after
    /// it), the reservation turns the would-be abort into an error naming
    /// the estimate. The limit is set in a child process: the test binary
    /// runs itself with this one test and `PACKETPATH_RESERVE_CHILD` set.
    #[test]
    fn reserving_under_an_address_space_limit_is_an_error_not_an_abort() {
        if std::env::var_os("PACKETPATH_RESERVE_CHILD").is_some() {
            // 16 Mi-entry tables on 8 cores: ~2.5 GiB estimated, under a 1 GiB limit
            let cfg = run::validated(&serde_json::json!({
                "app": {"nf": "nat", "flow_table_size": 16_777_216, "preload_flows": false},
                "cpu": {"cores": 8, "max_cores": 16}
            }));
            let cfg = cfg.expect("validates: ~2.5 GiB fits the machine before the limit");
            let rl = libc::rlimit { rlim_cur: 1 << 30, rlim_max: libc::RLIM_INFINITY };
            // SAFETY: setrlimit reads the struct it is given; this is the child's own limit.
            assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_AS, &rl) }, 0);
            let e = reserve(&memory_estimate(&cfg)).unwrap_err();
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
