//! PCIe bytes per packet for the two NIC models of pcie-model (a simple
//! descriptor-ring NIC and an Intel 82599 "Niantic" with kernel or DPDK PMD
//! driver), and the packet rate the link allows. Used to check our TLP
//! accounting against the published tables. A test oracle: it lives with
//! the tests, not in the engine. Unlike the published code, the
//! RX-path descriptor read request is counted (the model drops it by
//! writing '=' for '+=').

use packetpath_engine::pcie::tlp::{
    cpld_wire_bytes, mmio_write_wire_bytes, mrd_request_wire_bytes, mwr_overhead, mwr_wire_bytes,
    MSI_PAYLOAD,
};
use packetpath_engine::pcie::{phy, PcieConfig};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NicModel {
    /// Every step for every packet, 16 B descriptors, one queue.
    Simple,
    /// 82599 with the Linux ixgbe driver: doorbell per packet, IRQ every 32.
    NianticKernel,
    /// 82599 with DPDK: doorbell per 32 packets, no IRQs, no head-pointer reads.
    NianticPmd,
}

/// Which NIC data path is loaded (the model's DIR_RX/DIR_TX are from the
/// device's view; these are from the NIC's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NicPath {
    /// Host -> wire: the NIC reads descriptors and packets.
    Transmit,
    /// Wire -> host: the NIC writes packets and descriptors.
    Receive,
    Both,
}

/// Wire bytes each way for a batch of `packets` packets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NicBytes {
    pub packets: u64,
    pub host_to_dev: u64,
    pub dev_to_host: u64,
}

const DESC: u64 = 16;
const PTR: u64 = 4;

/// PCIe wire bytes each way for one batch of packets whose DMA size is
/// `dma_bytes` (frame without FCS, as the model's nic_bw.py passes it).
pub fn nic_pcie_bytes(
    cfg: &PcieConfig,
    model: NicModel,
    path: NicPath,
    dma_bytes: u64,
) -> NicBytes {
    let c = cfg;
    let p = dma_bytes;
    let msi = mwr_overhead(c) + MSI_PAYLOAD;
    let doorbell = mmio_write_wire_bytes(c, PTR);
    // A host read of a device register: MRd down, CplD up.
    let (reg_rd_down, reg_rd_up) = (mrd_request_wire_bytes(c, PTR), cpld_wire_bytes(c, 0, PTR));
    // DMA read of n bytes: (MRd up, CplD down).
    let read = |n: u64| (mrd_request_wire_bytes(c, n), cpld_wire_bytes(c, 0, n));

    // (host->dev, dev->host) for the transmit and the receive path.
    let (batch, tx, rx) = match model {
        NicModel::Simple => {
            let (desc_up, desc_down) = read(DESC);
            let (pkt_up, pkt_down) = read(p);
            let tx = (
                doorbell + desc_down + pkt_down + reg_rd_down,
                desc_up + pkt_up + msi + reg_rd_up,
            );
            let rx_up = desc_up + mwr_wire_bytes(c, p) + mwr_wire_bytes(c, DESC) + msi + reg_rd_up;
            let rx = (doorbell + desc_down + reg_rd_down, rx_up);
            (1, tx, rx)
        }
        NicModel::NianticKernel | NicModel::NianticPmd => {
            let pmd = model == NicModel::NianticPmd;
            // One batch = lcm(32 free buffers per RX doorbell, 40 TX descriptors per prefetch).
            const B: u64 = 160;
            let tx_doorbells = if pmd { B / 32 } else { B };
            let irqs = if pmd { 0 } else { B / 32 };
            let (tx_reg_reads, rx_reg_reads) = if pmd { (0, 0) } else { (B, B / 8) };
            // TX descriptors: prefetched 40 at a time, written back 8 at a time.
            let (pf_up, pf_down) = read(40 * DESC);
            let (pkt_up, pkt_down) = read(p);
            let tx_down = doorbell * tx_doorbells
                + pf_down * (B / 40)
                + pkt_down * B
                + reg_rd_down * tx_reg_reads;
            let tx_up = pf_up * (B / 40)
                + pkt_up * B
                + mwr_wire_bytes(c, 8 * DESC) * (B / 8)
                + msi * irqs
                + reg_rd_up * tx_reg_reads;
            // RX descriptors: fetched one per packet, written back one per packet.
            let (desc_up, desc_down) = read(DESC);
            let rx_down = doorbell * (B / 32) + desc_down * B + reg_rd_down * rx_reg_reads;
            let rx_up = (desc_up + mwr_wire_bytes(c, p) + mwr_wire_bytes(c, DESC)) * B
                + msi * irqs
                + reg_rd_up * rx_reg_reads;
            (B, (tx_down, tx_up), (rx_down, rx_up))
        }
    };
    let (down, up) = match path {
        NicPath::Transmit => tx,
        NicPath::Receive => rx,
        NicPath::Both => (tx.0 + rx.0, tx.1 + rx.1),
    };
    NicBytes {
        packets: batch,
        host_to_dev: down,
        dev_to_host: up,
    }
}

/// Packet-data Gb/s the link sustains (per path when `Both`), limited by the
/// busier direction; the model's `pcie_limited_pkt_data_gbps`, bug fixed.
pub fn nic_pcie_limited_gbps(
    cfg: &PcieConfig,
    model: NicModel,
    path: NicPath,
    dma_bytes: u64,
) -> f64 {
    let b = nic_pcie_bytes(cfg, model, path, dma_bytes);
    let busiest = b.host_to_dev.max(b.dev_to_host).max(1);
    (b.packets * dma_bytes) as f64 * phy::tlp_layer_gbps(cfg.gen, cfg.lanes, cfg.mps)
        / busiest as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_from_the_model_summary() {
        let c = PcieConfig {
            lanes: 8,
            ..PcieConfig::default()
        };
        let tx = nic_pcie_bytes(&c, NicModel::Simple, NicPath::Transmit, 60);
        assert_eq!(
            (tx.host_to_dev, tx.dev_to_host),
            (28 + 36 + 80 + 24, 24 + 24 + 28 + 24)
        );
        // RX includes the 24 B descriptor MRd the published code drops.
        let rx = nic_pcie_bytes(&c, NicModel::Simple, NicPath::Receive, 60);
        assert_eq!(
            (rx.host_to_dev, rx.dev_to_host),
            (28 + 36 + 24, 24 + 84 + 40 + 28 + 24)
        );
        let g = nic_pcie_limited_gbps(&c, NicModel::NianticPmd, NicPath::Receive, 60);
        assert!((g - 23.4668).abs() < 1e-3, "{g}");
    }
}
