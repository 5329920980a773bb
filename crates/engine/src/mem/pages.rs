//! Physical memory as a DPDK process gets it: hugepages.
//!
//! The model lays out rings, mempools and tables at virtual addresses
//! ([`super::AddressMap`]); the caches and DRAM see physical ones. DPDK
//! backs its heap with hugepages (`mem.hugepage`): each is physically
//! contiguous, but the kernel hands them out of its buddy allocator, so
//! consecutive virtual pages sit at unrelated physical frames (DPDK's EAL
//! records each page's IOVA in its memseg lists; Linux
//! Documentation/admin-guide/mm/hugetlbpage.rst). The model draws each
//! virtual page's frame, without replacement and by seed, from the
//! modelled 64 GiB of physical memory. Mempools keep every object inside
//! one page, as DPDK's do (`cpu::mempool`).
//!
//! `flat` maps virtual to physical one to one, as gem5's simple page table
//! does for a simulated process (the NetDIMM paper's setup).

use super::cache::{LINE, MAX_LINE};
use crate::config::MemHugepage;
use crate::sim::{rng, stream};
use rand::seq::SliceRandom as _;

/// Bytes of a `mem.hugepage` page; 0 for `flat`.
pub fn page_bytes(hugepage: MemHugepage) -> u64 {
    match hugepage {
        MemHugepage::TwoMiB => 2 << 20,
        MemHugepage::OneGiB => 1 << 30,
        MemHugepage::Flat => 0,
    }
}

pub struct PageTable {
    /// log2 of the lines in a page; 0 with `flat`.
    shift: u32,
    /// Physical frame of each virtual page.
    frames: Vec<u32>,
}

impl PageTable {
    pub fn new(hugepage: MemHugepage, seed: u64) -> PageTable {
        let page_bytes = page_bytes(hugepage);
        if page_bytes == 0 {
            return PageTable { shift: 0, frames: Vec::new() };
        }
        let lines = page_bytes / LINE;
        let mut frames: Vec<u32> = (0..(MAX_LINE / lines) as u32).collect();
        frames.shuffle(&mut rng(seed, stream::PAGES, 0));
        PageTable {
            shift: lines.trailing_zeros(),
            frames,
        }
    }

    /// Lines per page (the unit a run of consecutive lines stays contiguous
    /// in); u64::MAX with `flat`.
    pub fn page_lines(&self) -> u64 {
        if self.frames.is_empty() {
            u64::MAX
        } else {
            1 << self.shift
        }
    }

    /// The physical line of virtual line `line`.
    #[inline(always)]
    pub fn phys(&self, line: u64) -> u64 {
        if self.frames.is_empty() {
            return line;
        }
        let off = line & ((1 << self.shift) - 1);
        (self.frames[(line >> self.shift) as usize] as u64) << self.shift | off
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_contiguous_inside_and_scattered_between() {
        let t = PageTable::new(MemHugepage::TwoMiB, 1);
        let page = t.page_lines();
        assert_eq!(page, 32768);
        let v = 1 << 24; // 1 GiB, page-aligned
        for i in 0..page {
            assert_eq!(t.phys(v + i), t.phys(v) + i);
        }
        // The next virtual page is not the next physical one (except by
        // a 1 in 32768 chance, which this seed does not draw).
        assert_ne!(t.phys(v + page), t.phys(v) + page);
        assert_eq!(t.phys(v) % page, 0);
    }

    #[test]
    fn frames_are_distinct_and_inside_physical_memory() {
        let t = PageTable::new(MemHugepage::OneGiB, 7);
        let mut seen: Vec<u64> = (0..64).map(|p| t.phys(p << 24) >> 24).collect();
        assert!(seen.iter().all(|&f| f < 64));
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 64);
    }

    #[test]
    fn flat_is_the_identity_and_seeds_change_the_layout() {
        let t = PageTable::new(MemHugepage::Flat, 1);
        assert_eq!(t.phys(12345), 12345);
        let (a, b) = (PageTable::new(MemHugepage::TwoMiB, 1), PageTable::new(MemHugepage::TwoMiB, 2));
        assert!((0..64u64).any(|p| a.phys(p << 15) != b.phys(p << 15)));
    }
}
