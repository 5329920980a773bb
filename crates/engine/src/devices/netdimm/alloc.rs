//! allocCache (paper Sec. 4.2.2): pages pre-allocated in every subarray, so
//! a DMA buffer can be placed in the subarray of the application buffer it
//! will be cloned from or to (which makes the clone an FPM). A subarray
//! whose pages are all in use falls back to any page (a slower clone); the
//! driver's background refill returns pages as packets are freed.

use super::dram::Geometry;
use std::collections::BTreeMap;

pub struct AllocCache {
    geo: Geometry,
    per_subarray: u64,
    /// Pages in use per (rank, bank, subarray).
    used: BTreeMap<(u64, u64, u64), u64>,
    pub hits: u64,
    pub fallbacks: u64,
}

impl AllocCache {
    pub fn new(geo: Geometry, per_subarray: u64) -> AllocCache {
        AllocCache {
            geo,
            per_subarray,
            used: BTreeMap::new(),
            hits: 0,
            fallbacks: 0,
        }
    }

    /// A buffer for `hint` (an address on the NetDIMM): the same offset in
    /// another row of hint's subarray when one is left, else `None` (the
    /// caller then allocates anywhere).
    pub fn take(&mut self, hint: u64) -> Option<u64> {
        let l = self.geo.locate(hint);
        let used = self.used.entry((l.rank, l.bank, l.subarray)).or_insert(0);
        if *used >= self.per_subarray.min(self.geo.rows_per_subarray - 1) {
            self.fallbacks += 1;
            return None;
        }
        *used += 1;
        self.hits += 1;
        let stride = self.geo.subarray_stride();
        let row = (l.row + *used) % self.geo.rows_per_subarray;
        Some(hint - l.row * stride + row * stride)
    }

    /// The buffer taken for `hint` is free again (background refill).
    pub fn give_back(&mut self, hint: u64) {
        let l = self.geo.locate(hint);
        if let Some(u) = self.used.get_mut(&(l.rank, l.bank, l.subarray)) {
            *u = u.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::netdimm::dram::tests::fig9;
    use crate::devices::netdimm::rowclone::{mode, Mode};

    #[test]
    fn buffers_share_the_hint_subarray_until_it_runs_out() {
        let g = fig9();
        let mut a = AllocCache::new(g, 2);
        let hint = 3 * 8192 + 5 * g.subarray_stride() + 100;
        let b1 = a.take(hint).unwrap();
        let b2 = a.take(hint).unwrap();
        assert_ne!(b1, b2);
        for b in [b1, b2] {
            assert_eq!(mode(&g, hint, b), Mode::Fpm);
            assert_eq!(b % 8192, hint % 8192, "same offset in the row");
        }
        assert_eq!(a.take(hint), None, "two pages per subarray");
        a.give_back(hint);
        assert!(a.take(hint).is_some());
        assert_eq!((a.hits, a.fallbacks), (3, 1));
    }
}
