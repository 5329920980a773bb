//! Pcap trace replay.
//!
//! The whole trace (at most [`MAX_TRACE_PACKETS`]; the rest is ignored) is
//! read once at construction and replayed in a loop:
//!
//! * Frame size is the packet's *original* length, so truncated captures
//!   (small snaplen) replay at full size. Captures normally lack the FCS,
//!   so 4 B are added unless the header's FCS-length bits (libpcap's
//!   `LT_FCS_LENGTH`) say it was captured. Linux cooked (SLL) and raw-IP
//!   captures are converted to the Ethernet frame they came from. Sizes are
//!   clamped to 64..=9216.
//! * Flows are distinct IPv4 5-tuples (IPv6 address pairs and ports for
//!   IPv6), numbered in order of first appearance, with the RSS hash a NIC
//!   computes (L4 for unfragmented TCP/UDP, L3 otherwise). Other frames
//!   (ARP, LLDP, ...) form flows by a hash of their L2 header and get RSS
//!   hash 0, as NICs do not hash them (they land on RETA entry 0).
//!   `dst_ip` of an IPv6 flow is the low 32 bits of its destination.
//! * Timing: the trace's inter-arrival gaps are scaled by one common factor
//!   so the loop's average wire rate is exactly `rate_mbps`, keeping the
//!   trace's relative burstiness; a gap that would become shorter than the
//!   frame's line-rate wire time is stretched to it (and the factor chosen
//!   so the total still matches). The gap from the last frame back to the
//!   first is the trace's mean gap.
//!
//! Left out: pcapng (convert with `editcap -F pcap`), other link types,
//! IPv6 extension headers (such packets hash on addresses only), and
//! per-packet payloads.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use pcap_file::pcap::PcapReader;
use pcap_file::{PcapError, TsResolution};

use super::FlowRec;
use crate::units::Time;
use crate::wire::{
    frame_time, wire_bytes, Toeplitz, ETH_HDR, FCS, MAX_FRAME, MIN_FRAME, PROTO_TCP, PROTO_UDP,
};

/// Trace length cap: 16 B per packet kept, so at most 160 MB.
pub const MAX_TRACE_PACKETS: usize = 10_000_000;

const LINKTYPE_ETHERNET: u32 = 1;
const LINKTYPE_RAW: u32 = 101;
const LINKTYPE_LINUX_SLL: u32 = 113;
const LINKTYPE_IPV4: u32 = 228;
const LINKTYPE_IPV6: u32 = 229;

#[derive(Clone, Copy, Debug)]
struct TracePkt {
    /// Time from this frame's first bit to the next one's.
    gap: Time,
    size: u32,
    flow: u32,
}

#[derive(Clone)]
pub(super) struct Trace {
    pkts: Vec<TracePkt>,
    pos: usize,
}

impl Trace {
    pub(super) fn len(&self) -> usize {
        self.pkts.len()
    }

    /// The largest frame of the trace (0 for an empty one).
    pub(super) fn max_size(&self) -> u32 {
        self.pkts.iter().map(|p| p.size).max().unwrap_or(0)
    }

    /// Size and flow of the frame at the replay position.
    #[inline]
    pub(super) fn current(&self) -> (u32, u32) {
        let p = self.pkts[self.pos];
        (p.size, p.flow)
    }

    /// Gap after the frame at the replay position; advances to the next.
    #[inline]
    pub(super) fn gap(&mut self) -> Time {
        let g = self.pkts[self.pos].gap;
        self.pos += 1;
        if self.pos == self.pkts.len() {
            self.pos = 0;
        }
        g
    }
}

pub(super) fn load(
    path: &Path,
    rate: u64,
    line: u64,
    t: &Toeplitz,
) -> Result<(Trace, Vec<FlowRec>), String> {
    let name = path.display().to_string().escape_debug().to_string();
    // a FIFO or a device would block or never end: only regular files
    match path.metadata() {
        Ok(m) if !m.is_file() => {
            return Err(format!("traffic.pcap '{name}': not a regular file"));
        }
        _ => {}
    }
    let f =
        File::open(path).map_err(|e| format!("traffic.size pcap '{name}': cannot open: {e}"))?;
    load_from(BufReader::new(f), &name, rate, line, t)
}

pub(super) fn load_from<R: Read>(
    mut r: R,
    name: &str,
    rate: u64,
    line: u64,
    t: &Toeplitz,
) -> Result<(Trace, Vec<FlowRec>), String> {
    let err = |what: String| format!("traffic.size pcap '{name}': {what}");
    // Peek at the magic so a pcapng file gets a useful message.
    let mut magic = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(err(format!("cannot read: {e}"))),
        }
    }
    if got < 4 {
        return Err(err(format!("not a pcap file: only {got} bytes")));
    }
    if magic == [0x0a, 0x0d, 0x0d, 0x0a] {
        return Err(err(
            "is pcapng, only classic pcap is supported (convert with `editcap -F pcap`)".into(),
        ));
    }
    let mut reader = PcapReader::new(std::io::Cursor::new(magic).chain(r))
        .map_err(|e| err(format!("not a pcap file: {}", describe(&e))))?;
    let header = reader.header();
    let linktype_field = u32::from(header.datalink);
    let linktype = linktype_field & 0xFFFF;
    // libpcap LT_FCS_LENGTH_PRESENT / LT_FCS_LENGTH (in 16-bit words).
    let captured_fcs = if linktype_field & 0x0400_0000 != 0 {
        (linktype_field >> 28) * 2
    } else {
        0
    };
    // Original length -> Ethernet frame with FCS.
    let size_adjust: i64 = match linktype {
        LINKTYPE_ETHERNET => FCS as i64 - captured_fcs as i64,
        // SLL's 16 B pseudo-header stands where the 14 B Ethernet header was.
        LINKTYPE_LINUX_SLL => ETH_HDR as i64 - 16 + FCS as i64,
        LINKTYPE_RAW | LINKTYPE_IPV4 | LINKTYPE_IPV6 => (ETH_HDR + FCS) as i64,
        other => {
            return Err(err(format!(
            "link type {other} is not supported (Ethernet 1, Linux cooked 113, raw IP 101/228/229)"
        )))
        }
    };
    let frac_ps: u64 = match header.ts_resolution {
        TsResolution::MicroSecond => 1_000_000,
        TsResolution::NanoSecond => 1_000,
    };

    let mut pkts: Vec<TracePkt> = Vec::new();
    // Trace gaps in ps; absolute stamps (epoch-based) would overflow u64 ps.
    let mut gaps: Vec<f64> = Vec::new();
    let mut prev_stamp: Option<u128> = None;
    let mut flows: Vec<FlowRec> = Vec::new();
    let mut ids: HashMap<u64, u32> = HashMap::new();
    while pkts.len() < MAX_TRACE_PACKETS {
        let i = pkts.len();
        let raw = match reader.next_raw_packet() {
            None => break,
            Some(Ok(raw)) => raw,
            Some(Err(e)) => return Err(err(format!("packet {i}: {}", describe(&e)))),
        };
        // Validate by hand: pcap-file's own check rejects orig_len > snaplen,
        // which every truncated capture has.
        if raw.ts_frac as u64 * frac_ps >= 1_000_000_000_000 {
            return Err(err(format!(
                "packet {i}: timestamp fraction {} out of range",
                raw.ts_frac
            )));
        }
        if raw.incl_len > raw.orig_len {
            return Err(err(format!(
                "packet {i}: captured length {} > original length {}",
                raw.incl_len, raw.orig_len
            )));
        }
        let size =
            (raw.orig_len as i64 + size_adjust).clamp(MIN_FRAME as i64, MAX_FRAME as i64) as u32;
        let c = classify(&raw.data, linktype, t);
        let flow = *ids.entry(c.key).or_insert_with(|| {
            flows.push(FlowRec {
                rss_hash: c.rss_hash,
                dst_ip: c.dst_ip,
            });
            (flows.len() - 1) as u32
        });
        let stamp = raw.ts_sec as u128 * 1_000_000_000_000 + (raw.ts_frac as u64 * frac_ps) as u128;
        if let Some(prev) = prev_stamp {
            // Out-of-order stamps (merged captures) count as back to back.
            gaps.push(stamp.saturating_sub(prev) as f64);
        }
        prev_stamp = Some(stamp);
        pkts.push(TracePkt { gap: 0, size, flow });
    }
    if pkts.is_empty() {
        return Err(err("contains no packets".into()));
    }
    pace(&mut pkts, gaps, rate, line);
    Ok((Trace { pkts, pos: 0 }, flows))
}

fn describe(e: &PcapError) -> String {
    match e {
        PcapError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "truncated (file ends inside a record)".into()
        }
        PcapError::IoError(io) => format!("read error: {io}"),
        other => other.to_string(),
    }
}

/// Set each packet's gap: the trace's gaps (`orig[k]` from packet k to
/// k + 1, ps) times one factor `s`, each at least the frame's line-rate wire
/// time, totalling the loop duration that makes the average wire rate
/// `rate` Mbps.
fn pace(pkts: &mut [TracePkt], mut orig: Vec<f64>, rate: u64, line: u64) {
    let n = pkts.len();
    debug_assert_eq!(orig.len() + 1, n);
    let wrap = if n > 1 {
        orig.iter().sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    orig.push(wrap);
    let bits: u128 = pkts
        .iter()
        .map(|p| wire_bytes(p.size) as u128 * 8_000_000)
        .sum();
    let target = ((bits + rate as u128 / 2) / rate as u128) as u64;
    let min_gap: Vec<Time> = pkts.iter().map(|p| frame_time(p.size, line)).collect();
    let total = |s: f64| -> f64 {
        orig.iter()
            .zip(&min_gap)
            .map(|(g, w)| (s * g).max(*w as f64))
            .sum()
    };

    // total(s) is non-decreasing in s; find s with total(s) == target.
    let mut s = 0.0;
    let orig_sum: f64 = orig.iter().sum();
    if orig_sum > 0.0 && total(0.0) < target as f64 {
        let mut hi = target as f64 / orig_sum;
        while total(hi) < target as f64 {
            hi *= 2.0;
        }
        let mut lo = 0.0;
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if total(mid) < target as f64 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        s = lo;
    }
    // Round to whole ps carrying the remainder; never below the wire time.
    let mut carry = 0.0;
    let mut sum: u64 = 0;
    for ((p, g), w) in pkts.iter_mut().zip(&orig).zip(&min_gap) {
        let x = (s * g).max(*w as f64) + carry;
        let gi = (x.round() as u64).max(*w);
        carry = x - gi as f64;
        p.gap = gi;
        sum += gi;
    }
    // Residual rounding (a few ps per loop) goes to the wrap-around gap.
    if target > sum {
        pkts[n - 1].gap += target - sum;
    }
}

struct Classified {
    key: u64,
    rss_hash: u32,
    dst_ip: u32,
}

/// FNV-1a: a flow key from identity bytes, domain-separated by `tag`.
fn fnv(tag: u8, parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in std::iter::once(&tag).chain(parts.iter().flat_map(|p| p.iter())) {
        h = (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Flow identity and RSS hash from the captured bytes.
fn classify(d: &[u8], linktype: u32, t: &Toeplitz) -> Classified {
    let be16 = |o: usize| u16::from_be_bytes([d[o], d[o + 1]]);
    let (mut ethertype, mut off) = match linktype {
        LINKTYPE_ETHERNET if d.len() >= 14 => (be16(12), 14),
        LINKTYPE_LINUX_SLL if d.len() >= 16 => (be16(14), 16),
        LINKTYPE_RAW | LINKTYPE_IPV4 | LINKTYPE_IPV6 if !d.is_empty() => match d[0] >> 4 {
            4 => (0x0800, 0),
            6 => (0x86DD, 0),
            _ => (0, 0),
        },
        _ => (0, d.len()),
    };
    // 802.1Q / 802.1ad tags.
    while (ethertype == 0x8100 || ethertype == 0x88A8) && d.len() >= off + 4 {
        ethertype = be16(off + 2);
        off += 4;
    }
    if ethertype == 0x0800 && d.len() >= off + 20 && d[off] >> 4 == 4 {
        let ihl = ((d[off] & 0x0F) as usize * 4).max(20);
        let proto = d[off + 9];
        let fragment = be16(off + 6) & 0x3FFF != 0; // MF flag or an offset
        let l4 =
            (proto == PROTO_TCP || proto == PROTO_UDP) && !fragment && d.len() >= off + ihl + 4;
        let mut input = [0u8; 12];
        input[..8].copy_from_slice(&d[off + 12..off + 20]);
        if l4 {
            input[8..].copy_from_slice(&d[off + ihl..off + ihl + 4]);
        }
        let used = if l4 { 12 } else { 8 };
        return Classified {
            key: fnv(4, &[&input[..used], &[proto]]),
            rss_hash: t.hash(&input[..used]),
            dst_ip: u32::from_be_bytes([d[off + 16], d[off + 17], d[off + 18], d[off + 19]]),
        };
    }
    if ethertype == 0x86DD && d.len() >= off + 40 && d[off] >> 4 == 6 {
        let nh = d[off + 6];
        let l4 = (nh == PROTO_TCP || nh == PROTO_UDP) && d.len() >= off + 44;
        let mut input = [0u8; 36];
        input[..32].copy_from_slice(&d[off + 8..off + 40]);
        if l4 {
            input[32..].copy_from_slice(&d[off + 40..off + 44]);
        }
        let used = if l4 { 36 } else { 32 };
        return Classified {
            key: fnv(6, &[&input[..used], &[nh]]),
            rss_hash: t.hash(&input[..used]),
            dst_ip: u32::from_be_bytes([d[off + 36], d[off + 37], d[off + 38], d[off + 39]]),
        };
    }
    Classified {
        key: fnv(0, &[&d[..off.min(d.len())]]),
        rss_hash: 0,
        dst_ip: 0,
    }
}

#[cfg(test)]
pub(super) fn classify_for_test(d: &[u8], linktype: u32) -> (u32, u32) {
    let c = classify(d, linktype, &Toeplitz::default());
    (c.rss_hash, c.dst_ip)
}
