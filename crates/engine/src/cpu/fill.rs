//! A core's line-fill buffers as its DRAM reads meet them when the memory
//! controllers serve a packet run (`dram.model = controller`): a read
//! leaves for its controller only with a buffer free (`cpu.mlp` of them,
//! the host network study's C2M-Read credits), in program order, and a
//! read of a dependent chain (a pointer chase) waits for the chain's read
//! before it, with the reads behind it in program order waiting too.
//!
//! What a pass waits for depends on the code: a packet poll uses the data
//! it loads, so its pass ends when the last read is back; a memory loop's
//! next iterations do not depend on this step's loads, so an out-of-order
//! core runs on as soon as they have all left (the reorder buffer holds
//! them; the fill buffers, not the step boundary, bound what is in
//! flight), and its pass ends when the last has issued.

use crate::mem::dram::queued::Queued;
use crate::units::Time;
use std::collections::VecDeque;

pub struct FillBuffers {
    size: u64,
    /// The free buffers, each with when it freed (its read's data back at
    /// the core), earliest first: a read leaves no earlier. (The run hands
    /// reads back as the controllers return them, which can be ahead of
    /// the event clock.)
    free: VecDeque<Time>,
    /// Reads not yet issued, in program order: line, chained.
    waiting: VecDeque<(u64, bool)>,
    /// A chained read is in flight: the next chained one waits for it;
    /// when the last one came back.
    chain_busy: bool,
    chain_back: Time,
    /// What the pass in hand waits for, if it still waits.
    wait: Option<Wait>,
    /// The pass in hand: its latest read back, its latest read issued.
    last_back: Time,
    last_issued: Time,
    /// When the last pass's wait ended.
    pub done: Time,
}

/// What ends a pass's wait in its fill buffers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Wait {
    /// Its reads' data: all back.
    Back,
    /// Its reads' departure: all issued (a memory loop).
    Issued,
}

impl FillBuffers {
    pub fn new(size: u64) -> FillBuffers {
        let size = size.max(1);
        FillBuffers {
            size,
            free: std::iter::repeat_n(0, size as usize).collect(),
            waiting: VecDeque::new(),
            chain_busy: false,
            chain_back: 0,
            wait: None,
            last_back: 0,
            last_issued: 0,
            done: 0,
        }
    }

    /// Reads in flight or waiting for a buffer?
    pub fn busy(&self) -> bool {
        (self.free.len() as u64) < self.size || !self.waiting.is_empty()
    }

    /// Core `core`'s pass at `now` missed `reads`: issue what the buffers
    /// take, the rest as buffers free (behind any a loop's earlier step
    /// left waiting). Returns whether the pass's `wait` is over already
    /// (then at `done`).
    pub fn start(&mut self, core: usize, reads: impl Iterator<Item = (u64, bool)>, wait: Wait, now: Time, mc: &mut Queued) -> bool {
        self.waiting.extend(reads);
        (self.last_back, self.last_issued) = (now, now);
        self.issue(core, now, mc);
        self.wait = Some(wait);
        self.ended()
    }

    /// A read of this core (`chained` or not) is back at `at`; returns
    /// whether the pass in hand has just stopped waiting (then at `done`).
    pub fn back(&mut self, core: usize, chained: bool, at: Time, mc: &mut Queued) -> bool {
        self.free.push_back(at);
        if chained {
            (self.chain_busy, self.chain_back) = (false, at);
        }
        self.last_back = self.last_back.max(at);
        self.issue(core, at, mc);
        self.ended()
    }

    /// Whether the pass in hand has just stopped waiting (said once).
    fn ended(&mut self) -> bool {
        let done = match self.wait {
            Some(Wait::Back) if !self.busy() => self.last_back,
            Some(Wait::Issued) if self.waiting.is_empty() => self.last_issued,
            _ => return false,
        };
        (self.wait, self.done) = (None, done);
        true
    }

    /// Issue the waiting reads the free buffers take, none before `now`
    /// nor before its buffer freed (a chained one nor before the read it
    /// depends on is back).
    fn issue(&mut self, core: usize, now: Time, mc: &mut Queued) {
        while let Some(&freed) = self.free.front() {
            let Some(&(line, chained)) = self.waiting.front() else { break };
            if chained && self.chain_busy {
                break;
            }
            let at = now.max(freed).max(if chained { self.chain_back } else { 0 });
            self.waiting.pop_front();
            self.free.pop_front();
            self.chain_busy |= chained;
            self.last_issued = self.last_issued.max(at);
            mc.read(core, line, chained, at);
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
        fb.start(0, lines.iter().copied(), Wait::Back, 0, &mut mc);
        let back = run(&mut fb, &mut mc);
        assert_eq!(back.len(), 20);
        let one = back[0].lat;
        assert!(fb.done < 8 * one && fb.done >= 2 * one, "{} vs {one}", fb.done);
        let (mut mc, mut serial) = (queued(), FillBuffers::new(1));
        serial.start(0, lines.iter().copied(), Wait::Back, 0, &mut mc);
        run(&mut serial, &mut mc);
        assert!(serial.done > 2 * fb.done, "{} vs {}", serial.done, fb.done);
    }

    #[test]
    fn a_loop_runs_on_once_its_reads_have_left() {
        // 16 reads, 10 buffers: the step ends when the 16th leaves, as
        // the 6th comes back, with the buffers still full
        let mut r = crate::sim::rng(2, 0, 0);
        use rand::Rng as _;
        let (mut mc, mut fb) = (queued(), FillBuffers::new(10));
        let lines: Vec<(u64, bool)> = (0..16).map(|_| (r.gen_range(0..1u64 << 28), false)).collect();
        assert!(!fb.start(0, lines.into_iter(), Wait::Issued, 0, &mut mc));
        let (mut back, mut cycle, mut returned) = (Vec::new(), 0, 0);
        'run: loop {
            let refused = mc.tick(cycle, &mut back);
            for b in back.drain(..) {
                returned += 1;
                if fb.back(b.core, b.chained, b.at, &mut mc) {
                    break 'run;
                }
            }
            cycle = if refused { cycle + 1 } else { mc.wake().max(cycle + 1) };
        }
        assert_eq!((returned, fb.size - fb.free.len() as u64), (6, 10));
        // a step whose reads the buffers take at once does not wait
        let (mut mc, mut idle) = (queued(), FillBuffers::new(10));
        assert!(idle.start(0, [(0, false), (1 << 20, false)].into_iter(), Wait::Issued, 0, &mut mc));
    }

    #[test]
    fn a_chase_waits_for_each_read() {
        let mut mc = queued();
        let mut fb = FillBuffers::new(10);
        fb.start(0, (0..5u64).map(|i| (i << 20, true)), Wait::Back, 0, &mut mc);
        let back = run(&mut fb, &mut mc);
        let sum: Time = back.iter().map(|b| b.lat).sum();
        assert_eq!(fb.done, sum, "each read leaves when the one before is back");
    }
}
