//! pcie-bench as a scenario: a device issuing back-to-back DMA reads,
//! writes or both of `size` bytes over a window of host memory (bandwidth),
//! or one read at a time (latency), with the window warm in the LLC or
//! flushed before each transfer. It goes through the same root port (link,
//! read tags, posted credits) and memory hierarchy as the NIC, so its
//! numbers are the NIC's limits.

use crate::config::{PcieBenchCache, PcieBenchMode};
use crate::mem::{DmaMode, Memory};
use crate::config::Cfg;
use crate::pcie::{PcieConfig, RootPort};
use crate::report::{hit_rate, latency, PcieBenchReport, Report, Body, SimInfo};
use crate::units::Time;
use hdrhistogram::Histogram;

pub fn run(c: &Cfg) -> Result<Report, String> {
    crate::sim::unguarded(|g| run_guarded(c, g))
}

/// [`run`], telling `g` of every transfer.
pub fn run_guarded(c: &Cfg, g: &mut crate::sim::Guard) -> Result<Report, String> {
    let pcfg = PcieConfig::from_section(&c.pcie)?;
    let all = (1u64 << c.llc.ways) - 1;
    let mut mem = Memory::new(&c.mem, &c.llc, &c.l1d, &c.l2, &c.dram, c.sim.seed, vec![all]);
    let mut rp = RootPort::new(pcfg);
    let mode = c.pcie_bench.mode;
    let size = c.pcie_bench.size;
    let window = c.pcie_bench.window.max(size);
    let cold = c.pcie_bench.cache == PcieBenchCache::Cold;
    let n = c.pcie_bench.transfers;
    let base: u64 = 1 << 32;
    if !cold {
        // Warm: the host has just touched the buffer, so it is on chip (in
        // its L2 under a non-inclusive LLC, where DMA reads snoop it).
        for off in (0..window).step_by(64) {
            mem.core_access(0, base + off, true, 0);
        }
    }
    let slots = (window / size).max(1);
    let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).expect("bounds");
    let (mut t, mut first, mut last) = (0 as Time, None, 0 as Time);
    for i in 0..n {
        g.tick(|| i as f64 / n as f64)?;
        let addr = base + (i % slots) * size;
        if cold {
            mem.flush(addr, size, t);
        }
        let write = match mode {
            PcieBenchMode::Write => true,
            PcieBenchMode::ReadWrite => i % 2 == 0,
            PcieBenchMode::Read | PcieBenchMode::Latency => false,
        };
        let (start, done) = if write {
            // Posted credits: wait until the root port has room.
            let lines = crate::pcie::lines(addr, size);
            if !rp.credits.available(t, lines) {
                t = rp.credits.free_at(lines).expect("every return is known");
            }
            rp.credits.take(t, lines);
            let (at, commit) = rp.write(t, addr, size, |at| mem.dma_write(addr, size, DmaMode::Ddio, at));
            rp.credits.give_back(lines, rp.credits_back_at(at + commit));
            (t, at)
        } else {
            let (r, done) = rp.read(t, addr, size, |at_host| mem.dma_read(addr, size, DmaMode::Ddio, at_host));
            (r.start, done)
        };
        let _ = hist.record(((done - start) / 1000).max(1));
        first.get_or_insert(done);
        last = last.max(done);
        // Bandwidth modes issue as fast as the link takes requests; the
        // latency mode waits for each transfer, as pcie-bench's LAT_RD does.
        t = if mode == PcieBenchMode::Latency {
            done
        } else {
            rp.link.up.free_at().max(t)
        };
    }
    // Steady state: from the first to the last completion (pipeline fill excluded).
    let span = last.saturating_sub(first.unwrap_or(0)).max(1);
    let done_bytes = (n.saturating_sub(1)) * size;
    Ok(Report {
        body: Body::PcieBench {
        pcie_write_hit_rate: hit_rate(
            mem.stats.dma_write_hits,
            mem.stats.dma_write_hits + mem.stats.dma_write_misses,
        ),
        pcie_read_hit_rate: hit_rate(
            mem.stats.dma_read_hits,
            mem.stats.dma_read_hits + mem.stats.dma_read_misses,
        ),
        pcie_bench: PcieBenchReport {
            mode: mode.to_string(),
            size,
            gbps: done_bytes as f64 * 8.0 / span as f64 * 1e3,
            transfers_per_s: n.saturating_sub(1) as f64 / span as f64 * 1e12,
            latency_ns: latency(&hist),
        }, },
        sim: SimInfo::new(c.sim.seed, n, 0, last),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::validated as validate;
    use crate::pcie::{effective_read_gbps, effective_write_gbps};
    use serde_json::json;

    fn bench(mode: &str, size: u64, cache: &str) -> PcieBenchReport {
        let c = validate(&json!({"sim": {"kind": "pcie_bench"}, "pcie_bench": {"mode": mode, "size": size, "cache": cache, "transfers": 20000}})).unwrap();
        run(&c).unwrap().pcie_bench().cloned().unwrap()
    }

    /// Little's law on the posted credits: a 4-line write buffer admits 4
    /// lines per credit loop (send, the flights to and from the IIO, the
    /// LLC's commit): by default the whole link latency both ways, else
    /// `pcie.credit_loop`.
    #[test]
    fn a_small_write_buffer_bounds_writes_by_its_credit_loop() {
        for (loop_ns, lat_ns) in [(0, 250), (300, 250), (200, 100)] {
            let c = validate(&json!({"sim": {"kind": "pcie_bench"},
                "pcie": {"write_buffer": "256B", "credit_loop": format!("{loop_ns}ns"), "latency": format!("{lat_ns}ns")},
                "pcie_bench": {"mode": "write", "size": 64, "transfers": 20000}})).unwrap();
            let got = run(&c).unwrap().pcie_bench().cloned().unwrap().transfers_per_s;
            let p = PcieConfig::from_section(&c.pcie).unwrap();
            let link = crate::pcie::PcieLink::new(p);
            let credit_loop = if loop_ns == 0 { 2 * lat_ns } else { loop_ns } * crate::units::NS;
            let ser = link.up.ser_ps(crate::pcie::mwr_wire_bytes(&p, 64));
            let want = 4.0 / ((ser + credit_loop + c.llc.latency) as f64 * 1e-12);
            assert!((got - want).abs() / want < 0.02, "credit_loop {loop_ns} ns: {got} vs {want}");
        }
    }

    #[test]
    fn a_credit_loop_longer_than_the_path_both_ways_is_refused() {
        for bad in ["600ns", "200ns"] {
            let c = validate(&json!({"pcie": {"write_buffer": "8KiB", "credit_loop": bad}})).unwrap();
            let e = PcieConfig::from_section(&c.pcie).unwrap_err();
            assert!(e.starts_with(&format!("pcie.credit_loop = {} ns: expected pcie.latency to twice it, 250 to 500 ns", &bad[..3])), "{e}");
        }
    }

    #[test]
    fn back_to_back_bandwidth_matches_the_published_model() {
        let c = validate(&json!({})).unwrap();
        let p = PcieConfig::from_section(&c.pcie).unwrap();
        for size in [64, 256, 1024, 1500] {
            let w = bench("write", size, "warm").gbps;
            let r = bench("read", size, "warm").gbps;
            let (mw, mr) = (
                effective_write_gbps(&p, size),
                effective_read_gbps(&p, size),
            );
            assert!((w - mw).abs() / mw < 0.02, "write {size}: {w} vs {mw}");
            assert!((r - mr).abs() / mr < 0.02, "read {size}: {r} vs {mr}");
        }
    }

    #[test]
    fn cold_reads_pay_dram_latency() {
        let warm = bench("latency", 64, "warm");
        let cold = bench("latency", 64, "cold");
        let c = validate(&json!({})).unwrap();
        // the core wrote the warm buffer: a non-inclusive LLC leaves it in
        // the core's L2, and DMA reads snoop it there
        let on_chip = if c.llc.inclusive { c.llc.latency } else { c.llc.snoop_latency };
        let extra = (c.dram.latency - on_chip) as f64 / 1000.0;
        let diff = cold.latency_ns.as_ref().unwrap().mean - warm.latency_ns.as_ref().unwrap().mean;
        // Cold: DRAM instead of the on-chip access (plus the channel's service time).
        assert!(
            diff > extra * 0.8 && diff < extra * 1.5,
            "warm {} cold {}",
            warm.latency_ns.as_ref().unwrap().mean,
            cold.latency_ns.as_ref().unwrap().mean
        );
        // Warm 64 B read: two link traversals + the on-chip access.
        let rtt = 2.0 * c.pcie.latency as f64 / 1000.0 + on_chip as f64 / 1000.0;
        assert!(
            warm.latency_ns.as_ref().unwrap().mean > rtt && warm.latency_ns.as_ref().unwrap().mean < rtt + 30.0,
            "{} vs {rtt}",
            warm.latency_ns.as_ref().unwrap().mean
        );
    }
}
