//! A memory loop on a core of its own, beside the packet cores on the same
//! LLC, memory controllers and channels: the DDIO paper's streaming
//! co-runner, and the host network study's antagonists (co-located
//! memory-bound applications).
//!
//! Each step touches `STEP` lines of its buffer, in order or at random,
//! reading them or writing them (a store: read for ownership, the line
//! dirty, written back when evicted); the misses overlap up to the core's
//! memory-level parallelism, and the step costs a cycle per line plus
//! `delay` cycles per line (the loop's intensity; 0 = flat out).

use crate::cpu::Stall;
use crate::config::{AntagonistCfg, AntagonistOp, AntagonistPattern, CorunnerCfg};
use crate::mem::{AddressMap, Memory};
use crate::sim::{rng, stream, Rng};
use crate::units::{cycles_to_ps, Time};
use rand::Rng as _;

/// Lines one step touches.
pub const STEP: u64 = 16;

pub struct MemLoop {
    pub core: usize,
    base: u64,
    lines: u64,
    pos: u64,
    random: bool,
    write: bool,
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
                let (random, write) = (a.pattern == AntagonistPattern::Random, a.op == AntagonistOp::Write);
                MemLoop::new(first_core + i, base, a.buffer, random, write, a.delay, r)
            })
            .collect()
    }

    /// `corunner`'s sequential read loop on core `core`, its buffer at an
    /// address from `map` (the DDIO paper's co-running application).
    pub fn corunner(c: &CorunnerCfg, map: &mut AddressMap, core: usize, seed: u64) -> MemLoop {
        MemLoop::new(core, map.alloc(c.buffer, 4096), c.buffer, false, false, 0, rng(seed, stream::ANTAGONIST, u64::MAX))
    }

    /// A loop of core `core` over `bytes` at `base`; `rng` draws the lines
    /// of a random loop.
    pub fn new(core: usize, base: u64, bytes: u64, random: bool, write: bool, delay: u64, rng: Rng) -> MemLoop {
        MemLoop { core, base, lines: (bytes / 64).max(1), pos: 0, random, write, delay, rng, done_lines: 0, lat_sum: 0 }
    }

    /// One step at `now`: its memory stall and its compute time. (With
    /// the memory controllers its DRAM reads are still out: their
    /// latencies join the stall, and [`MemLoop::dram_read`], as they come
    /// back.)
    pub fn step(&mut self, mem: &mut Memory, now: Time, freq: u64, measuring: bool) -> (Stall, Time) {
        let mut stall = Stall::default();
        let mut lat_sum = 0;
        for _ in 0..STEP {
            let line = if self.random { self.rng.gen_range(0..self.lines) } else { self.pos };
            self.pos = (self.pos + 1) % self.lines;
            let lat = mem.core_access(self.core, self.base + line * 64, self.write, now);
            lat_sum += lat;
            stall.add(lat);
        }
        if measuring {
            self.done_lines += STEP;
            self.lat_sum += lat_sum;
        }
        (stall, cycles_to_ps(STEP * (1 + self.delay), freq))
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
