//! Bandwidth of back-to-back DMA: the published closed-form model, and a
//! pcie-bench-style run that simulates the same transfers through
//! `PcieLink` (so tags and latency matter there, not in the formula).

use super::link::{PcieLink, ReadTags};
use super::tlp::{cpld_rcb_chunks_tlps, cpld_wire_bytes, mrd_request_wire_bytes, mwr_wire_bytes};
use super::{phy, tlp, PcieConfig};
use crate::units::Time;

fn tlp_gbps(cfg: &PcieConfig) -> f64 {
    phy::tlp_layer_gbps(cfg.gen, cfg.lanes, cfg.mps)
}

/// Payload Gb/s of back-to-back aligned DMA writes of `size` bytes.
pub fn effective_write_gbps(cfg: &PcieConfig, size: u64) -> f64 {
    size as f64 * tlp_gbps(cfg) / mwr_wire_bytes(cfg, size) as f64
}

/// Reads need MRds upstream and CplDs downstream; the busier direction sets
/// the rate. (CplD headers are smaller than MWr-64 ones, so reads come out
/// slightly faster than writes, as in the model.)
fn read_gbps(cfg: &PcieConfig, size: u64, cpl_bytes: u64) -> f64 {
    let busiest = cpl_bytes.max(mrd_request_wire_bytes(cfg, size));
    size as f64 * tlp_gbps(cfg) / busiest as f64
}

/// Payload Gb/s of back-to-back aligned DMA reads, completions at MPS.
pub fn effective_read_gbps(cfg: &PcieConfig, size: u64) -> f64 {
    read_gbps(cfg, size, cpld_wire_bytes(cfg, 0, size))
}

/// As `effective_read_gbps`, with one completion per RCB (`rcb_chunks`).
pub fn effective_read_gbps_rcb_chunks(cfg: &PcieConfig, size: u64) -> f64 {
    read_gbps(cfg, size, cpld_rcb_chunks_tlps(cfg, 0, size).wire_bytes)
}

/// Simultaneous reads and writes of `size` bytes, same rate each: upstream
/// carries MWr + MRd, downstream CplD. Payload Gb/s per direction.
pub fn effective_read_write_gbps(cfg: &PcieConfig, size: u64) -> f64 {
    let up = mwr_wire_bytes(cfg, size) + mrd_request_wire_bytes(cfg, size);
    let down = cpld_wire_bytes(cfg, 0, size);
    size as f64 * tlp_gbps(cfg) / up.max(down) as f64
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchKind {
    Read,
    Write,
    ReadWrite,
}

/// Steady-state payload rate from the arrival times of the first and last
/// of `n` transfers (pipeline fill and the last latency excluded, as a long
/// pcie-bench run would average them away).
#[derive(Default)]
struct Rate {
    first: Time,
    last: Time,
    n: u64,
}

impl Rate {
    fn arrived(&mut self, at: Time) {
        if self.n == 0 {
            self.first = at;
        }
        self.last = at;
        self.n += 1;
    }

    fn gbps(&self, size: u64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        if self.n == 1 {
            // One transfer: payload over its whole duration from time 0.
            return size as f64 * 8.0 * 1e3 / self.last.max(1) as f64;
        }
        // bits per ps * 1e3 = Gb/s
        (self.n - 1) as f64 * size as f64 * 8.0 * 1e3 / (self.last - self.first).max(1) as f64
    }
}

/// Simulate `transfers` back-to-back DMAs of `size` bytes through a fresh
/// `PcieLink` and return payload Gb/s (per direction for `ReadWrite`: the
/// rate both directions sustain together). The device issues everything at
/// time 0; reads wait for tags (`cfg.max_read_tags`) and the host answers
/// each MRd `host_latency_ps` after it arrives. Every transfer starts on a
/// fresh 4 KiB-aligned buffer, as the model assumes aligned transfers.
/// Panics if `cfg` does not validate.
pub fn bench_bandwidth(cfg: PcieConfig, size: u64, kind: BenchKind, transfers: u32, host_latency_ps: Time) -> f64 {
    let mut link = PcieLink::new(cfg);
    let mut tags = ReadTags::new(cfg.max_read_tags);
    let stride = size.div_ceil(tlp::PAGE).max(1) * tlp::PAGE;
    let (mut wr, mut rd) = (Rate::default(), Rate::default());
    for i in 0..transfers as u64 {
        let addr = i * stride;
        if kind != BenchKind::Read {
            wr.arrived(link.dma_write(0, addr, size));
        }
        if kind != BenchKind::Write {
            rd.arrived(link.dma_read(&mut tags, 0, addr, size, host_latency_ps));
        }
    }
    match kind {
        BenchKind::Write => wr.gbps(size),
        BenchKind::Read => rd.gbps(size),
        BenchKind::ReadWrite => wr.gbps(size).min(rd.gbps(size)),
    }
}

/// Latency of one isolated DMA read of `size` bytes on an idle link: from
/// issuing the MRd to the last CplD arriving. Panics if `cfg` does not validate.
pub fn bench_latency(cfg: PcieConfig, size: u64, host_latency_ps: Time) -> Time {
    let mut link = PcieLink::new(cfg);
    let mut tags = ReadTags::new(cfg.max_read_tags);
    link.dma_read(&mut tags, 0, 0, size, host_latency_ps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::NS;

    fn cfg() -> PcieConfig {
        PcieConfig {
            lanes: 8,
            latency_ps: 250 * NS,
            max_read_tags: 768,
            ..PcieConfig::default()
        }
    }

    fn within(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs()
    }

    #[test]
    fn model_figures_for_gen3_x8() {
        let c = cfg();
        assert!(within(effective_write_gbps(&c, 64), 42.098, 1e-4));
        assert!(within(effective_read_gbps(&c, 64), 44.1027, 1e-4));
        assert!(within(effective_read_write_gbps(&c, 64), 33.077, 1e-4));
    }

    #[test]
    fn simulation_with_enough_tags_is_bandwidth_bound() {
        let c = cfg();
        for size in [64, 256, 1500, 4096] {
            for (kind, model) in [
                (BenchKind::Write, effective_write_gbps(&c, size)),
                (BenchKind::Read, effective_read_gbps(&c, size)),
                (BenchKind::ReadWrite, effective_read_write_gbps(&c, size)),
            ] {
                let sim = bench_bandwidth(c, size, kind, 2000, 100 * NS);
                assert!(within(sim, model, 0.005), "{kind:?} {size}: sim {sim} model {model}");
            }
        }
    }

    #[test]
    fn one_tag_makes_reads_latency_bound() {
        let c = PcieConfig {
            max_read_tags: 1,
            ..cfg()
        };
        for size in [64, 512] {
            let rtt = bench_latency(c, size, 100 * NS);
            let expect = size as f64 * 8.0 * 1e3 / rtt as f64;
            let sim = bench_bandwidth(c, size, BenchKind::Read, 1000, 100 * NS);
            assert!(within(sim, expect, 0.01), "{size}: {sim} vs {expect}");
            assert!(
                sim < 0.2 * effective_read_gbps(&c, size),
                "{size}: {sim} not latency-bound"
            );
        }
    }

    #[test]
    fn a_few_tags_give_tags_times_size_per_round_trip() {
        let c = PcieConfig {
            max_read_tags: 8,
            ..cfg()
        };
        let rtt = bench_latency(c, 64, 100 * NS);
        let expect = 8.0 * 64.0 * 8.0 * 1e3 / rtt as f64;
        let sim = bench_bandwidth(c, 64, BenchKind::Read, 4000, 100 * NS);
        assert!(within(sim, expect, 0.01), "{sim} vs {expect}");
    }

    #[test]
    fn rcb_chunks_variant_matches_the_model_column() {
        let c = PcieConfig { rcb: 64, ..cfg() };
        assert!(within(effective_read_gbps_rcb_chunks(&c, 1500), 43.8521, 1e-4));
        assert!(within(effective_read_gbps_rcb_chunks(&c, 4096), 44.1027, 1e-4));
    }
}
