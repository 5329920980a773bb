//! The non-inclusive LLC of Skylake-SP and Cascade Lake, with its inclusive
//! snoop filter (`llc.inclusive = false`).
//!
//! What the hardware does, and the sources:
//! - A core's miss fills its L2 only; the LLC mostly holds L2 victims, clean
//!   or dirty (Intel Optimization Reference Manual, Skylake Server
//!   microarchitecture: "the LLC is non-inclusive"; Intel Xeon Scalable
//!   platform overview). Intel says victims are inserted subject to a
//!   heuristic it does not publish; the model inserts every one.
//! - A core's LLC hit moves the line into its L2 and out of the LLC, as the
//!   DDIO studies describe for a DMA'd buffer the core reads (Alian et al.,
//!   IDIO, MICRO'20; Yuan et al., ISCA'21): it comes back to the LLC, in
//!   the core's CAT ways, when the L2 evicts it.
//! - An LLC eviction does not touch the L2s. The snoop filter tracks every
//!   line an L2 holds, with the same sets as the LLC and `llc.sf_ways` ways
//!   per set (12 on Skylake-SP: Yan et al., S&P'19; McCalpin, Intel forum
//!   "Directory Structure in Skylake Server CPUs"); evicting one of its
//!   entries invalidates the L2 copies it tracked, which then leave as L2
//!   victims do.
//! - DDIO: a DMA write invalidates L2 copies (tracked by the snoop filter)
//!   and then updates the line in the LLC if it is there (a write hit) or
//!   allocates it in the DDIO ways (a miss). A DMA read is served by the
//!   LLC, by snooping an L2 that holds the line, or by DRAM.

use super::cache::{Victim, LINE};
use super::Memory;
use crate::units::Time;

impl Memory {
    /// A core access to a modelled line, non-inclusive hierarchy.
    pub(super) fn core_access_ni(&mut self, core: usize, line: u64, write: bool, now: Time) -> Time {
        let me = 1u64 << core;
        if let Some(s) = self.l2[core].find(line) {
            self.l2[core].touch(s);
            self.stats.core_l2_hits += 1;
            if write {
                self.l2[core].set_dirty(s);
                // A store to a shared line invalidates the other copies.
                let sf = self.sf.as_ref().expect("non-inclusive");
                if let Some(fs) = sf.find(line) {
                    if sf.sharers(fs) & !me != 0 {
                        self.sf_invalidate(fs, Some(core));
                        return self.snoop_lat;
                    }
                }
            }
            return self.l2_lat;
        }
        let sf = self.sf.as_ref().expect("non-inclusive");
        let tracked = sf.find(line);
        let others = tracked.map_or(0, |fs| sf.sharers(fs) & !me);
        let mut dirty = write;
        let lat = if others != 0 {
            // Another core's L2 holds it: a snoop serves it, invalidating
            // that copy for a store (its dirty data moves here).
            self.stats.core_llc_hits += 1;
            let modified = self.modified_elsewhere(line, others);
            if write {
                dirty |= self.sf_invalidate(tracked.expect("tracked"), None);
            }
            if write || modified {
                self.snoop_lat
            } else {
                self.llc_lat
            }
        } else if let Ok(ls) = self.llc.lookup(line) {
            // An LLC hit moves the line up.
            self.stats.core_llc_hits += 1;
            dirty |= self.llc.is_dirty(ls);
            self.llc.clear(ls);
            self.llc_lat
        } else {
            self.stats.core_llc_misses += 1;
            self.core_misses[core] += 1;
            self.stats.dram_read_bytes += LINE;
            self.llc_lat + self.dram.read(line, now)
        };
        self.sf_track(line, core, now);
        let all = self.l2[core].all_ways();
        let (_, victim) = self.l2[core].insert(line, all, dirty);
        if let Some(v) = victim {
            self.l2_evict_ni(core, v, now);
        }
        lat
    }

    /// Record that `core`'s L2 now holds `line`; a snoop-filter entry
    /// evicted for it takes its L2 copies with it.
    fn sf_track(&mut self, line: u64, core: usize, now: Time) {
        let sf = self.sf.as_mut().expect("non-inclusive");
        let victim = match sf.lookup(line) {
            Ok(fs) => {
                sf.add_sharer(fs, core);
                None
            }
            Err(set) => {
                let all = sf.all_ways();
                let (fs, victim) = sf.insert_at(set, line, all, false);
                sf.add_sharer(fs, core);
                victim
            }
        };
        if let Some(v) = victim {
            self.stats.sf_back_invalidations += v.sharers.count_ones() as u64;
            let mut s = v.sharers;
            while s != 0 {
                let c = s.trailing_zeros() as usize;
                s &= s - 1;
                if let Some(pv) = self.l2[c].invalidate(v.line) {
                    self.llc_fill(c, pv.line, pv.dirty, now);
                }
            }
        }
    }

    /// `core`'s L2 evicted `v`: the snoop filter forgets that copy, and the
    /// line goes to the LLC, in the core's CAT ways.
    fn l2_evict_ni(&mut self, core: usize, v: Victim, now: Time) {
        let sf = self.sf.as_mut().expect("non-inclusive");
        if let Some(fs) = sf.find(v.line) {
            sf.remove_sharer(fs, core);
            if sf.sharers(fs) == 0 {
                sf.clear(fs);
            }
        }
        self.llc_fill(core, v.line, v.dirty, now);
    }

    /// Put an L2 victim of `core` into the LLC (or merge it with the copy
    /// there); the LLC's own victim goes to DRAM if dirty.
    fn llc_fill(&mut self, core: usize, line: u64, dirty: bool, now: Time) {
        match self.llc.lookup(line) {
            Ok(ls) => {
                self.llc.touch(ls);
                if dirty {
                    self.llc.set_dirty(ls);
                }
            }
            Err(set) => {
                let (_, victim) = self.llc.insert_at(set, line, self.core_mask[core], dirty);
                if let Some(v) = victim.filter(|v| v.dirty) {
                    self.dram.write(v.line, now);
                    self.stats.dram_write_bytes += LINE;
                }
            }
        }
    }

    /// Drop the L2 copies the snoop-filter slot `fs` tracks, but `keep`'s;
    /// returns whether a dropped copy was dirty.
    pub(super) fn sf_invalidate(&mut self, fs: usize, keep: Option<usize>) -> bool {
        let sf = self.sf.as_mut().expect("non-inclusive");
        let (line, sharers) = (sf.line_at(fs), sf.sharers(fs));
        let kept = sharers & keep.map_or(0, |k| 1u64 << k);
        sf.clear_sharers(fs);
        if kept == 0 {
            sf.clear(fs);
        } else {
            sf.add_sharer(fs, keep.expect("kept"));
        }
        let mut s = sharers & !kept;
        let mut dirty = false;
        while s != 0 {
            let c = s.trailing_zeros() as usize;
            s &= s - 1;
            self.stats.coherence_invalidations += 1;
            if let Some(pv) = self.l2[c].invalidate(line) {
                dirty |= pv.dirty;
            }
        }
        dirty
    }

    /// Drop every L2 copy of `line` in LLC set `set` (the snoop filter's
    /// set too); returns whether one was dirty.
    pub(super) fn sf_drop(&mut self, set: usize, line: u64) -> bool {
        match self.sf.as_ref().map(|sf| sf.lookup_in(set, line)) {
            Some(Ok(fs)) => self.sf_invalidate(fs, None),
            _ => false,
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
            "l2": {"size": "64KiB", "prefetch_adjacent": false, "prefetch_streamer": false}, "mem": {"hugepage": "flat"}
        }))
        .unwrap();
        Memory::new(&c.mem, &c.llc, &c.l2, &c.dram, 1, vec![0x7ff, 0x7ff])
    }

    const A: u64 = 0x1_0000_0000;

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
        assert_eq!(m.stats.dma_write_misses, 1, "the LLC did not hold it");
        // the core now reads the DMA'd line from the LLC; a second DMA
        // write finds it in the core's L2 only
        assert_eq!(m.core_access(0, A, false, 0), m.llc_lat);
        m.dma_write(A, 64, DmaMode::Ddio, 0);
        assert_eq!(m.stats.dma_write_misses, 2);
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
}
