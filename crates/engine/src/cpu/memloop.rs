//! A memory loop on a core of its own, beside the packet cores on the same
//! LLC, memory controllers and channels: the DDIO paper's streaming
//! co-runner, and the host network study's antagonists (co-located
//! memory-bound applications).
//!
//! Each step touches `STEP` indices of its buffer, in order or at random,
//! reading the line there or writing it (a store: read for ownership, the
//! line dirty, written back when evicted; the loop does not wait for it,
//! but its RFO holds a fill buffer, `Stall::store`); a STREAM kernel splits the
//! buffer into its arrays and touches each array's line at the index
//! (triad: loads of two, a store to the third). The misses overlap up to
//! the core's memory-level parallelism, and the step costs a cycle per
//! line plus `delay` cycles per line (the loop's intensity; 0 = flat out).

use crate::cpu::Stall;
use crate::config::{AntagonistCfg, AntagonistOp, AntagonistPattern, CorunnerCfg};
use crate::mem::{AddressMap, Memory};
use crate::sim::{rng, stream, Rng};
use crate::units::{cycles_to_ps, Time};
use rand::Rng as _;

/// Lines one step touches.
pub const STEP: u64 = 16;

/// The arrays a loop walks at one index: whether each is stored to.
type Arrays = &'static [bool];

/// The arrays of each kind of loop.
fn arrays(op: AntagonistOp) -> Arrays {
    match op {
        AntagonistOp::Read => &[false],
        AntagonistOp::Write => &[true],
        AntagonistOp::Copy | AntagonistOp::Scale => &[false, true],
        AntagonistOp::Add | AntagonistOp::Triad => &[false, false, true],
    }
}

pub struct MemLoop {
    pub core: usize,
    base: u64,
    /// Lines per array.
    lines: u64,
    pos: u64,
    random: bool,
    arrays: Arrays,
    delay: u64,
    rng: Rng,
    /// Lines touched and the sum of their latencies in the measured window.
    pub done_lines: u64,
    pub lat_sum: Time,
}

impl MemLoop {
    /// The `antagonist` section's loops, on cores `first_core..`, each
    /// over a buffer of its own from `map`.
    pub fn antagonists(a: &AntagonistCfg, map: &mut AddressMap, first_core: usize, seed: u64) -> Vec<MemLoop> {
        (0..a.cores as usize)
            .map(|i| {
                let base = map.alloc(a.buffer, 4096);
                let r = rng(seed, stream::ANTAGONIST, i as u64);
                MemLoop::new(first_core + i, base, a.buffer, a.pattern == AntagonistPattern::Random, arrays(a.op), a.delay, r)
            })
            .collect()
    }

    /// `corunner`'s sequential read loop on core `core`, its buffer at an
    /// address from `map` (the DDIO paper's co-running application).
    pub fn corunner(c: &CorunnerCfg, map: &mut AddressMap, core: usize, seed: u64) -> MemLoop {
        MemLoop::new(core, map.alloc(c.buffer, 4096), c.buffer, false, arrays(AntagonistOp::Read), 0, rng(seed, stream::ANTAGONIST, u64::MAX))
    }

    /// A loop of core `core` over `bytes` at `base`, split into `arrays`;
    /// `rng` draws the indices of a random loop.
    fn new(core: usize, base: u64, bytes: u64, random: bool, arrays: Arrays, delay: u64, rng: Rng) -> MemLoop {
        let lines = (bytes / 64 / arrays.len() as u64).max(1);
        MemLoop { core, base, lines, pos: 0, random, arrays, delay, rng, done_lines: 0, lat_sum: 0 }
    }

    /// One step at `now`: its memory stall and its compute time. (With
    /// the memory controllers its DRAM reads are still out: the next step
    /// waits only for them to leave the fill buffers, and each read's
    /// latency joins the loop's figures, [`MemLoop::dram_read`], as it
    /// comes back.)
    pub fn step(&mut self, mem: &mut Memory, now: Time, freq: u64, measuring: bool) -> (Stall, Time) {
        let mut stall = Stall::default();
        let mut lat_sum = 0;
        for _ in 0..STEP {
            let line = if self.random { self.rng.gen_range(0..self.lines) } else { self.pos };
            self.pos = (self.pos + 1) % self.lines;
            for (k, &write) in self.arrays.iter().enumerate() {
                let at = self.base + (k as u64 * self.lines + line) * 64;
                let lat = mem.core_access(self.core, at, write, now);
                lat_sum += lat;
                stall.access(lat, write);
            }
        }
        let lines = STEP * self.arrays.len() as u64;
        if measuring {
            self.done_lines += lines;
            self.lat_sum += lat_sum;
        }
        (stall, cycles_to_ps(lines * (1 + self.delay), freq))
    }

    /// A DRAM read of a step came back `lat` after it left the core.
    pub fn dram_read(&mut self, lat: Time, measuring: bool) {
        if measuring {
            self.lat_sum += lat;
        }
    }

    /// Start the measured window.
    pub fn reset(&mut self) {
        self.done_lines = 0;
        self.lat_sum = 0;
    }

    /// Mean latency (ns) and bandwidth (GB/s) over a window of `secs`.
    pub fn figures(&self, secs: f64) -> (f64, f64) {
        let lat = if self.done_lines == 0 { 0.0 } else { self.lat_sum as f64 / self.done_lines as f64 / 1e3 };
        (lat, self.done_lines as f64 * 64.0 / secs / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A triad step loads two arrays and stores the third at each index.
    #[test]
    fn a_triad_reads_two_arrays_and_stores_the_third() {
        let c = crate::run::validated(&serde_json::json!({"l1d": {"size": 0}, "l2": {"prefetch_adjacent": false, "prefetch_streamer": false}})).unwrap();
        let mut mem = Memory::new(&c.mem, &c.llc, &c.l1d, &c.l2, &c.dram, 1, vec![0x7ff]);
        let mut l = MemLoop::new(0, 1 << 30, 3 << 20, false, arrays(AntagonistOp::Triad), 0, rng(1, 0, 0));
        let (_, compute) = l.step(&mut mem, 0, 2300, true);
        assert_eq!(l.done_lines, 3 * STEP);
        assert_eq!(compute, cycles_to_ps(3 * STEP, 2300));
        // (each array 1 MiB: index i of the three arrays is 1 MiB apart)
        let s = mem.stats;
        assert_eq!((s.core_llc_misses, s.dram_read_bytes), (3 * STEP, 3 * STEP * 64), "the stores read for ownership");
        for i in 0..STEP {
            for k in 0..3 {
                let lat = mem.core_access(0, (1 << 30) + (k << 20) + i * 64, false, 0);
                assert!(lat < mem.llc_latency(), "array {k} line {i} is in the L2");
            }
        }
    }
}
