//! Threads sharing a core's issue slots. A core issues at most `ipc`
//! instructions per cycle over all its threads; one thread at most
//! `thread_ipc` (an in-order DPA thread waits out each dependent multiply,
//! so a single thread cannot fill its core, and 1/thread_ipc threads can).
//!
//! The interleaving is fluid: a burst of `n` instructions holds the core for
//! `n / ipc` cycles after the work already queued on it, and takes the
//! thread at least `n / thread_ipc` cycles, whichever ends later. With `k`
//! threads busy a core delivers `min(k x thread_ipc, ipc)` per cycle.
//! Left out: pipeline hazards other than the multiply, branch costs.

use crate::units::Time;

const FP: u64 = 1024;

pub struct Cores {
    /// 1/1024 ps per instruction on the core's issue slots.
    core_instr_fp: u64,
    /// 1/1024 ps per instruction of one thread.
    thread_instr_fp: u64,
    busy_fp: Vec<u64>,
    pub instructions: u64,
}

impl Cores {
    pub fn new(cores: usize, freq_mhz: u64, ipc: f64, thread_ipc: f64) -> Cores {
        let cycle_fp = 1e6 * FP as f64 / freq_mhz as f64;
        Cores {
            core_instr_fp: (cycle_fp / ipc).round() as u64,
            thread_instr_fp: (cycle_fp / thread_ipc.min(ipc)).round() as u64,
            busy_fp: vec![0; cores],
            instructions: 0,
        }
    }

    pub fn cores(&self) -> usize {
        self.busy_fp.len()
    }

    /// Threads are spread over the cores round-robin (thread i on core
    /// i mod cores), as the schedulers place them when there are fewer
    /// threads than hardware slots.
    pub fn core_of(&self, thread: usize) -> usize {
        thread % self.busy_fp.len()
    }

    /// `thread`, ready at `now`, runs `n` instructions; returns when done.
    pub fn run(&mut self, thread: usize, now: Time, n: u64) -> Time {
        if n == 0 {
            return now;
        }
        let c = self.core_of(thread);
        let now_fp = now * FP;
        let start = self.busy_fp[c].max(now_fp);
        self.busy_fp[c] = start + n * self.core_instr_fp;
        self.instructions += n;
        (now_fp + n * self.thread_instr_fp)
            .max(self.busy_fp[c])
            .div_ceil(FP)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Multiplications per second of `threads` threads each running `n`.
    fn rate(threads: usize, n: u64) -> f64 {
        let mut c = Cores::new(16, 1000, 1.0, 0.25);
        let mut ready = vec![0; threads];
        for _ in 0..100 {
            for (t, r) in ready.iter_mut().enumerate() {
                *r = c.run(t, *r, n / 100);
            }
        }
        threads as f64 * n as f64 / *ready.iter().max().unwrap() as f64 * 1e12
    }

    #[test]
    fn one_thread_runs_at_its_own_rate() {
        // 1 GHz x 0.25 per cycle
        assert!((rate(1, 100_000) - 0.25e9).abs() < 1e6);
    }

    #[test]
    fn a_core_saturates_at_one_over_thread_ipc_threads() {
        // 16 cores: linear up to 4 threads per core (64), flat beyond.
        let r64 = rate(64, 100_000);
        assert!((r64 - 16e9).abs() / 16e9 < 0.01, "{r64}");
        assert!((rate(32, 100_000) - 8e9).abs() / 8e9 < 0.01);
        let r128 = rate(128, 100_000);
        assert!((r128 - 16e9).abs() / 16e9 < 0.01, "{r128}");
    }
}
