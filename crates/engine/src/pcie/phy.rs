//! Physical and data-link layer: line rate per generation, and the ACK,
//! UpdateFC and SKIP overheads folded into one TLP-layer bandwidth per
//! direction, exactly as pcie-model's `TLP_bw` table for gen1-5.
//!
//! Gen6 and gen7 run in FLIT mode (PCIe 6.0 Base Spec, Sec. 4.2.3): PAM4
//! without a line code, and every 256 B flit carries 236 B of TLPs, 6 B of
//! data-link payload (where the ACKs and flow-control updates now ride),
//! 8 B of CRC and 6 B of FEC -- 92.2 % of the raw rate for TLPs, whatever
//! the link width or MPS (PCI-SIG, PCIe 6.0 FAQ; G. Lockwood, "PCIe Gen6",
//! glennklockwood.com). Left out: the SKP ordered sets between flits and
//! the NOP flits of an idle link.

/// Link widths the spec's ACK/FC tables cover.
pub const LANES: [u8; 6] = [1, 2, 4, 8, 16, 32];
/// Allowed Max_Payload_Size and Max_Read_Request_Size values (bytes).
pub const SIZES: [u32; 6] = [128, 256, 512, 1024, 2048, 4096];
/// Allowed Read Completion Boundary values (bytes) as the model accepts them.
pub const RCBS: [u32; 4] = [64, 128, 256, 512];
/// Highest generation with data.
pub const MAX_GEN: u8 = 7;
/// The first generation that runs in FLIT mode.
pub const FLIT_GEN: u8 = 6;
/// A flit's bytes, and those of them that carry TLPs.
pub const FLIT_BYTES: f64 = 256.0;
pub const FLIT_TLP_BYTES: f64 = 236.0;

/// Transfer rate per lane in GT/s, gen1..gen7.
const GT_PER_S: [f64; 7] = [2.5, 5.0, 8.0, 16.0, 32.0, 64.0, 128.0];

/// An ACK DLLP and an UpdateFC DLLP each cost 8 B on the wire:
/// 2 B framing + 4 B DLLP + 2 B CRC.
const ACK_DLLP_BYTES: f64 = 8.0;
const FC_DLLP_BYTES: f64 = 8.0;
/// SKIP ordered sets for clock compensation: 4 B every 1538 B on every gen.
const SKIP_BYTES: f64 = 4.0;
const SKIP_INTERVAL: f64 = 1538.0;

/// Bytes between ACK DLLPs (PCIe Base Spec 5.0 Tables 3-7..3-9), indexed
/// [gen1, gen2, gen3+][lanes x1..x32][MPS 128..4096]. Gen3 values are reused
/// for gen4 and gen5, as the model does.
const ACK_LIMIT: [[[u16; 6]; 6]; 3] = [
    [
        [237, 416, 559, 1071, 2095, 4143],
        [128, 217, 289, 545, 1057, 2081],
        [73, 118, 154, 282, 538, 1050],
        [67, 107, 86, 150, 278, 534],
        [48, 72, 86, 150, 278, 534],
        [33, 45, 52, 84, 148, 276],
    ],
    [
        [288, 467, 610, 1122, 2146, 4194],
        [179, 268, 340, 596, 1108, 2132],
        [124, 169, 205, 333, 589, 1101],
        [118, 158, 137, 201, 329, 585],
        [99, 123, 137, 201, 329, 585],
        [84, 96, 103, 135, 199, 237],
    ],
    [
        [333, 512, 655, 1167, 2191, 4239],
        [224, 313, 385, 641, 1153, 2177],
        [169, 214, 250, 378, 634, 1146],
        [163, 203, 182, 246, 374, 630],
        [144, 168, 182, 246, 374, 630],
        [129, 141, 148, 180, 244, 372],
    ],
];

/// Bytes between UpdateFC DLLPs (Spec 5.0 Tables 2-46..2-48), same layout.
/// Identical to ACK_LIMIT except gen1 x32 MPS 2048 and gen2 x32 MPS 4096,
/// kept as published (they look like typos in the model, but the reference
/// numbers depend on them).
const FC_INTERVAL: [[[u16; 6]; 6]; 3] = [
    [
        [237, 416, 559, 1071, 2095, 4143],
        [128, 217, 289, 545, 1057, 2081],
        [73, 118, 154, 282, 538, 1050],
        [67, 107, 86, 150, 278, 534],
        [48, 72, 86, 150, 278, 534],
        [33, 45, 52, 84, 248, 276],
    ],
    [
        [288, 467, 610, 1122, 2146, 4194],
        [179, 268, 340, 596, 1108, 2132],
        [124, 169, 205, 333, 589, 1101],
        [118, 158, 137, 201, 329, 585],
        [99, 123, 137, 201, 329, 585],
        [84, 96, 103, 135, 199, 327],
    ],
    [
        [333, 512, 655, 1167, 2191, 4239],
        [224, 313, 385, 641, 1153, 2177],
        [169, 214, 250, 378, 634, 1146],
        [163, 203, 182, 246, 374, 630],
        [144, 168, 182, 246, 374, 630],
        [129, 141, 148, 180, 244, 372],
    ],
];

fn gen_index(gen: u8) -> Option<usize> {
    (1..=MAX_GEN).contains(&gen).then(|| gen as usize - 1)
}

fn table_index(gen: u8, lanes: u8, mps: u32) -> Option<(usize, usize, usize)> {
    let g = gen_index(gen)?.min(2);
    let l = LANES.iter().position(|&x| x == lanes)?;
    let m = SIZES.iter().position(|&x| x == mps)?;
    Some((g, l, m))
}

/// Whether a link of this generation runs in FLIT mode.
pub fn flit_mode(gen: u8) -> bool {
    gen >= FLIT_GEN
}

/// Line-code efficiency: 8b/10b (gen1/2), 128b/130b (gen3-5); none in
/// FLIT mode (gen6/7: PAM4 carries the flit's bits directly).
/// 0.0 for an unknown generation.
pub fn encoding(gen: u8) -> f64 {
    match gen {
        1 | 2 => 8.0 / 10.0,
        3..=5 => 128.0 / 130.0,
        6 | 7 => 1.0,
        _ => 0.0,
    }
}

/// GT/s per lane; 0.0 for an unknown generation.
pub fn gt_per_s(gen: u8) -> f64 {
    gen_index(gen).map_or(0.0, |g| GT_PER_S[g])
}

/// Bandwidth after line coding, Gb/s, for one direction.
pub fn raw_gbps(gen: u8, lanes: u8) -> f64 {
    gt_per_s(gen) * encoding(gen) * lanes as f64
}

/// (ACK limit, UpdateFC interval) in bytes; None outside the spec tables
/// and in FLIT mode, where DLLPs ride inside the flits.
pub fn dllp_intervals(gen: u8, lanes: u8, mps: u32) -> Option<(u32, u32)> {
    if flit_mode(gen) {
        return None;
    }
    let (g, l, m) = table_index(gen, lanes, mps)?;
    Some((ACK_LIMIT[g][l][m] as u32, FC_INTERVAL[g][l][m] as u32))
}

/// Fraction of the raw bandwidth left for TLPs after ACK, UpdateFC and
/// SKIP overheads, or after the flit's DLP, CRC and FEC bytes in FLIT
/// mode; None outside the spec tables.
pub fn tlp_efficiency(gen: u8, lanes: u8, mps: u32) -> Option<f64> {
    if flit_mode(gen) {
        table_index(gen, lanes, mps)?;
        return Some(FLIT_TLP_BYTES / FLIT_BYTES);
    }
    let (ack, fc) = dllp_intervals(gen, lanes, mps)?;
    let overhead =
        ACK_DLLP_BYTES / ack as f64 + FC_DLLP_BYTES / fc as f64 + SKIP_BYTES / SKIP_INTERVAL;
    Some(1.0 - overhead)
}

/// Per-direction bandwidth available to TLPs, Gb/s (the model's `TLP_bw`).
/// 0.0 for a combination outside the tables; `PcieConfig::validate` rejects those.
pub fn tlp_layer_gbps(gen: u8, lanes: u8, mps: u32) -> f64 {
    tlp_efficiency(gen, lanes, mps).map_or(0.0, |eff| raw_gbps(gen, lanes) * eff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_quoted_in_the_model_summary() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-3;
        assert!(close(raw_gbps(3, 8), 63.0154));
        assert!(close(raw_gbps(5, 16), 504.1231));
        assert!(close(tlp_layer_gbps(3, 8, 256), 57.8848));
        assert!(close(tlp_layer_gbps(3, 16, 256), 113.7001));
        assert!(close(tlp_layer_gbps(5, 16, 256), 454.8002));
        assert_eq!(dllp_intervals(1, 32, 2048), Some((148, 248)));
        assert_eq!(dllp_intervals(2, 32, 4096), Some((237, 327)));
    }

    /// The spec's arithmetic: gen5 x16 moves 32 GT/s x 16 x 128/130 =
    /// 504.1 Gb/s (63.0 GB/s) per direction; gen6 x16 in FLIT mode
    /// 64 GT/s x 16 = 1024 Gb/s raw, of which 236/256 carry TLPs: 944 Gb/s,
    /// 118 GB/s; gen7 doubles it. FLIT mode has no DLLP intervals.
    #[test]
    fn gen5_and_flit_mode_bandwidth_follow_the_spec_arithmetic() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        assert!(close(raw_gbps(5, 16), 32.0 * 16.0 * 128.0 / 130.0));
        assert!(close(raw_gbps(6, 16), 1024.0));
        assert!(close(raw_gbps(7, 16), 2048.0));
        for mps in SIZES {
            assert!(close(tlp_layer_gbps(6, 16, mps), 944.0));
            assert!(close(tlp_layer_gbps(7, 8, mps), 944.0));
            assert_eq!(dllp_intervals(6, 16, mps), None);
        }
        assert!(tlp_layer_gbps(5, 16, 256) < 0.95 * raw_gbps(5, 16));
        assert_eq!(tlp_layer_gbps(6, 12, 256), 0.0);
    }

    #[test]
    fn outside_the_tables_is_zero_not_a_panic() {
        assert_eq!(tlp_layer_gbps(8, 8, 256), 0.0);
        assert_eq!(tlp_layer_gbps(3, 12, 256), 0.0);
        assert_eq!(tlp_layer_gbps(3, 8, 300), 0.0);
        assert_eq!(raw_gbps(0, 8), 0.0);
    }
}
