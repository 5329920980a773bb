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
use crate::units::Time;
use serde::Serialize;
use std::collections::VecDeque;

/// A request on its way: when it reaches the controller, its id, address
/// and whether it is a write.
type Arrival = (Time, u64, u64, bool);

pub struct Controllers {
    chans: Vec<Channel>,
    /// Per channel: reads, and writes, on their way or waiting.
    arriving: Vec<[VecDeque<Arrival>; 2]>,
    done: Vec<Done>,
    tck: Time,
}

/// What a controller did with a request in a cycle.
pub enum Event {
    /// Its queue took it.
    Admitted { id: u64, write: bool },
    /// A read's last data beat arrived at `at`.
    Returned { id: u64, at: Time },
}

/// The channels' counters summed, as PCM's `imc` events give them.
#[derive(Serialize, Debug, Clone, Default)]
pub struct Counters {
    /// Column commands that found their row open and used (page hits).
    pub row_hit_rate: f64,
    /// Reads that needed their row opened, per read served from DRAM (the
    /// host network study's row miss ratio: ACTs for reads per line read).
    pub read_row_miss_ratio: f64,
    /// Mean requests waiting per channel, and the share of cycles each
    /// queue was full (PCM's RPQ/WPQ occupancy and full cycles).
    pub read_queue_occupancy: f64,
    pub write_queue_occupancy: f64,
    pub read_queue_full: f64,
    pub write_queue_full: f64,
    /// Column commands of the busiest bank over the mean bank's.
    pub bank_imbalance: f64,
    pub refreshes: u64,
    /// Event counts as the uncore's IMC counters give them: lines read and
    /// written at the DRAM (CAS_COUNT.RD/WR), activates (ACT_COUNT), of
    /// them for reads, precharges for a row conflict (PRE_COUNT.PAGE_MISS)
    /// and write-to-read switches (WMM_TO_RMM).
    pub cas_reads: u64,
    pub cas_writes: u64,
    pub activates: u64,
    pub read_activates: u64,
    pub conflict_precharges: u64,
    pub write_to_read_switches: u64,
}

impl Controllers {
    pub fn new(cfg: Config, channels: usize) -> Controllers {
        Controllers {
            chans: (0..channels).map(|_| Channel::new(cfg)).collect(),
            arriving: vec![[VecDeque::new(), VecDeque::new()]; channels],
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

    /// A request that reaches its controller at `at` (after any read, or
    /// write, sent before).
    pub fn send(&mut self, at: Time, id: u64, addr: u64, write: bool) {
        let ch = self.channel(addr);
        self.arriving[ch][write as usize].push_back((at, id, addr, write));
    }

    /// Writes on their way to, or waiting at, `channel`'s controller.
    pub fn writes_waiting(&self, channel: usize) -> usize {
        self.arriving[channel][1].len()
    }

    /// Run DRAM cycle `cycle` in every controller: each catches up to it
    /// (nothing happened in it since its wake), takes the arrival due, if
    /// its queue has room, and runs the cycle, telling `event` what it did.
    /// Returns whether a request due is still waiting (refused, or behind
    /// the one taken).
    pub fn step(&mut self, cycle: u64, mut event: impl FnMut(Event)) -> bool {
        let now = cycle * self.tck;
        let mut refused = false;
        for (ch, q) in self.chans.iter_mut().zip(self.arriving.iter_mut()) {
            ch.run_to(cycle, &mut self.done);
            debug_assert!(self.done.is_empty(), "a controller returned data between its wakes");
            // The older arrival due that its queue can take.
            let due = |q: &[VecDeque<Arrival>; 2], k: usize| q[k].front().filter(|a| a.0 <= now).map(|a| a.0);
            let mut order = [0, 1];
            if due(q, 1) < due(q, 0) && due(q, 1).is_some() || due(q, 0).is_none() {
                order = [1, 0];
            }
            if let Some(k) = order.into_iter().find(|&k| due(q, k).is_some() && ch.can_take(k == 1)) {
                let (_, id, addr, write) = q[k].pop_front().unwrap();
                ch.offer(id, addr, write);
                event(Event::Admitted { id, write });
            }
            // (one still due waits for the next cycle)
            refused |= due(q, 0).is_some() || due(q, 1).is_some();
            ch.run_to(cycle + 1, &mut self.done);
            for d in self.done.drain(..) {
                event(Event::Returned { id: d.id, at: d.at });
            }
        }
        refused
    }

    /// The first cycle anything can happen at in a controller or reach one.
    pub fn wake(&self) -> u64 {
        let first = self.arriving.iter().flatten().filter_map(|q| q.front()).map(|a| a.0.div_ceil(self.tck)).min();
        self.chans.iter().map(|ch| ch.wake()).chain(first).min().unwrap_or(u64::MAX)
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

    fn sum(&self, f: impl Fn(&Stats) -> u64) -> u64 {
        self.chans.iter().map(|ch| f(&ch.stats)).sum()
    }

    /// Mean read latency inside the controllers, queue to last data beat
    /// (ps; NaN without reads).
    pub fn read_latency_ps(&self) -> f64 {
        self.sum(|s| s.read_latency_ps) as f64 / self.sum(|s| s.reads) as f64
    }

    pub fn counters(&self) -> Counters {
        let cycles = self.sum(|s| s.cycles).max(1) as f64;
        let columns = self.sum(|s| s.columns());
        let per_bank: Vec<u64> = self.chans.iter().flat_map(|ch| ch.stats.per_bank.iter().copied()).collect();
        let mean_bank = columns as f64 / per_bank.len() as f64;
        Counters {
            row_hit_rate: self.sum(|s| s.row_hits) as f64 / columns.max(1) as f64,
            read_row_miss_ratio: self.sum(|s| s.read_row_misses) as f64 / self.sum(|s| s.reads - s.forwarded).max(1) as f64,
            read_queue_occupancy: self.sum(|s| s.read_queue_occupancy) as f64 / cycles,
            write_queue_occupancy: self.sum(|s| s.write_queue_occupancy) as f64 / cycles,
            read_queue_full: self.sum(|s| s.read_queue_full) as f64 / cycles,
            write_queue_full: self.sum(|s| s.write_queue_full) as f64 / cycles,
            bank_imbalance: per_bank.iter().copied().max().unwrap_or(0) as f64 / mean_bank.max(1e-9),
            refreshes: self.sum(|s| s.refreshes),
            cas_reads: self.sum(|s| s.reads - s.forwarded),
            cas_writes: self.sum(|s| s.writes),
            activates: self.sum(|s| s.acts),
            read_activates: self.sum(|s| s.read_row_misses),
            conflict_precharges: self.sum(|s| s.conflict_pres),
            write_to_read_switches: self.sum(|s| s.drains),
        }
    }
}
