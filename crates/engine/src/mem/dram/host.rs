//! The host's memory controllers, one per channel, lines interleaved over
//! the channels: what cores and devices reach through the mesh. A request
//! is sent with the time it reaches its controller; each controller takes
//! its arrivals in time order, at most one per DRAM cycle, and a request
//! its queue refuses waits and retries the next cycle (the back-pressure a
//! full read or write queue puts on the CHA). Reads and writes wait apart,
//! so that reads pass writes held by a full write queue, as the CHA
//! processes them concurrently (Vuppalapati et al., SIGCOMM'24, §5.2).

use super::controller::{Channel, Config, Done, Stats};
use super::map::interleave;
use super::ones;
use crate::report::DramCounters;
use crate::units::Time;
use std::collections::VecDeque;

/// A request on its way: when it reaches the controller (ps, and the
/// first DRAM cycle at or after), its id, address and whether it is a
/// write.
type Arrival = (Time, u64, u64, u64, bool);

pub struct Controllers {
    /// A channel is stepped only at its wake or when a request reaches it
    /// (in between nothing happens in it; it catches up its counters later).
    chans: Vec<Channel>,
    /// The cycle after the last one stepped.
    end: u64,
    /// Per channel: reads, and writes, on their way or waiting.
    arriving: Vec<[VecDeque<Arrival>; 2]>,
    /// Per channel: the first cycle anything can happen in it or reach it
    /// (its wake, its first arrival's cycle), kept as both change (never
    /// later: a channel run outside `step` only idles or moves its wake on).
    wakes: Vec<u64>,
    /// The earliest of them.
    wake: u64,
    done: Vec<Done>,
    tck: Time,
}

/// The address an arrival to a device on the channel carries (its channel
/// is named, not interleaved).
const FAR: u64 = u64::MAX;

/// What a controller did with a request in a cycle.
pub enum Event {
    /// A device's read sent its XRD at `at`: the device answers with
    /// [`Controllers::far_ready`].
    FarSent { ch: usize, id: u64, at: Time },
    /// Its queue took it.
    Admitted { id: u64, write: bool },
    /// A read's last data beat arrived at `at`.
    Returned { id: u64, at: Time },
}

impl Controllers {
    pub fn new(cfg: Config, channels: usize) -> Controllers {
        assert!(channels <= 64, "at most 64 channels (a channel mask is a u64)");
        Controllers {
            chans: (0..channels).map(|_| Channel::new(cfg)).collect(),
            end: 0,
            arriving: vec![[VecDeque::new(), VecDeque::new()]; channels],
            wakes: vec![0; channels],
            wake: 0,
            done: Vec::new(),
            tck: cfg.timing.tck_ps,
        }
    }

    /// The DRAM clock period (ps).
    pub fn tck(&self) -> Time {
        self.tck
    }

    /// The channel `addr` lies in.
    pub fn channel(&self, addr: u64) -> usize {
        interleave(addr >> 6, self.chans.len())
    }

    /// A request that reaches its controller at `at`, no earlier than the
    /// cycle the controllers last ran. Requests on their way may be sent in
    /// any order: each waits in arrival order (ties in send order).
    pub fn send(&mut self, at: Time, id: u64, addr: u64, write: bool) {
        debug_assert!(at.div_ceil(self.tck) >= self.end, "a request dated before a cycle already run");
        let (ch, cycle) = (self.channel(addr), at.div_ceil(self.tck));
        self.wake_at(ch, cycle);
        let q = &mut self.arriving[ch][write as usize];
        if q.back().is_none_or(|a| a.0 <= at) {
            q.push_back((at, cycle, id, addr, write));
        } else {
            let i = q.partition_point(|a| a.0 <= at);
            q.insert(i, (at, cycle, id, addr, write));
        }
    }

    /// A read of the device on channel `ch` (NetDIMM) that reaches its
    /// controller at `at`: it waits in the read queue like a DIMM's.
    pub fn send_far(&mut self, at: Time, id: u64, ch: usize) {
        debug_assert!(at.div_ceil(self.tck) >= self.end, "a request dated before a cycle already run");
        let cycle = at.div_ceil(self.tck);
        self.wake_at(ch, cycle);
        let q = &mut self.arriving[ch][0];
        let i = q.partition_point(|a| a.0 <= at);
        q.insert(i, (at, cycle, id, FAR, false));
    }

    /// The device on channel `ch` raised RDY for read `id` at `at`.
    pub fn far_ready(&mut self, ch: usize, id: u64, at: Time) {
        let c = &mut self.chans[ch];
        c.far_ready(id, at.div_ceil(self.tck));
        let w = c.wake();
        self.wake_at(ch, w);
    }

    /// Something can happen in channel `ch` at `cycle`.
    fn wake_at(&mut self, ch: usize, cycle: u64) {
        self.wakes[ch] = self.wakes[ch].min(cycle);
        self.wake = self.wake.min(cycle);
    }

    /// Run DRAM cycle `cycle` in every controller: each catches up to it
    /// (nothing happened in it since its wake), takes the arrival due, if
    /// its queue has room, and runs the cycle, telling `event` what it did.
    /// Returns whether a request due is still waiting (refused, or behind
    /// the one taken).
    pub fn step(&mut self, cycle: u64, mut event: impl FnMut(Event)) -> bool {
        let mut refused = false;
        self.end = self.end.max(cycle + 1);
        if self.wake > cycle {
            return false;
        }
        // (the channels woken, bit i: channel i; the others' first wake)
        let (mut woken, mut wake) = (0u64, u64::MAX);
        for (i, &w) in self.wakes.iter().enumerate() {
            if w <= cycle {
                woken |= 1 << i;
            } else {
                wake = wake.min(w);
            }
        }
        for i in ones(woken) {
            let (ch, q) = (&mut self.chans[i], &mut self.arriving[i]);
            ch.run_to(cycle, &mut self.done);
            debug_assert!(self.done.is_empty(), "a controller returned data between its wakes");
            let due = |q: &VecDeque<Arrival>| q.front().is_some_and(|a| a.1 <= cycle);
            let (read, write) = (due(&q[0]), due(&q[1]));
            if read || write {
                // The older arrival due that its queue can take (a read
                // first on a tie).
                let write_first = !read || (write && q[1][0].0 < q[0][0].0);
                let order = if write_first { [1, 0] } else { [0, 1] };
                if let Some(k) = order.into_iter().find(|&k| [read, write][k] && ch.can_take(k == 1)) {
                    let (_, _, id, addr, write) = q[k].pop_front().unwrap();
                    if addr == FAR {
                        ch.offer_far(id);
                    } else {
                        ch.offer(id, addr, write);
                    }
                    event(Event::Admitted { id, write });
                }
                // (one still due waits for the next cycle)
                refused |= due(&q[0]) || due(&q[1]);
            }
            ch.run_to(cycle + 1, &mut self.done);
            // (most cycles return nothing)
            if !self.done.is_empty() {
                for d in self.done.drain(..) {
                    event(Event::Returned { id: d.id, at: d.at });
                }
            }
            if !ch.far_sent.is_empty() {
                for (id, c) in ch.far_sent.drain(..) {
                    event(Event::FarSent { ch: i, id, at: c * self.tck });
                }
            }
            let first = q.iter().filter_map(|q| q.front()).map(|a| a.1).min();
            self.wakes[i] = first.unwrap_or(u64::MAX).min(ch.wake());
            wake = wake.min(self.wakes[i]);
        }
        self.wake = wake;
        refused
    }

    /// The first cycle anything can happen at in a controller or reach one.
    pub fn wake(&self) -> u64 {
        self.wake
    }

    /// Bring every controller's counters up to the last cycle stepped
    /// (before reading them).
    pub fn settle(&mut self) {
        for ch in self.chans.iter_mut() {
            ch.run_to(self.end, &mut self.done);
        }
        debug_assert!(self.done.is_empty());
    }

    /// Start every controller's counters afresh at `cycle` (a measured
    /// window's start; the idle time up to it is not counted).
    pub fn reset_stats(&mut self, cycle: u64) {
        for ch in self.chans.iter_mut() {
            ch.run_to(cycle, &mut self.done);
            ch.reset_stats();
        }
        debug_assert!(self.done.is_empty());
    }

    /// Channel `channel`'s reads: issued, and per bank.
    pub fn bank_reads(&self, channel: usize) -> (u64, &[u64]) {
        self.chans[channel].bank_reads()
    }

    /// Every channel's counters up to its present cycle.
    fn stats(&self) -> Vec<Stats> {
        self.chans.iter().map(|ch| ch.stats()).collect()
    }

    /// Mean read latency inside the controllers, queue to last data beat
    /// (ps; NaN without reads).
    pub fn read_latency_ps(&self) -> f64 {
        let stats = self.stats();
        let sum = |f: fn(&Stats) -> u64| stats.iter().map(f).sum::<u64>();
        sum(|s| s.read_latency_ps) as f64 / sum(|s| s.reads) as f64
    }

    pub fn counters(&self) -> DramCounters {
        let stats = self.stats();
        let sum = |f: fn(&Stats) -> u64| stats.iter().map(f).sum::<u64>();
        let cycles = sum(|s| s.cycles).max(1) as f64;
        let columns = sum(|s| s.columns());
        let per_bank: Vec<u64> = stats.iter().flat_map(|s| s.per_bank.iter().copied()).collect();
        let mean_bank = columns as f64 / per_bank.len() as f64;
        DramCounters {
            row_hit_rate: sum(|s| s.row_hits) as f64 / columns.max(1) as f64,
            read_row_miss_ratio: sum(|s| s.read_activates) as f64 / sum(|s| s.cas_reads).max(1) as f64,
            read_queue_occupancy: sum(|s| s.read_queue_occupancy) as f64 / cycles,
            write_queue_occupancy: sum(|s| s.write_queue_occupancy) as f64 / cycles,
            read_queue_full: sum(|s| s.read_queue_full) as f64 / cycles,
            write_queue_full: sum(|s| s.write_queue_full) as f64 / cycles,
            bank_imbalance: per_bank.iter().copied().max().unwrap_or(0) as f64 / mean_bank.max(1e-9),
            refreshes: sum(|s| s.refreshes),
            cas_reads: sum(|s| s.cas_reads),
            cas_writes: sum(|s| s.cas_writes),
            activates: sum(|s| s.acts),
            read_activates: sum(|s| s.read_activates),
            conflict_precharges: sum(|s| s.conflict_precharges),
            write_to_read_switches: sum(|s| s.write_to_read_switches),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::dram::map::{Geometry, Map};
    use crate::mem::dram::timing;

    /// One DDR4-2933 channel with a two-entry write queue that drains when full.
    fn one_channel(hold: bool) -> Controllers {
        let mut cfg = Config::dramsim3(timing::bin("DDR4-2933").unwrap(), Map::dramsim3(Geometry::ddr4_8gb_x8(2)));
        (cfg.write_queue, cfg.drain_high, cfg.drain_low, cfg.hold) = (2, 2, 0, hold);
        Controllers::new(cfg, 1)
    }

    /// The cycle each request was admitted at, by id, over the first `n` cycles.
    fn admissions(c: &mut Controllers, n: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for cycle in 0..n {
            c.step(cycle, |e| {
                if let Event::Admitted { id, .. } = e {
                    out.push((id, cycle));
                }
            });
        }
        out
    }

    /// Three writes (ids 0-2) at time 0 and a read (id 9) just after, to a
    /// channel whose write queue holds two: who is admitted in 4 cycles.
    fn three_writes_then_a_read(c: &mut Controllers) -> Vec<(u64, u64)> {
        for id in 0..3 {
            c.send(0, id, (id + 1) << 20, true);
        }
        c.send(1, 9, 5 << 20, false);
        admissions(c, 4)
    }

    #[test]
    fn a_read_passes_writes_a_full_held_write_queue_refuses() {
        let mut c = one_channel(true);
        let got = three_writes_then_a_read(&mut c);
        // one a cycle, oldest first; the third write finds both entries still
        // held (their column commands are tens of cycles away): the read goes
        assert_eq!(got, vec![(0, 0), (1, 1), (9, 2)]);
        // (PCM's WPQ occupancy counts them at their banks: 1 entry in cycle 0, 2 in cycles 1-3)
        let n = c.counters();
        assert_eq!((n.write_queue_occupancy, n.write_queue_full), (1.75, 0.75));
    }

    #[test]
    fn without_hold_a_write_frees_its_entry_at_its_bank() {
        let got = three_writes_then_a_read(&mut one_channel(false));
        // the drain moved the first write to its bank: the third write, older than the read, takes the entry
        assert_eq!(&got[..3], &[(0, 0), (1, 1), (2, 2)]);
    }
}
