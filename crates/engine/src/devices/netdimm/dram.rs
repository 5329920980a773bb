//! NetDIMM's local DRAM behind its own memory controller (nMC): ranks of
//! banks, banks of subarrays, subarrays of rows, with one open row per bank
//! (open-page policy) and one data bus shared by the ranks.
//!
//! Geometry and address map follow the paper's Fig 9 (Micron MT40A512M16
//! devices): the low bits pick the column within a rank row, then the bank,
//! the row within its subarray, the subarray and the rank. Pages of the same
//! bank and subarray are therefore one bank stride x banks apart (128 KiB).
//!
//! Left out: refresh, tFAW/tRRD activation limits, read/write turnaround
//! beyond CWL vs CL, and command-bus conflicts inside the DIMM.

pub use crate::mem::dram::timing::DdrTiming;
use crate::units::Time;

/// Where an address lies inside the DIMM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    pub rank: u64,
    pub bank: u64,
    pub subarray: u64,
    /// Row within its subarray.
    pub row: u64,
}

#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub ranks: u64,
    pub banks: u64,
    pub subarrays: u64,
    pub rows_per_subarray: u64,
    /// Bytes of one row across the rank's devices (8 devices x 1 KiB).
    pub row_bytes: u64,
}

impl Geometry {
    pub fn capacity(&self) -> u64 {
        self.ranks * self.banks * self.subarrays * self.rows_per_subarray * self.row_bytes
    }

    /// Fig 9(b): | rank | subarray | row | bank | column |, `addr` relative
    /// to the start of the NetDIMM's address range.
    pub fn locate(&self, addr: u64) -> Loc {
        let mut a = addr / self.row_bytes;
        let bank = a % self.banks;
        a /= self.banks;
        let row = a % self.rows_per_subarray;
        a /= self.rows_per_subarray;
        let subarray = a % self.subarrays;
        a /= self.subarrays;
        Loc {
            rank: a % self.ranks,
            bank,
            subarray,
            row,
        }
    }

    /// Bytes between consecutive rows of one bank and subarray.
    pub fn subarray_stride(&self) -> u64 {
        self.row_bytes * self.banks
    }
}

/// Local DRAM state: the open row and the time each bank is free, and when
/// the DIMM-internal data bus is free.
pub struct LocalDram {
    pub geo: Geometry,
    pub t: DdrTiming,
    open: Vec<Option<(u64, u64)>>,
    bank_free: Vec<Time>,
    bus_free: Time,
    pub row_hits: u64,
    pub row_misses: u64,
}

impl LocalDram {
    pub fn new(geo: Geometry, t: DdrTiming) -> LocalDram {
        let n = (geo.ranks * geo.banks) as usize;
        LocalDram {
            geo,
            t,
            open: vec![None; n],
            bank_free: vec![0; n],
            bus_free: 0,
            row_hits: 0,
            row_misses: 0,
        }
    }

    /// Index of the (rank, bank) holding `addr`.
    pub fn bank_of(&self, addr: u64) -> usize {
        self.bank_index(&self.geo.locate(addr))
    }

    pub fn banks(&self) -> usize {
        self.open.len()
    }

    fn bank_index(&self, l: &Loc) -> usize {
        (l.rank * self.geo.banks + l.bank) as usize
    }

    /// One 64 B read or write issued at `now`; returns when its last data
    /// beat has crossed the bus. Row hit: CAS + burst; closed bank:
    /// tRCD + CAS + burst; another row open: tRP + tRCD + CAS + burst.
    pub fn access(&mut self, now: Time, addr: u64, write: bool) -> Time {
        let l = self.geo.locate(addr);
        let b = self.bank_index(&l);
        let start = now.max(self.bank_free[b]);
        let key = (l.subarray, l.row);
        let prep = match self.open[b] {
            Some(k) if k == key => {
                self.row_hits += 1;
                0
            }
            Some(_) => {
                self.row_misses += 1;
                self.t.t_rp + self.t.t_rcd
            }
            None => {
                self.row_misses += 1;
                self.t.t_rcd
            }
        };
        let cas = if write { self.t.t_cwl } else { self.t.t_cl };
        let data = (start + prep + cas).max(self.bus_free);
        self.bus_free = data + self.t.t_burst;
        self.open[b] = Some(key);
        // The next command to this bank may follow once this one is issued;
        // CAS commands to an open row pipeline at the burst rate.
        self.bank_free[b] = data - cas + self.t.t_burst;
        data + self.t.t_burst
    }

    /// Banks that a clone uses are busy until `until` and left precharged.
    pub(super) fn occupy(&mut self, l: &Loc, until: Time, bus: bool) {
        let b = self.bank_index(l);
        self.bank_free[b] = self.bank_free[b].max(until);
        self.open[b] = None;
        if bus {
            self.bus_free = self.bus_free.max(until);
        }
    }

    pub(super) fn bank_free(&self, l: &Loc) -> Time {
        self.bank_free[self.bank_index(l)]
    }

    pub(super) fn bus_free(&self) -> Time {
        self.bus_free
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::units::NS;

    pub(crate) fn ddr4_2400() -> DdrTiming {
        crate::mem::dram::timing::DDR4_2400.in_ps()
    }

    pub(crate) fn fig9() -> Geometry {
        Geometry {
            ranks: 2,
            banks: 16,
            subarrays: 512,
            rows_per_subarray: 128,
            row_bytes: 8192,
        }
    }

    #[test]
    fn fig9_geometry() {
        let g = fig9();
        assert_eq!(g.capacity(), 16 << 30, "two 8 GiB ranks");
        assert_eq!(
            g.subarray_stride(),
            128 << 10,
            "same bank and subarray every 128 KiB"
        );
        // 32 consecutive 4 KiB pages cover the 16 banks twice, then the row advances.
        let a = g.locate(0);
        assert_eq!(g.locate(4096).bank, a.bank);
        assert_eq!(g.locate(8192).bank, 1);
        let b = g.locate(128 << 10);
        assert_eq!((b.bank, b.subarray, b.row), (0, 0, 1));
        let s = g.locate(128 * (128 << 10));
        assert_eq!((s.bank, s.subarray, s.row), (0, 1, 0));
        assert_eq!(g.locate(8 << 30).rank, 1);
    }

    #[test]
    fn row_hit_miss_and_conflict_latencies() {
        let t = ddr4_2400();
        let mut d = LocalDram::new(fig9(), t);
        // Closed bank: tRCD + tCL + burst.
        assert_eq!(d.access(0, 0, false), t.t_rcd + t.t_cl + t.t_burst);
        // Same row later: tCL + burst.
        assert_eq!(
            d.access(1000 * NS, 64, false),
            1000 * NS + t.t_cl + t.t_burst
        );
        // Another row of the same bank: tRP + tRCD + tCL + burst.
        assert_eq!(
            d.access(2000 * NS, 128 << 10, false),
            2000 * NS + t.t_rp + t.t_rcd + t.t_cl + t.t_burst
        );
        // Writes use CWL.
        assert_eq!(
            d.access(3000 * NS, (128 << 10) + 64, true),
            3000 * NS + t.t_cwl + t.t_burst
        );
        assert_eq!((d.row_hits, d.row_misses), (2, 2));
    }

    #[test]
    fn a_stream_of_row_hits_runs_at_the_burst_rate() {
        let t = ddr4_2400();
        let mut d = LocalDram::new(fig9(), t);
        let mut end = 0;
        for i in 0..24 {
            end = d.access(0, i * 64, false);
        }
        assert_eq!(end, t.t_rcd + t.t_cl + 24 * t.t_burst);
    }
}
