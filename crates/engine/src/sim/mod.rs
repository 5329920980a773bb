//! The event engine: a priority queue of events ordered by (time, sequence),
//! and seeded random streams per component.
//!
//! Ties in time are broken by insertion order, so a run is a pure function of
//! its scenario and seed.

use crate::units::Time;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One random stream. Each component owns one, derived from the run seed
/// and a fixed stream id, so adding a component does not perturb others.
pub type Rng = Xoshiro256PlusPlus;

/// Stream ids; fixed so that results do not depend on build order.
pub mod stream {
    pub const TRAFFIC: u64 = 1;
    pub const LLC: u64 = 2;
    pub const CORE: u64 = 3;
    pub const NF: u64 = 4;
    pub const ROUTES: u64 = 5;
    pub const PAGES: u64 = 6;
    pub const ANTAGONIST: u64 = 7;
    pub const MEM_BENCH: u64 = 8;
}

pub fn rng(seed: u64, stream: u64, index: u64) -> Rng {
    // SplitMix-style mixing keeps nearby (seed, stream, index) far apart.
    let mut z = seed
        ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ index.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    Xoshiro256PlusPlus::seed_from_u64(z ^ (z >> 31))
}

/// A time-ordered queue of events of type `E`.
///
/// The heap orders bare keys, time << 64 | sequence << SLOT_BITS | slot:
/// one integer compare orders by (time, insertion order), and a sift moves
/// 16 bytes rather than key and event. The events wait in `slab`, at the
/// slot their key names.
pub struct EventQueue<E: Copy> {
    heap: BinaryHeap<Reverse<u128>>,
    slab: Vec<E>,
    /// Slots of `slab` free for reuse.
    free: Vec<u32>,
    seq: u64,
    now: Time,
    popped: u64,
}

/// Bits of a key naming its event's slot: at most 16 M events pending.
const SLOT_BITS: u32 = 24;
/// Events one queue can take in all (2^40, a trillion), so that the
/// sequence number fits above the slot. (The longest run, 10 s of
/// simulated time at 800 Gbps of 64 B frames, pushes under 10^11.)
const MAX_SEQ: u64 = 1 << (64 - SLOT_BITS);

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            slab: Vec::with_capacity(1024),
            free: Vec::with_capacity(1024),
            seq: 0,
            now: 0,
            popped: 0,
        }
    }

    /// Schedule `e` at `at`; an event in the past runs now (time never goes back).
    pub fn push(&mut self, at: Time, e: E) {
        let at = at.max(self.now);
        let slot = match self.free.pop() {
            Some(s) => {
                self.slab[s as usize] = e;
                s as u64
            }
            None => {
                self.slab.push(e);
                self.slab.len() as u64 - 1
            }
        };
        assert!(slot < 1 << SLOT_BITS && self.seq < MAX_SEQ, "event queue overflow");
        let key = (at as u128) << 64 | ((self.seq << SLOT_BITS) | slot) as u128;
        self.heap.push(Reverse(key));
        self.seq += 1;
    }

    /// (Inlined into the event loop, heap and all: left to itself the
    /// compiler called the heap's pop out of line once the loop grew, +2.7 %
    /// instructions per 64 B packet. Inlining `push` too costs 1 %.)
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let Reverse(key) = self.heap.pop()?;
        let t = (key >> 64) as Time;
        let slot = (key as u64 & ((1 << SLOT_BITS) - 1)) as u32;
        debug_assert!(t >= self.now, "time went backwards");
        self.now = t;
        self.popped += 1;
        self.free.push(slot);
        Some((t, self.slab[slot as usize]))
    }

    pub fn now(&self) -> Time {
        self.now
    }
    /// When the next event is due, if any.
    pub fn next_at(&self) -> Option<Time> {
        self.heap.peek().map(|Reverse(key)| (key >> 64) as Time)
    }
    pub fn events(&self) -> u64 {
        self.popped
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.push(30, 'c');
        q.push(10, 'a');
        q.push(30, 'd');
        q.push(10, 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    }

    #[test]
    fn past_events_run_now() {
        let mut q = EventQueue::new();
        q.push(100, 1);
        q.pop();
        q.push(50, 2);
        assert_eq!(q.pop(), Some((100, 2)));
    }

    #[test]
    fn streams_are_deterministic_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = rng(7, stream::CORE, 0);
                move |_| r.gen()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = rng(7, stream::CORE, 0);
                move |_| r.gen()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = rng(7, stream::CORE, 1);
                move |_| r.gen()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    /// An M/D/1 queue built on the event queue: mean wait must match
    /// Pollaczek-Khinchine, W = rho * D / (2 (1 - rho)).
    #[test]
    fn md1_queue_matches_pollaczek_khinchine() {
        #[derive(Clone, Copy)]
        enum Ev {
            Arrive,
            Depart,
        }
        let mut q = EventQueue::new();
        let mut r = rng(1, 99, 0);
        let d: f64 = 1000.0; // service time, ps
        let rho = 0.7;
        let mean_gap = d / rho;
        let mut waiting: std::collections::VecDeque<Time> = Default::default();
        let mut busy = false;
        let (mut total_wait, mut served) = (0f64, 0u64);
        q.push(0, Ev::Arrive);
        while let Some((t, e)) = q.pop() {
            match e {
                Ev::Arrive => {
                    waiting.push_back(t);
                    let gap = -mean_gap * (1.0 - r.gen::<f64>()).ln();
                    if served < 400_000 {
                        q.push(t + gap as Time, Ev::Arrive);
                    }
                }
                Ev::Depart => busy = false,
            }
            if !busy {
                if let Some(a) = waiting.pop_front() {
                    total_wait += (t - a) as f64;
                    served += 1;
                    busy = true;
                    q.push(t + d as Time, Ev::Depart);
                }
            }
        }
        let w = total_wait / served as f64;
        let pk = rho * d / (2.0 * (1.0 - rho));
        assert!((w - pk).abs() / pk < 0.05, "simulated {w}, P-K {pk}");
    }
}

/// What a run kind's loops call once per unit of work (a transfer, a batch
/// of lines, a message, a load): every 2^16 units it tells `progress` the
/// share of the work done, and stops the run, with the error
/// "interrupted", when `progress` says so.
pub struct Guard<'a> {
    /// Told the share done; false stops the run (a packet run tells it
    /// itself, by simulated time).
    pub progress: &'a mut dyn FnMut(f64) -> bool,
    ticks: u64,
}

impl<'a> Guard<'a> {
    pub fn new(progress: &'a mut dyn FnMut(f64) -> bool) -> Guard<'a> {
        Guard { progress, ticks: 0 }
    }

    /// One unit of work; `done` (the share of the run's work done) is
    /// computed only when `progress` is told.
    #[inline]
    pub fn tick(&mut self, done: impl FnOnce() -> f64) -> Result<(), String> {
        self.ticks += 1;
        if self.ticks & 0xFFFF == 0 && !(self.progress)(done()) {
            return Err("interrupted".into());
        }
        Ok(())
    }
}

/// A guard that never stops a run (tests, tools).
pub fn unguarded<T>(f: impl FnOnce(&mut Guard) -> Result<T, String>) -> Result<T, String> {
    f(&mut Guard::new(&mut |_| true))
}
