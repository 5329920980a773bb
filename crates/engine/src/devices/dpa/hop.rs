//! One hop of a memory path: a fixed latency, and either a pipe (a shared
//! bandwidth limit per direction) or a set of tags (a limit on requests in
//! flight). A request crossing a hop waits for the pipe to be free, holds it
//! for its bytes' serialisation time, and is delayed by the hop's latency;
//! so an idle path costs the sum of its latencies, and a loaded one runs at
//! the smallest pipe (or at tags x bytes / round trip, by Little's law).

use crate::units::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Fixed point: time in 1/1024 ps so that rates are exact enough.
const FP: u64 = 1024;
/// A pipe's calendar: slots of 2 ns over a sliding window of ~262 us.
const SLOT: u64 = 2_000 * FP;
const SLOTS: usize = 1 << 17;
/// A slot with less than this left counts as full (fragments left by
/// out-of-order bookings would otherwise make every request scan them).
const FULL: u64 = SLOT - SLOT / 64;
const _: () = assert!(SLOT < 1 << 32 && SLOTS < 1 << 32);

/// A server of bytes at a fixed rate. Requests may be booked out of time
/// order (a read's response is booked when its request is simulated, long
/// before later-issued requests), so the pipe keeps a calendar: each 2 ns
/// slot is filled up to a watermark, and a request takes the free time of
/// the slots from its arrival on. Booking a response in the future does not
/// delay an earlier request.
#[derive(Clone, Debug)]
pub struct Pipe {
    /// 1/1024 ps per byte.
    byte_fp: u64,
    /// The window's slots, slot `b` at index `b % SLOTS`. An entry left
    /// by a slot the window has dropped reads as empty: it is reset when
    /// its index is next used, so sliding the window costs nothing (an
    /// idle pipe's requests are microseconds apart, hundreds of slots).
    slots: Vec<Slot>,
    /// First slot of the window.
    base: u64,
    last_fp: u64,
    /// Slots [full_lo, full_hi) are known to be full: a request landing
    /// there skips to full_hi instead of scanning a saturated backlog.
    full_lo: u64,
    full_hi: u64,
    pub bytes: u64,
}

/// 16 B, so that a pipe's window stays 2 MiB.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// Which slot (absolute number) the entry holds.
    id: u64,
    /// Fill watermark, in 1/1024 ps from the slot's start (< SLOT).
    used: u32,
    /// How many slots on lies a slot up to which (not included) every
    /// slot is completely full, 0 if none is known (< SLOTS: both ends lie
    /// in the window). A slot only fills until the window drops it, so a
    /// hint stays true while both ends are in the window; a request behind
    /// a saturated backlog jumps along the hints (compressed as it goes,
    /// as in union-find) instead of visiting every full 2 ns slot.
    skip: u32,
}

impl Pipe {
    /// `mbs`: bandwidth in MB/s.
    pub fn new(mbs: u64) -> Pipe {
        Pipe {
            byte_fp: (1_000_000 * FP).div_ceil(mbs.max(1)),
            slots: vec![Slot::default(); SLOTS],
            base: 0,
            last_fp: 0,
            full_lo: 0,
            full_hi: 0,
            bytes: 0,
        }
    }

    /// Slot `b`, the window slid to hold it if it lies beyond. (A `b`
    /// below the window reads the entry at its index, whichever slot of
    /// the window that holds, as a stale bound of the full run may.)
    fn slot(&mut self, b: u64) -> &mut Slot {
        if b >= self.base + SLOTS as u64 {
            self.base = b + 1 - SLOTS as u64;
        }
        let e = &mut self.slots[b as usize % SLOTS];
        if e.id != b && (b >= self.base || e.id < self.base) {
            *e = Slot { id: b, used: 0, skip: 0 };
        }
        e
    }

    /// Pass `bytes` arriving at `now`; returns when the last byte has left.
    pub fn pass(&mut self, now: Time, bytes: u64) -> Time {
        self.bytes += bytes;
        let mut need = bytes * self.byte_fp;
        // requests older than the window are served at its start
        let mut t = (now * FP).max(self.base * SLOT);
        self.full_lo = self.full_lo.max(self.base);
        let first = t / SLOT;
        if (self.full_lo..self.full_hi).contains(&first) {
            t = self.full_hi * SLOT;
        }
        while need > 0 {
            let b = t / SLOT;
            let start = b * SLOT;
            let used = &mut self.slot(b).used;
            let s = t.max(start + *used as u64);
            if s >= start + SLOT {
                t = self.first_not_full(b) * SLOT;
                continue;
            }
            let take = need.min(start + SLOT - s);
            *used = (s + take - start) as u32;
            need -= take;
            t = s + take;
        }
        self.last_fp = self.last_fp.max(t);
        // extend (or start) the run of full slots this request filled
        let b = first.max(self.full_lo);
        if (b > self.full_hi || b < self.full_lo) && self.slot(b).used as u64 >= FULL {
            self.full_lo = b;
            self.full_hi = b;
        }
        while self.full_hi < self.base + SLOTS as u64 && self.slot(self.full_hi).used as u64 >= FULL {
            self.full_hi += 1;
        }
        t.div_ceil(FP)
    }

    /// The first slot after the full slot `b` that is not completely full.
    fn first_not_full(&mut self, b: u64) -> u64 {
        // (each x read here was just found full, so it is in the window)
        let (mut x, mut f) = (b, b + 1);
        loop {
            f = f.max(x + self.slot(x).skip as u64);
            if (self.slot(f).used as u64) < SLOT {
                break;
            }
            (x, f) = (f, f + 1);
        }
        // Compress: the slots visited (still in the window) point at f.
        let mut y = b;
        while y < f && y >= self.base {
            let e = self.slot(y);
            let next = (y + e.skip as u64).max(y + 1);
            e.skip = (f - y) as u32;
            y = next;
        }
        f
    }

    /// When the last booked byte leaves.
    pub fn free_at(&self) -> Time {
        self.last_fp.div_ceil(FP)
    }
}

/// A limit on requests in flight: a request takes the earliest free tag and
/// gives it back when its response has returned.
#[derive(Clone, Debug)]
pub struct Tags {
    free: BinaryHeap<Reverse<Time>>,
}

impl Tags {
    pub fn new(n: usize) -> Tags {
        Tags {
            free: (0..n.max(1)).map(|_| Reverse(0)).collect(),
        }
    }
    /// Take a tag for a request ready at `now`; returns when it may go.
    pub fn take(&mut self, now: Time) -> Time {
        let Reverse(t) = self
            .free
            .pop()
            .expect("tags are returned before the next take");
        t.max(now)
    }
    pub fn give_back(&mut self, at: Time) {
        self.free.push(Reverse(at));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_pipe_costs_serialisation_only() {
        let mut p = Pipe::new(1000); // 1 GB/s = 1 ps per ... 1000 ps per byte
        assert_eq!(p.pass(5_000, 64), 5_000 + 64_000);
    }

    #[test]
    fn a_saturated_pipe_runs_at_its_rate() {
        let mut p = Pipe::new(12_500);
        let mut end = 0;
        for _ in 0..10_000 {
            end = p.pass(0, 64);
        }
        let gbs = 10_000.0 * 64.0 / end as f64 * 1e3;
        assert!((gbs - 12.5).abs() < 0.01, "{gbs}");
    }

    #[test]
    fn a_response_booked_later_does_not_delay_an_earlier_request() {
        let mut p = Pipe::new(1000);
        p.pass(1_000_000, 64);
        assert_eq!(p.pass(0, 64), 64_000);
    }

    /// The pipe as first written: every full slot visited, dropped slots
    /// zeroed as the window slides.
    struct Reference {
        byte_fp: u64,
        used: Vec<u64>,
        base: u64,
        full_lo: u64,
        full_hi: u64,
    }

    impl Reference {
        fn new(mbs: u64) -> Reference {
            let byte_fp = (1_000_000 * FP).div_ceil(mbs.max(1));
            Reference { byte_fp, used: vec![0; SLOTS], base: 0, full_lo: 0, full_hi: 0 }
        }

        fn slot(&mut self, b: u64) -> &mut u64 {
            if b >= self.base + SLOTS as u64 {
                let new_base = b + 1 - SLOTS as u64;
                if new_base - self.base >= SLOTS as u64 {
                    self.used.iter_mut().for_each(|u| *u = 0);
                } else {
                    for old in self.base..new_base {
                        self.used[old as usize % SLOTS] = 0;
                    }
                }
                self.base = new_base;
            }
            &mut self.used[b as usize % SLOTS]
        }

        fn pass(&mut self, now: Time, bytes: u64) -> Time {
            let mut need = bytes * self.byte_fp;
            let mut t = (now * FP).max(self.base * SLOT);
            self.full_lo = self.full_lo.max(self.base);
            let first = t / SLOT;
            if (self.full_lo..self.full_hi).contains(&first) {
                t = self.full_hi * SLOT;
            }
            while need > 0 {
                let b = t / SLOT;
                let start = b * SLOT;
                let used = self.slot(b);
                let s = t.max(start + *used);
                if s >= start + SLOT {
                    t = start + SLOT;
                    continue;
                }
                let take = need.min(start + SLOT - s);
                *used = s + take - start;
                need -= take;
                t = s + take;
            }
            let b = first.max(self.full_lo);
            if (b > self.full_hi || b < self.full_lo) && *self.slot(b) >= FULL {
                self.full_lo = b;
                self.full_hi = b;
            }
            while self.full_hi < self.base + SLOTS as u64 && *self.slot(self.full_hi) >= FULL {
                self.full_hi += 1;
            }
            t.div_ceil(FP)
        }
    }

    /// Random bookings, many far ahead of the clock or behind a saturated
    /// backlog, some past the window, some after a long idle gap: the pipe
    /// with skip hints and lazily reset slots gives every request the time
    /// the plain slot-by-slot pipe gives it, and holds the same window.
    #[test]
    fn skip_hints_change_no_booking() {
        use crate::sim::rng;
        use rand::Rng as _;
        let mut r = rng(11, 0, 0);
        for rate in [1_000, 6_250, 100_000] {
            let (mut p, mut q) = (Pipe::new(rate), Reference::new(rate));
            let mut now: Time = 0;
            for i in 0..20_000 {
                now += if r.gen_range(0..50) == 0 { r.gen_range(0..2_000_000) } else { r.gen_range(0..4_000) };
                let at = match r.gen_range(0..10) {
                    0 => now + r.gen_range(0..400_000_000), // far ahead, past the window too
                    1 => now.saturating_sub(r.gen_range(0..1_000_000)),
                    _ => now,
                };
                let bytes = r.gen_range(1..5_000);
                assert_eq!(p.pass(at, bytes), q.pass(at, bytes), "rate {rate}, request {i}");
            }
            assert_eq!((p.base, p.full_lo, p.full_hi), (q.base, q.full_lo, q.full_hi));
            for b in p.base..p.base + SLOTS as u64 {
                assert_eq!(p.slot(b).used as u64, q.used[b as usize % SLOTS], "slot {b}");
            }
        }
    }

    /// After the window slides past the end of the full run, the run's
    /// stale end is read at its index, which now holds a slot of the
    /// window: that slot keeps its booking (the lazy reset must not wipe
    /// it), as the plain pipe keeps it.
    #[test]
    fn a_stale_end_of_the_full_run_leaves_the_slot_at_its_index_alone() {
        let (mut p, mut q) = (Pipe::new(1000), Reference::new(1000)); // 2 B per slot
        let slot_ps = SLOT / FP;
        let late = (1000 + SLOTS as u64) * slot_ps + slot_ps / 4; // at slot 1000's index
        for (at, bytes) in [(0, 2000), (late, 1), (late, 1), (late, 3)] {
            assert_eq!(p.pass(at, bytes), q.pass(at, bytes), "{bytes} B at {at} ps");
        }
    }

    #[test]
    fn tags_bound_requests_in_flight_littles_law() {
        // 4 tags, 1 us round trip: 4 requests per microsecond.
        let mut t = Tags::new(4);
        let mut last = 0;
        for _ in 0..400 {
            let go = t.take(0);
            last = go + 1_000_000;
            t.give_back(last);
        }
        assert_eq!(last, 100 * 1_000_000);
    }
}
