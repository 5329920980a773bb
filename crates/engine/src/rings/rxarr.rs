//! RxArr: one cyclic descriptor array shared by N cores. A core that has
//! consumed descriptor i and re-armed it with a fresh buffer sets bit i of a
//! shared bitmap (atomic OR, batched per 64-bit word); then, under a lock,
//! it advances the shared consumer index over the maximal run of set bits
//! starting at the head, clears them, and rings the doorbell: the NIC may
//! reuse a descriptor only once every earlier one has been re-armed.
//!
//! Indices are free-running (u64); slot = index % size. Listing 1 of the
//! paper has bugs this version does not: the consumer index's word offset
//! must be taken modulo the ring, a run may cross a word and the ring's end,
//! and shifts are 64-bit.

/// Bits per bitmap word.
pub const WORD_BITS: u64 = 64;

#[derive(Clone, Debug)]
pub struct RxArr {
    size: u64,
    bitmap: Vec<u64>,
    /// Consumer index: every descriptor below it has been handed back.
    ci: u64,
}

impl RxArr {
    /// `size` descriptors, a power of two (as every NIC ring).
    pub fn new(size: u64) -> RxArr {
        assert!(size.is_power_of_two(), "RxArr size must be a power of two");
        RxArr { size, bitmap: vec![0; size.div_ceil(WORD_BITS) as usize], ci: 0 }
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The shared consumer index (what the doorbell tells the NIC).
    pub fn ci(&self) -> u64 {
        self.ci
    }

    /// Bitmap word holding descriptor `i` (its cache line is what cores contend on).
    pub fn word_of(&self, i: u64) -> usize {
        ((i % self.size) / WORD_BITS) as usize
    }

    /// Number of bitmap words, for laying them out in memory.
    pub fn words(&self) -> usize {
        self.bitmap.len()
    }

    /// A core marks the descriptors it has re-armed. Updates are batched per
    /// word, one atomic OR each; returns the words written, in order. Each
    /// index must be outstanding (in `ci .. ci + size`) and not yet marked.
    pub fn mark(&mut self, re_armed: &[u64], words: &mut Vec<usize>) {
        words.clear();
        let mut pending: Option<(usize, u64)> = None;
        for &i in re_armed {
            debug_assert!(i >= self.ci && i < self.ci + self.size, "descriptor {i} not outstanding (ci {})", self.ci);
            let (w, bit) = (self.word_of(i), 1u64 << ((i % self.size) % WORD_BITS));
            debug_assert!(self.bitmap[w] & bit == 0, "descriptor {i} marked twice");
            match pending {
                Some((pw, bits)) if pw == w => pending = Some((w, bits | bit)),
                Some((pw, bits)) => {
                    self.bitmap[pw] |= bits;
                    words.push(pw);
                    pending = Some((w, bit));
                }
                None => pending = Some((w, bit)),
            }
        }
        if let Some((w, bits)) = pending {
            self.bitmap[w] |= bits;
            words.push(w);
        }
    }

    /// Under the lock: advance the consumer index over the maximal run of
    /// re-armed descriptors at the head, clearing their bits. Returns how
    /// many were handed back (0 = no doorbell needed) and the words touched.
    pub fn advance(&mut self, words: &mut Vec<usize>) -> u64 {
        words.clear();
        let start = self.ci;
        loop {
            let pos = self.ci % self.size;
            let (w, b) = ((pos / WORD_BITS) as usize, pos % WORD_BITS);
            words.push(w);
            // Set bits from b upward (find-first-set of the complement).
            let run = (!(self.bitmap[w] >> b)).trailing_zeros() as u64;
            // A run stops at the word's end and at the ring's end; if it
            // reaches either, it may continue in the next word.
            let segment = (WORD_BITS - b).min(self.size - pos);
            let n = run.min(segment);
            if n == 0 {
                break;
            }
            let mask = if n == WORD_BITS { u64::MAX } else { ((1u64 << n) - 1) << b };
            self.bitmap[w] &= !mask;
            self.ci += n;
            if n < segment {
                break;
            }
        }
        self.ci - start
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The obvious model: a flag per slot, advance one at a time.
    struct Reference {
        done: Vec<bool>,
        ci: u64,
    }
    impl Reference {
        fn mark(&mut self, i: u64) {
            let n = self.done.len() as u64;
            self.done[(i % n) as usize] = true;
        }
        fn advance(&mut self) -> u64 {
            let n = self.done.len() as u64;
            let start = self.ci;
            while self.done[(self.ci % n) as usize] {
                self.done[(self.ci % n) as usize] = false;
                self.ci += 1;
            }
            self.ci - start
        }
    }

    #[test]
    fn a_run_crossing_words_and_the_ring_end_advances_whole() {
        let mut r = RxArr::new(128);
        let mut w = vec![];
        // Hand back 0..120 first so the head sits near the end.
        r.mark(&(0..120).collect::<Vec<_>>(), &mut w);
        assert_eq!(r.advance(&mut w), 120);
        // 120..140 wraps the ring (slots 120..127, 0..11) and crosses words.
        r.mark(&(120..140).rev().collect::<Vec<_>>(), &mut w);
        assert_eq!(r.advance(&mut w), 20);
        assert_eq!(r.ci(), 140);
    }

    #[test]
    fn a_gap_holds_back_later_descriptors() {
        let mut r = RxArr::new(64);
        let mut w = vec![];
        r.mark(&[1, 2, 3], &mut w);
        assert_eq!(r.advance(&mut w), 0, "descriptor 0 is still being processed");
        r.mark(&[0], &mut w);
        assert_eq!(r.advance(&mut w), 4);
    }

    #[test]
    fn marks_are_batched_per_word() {
        let mut r = RxArr::new(256);
        let mut w = vec![];
        r.mark(&[0, 5, 63, 64, 70, 200], &mut w);
        assert_eq!(w, vec![0, 1, 3]);
    }

    proptest! {
        /// Any order of completions across cores, any ring size, many
        /// wraparounds: the consumer index equals the reference model's.
        #[test]
        fn matches_the_reference_model(size_log in 4u32..9, seed in any::<u64>(), steps in 1usize..400) {
            let size = 1u64 << size_log;
            let mut arr = RxArr::new(size);
            let mut reference = Reference { done: vec![false; size as usize], ci: 0 };
            let mut rng = crate::sim::rng(seed, 0, 0);
            use rand::Rng;
            // Outstanding descriptors (handed to cores, not yet re-armed).
            let mut out: Vec<u64> = (0..size).collect();
            let mut next = size;
            let mut w = vec![];
            for _ in 0..steps {
                // A core re-arms a random batch of what it holds.
                let k = rng.gen_range(0..=out.len().min(40));
                let mut batch = vec![];
                for _ in 0..k {
                    batch.push(out.swap_remove(rng.gen_range(0..out.len())));
                }
                batch.sort_unstable();
                arr.mark(&batch, &mut w);
                for &i in &batch {
                    reference.mark(i);
                }
                let a = arr.advance(&mut w);
                prop_assert_eq!(a, reference.advance());
                prop_assert_eq!(arr.ci(), reference.ci);
                // The NIC reuses exactly the descriptors handed back.
                for _ in 0..a {
                    out.push(next);
                    next += 1;
                }
                prop_assert_eq!(next, arr.ci() + size);
            }
        }
    }
}
