//! What the memory hierarchy's sections must satisfy beyond each
//! parameter's range: the LLC's, the L2's and the L1D's geometry, set sampling, CAT
//! masks, and (when they serve the run) the memory controllers' settings.
//! `Memory::new` relies on it.

use crate::config::{Cfg, DramModel, LlcSliceHash, MODEL_CHOOSES};

pub fn check(c: &Cfg) -> Result<(), String> {
    let ways = c.llc.ways;
    if c.llc.ddio_ways > ways {
        return Err(format!(
            "llc.ddio_ways = {}: must be <= llc.ways = {ways}",
            c.llc.ddio_ways
        ));
    }
    let line = 64 * ways * c.llc.slices;
    // (sets per slice must be a power of two: the low line bits index them)
    if c.llc.size % line != 0 || !(c.llc.size / line).is_power_of_two() {
        return Err(format!(
            "llc.size = {} B: must be llc.ways x llc.slices x 64 B x a power of two sets per slice ({} B per set-row)",
            c.llc.size,
            line
        ));
    }
    let sets = c.llc.size / 64 / ways;
    if c.llc.slice_hash == LlcSliceHash::Off && !sets.is_power_of_two() {
        return Err(format!(
            "llc.slice_hash = none: plain modulo indexing needs a power-of-two number of sets, but llc.size / 64 B / llc.ways = {sets}; use a slice hash or llc.slices = 1"
        ));
    }
    super::llc_indexing(&c.llc)?;
    // (a private cache indexes its sets by the low line bits)
    let power_of_two_sets = |size: u64, ways: u64| size % (64 * ways) == 0 && (size / (64 * ways)).is_power_of_two();
    if !power_of_two_sets(c.l2.size, c.l2.ways) {
        return Err(format!(
            "l2.size = {} B: must be l2.ways x 64 B x a power of two sets",
            c.l2.size
        ));
    }
    if c.l1d.size > c.l2.size {
        return Err(format!(
            "l1d.size = {} B: at most l2.size = {} B (the L1D holds a subset of its L2)",
            c.l1d.size, c.l2.size
        ));
    }
    if c.l1d.size != 0 && !power_of_two_sets(c.l1d.size, c.l1d.ways) {
        return Err(format!(
            "l1d.size = {} B: must be 0 (no L1D) or l1d.ways x 64 B x a power of two sets",
            c.l1d.size
        ));
    }
    if c.l2.superqueue != 0 && c.l2.superqueue < c.cpu.mlp {
        return Err(format!(
            "l2.superqueue = {}: must be 0 (unbounded) or at least cpu.mlp = {} (it holds the L1D fill buffers' misses too)",
            c.l2.superqueue, c.cpu.mlp
        ));
    }
    if c.dram.latency <= c.llc.latency {
        return Err(format!(
            "dram.latency = {} ns: must exceed llc.latency = {} ns (it is the whole idle load-to-use latency of a DRAM read, the LLC lookup included)",
            c.dram.latency as f64 / 1e3,
            c.llc.latency as f64 / 1e3
        ));
    }
    let sample = c.llc.set_sample;
    let (llc_low, l2_sets) = super::sample::low_index_sets(&c.llc, &c.l2);
    if !sample.is_power_of_two() || sample > llc_low.min(l2_sets) {
        return Err(format!(
            "llc.set_sample = {sample}: must be a power of two, at most the sets indexed by the low line bits (LLC sets per slice {llc_low}, L2 sets {l2_sets})"
        ));
    }
    let full = (1u64 << ways) - 1;
    for (i, m) in c.llc.cat_masks.as_slice().iter().enumerate() {
        if *m == 0 || m & !full != 0 {
            return Err(format!("llc.cat_masks[{i}] = {m:#x}: must be a non-empty mask within the {ways} ways (1..={full:#x})"));
        }
    }
    let cm = c.corunner.cat_mask;
    if cm & !full != 0 {
        return Err(format!(
            "corunner.cat_mask = {cm:#x}: must lie within the {ways} ways (0..={full:#x})"
        ));
    }
    // (mem_bench and hostnet check theirs themselves)
    if MODEL_CHOOSES.contains(&c.sim.kind) && c.dram.model == DramModel::Controller {
        super::dram::controller::Config::host(&c.dram)?;
    }
    Ok(())
}
