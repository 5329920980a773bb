//! Transaction-layer accounting: how a DMA of `len` bytes at `addr` is cut
//! into TLPs (MWr, MRd, CplD) and how many bytes those occupy on the wire.
//!
//! Wire bytes per TLP = DLLP framing (8: sequence number, LCRC, start/end
//! framing) + header (4 B common DW + 8 or 12 B address/requester part) +
//! optional ECRC (4) + payload. The same framing is used for gen1-5, as
//! in pcie-model. In FLIT mode (gen6/7) a TLP has no framing of its own:
//! its sequence number and CRC are the flit's (`phy`), and its header is
//! the flit-mode header base of the same 3 or 4 DW (PCIe 6.0 Sec. 2.2.1.2;
//! no orthogonal header content for whole-DW transfers).

use super::PcieConfig;

/// DLLP sequence number (2) + LCRC (4) + physical start/end framing (2).
pub const DLLP_FRAMING: u64 = 8;
/// First header DW, common to all TLPs.
pub const TLP_COMMON_HDR: u64 = 4;
/// MWr/MRd address part: 32-bit (3DW header) or 64-bit (4DW header).
pub const ADDR32_HDR: u64 = 8;
pub const ADDR64_HDR: u64 = 12;
/// CplD completer/requester ID part (always a 3DW header).
pub const CPL_HDR: u64 = 8;
/// End-to-end CRC digest, when ECRC is enabled.
pub const ECRC: u64 = 4;
/// Requests must not cross a 4 KiB address boundary (spec 2.2.7).
pub const PAGE: u64 = 4096;
/// MSI is a 4 B MWr.
pub const MSI_PAYLOAD: u64 = 4;

/// Per-TLP bytes other than payload for MWr (also MSI and MMIO writes).
pub fn mwr_overhead(cfg: &PcieConfig) -> u64 {
    framing(cfg) + TLP_COMMON_HDR + addr_hdr(cfg) + ecrc(cfg)
}

/// MRd carries no payload, so this is the whole TLP.
pub fn mrd_overhead(cfg: &PcieConfig) -> u64 {
    framing(cfg) + TLP_COMMON_HDR + addr_hdr(cfg) + ecrc(cfg)
}

/// CplD header size does not depend on the address size.
pub fn cpld_overhead(cfg: &PcieConfig) -> u64 {
    framing(cfg) + TLP_COMMON_HDR + CPL_HDR + ecrc(cfg)
}

fn framing(cfg: &PcieConfig) -> u64 {
    if super::phy::flit_mode(cfg.gen) {
        0
    } else {
        DLLP_FRAMING
    }
}

fn addr_hdr(cfg: &PcieConfig) -> u64 {
    if cfg.addr64 {
        ADDR64_HDR
    } else {
        ADDR32_HDR
    }
}

fn ecrc(cfg: &PcieConfig) -> u64 {
    if cfg.ecrc {
        ECRC
    } else {
        0
    }
}

/// TLP count and total wire bytes of one transfer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tlps {
    pub count: u64,
    pub wire_bytes: u64,
}

/// Pieces `(addr, len)` of a transfer, computed on the fly (no allocation).
/// A piece is at most `max` bytes; a piece that is not the last ends on a
/// multiple of `align` and never crosses a 4 KiB boundary. `align` is
/// clamped to `max`, so every piece makes progress.
#[derive(Clone, Debug)]
pub struct Split {
    addr: u64,
    end: u64,
    max: u64,
    align: u64,
}

impl Split {
    pub fn new(addr: u64, len: u64, max: u64, align: u64) -> Split {
        let max = max.clamp(1, PAGE);
        let align = align.clamp(1, max);
        Split {
            addr,
            end: addr.saturating_add(len),
            max,
            align,
        }
    }

    /// Count pieces and wire bytes, given the per-TLP overhead.
    pub fn tlps(self, overhead: u64) -> Tlps {
        let len = self.end - self.addr;
        let count = self.count() as u64;
        Tlps {
            count,
            wire_bytes: count * overhead + len,
        }
    }
}

impl Iterator for Split {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        if self.addr >= self.end {
            return None;
        }
        let reach = self.addr.saturating_add(self.max);
        let by_size = reach - reach % self.align;
        let by_page = (self.addr - self.addr % PAGE).saturating_add(PAGE);
        let stop = by_size.min(by_page).min(self.end);
        let piece = (self.addr, stop - self.addr);
        self.addr = stop;
        Some(piece)
    }
}

/// MWr pieces: at most MPS each, never crossing 4 KiB. The DMA engine is
/// assumed to cut only where it must (no extra alignment to MPS).
pub fn mwr_split(cfg: &PcieConfig, addr: u64, len: u64) -> Split {
    Split::new(addr, len, cfg.mps as u64, 1)
}

/// MRd pieces: at most MRRS each, never crossing 4 KiB.
pub fn mrd_split(cfg: &PcieConfig, addr: u64, len: u64) -> Split {
    Split::new(addr, len, cfg.mrrs as u64, 1)
}

/// CplD pieces for a read of `len` at `addr` when the completer sends as
/// much as MPS allows: every completion but the last must end on an RCB
/// boundary (spec 2.3.1.1), so an unaligned start shortens the first one.
pub fn cpld_split(cfg: &PcieConfig, addr: u64, len: u64) -> Split {
    Split::new(addr, len, cfg.mps as u64, cfg.rcb.min(cfg.mps) as u64)
}

/// CplD pieces for a completer that returns one RCB per completion (seen on
/// older chipsets; the model's `rcb_chunks`): the first completion ends at
/// the next RCB boundary after `addr`.
pub fn cpld_rcb_split(cfg: &PcieConfig, addr: u64, len: u64) -> Split {
    let rcb = cfg.rcb.min(cfg.mps) as u64;
    Split::new(addr, len, rcb, rcb)
}

/// MWr TLPs for `len` bytes written at `addr`.
pub fn mwr_tlps_at(cfg: &PcieConfig, addr: u64, len: u64) -> Tlps {
    mwr_split(cfg, addr, len).tlps(mwr_overhead(cfg))
}

/// Wire bytes of a `len`-byte DMA write at `addr`.
pub fn mwr_wire_bytes_at(cfg: &PcieConfig, addr: u64, len: u64) -> u64 {
    mwr_tlps_at(cfg, addr, len).wire_bytes
}

/// Wire bytes of an aligned `len`-byte DMA write (the model's case).
pub fn mwr_wire_bytes(cfg: &PcieConfig, len: u64) -> u64 {
    mwr_wire_bytes_at(cfg, 0, len)
}

/// MRd TLPs needed to request `len` bytes at `addr`.
pub fn mrd_request_tlps_at(cfg: &PcieConfig, addr: u64, len: u64) -> Tlps {
    // A read request carries no data: only headers travel.
    let count = mrd_split(cfg, addr, len).count() as u64;
    Tlps {
        count,
        wire_bytes: count * mrd_overhead(cfg),
    }
}

/// Wire bytes of the MRd requests for an aligned `len`-byte read.
pub fn mrd_request_wire_bytes(cfg: &PcieConfig, len: u64) -> u64 {
    mrd_request_tlps_at(cfg, 0, len).wire_bytes
}

/// CplD TLPs returning `len` bytes read at `addr` (split at MPS/RCB).
pub fn cpld_tlps(cfg: &PcieConfig, addr: u64, len: u64) -> Tlps {
    cpld_split(cfg, addr, len).tlps(cpld_overhead(cfg))
}

/// Wire bytes of the completions for `len` bytes read at `addr`.
pub fn cpld_wire_bytes(cfg: &PcieConfig, addr: u64, len: u64) -> u64 {
    cpld_tlps(cfg, addr, len).wire_bytes
}

/// CplD TLPs when the completer returns one RCB per completion.
pub fn cpld_rcb_chunks_tlps(cfg: &PcieConfig, addr: u64, len: u64) -> Tlps {
    cpld_rcb_split(cfg, addr, len).tlps(cpld_overhead(cfg))
}

/// Wire bytes when the completer returns one RCB per completion.
pub fn cpld_wire_bytes_rcb_chunks(cfg: &PcieConfig, addr: u64, len: u64) -> u64 {
    cpld_rcb_chunks_tlps(cfg, addr, len).wire_bytes
}

/// Wire bytes of a CPU MMIO write (doorbell, tail pointer) of `len` bytes:
/// an MWr travelling host to device, e.g. 4 B -> 28 B with 64-bit addresses.
/// Write-combined stores above MPS are split like any MWr.
pub fn mmio_write_wire_bytes(cfg: &PcieConfig, len: u64) -> u64 {
    mwr_wire_bytes(cfg, len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pcie::PcieConfig;

    fn cfg() -> PcieConfig {
        PcieConfig::default()
    }

    #[test]
    fn header_sizes_match_the_model() {
        let c = cfg();
        assert_eq!(
            (mwr_overhead(&c), mrd_overhead(&c), cpld_overhead(&c)),
            (24, 24, 20)
        );
        let c32 = PcieConfig { addr64: false, ..c };
        assert_eq!(
            (mwr_overhead(&c32), mrd_overhead(&c32), cpld_overhead(&c32)),
            (20, 20, 20)
        );
        let ecrc = PcieConfig { ecrc: true, ..c };
        assert_eq!(
            (
                mwr_overhead(&ecrc),
                mrd_overhead(&ecrc),
                cpld_overhead(&ecrc)
            ),
            (28, 28, 24)
        );
        // FLIT mode: the 4 DW / 3 DW headers alone, framing in the flit
        let flit = PcieConfig { gen: 6, ..c };
        assert_eq!(
            (mwr_overhead(&flit), mrd_overhead(&flit), cpld_overhead(&flit)),
            (16, 16, 12)
        );
        assert_eq!(mwr_tlps_at(&flit, 0, 1500).wire_bytes, 1500 + 6 * 16);
    }

    #[test]
    fn examples_from_the_model_summary() {
        let c = cfg(); // MPS 256, MRRS 512, 64-bit, no ECRC
        assert_eq!(
            mwr_tlps_at(&c, 0, 1500),
            Tlps {
                count: 6,
                wire_bytes: 1644
            }
        );
        assert_eq!(mwr_wire_bytes(&c, 64), 88);
        assert_eq!(
            mrd_request_tlps_at(&c, 0, 1500),
            Tlps {
                count: 3,
                wire_bytes: 72
            }
        );
        assert_eq!(
            cpld_tlps(&c, 0, 1500),
            Tlps {
                count: 6,
                wire_bytes: 1620
            }
        );
        assert_eq!(mrd_request_wire_bytes(&c, 4096), 192);
        assert_eq!(cpld_wire_bytes(&c, 0, 4096), 4416);
        assert_eq!(mmio_write_wire_bytes(&c, 4), 28);
        // RCB chunks, aligned: ceil(1500/64) = 24 completions.
        assert_eq!(
            cpld_rcb_chunks_tlps(&c, 0, 1500),
            Tlps {
                count: 24,
                wire_bytes: 24 * 20 + 1500
            }
        );
    }

    #[test]
    fn writes_do_not_cross_4k() {
        let c = cfg();
        let pieces: Vec<_> = mwr_split(&c, 4000, 1500).collect();
        assert_eq!(pieces[0], (4000, 96));
        assert_eq!(pieces[1], (4096, 256));
        assert_eq!(pieces.len(), 7);
        // The same write, aligned, takes one TLP less.
        assert_eq!(
            mwr_tlps_at(&c, 4000, 1500).count,
            mwr_tlps_at(&c, 0, 1500).count + 1
        );
    }

    #[test]
    fn first_completion_ends_on_the_next_rcb_boundary() {
        let c = PcieConfig { rcb: 64, ..cfg() };
        let rcb: Vec<_> = cpld_rcb_split(&c, 0x30, 200).collect();
        assert_eq!(rcb, vec![(0x30, 16), (0x40, 64), (0x80, 64), (0xc0, 56)]);
        // Completing at MPS: the first completion still has to end on an RCB
        // boundary, then full MPS completions follow.
        let mps: Vec<_> = cpld_split(&c, 0x30, 600).collect();
        assert_eq!(mps, vec![(0x30, 208), (0x100, 256), (0x200, 136)]);
    }

    #[test]
    fn splitting_never_loses_bytes_nor_exceeds_limits() {
        // Plain loops over awkward addresses and sizes, every MPS/MRRS/RCB.
        let addrs = [
            0u64,
            1,
            63,
            64,
            100,
            4095,
            4096,
            4097,
            8000,
            0xffff_f000 - 3,
        ];
        let lens = [
            0u64, 1, 4, 63, 64, 65, 127, 256, 1500, 4095, 4096, 4097, 9000, 65536,
        ];
        for &mps in &crate::pcie::phy::SIZES {
            for &rcb in &crate::pcie::phy::RCBS {
                let c = PcieConfig {
                    mps,
                    mrrs: mps,
                    rcb,
                    ..cfg()
                };
                for &a in &addrs {
                    for &n in &lens {
                        for (limit, split) in [
                            (mps as u64, mwr_split(&c, a, n)),
                            (mps as u64, mrd_split(&c, a, n)),
                            (mps as u64, cpld_split(&c, a, n)),
                            (rcb.min(mps) as u64, cpld_rcb_split(&c, a, n)),
                        ] {
                            let mut next = a;
                            let mut count = 0;
                            for (pa, pl) in split.clone() {
                                assert_eq!(pa, next, "pieces must be contiguous");
                                assert!(pl > 0 && pl <= limit, "piece {pl} > {limit}");
                                assert_eq!(pa / PAGE, (pa + pl - 1) / PAGE, "crosses 4 KiB");
                                next = pa + pl;
                                count += 1;
                            }
                            assert_eq!(next - a, n, "payload lost");
                            assert_eq!(
                                split.tlps(20),
                                Tlps {
                                    count,
                                    wire_bytes: count * 20 + n
                                }
                            );
                        }
                    }
                }
            }
        }
    }
}
