//! Intel Memory Latency Checker's loaded-latency test as a scenario: one
//! probe core doing dependent random loads (each waits for the one before),
//! beside `mem_bench.cores` injector cores each issuing random 64 B
//! accesses, `mem_bench.delay` core cycles apart, as many in flight as its
//! line-fill buffers allow (`cpu.mlp`). The buffers are far larger than the
//! LLC, so every access goes to DRAM: the host's memory controllers
//! (`mem::dram::host`), one per channel, lines interleaved over them.
//!
//! A request reaches its controller half the core-to-memory path after it
//! leaves the core and its data comes back the other half after the last
//! beat; the path is the measured idle latency (`dram.latency`, MLC's) less
//! the controller's own idle read. A write is a line written back: it
//! holds its fill buffer until its controller's write queue takes it and
//! the word is back, and no core waits for it after. (The host network
//! study's C2M-Write domain ends earlier, at the CHA, ~10 ns; `hostnet`
//! models the CHA's buffer, here the fill buffer stands in for the
//! back-pressure it passes on from a full write queue.)

use crate::sim::Guard;
use crate::config::Cfg;
use crate::mem::dram::controller::Config;
use crate::mem::dram::host::{Controllers, Event};
use crate::report::{Body, MemBenchReport, Report, SimInfo};
use crate::sim::{rng, stream};
use crate::units::{cycles_to_ps, Time};
use rand::Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Bytes each core's accesses fall into (MLC allocates hundreds of MB per
/// thread): far beyond any LLC.
const BUFFER: u64 = 1 << 30;

struct Core {
    /// Line-fill buffers free.
    free: u64,
    /// When it may issue its next access (`Time::MAX`: the probe, waiting).
    next: Time,
}

/// A request in flight: its core, when it left the core, and whether it
/// is a write.
#[derive(Clone, Copy)]
struct Flight {
    core: u32,
    issued: Time,
    write: bool,
}

/// What a mem_bench scenario must satisfy beyond each parameter's range;
/// the channels' controller, checked.
pub fn check(c: &Cfg) -> Result<Config, String> {
    if c.mem_bench.cores >= c.cpu.max_cores {
        return Err(format!(
            "mem_bench.cores = {}: at most cpu.max_cores - 1 = {} (one core is the latency probe)",
            c.mem_bench.cores,
            c.cpu.max_cores - 1
        ));
    }
    Config::host(&c.dram)
}

pub fn run(c: &Cfg) -> Result<Report, String> {
    crate::sim::unguarded(|g| run_guarded(c, g))
}

/// [`run`], telling `g` of every step (a DRAM cycle something happens in).
pub fn run_guarded(c: &Cfg, g: &mut Guard) -> Result<Report, String> {
    simulate(c, g, false)
}

/// The run; `every_cycle` steps through every DRAM cycle instead of
/// skipping to the next one anything happens in (the same answer, slower).
fn simulate(c: &Cfg, g: &mut Guard, every_cycle: bool) -> Result<Report, String> {
    let cfg = check(c)?;
    let half = (c.dram.latency - cfg.idle_read()) / 2;
    let b = &c.mem_bench;
    let gap = cycles_to_ps(b.delay.max(1), c.cpu.freq);
    let n = b.cores as usize + 1;
    let mut rng = rng(c.sim.seed, stream::MEM_BENCH, 0);
    let mut mem = Controllers::new(cfg, c.dram.channels as usize);
    let tck = mem.tck();
    // Injectors start at random phases of their gap, as threads do.
    let mut cores: Vec<Core> = (0..n).map(|_| Core { free: c.cpu.mlp, next: rng.gen_range(0..gap) }).collect();
    cores[0].next = 0;
    // The probe (core 0) has one load in flight at a time.
    cores[0].free = 1;
    let mut flights: Vec<Flight> = Vec::new();
    let mut spare: Vec<u64> = Vec::new();
    // Data (or a write's acceptance) back at its core: (time, request id).
    let mut back: BinaryHeap<Reverse<(Time, u64)>> = BinaryHeap::new();
    let warm = (b.loads / 10).max(1);
    let total = warm + b.loads;
    let (mut probe_loads, mut probe_ps) = (0u64, 0u64);
    let mut probe_lat: Vec<Time> = Vec::with_capacity(b.loads as usize);
    let (mut start, mut read_lines, mut write_lines) = (0 as Time, 0u64, 0u64);
    let (mut inj_reads, mut inj_ps) = (0u64, 0u64);
    let (mut cycle, mut end) = (0u64, 0 as Time);
    while probe_loads < total {
        g.tick(|| probe_loads as f64 / total as f64)?;
        let now = cycle * tck;
        let measuring = probe_loads >= warm;
        // Data back at the cores.
        while let Some(&Reverse((at, id))) = back.peek() {
            if at > now {
                break;
            }
            back.pop();
            let f = flights[id as usize];
            spare.push(id);
            let core = &mut cores[f.core as usize];
            core.free += 1;
            if f.write {
                continue;
            }
            read_lines += 1;
            if f.core == 0 {
                probe_loads += 1;
                if probe_loads == warm {
                    start = at;
                    (read_lines, write_lines, inj_reads, inj_ps) = (0, 0, 0, 0);
                    // (idle up to now: the window starts with this cycle)
                    mem.reset_stats(cycle);
                } else if measuring {
                    probe_ps += at - f.issued;
                    probe_lat.push(at - f.issued);
                    end = at;
                    if probe_loads == total {
                        // (the window ends here, whatever else is due now)
                        core.next = Time::MAX;
                        break;
                    }
                }
                core.next = at;
            } else {
                inj_reads += 1;
                inj_ps += at - f.issued;
            }
        }
        // Cores issue.
        for (i, core) in cores.iter_mut().enumerate() {
            while core.free > 0 && core.next <= now {
                let write = i > 0 && rng.gen::<f64>() >= b.read_share;
                let line = (i as u64 * BUFFER + rng.gen_range(0..BUFFER / 64) * 64) >> 6;
                let id = spare.pop().unwrap_or(flights.len() as u64);
                let f = Flight { core: i as u32, issued: now, write };
                if id as usize == flights.len() {
                    flights.push(f);
                } else {
                    flights[id as usize] = f;
                }
                mem.send(now + half, id, line << 6, write);
                core.free -= 1;
                core.next = if i == 0 { Time::MAX } else { core.next.max(now.saturating_sub(tck)) + gap };
            }
        }
        // The controllers run this cycle; a write is done, for its core,
        // when its controller's queue takes it.
        let refused = mem.step(cycle, |e| match e {
            Event::Admitted { id, write: true } => {
                write_lines += 1;
                back.push(Reverse((now + half, id)));
            }
            // (no device on these channels)
            Event::Admitted { .. } | Event::FarSent { .. } => {}
            Event::Returned { id, at } => back.push(Reverse((at + half, id))),
        });
        // On to the next cycle anything can happen in: a controller's wake,
        // a request reaching its controller (or retrying), data back at a
        // core, a core free to issue.
        let at_cycle = |t: Time| t.div_ceil(tck);
        let mut soonest = mem.wake();
        if refused || every_cycle {
            soonest = cycle + 1;
        }
        soonest = soonest.min(back.peek().map_or(u64::MAX, |b| at_cycle(b.0 .0)));
        for core in cores.iter().filter(|c| c.free > 0) {
            soonest = soonest.min(at_cycle(core.next));
        }
        cycle = soonest.max(cycle + 1);
    }
    let window = (end - start).max(1) as f64;
    probe_lat.sort_unstable();
    let p = |q: f64| probe_lat.get(((probe_lat.len() as f64 * q) as usize).min(probe_lat.len().saturating_sub(1))).map_or(f64::NAN, |&l| l as f64 / 1e3);
    mem.settle();
    Ok(Report {
        body: Body::MemBench {
            mem_bench: MemBenchReport {
                latency_ns: probe_ps as f64 / b.loads as f64 / 1e3,
                latency_p50_ns: p(0.5),
                latency_p99_ns: p(0.99),
                gbytes_s: (read_lines + write_lines) as f64 * 64.0 / window * 1e3,
                read_gbytes_s: read_lines as f64 * 64.0 / window * 1e3,
                write_gbytes_s: write_lines as f64 * 64.0 / window * 1e3,
                requests: read_lines + write_lines,
                injector_latency_ns: if inj_reads == 0 { f64::NAN } else { inj_ps as f64 / inj_reads as f64 / 1e3 },
                dram_read_latency_ns: mem.read_latency_ps() / 1e3,
                path_ns: 2.0 * half as f64 / 1e3,
                dram: mem.counters(),
            },
        },
        sim: SimInfo::new(c.sim.seed, end / tck, 0, end),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::validated;
    use crate::sim::unguarded;
    use serde_json::json;

    fn scenario(cores: u64, delay: u64, read_share: f64, loads: u64) -> Cfg {
        validated(&json!({"sim": {"kind": "mem_bench"}, "cpu": {"mlp": 10, "max_cores": 18},
            "dram": {"channels": 6, "latency": "90ns"},
            "mem_bench": {"cores": cores, "delay": delay, "read_share": read_share, "loads": loads}}))
        .unwrap()
    }

    #[test]
    fn skipping_to_the_next_event_gives_the_same_report() {
        for (cores, delay, share) in [(0, 0, 1.0), (6, 0, 1.0), (6, 300, 0.5), (12, 0, 0.6)] {
            let c = scenario(cores, delay, share, 300);
            let skip = unguarded(|g| simulate(&c, g, false)).unwrap();
            let step = unguarded(|g| simulate(&c, g, true)).unwrap();
            assert_eq!(serde_json::to_string(&skip).unwrap(), serde_json::to_string(&step).unwrap(), "{cores} {delay} {share}");
        }
    }

    #[test]
    fn an_idle_probe_sees_the_measured_idle_latency() {
        // (six channels: a lone probe comes back to a bank after refresh
        // has closed its row, as the path's split assumes)
        let r = run(&scenario(0, 0, 1.0, 3000)).unwrap();
        let m = r.mem_bench().unwrap();
        assert!((m.latency_ns - 90.0).abs() < 4.5, "{}", m.latency_ns);
        assert_eq!(m.write_gbytes_s, 0.0);
    }
}
