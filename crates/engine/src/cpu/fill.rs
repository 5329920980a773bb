//! A core's line-fill buffers as its DRAM reads meet them when the memory
//! controllers serve a packet run (`dram.model = controller`): a read
//! leaves for its controller only with a buffer free (`cpu.mlp` of them,
//! the host network study's C2M-Read credits), in program order, and a
//! read of a dependent chain (a pointer chase) waits for the chain's read
//! before it, with the reads behind it in program order waiting too. The
//! core's pass ends when the last is back.

use crate::mem::dram::queued::Queued;
use crate::units::Time;
use std::collections::VecDeque;

pub struct FillBuffers {
    size: u64,
    free: u64,
    /// Reads not yet issued, in program order: line, chained.
    waiting: VecDeque<(u64, bool)>,
    /// A chained read is in flight: the next chained one waits for it.
    chain_busy: bool,
    /// When the latest data of this pass came back.
    pub last: Time,
}

impl FillBuffers {
    pub fn new(size: u64) -> FillBuffers {
        FillBuffers { size: size.max(1), free: size.max(1), waiting: VecDeque::new(), chain_busy: false, last: 0 }
    }

    /// Reads in flight or waiting for a buffer?
    pub fn busy(&self) -> bool {
        self.free < self.size || !self.waiting.is_empty()
    }

    /// Core `core`'s pass at `now` missed `reads`: issue what the buffers
    /// take now, the rest as buffers free.
    pub fn start(&mut self, core: usize, reads: impl Iterator<Item = (u64, bool)>, now: Time, mc: &mut Queued) {
        self.waiting.extend(reads);
        self.last = now;
        self.issue(core, now, mc);
    }

    /// A read of this core (`chained` or not) is back at `at`; returns
    /// whether the pass's reads are all back.
    pub fn back(&mut self, core: usize, chained: bool, at: Time, mc: &mut Queued) -> bool {
        self.free += 1;
        self.chain_busy &= !chained;
        self.last = self.last.max(at);
        self.issue(core, at, mc);
        !self.busy()
    }

    fn issue(&mut self, core: usize, now: Time, mc: &mut Queued) {
        while self.free > 0 {
            let Some(&(line, chained)) = self.waiting.front() else { break };
            if chained && self.chain_busy {
                break;
            }
            self.waiting.pop_front();
            self.free -= 1;
            self.chain_busy |= chained;
            mc.read(core, line, chained, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::dram::queued::{two_ddr4_2666 as queued, Back};

    /// Run the controllers, handing reads back to `fb`, until the pass ends;
    /// every read back, in order.
    fn run(fb: &mut FillBuffers, mc: &mut Queued) -> Vec<Back> {
        let (mut all, mut back, mut cycle) = (Vec::new(), Vec::new(), 0);
        while fb.busy() {
            let refused = mc.tick(cycle, &mut back);
            for b in back.drain(..) {
                fb.back(b.core, b.chained, b.at, mc);
                all.push(b);
            }
            cycle = if refused { cycle + 1 } else { mc.wake().max(cycle + 1) };
        }
        all
    }

    #[test]
    fn independent_reads_overlap_up_to_the_buffers() {
        // 20 random reads, 10 at a time: far less than 20 latencies, at
        // least two; with one buffer, one after another
        use rand::Rng as _;
        let mut r = crate::sim::rng(1, 0, 0);
        let lines: Vec<(u64, bool)> = (0..20).map(|_| (r.gen_range(0..1u64 << 28), false)).collect();
        let (mut mc, mut fb) = (queued(), FillBuffers::new(10));
        fb.start(0, lines.iter().copied(), 0, &mut mc);
        let back = run(&mut fb, &mut mc);
        assert_eq!(back.len(), 20);
        let one = back[0].lat;
        assert!(fb.last < 8 * one && fb.last >= 2 * one, "{} vs {one}", fb.last);
        let (mut mc, mut serial) = (queued(), FillBuffers::new(1));
        serial.start(0, lines.iter().copied(), 0, &mut mc);
        run(&mut serial, &mut mc);
        assert!(serial.last > 2 * fb.last, "{} vs {}", serial.last, fb.last);
    }

    #[test]
    fn a_chase_waits_for_each_read() {
        let mut mc = queued();
        let mut fb = FillBuffers::new(10);
        fb.start(0, (0..5u64).map(|i| (i << 20, true)), 0, &mut mc);
        let back = run(&mut fb, &mut mc);
        let sum: Time = back.iter().map(|b| b.lat).sum();
        assert_eq!(fb.last, sum, "each read leaves when the one before is back");
    }
}
