//! Threads sharing a core's issue slots. A core issues at most `ipc`
//! instructions per cycle over all its threads; one thread at most
//! `thread_ipc` (an in-order DPA thread waits out each dependent multiply,
//! so a single thread cannot fill its core, and 1/thread_ipc threads can).
//!
//! The interleaving is fluid: a burst of `n` instructions takes `n / ipc`
//! cycles of the core's free issue slots from when the thread is ready, and
//! the thread at least `n / thread_ipc` cycles, whichever ends later. With `k`
//! threads busy a core delivers `min(k x thread_ipc, ipc)` per cycle.
//! Left out: pipeline hazards other than the multiply, branch costs.

use super::hop::Pipe;
use crate::units::Time;

const FP: u64 = 1024;

pub struct Cores {
    /// Each core's issue slots, as a calendar: a thread simulated ahead in
    /// time books its slots there without delaying threads behind it.
    issue: Vec<Pipe>,
    /// 1/1024 ps per instruction of one thread.
    thread_instr_fp: u64,
    pub instructions: u64,
}

impl Cores {
    pub fn new(cores: usize, freq_mhz: u64, ipc: f64, thread_ipc: f64) -> Cores {
        let cycle_fp = 1e6 * FP as f64 / freq_mhz as f64;
        // instructions per microsecond = "MB/s" of a pipe moving instructions
        let rate = (freq_mhz as f64 * ipc).round().max(1.0) as u64;
        Cores {
            issue: (0..cores).map(|_| Pipe::new(rate)).collect(),
            thread_instr_fp: (cycle_fp / thread_ipc.min(ipc)).round() as u64,
            instructions: 0,
        }
    }

    pub fn cores(&self) -> usize {
        self.issue.len()
    }

    /// Threads are spread over the cores round-robin (thread i on core
    /// i mod cores), as the schedulers place them when there are fewer
    /// threads than hardware slots.
    pub fn core_of(&self, thread: usize) -> usize {
        thread % self.issue.len()
    }

    /// `thread`, ready at `now`, runs `n` instructions; returns when done.
    pub fn run(&mut self, thread: usize, now: Time, n: u64) -> Time {
        if n == 0 {
            return now;
        }
        let c = self.core_of(thread);
        self.instructions += n;
        let core_done = self.issue[c].pass(now, n);
        (now + (n * self.thread_instr_fp).div_ceil(FP)).max(core_done)
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
