//! A set-associative cache of 64 B lines with per-access way masks (how CAT
//! and DDIO restrict allocation), LRU or random replacement, dirty bits and,
//! for an inclusive LLC, the set of private caches that hold each line.
//!
//! Only tags are kept: the simulator needs to know where a line is, never
//! its data.

use crate::sim::Rng;
use rand::Rng as _;

pub const LINE: u64 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Lru,
    Random,
}

/// How a line address picks its set.
#[derive(Clone, Copy, Debug)]
pub enum Indexing {
    /// `line % sets`: the textbook cache.
    Modulo,
    /// Intel's complex addressing: a hash of the address picks the slice,
    /// the low line bits pick the set within the slice.
    SliceHash { slices: u64, sets_per_slice: u64 },
}

/// A line evicted to make room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Victim {
    pub line: u64,
    pub dirty: bool,
    pub sharers: u64,
}

pub struct Cache {
    sets: u64,
    ways: usize,
    indexing: Indexing,
    policy: Policy,
    /// line + 1 per (set, way); 0 = invalid.
    tags: Vec<u64>,
    stamp: Vec<u64>,
    dirty: Vec<bool>,
    sharers: Vec<u64>,
    clock: u64,
    rng: Rng,
}

/// Fast 64-bit mixer (from MurmurHash3's finaliser) standing in for Intel's
/// undocumented slice hash: every address bit influences the slice.
#[inline]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

impl Cache {
    pub fn new(size_bytes: u64, ways: usize, indexing: Indexing, policy: Policy, rng: Rng) -> Cache {
        let sets = size_bytes / LINE / ways as u64;
        assert!(sets > 0, "cache smaller than one set");
        let n = (sets as usize) * ways;
        Cache {
            sets,
            ways,
            indexing,
            policy,
            tags: vec![0; n],
            stamp: vec![0; n],
            dirty: vec![false; n],
            sharers: vec![0; n],
            clock: 0,
            rng,
        }
    }

    pub fn sets(&self) -> u64 {
        self.sets
    }
    pub fn ways(&self) -> usize {
        self.ways
    }
    pub fn all_ways(&self) -> u64 {
        (1u64 << self.ways) - 1
    }

    #[inline]
    pub fn set_of(&self, line: u64) -> u64 {
        match self.indexing {
            Indexing::Modulo => line % self.sets,
            Indexing::SliceHash { slices, sets_per_slice } => {
                (mix(line) % slices) * sets_per_slice + (line % sets_per_slice)
            }
        }
    }

    /// Slot index of `line` if cached.
    #[inline]
    pub fn find(&self, line: u64) -> Option<usize> {
        let base = self.set_of(line) as usize * self.ways;
        let tag = line + 1;
        self.tags[base..base + self.ways].iter().position(|&t| t == tag).map(|w| base + w)
    }

    /// Mark a slot most recently used.
    #[inline]
    pub fn touch(&mut self, slot: usize) {
        self.clock += 1;
        self.stamp[slot] = self.clock;
    }

    pub fn set_dirty(&mut self, slot: usize) {
        self.dirty[slot] = true;
    }
    pub fn is_dirty(&self, slot: usize) -> bool {
        self.dirty[slot]
    }
    pub fn sharers(&self, slot: usize) -> u64 {
        self.sharers[slot]
    }
    pub fn add_sharer(&mut self, slot: usize, core: usize) {
        self.sharers[slot] |= 1 << core;
    }
    pub fn remove_sharer(&mut self, line: u64, core: usize) {
        if let Some(s) = self.find(line) {
            self.sharers[s] &= !(1 << core);
        }
    }
    pub fn clear_sharers(&mut self, slot: usize) {
        self.sharers[slot] = 0;
    }

    /// Insert `line` (known to be absent) into one of the ways in `mask`,
    /// evicting the least recently used (or a random) line among them.
    pub fn insert(&mut self, line: u64, mask: u64, dirty: bool) -> (usize, Option<Victim>) {
        debug_assert!(self.find(line).is_none());
        debug_assert!(mask != 0 && mask & !self.all_ways() == 0);
        let base = self.set_of(line) as usize * self.ways;
        let mut pick = usize::MAX;
        let mut oldest = u64::MAX;
        let mut allowed = 0u32;
        for w in 0..self.ways {
            if mask & (1 << w) == 0 {
                continue;
            }
            allowed += 1;
            let s = base + w;
            if self.tags[s] == 0 {
                pick = s;
                break;
            }
            if self.stamp[s] < oldest {
                oldest = self.stamp[s];
                pick = s;
            }
        }
        if self.policy == Policy::Random && self.tags[pick] != 0 {
            let k = self.rng.gen_range(0..allowed);
            pick = (0..self.ways).filter(|w| mask & (1 << w) != 0).nth(k as usize).unwrap() + base;
        }
        let victim = (self.tags[pick] != 0).then(|| Victim {
            line: self.tags[pick] - 1,
            dirty: self.dirty[pick],
            sharers: self.sharers[pick],
        });
        self.tags[pick] = line + 1;
        self.dirty[pick] = dirty;
        self.sharers[pick] = 0;
        self.touch(pick);
        (pick, victim)
    }

    /// Drop `line` if present; returns what it held.
    pub fn invalidate(&mut self, line: u64) -> Option<Victim> {
        let s = self.find(line)?;
        let v = Victim { line, dirty: self.dirty[s], sharers: self.sharers[s] };
        self.tags[s] = 0;
        self.dirty[s] = false;
        self.sharers[s] = 0;
        Some(v)
    }

    /// Valid lines (for occupancy invariants and tests).
    pub fn occupancy(&self) -> usize {
        self.tags.iter().filter(|&&t| t != 0).count()
    }

    /// Line address held by a valid slot.
    pub fn line_at(&self, slot: usize) -> u64 {
        self.tags[slot] - 1
    }

    /// Way of a slot (tests and DDIO occupancy).
    pub fn way_of(&self, slot: usize) -> usize {
        slot % self.ways
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng;
    use proptest::prelude::*;

    fn lru(sets: u64, ways: usize) -> Cache {
        Cache::new(sets * ways as u64 * LINE, ways, Indexing::Modulo, Policy::Lru, rng(1, 0, 0))
    }

    /// Reference model: a plain per-set LRU list.
    struct RefLru {
        sets: Vec<Vec<u64>>,
        ways: usize,
    }
    impl RefLru {
        fn access(&mut self, line: u64) -> bool {
            let n = self.sets.len() as u64;
            let set = &mut self.sets[(line % n) as usize];
            let hit = if let Some(p) = set.iter().position(|&l| l == line) {
                set.remove(p);
                true
            } else {
                if set.len() == self.ways {
                    set.remove(0);
                }
                false
            };
            set.push(line);
            hit
        }
    }

    fn access(c: &mut Cache, line: u64, mask: u64) -> bool {
        match c.find(line) {
            Some(s) => {
                c.touch(s);
                true
            }
            None => {
                c.insert(line, mask, false);
                false
            }
        }
    }

    proptest! {
        #[test]
        fn matches_reference_lru(trace in proptest::collection::vec(0u64..200, 1..2000)) {
            let mut c = lru(8, 4);
            let mut r = RefLru { sets: vec![vec![]; 8], ways: 4 };
            let all = c.all_ways();
            for &l in &trace {
                prop_assert_eq!(access(&mut c, l, all), r.access(l));
            }
            prop_assert!(c.occupancy() <= 32);
        }

        #[test]
        fn masked_insert_stays_in_mask(trace in proptest::collection::vec(0u64..500, 1..1000), mask in 1u64..16) {
            let mut c = lru(4, 4);
            for &l in &trace {
                if c.find(l).is_none() {
                    let (slot, _) = c.insert(l, mask, false);
                    prop_assert!(mask & (1 << c.way_of(slot)) != 0);
                }
            }
        }
    }

    #[test]
    fn cyclic_trace_larger_than_a_set_always_misses_under_lru() {
        // 3 lines cycling through a 2-way set: the classic LRU pathology.
        let mut c = lru(1, 2);
        let hits: usize = (0..300).map(|i| access(&mut c, i % 3, 0b11) as usize).sum();
        assert_eq!(hits, 0);
    }

    #[test]
    fn ddio_ways_confine_io_lines() {
        // 11 ways, I/O may allocate in 2: a stream of I/O lines into one set
        // never evicts the 9 core lines.
        let mut c = lru(1, 11);
        for l in 0..9 {
            c.insert(l, 0x1ff, false);
        }
        for l in 100..200 {
            if c.find(l).is_none() {
                c.insert(l, 0b110_0000_0000, true);
            }
        }
        for l in 0..9 {
            assert!(c.find(l).is_some(), "core line {l} was evicted by I/O");
        }
        assert_eq!(c.occupancy(), 11);
    }

    #[test]
    fn slice_hash_spreads_a_stride() {
        // A 4 KiB stride maps to one set under modulo indexing with 64 sets
        // per slice; the slice hash spreads it over the slices.
        let c = Cache::new(18 * 64 * 11 * 64, 11, Indexing::SliceHash { slices: 18, sets_per_slice: 64 }, Policy::Lru, rng(1, 0, 0));
        let mut used = std::collections::HashSet::new();
        for i in 0..1000u64 {
            used.insert(c.set_of(i * 64));
        }
        assert!(used.len() >= 17, "only {} sets used", used.len());
    }

    #[test]
    fn victims_report_dirty_lines() {
        let mut c = lru(1, 1);
        c.insert(5, 1, true);
        let (_, v) = c.insert(6, 1, false);
        assert_eq!(v, Some(Victim { line: 5, dirty: true, sharers: 0 }));
    }
}
