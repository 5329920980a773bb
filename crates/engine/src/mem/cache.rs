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
    /// One entry per (set, way), the ways of a set adjacent: a lookup
    /// touches one contiguous run of memory.
    slots: Vec<Slot>,
    clock: u32,
    rng: Rng,
}

/// One way of one set, packed to 16 bytes.
#[derive(Clone, Copy, Default)]
struct Slot {
    /// line + 1; 0 = invalid. The top bit is the dirty bit.
    tag: u64,
    /// LRU stamp: larger = more recent.
    stamp: u32,
    /// Private caches (cores) holding the line, for an inclusive LLC.
    sharers: u32,
}

const DIRTY: u64 = 1 << 63;

impl Slot {
    #[inline]
    fn line_tag(&self) -> u64 {
        self.tag & !DIRTY
    }
}

/// A zeroed vector backed by transparent huge pages where the OS allows:
/// lookups land on random sets, and with 4 KiB pages nearly every one
/// would also miss the host's TLB.
fn huge_vec(n: usize) -> Vec<Slot> {
    // Advise before the first touch, so the pages are born huge.
    let mut v = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = (v.as_ptr() as usize).next_multiple_of(HUGE);
        let end = (v.as_ptr() as usize + n * std::mem::size_of::<Slot>()) / HUGE * HUGE;
        if end > start {
            // Advice only: failure leaves ordinary pages, which is correct.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    v.resize(n, Slot::default());
    v
}

/// Most cores whose copies one cache can track.
pub const MAX_SHARERS: usize = 32;

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
        Cache { sets, ways, indexing, policy, slots: huge_vec(sets as usize * ways), clock: 0, rng }
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

    /// The set of a line. Sets are numbered set-within-slice major, so the
    /// consecutive lines of a buffer fall in nearby memory of the model
    /// (the slice is a hash; the set within the slice the low line bits).
    #[inline]
    pub fn set_of(&self, line: u64) -> u64 {
        match self.indexing {
            Indexing::Modulo => line % self.sets,
            Indexing::SliceHash { slices, sets_per_slice } => {
                // Multiply-shift maps the hash onto 0..slices without a division.
                let slice = ((mix(line) as u128 * slices as u128) >> 64) as u64;
                (line & (sets_per_slice - 1)) * slices + slice
            }
        }
    }

    /// Ask the host CPU to start loading the set of `line`: a DMA touches
    /// many lines whose sets are independent, and overlapping those host
    /// cache misses is most of the model's speed.
    #[inline]
    pub fn prefetch(&self, line: u64) {
        #[cfg(target_arch = "x86_64")]
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let p = self.slots.as_ptr().add(self.set_of(line) as usize * self.ways) as *const i8;
            _mm_prefetch(p, _MM_HINT_T0);
            _mm_prefetch(p.add(64), _MM_HINT_T0);
            _mm_prefetch(p.add(128), _MM_HINT_T0);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = line;
    }

    /// Slot index of `line` if cached.
    #[inline]
    pub fn find(&self, line: u64) -> Option<usize> {
        let base = self.set_of(line) as usize * self.ways;
        let tag = line + 1;
        self.slots[base..base + self.ways].iter().position(|s| s.line_tag() == tag).map(|w| base + w)
    }

    /// Mark a slot most recently used.
    #[inline]
    pub fn touch(&mut self, slot: usize) {
        if self.clock == u32::MAX {
            self.renumber();
        }
        self.clock += 1;
        self.slots[slot].stamp = self.clock;
    }

    /// Stamps wrap after 4 billion touches: squeeze them, keeping each
    /// set's order (stamps are only compared within a set).
    #[cold]
    fn renumber(&mut self) {
        for set in self.slots.chunks_mut(self.ways) {
            let mut order: Vec<usize> = (0..set.len()).collect();
            order.sort_by_key(|&w| set[w].stamp);
            for (rank, w) in order.into_iter().enumerate() {
                set[w].stamp = rank as u32;
            }
        }
        self.clock = self.ways as u32;
    }

    pub fn set_dirty(&mut self, slot: usize) {
        self.slots[slot].tag |= DIRTY;
    }
    pub fn is_dirty(&self, slot: usize) -> bool {
        self.slots[slot].tag & DIRTY != 0
    }
    pub fn sharers(&self, slot: usize) -> u64 {
        self.slots[slot].sharers as u64
    }
    pub fn add_sharer(&mut self, slot: usize, core: usize) {
        self.slots[slot].sharers |= 1 << core;
    }
    pub fn remove_sharer(&mut self, line: u64, core: usize) {
        if let Some(s) = self.find(line) {
            self.slots[s].sharers &= !(1 << core);
        }
    }
    pub fn clear_sharers(&mut self, slot: usize) {
        self.slots[slot].sharers = 0;
    }

    /// Insert `line` (known to be absent) into one of the ways in `mask`,
    /// evicting the least recently used (or a random) line among them.
    pub fn insert(&mut self, line: u64, mask: u64, dirty: bool) -> (usize, Option<Victim>) {
        debug_assert!(self.find(line).is_none());
        debug_assert!(mask != 0 && mask & !self.all_ways() == 0);
        let base = self.set_of(line) as usize * self.ways;
        let mut pick = usize::MAX;
        let mut oldest = u32::MAX;
        let mut allowed = 0u32;
        for w in 0..self.ways {
            if mask & (1 << w) == 0 {
                continue;
            }
            allowed += 1;
            let s = &self.slots[base + w];
            if s.tag == 0 {
                pick = base + w;
                break;
            }
            if s.stamp < oldest {
                oldest = s.stamp;
                pick = base + w;
            }
        }
        if self.policy == Policy::Random && self.slots[pick].tag != 0 {
            let k = self.rng.gen_range(0..allowed);
            pick = (0..self.ways).filter(|w| mask & (1 << w) != 0).nth(k as usize).unwrap() + base;
        }
        let old = self.slots[pick];
        let victim = (old.tag != 0).then(|| Victim { line: old.line_tag() - 1, dirty: old.tag & DIRTY != 0, sharers: old.sharers as u64 });
        self.slots[pick] = Slot { tag: (line + 1) | if dirty { DIRTY } else { 0 }, stamp: 0, sharers: 0 };
        self.touch(pick);
        (pick, victim)
    }

    /// Drop `line` if present; returns what it held.
    pub fn invalidate(&mut self, line: u64) -> Option<Victim> {
        let s = self.find(line)?;
        let old = std::mem::take(&mut self.slots[s]);
        Some(Victim { line, dirty: old.tag & DIRTY != 0, sharers: old.sharers as u64 })
    }

    /// Valid lines (for occupancy invariants and tests).
    pub fn occupancy(&self) -> usize {
        self.slots.iter().filter(|s| s.tag != 0).count()
    }

    /// Line address held by a valid slot.
    pub fn line_at(&self, slot: usize) -> u64 {
        self.slots[slot].line_tag() - 1
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
    fn lru_order_survives_stamp_wraparound() {
        let mut c = lru(1, 4);
        c.clock = u32::MAX - 2;
        for l in 0..4 {
            c.insert(l, 0xf, false);
        }
        // Line 0 is the oldest across the wrap: it is the victim.
        let (_, v) = c.insert(9, 0xf, false);
        assert_eq!(v.unwrap().line, 0);
        let (_, v) = c.insert(10, 0xf, false);
        assert_eq!(v.unwrap().line, 1);
    }

    #[test]
    fn victims_report_dirty_lines() {
        let mut c = lru(1, 1);
        c.insert(5, 1, true);
        let (_, v) = c.insert(6, 1, false);
        assert_eq!(v, Some(Victim { line: 5, dirty: true, sharers: 0 }));
    }
}
