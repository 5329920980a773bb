//! Which LLC slice a physical line belongs to: Intel's complex addressing.
//!
//! `measured` is the mapping McCalpin measured on Xeon Scalable
//! parts ([`super::slice_data`]): a base sequence of slice numbers repeated
//! over memory, each block permuted by an XOR of physical-address bits. For
//! 2^n slices the base sequence is 0..2^n and the mapping is linear over
//! GF(2), like the functions Maurice et al. (RAID'15) found on client
//! parts; for other counts it is balanced over every aligned block up to
//! the base sequence's own per-slice counts (18 slices: 232 lines of each
//! of slices 0-15 and 192 of slices 16-17 in every 4096).
//!
//! `random` is a strong hash that no hardware uses, kept to show what a
//! Poisson scatter of lines over slices does.

use super::slice_data::MEASURED;

/// A line's slice.
#[derive(Clone)]
pub enum SliceFn {
    /// A measured mapping; `perm[k][b]`: the permutation bits that byte `k`
    /// of the line address contributes (the masks are linear, so the four
    /// bytes' contributions XOR together).
    Measured {
        base: &'static [u8],
        perm: Box<[[u16; 256]; 4]>,
    },
    /// A strong hash mapped onto 0..slices.
    Random { slices: u64 },
}

/// Slice counts with a measured mapping.
pub fn measured_counts() -> Vec<u64> {
    MEASURED.iter().map(|m| m.slices).collect()
}

impl SliceFn {
    /// The measured mapping of `slices` slices, if there is one.
    pub fn measured(slices: u64) -> Option<SliceFn> {
        let m = MEASURED.iter().find(|m| m.slices == slices)?;
        let mut perm = Box::new([[0u16; 256]; 4]);
        for (k, table) in perm.iter_mut().enumerate() {
            for (b, p) in table.iter_mut().enumerate() {
                // the byte-address bits this byte of the line address sets
                let addr = (b as u64) << (6 + 8 * k);
                *p = m
                    .masks
                    .iter()
                    .enumerate()
                    .map(|(bit, mask)| (((addr & mask).count_ones() & 1) as u16) << bit)
                    .fold(0, |a, x| a | x);
            }
        }
        Some(SliceFn::Measured { base: m.base, perm })
    }

    /// The permutation of `line`'s block (measured mappings).
    #[inline(always)]
    fn perm(perm: &[[u16; 256]; 4], line: u64) -> usize {
        (perm[0][(line & 255) as usize]
            ^ perm[1][(line >> 8 & 255) as usize]
            ^ perm[2][(line >> 16 & 255) as usize]
            ^ perm[3][(line >> 24 & 255) as usize]) as usize
    }

    /// The slice of physical line `line` (address / 64).
    #[inline(always)]
    pub fn slice(&self, line: u64) -> u64 {
        match self {
            SliceFn::Measured { base, perm } => {
                // (base.len() is a power of two; permutation bits lie above it)
                base[(line as usize ^ Self::perm(perm, line)) & (base.len() - 1)] as u64
            }
            // Multiply-shift maps the hash onto 0..slices without a division.
            SliceFn::Random { slices } => ((mix(line) as u128 * *slices as u128) >> 64) as u64,
        }
    }

    /// `f(i, slice)` for the `n` consecutive lines from `first`: the
    /// permutation changes only where a block of the base sequence ends.
    #[inline(always)]
    pub fn slices_of_run(&self, first: u64, n: usize, mut f: impl FnMut(usize, u64)) {
        match self {
            SliceFn::Measured { base, perm } => {
                let mask = base.len() as u64 - 1;
                let mut p = Self::perm(perm, first);
                for i in 0..n {
                    let line = first + i as u64;
                    if i > 0 && line & mask == 0 {
                        p = Self::perm(perm, line);
                    }
                    f(i, base[(line as usize ^ p) & mask as usize] as u64);
                }
            }
            SliceFn::Random { .. } => {
                for i in 0..n {
                    f(i, self.slice(first + i as u64));
                }
            }
        }
    }
}

/// MurmurHash3's finaliser: every address bit influences the slice.
#[inline]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(f: &SliceFn, slices: usize, first: u64, lines: u64) -> Vec<u64> {
        let mut c = vec![0u64; slices];
        for l in first..first + lines {
            c[f.slice(l) as usize] += 1;
        }
        c
    }

    /// Straight from the definition: the permutation bits are parities of
    /// the byte address under each mask, and element i of a block is the
    /// base sequence's element i XOR p.
    fn reference(slices: u64, line: u64) -> u64 {
        let m = MEASURED.iter().find(|m| m.slices == slices).unwrap();
        let addr = line * 64;
        let p = m
            .masks
            .iter()
            .enumerate()
            .fold(0usize, |p, (k, mask)| p | (((addr & mask).count_ones() & 1) as usize) << k);
        let n = m.base.len();
        m.base[(line as usize % n) ^ p] as u64
    }

    #[test]
    fn table_lookup_equals_the_definition() {
        let mut r = crate::sim::rng(3, 0, 0);
        use rand::Rng as _;
        for &s in &measured_counts() {
            let f = SliceFn::measured(s).unwrap();
            for _ in 0..20_000 {
                let line = r.gen_range(0..1u64 << 32);
                assert_eq!(f.slice(line), reference(s, line), "{s} slices, line {line:#x}");
            }
        }
    }

    #[test]
    fn runs_of_lines_hash_as_lines_one_by_one() {
        for &s in &measured_counts() {
            let f = SliceFn::measured(s).unwrap();
            for first in [0u64, 4090, (7 << 15) - 3, 123_456_789] {
                let mut got = Vec::new();
                f.slices_of_run(first, 64, |i, sl| got.push((i, sl)));
                let want: Vec<(usize, u64)> = (0..64).map(|i| (i, f.slice(first + i as u64))).collect();
                assert_eq!(got, want, "{s} slices from {first}");
            }
        }
    }

    /// The base sequences start at physical address 0 (McCalpin's tables):
    /// lines 0.. of the 18-slice part are slices 0, 11, 2, 9, 7, 12.
    #[test]
    fn known_addresses_map_to_their_measured_slices() {
        let f = SliceFn::measured(18).unwrap();
        let got: Vec<u64> = (0..6).map(|l| f.slice(l)).collect();
        assert_eq!(got, [0, 11, 2, 9, 7, 12]);
        let f16 = SliceFn::measured(16).unwrap();
        assert_eq!((0..16).map(|l| f16.slice(l)).collect::<Vec<_>>(), (0..16).collect::<Vec<_>>());
        // the first lines of BaseSequence_ICX_40-slice.tbl and _SPR_56-slice.tbl
        let f40 = SliceFn::measured(40).unwrap();
        assert_eq!((0..8).map(|l| f40.slice(l)).collect::<Vec<_>>(), [0, 11, 2, 9, 27, 32, 25, 34]);
        let f56 = SliceFn::measured(56).unwrap();
        assert_eq!((0..8).map(|l| f56.slice(l)).collect::<Vec<_>>(), [0, 1, 2, 3, 18, 19, 20, 21]);
    }

    /// An aligned 2 MiB page (32768 lines) spreads as the report gives:
    /// 16 slices evenly (2048 each); 18 slices 1856 lines on slices 0-15 and
    /// 1536 on 16-17 -- wherever the page sits in physical memory.
    #[test]
    fn an_aligned_2mib_page_is_balanced_as_published() {
        let page = 32768u64;
        for base in [0u64, 7 << 15, 0x1234 << 15, (1 << 31) - page] {
            assert_eq!(counts(&SliceFn::measured(16).unwrap(), 16, base, page), vec![2048; 16]);
            let c18 = counts(&SliceFn::measured(18).unwrap(), 18, base, page);
            assert_eq!(&c18[..16], &[1856; 16][..]);
            assert_eq!(&c18[16..], &[1536; 2][..]);
        }
    }

    /// Ice Lake-SP's 40 slices and Sapphire Rapids' 56: an aligned 2 MiB
    /// page holds whole blocks of the base sequence (512 and 16384 lines),
    /// so each slice gets the base sequence's share of it -- 768 or 832
    /// lines (12 or 13 per 512) and 512, 596 or 600 (256, 298 or 300 per
    /// 16384) -- wherever the page sits below the masks' 2^37 bytes.
    #[test]
    fn ice_lake_and_sapphire_rapids_pages_are_balanced() {
        let page = 32768u64;
        for (slices, shares) in [(40usize, vec![768u64, 832]), (56, vec![512, 596, 600])] {
            let f = SliceFn::measured(slices as u64).unwrap();
            for base in [0u64, 7 << 15, 0x1234 << 15, (1 << 31) - page] {
                let c = counts(&f, slices, base, page);
                assert!(c.iter().all(|n| shares.contains(n)), "{slices} slices at {base:#x}: {c:?}");
                assert_eq!(c.iter().sum::<u64>(), page);
            }
        }
    }

    /// With 2^n slices the mapping is linear over GF(2): the slice of
    /// a XOR b is the XOR of their slices (line 0 maps to slice 0).
    #[test]
    fn power_of_two_mapping_is_linear() {
        let f = SliceFn::measured(16).unwrap();
        let mut r = crate::sim::rng(5, 0, 0);
        use rand::Rng as _;
        for _ in 0..10_000 {
            let (a, b) = (r.gen_range(0..1u64 << 31), r.gen_range(0..1u64 << 31));
            assert_eq!(f.slice(a ^ b), f.slice(a) ^ f.slice(b));
        }
    }

    /// The random hash scatters: an aligned 16-line block does not cover
    /// 16 slices, where the measured mapping always does.
    #[test]
    fn random_hash_is_not_balanced_over_small_blocks() {
        let f = SliceFn::Random { slices: 16 };
        let full = (0..64u64).filter(|b| counts(&f, 16, b * 16, 16).iter().all(|&c| c == 1)).count();
        assert!(full < 4, "{full} of 64 blocks covered every slice");
    }
}
