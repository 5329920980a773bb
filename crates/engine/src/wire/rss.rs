//! Receive-side scaling: the Toeplitz hash a NIC computes over a packet's
//! addresses and ports, and the redirection table (RETA) that maps the hash
//! to an RX queue.
//!
//! Modelled: the Microsoft RSS Toeplitz function exactly (bit-for-bit, it
//! passes the Microsoft verification suite), any key length, and a RETA
//! indexed by the low bits of the hash and filled round-robin
//! (`reta[i] = i % queues`) as DPDK PMDs and Linux's
//! `ethtool_rxfh_indir_default` do.
//!
//! Left out: the symmetric and "simple XOR" hash functions some NICs offer,
//! Flow Director / ntuple rules that override RSS, and which packet types a
//! given NIC hashes (callers choose the input: [`super::FiveTuple::rss_hash`]).

/// Microsoft's default RSS key, also the default of most DPDK PMDs and of
/// Intel NICs' verification suite.
pub const MS_RSS_KEY: [u8; 40] = [
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b,
    0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac,
    0x01, 0xfa,
];

/// RETA size of ixgbe/i40e-class NICs in their default configuration.
pub const DEFAULT_RETA_SIZE: usize = 128;

/// Toeplitz hash, straight from Microsoft's pseudocode: for each input bit
/// set (MSB of byte 0 first), XOR in the leftmost 32 bits of the key, then
/// shift the key left one bit. Slow; kept as the reference for [`Toeplitz`].
/// `input` may be at most `key.len() - 4` bytes.
pub fn toeplitz_hash(key: &[u8], input: &[u8]) -> u32 {
    assert!(input.len() + 4 <= key.len(), "Toeplitz input of {} B needs a key of {} B", input.len(), input.len() + 4);
    let mut result = 0u32;
    for (i, byte) in input.iter().enumerate() {
        for bit in 0..8 {
            if byte & (0x80 >> bit) != 0 {
                result ^= key_window(key, i * 8 + bit);
            }
        }
    }
    result
}

/// The 32 key bits starting at bit offset `k` (MSB-first), zero past the end.
fn key_window(key: &[u8], k: usize) -> u32 {
    let mut w = 0u64;
    for j in 0..5 {
        w = (w << 8) | *key.get(k / 8 + j).unwrap_or(&0) as u64;
    }
    (w >> (8 - k % 8)) as u32
}

/// Table-driven Toeplitz hash: one 256-entry table per input byte position,
/// so a 12 B IPv4 4-tuple costs 12 lookups instead of 96 bit steps. Built
/// once per key (36 KiB for a 40 B key).
#[derive(Clone)]
pub struct Toeplitz {
    tables: Vec<[u32; 256]>,
}

impl Toeplitz {
    /// Tables for `key`; inputs of up to `key.len() - 4` bytes can be hashed
    /// (36 B with a 40 B key: an IPv6 4-tuple).
    pub fn new(key: &[u8]) -> Toeplitz {
        let positions = key.len().saturating_sub(4);
        let mut tables = vec![[0u32; 256]; positions];
        for (p, table) in tables.iter_mut().enumerate() {
            let windows: [u32; 8] = std::array::from_fn(|bit| key_window(key, p * 8 + bit));
            for (b, entry) in table.iter_mut().enumerate() {
                *entry = (0..8).filter(|bit| b & (0x80 >> bit) != 0).fold(0, |acc, bit| acc ^ windows[bit]);
            }
        }
        Toeplitz { tables }
    }

    /// Hash of `input` (network byte order, as the NIC reads it).
    #[inline]
    pub fn hash(&self, input: &[u8]) -> u32 {
        assert!(input.len() <= self.tables.len(), "Toeplitz input of {} B exceeds the key's {} B", input.len(), self.tables.len());
        input.iter().zip(&self.tables).fold(0, |acc, (b, t)| acc ^ t[*b as usize])
    }

    /// IPv4 addresses only (RSS type IPV4), host-order addresses.
    #[inline]
    pub fn hash_ipv4(&self, src: u32, dst: u32) -> u32 {
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&src.to_be_bytes());
        b[4..].copy_from_slice(&dst.to_be_bytes());
        self.hash(&b)
    }

    /// IPv4 addresses and ports (RSS types TCP_IPV4 / UDP_IPV4).
    #[inline]
    pub fn hash_ipv4_l4(&self, src: u32, dst: u32, sport: u16, dport: u16) -> u32 {
        super::FiveTuple { src_ip: src, dst_ip: dst, src_port: sport, dst_port: dport, proto: super::PROTO_TCP }
            .rss_hash(self)
    }
}

impl Default for Toeplitz {
    fn default() -> Self {
        Toeplitz::new(&MS_RSS_KEY)
    }
}

/// RX queue for `hash` through a `reta_size`-entry redirection table filled
/// round-robin over `queues` queues (`reta[i] = i % queues`, DPDK's and
/// Linux's default). The NIC indexes the RETA with the hash's low bits,
/// which is `hash % reta_size` for the power-of-two sizes NICs use.
/// Panics if either size is 0.
#[inline]
pub fn rss_queue(hash: u32, reta_size: usize, queues: usize) -> usize {
    (hash as usize % reta_size) % queues
}

/// An explicit redirection table, for scenarios that reprogram it
/// (`rte_eth_dev_rss_reta_update`, `ethtool -X`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reta {
    entries: Vec<u16>,
}

impl Reta {
    /// `size` entries filled round-robin over `queues`. Panics if either is 0.
    pub fn round_robin(size: usize, queues: usize) -> Reta {
        assert!(size > 0 && queues > 0 && queues <= u16::MAX as usize + 1, "RETA needs size > 0 and 1..=65536 queues");
        Reta { entries: (0..size).map(|i| (i % queues) as u16).collect() }
    }

    #[inline]
    pub fn queue(&self, hash: u32) -> usize {
        self.entries[hash as usize % self.entries.len()] as usize
    }

    pub fn entries(&self) -> &[u16] {
        &self.entries
    }

    /// Point entry `index` at `queue`.
    pub fn set(&mut self, index: usize, queue: u16) {
        self.entries[index] = queue;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{FiveTuple, PROTO_TCP, PROTO_UDP};

    fn ip(a: u8, b: u8, c: u8, d: u8) -> u32 {
        u32::from_be_bytes([a, b, c, d])
    }

    type Ip = (u8, u8, u8, u8);

    /// Microsoft "Verifying the RSS Hash Calculation", all IPv4 rows:
    /// (destination, dst port, source, src port, IPv4-only hash, IPv4 with
    /// TCP hash). The same table is in the Intel 82599 datasheet
    /// (7.1.2.8.3) and DPDK's test_thash.c.
    const V4: [(Ip, u16, Ip, u16, u32, u32); 5] = [
        ((161, 142, 100, 80), 1766, (66, 9, 149, 187), 2794, 0x323e8fc2, 0x51ccc178),
        ((65, 69, 140, 83), 4739, (199, 92, 111, 2), 14230, 0xd718262a, 0xc626b0ea),
        ((12, 22, 207, 184), 38024, (24, 19, 198, 95), 12898, 0xd2d0a5de, 0x5c2b394a),
        ((209, 142, 163, 6), 2217, (38, 27, 205, 30), 48228, 0x82989176, 0xafc7327f),
        ((202, 188, 127, 2), 1303, (153, 39, 163, 191), 44251, 0x5d1809c5, 0x10e828a2),
    ];

    #[test]
    fn microsoft_ipv4_verification_suite() {
        let t = Toeplitz::default();
        for (d, dport, s, sport, h3, h4) in V4 {
            let (src, dst) = (ip(s.0, s.1, s.2, s.3), ip(d.0, d.1, d.2, d.3));
            assert_eq!(t.hash_ipv4(src, dst), h3, "ipv4 {s:?}->{d:?}");
            assert_eq!(t.hash_ipv4_l4(src, dst, sport, dport), h4, "ipv4/tcp {s:?}->{d:?}");
            let tcp = FiveTuple { src_ip: src, dst_ip: dst, src_port: sport, dst_port: dport, proto: PROTO_TCP };
            assert_eq!(tcp.rss_hash(&t), h4);
            assert_eq!(FiveTuple { proto: PROTO_UDP, ..tcp }.rss_hash(&t), h4);
            // ICMP and other protocols hash the addresses only.
            assert_eq!(FiveTuple { proto: 1, ..tcp }.rss_hash(&t), h3);
            assert_eq!(toeplitz_hash(&MS_RSS_KEY, &tcp.rss_input()), h4);
        }
    }

    #[test]
    fn microsoft_ipv6_verification_suite() {
        // (src, dst, sport, dport, IPv6-only, IPv6 with TCP)
        type Row = ([u16; 8], [u16; 8], u16, u16, u32, u32);
        let rows: [Row; 3] = [
            ([0x3ffe, 0x2501, 0x200, 0x1fff, 0, 0, 0, 7], [0x3ffe, 0x2501, 0x200, 3, 0, 0, 0, 1], 2794, 1766, 0x2cc18cd5, 0x40207d3d),
            ([0x3ffe, 0x501, 8, 0, 0x260, 0x97ff, 0xfe40, 0xefab], [0xff02, 0, 0, 0, 0, 0, 0, 1], 14230, 4739, 0x0f0c461c, 0xdde51bbf),
            (
                [0x3ffe, 0x1900, 0x4545, 3, 0x200, 0xf8ff, 0xfe21, 0x67cf],
                [0xfe80, 0, 0, 0, 0x200, 0xf8ff, 0xfe21, 0x67cf],
                44251,
                38024,
                0x4b61e985,
                0x02d1feef,
            ),
        ];
        let t = Toeplitz::default();
        for (s, d, sp, dp, h3, h4) in rows {
            let mut input = Vec::new();
            for w in s.iter().chain(&d) {
                input.extend_from_slice(&w.to_be_bytes());
            }
            assert_eq!(t.hash(&input), h3);
            input.extend_from_slice(&sp.to_be_bytes());
            input.extend_from_slice(&dp.to_be_bytes());
            assert_eq!(t.hash(&input), h4);
            assert_eq!(toeplitz_hash(&MS_RSS_KEY, &input), h4);
        }
    }

    #[test]
    fn table_matches_reference_on_arbitrary_keys() {
        let key: Vec<u8> = (0..52u32).map(|i| (i.wrapping_mul(0x9e) ^ 0x5a) as u8).collect();
        let t = Toeplitz::new(&key);
        let input: Vec<u8> = (0..48u32).map(|i| (i * 37 + 11) as u8).collect();
        for n in 0..=48 {
            assert_eq!(t.hash(&input[..n]), toeplitz_hash(&key, &input[..n]), "len {n}");
        }
    }

    #[test]
    fn reta_round_robin() {
        // Low 7 bits 0x78 = entry 120, which round-robin over 4 queues maps to 0.
        assert_eq!(rss_queue(0x51ccc178, 128, 4), 0);
        assert_eq!(rss_queue(0x51ccc178, 128, 7), 120 % 7);
        let r = Reta::round_robin(128, 6);
        assert_eq!(&r.entries()[..8], &[0, 1, 2, 3, 4, 5, 0, 1]);
        for h in [0u32, 1, 127, 128, 0xdead_beef, u32::MAX] {
            assert_eq!(r.queue(h), rss_queue(h, 128, 6));
        }
        let mut r = r;
        r.set(0, 5);
        assert_eq!(r.queue(128), 5);
    }
}
