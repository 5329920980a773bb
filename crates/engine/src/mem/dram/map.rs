//! Where a 64 B line lies in a channel: rank, bank group, bank, row and
//! column, from its address bits.
//!
//! Fields are cut from the line address (address / 64), least significant
//! first, in a configurable order. DRAMsim3's stock DDR4 configs use
//! `rochrababgco` (row, channel, rank, bank, bank group, column from the
//! top down): consecutive lines share a row, so a sequential stream hits
//! the open row. Intel's map is unpublished; reverse engineering (Pessl et
//! al., DRAMA, USENIX Security'16) found the bank bits XORed with row bits,
//! so that lines a row apart fall in different banks (permutation-based
//! interleaving, Zhang et al., MICRO'00). The host's map is DRAMsim3's
//! order with that XOR (`xor_banks`); which channel a line goes to is
//! decided before, by the channel interleave.

/// The channel a line goes to: channels interleave at line granularity
/// through an address hash.
#[inline]
pub fn interleave(line: u64, channels: usize) -> usize {
    ((line ^ (line >> 7) ^ (line >> 13)) % channels as u64) as usize
}

/// A channel's shape: ranks of bank groups of banks; rows of `columns`
/// lines (a 1 KiB device page times 8 x8 devices is 8 KiB: 128 lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub ranks: u64,
    pub bank_groups: u64,
    pub banks_per_group: u64,
    pub rows: u64,
    pub columns: u64,
}

impl Geometry {
    /// DDR4 8 Gb x8 devices, 1 KiB page: 4 groups of 4 banks, 64 Ki rows.
    pub fn ddr4_8gb_x8(ranks: u64) -> Geometry {
        Geometry { ranks, bank_groups: 4, banks_per_group: 4, rows: 65536, columns: 128 }
    }

    /// Banks in the channel (all ranks).
    pub fn banks(&self) -> usize {
        (self.ranks * self.bank_groups * self.banks_per_group) as usize
    }

    pub fn banks_per_rank(&self) -> usize {
        (self.bank_groups * self.banks_per_group) as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Column,
    BankGroup,
    Bank,
    Rank,
    Row,
}

/// A line's place in its channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    pub rank: u64,
    pub group: u64,
    pub bank: u64,
    pub row: u64,
    pub column: u64,
}

impl Loc {
    /// The bank's index in the channel: rank-major, then group, then bank.
    pub fn bank_index(&self, g: &Geometry) -> usize {
        ((self.rank * g.bank_groups + self.group) * g.banks_per_group + self.bank) as usize
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Map {
    pub geo: Geometry,
    /// Fields from the least significant bit up.
    pub order: [Field; 5],
    /// XOR the bank and bank-group bits with the low row bits.
    pub xor_banks: bool,
    /// Per field (by [`Field`]), its shift and mask in the line address,
    /// when every field's size is a power of two (3 ranks are not); the
    /// constructors derive it from `geo` and `order`.
    bits: Option<[(u32, u64); 5]>,
}

impl Map {
    /// DRAMsim3's `rochrababgco` for one channel: column, bank group,
    /// bank, rank, row from the bottom up.
    pub fn dramsim3(geo: Geometry) -> Map {
        use Field::*;
        let order = [Column, BankGroup, Bank, Rank, Row];
        Map { geo, order, xor_banks: false, bits: Map::bits(&geo, order) }
    }

    fn bits(geo: &Geometry, order: [Field; 5]) -> Option<[(u32, u64); 5]> {
        let mut shift = 0;
        let mut out = [(0, 0); 5];
        for f in order {
            let n = Map::size(geo, f);
            if !n.is_power_of_two() {
                return None;
            }
            out[f as usize] = (shift, n - 1);
            shift += n.trailing_zeros();
        }
        Some(out)
    }

    fn size(g: &Geometry, f: Field) -> u64 {
        match f {
            Field::Column => g.columns,
            Field::BankGroup => g.bank_groups,
            Field::Bank => g.banks_per_group,
            Field::Rank => g.ranks,
            Field::Row => g.rows,
        }
    }

    /// The host's map: DRAMsim3's order, bank bits XORed with row bits.
    pub fn host(geo: Geometry) -> Map {
        // (the XOR cuts row bits by masks)
        assert!(geo.bank_groups.is_power_of_two() && geo.banks_per_group.is_power_of_two(), "groups and banks in powers of two");
        Map { xor_banks: true, ..Map::dramsim3(geo) }
    }

    /// Where the line at byte address `addr` lies (fields wrap: an address
    /// beyond the channel's capacity aliases, as the row field takes what
    /// is left modulo the rows).
    pub fn locate(&self, addr: u64) -> Loc {
        let g = &self.geo;
        let mut a = addr >> 6;
        let mut loc = match self.bits {
            Some(b) => {
                let cut = |f: Field| a >> b[f as usize].0 & b[f as usize].1;
                use Field::*;
                Loc { rank: cut(Rank), group: cut(BankGroup), bank: cut(Bank), row: cut(Row), column: cut(Column) }
            }
            None => {
                let mut loc = Loc { rank: 0, group: 0, bank: 0, row: 0, column: 0 };
                for f in self.order {
                    let slot = match f {
                        Field::Column => &mut loc.column,
                        Field::BankGroup => &mut loc.group,
                        Field::Bank => &mut loc.bank,
                        Field::Rank => &mut loc.rank,
                        Field::Row => &mut loc.row,
                    };
                    let n = Map::size(g, f);
                    *slot = a % n;
                    a /= n;
                }
                loc
            }
        };
        if self.xor_banks {
            // (groups and banks per group are powers of two: `Map::host`)
            loc.group ^= loc.row & (g.bank_groups - 1);
            loc.bank ^= (loc.row >> g.bank_groups.trailing_zeros()) & (g.banks_per_group - 1);
        }
        loc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dramsim3_order_keeps_a_row_together() {
        let m = Map::dramsim3(Geometry::ddr4_8gb_x8(2));
        let a = m.locate(0);
        let b = m.locate(127 * 64);
        assert_eq!((a.row, a.bank_index(&m.geo)), (b.row, b.bank_index(&m.geo)));
        assert_eq!(b.column, 127);
        // The next 8 KiB is the next bank group, same row.
        let c = m.locate(128 * 64);
        assert_eq!((c.group, c.row), (1, 0));
        // 16 banks x 2 ranks x 8 KiB later: the next row of bank 0.
        let d = m.locate(32 * 8192);
        assert_eq!((d.bank_index(&m.geo), d.row), (0, 1));
    }

    #[test]
    fn bit_fields_cut_as_division_does() {
        for m in [Map::dramsim3(Geometry::ddr4_8gb_x8(2)), Map::host(Geometry::ddr4_8gb_x8(4))] {
            assert!(m.bits.is_some());
            let by_division = Map { bits: None, ..m };
            for i in 0..10_000u64 {
                let addr = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 20 << 6;
                assert_eq!(m.locate(addr), by_division.locate(addr), "{addr:#x}");
            }
        }
        assert!(Map::host(Geometry::ddr4_8gb_x8(3)).bits.is_none(), "3 ranks: division");
    }

    #[test]
    fn xor_spreads_one_bank_stride_over_banks() {
        let m = Map::host(Geometry::ddr4_8gb_x8(2));
        let banks: std::collections::HashSet<usize> =
            (0..16).map(|r| m.locate(r * 32 * 8192).bank_index(&m.geo)).collect();
        assert_eq!(banks.len(), 16);
    }
}
