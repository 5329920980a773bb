//! A per-core cuckoo hash flow table laid out as DPDK's `rte_hash`:
//! 64 B buckets of 8 (16-bit signature, key index) pairs, two candidate
//! buckets per key, a separate key store of 32 B entries holding key and
//! value. Lookups and inserts are real (with cuckoo displacement); each
//! returns the host addresses it read or wrote, so the cache model prices
//! the NF's state exactly as the table's layout dictates.

use crate::sim::Rng;
use rand::Rng as _;

pub const BUCKET_ENTRIES: usize = 8;
pub const BUCKET_BYTES: u64 = 64;
pub const KEY_ENTRY_BYTES: u64 = 32;
/// Most displacements one insert may make before the table counts as full.
const MAX_KICKS: usize = 128;

/// Memory the table touched: (address, written).
#[derive(Default, Clone, Debug)]
pub struct Touched {
    pub addrs: Vec<(u64, bool)>,
}

/// Where a table operation reports the host lines it read or wrote.
pub trait Record {
    fn note(&mut self, addr: u64, write: bool);
    /// The last line noted, if any is kept.
    fn last(&self) -> Option<(u64, bool)>;
}

impl Record for Touched {
    #[inline]
    fn note(&mut self, addr: u64, write: bool) {
        self.addrs.push((addr, write));
    }
    fn last(&self) -> Option<(u64, bool)> {
        self.addrs.last().copied()
    }
}

/// Keeps nothing: bulk loading of a table, which is not priced.
pub struct Unpriced;

impl Record for Unpriced {
    #[inline(always)]
    fn note(&mut self, _: u64, _: bool) {}
    fn last(&self) -> Option<(u64, bool)> {
        None
    }
}

/// One bucket as the simulator holds it: key index + 1 (0 = empty) and
/// signature of each slot, in one host cache line.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Bucket {
    idx: [u32; BUCKET_ENTRIES],
    sig: [u16; BUCKET_ENTRIES],
}

impl Bucket {
    /// The first empty slot. On x86-64, two SSE2 compares of four indices.
    #[inline(always)]
    fn first_free(&self) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is part of x86-64; the two loads read idx[0..4] and
        // idx[4..8], inside the array.
        let empty = unsafe {
            use std::arch::x86_64::*;
            let p = self.idx.as_ptr() as *const __m128i;
            let zero = _mm_setzero_si128();
            let four = |q: *const __m128i| _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_loadu_si128(q), zero))) as u32;
            four(p) | four(p.add(1)) << 4
        };
        #[cfg(not(target_arch = "x86_64"))]
        let empty = self.idx.iter().enumerate().fold(0u32, |m, (j, &i)| m | ((i == 0) as u32) << j);
        (empty != 0).then(|| empty.trailing_zeros() as usize)
    }
}

/// `n` empty buckets from zeroed memory, so untouched pages cost nothing.
fn zeroed_buckets(n: usize) -> Vec<Bucket> {
    let layout = std::alloc::Layout::array::<Bucket>(n).expect("bucket array fits the address space");
    if layout.size() == 0 {
        return Vec::new();
    }
    // SAFETY: the layout is non-zero and Bucket's; all-zero bytes are a
    // valid (empty) Bucket; the Vec takes ownership with the same layout.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut Bucket;
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Vec::from_raw_parts(p, n, n)
    }
}

pub struct FlowTable {
    mask: u32,
    buckets: Vec<Bucket>,
    keys: Vec<u64>,
    values: Vec<u32>,
    /// Key entries never used are `fresh..`; `free` holds entries given
    /// back (a refused insert's), taken first.
    fresh: u32,
    free: Vec<u32>,
    bucket_addr: u64,
    key_addr: u64,
}

#[inline]
fn hash(key: u64) -> u32 {
    // CRC-like mixing as rte_hash's default would give; any strong hash works.
    let mut x = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (x ^ (x >> 32)) as u32
}

impl FlowTable {
    /// Room for `entries` keys (rte_hash sizing: buckets = entries / 8,
    /// rounded up to a power of two). Host memory is allocated zeroed, so
    /// untouched parts cost nothing.
    pub fn new(entries: u64, bucket_addr: u64, key_addr: u64) -> FlowTable {
        let buckets = (entries.div_ceil(BUCKET_ENTRIES as u64))
            .next_power_of_two()
            .max(2);
        FlowTable {
            mask: (buckets - 1) as u32,
            buckets: zeroed_buckets(buckets as usize),
            keys: vec![0; entries as usize],
            values: vec![0; entries as usize],
            fresh: 0,
            free: Vec::new(),
            bucket_addr,
            key_addr,
        }
    }

    /// Bytes the simulator itself holds for a table of `entries` (the
    /// buckets, and a key and a value per entry), for the resource guard.
    pub fn host_bytes(entries: u64) -> u64 {
        let buckets = (entries.div_ceil(BUCKET_ENTRIES as u64))
            .next_power_of_two()
            .max(2);
        buckets * std::mem::size_of::<Bucket>() as u64 + entries * 12
    }

    /// Bytes of (bucket array, key store) for the address map.
    pub fn footprint(entries: u64) -> (u64, u64) {
        let buckets = (entries.div_ceil(BUCKET_ENTRIES as u64))
            .next_power_of_two()
            .max(2);
        (buckets * BUCKET_BYTES, entries * KEY_ENTRY_BYTES)
    }

    fn buckets_of(&self, key: u64) -> (u32, u32, u16) {
        let h = hash(key);
        let sig = (h >> 16) as u16 | 1;
        let prim = h & self.mask;
        let alt = (prim ^ (sig as u32).wrapping_mul(0x5bd1_e995)) & self.mask;
        (prim, alt, sig)
    }

    /// Ask the host to fetch the table memory an insert of `key` reads
    /// (both buckets' signatures and indices): a hint for bulk loading,
    /// with no effect on the table.
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let (prim, alt, _) = self.buckets_of(key);
            for b in [prim, alt] {
                // SAFETY: an in-bounds address; a prefetch never faults.
                unsafe { _mm_prefetch(self.buckets.as_ptr().add(b as usize) as *const i8, _MM_HINT_T0) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    fn alt_of(&self, bucket: u32, sig: u16) -> u32 {
        (bucket ^ (sig as u32).wrapping_mul(0x5bd1_e995)) & self.mask
    }

    fn search(&self, bucket: u32, sig: u16, key: u64, t: &mut impl Record) -> Option<usize> {
        t.note(self.bucket_addr + bucket as u64 * BUCKET_BYTES, false);
        let b = &self.buckets[bucket as usize];
        for (&idx, &s) in b.idx.iter().zip(&b.sig) {
            if idx != 0 && s == sig {
                let k = idx as usize - 1;
                t.note(self.key_addr + k as u64 * KEY_ENTRY_BYTES, false);
                if self.keys[k] == key {
                    return Some(k);
                }
            }
        }
        None
    }

    /// The value stored for `key`, reading the primary bucket, then the
    /// secondary one, and the key entries whose signatures match.
    pub fn lookup(&self, key: u64, t: &mut impl Record) -> Option<u32> {
        let (prim, alt, sig) = self.buckets_of(key);
        self.search(prim, sig, key, t)
            .or_else(|| self.search(alt, sig, key, t))
            .map(|k| self.values[k])
    }

    /// Insert a key known to be absent. Cuckoo displacement moves entries
    /// to their alternate buckets when both candidates are full; returns
    /// false when the table is full (the key is not stored).
    pub fn insert(&mut self, key: u64, value: u32, rng: &mut Rng, t: &mut impl Record) -> bool {
        let Some(k) = self.free.pop().or_else(|| {
            (self.fresh < self.keys.len() as u32).then(|| {
                self.fresh += 1;
                self.fresh - 1
            })
        }) else {
            return false;
        };
        let (prim, alt, sig) = self.buckets_of(key);
        self.keys[k as usize] = key;
        self.values[k as usize] = value;
        t.note(self.key_addr + k as u64 * KEY_ENTRY_BYTES, true);
        let (mut bucket, mut sig, mut idx) = (prim, sig, k + 1);
        let mut path = vec![];
        for kick in 0..=MAX_KICKS {
            for b in [bucket, if kick == 0 { alt } else { bucket }] {
                let slots = &mut self.buckets[b as usize];
                if let Some(j) = slots.first_free() {
                    (slots.idx[j], slots.sig[j]) = (idx, sig);
                    t.note(self.bucket_addr + b as u64 * BUCKET_BYTES, true);
                    return true;
                }
            }
            // Both full: evict a random entry of this bucket to its other bucket.
            let j = rng.gen_range(0..BUCKET_ENTRIES);
            t.note(self.bucket_addr + bucket as u64 * BUCKET_BYTES, true);
            let slots = &mut self.buckets[bucket as usize];
            std::mem::swap(&mut slots.idx[j], &mut idx);
            std::mem::swap(&mut slots.sig[j], &mut sig);
            path.push((bucket, j));
            bucket = self.alt_of(bucket, sig);
        }
        // No room: undo the displacements (each swap is its own inverse), so
        // the table is as before and only the new key is refused, as
        // rte_hash's -ENOSPC.
        for &(b, j) in path.iter().rev() {
            let slots = &mut self.buckets[b as usize];
            std::mem::swap(&mut slots.idx[j], &mut idx);
            std::mem::swap(&mut slots.sig[j], &mut sig);
        }
        debug_assert_eq!(idx, k + 1);
        self.free.push(k);
        false
    }

    pub fn len(&self) -> usize {
        self.fresh as usize - self.free.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn lookups_touch_bucket_then_key() {
        let mut t = FlowTable::new(1024, 0x1000_0000, 0x2000_0000);
        let mut r = rng(1, 0, 0);
        let mut touched = Touched::default();
        assert!(t.insert(42, 7, &mut r, &mut touched));
        let mut touched = Touched::default();
        assert_eq!(t.lookup(42, &mut touched), Some(7));
        assert!(
            touched.addrs.len() >= 2
                && touched.addrs[0].0 >= 0x1000_0000
                && touched.addrs.iter().any(|a| a.0 >= 0x2000_0000)
        );
        let mut touched = Touched::default();
        assert_eq!(t.lookup(43, &mut touched), None);
        // a miss reads both buckets
        assert!(touched.addrs.iter().filter(|a| a.0 < 0x2000_0000).count() == 2);
    }

    #[test]
    fn fills_to_high_load_with_displacement() {
        let n = 4096;
        let mut t = FlowTable::new(n, 0, 1 << 30);
        let mut r = rng(2, 0, 0);
        let mut stored = 0;
        for k in 0..n {
            stored += t.insert(k * 7919 + 1, k as u32, &mut r, &mut Touched::default()) as u64;
        }
        assert!(stored as f64 > 0.95 * n as f64, "only {stored} of {n}");
    }

    #[test]
    fn a_refused_insert_loses_nothing() {
        // Every slot asked for: near 100 % load some inserts run out of
        // displacements; they are refused and every stored key stays.
        let n = 2048u64;
        let mut t = FlowTable::new(n, 0, 1 << 30);
        let mut r = rng(4, 0, 0);
        let stored: Vec<u64> = (1..=n)
            .filter(|&k| t.insert(k * 31, k as u32, &mut r, &mut Touched::default()))
            .collect();
        assert!(
            (stored.len() as u64) < n,
            "expected some refusals at 100 % load"
        );
        assert_eq!(t.len(), stored.len());
        for k in stored {
            assert_eq!(t.lookup(k * 31, &mut Touched::default()), Some((k) as u32));
        }
    }

    proptest! {
        /// Against a HashMap: every stored key is found with its value,
        /// absent keys are not.
        #[test]
        fn agrees_with_a_hashmap(keys in proptest::collection::hash_set(any::<u64>(), 1..600), probes in proptest::collection::vec(any::<u64>(), 50)) {
            let mut t = FlowTable::new(512, 0, 1 << 30);
            let mut r = rng(3, 0, 0);
            let mut model = HashMap::new();
            for (i, &k) in keys.iter().enumerate() {
                if t.insert(k, i as u32, &mut r, &mut Touched::default()) {
                    model.insert(k, i as u32);
                }
            }
            prop_assert_eq!(t.len(), model.len());
            for (&k, &v) in &model {
                prop_assert_eq!(t.lookup(k, &mut Touched::default()), Some(v));
            }
            for p in probes {
                prop_assert_eq!(t.lookup(p, &mut Touched::default()), model.get(&p).copied());
            }
        }
    }
}
