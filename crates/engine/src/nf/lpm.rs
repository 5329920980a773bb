//! A longest-prefix-match table laid out as DPDK's `rte_lpm` (DIR-24-8):
//! a 2^24-entry first-level table indexed by the top 24 bits of the
//! address, and 256-entry second-level groups for prefixes longer than /24.
//!
//! Of tbl24 only the entries that routes set are stored (hash maps); the
//! tbl8 groups are a dense array, as in rte_lpm. Every lookup reports the
//! addresses `rte_lpm` would read, so the cache model sees the real access
//! pattern. Unmatched addresses take the default route. (The maps hash
//! with FxHash: their keys are table indices, not input an adversary
//! picks; with SipHash and a map for tbl8, building a 16 K-route table
//! took 60 ms.)

use rustc_hash::FxHashMap as HashMap;

const ENTRY: u64 = 4;

pub struct Lpm {
    /// tbl24 index -> (next hop, depth) for expanded routes of length <= 24.
    tbl24: HashMap<u32, (u16, u8)>,
    /// tbl24 index -> tbl8 group id for indices with longer prefixes.
    ext: HashMap<u32, u32>,
    /// (next hop, depth) of group g's entries at g * 256 + low byte (the
    /// groups are dense, as rte_lpm's).
    tbl8: Vec<(u16, u8)>,
    default_hop: u16,
    pub tbl24_addr: u64,
    pub tbl8_addr: u64,
}

/// Result of a lookup: the next hop and the table entries read.
pub struct Lookup {
    pub hop: u16,
    pub reads: [u64; 2],
    pub n_reads: usize,
}

impl Lpm {
    /// Build from (prefix, length, next hop) routes; `tbl24_addr` and
    /// `tbl8_addr` are the regions' host addresses.
    pub fn new(
        routes: &[(u32, u8, u16)],
        default_hop: u16,
        tbl24_addr: u64,
        tbl8_addr: u64,
    ) -> Lpm {
        let mut lpm = Lpm {
            tbl24: HashMap::default(),
            ext: HashMap::default(),
            tbl8: Vec::new(),
            default_hop,
            tbl24_addr,
            tbl8_addr,
        };
        let mut sorted: Vec<_> = routes.to_vec();
        // Shorter prefixes first so longer ones overwrite them.
        sorted.sort_by_key(|r| r.1);
        for &(prefix, len, hop) in &sorted {
            let p = if len == 0 {
                0
            } else {
                prefix & (u32::MAX << (32 - len))
            };
            if len <= 24 {
                let first = p >> 8;
                for i in first..first + (1u32 << (24 - len)) {
                    if let Some(&g) = lpm.ext.get(&i) {
                        for e in &mut lpm.tbl8[g as usize * 256..][..256] {
                            if e.1 <= len {
                                *e = (hop, len);
                            }
                        }
                    }
                    lpm.tbl24.insert(i, (hop, len));
                }
            } else {
                let i = p >> 8;
                let groups = lpm.ext.len() as u32;
                let g = *lpm.ext.entry(i).or_insert(groups);
                if g == groups {
                    // New group: inherit the covering /<=24 route.
                    let base = lpm.tbl24.get(&i).copied().unwrap_or((default_hop, 0));
                    lpm.tbl8.resize(lpm.tbl8.len() + 256, base);
                }
                let lo = (p & 0xff) as usize;
                lpm.tbl8[g as usize * 256 + lo..][..1 << (32 - len)].fill((hop, len));
            }
        }
        lpm
    }

    pub fn lookup(&self, ip: u32) -> Lookup {
        let i = ip >> 8;
        let a24 = self.tbl24_addr + i as u64 * ENTRY;
        if let Some(&g) = self.ext.get(&i) {
            let lo = (ip & 0xff) as u8;
            let hop = self.tbl8[g as usize * 256 + lo as usize].0;
            let a8 = self.tbl8_addr + (g as u64 * 256 + lo as u64) * ENTRY;
            return Lookup {
                hop,
                reads: [a24, a8],
                n_reads: 2,
            };
        }
        let hop = self.tbl24.get(&i).map_or(self.default_hop, |e| e.0);
        Lookup {
            hop,
            reads: [a24, 0],
            n_reads: 1,
        }
    }

    /// Bytes of the second-level table.
    pub fn tbl8_bytes(&self) -> u64 {
        (self.ext.len() as u64).max(1) * 256 * ENTRY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(routes: &[(u32, u8, u16)], ip: u32, default: u16) -> u16 {
        let mut best: Option<(u8, u16)> = None;
        for &(p, l, h) in routes {
            let mask = if l == 0 { 0 } else { u32::MAX << (32 - l) };
            if ip & mask == p & mask && best.map_or(true, |b| l >= b.0) {
                best = Some((l, h));
            }
        }
        best.map_or(default, |b| b.1)
    }

    #[test]
    fn longest_prefix_wins() {
        let routes = [
            (0x0a00_0000, 8, 1),
            (0x0a01_0000, 16, 2),
            (0x0a01_0200, 24, 3),
            (0x0a01_0280, 25, 4),
        ];
        let l = Lpm::new(&routes[1..], 9, 0, 1 << 30);
        assert_eq!(l.lookup(0x0a01_0281).hop, 4);
        assert_eq!(l.lookup(0x0a01_0201).hop, 3);
        assert_eq!(l.lookup(0x0a01_0501).hop, 2);
        assert_eq!(l.lookup(0x0b00_0000).hop, 9);
        assert_eq!(l.lookup(0x0a01_0281).n_reads, 2);
        assert_eq!(l.lookup(0x0a01_0501).reads[0], (0x0a0105u64) * 4);
    }

    proptest! {
        #[test]
        fn agrees_with_a_linear_scan(
            routes in proptest::collection::vec((any::<u32>(), 14u8..=32, 1u16..100), 1..40),
            probes in proptest::collection::vec(any::<u32>(), 50),
        ) {
            // Dedupe identical (prefix, len) pairs: the later one would win in both.
            let mut seen = std::collections::HashSet::new();
            let routes: Vec<_> = routes.into_iter().filter(|r| {
                let m = u32::MAX << (32 - r.1);
                seen.insert((r.0 & m, r.1))
            }).collect();
            let l = Lpm::new(&routes, 0, 0, 0);
            for &ip in probes.iter().chain(routes.iter().map(|r| &r.0)) {
                prop_assert_eq!(l.lookup(ip).hop, naive(&routes, ip, 0));
            }
        }
    }
}
