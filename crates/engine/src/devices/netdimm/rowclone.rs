//! In-DRAM buffer cloning after RowClone (Seshadri et al., MICRO'13), as
//! NetDIMM extends it (paper Sec. 4.1, Fig 8). The mode follows from where
//! source and destination lie, and its latency from the DDR timing:
//!
//! - FPM (same bank and subarray): ACTIVATE the source row (its data lands in
//!   the subarray's row buffer), ACTIVATE the destination row so the buffer
//!   overwrites it, PRECHARGE: tRAS + tRAS + tRP per row, whatever the size.
//! - PSM (same rank, different banks): both rows open, then one cache line
//!   per burst over the chips' internal bus: tRCD + lines x tBURST + tRP.
//! - GCM (otherwise): the buffer device reads each line and writes it back,
//!   pipelined on the DIMM's local bus: tRCD + tCL + lines x 2 tBURST +
//!   tCWL + tRP, like a DMA engine next to the chips.
//!
//! Left out: the bank-level parallelism a GCM across ranks could exploit.

use super::dram::{DdrTiming, Geometry, LocalDram};
use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Fpm,
    Psm,
    Gcm,
}

pub fn mode(geo: &Geometry, src: u64, dst: u64) -> Mode {
    let (s, d) = (geo.locate(src), geo.locate(dst));
    if s.rank == d.rank && s.bank == d.bank && s.subarray == d.subarray && s.row != d.row {
        Mode::Fpm
    } else if s.rank == d.rank && s.bank != d.bank {
        Mode::Psm
    } else {
        Mode::Gcm
    }
}

/// Time one clone of `bytes` takes in `mode`, from an idle DIMM.
pub fn duration(t: &DdrTiming, geo: &Geometry, mode: Mode, bytes: u64) -> Time {
    let lines = bytes.div_ceil(64).max(1);
    match mode {
        Mode::Fpm => bytes.div_ceil(geo.row_bytes).max(1) * (2 * t.t_ras + t.t_rp),
        Mode::Psm => t.t_rcd + lines * t.t_burst + t.t_rp,
        Mode::Gcm => t.t_rcd + t.t_cl + lines * 2 * t.t_burst + t.t_cwl + t.t_rp,
    }
}

/// Clone `bytes` from `src` to `dst` starting no earlier than `now`; the
/// banks involved (and the data bus for GCM) are busy until it is done.
/// Returns the mode and the completion time.
pub fn clone(dram: &mut LocalDram, now: Time, src: u64, dst: u64, bytes: u64) -> (Mode, Time) {
    let m = mode(&dram.geo, src, dst);
    let (s, d) = (dram.geo.locate(src), dram.geo.locate(dst));
    let mut start = now.max(dram.bank_free(&s)).max(dram.bank_free(&d));
    if m == Mode::Gcm {
        start = start.max(dram.bus_free());
    }
    let done = start + duration(&dram.t, &dram.geo, m, bytes);
    dram.occupy(&s, done, m == Mode::Gcm);
    dram.occupy(&d, done, m == Mode::Gcm);
    (m, done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::netdimm::dram::tests::{ddr4_2400, fig9};

    #[test]
    fn mode_follows_placement() {
        let g = fig9();
        let stride = g.subarray_stride();
        assert_eq!(
            mode(&g, 0, stride),
            Mode::Fpm,
            "same bank and subarray, next row"
        );
        assert_eq!(mode(&g, 0, 8192), Mode::Psm, "next bank");
        assert_eq!(
            mode(&g, 0, 128 * stride),
            Mode::Gcm,
            "same bank, other subarray"
        );
        assert_eq!(mode(&g, 0, 8 << 30), Mode::Gcm, "other rank");
    }

    #[test]
    fn hand_computed_clone_latencies() {
        let (t, g) = (ddr4_2400(), fig9());
        // 4 KiB: FPM 2 tRAS + tRP; PSM tRCD + 64 bursts + tRP; GCM tRCD +
        // tRCD + 128 bursts + CWL + tRP (DDR4-2400: 13.33, 32.49, 3.33, 10 ns).
        assert_eq!((t.t_rcd, t.t_ras, t.t_burst, t.t_cwl, t.t_rp), (13_328, 32_487, 3_332, 9_996, 13_328));
        assert_eq!(duration(&t, &g, Mode::Fpm, 4096), 2 * 32_487 + 13_328);
        assert_eq!(duration(&t, &g, Mode::Psm, 4096), 13_328 + 64 * 3_332 + 13_328);
        assert_eq!(duration(&t, &g, Mode::Gcm, 4096), 13_328 + 13_328 + 128 * 3_332 + 9_996 + 13_328);
        // FPM is the fastest and its cost does not grow within a row.
        assert_eq!(
            duration(&t, &g, Mode::Fpm, 64),
            duration(&t, &g, Mode::Fpm, 8192)
        );
        // From a 1 KiB buffer on FPM beats PSM; PSM always beats GCM.
        for b in [1024, 1500, 4096] {
            assert!(
                duration(&t, &g, Mode::Fpm, b) < duration(&t, &g, Mode::Psm, b),
                "{b}"
            );
        }
        for b in [64, 1500, 4096] {
            assert!(duration(&t, &g, Mode::Psm, b) < duration(&t, &g, Mode::Gcm, b));
        }
    }

    #[test]
    fn a_clone_waits_for_its_banks() {
        let (t, g) = (ddr4_2400(), fig9());
        let mut d = LocalDram::new(g, t);
        d.access(0, 0, false);
        // The read's bank takes its next command once the burst is issued
        // (tRCD + burst after the ACTIVATE); the clone starts then.
        let (m, done) = clone(&mut d, 0, 0, g.subarray_stride(), 1024);
        assert_eq!(m, Mode::Fpm);
        assert_eq!(done, t.t_rcd + t.t_burst + duration(&t, &g, m, 1024));
    }
}
