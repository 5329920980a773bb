//! LLC set sampling (`llc.set_sample = N`): the caches model 1 in N sets,
//! and accesses to the other sets are priced by what the modelled ones saw.
//!
//! Which lines are sampled: a fixed 1/N of the values of the low `b` line
//! bits, where `b` bits index both the LLC's sets within a slice and the
//! L2's sets. A sampled LLC or L2 set therefore receives exactly the lines
//! it receives in the full model, and only those: the sampled lines see the
//! same hits, misses, evictions and coherence traffic as in the full model
//! (up to the timing feedback of the other accesses). The residues are
//! scrambled by an odd multiplier, so power-of-two strided structures are
//! not all in or all out.
//!
//! An access to an unsampled line does not touch a cache. Its outcome is
//! the recent outcome mix of sampled accesses of the same kind -- DMA
//! writes, DMA reads, and each core's loads and stores apart: L2 hit, LLC
//! hit, snoop or miss, and the write-backs and coherence invalidations it
//! caused. Outcomes are issued by error diffusion (deterministic, no random
//! draw), so over any stretch the unsampled accesses reproduce the sampled
//! mix; their DRAM reads and write-backs still go through the DRAM model.
//! A DMA's unsampled lines are priced together ([`Sampler::predict_many`]),
//! a core's accesses one at a time.
//!
//! Left out: correlation between one packet's accesses (a header read that
//! always hits after its DDIO write is priced at the class's hit rate), so
//! per-packet latency spreads more evenly than in the full model. The L2
//! prefetchers fetch only sampled lines, and the adjacent-line prefetcher
//! fires on an unsampled line's predicted L2 miss, so with prefetchers on
//! sampling is no longer exact for the modelled lines.

use crate::config::LlcSliceHash;
use crate::config::{L2Cfg, LlcCfg};

/// Sets the low line bits alone index: in the LLC (within a slice, under
/// the slice hash) and in an L2. Sampling reads the bits both share.
pub fn low_index_sets(llc: &LlcCfg, l2: &L2Cfg) -> (u64, u64) {
    let llc_sets = llc.size / 64 / llc.ways;
    let llc_low = if llc.slice_hash != LlcSliceHash::Off {
        llc_sets / llc.slices
    } else {
        llc_sets
    };
    (llc_low, l2.size / 64 / l2.ways)
}

/// Outcomes of one access: where it was served.
pub const L2_HIT: usize = 0;
pub const LLC_HIT: usize = 1;
pub const MISS: usize = 2;
/// Served by snooping another core's private copy (`llc.snoop_latency`).
pub const SNOOP: usize = 3;
const OUTCOMES: usize = 4;

/// Accesses of one class (sampled or not) a class's mix remembers: the mix
/// follows phase changes (caches warming, bursts) at the same pace whatever
/// the sampling rate.
const MEMORY: f64 = 1024.0;

/// Kinds of access, each with its own outcome mix.
pub const DMA_WRITE: usize = 0;
pub const DMA_READ: usize = 1;
/// Core `c`'s loads are class `core_class(c, false)`, its stores the next.
pub fn core_class(core: usize, write: bool) -> usize {
    2 + 2 * core + write as usize
}

#[derive(Clone, Debug, Default)]
struct Class {
    /// Decayed counts of sampled outcomes, write-backs and invalidations.
    seen: [f64; OUTCOMES],
    writebacks: f64,
    invalidations: f64,
    total: f64,
    /// `seen`, `writebacks` and `invalidations` over `total`, kept by
    /// `record` so that the far more frequent `predict` divides nothing.
    rate: [f64; OUTCOMES],
    writeback_rate: f64,
    invalidation_rate: f64,
    /// Error-diffusion balances of the unsampled accesses.
    owed: [f64; OUTCOMES],
    owed_writebacks: f64,
    owed_invalidations: f64,
}

/// What an unsampled access is to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub served: usize,
    pub writebacks: u64,
    pub invalidations: u64,
}

pub struct Sampler {
    /// Low line bits the predicate reads.
    mask: u32,
    /// Scrambled residues below this are sampled.
    threshold: u32,
    classes: Vec<Class>,
    /// Weight a sampled access's outcome loses per later sampled access.
    decay: f64,
}

/// Odd, so multiplying permutes the residues modulo any power of two.
const SCRAMBLE: u32 = 0x9E37_79B1;

impl Sampler {
    /// Sample 1 in `n` of the `2^bits` residues of the low line bits
    /// (`n` a power of two, at most `2^bits`), with `cores` cores.
    pub fn new(n: u64, bits: u32, cores: usize) -> Sampler {
        assert!(
            n.is_power_of_two() && n <= 1 << bits,
            "set_sample {n} with {bits} index bits"
        );
        Sampler {
            mask: ((1u64 << bits) - 1) as u32,
            threshold: ((1u64 << bits) / n) as u32,
            classes: vec![Class::default(); core_class(cores, false)],
            // 1 in n accesses is sampled: MEMORY accesses are MEMORY / n samples
            // (at least 16, so one sample never dominates).
            decay: (n as f64 / MEMORY).min(1.0 / 16.0),
        }
    }

    /// Whether the caches model `line`.
    #[inline(always)]
    pub fn sampled(&self, line: u64) -> bool {
        ((line as u32).wrapping_mul(SCRAMBLE) & self.mask) < self.threshold
    }

    /// A sampled access of `class` was served at `served` and caused
    /// `writebacks` DRAM write-backs and `invalidations` invalidations.
    pub fn record(&mut self, class: usize, served: usize, writebacks: u64, invalidations: u64) {
        let c = &mut self.classes[class];
        let keep = 1.0 - self.decay;
        for (k, s) in c.seen.iter_mut().enumerate() {
            *s = *s * keep + (k == served) as u64 as f64;
        }
        c.writebacks = c.writebacks * keep + writebacks as f64;
        c.invalidations = c.invalidations * keep + invalidations as f64;
        c.total = c.total * keep + 1.0;
        for (r, s) in c.rate.iter_mut().zip(c.seen) {
            *r = s / c.total;
        }
        c.writeback_rate = c.writebacks / c.total;
        c.invalidation_rate = c.invalidations / c.total;
    }

    /// The outcome of an unsampled access of `class`: a miss until the
    /// class has a sampled access, then the sampled mix by error diffusion.
    pub fn predict(&mut self, class: usize) -> Outcome {
        let c = &mut self.classes[class];
        if c.total == 0.0 {
            return Outcome {
                served: MISS,
                writebacks: 0,
                invalidations: 0,
            };
        }
        for (o, r) in c.owed.iter_mut().zip(c.rate) {
            *o += r;
        }
        // The outcome owed most (ties: the nearer level, so it is stable).
        let mut served = 0;
        for k in 1..OUTCOMES {
            if c.owed[k] > c.owed[served] {
                served = k;
            }
        }
        c.owed[served] -= 1.0;
        c.owed_writebacks += c.writeback_rate;
        c.owed_invalidations += c.invalidation_rate;
        // Whole units owed (the balances are never negative, so `as` floors
        // without a libm call).
        let writebacks = c.owed_writebacks as u64;
        let invalidations = c.owed_invalidations as u64;
        c.owed_writebacks -= writebacks as f64;
        c.owed_invalidations -= invalidations as f64;
        Outcome {
            served,
            writebacks,
            invalidations,
        }
    }

    /// The outcomes of `n` unsampled accesses of `class` at once (the
    /// unsampled lines of one DMA): how many were served at each level and
    /// the write-backs and invalidations they owe. Each level gets the whole
    /// units its balance reaches, the rest go to the largest remainders, so
    /// the balances stay within one access as in [`Sampler::predict`] and a
    /// DMA costs O(levels), not O(lines).
    pub fn predict_many(&mut self, class: usize, n: u64) -> Outcomes {
        let c = &mut self.classes[class];
        let mut served = [0u64; OUTCOMES];
        if c.total == 0.0 {
            served[MISS] = n;
            return Outcomes { served, writebacks: 0, invalidations: 0 };
        }
        let mut given = 0;
        for ((owed, rate), out) in c.owed.iter_mut().zip(c.rate).zip(served.iter_mut()) {
            *owed += n as f64 * rate;
            *out = owed.max(0.0) as u64;
            *owed -= *out as f64;
            given += *out;
        }
        // Rounding left some accesses over (or, by float drift, one too
        // many): settle them on the levels owed most (least).
        while given < n {
            let k = (0..OUTCOMES).fold(0, |m, k| if c.owed[k] > c.owed[m] { k } else { m });
            served[k] += 1;
            c.owed[k] -= 1.0;
            given += 1;
        }
        while given > n {
            let k = (0..OUTCOMES)
                .filter(|&k| served[k] > 0)
                .fold(MISS, |m, k| if served[m] == 0 || c.owed[k] < c.owed[m] { k } else { m });
            served[k] -= 1;
            c.owed[k] += 1.0;
            given -= 1;
        }
        c.owed_writebacks += n as f64 * c.writeback_rate;
        c.owed_invalidations += n as f64 * c.invalidation_rate;
        let writebacks = c.owed_writebacks as u64;
        let invalidations = c.owed_invalidations as u64;
        c.owed_writebacks -= writebacks as f64;
        c.owed_invalidations -= invalidations as f64;
        Outcomes { served, writebacks, invalidations }
    }
}

/// What `n` unsampled accesses are to do: how many were served at each
/// level (indexed by L2_HIT, LLC_HIT, MISS, SNOOP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcomes {
    pub served: [u64; OUTCOMES],
    pub writebacks: u64,
    pub invalidations: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_exactly_one_in_n_residues() {
        for n in [1u64, 2, 8, 64, 1024] {
            let s = Sampler::new(n, 10, 1);
            let k = (0..1024u64).filter(|&l| s.sampled(l)).count() as u64;
            assert_eq!(k, 1024 / n);
            // the predicate reads only the low bits
            assert!((0..4096u64).all(|l| s.sampled(l) == s.sampled(l + (7 << 10))));
        }
    }

    #[test]
    fn a_strided_structure_is_sampled_at_about_the_rate() {
        // Lines 32 apart (2 KiB objects) are neither all in nor all out.
        let s = Sampler::new(8, 10, 1);
        let k = (0..1024u64).filter(|&i| s.sampled(i * 32)).count();
        assert!((64..=256).contains(&k), "{k} of 1024");
    }

    #[test]
    fn unsampled_outcomes_follow_the_sampled_mix() {
        let mut s = Sampler::new(4, 10, 1);
        let c = core_class(0, false);
        assert_eq!(s.predict(c).served, MISS, "cold class: a miss");
        // 60 % L2 hits, 30 % LLC hits, 10 % misses with one write-back each.
        for i in 0..10_000 {
            let served = [
                L2_HIT, L2_HIT, L2_HIT, L2_HIT, L2_HIT, L2_HIT, LLC_HIT, LLC_HIT, LLC_HIT, MISS,
            ][i % 10];
            s.record(c, served, (served == MISS) as u64, 0);
        }
        let mut n = [0u64; 3];
        let mut wb = 0;
        for _ in 0..1000 {
            let o = s.predict(c);
            n[o.served] += 1;
            wb += o.writebacks;
        }
        assert!(
            n[L2_HIT].abs_diff(600) <= 5
                && n[LLC_HIT].abs_diff(300) <= 5
                && n[MISS].abs_diff(100) <= 5,
            "{n:?}"
        );
        assert!(wb.abs_diff(100) <= 5, "{wb}");
    }

    /// A DMA's unsampled lines predicted together get the same mix as one
    /// at a time: every batch is whole (the counts sum to its size) and the
    /// running totals never stray more than a few accesses from the rates.
    #[test]
    fn bulk_outcomes_follow_the_sampled_mix_batch_by_batch() {
        let mut s = Sampler::new(8, 10, 1);
        assert_eq!(s.predict_many(DMA_WRITE, 5).served, [0, 0, 5, 0], "cold class: misses");
        for i in 0..10_000 {
            let served = [LLC_HIT, LLC_HIT, MISS][i % 3];
            s.record(DMA_WRITE, served, (i % 4 == 0) as u64, (i % 10 == 0) as u64);
        }
        let (mut total, mut n) = ([0u64; OUTCOMES], 0u64);
        let (mut wb, mut inv) = (0u64, 0u64);
        for k in 0..2_000u64 {
            let size = 1 + k * 7 % 23;
            let o = s.predict_many(DMA_WRITE, size);
            assert_eq!(o.served.iter().sum::<u64>(), size);
            n += size;
            for (t, c) in total.iter_mut().zip(o.served) {
                *t += c;
            }
            (wb, inv) = (wb + o.writebacks, inv + o.invalidations);
            let hit = s.classes[DMA_WRITE].rate[LLC_HIT];
            assert!((total[LLC_HIT] as f64 - n as f64 * hit).abs() < 2.0, "{total:?} of {n}");
        }
        let wb_rate = s.classes[DMA_WRITE].writeback_rate;
        assert!((wb as f64 - n as f64 * wb_rate).abs() < 2.0, "{wb} of {n}");
        assert!(inv > 0 && total[L2_HIT] == 0 && total[SNOOP] == 0);
    }
}
