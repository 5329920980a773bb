//! PCIe model after pcie-bench/pcie-model (Neugebauer et al., SIGCOMM'18).
//!
//! Modelled: line rate per generation and width, the data-link overheads
//! (ACK and UpdateFC DLLPs at the spec's recommended rates, SKIP ordered
//! sets) folded into one TLP-layer bandwidth per direction; TLP splitting
//! and wire bytes for MWr, MRd, CplD (MPS, MRRS, RCB, 4 KiB rule, 32/64-bit
//! headers, ECRC); each direction as a FIFO serialiser plus a fixed one-way
//! latency; a bound on outstanding reads (tags); the DMA engine's request
//! issue rate; posted-write credits of the root port (`credits`); the
//! published closed-form bandwidths and a simulated pcie-bench.
//!
//! Left out: non-posted and completion credits (the root port's are
//! assumed plentiful; tags bound the device's reads), replay and bit
//! errors, DLLPs as discrete packets (their cost is a bandwidth fraction),
//! gen6 FLIT packing and FEC (gen6/7 are the model's placeholders), relaxed
//! ordering, and the IOMMU. The host's answer time and a posted write's
//! commit are inputs from the memory model.

mod bench;
mod credits;
mod link;
mod rootport;
pub mod phy;
pub mod tlp;

pub use bench::{
    bench_bandwidth, bench_latency, effective_read_gbps, effective_read_gbps_rcb_chunks,
    effective_read_write_gbps, effective_write_gbps, BenchKind,
};
pub use credits::{lines, PostedCredits};
pub use link::{Link, PcieLink, ReadTags};
pub use rootport::{Read, RootPort};
pub use phy::{raw_gbps, tlp_layer_gbps};
pub use tlp::{
    cpld_tlps, cpld_wire_bytes, cpld_wire_bytes_rcb_chunks, mmio_write_wire_bytes,
    mrd_request_tlps_at, mrd_request_wire_bytes, mwr_tlps_at, mwr_wire_bytes, mwr_wire_bytes_at,
    Tlps,
};

use crate::config::PcieCfg;
use crate::units::{Time, NS};

/// The least spacing of requests issued at `mps` million per second.
fn interval_ps(mps: f64) -> Time {
    if mps > 0.0 {
        (1e6 / mps).round() as Time
    } else {
        0
    }
}

/// One device's link configuration. Sizes in bytes, latency one way
/// (device <-> root complex, excluding serialisation).
#[derive(Clone, Copy, Debug)]
pub struct PcieConfig {
    pub gen: u8,
    pub lanes: u8,
    /// Max_Payload_Size: largest MWr/CplD payload.
    pub mps: u32,
    /// Max_Read_Request_Size: largest MRd.
    pub mrrs: u32,
    /// Read Completion Boundary: where split completions may end.
    pub rcb: u32,
    /// 64-bit addresses (4DW MWr/MRd headers) instead of 32-bit (3DW).
    pub addr64: bool,
    /// End-to-end CRC digest on every TLP.
    pub ecrc: bool,
    pub latency_ps: Time,
    /// Non-posted reads (MRd TLPs) the device may have in flight.
    pub max_read_tags: u32,
    /// The root port's posted-write buffer in 64 B lines (0 = unbounded).
    pub write_buffer_lines: u32,
    /// What a posted credit is held beyond the TLP's serialisation and the
    /// host's commit: the flights to and from the IIO's buffer, the IIO's
    /// path on to the LLC or memory (at most twice `latency_ps`, the whole
    /// device-to-root-complex path; the rest is the device's own, before
    /// its link takes the credit).
    pub credit_loop_ps: Time,
    /// Least time between two MWr (MRd) TLPs of the device's DMA engine;
    /// 0 = only the link limits.
    pub write_interval_ps: Time,
    pub read_interval_ps: Time,
}

impl PcieConfig {
    /// The link of a scenario's `pcie` section (64-bit addresses, no ECRC,
    /// as DPDK's drivers use it), checked.
    pub fn from_section(p: &PcieCfg) -> Result<PcieConfig, String> {
        let cfg = PcieConfig {
            gen: p.gen as u8,
            lanes: p.lanes as u8,
            mps: p.mps as u32,
            mrrs: p.mrrs as u32,
            rcb: p.rcb as u32,
            addr64: true,
            ecrc: false,
            latency_ps: p.latency,
            max_read_tags: p.max_read_tags as u32,
            write_buffer_lines: (p.write_buffer / 64) as u32,
            credit_loop_ps: if p.credit_loop == 0 { 2 * p.latency } else { p.credit_loop },
            write_interval_ps: interval_ps(p.dma_writes_mps),
            read_interval_ps: interval_ps(p.dma_reads_mps),
        };
        if p.credit_loop != 0 && !(p.latency..=2 * p.latency).contains(&p.credit_loop) {
            return Err(format!(
                "pcie.credit_loop = {:.0} ns: expected pcie.latency to twice it, {:.0} to {:.0} ns (the loop is part of the path both ways, and a write's credits are known only once it has reached the host), or 0 for twice pcie.latency",
                p.credit_loop as f64 / NS as f64,
                p.latency as f64 / NS as f64,
                2.0 * p.latency as f64 / NS as f64
            ));
        }
        if p.write_buffer % 64 != 0 {
            return Err(format!(
                "pcie.write_buffer = {} B: expected a multiple of 64 B (whole lines)",
                p.write_buffer
            ));
        }
        cfg.validate()?;
        Ok(cfg)
    }
}

impl Default for PcieConfig {
    /// The engine's parameter defaults: gen3 x16, MPS 256, MRRS 512, RCB 64,
    /// 64-bit addresses, no ECRC, 250 ns, 256 tags (8-bit extended tags),
    /// no limit outside the link (write buffer, DMA engine issue rate).
    fn default() -> PcieConfig {
        PcieConfig {
            gen: 3,
            lanes: 16,
            mps: 256,
            mrrs: 512,
            rcb: 64,
            addr64: true,
            ecrc: false,
            latency_ps: 250 * NS,
            max_read_tags: 256,
            write_buffer_lines: 0,
            credit_loop_ps: 500 * NS,
            write_interval_ps: 0,
            read_interval_ps: 0,
        }
    }
}

/// 14-bit tags (PCIe 6.0) allow this many outstanding requests.
const MAX_TAGS: u32 = 15360;
/// One millisecond: far above any real link, low enough to catch unit slips.
const MAX_LATENCY_PS: Time = 1_000_000_000;

impl PcieConfig {
    /// Check every field against what the tables and the spec allow.
    pub fn validate(&self) -> Result<(), String> {
        let list = |v: &[u32]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !(1..=phy::MAX_GEN).contains(&self.gen) {
            return Err(format!(
                "pcie.gen = {}: expected 1..={} (6 and 7 run in FLIT mode)",
                self.gen,
                phy::MAX_GEN
            ));
        }
        if !phy::LANES.contains(&self.lanes) {
            let lanes: Vec<u32> = phy::LANES.iter().map(|&l| l as u32).collect();
            return Err(format!(
                "pcie.lanes = {}: expected one of {}",
                self.lanes,
                list(&lanes)
            ));
        }
        if !phy::SIZES.contains(&self.mps) {
            return Err(format!(
                "pcie.mps = {}: expected one of {}",
                self.mps,
                list(&phy::SIZES)
            ));
        }
        if !phy::SIZES.contains(&self.mrrs) {
            return Err(format!(
                "pcie.mrrs = {}: expected one of {}",
                self.mrrs,
                list(&phy::SIZES)
            ));
        }
        if !phy::RCBS.contains(&self.rcb) {
            return Err(format!(
                "pcie.rcb = {}: expected one of {}",
                self.rcb,
                list(&phy::RCBS)
            ));
        }
        if self.latency_ps > MAX_LATENCY_PS {
            return Err(format!(
                "pcie.latency_ps = {}: expected at most {MAX_LATENCY_PS} (1 ms)",
                self.latency_ps
            ));
        }
        if !(1..=MAX_TAGS).contains(&self.max_read_tags) {
            return Err(format!(
                "pcie.max_read_tags = {}: expected 1..={MAX_TAGS}",
                self.max_read_tags
            ));
        }
        Ok(())
    }

    /// Per-direction TLP-layer bandwidth of this configuration, Gb/s.
    pub fn tlp_gbps(&self) -> f64 {
        tlp_layer_gbps(self.gen, self.lanes, self.mps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_and_errors_name_the_field() {
        assert_eq!(PcieConfig::default().validate(), Ok(()));
        let bad = |c: PcieConfig, needle: &str| {
            let e = c.validate().unwrap_err();
            assert!(e.contains(needle) && !e.contains('\n'), "{e}");
        };
        let d = PcieConfig::default();
        bad(PcieConfig { gen: 0, ..d }, "pcie.gen = 0");
        bad(
            PcieConfig { lanes: 12, ..d },
            "pcie.lanes = 12: expected one of 1, 2, 4, 8, 16, 32",
        );
        bad(PcieConfig { mps: 300, ..d }, "pcie.mps = 300");
        bad(PcieConfig { mrrs: 64, ..d }, "pcie.mrrs = 64");
        bad(PcieConfig { rcb: 32, ..d }, "pcie.rcb = 32");
        bad(
            PcieConfig {
                max_read_tags: 0,
                ..d
            },
            "pcie.max_read_tags = 0",
        );
        bad(
            PcieConfig {
                latency_ps: u64::MAX,
                ..d
            },
            "pcie.latency_ps",
        );
        assert!(PcieLink::try_new(PcieConfig { gen: 9, ..d }).is_err());
    }
}
