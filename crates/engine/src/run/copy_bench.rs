//! The nicmem paper's copy microbenchmark (§6.5, Fig 14) as a scenario: one
//! core copies a buffer `iterations` times, host to host, host to NIC
//! memory, or NIC memory to host. NIC memory is mapped write-combining:
//!
//! - stores to it leave the core as 64 B posted MMIO writes through the
//!   core's write-combining buffers and cross PCIe downstream; a buffer is
//!   free again once its write has left the root complex;
//! - loads from it are uncached: each moves `cpu.uc_load_bytes` with one
//!   MMIO read round trip over PCIe, and they do not overlap.
//!
//! Host memory is the same hierarchy the packet path uses (L1D, L2, LLC,
//! DRAM); a line the L1D serves costs only its loads and stores through
//! the ports (`cpu.copy_cycles_per_line`), the others also wait on their
//! misses, `cpu::copy_window` lines in flight. Host copies of at least
//! `cpu.nt_store_threshold` bytes use non-temporal stores (no read for
//! ownership), as glibc's memcpy does.

use crate::cpu::wc::WcBuffers;
use crate::cpu::Stall;
use crate::mem::{AddressMap, Memory};
use crate::config::{Cfg, CopyBenchMode};
use crate::pcie::{PcieConfig, PcieLink};
use crate::report::{CopyBenchReport, Report, Body, SimInfo};
use crate::units::{cycles_to_ps, Time};

/// Lines issued together before the core waits for their misses.
const BATCH: u64 = 16;

pub fn run(c: &Cfg) -> Result<Report, String> {
    crate::sim::unguarded(|g| run_guarded(c, g))
}

/// [`run`], telling `g` of every batch of lines copied.
pub fn run_guarded(c: &Cfg, g: &mut crate::sim::Guard) -> Result<Report, String> {
    let all = (1u64 << c.llc.ways) - 1;
    let mut mem = Memory::new(&c.mem, &c.llc, &c.l1d, &c.l2, &c.dram, c.sim.seed, vec![all]);
    let mut link = PcieLink::new(PcieConfig::from_section(&c.pcie)?);
    let mut map = AddressMap::new();
    let mode = c.copy_bench.mode;
    let size = c.copy_bench.size.next_multiple_of(64);
    let (src, dst) = (map.alloc(size, 4096), map.alloc(size, 4096));
    let lines = size / 64;
    let (window, freq) = (crate::cpu::copy_window(&c.cpu), c.cpu.freq);
    let line_cycles = c.cpu.copy_cycles_per_line;
    let wc_buffers = c.cpu.wc_buffers as usize;
    let uc_bytes = c.cpu.uc_load_bytes;
    let nicmem_ps = c.nic.nicmem_latency;
    // Large host copies stream their stores past the caches, as glibc does.
    let nt = c.cpu.nt_store_threshold;
    let streaming = nt > 0 && size >= nt;
    let mut wc = WcBuffers::new(wc_buffers);
    let mut t: Time = 0;
    let iterations = c.copy_bench.iterations;
    for it in 0..iterations {
        for first in (0..lines).step_by(BATCH as usize) {
            g.tick(|| (it * lines + first) as f64 / (iterations * lines).max(1) as f64)?;
            let mut stall = Stall::default();
            // (a load or store the L1D serves waits on no fill buffer: the
            // ports bound it, in `line_cycles`)
            let mut access = |mem: &mut Memory, addr: u64, write: bool, t: Time| {
                let l1_hits = mem.stats.core_l1_hits;
                let lat = mem.core_access(0, addr, write, t);
                if mem.stats.core_l1_hits == l1_hits {
                    stall.access(lat, write);
                }
            };
            let n = BATCH.min(lines - first);
            for l in first..first + n {
                let off = l * 64;
                match mode {
                    CopyBenchMode::NicmemToHost => {
                        // Uncached loads: one MMIO round trip each, in order.
                        for _ in 0..64u64.div_ceil(uc_bytes) {
                            t = link.mmio_read(t, uc_bytes, nicmem_ps);
                        }
                        access(&mut mem, dst + off, true, t);
                    }
                    CopyBenchMode::HostToNicmem => {
                        access(&mut mem, src + off, false, t);
                        t = wc.store_line(t, |at| link.mmio_write(at, 64) - link.latency());
                    }
                    CopyBenchMode::HostToHost => {
                        access(&mut mem, src + off, false, t);
                        if streaming {
                            mem.nt_store(dst + off, t);
                        } else {
                            access(&mut mem, dst + off, true, t);
                        }
                    }
                }
            }
            t += stall.total(window) + cycles_to_ps(n * line_cycles, freq);
        }
    }
    // Stores to nicmem are done when the last write has left the core.
    t = t.max(wc.drained());
    let bytes = size * c.copy_bench.iterations;
    Ok(Report {
        body: Body::CopyBench { copy_bench: CopyBenchReport {
            mode: mode.to_string(),
            size,
            gbytes_s: bytes as f64 / t.max(1) as f64 * 1e3,
            ns_per_line: t as f64 / 1e3 / (bytes / 64) as f64,
        } },
        sim: SimInfo::new(c.sim.seed, 0, 0, t),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::validated as validate;
    use serde_json::json;

    fn copy(mode: &str, size: &str) -> CopyBenchReport {
        let iterations = if size.ends_with("MiB") { 2 } else { 20 };
        let c = validate(
            &json!({"sim": {"kind": "copy_bench"}, "copy_bench": {"mode": mode, "size": size, "iterations": iterations}}),
        )
        .unwrap();
        run(&c).unwrap().copy_bench().cloned().unwrap()
    }

    #[test]
    fn reads_from_nicmem_are_round_trip_bound() {
        // 32 B per uncached load, one PCIe round trip (2 x 250 ns + 100 ns
        // NIC + serialisation) each: about 50 MB/s.
        let r = copy("nicmem_to_host", "4KiB");
        assert!(r.gbytes_s > 0.04 && r.gbytes_s < 0.06, "{}", r.gbytes_s);
    }

    #[test]
    fn writes_to_nicmem_are_bounded_by_wc_buffers_and_the_link() {
        let r = copy("host_to_nicmem", "32KiB");
        // Posted 64 B MMIO writes: at most the link's payload rate (64 of
        // every 64 + 24 bytes on the wire of a Gen3 x16 link).
        let link = 113.7 / 8.0 * 64.0 / 88.0;
        assert!(r.gbytes_s <= link * 1.01, "{} vs {link}", r.gbytes_s);
        let h = copy("host_to_host", "32KiB");
        assert!(
            h.gbytes_s > r.gbytes_s,
            "a cached host copy outruns PCIe: {} vs {}",
            h.gbytes_s,
            r.gbytes_s
        );
    }

    /// Source and destination in the L1D: each line is its loads and
    /// stores through the ports (`cpu.copy_cycles_per_line`), no stall;
    /// without an L1D the same copy waits on L2 hits.
    #[test]
    fn a_copy_the_l1d_holds_runs_at_the_port_bound() {
        let run_with = |l1d: &str| {
            let c = validate(&json!({"sim": {"kind": "copy_bench"}, "l1d": {"size": l1d},
                                     "copy_bench": {"mode": "host_to_host", "size": "1KiB", "iterations": 2000}}))
            .unwrap();
            (run(&c).unwrap().copy_bench().cloned().unwrap(), c.cpu)
        };
        let (r, cpu) = run_with("32KiB");
        let bound = cycles_to_ps(cpu.copy_cycles_per_line, cpu.freq) as f64 / 1e3;
        assert!((r.ns_per_line / bound - 1.0).abs() < 0.02, "{} ns per line, ports {bound}", r.ns_per_line);
        assert!(run_with("0").0.ns_per_line > 1.5 * bound);
    }

    #[test]
    fn a_copy_larger_than_the_llc_runs_at_dram_speed() {
        let small = copy("host_to_host", "256KiB");
        let large = copy("host_to_host", "64MiB");
        assert!(
            large.gbytes_s < small.gbytes_s / 2.0,
            "{} vs {}",
            large.gbytes_s,
            small.gbytes_s
        );
    }
}
