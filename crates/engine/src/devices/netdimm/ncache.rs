//! nCache: a set-associative SRAM buffer in the NetDIMM buffer device holding
//! the first (header) line of each received packet and the lines the
//! next-line prefetcher brings in (paper Sec. 4.1).
//!
//! A line leaves nCache on its first host access (the host now caches it);
//! a full set evicts a random line (all lines are clean, nothing is written
//! back); a write to a cached address, from the host or the nNIC, invalidates
//! it. Each line carries the "header" flag: the prefetcher does not run on a
//! header hit, so reading only headers never pulls payload in.

use crate::sim::Rng;
use crate::units::Time;
use rand::Rng as _;

#[derive(Clone, Copy)]
struct Entry {
    line: u64,
    header: bool,
    /// When the line's data is in the SRAM (a prefetch may still be on its way).
    ready: Time,
}

pub struct NCache {
    sets: Vec<Vec<Entry>>,
    ways: usize,
    rng: Rng,
    pub hits: u64,
    pub misses: u64,
}

/// What a host read found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    Miss,
    /// Hit on a line the prefetcher brought in, ready at the given time.
    Hit(Time),
    /// Hit on a packet's header line: do not prefetch.
    HeaderHit(Time),
}

impl NCache {
    pub fn new(bytes: u64, ways: usize, rng: Rng) -> NCache {
        let sets = (bytes / 64 / ways as u64).max(1) as usize;
        NCache {
            sets: vec![Vec::with_capacity(ways); sets],
            ways,
            rng,
            hits: 0,
            misses: 0,
        }
    }

    fn set(&self, line: u64) -> usize {
        (line % self.sets.len() as u64) as usize
    }

    /// Place a line (random victim when the set is full).
    pub fn fill(&mut self, line: u64, header: bool, ready: Time) {
        let s = self.set(line);
        let ways = self.ways;
        let set = &mut self.sets[s];
        if let Some(e) = set.iter_mut().find(|e| e.line == line) {
            e.header = header;
            e.ready = ready;
            return;
        }
        if set.len() == ways {
            let v = self.rng.gen_range(0..ways);
            set.swap_remove(v);
        }
        set.push(Entry {
            line,
            header,
            ready,
        });
    }

    /// A host read: a hit removes the line (it now lives in the host caches).
    pub fn take(&mut self, line: u64) -> Lookup {
        let s = self.set(line);
        let set = &mut self.sets[s];
        match set.iter().position(|e| e.line == line) {
            Some(i) => {
                self.hits += 1;
                let e = set.swap_remove(i);
                if e.header {
                    Lookup::HeaderHit(e.ready)
                } else {
                    Lookup::Hit(e.ready)
                }
            }
            None => {
                self.misses += 1;
                Lookup::Miss
            }
        }
    }

    /// A snooped write to `line` makes any cached copy stale.
    pub fn invalidate(&mut self, line: u64) {
        let s = self.set(line);
        self.sets[s].retain(|e| e.line != line);
    }

    pub fn contains(&self, line: u64) -> bool {
        self.sets[self.set(line)].iter().any(|e| e.line == line)
    }

    pub fn len(&self) -> usize {
        self.sets.iter().map(|s| s.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng;
    use proptest::prelude::*;

    #[test]
    fn removed_on_access_and_invalidated_by_writes() {
        let mut c = NCache::new(4096, 4, rng(1, 0, 0));
        c.fill(10, true, 5);
        c.fill(11, false, 7);
        assert_eq!(c.take(10), Lookup::HeaderHit(5));
        assert_eq!(c.take(10), Lookup::Miss, "a hit removes the line");
        c.invalidate(11);
        assert_eq!(c.take(11), Lookup::Miss);
    }

    proptest! {
        #[test]
        fn never_exceeds_its_ways(lines in proptest::collection::vec(0u64..4096, 1..500)) {
            let mut c = NCache::new(2048, 4, rng(7, 0, 0));
            for &l in &lines {
                c.fill(l, l % 3 == 0, 0);
                prop_assert!(c.contains(l), "the line just filled is present");
            }
            prop_assert!(c.len() <= 2048 / 64);
            for s in &c.sets {
                prop_assert!(s.len() <= 4);
            }
        }
    }
}
