//! FastClick's `WorkPackage` element (`elements/research/workpackage.cc`,
//! Barbette; the nicmem artifact's copy at BorisPis/asplos22-nicmem-fastclick
//! @19b6a75), the synthetic NF of the nicmem and shRing papers.
//!
//! Per packet the element draws W numbers from a per-thread `std::mt19937`,
//! then makes N reads of 4 B from an array of S MiB. Each read's index is the
//! running value `r` divided by `max / (entries + 1) + 1`, and after the read
//! `r = data ^ (r << 24 ^ r << 16 ^ r << 8 ^ r >> 16)`: the next index
//! depends on the value just loaded, so the N reads are one dependent chain,
//! not N misses the core can overlap. Per read the chain holds the load, the
//! 32-bit division by a divisor known only at run time (`cpu.div_cycles`) and
//! one XOR; the W draws (`app.wp_draw_cycles` each) come before the first
//! index, which depends on the last draw.
//!
//! The shRing paper's modification (Sec. 5.2), reading or overwriting the
//! payload, is unpublished: here every payload line is read or written once,
//! independently of the chain.
//!
//! With `app.wp_chain = false` the reads' indices come from the generator,
//! not from the loaded data, so the reads are independent misses the core
//! overlaps up to `cpu.mlp`: the nicmem paper's l3fwd with 250 random reads
//! (Fig 3), whose code is unpublished, written the plain way.
//!
//! Left out: the element's `R` option (a share of the reads aimed at the
//! packet instead of the array; both papers' configurations use the array
//! only, `R 0`) and `WRITE` (an increment of each array word; the nicmem
//! artifact runs `WRITE 0`); the instructions around the chain, which overlap
//! its misses.

use crate::cpu::Stall;
use crate::mem::Memory;
use crate::nic::PktRef;
use crate::sim::Rng;
use crate::units::Time;
use rand::Rng as _;

pub struct WorkPackage {
    /// Virtual address and bytes of the array (`app.wp_size`).
    pub base: u64,
    pub size: u64,
    /// N: reads per packet (`app.wp_reads`).
    pub reads: u32,
    /// Also read (false) or overwrite (true) every payload line.
    pub payload: Option<bool>,
    /// Extra reads on the first core of each NIC (`slow_core_reads`: the
    /// core whose id among the NIC's cores is 0), and the cores per NIC.
    pub slow_reads: u32,
    pub cores_per_nic: usize,
    /// Time of the W draws before the first read, and the compute between
    /// one read's data and the next read's address (XOR and division).
    pub draws_ps: Time,
    pub step_ps: Time,
    /// Each index from the word the read before loaded (FastClick), or
    /// from the generator (independent reads, `mlp` in flight).
    pub chain: bool,
    pub mlp: u32,
}

impl WorkPackage {
    /// Run the element on `pkt` (data at `data`): the chain's time goes to
    /// `stall` as a serial stretch, the payload lines as overlapping misses.
    #[allow(clippy::too_many_arguments)]
    pub fn process(
        &self,
        core: usize,
        pkt: &PktRef,
        data: u64,
        mem: &mut Memory,
        rng: &mut Rng,
        now: Time,
        stall: &mut Stall,
    ) {
        let extra = if core % self.cores_per_nic == 0 { self.slow_reads } else { 0 };
        let lines = self.size / 64;
        let reads = self.reads + extra;
        if self.chain {
            let mut t = now + self.draws_ps;
            // (with the memory controllers each DRAM read waits for the one before)
            mem.set_chained(true);
            for _ in 0..reads {
                // The index is a function of the previous read's value, so
                // the read issues only once that value and the division
                // are done.
                t += self.step_ps;
                let off = rng.gen_range(0..lines) * 64;
                t += mem.core_access(core, self.base + off, false, t);
            }
            mem.set_chained(false);
            stall.chain(t - now);
        } else {
            // Only `mlp` in flight: each group issues when the one before
            // it has been served.
            let (mut t, mut in_group, mut group_max) = (now, 0, 0);
            for _ in 0..reads {
                let off = rng.gen_range(0..lines) * 64;
                let lat = mem.core_access(core, self.base + off, false, t);
                stall.add(lat);
                group_max = group_max.max(lat);
                in_group += 1;
                if in_group == self.mlp {
                    (t, in_group, group_max) = (t + group_max, 0, 0);
                }
            }
        }
        if let Some(write) = self.payload {
            for off in (64..crate::wire::mem_len(pkt.size)).step_by(64) {
                stall.add(mem.core_access(core, data + off, write, now));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::cycles_to_ps;

    /// Engine-default memory for `cores` cores.
    /// (no L1D: the chains' hits are the L2's)
    fn memory(cores: usize) -> Memory {
        let c = crate::run::validated(&serde_json::json!({"l1d": {"size": 0}})).unwrap();
        Memory::new(&c.mem, &c.llc, &c.l1d, &c.l2, &c.dram, c.sim.seed, vec![0x7ff; cores])
    }

    fn wp(size: u64, reads: u32, draws_ps: Time, step_ps: Time) -> WorkPackage {
        WorkPackage {
            base: 1 << 32,
            size,
            reads,
            payload: None,
            slow_reads: 0,
            cores_per_nic: 1,
            draws_ps,
            step_ps,
            chain: true,
            mlp: 10,
        }
    }

    /// The test: N reads over an array far larger than the LLC each
    /// wait for the one before, so they cost N memory latencies however
    /// many misses the core could overlap, plus the chain's own compute.
    #[test]
    fn a_chain_over_a_large_array_costs_n_memory_latencies() {
        let mut mem = memory(1);
        // One idle miss, far from the array: the latency each read pays.
        let miss = mem.core_access(0, 40 << 30, false, 0);
        let (n, draws, step) = (12, cycles_to_ps(9, 2300), cycles_to_ps(27, 2300));
        let w = wp(4 << 30, n, draws, step);
        let (mut rng, mut stall) = (crate::sim::rng(1, 0, 0), Stall::default());
        let before = mem.stats.core_llc_misses;
        w.process(0, &PktRef::default(), 1 << 20, &mut mem, &mut rng, 1_000_000, &mut stall);
        // Random lines of 4 GiB: a hit anywhere is a one-in-millions event.
        assert_eq!(mem.stats.core_llc_misses - before, n as u64);
        let expect = draws + n as u64 * (step + miss);
        let got = stall.total(10);
        assert!(got.abs_diff(expect) * 50 < expect, "chain {got} ps, expected {expect} ps (miss {miss} ps)");
        // The same reads from the generator overlap 10-wide: ~ 2 latencies.
        let free = WorkPackage { chain: false, ..w };
        let mut overlapped = Stall::default();
        free.process(0, &PktRef::default(), 1 << 20, &mut mem, &mut rng, 2_000_000, &mut overlapped);
        assert!(got > 5 * overlapped.total(10), "chain {got} ps, independent {} ps", overlapped.total(10));
    }

    /// Over an array held in the L2, the chain is the division and the XOR
    /// plus an L2 hit per read: compute, not memory, sets its length.
    #[test]
    fn a_chain_over_a_small_array_is_bound_by_its_compute() {
        let mut mem = memory(1);
        let (n, step) = (8, cycles_to_ps(27, 2300));
        let w = wp(64 << 10, n, 0, step);
        for off in (0..64 << 10).step_by(64) {
            mem.core_access(0, w.base + off, false, 0);
        }
        let hit = mem.core_access(0, w.base, false, 0);
        let (mut rng, mut stall) = (crate::sim::rng(1, 0, 0), Stall::default());
        w.process(0, &PktRef::default(), 1 << 20, &mut mem, &mut rng, 1_000_000, &mut stall);
        assert_eq!(stall.total(10), n as u64 * (step + hit));
    }

    /// The slowed target core of shRing Fig 11 (the first of its NIC's
    /// cores) runs a longer chain; the others do not.
    #[test]
    fn the_first_core_of_a_nic_runs_the_extra_reads() {
        let mut mem = memory(2);
        let mut w = wp(4 << 30, 2, 0, 0);
        (w.slow_reads, w.cores_per_nic) = (5, 2);
        let mut rng = crate::sim::rng(1, 0, 0);
        for (core, reads) in [(0, 7), (1, 2)] {
            let before = mem.stats.core_llc_misses;
            w.process(core, &PktRef::default(), 1 << 20, &mut mem, &mut rng, 0, &mut Stall::default());
            assert_eq!(mem.stats.core_llc_misses - before, reads);
        }
    }
}
