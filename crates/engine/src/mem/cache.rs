//! A set-associative cache of 64 B lines with per-access way masks (how CAT
//! and DDIO restrict allocation), LRU, random or quad-age LRU replacement,
//! dirty bits and,
//! for an inclusive LLC, the set of private caches that hold each line.
//!
//! Only tags are kept: the simulator needs to know where a line is, never
//! its data.

use super::slice::SliceFn;
use crate::sim::Rng;
use rand::Rng as _;

pub const LINE: u64 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Lru,
    Random,
    /// Quad-age LRU as nanoBench measured Intel's L3 (Abel and Reineke,
    /// ISPASS'20; uops.info/cache.html, Coffee Lake L3: QLRU_H11_M1_R0_U0):
    /// a 2-bit age per way, 3 = evictable. A hit takes age 3 or 2 to 1 and
    /// 1 to 0; a new line gets age 1; the victim is the first allowed way
    /// of age 3; after each access every age rises until the oldest is 3.
    Qlru,
    /// Qlru whose follower sets choose by set dueling (Qureshi et al.,
    /// ISCA'07) between inserting at age 1 and, as uops.info describes the
    /// adaptive sets of Intel's L3, "occasionally" at age 1 but mostly at
    /// age 3 (nanoBench's MR31: 1 in 16 at age 1). The variant keeps part
    /// of a cyclic working set larger than the cache instead of none.
    QlruAdaptive,
}

impl Policy {
    #[inline(always)]
    fn is_qlru(self) -> bool {
        matches!(self, Policy::Qlru | Policy::QlruAdaptive)
    }
}

/// QLRU_H11: the age a hit leaves.
const QLRU_HIT: [u8; 4] = [0, 0, 1, 1];
/// Set dueling: of every 64 sets, set 0 always inserts at age 1 and set 33
/// mostly at age 3 (uops.info lists Ice Lake's fixed sets in the same
/// pattern, 0 and 33 of each group); a miss in one moves the selector.
const DUEL_PERIOD: usize = 64;
const DUEL_MR31: usize = 33;
const PSEL_MAX: u16 = 1023;

/// How a line address picks its set.
#[derive(Clone)]
pub enum Indexing {
    /// `line % sets`: the textbook cache.
    Modulo,
    /// Intel's complex addressing: `hash` picks the slice, the low line
    /// bits pick the set within the slice.
    Sliced { slices: u64, sets_per_slice: u64, hash: SliceFn },
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
    /// log2 of the number of sets the low line bits select; the tag is the
    /// line address above them.
    tag_shift: u32,
    policy: Policy,
    set: Vec<Set>,
    /// Private caches (cores) holding each (set, way)'s line, for an
    /// inclusive LLC; read only when the tag's SHARED bit says so.
    sharers: Vec<u32>,
    rng: Rng,
    /// Set-dueling selector (QlruAdaptive): above half, followers insert
    /// mostly at age 3.
    psel: u16,
    /// QLRU: the byte mask of the `ways` ways' ages.
    way_bytes: ages::Words,
}

/// Most ways a cache may have (Haswell-EP's LLC has 20).
pub const MAX_WAYS: usize = 20;
/// A slot is (set, way) packed as set << SLOT_SHIFT | way (a shift, not a
/// division by MAX_WAYS, to unpack).
const SLOT_SHIFT: u32 = 5;
const _: () = assert!(MAX_WAYS <= 1 << SLOT_SHIFT);

/// One set, laid out so that an 11-way LLC set (ranks + tags) fills exactly
/// one 64 B host cache line: a lookup is one host memory access.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Set {
    /// LRU rank per way: 0 = most recently used.
    rank: [u8; MAX_WAYS],
    /// (line >> tag_shift) + 1, 0 = invalid; top bits: DIRTY, SHARED.
    tag: [u32; MAX_WAYS],
}

const DIRTY: u32 = 1 << 31;
const SHARED: u32 = 1 << 30;
const FLAGS: u32 = DIRTY | SHARED;

/// Most cores whose copies one cache can track.
pub const MAX_SHARERS: usize = 32;

/// Line addresses must stay below this (64 GiB of physical memory), so a
/// tag fits in 30 bits whatever the number of sets.
pub const MAX_LINE: u64 = 1 << 30;

/// A vector backed by transparent huge pages where the OS allows: lookups
/// land on random sets, and with 4 KiB pages nearly every one would also
/// miss the host's TLB.
fn huge_vec<T: Copy>(n: usize, fill: T) -> Vec<T> {
    // Advise before the first touch, so the pages are born huge.
    let mut v: Vec<T> = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = (v.as_ptr() as usize).next_multiple_of(HUGE);
        let end = (v.as_ptr() as usize + n * std::mem::size_of::<T>()) / HUGE * HUGE;
        if end > start {
            // Advice only: failure leaves ordinary pages, which is correct.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    v.resize(n, fill);
    v
}

/// Bit mask of the first `ways` ways whose tag, under `mask`, equals
/// `want`. On x86-64, SSE2 compares four tags at a time: an 11-way set
/// takes three compares (ways 0-3, 4-7 and 7-10, overlapping) and reads only
/// its first host line (ranks + 11 tags); a 12-way set (the snoop filter)
/// three, a 16-way one (the L2) four, wider sets five.
#[inline(always)]
fn ways_where(tags: &[u32; MAX_WAYS], ways: usize, mask: u32, want: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    let m = {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86-64; every load reads 4 tags inside
        // the 20-tag array (offsets 0, 4, 7, 8, 12, 16).
        unsafe {
            let (mask, want) = (_mm_set1_epi32(mask as i32), _mm_set1_epi32(want as i32));
            let four = |at: usize| -> u32 {
                let t = _mm_loadu_si128(tags.as_ptr().add(at) as *const __m128i);
                let eq = _mm_cmpeq_epi32(_mm_and_si128(t, mask), want);
                _mm_movemask_ps(_mm_castsi128_ps(eq)) as u32
            };
            match ways {
                0..=11 => four(0) | four(4) << 4 | four(7) << 7,
                12 => four(0) | four(4) << 4 | four(8) << 8,
                13..=16 => four(0) | four(4) << 4 | four(8) << 8 | four(12) << 12,
                _ => four(0) | four(4) << 4 | four(8) << 8 | four(12) << 12 | four(16) << 16,
            }
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let m = tags
        .iter()
        .enumerate()
        .fold(0u32, |m, (w, &t)| m | ((t & mask == want) as u32) << w);
    m & ((1u32 << ways) - 1)
}

/// Bit mask of the first `ways` ways whose LRU rank is `r`. On x86-64, two
/// overlapping 16-byte SSE2 compares (ranks 0-15 and 4-19).
#[inline(always)]
fn ranks_equal(ranks: &[u8; MAX_WAYS], ways: usize, r: u8) -> u32 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86-64; both 16-byte loads lie inside the
    // 20-byte array (offsets 0 and 4).
    let m = unsafe {
        use std::arch::x86_64::*;
        let want = _mm_set1_epi8(r as i8);
        let p = ranks.as_ptr();
        let eq = |at: usize| _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(p.add(at) as *const __m128i), want)) as u32;
        eq(0) | eq(4) << 4
    };
    #[cfg(not(target_arch = "x86_64"))]
    let m = ranks.iter().enumerate().fold(0u32, |m, (w, &x)| m | ((x == r) as u32) << w);
    m & ((1u32 << ways) - 1)
}

/// LRU ranks below `r` age by one: the ways more recent than the one
/// being touched. Over all MAX_WAYS: unused ways keep ranks >= ways, never
/// below r, so they are left alone. On x86-64, two overlapping 16-byte SSE2
/// operations (ranks 0-15 and 4-19, both computed from the old ranks).
#[inline(always)]
fn age_younger(rank: &mut [u8; MAX_WAYS], r: u8) {
    if r == 0 {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86-64; both 16-byte accesses lie inside the
    // 20-byte array (offsets 0 and 4).
    unsafe {
        use std::arch::x86_64::*;
        let below = _mm_set1_epi8((r - 1) as i8);
        // x < r as x == min(x, r - 1); subtracting the all-ones mask adds one.
        let age = |x: __m128i| _mm_sub_epi8(x, _mm_cmpeq_epi8(_mm_min_epu8(x, below), x));
        let p = rank.as_mut_ptr();
        let (lo, hi) = (_mm_loadu_si128(p as *const __m128i), _mm_loadu_si128(p.add(4) as *const __m128i));
        _mm_storeu_si128(p.add(4) as *mut __m128i, age(hi));
        _mm_storeu_si128(p as *mut __m128i, age(lo));
    }
    #[cfg(not(target_arch = "x86_64"))]
    for x in rank.iter_mut() {
        *x += (*x < r) as u8;
    }
}

/// QLRU's 2-bit ages, one per byte of a set's `rank`, worked on eight
/// ways at a time as the bytes of a u64 (ways 0-7, 8-15, 16-19): ages stay
/// in 0..=3, so adding to every byte never carries into the next.
mod ages {
    use super::MAX_WAYS;

    const LOW: u64 = 0x0101_0101_0101_0101;

    /// 0xFF in every byte whose bit is set in the index.
    const SPREAD: [u64; 256] = {
        let mut t = [0u64; 256];
        let mut b = 0;
        while b < 256 {
            let mut i = 0;
            while i < 8 {
                if b >> i & 1 == 1 {
                    t[b] |= 0xFF << (8 * i);
                }
                i += 1;
            }
            b += 1;
        }
        t
    };

    pub type Words = [u64; 3];

    #[inline(always)]
    pub fn load(rank: &[u8; MAX_WAYS]) -> Words {
        let w = |i: usize| u64::from_le_bytes(rank[i..i + 8].try_into().expect("8 bytes"));
        let top = u32::from_le_bytes(rank[16..20].try_into().expect("4 bytes"));
        [w(0), w(8), top as u64]
    }

    #[inline(always)]
    pub fn store(rank: &mut [u8; MAX_WAYS], a: &Words) {
        rank[0..8].copy_from_slice(&a[0].to_le_bytes());
        rank[8..16].copy_from_slice(&a[1].to_le_bytes());
        rank[16..20].copy_from_slice(&(a[2] as u32).to_le_bytes());
    }

    /// Byte mask of the ways set in `ways`.
    #[inline(always)]
    pub fn byte_mask(ways: u32) -> Words {
        let b = |i: u32| SPREAD[(ways >> (8 * i) & 0xFF) as usize];
        [b(0), b(1), b(2)]
    }

    /// The oldest age among the masked ways (0 if none).
    #[inline(always)]
    pub fn max(a: &Words, m: &Words) -> u8 {
        let (mut any, mut three) = (0u64, 0u64);
        for i in 0..3 {
            let x = a[i] & m[i];
            any |= x;
            three |= x & (x >> 1);
        }
        if three & LOW != 0 {
            3
        } else if any & (LOW << 1) != 0 {
            2
        } else {
            (any & LOW != 0) as u8
        }
    }

    /// Add `k` to the age of every masked way.
    #[inline(always)]
    pub fn add(a: &mut Words, m: &Words, k: u8) {
        for i in 0..3 {
            a[i] += (m[i] & LOW) * k as u64;
        }
    }

    /// The first masked way of age 3.
    #[inline(always)]
    pub fn first_old(a: &Words, m: &Words) -> Option<usize> {
        (0..3).find_map(|i| {
            let x = a[i] & (a[i] >> 1) & m[i] & LOW;
            (x != 0).then(|| 8 * i + x.trailing_zeros() as usize / 8)
        })
    }
}

impl Cache {
    /// `size_bytes / 64 / ways` sets; with `Modulo` indexing the set count
    /// must be a power of two, with `Sliced` the sets per slice.
    pub fn new(
        size_bytes: u64,
        ways: usize,
        indexing: Indexing,
        policy: Policy,
        rng: Rng,
    ) -> Cache {
        let sets = size_bytes / LINE / ways as u64;
        assert!(
            sets > 0 && (1..=MAX_WAYS).contains(&ways),
            "cache needs >= 1 set and 1..={MAX_WAYS} ways"
        );
        let low_sets = match indexing {
            Indexing::Modulo => sets,
            Indexing::Sliced { sets_per_slice, .. } => sets_per_slice,
        };
        assert!(
            low_sets.is_power_of_two(),
            "set index bits must be a power of two"
        );
        // Initial ranks 0..ways: every set starts as a full LRU order
        // (QLRU: every age 3).
        let mut rank = [0u8; MAX_WAYS];
        for (w, r) in rank.iter_mut().enumerate() {
            *r = if policy.is_qlru() {
                3
            } else {
                w as u8
            };
        }
        Cache {
            sets,
            ways,
            indexing,
            tag_shift: low_sets.trailing_zeros(),
            policy,
            set: huge_vec(
                sets as usize,
                Set {
                    rank,
                    tag: [0; MAX_WAYS],
                },
            ),
            sharers: huge_vec(sets as usize * ways, 0),
            rng,
            psel: PSEL_MAX / 2,
            way_bytes: ages::byte_mask(((1u64 << ways) - 1) as u32),
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

    /// The set of a line. Sets are numbered set-within-slice major, so the
    /// consecutive lines of a buffer fall in nearby memory of the model
    /// (the slice is a hash; the set within the slice the low line bits).
    #[inline]
    pub fn set_of(&self, line: u64) -> u64 {
        match &self.indexing {
            Indexing::Modulo => line & (self.sets - 1),
            Indexing::Sliced {
                slices,
                sets_per_slice,
                hash,
            } => (line & (sets_per_slice - 1)) * slices + hash.slice(line),
        }
    }

    /// The sets of the consecutive lines from `first`, one per entry of
    /// `out` (a measured slice hash computes its permutation once per block).
    #[inline(always)]
    pub fn sets_of_run(&self, first: u64, out: &mut [u32]) {
        match &self.indexing {
            Indexing::Sliced {
                slices,
                sets_per_slice,
                hash,
            } => hash.slices_of_run(first, out.len(), |i, slice| {
                let line = first + i as u64;
                out[i] = ((line & (sets_per_slice - 1)) * slices + slice) as u32;
            }),
            Indexing::Modulo => {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = ((first + i as u64) & (self.sets - 1)) as u32;
                }
            }
        }
    }

    #[inline]
    fn tag_of(&self, line: u64) -> u32 {
        debug_assert!(
            line < MAX_LINE,
            "line {line:#x} beyond the modelled address space"
        );
        ((line >> self.tag_shift) + 1) as u32
    }

    #[inline]
    fn split(slot: usize) -> (usize, usize) {
        (slot >> SLOT_SHIFT, slot & ((1 << SLOT_SHIFT) - 1))
    }

    /// Ask the host CPU to start loading the set of `line`: a DMA touches
    /// many lines whose sets are independent, and overlapping those host
    /// cache misses is most of the model's speed.
    #[inline]
    pub fn prefetch(&self, line: u64) {
        self.prefetch_set(self.set_of(line) as usize);
    }

    /// [`Cache::prefetch`] of a set already hashed.
    #[inline(always)]
    pub fn prefetch_set(&self, s: usize) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `s` indexes `self.set` (callers pass a `set_of` result);
        // a prefetch never faults anyway.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch(self.set.as_ptr().add(s) as *const i8, _MM_HINT_T0);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = s;
    }

    /// Slot index of `line` if cached.
    #[inline(always)]
    pub fn find(&self, line: u64) -> Option<usize> {
        self.lookup(line).ok()
    }

    /// `Ok(slot)` of `line` if cached, else `Err(set)`: the set an
    /// [`Cache::insert_at`] of it takes, so a miss hashes the line once.
    #[inline(always)]
    pub fn lookup(&self, line: u64) -> Result<usize, usize> {
        self.lookup_in(self.set_of(line) as usize, line)
    }

    /// [`Cache::lookup`] in `s`, the set of `line` hashed beforehand.
    #[inline(always)]
    pub fn lookup_in(&self, s: usize, line: u64) -> Result<usize, usize> {
        debug_assert_eq!(s, self.set_of(line) as usize);
        let tag = self.tag_of(line);
        let hits = ways_where(&self.set[s].tag, self.ways, !FLAGS, tag);
        if hits != 0 {
            Ok(s << SLOT_SHIFT | hits.trailing_zeros() as usize)
        } else {
            Err(s)
        }
    }

    /// Mark a slot most recently used: ways more recent than it age by one.
    #[inline(always)]
    pub fn touch(&mut self, slot: usize) {
        let (s, w) = Self::split(slot);
        if self.policy.is_qlru() {
            return self.qlru_hit(s, w);
        }
        let set = &mut self.set[s];
        let r = set.rank[w];
        age_younger(&mut set.rank, r);
        set.rank[w] = 0;
    }

    #[inline]
    fn qlru_hit(&mut self, s: usize, w: usize) {
        let age = &mut self.set[s].rank[w];
        *age = QLRU_HIT[*age as usize];
        self.qlru_age(s);
    }

    /// QLRU's update after an access: every age rises until the oldest
    /// way (of all `ways`, valid or not) is 3.
    #[inline]
    fn qlru_age(&mut self, s: usize) {
        let m = self.way_bytes;
        self.qlru_raise(s, &m);
    }

    /// QLRU's victim among the allowed ways (all valid): the first of age
    /// 3, after ageing them until one is.
    fn qlru_victim(&mut self, s: usize, allowed: u32) -> usize {
        let m = ages::byte_mask(allowed & self.all_ways() as u32);
        let a = self.qlru_raise(s, &m);
        ages::first_old(&a, &m).unwrap_or(0)
    }

    /// Raise the ages of set `s`'s ways in byte mask `m` until the oldest
    /// is 3; returns the set's ages after.
    #[inline(always)]
    fn qlru_raise(&mut self, s: usize, m: &ages::Words) -> ages::Words {
        let mut a = ages::load(&self.set[s].rank);
        let up = 3 - ages::max(&a, m);
        if up > 0 {
            ages::add(&mut a, m, up);
            ages::store(&mut self.set[s].rank, &a);
        }
        a
    }

    /// The age a new line gets in set `s`; QlruAdaptive's leader sets move
    /// the selector (this is a miss).
    fn qlru_insert_age(&mut self, s: usize) -> u8 {
        let mostly_3 = match (self.policy, s % DUEL_PERIOD) {
            (Policy::Qlru, _) => false,
            (_, 0) => {
                self.psel = (self.psel + 1).min(PSEL_MAX);
                false
            }
            (_, DUEL_MR31) => {
                self.psel = self.psel.saturating_sub(1);
                true
            }
            _ => self.psel > PSEL_MAX / 2,
        };
        if mostly_3 && self.rng.gen_range(0..16) != 0 {
            3
        } else {
            1
        }
    }

    #[inline]
    pub fn set_dirty(&mut self, slot: usize) {
        let (s, w) = Self::split(slot);
        self.set[s].tag[w] |= DIRTY;
    }
    #[inline]
    pub fn clear_dirty(&mut self, slot: usize) {
        let (s, w) = Self::split(slot);
        self.set[s].tag[w] &= !DIRTY;
    }
    #[inline]
    pub fn is_dirty(&self, slot: usize) -> bool {
        let (s, w) = Self::split(slot);
        self.set[s].tag[w] & DIRTY != 0
    }
    #[inline]
    pub fn sharers(&self, slot: usize) -> u64 {
        let (s, w) = Self::split(slot);
        if self.set[s].tag[w] & SHARED == 0 {
            0
        } else {
            self.sharers[s * self.ways + w] as u64
        }
    }
    #[inline]
    pub fn add_sharer(&mut self, slot: usize, core: usize) {
        let (s, w) = Self::split(slot);
        let i = s * self.ways + w;
        if self.set[s].tag[w] & SHARED == 0 {
            self.sharers[i] = 0;
            self.set[s].tag[w] |= SHARED;
        }
        self.sharers[i] |= 1 << core;
    }
    #[inline]
    pub fn remove_sharer(&mut self, slot: usize, core: usize) {
        let (s, w) = Self::split(slot);
        if self.set[s].tag[w] & SHARED != 0 {
            self.sharers[s * self.ways + w] &= !(1 << core);
        }
    }
    #[inline]
    pub fn clear_sharers(&mut self, slot: usize) {
        let (s, w) = Self::split(slot);
        self.set[s].tag[w] &= !SHARED;
    }

    /// Insert `line` (known to be absent) into one of the ways in `mask`,
    /// evicting the least recently used (or a random) line among them.
    pub fn insert(&mut self, line: u64, mask: u64, dirty: bool) -> (usize, Option<Victim>) {
        self.insert_at(self.set_of(line) as usize, line, mask, dirty)
    }

    /// [`Cache::insert`] into `s`, the set [`Cache::lookup`] returned.
    #[inline(always)]
    pub fn insert_at(&mut self, s: usize, line: u64, mask: u64, dirty: bool) -> (usize, Option<Victim>) {
        debug_assert!(self.find(line).is_none() && s == self.set_of(line) as usize);
        debug_assert!(mask != 0 && mask & !self.all_ways() == 0);
        let allowed = (mask as u32) & ((1 << self.ways) - 1);
        if self.policy.is_qlru() {
            return self.qlru_insert(s, line, allowed, dirty);
        }
        let set = &self.set[s];
        // A free allowed way if there is one, else the allowed way with the
        // highest LRU rank (ranks are distinct within a set).
        let free = ways_where(&set.tag, self.ways, u32::MAX, 0) & allowed;
        let mut pick = free.trailing_zeros() as usize;
        if free == 0 {
            pick = if allowed == (1 << self.ways) - 1 {
                // Ranks of the ways form a permutation of 0..ways: the LRU
                // way holds the last rank (one vector compare, no branches).
                let last = self.ways as u8 - 1;
                ranks_equal(&set.rank, self.ways, last).trailing_zeros() as usize
            } else {
                // Only the allowed ways (DDIO's 2 of 11), highest rank.
                let (mut oldest, mut m) = (0u8, allowed);
                while m != 0 {
                    let w = m.trailing_zeros() as usize;
                    m &= m - 1;
                    if set.rank[w] >= oldest {
                        (oldest, pick) = (set.rank[w], w);
                    }
                }
                pick
            };
        }
        if self.policy == Policy::Random && set.tag[pick] != 0 {
            let k = self.rng.gen_range(0..allowed.count_ones());
            pick = (0..self.ways)
                .filter(|w| mask & (1 << w) != 0)
                .nth(k as usize)
                .unwrap();
        }
        let (slot, victim) = self.replace(s, pick, line, dirty);
        self.touch(slot);
        (slot, victim)
    }

    /// [`Cache::insert_at`] under QLRU: the first free allowed way, else
    /// the QLRU victim; the new line's age, then the ageing update.
    #[inline]
    fn qlru_insert(&mut self, s: usize, line: u64, allowed: u32, dirty: bool) -> (usize, Option<Victim>) {
        let free = ways_where(&self.set[s].tag, self.ways, u32::MAX, 0) & allowed;
        let pick = if free != 0 {
            free.trailing_zeros() as usize
        } else {
            self.qlru_victim(s, allowed)
        };
        let (slot, victim) = self.replace(s, pick, line, dirty);
        self.set[s].rank[pick] = self.qlru_insert_age(s);
        self.qlru_age(s);
        (slot, victim)
    }

    /// Put `line` in way `pick` of set `s`; what it held is the victim.
    #[inline(always)]
    fn replace(&mut self, s: usize, pick: usize, line: u64, dirty: bool) -> (usize, Option<Victim>) {
        let slot = s << SLOT_SHIFT | pick;
        let victim = (self.set[s].tag[pick] != 0).then(|| Victim {
            line: self.line_at(slot),
            dirty: self.is_dirty(slot),
            sharers: self.sharers(slot),
        });
        self.set[s].tag[pick] = self.tag_of(line) | if dirty { DIRTY } else { 0 };
        (slot, victim)
    }

    /// Drop `line` if present; returns what it held.
    pub fn invalidate(&mut self, line: u64) -> Option<Victim> {
        let slot = self.find(line)?;
        let v = Victim {
            line,
            dirty: self.is_dirty(slot),
            sharers: self.sharers(slot),
        };
        self.clear(slot);
        Some(v)
    }

    /// Drop `line` if present; returns whether it was dirty (for caches
    /// that track no sharers: the L2s).
    #[inline]
    pub fn remove(&mut self, line: u64) -> Option<bool> {
        let slot = self.find(line)?;
        let dirty = self.is_dirty(slot);
        self.clear(slot);
        Some(dirty)
    }

    /// Empty a slot (its line is dropped without a victim record).
    #[inline]
    pub fn clear(&mut self, slot: usize) {
        let (s, w) = Self::split(slot);
        self.set[s].tag[w] = 0;
    }

    /// Valid lines (for occupancy invariants and tests).
    pub fn occupancy(&self) -> usize {
        self.set
            .iter()
            .map(|s| s.tag[..self.ways].iter().filter(|&&t| t != 0).count())
            .sum()
    }

    /// Line address held by a valid slot: the tag's high bits and the set's
    /// low bits.
    pub fn line_at(&self, slot: usize) -> u64 {
        let (s, w) = Self::split(slot);
        let low = match &self.indexing {
            Indexing::Modulo => s as u64,
            Indexing::Sliced { slices, .. } => s as u64 / slices,
        };
        (((self.set[s].tag[w] & !FLAGS) as u64 - 1) << self.tag_shift) | low
    }

    /// Way of a slot (tests and DDIO occupancy).
    pub fn way_of(&self, slot: usize) -> usize {
        Self::split(slot).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng;
    use proptest::prelude::*;

    fn lru(sets: u64, ways: usize) -> Cache {
        Cache::new(
            sets * ways as u64 * LINE,
            ways,
            Indexing::Modulo,
            Policy::Lru,
            rng(1, 0, 0),
        )
    }

    /// The vector compare finds the ways of a rank as a scan does, for
    /// every associativity and rank (unused ways hold ranks >= ways).
    #[test]
    fn ranks_equal_matches_a_scan() {
        let mut r = rng(7, 0, 0);
        for _ in 0..2000 {
            let ways = r.gen_range(1..=MAX_WAYS);
            let ranks: [u8; MAX_WAYS] = std::array::from_fn(|_| r.gen_range(0..MAX_WAYS as u8 + 2));
            let x = r.gen_range(0..MAX_WAYS as u8 + 2);
            let scan = (0..ways).filter(|&w| ranks[w] == x).fold(0u32, |m, w| m | 1 << w);
            assert_eq!(ranks_equal(&ranks, ways, x), scan, "{ranks:?} {ways} {x}");
        }
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

    /// Reference model of QLRU_H11_M1_R0_U0 as nanoBench's cache simulator
    /// defines it: per set, blocks (None = invalid) and 2-bit ages, all 3
    /// at the start.
    struct RefQlru {
        sets: Vec<(Vec<Option<u64>>, Vec<u8>)>,
    }
    impl RefQlru {
        fn access(&mut self, line: u64) -> bool {
            let n = self.sets.len() as u64;
            let (blocks, ages) = &mut self.sets[(line % n) as usize];
            let hit = blocks.contains(&Some(line));
            if hit {
                let i = blocks.iter().position(|&b| b == Some(line)).unwrap();
                ages[i] = match ages[i] {
                    3 | 2 => 1,
                    _ => 0,
                };
            } else {
                let i = blocks
                    .iter()
                    .position(|b| b.is_none())
                    .unwrap_or_else(|| ages.iter().position(|&a| a == 3).unwrap());
                blocks[i] = Some(line);
                ages[i] = 1;
            }
            let up = 3 - *ages.iter().max().unwrap();
            ages.iter_mut().for_each(|a| *a += up);
            hit
        }
    }

    fn cache(sets: u64, ways: usize, policy: Policy) -> Cache {
        Cache::new(sets * ways as u64 * LINE, ways, Indexing::Modulo, policy, rng(1, 0, 0))
    }

    #[test]
    fn adaptive_qlru_keeps_part_of_a_cyclic_working_set_lru_and_qlru_do_not() {
        // 1.5 x the cache's lines, over and over
        let hits = |policy| {
            let mut c = cache(256, 8, policy);
            let all = c.all_ways();
            let mut hits = 0;
            for round in 0..50 {
                for l in 0..256 * 12 {
                    let hit = access(&mut c, l, all);
                    hits += (round >= 10 && hit) as u64;
                }
            }
            hits as f64 / (40.0 * 256.0 * 12.0)
        };
        assert_eq!(hits(Policy::Lru), 0.0);
        assert_eq!(hits(Policy::Qlru), 0.0);
        let adaptive = hits(Policy::QlruAdaptive);
        assert!(adaptive > 0.2 && adaptive < 0.67, "{adaptive}");
    }

    proptest! {
        #[test]
        fn matches_reference_qlru(trace in proptest::collection::vec(0u64..120, 1..2000)) {
            let mut c = cache(8, 4, Policy::Qlru);
            let mut r = RefQlru { sets: vec![(vec![None; 4], vec![3; 4]); 8] };
            let all = c.all_ways();
            for &l in &trace {
                prop_assert_eq!(access(&mut c, l, all), r.access(l));
            }
        }

        #[test]
        fn qlru_masked_insert_stays_in_mask(trace in proptest::collection::vec(0u64..500, 1..1000), mask in 1u64..16) {
            let mut c = cache(4, 4, Policy::QlruAdaptive);
            for &l in &trace {
                if c.find(l).is_none() {
                    let (slot, _) = c.insert(l, mask, false);
                    prop_assert!(mask & (1 << c.way_of(slot)) != 0);
                }
            }
        }

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
        let mut c = Cache::new(
            18 * 64 * 11 * 64,
            11,
            Indexing::Sliced {
                slices: 18,
                sets_per_slice: 64,
                hash: SliceFn::measured(18).unwrap(),
            },
            Policy::Lru,
            rng(1, 0, 0),
        );
        let mut used = std::collections::HashSet::new();
        for i in 0..1000u64 {
            used.insert(c.set_of(i * 64));
        }
        // and every slot maps back to the line it holds
        for l in [5u64, 1 << 20, (1 << 30) - 12345] {
            let (slot, _) = c.insert(l, c.all_ways(), false);
            assert_eq!(c.line_at(slot), l);
        }
        assert!(used.len() >= 17, "only {} sets used", used.len());
    }

    #[test]
    fn an_eleven_way_set_fits_one_host_line() {
        assert_eq!(std::mem::offset_of!(Set, tag) + 11 * 4, 64);
        assert_eq!(std::mem::align_of::<Set>(), 64);
    }

    #[test]
    fn victims_report_dirty_lines() {
        let mut c = lru(1, 1);
        c.insert(5, 1, true);
        let (_, v) = c.insert(6, 1, false);
        assert_eq!(
            v,
            Some(Victim {
                line: 5,
                dirty: true,
                sharers: 0
            })
        );
    }
}
