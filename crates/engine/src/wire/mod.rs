//! Ethernet on the wire: framing overhead, serialisation time, line-rate
//! packet rates, and the few header fields the simulator reads (the IPv4
//! 5-tuple and its RSS hash, see [`rss`]).
//!
//! Modelled: IEEE 802.3 framing as a MAC sees it. Every frame costs its own
//! length (destination MAC through FCS, at least 64 B) plus 8 B of preamble
//! and start-of-frame delimiter plus a 12 B minimum inter-frame gap, so a
//! 64 B frame occupies 84 B of wire time. "Frame size" everywhere in
//! packetpath means the MAC frame *including* the 4 B FCS (64..=9216 B).
//!
//! Left out: 64b/66b coding and FEC (the nominal rate already excludes
//! them), PAUSE/PFC frames, and IFG shrinking (deficit idle count) which
//! only averages out to 12 B anyway. No header bytes are built or parsed
//! here; packets carry typed records, not buffers.

pub mod pause;
pub mod rss;

pub use rss::{rss_queue, Reta, Toeplitz, DEFAULT_RETA_SIZE, MS_RSS_KEY};

use crate::units::{ser_time, Time};

/// Preamble (7 B) plus start-of-frame delimiter (1 B).
pub const PREAMBLE_SFD: u64 = 8;
/// Minimum inter-frame gap, 96 bit times.
pub const IFG: u64 = 12;
/// Per-frame wire overhead outside the MAC frame: preamble + SFD + IFG.
pub const WIRE_OVERHEAD: u64 = PREAMBLE_SFD + IFG;
/// Frame check sequence (CRC-32), counted inside the frame size.
pub const FCS: u32 = 4;
/// Ethernet II header: two MACs and the EtherType.
pub const ETH_HDR: u32 = 14;
/// Minimum frame, FCS included; shorter frames are padded by the MAC.
pub const MIN_FRAME: u32 = 64;
/// Largest untagged standard frame (1500 B MTU), FCS included.
pub const MAX_STD_FRAME: u32 = 1518;
/// Largest jumbo frame packetpath accepts (the common switch limit).
pub const MAX_FRAME: u32 = 9216;
/// Ethernet (14) + IPv4 (20) + UDP (8) header bytes in front of a payload.
pub const UDP_HEADERS: u64 = 42;
/// Bytes of frame data a 128 B mlx5 CQE carries (scatter-to-CQE: the first
/// 64 B hold the data, the second the completion).
pub const RX_INLINE_MAX: u64 = 64;

/// Bytes of a frame of `size` (FCS included) in memory: the NIC checks and
/// strips the FCS on receive (DPDK's default, without `KEEP_CRC`) and
/// appends it on transmit, so DMAs carry the frame less its 4 B FCS.
#[inline]
pub fn mem_len(size: u32) -> u64 {
    (size - FCS) as u64
}

/// Bytes of wire time a frame of `frame_len` (FCS included) occupies:
/// the frame, padded to 64 B, plus preamble, SFD and inter-frame gap.
#[inline]
pub fn wire_bytes(frame_len: u32) -> u64 {
    frame_len.max(MIN_FRAME) as u64 + WIRE_OVERHEAD
}

/// Time the frame occupies the wire at `rate_mbps`, first preamble bit to
/// the end of its inter-frame gap, i.e. the minimum spacing between the
/// first bits of two back-to-back frames. Rounded up to whole picoseconds.
#[inline]
pub fn frame_time(frame_len: u32, rate_mbps: u64) -> Time {
    ser_time(wire_bytes(frame_len), rate_mbps)
}

/// Frames per second that fill a `rate_mbps` link with `frame_len` frames
/// (64 B at 100 Gbps: 148.81 Mpps).
#[inline]
pub fn line_rate_pps(frame_len: u32, rate_mbps: u64) -> f64 {
    rate_mbps as f64 * 1e6 / (wire_bytes(frame_len) * 8) as f64
}

/// Frames per second for a mean wire footprint of `mean_wire_bytes` per
/// frame (use with a size mix: mean of [`wire_bytes`], not of frame sizes).
#[inline]
pub fn pps_for_wire_bytes(mean_wire_bytes: f64, rate_mbps: u64) -> f64 {
    rate_mbps as f64 * 1e6 / (mean_wire_bytes * 8.0)
}

/// IP protocol numbers RSS distinguishes.
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

/// IPv4 5-tuple, host byte order (`10.0.0.1` is `0x0a000001`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct FiveTuple {
    pub src_ip: u32,
    pub dst_ip: u32,
    pub src_port: u16,
    pub dst_port: u16,
    pub proto: u8,
}

impl FiveTuple {
    /// True when a NIC hashes the ports too (RSS types TCP_IPV4/UDP_IPV4).
    #[inline]
    pub fn has_ports(&self) -> bool {
        self.proto == PROTO_TCP || self.proto == PROTO_UDP
    }

    /// The RSS input in wire order: src IP, dst IP, src port, dst port.
    #[inline]
    pub fn rss_input(&self) -> [u8; 12] {
        let mut b = [0u8; 12];
        b[0..4].copy_from_slice(&self.src_ip.to_be_bytes());
        b[4..8].copy_from_slice(&self.dst_ip.to_be_bytes());
        b[8..10].copy_from_slice(&self.src_port.to_be_bytes());
        b[10..12].copy_from_slice(&self.dst_port.to_be_bytes());
        b
    }

    /// RSS hash as a NIC with 4-tuple hashing enabled for TCP and UDP
    /// computes it: over addresses and ports for TCP/UDP, addresses only
    /// otherwise (ICMP, fragments' protocols, ...).
    #[inline]
    pub fn rss_hash(&self, t: &Toeplitz) -> u32 {
        let input = self.rss_input();
        if self.has_ports() {
            t.hash(&input)
        } else {
            t.hash(&input[..8])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::NS;

    #[test]
    fn line_rates_at_100g() {
        // 100e9 / (84 * 8) and 100e9 / (1520 * 8)
        assert!((line_rate_pps(64, 100_000) / 1e6 - 148.81).abs() < 0.005);
        assert!((line_rate_pps(1500, 100_000) / 1e6 - 8.2237).abs() < 0.00005);
        assert!((line_rate_pps(64, 10_000) / 1e6 - 14.881).abs() < 0.0005);
        assert_eq!(
            pps_for_wire_bytes(84.0, 100_000),
            line_rate_pps(64, 100_000)
        );
    }

    #[test]
    fn framing_overhead() {
        assert_eq!(wire_bytes(64), 84);
        assert_eq!(wire_bytes(1518), 1538);
        // Runts are padded to the minimum frame.
        assert_eq!(wire_bytes(60), 84);
        // 64 B at 100 Gbps is 6.72 ns; at 800 Gbps 840 ps; 1518 B at 10 Gbps 1230.4 ns.
        assert_eq!(frame_time(64, 100_000), 6_720);
        assert_eq!(frame_time(64, 800_000), 840);
        assert_eq!(frame_time(1518, 10_000), 1_230_400);
        assert_eq!(frame_time(1500, 100_000), 121 * NS + 600);
    }

    #[test]
    fn tuple_input_is_wire_order() {
        let t = FiveTuple {
            src_ip: 0x0102_0304,
            dst_ip: 0x0506_0708,
            src_port: 0x090a,
            dst_port: 0x0b0c,
            proto: 17,
        };
        assert_eq!(t.rss_input(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    }
}
