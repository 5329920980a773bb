//! The non-inclusive LLC of Skylake-SP and Cascade Lake, with its inclusive
//! snoop filter (`llc.inclusive = false`).
//!
//! What the hardware does, and the sources:
//! - A core's miss fills its L2 only; the LLC mostly holds L2 victims, clean
//!   or dirty (Intel Optimization Reference Manual, Skylake Server
//!   microarchitecture; Intel Xeon Scalable platform overview). Which L2
//!   victims the LLC keeps is not published; the model inserts every one.
//! - A core's LLC hit moves the line into its L2 and out of the LLC, as the
//!   DDIO studies describe for a DMA'd buffer the core reads (Alian et al.,
//!   IDIO, MICRO'20; Yuan et al., ISCA'21): it comes back to the LLC, in
//!   the core's CAT ways, when the L2 evicts it.
//! - An LLC eviction does not touch the L2s. The snoop filter tracks every
//!   line an L2 holds, with the same sets as the LLC and `llc.sf_ways` ways
//!   per set (12 on Skylake-SP: Yan et al., S&P'19; McCalpin, Intel forum
//!   "Directory Structure in Skylake Server CPUs"); evicting one of its
//!   entries invalidates the L2 copies it tracked, which then leave as L2
//!   victims do. An entry's dirty bit says whether one of its L2 copies
//!   is modified (at most one can be: a store drops the other copies), so
//!   a miss learns whether its snoop finds modified data without asking
//!   the L2s (the directory state a snoop filter keeps).
//! - DDIO: a DMA write invalidates L2 copies (tracked by the snoop filter)
//!   and then updates the line in the LLC if it is there or allocates it in
//!   the DDIO ways. It counts as a write hit when the lookup finds the line
//!   in the LLC or in the snoop filter: on Skylake-SP the two share one tag
//!   array per slice (12 snoop-filter + 11 LLC ways looked up together:
//!   Yan et al., S&P'19; McCalpin, Intel forum), and PCM counts PCIe
//!   write hits and misses from the CHA's TOR inserts, which that lookup
//!   classifies (our reading of PCM and the uncore manual, not verified on
//!   hardware). A DMA read
//!   is served by the LLC, by snooping an L2 that holds the line, or by
//!   DRAM.

use super::cache::Victim;
use super::Memory;
use crate::units::Time;

impl Memory {
    /// A core access to a modelled line, non-inclusive hierarchy.
    pub(super) fn core_access_ni(&mut self, core: usize, line: u64, write: bool, now: Time) -> Time {
        match self.l2[core].lookup(line) {
            Err(l2_set) => self.l2_miss_ni(core, line, l2_set, write, now),
            Ok(s) => self.l2_hit_ni(core, s, line, write),
        }
    }

    /// A miss of `core`'s L2 (`l2_set`: the line's set there): served by
    /// another L2, the LLC or DRAM, and filled into the L2.
    pub(super) fn l2_miss_ni(&mut self, core: usize, line: u64, l2_set: usize, write: bool, now: Time) -> Time {
        let me = 1u64 << core;
        // (the snoop filter indexes lines as the LLC does: one hash serves both)
        let set = self.llc.set_of(line) as usize;
        let sf = self.sf.as_ref().expect("non-inclusive");
        let mut tracked = sf.lookup_in(set, line).ok();
        let others = tracked.map_or(0, |fs| sf.sharers(fs) & !me);
        let mut dirty = write;
        let lat = if others != 0 {
            // Another core's L2 holds it: a snoop serves it, invalidating
            // that copy for a store (its dirty data moves here).
            self.stats.core_llc_hits += 1;
            let modified = sf.is_dirty(tracked.expect("tracked"));
            debug_assert_eq!(modified, self.modified_elsewhere(line, others));
            if write {
                dirty |= self.sf_invalidate(tracked.take().expect("tracked"), line, None);
            } else if modified {
                self.l1_share(line, others);
            }
            if write || modified {
                self.snoop_lat
            } else {
                self.llc_lat
            }
        } else if let Ok(ls) = self.llc.lookup_in(set, line) {
            // An LLC hit moves the line up.
            self.stats.core_llc_hits += 1;
            dirty |= self.llc.is_dirty(ls);
            self.llc.clear(ls);
            self.llc_lat
        } else {
            self.core_dram_read(core, line, now)
        };
        self.sf_track(set, tracked, line, core, dirty, now);
        let all = self.l2[core].all_ways();
        let (_, victim) = self.l2[core].insert_at(l2_set, line, all, dirty);
        if let Some(v) = victim {
            self.l2_evict_ni(core, v, now);
        }
        lat
    }

    /// A hit in `core`'s L2 at slot `s`.
    #[inline(always)]
    fn l2_hit_ni(&mut self, core: usize, s: usize, line: u64, write: bool) -> Time {
        self.l2[core].touch(s);
        self.stats.core_l2_hits += 1;
        if write {
            self.l2[core].set_dirty(s);
            // A store to a shared line invalidates the other copies.
            let sf = self.sf.as_mut().expect("non-inclusive");
            if let Some(fs) = sf.find(line) {
                sf.set_dirty(fs); // (its copy is now the modified one)
                if sf.sharers(fs) & !(1u64 << core) != 0 {
                    self.sf_invalidate(fs, line, Some(core));
                    return self.snoop_lat;
                }
            }
        }
        self.l2_lat
    }

    /// Record that `core`'s L2 now holds `line` of set `set` (`dirty`:
    /// modified), whose snoop-filter entry is `tracked` (if it has one); a
    /// snoop-filter entry evicted for it takes its L2 copies with it.
    fn sf_track(&mut self, set: usize, tracked: Option<usize>, line: u64, core: usize, dirty: bool, now: Time) {
        let sf = self.sf.as_mut().expect("non-inclusive");
        debug_assert_eq!(tracked, sf.lookup_in(set, line).ok());
        let (fs, victim) = match tracked {
            Some(fs) => {
                sf.touch(fs);
                (fs, None)
            }
            None => {
                let all = sf.all_ways();
                sf.insert_at(set, line, all, false)
            }
        };
        sf.add_sharer(fs, core);
        if dirty {
            sf.set_dirty(fs);
        }
        if let Some(v) = victim {
            self.stats.sf_back_invalidations += v.sharers.count_ones() as u64;
            let mut s = v.sharers;
            while s != 0 {
                let c = s.trailing_zeros() as usize;
                s &= s - 1;
                if let Some(was_dirty) = self.l2[c].remove(v.line) {
                    self.llc_fill(set, c, v.line, was_dirty, now);
                }
            }
        }
    }

    /// `core`'s L2 evicted `v`: the snoop filter forgets that copy, and the
    /// line goes to the LLC, in the core's CAT ways.
    fn l2_evict_ni(&mut self, core: usize, v: Victim, now: Time) {
        let set = self.llc.set_of(v.line) as usize;
        let sf = self.sf.as_mut().expect("non-inclusive");
        if let Ok(fs) = sf.lookup_in(set, v.line) {
            sf.remove_sharer(fs, core);
            if sf.sharers(fs) == 0 {
                sf.clear(fs);
            } else if v.dirty {
                // (the one modified copy has gone)
                sf.clear_dirty(fs);
            }
        }
        self.llc_fill(set, core, v.line, v.dirty, now);
    }

    /// Put an L2 victim of `core` into the LLC (`set` is its set there),
    /// or merge it with the copy there; the LLC's own victim goes to DRAM if
    /// dirty.
    fn llc_fill(&mut self, set: usize, core: usize, line: u64, dirty: bool, now: Time) {
        match self.llc.lookup_in(set, line) {
            Ok(ls) => {
                self.llc.touch(ls);
                if dirty {
                    self.llc.set_dirty(ls);
                }
            }
            Err(set) => {
                let (_, victim) = self.llc.insert_at(set, line, self.core_mask[core], dirty);
                if let Some(v) = victim {
                    self.evict_llc(v, now);
                }
            }
        }
    }

    /// Drop the L2 copies of `line`, which the snoop-filter slot `fs`
    /// tracks, but `keep`'s; returns whether a dropped copy was dirty.
    pub(super) fn sf_invalidate(&mut self, fs: usize, line: u64, keep: Option<usize>) -> bool {
        let sf = self.sf.as_mut().expect("non-inclusive");
        debug_assert_eq!(sf.line_at(fs), line);
        let sharers = sf.sharers(fs);
        let kept = sharers & keep.map_or(0, |k| 1u64 << k);
        sf.clear_sharers(fs);
        if kept == 0 {
            sf.clear(fs);
        } else {
            sf.add_sharer(fs, keep.expect("kept"));
        }
        self.drop_l2_copies(line, sharers & !kept)
    }

    /// Drop every L2 copy of `line` in LLC set `set` (the snoop filter's
    /// set too); `None` if no L2 held it, else whether a copy was dirty.
    pub(super) fn sf_drop(&mut self, set: usize, line: u64) -> Option<bool> {
        match self.sf.as_ref().map(|sf| sf.lookup_in(set, line)) {
            Some(Ok(fs)) => Some(self.sf_invalidate(fs, line, None)),
            _ => None,
        }
    }

    /// Whether an L2 holds `line` of LLC set `set`.
    pub(super) fn in_some_l2(&self, set: usize, line: u64) -> bool {
        self.sf.as_ref().is_some_and(|sf| sf.lookup_in(set, line).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::super::DmaMode;
    use super::*;
    use crate::run::validated as validate;
    use serde_json::json;

    /// One 11-way LLC slice of 1024 sets, 64 KiB L2s (64 sets x 16), a
    /// 12-way snoop filter, two cores.
    fn ni(sf_ways: u64) -> Memory {
        let c = validate(&json!({
            "llc": {"size": "704KiB", "ways": 11, "slices": 1, "slice_hash": "none", "inclusive": false, "sf_ways": sf_ways},
            "l2": {"size": "64KiB", "prefetch_adjacent": false, "prefetch_streamer": false}, "mem": {"hugepage": "flat"},
            "l1d": {"size": 0}
        }))
        .unwrap();
        Memory::new(&c.mem, &c.llc, &c.l1d, &c.l2, &c.dram, 1, vec![0x7ff, 0x7ff])
    }

    const A: u64 = 0x1_0000_0000;


    /// A plain reference of the non-inclusive hierarchy: every cache a list
    /// of ways per set with an explicit recency order, written from the
    /// rules in this module's header alone.
    mod reference {
        /// One set: per way an entry, and the ways from most to least recent.
        #[derive(Clone)]
        struct Set<T> {
            way: Vec<Option<T>>,
            order: Vec<usize>,
        }

        impl<T: Clone> Set<T> {
            fn new(ways: usize) -> Self {
                Set { way: vec![None; ways], order: (0..ways).collect() }
            }
            fn touch(&mut self, w: usize) {
                self.order.retain(|&x| x != w);
                self.order.insert(0, w);
            }
            /// Put `e` in a free allowed way (lowest first) or the least
            /// recent allowed one; returns what it replaced.
            fn insert(&mut self, e: T, mask: u64) -> Option<T> {
                let allowed = |w: &usize| mask >> w & 1 == 1;
                let w = (0..self.way.len())
                    .filter(allowed)
                    .find(|&w| self.way[w].is_none())
                    .or_else(|| self.order.iter().rev().copied().find(allowed))
                    .expect("an allowed way");
                let old = self.way[w].replace(e);
                self.touch(w);
                old
            }
        }

        pub struct Line {
            pub line: u64,
            pub dirty: bool,
        }
        impl Clone for Line {
            fn clone(&self) -> Self {
                Line { line: self.line, dirty: self.dirty }
            }
        }
        #[derive(Clone)]
        struct Entry {
            line: u64,
            sharers: u64,
        }

        #[derive(Default, Debug, PartialEq, Eq)]
        pub struct Counts {
            pub l2_hits: u64,
            pub llc_hits: u64,
            pub misses: u64,
            pub invalidations: u64,
            pub back_invalidations: u64,
            pub wr_hits: u64,
            pub wr_misses: u64,
            pub rd_hits: u64,
            pub rd_misses: u64,
            pub dram_writes: u64,
        }

        pub struct Model {
            l2: Vec<Vec<Set<Line>>>,
            llc: Vec<Set<Line>>,
            sf: Vec<Set<Entry>>,
            ddio: u64,
            pub n: Counts,
        }

        /// Where an access was served.
        #[derive(Debug, PartialEq, Eq, Clone, Copy)]
        pub enum Served {
            L2,
            Llc,
            Snoop,
            Dram,
        }

        impl Model {
            pub fn new(cores: usize, l2_sets: usize, l2_ways: usize, sets: usize, ways: usize, sf_ways: usize, ddio: u64) -> Self {
                Model {
                    l2: vec![vec![Set::new(l2_ways); l2_sets]; cores],
                    llc: vec![Set::new(ways); sets],
                    sf: vec![Set::new(sf_ways); sets],
                    ddio,
                    n: Counts::default(),
                }
            }
            fn l2_find(&self, c: usize, line: u64) -> Option<usize> {
                let s = &self.l2[c][line as usize % self.l2[c].len()];
                (0..s.way.len()).find(|&w| s.way[w].as_ref().is_some_and(|e| e.line == line))
            }
            fn llc_find(&self, line: u64) -> Option<usize> {
                let s = &self.llc[line as usize % self.llc.len()];
                (0..s.way.len()).find(|&w| s.way[w].as_ref().is_some_and(|e| e.line == line))
            }
            fn sf_find(&self, line: u64) -> Option<usize> {
                let s = &self.sf[line as usize % self.sf.len()];
                (0..s.way.len()).find(|&w| s.way[w].as_ref().is_some_and(|e| e.line == line))
            }
            fn sharers(&self, line: u64) -> u64 {
                self.sf_find(line).map_or(0, |w| self.sf[line as usize % self.sf.len()].way[w].as_ref().unwrap().sharers)
            }
            /// Drop core `c`'s copy; its dirty bit.
            fn l2_drop(&mut self, c: usize, line: u64) -> Option<bool> {
                let w = self.l2_find(c, line)?;
                let n = self.l2[c].len();
                self.l2[c][line as usize % n].way[w].take().map(|e| e.dirty)
            }
            /// The SF entry keeps only `keep`'s copy (or goes); the dropped
            /// copies' dirtiness.
            fn invalidate(&mut self, line: u64, keep: Option<usize>) -> bool {
                let sharers = self.sharers(line);
                let kept = keep.map_or(0, |k| 1 << k) & sharers;
                let set = line as usize % self.sf.len();
                let w = self.sf_find(line).expect("tracked");
                if kept == 0 {
                    self.sf[set].way[w] = None;
                } else {
                    self.sf[set].way[w].as_mut().unwrap().sharers = kept;
                }
                let mut dirty = false;
                for c in 0..self.l2.len() {
                    if (sharers & !kept) >> c & 1 == 1 {
                        self.n.invalidations += 1;
                        dirty |= self.l2_drop(c, line).unwrap_or(false);
                    }
                }
                dirty
            }
            fn llc_fill(&mut self, line: u64, dirty: bool) {
                let set = line as usize % self.llc.len();
                if let Some(w) = self.llc_find(line) {
                    self.llc[set].touch(w);
                    self.llc[set].way[w].as_mut().unwrap().dirty |= dirty;
                } else if let Some(v) = self.llc[set].insert(Line { line, dirty }, u64::MAX) {
                    self.n.dram_writes += v.dirty as u64;
                }
            }

            pub fn core(&mut self, c: usize, line: u64, write: bool) -> Served {
                let me = 1u64 << c;
                let l2_set = line as usize % self.l2[c].len();
                if let Some(w) = self.l2_find(c, line) {
                    self.n.l2_hits += 1;
                    self.l2[c][l2_set].touch(w);
                    if write {
                        self.l2[c][l2_set].way[w].as_mut().unwrap().dirty = true;
                        if self.sharers(line) & !me != 0 {
                            self.invalidate(line, Some(c));
                            return Served::Snoop;
                        }
                    }
                    return Served::L2;
                }
                let others = self.sharers(line) & !me;
                let mut dirty = write;
                let served = if others != 0 {
                    self.n.llc_hits += 1;
                    let modified = (0..self.l2.len()).any(|o| {
                        others >> o & 1 == 1
                            && self.l2_find(o, line).is_some_and(|w| self.l2[o][l2_set].way[w].as_ref().unwrap().dirty)
                    });
                    if write {
                        dirty |= self.invalidate(line, None);
                    }
                    if write || modified { Served::Snoop } else { Served::Llc }
                } else if let Some(w) = self.llc_find(line) {
                    self.n.llc_hits += 1;
                    let set = line as usize % self.llc.len();
                    dirty |= self.llc[set].way[w].take().unwrap().dirty;
                    Served::Llc
                } else {
                    self.n.misses += 1;
                    Served::Dram
                };
                // the snoop filter tracks the new copy
                let set = line as usize % self.sf.len();
                if let Some(w) = self.sf_find(line) {
                    self.sf[set].touch(w);
                    self.sf[set].way[w].as_mut().unwrap().sharers |= me;
                } else if let Some(v) = self.sf[set].insert(Entry { line, sharers: me }, u64::MAX) {
                    for o in 0..self.l2.len() {
                        if v.sharers >> o & 1 == 1 {
                            self.n.back_invalidations += 1;
                            if let Some(d) = self.l2_drop(o, v.line) {
                                self.llc_fill(v.line, d);
                            }
                        }
                    }
                }
                if let Some(v) = self.l2[c][l2_set].insert(Line { line, dirty }, u64::MAX) {
                    if let Some(w) = self.sf_find(v.line) {
                        let vs = v.line as usize % self.sf.len();
                        let e = self.sf[vs].way[w].as_mut().unwrap();
                        e.sharers &= !me;
                        if e.sharers == 0 {
                            self.sf[vs].way[w] = None;
                        }
                    }
                    self.llc_fill(v.line, v.dirty);
                }
                served
            }

            pub fn dma_write(&mut self, line: u64) {
                let in_l2 = self.sf_find(line).is_some();
                if in_l2 {
                    self.invalidate(line, None);
                }
                let set = line as usize % self.llc.len();
                if let Some(w) = self.llc_find(line) {
                    self.n.wr_hits += 1;
                    self.llc[set].touch(w);
                    self.llc[set].way[w].as_mut().unwrap().dirty = true;
                } else {
                    // a snoop-filter hit counts as a hit, and allocates
                    if in_l2 {
                        self.n.wr_hits += 1;
                    } else {
                        self.n.wr_misses += 1;
                    }
                    if let Some(v) = self.llc[set].insert(Line { line, dirty: true }, self.ddio) {
                        self.n.dram_writes += v.dirty as u64;
                    }
                }
            }

            pub fn dma_read(&mut self, line: u64) -> Served {
                let set = line as usize % self.llc.len();
                if let Some(w) = self.llc_find(line) {
                    self.n.rd_hits += 1;
                    self.llc[set].touch(w);
                    Served::Llc
                } else if self.sf_find(line).is_some() {
                    self.n.rd_hits += 1;
                    Served::Snoop
                } else {
                    self.n.rd_misses += 1;
                    Served::Dram
                }
            }
        }
    }

    /// The hierarchy agrees with the reference on every access of random
    /// traces over a few crowded sets: where each access is served, and
    /// every counter (hits, misses, invalidations, back-invalidations,
    /// write-backs).
    #[test]
    fn agrees_with_a_plain_reference_model() {
        use rand::Rng as _;
        use reference::{Model, Served};
        for seed in 0..6u64 {
            let sf_ways = [12, 2, 4][seed as usize % 3];
            let mut m = ni(sf_ways);
            let mut r = Model::new(2, 64, 16, 1024, 11, sf_ways as usize, 0x600);
            let mut rng = crate::sim::rng(seed, 0, 0);
            // 4 LLC sets (and L2 sets), 40 lines each: all three levels
            // overflow
            let lines: Vec<u64> = (0..4u64).flat_map(|s| (0..40u64).map(move |k| (1 << 24) + s + k * 1024)).collect();
            let served = |m: &Memory, lat: Time| match lat {
                l if l == m.l2_lat => Served::L2,
                l if l == m.llc_lat => Served::Llc,
                l if l == m.snoop_lat => Served::Snoop,
                _ => Served::Dram,
            };
            for t in 0..30_000u64 {
                let line = lines[rng.gen_range(0..lines.len())];
                // far apart in time: DRAM is idle, so latencies name the level
                let now = t * 1_000_000;
                match rng.gen_range(0..6) {
                    0 => {
                        m.dma_write(line * 64, 64, DmaMode::Ddio, now);
                        r.dma_write(line);
                    }
                    1 => {
                        let lat = m.dma_read(line * 64, 64, DmaMode::Ddio, now);
                        assert_eq!(served(&m, lat), r.dma_read(line), "seed {seed} t {t}: DMA read of {line:#x}");
                    }
                    k => {
                        let (core, write) = ((k % 2) as usize, k >= 4);
                        let lat = m.core_access(core, line * 64, write, now);
                        assert_eq!(served(&m, lat), r.core(core, line, write), "seed {seed} t {t}: core {core} {write} {line:#x}");
                    }
                }
            }
            let s = m.stats;
            let got = reference::Counts {
                l2_hits: s.core_l2_hits,
                llc_hits: s.core_llc_hits,
                misses: s.core_llc_misses,
                invalidations: s.coherence_invalidations,
                back_invalidations: s.sf_back_invalidations,
                wr_hits: s.dma_write_hits,
                wr_misses: s.dma_write_misses,
                rd_hits: s.dma_read_hits,
                rd_misses: s.dma_read_misses,
                dram_writes: s.dram_write_bytes / 64,
            };
            assert_eq!(got, r.n, "seed {seed}, {sf_ways} snoop-filter ways");
            assert!(r.n.back_invalidations > 0 || sf_ways == 12);
        }
    }

    #[test]
    fn a_miss_fills_the_l2_only_and_the_l2_victim_goes_to_the_llc() {
        let mut m = ni(12);
        m.core_access(0, A, false, 0);
        assert_eq!(m.llc.occupancy(), 0, "DRAM fills bypass the LLC");
        assert_eq!(m.core_access(0, A, false, 0), m.l2_lat);
        // 16 more lines of the same L2 set (64 sets) evict A from the L2
        for i in 1..=16u64 {
            m.core_access(0, A + i * 64 * 64, false, 0);
        }
        assert!(m.llc.find(A / 64).is_some(), "the L2 victim is in the LLC");
        // reading it again is an LLC hit, and moves it out of the LLC
        assert_eq!(m.core_access(0, A, false, 0), m.llc_lat);
        assert!(m.llc.find(A / 64).is_none());
    }

    #[test]
    fn llc_evictions_leave_l2_copies_alone() {
        let mut m = ni(12);
        // core 0 holds A in its L2; DDIO writes 3 x 11 lines into A's LLC
        // set (inclusive, the LLC would hold A and evict it)
        m.core_access(0, A, false, 0);
        let sets = m.llc.sets();
        for i in 1..34u64 {
            m.dma_write(A + i * sets * 64, 64, DmaMode::Ddio, 0);
        }
        assert_eq!(m.stats.dma_write_misses, 33);
        assert_eq!(m.core_access(0, A, false, 0), m.l2_lat, "still in core 0's L2");
    }

    #[test]
    fn a_full_snoop_filter_set_back_invalidates_an_l2_copy() {
        // 2 snoop-filter ways: a third line of one LLC set held in L2s
        // pushes the oldest out of its L2 (into the LLC).
        let mut m = ni(2);
        let sets = m.llc.sets() * 64;
        m.core_access(0, A, false, 0);
        m.core_access(1, A + sets, false, 0);
        m.core_access(1, A + 2 * sets, false, 0);
        assert_eq!(m.stats.sf_back_invalidations, 1);
        assert!(m.llc.find(A / 64).is_some());
        assert_eq!(m.core_access(0, A, false, 0), m.llc_lat);
    }

    #[test]
    fn ddio_writes_invalidate_l2_copies_and_allocate_in_the_llc() {
        let mut m = ni(12);
        m.core_access(0, A, false, 0);
        m.dma_write(A, 64, DmaMode::Ddio, 0);
        assert_eq!(m.stats.coherence_invalidations, 1);
        assert_eq!(m.stats.dma_write_hits, 1, "a snoop-filter hit is a hit");
        assert!(m.llc.find(A / 64).is_some(), "and the line is allocated");
        // the core now reads the DMA'd line from the LLC (it moves up); a
        // second DMA write finds it in the core's L2 only: a hit again
        assert_eq!(m.core_access(0, A, false, 0), m.llc_lat);
        m.dma_write(A, 64, DmaMode::Ddio, 0);
        assert_eq!((m.stats.dma_write_hits, m.stats.dma_write_misses), (2, 0));
        m.dma_write(A + 128, 64, DmaMode::Ddio, 0);
        assert_eq!(m.stats.dma_write_misses, 1, "in no cache: a miss");
        // a DMA read of a line only an L2 holds is served on chip
        m.core_access(1, A + 64, true, 0);
        m.dma_read(A + 64, 64, DmaMode::Ddio, 0);
        assert_eq!((m.stats.dma_read_hits, m.stats.dma_read_misses), (1, 0));
    }

    #[test]
    fn a_store_to_a_line_another_core_holds_snoops_it() {
        let mut m = ni(12);
        m.core_access(0, A, true, 0);
        assert_eq!(m.core_access(1, A, false, 0), m.snoop_lat, "modified elsewhere");
        assert_eq!(m.core_access(1, A, true, 0), m.snoop_lat, "shared: invalidate core 0");
        assert_eq!(m.core_access(0, A, false, 0), m.snoop_lat);
    }

    /// The snoop filter's dirty bit follows the one modified copy: a read
    /// that finds it snoops modified data; once that copy has left its L2,
    /// the clean copy left behind serves at LLC latency.
    #[test]
    fn a_modified_copy_leaving_its_l2_clears_the_snoop_filter_dirty_bit() {
        let mut m = ni(12);
        m.core_access(0, A, true, 0);
        assert_eq!(m.core_access(1, A, false, 0), m.snoop_lat, "modified in core 0");
        // 16 more lines of the same L2 set (64 sets) evict A from core 0's L2
        for i in 1..=16u64 {
            m.core_access(0, A + i * 64 * 64, false, 0);
        }
        assert_eq!(m.core_access(0, A, false, 0), m.llc_lat, "only core 1's clean copy is left");
    }
}
