use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness};
use proptest::prelude::*;

use super::*;
use crate::units::NS;
use crate::wire::{frame_time, FiveTuple, PROTO_TCP};

fn spec(size: SizeDist, arrival: Arrival) -> TrafficSpec {
    TrafficSpec {
        rate_mbps: 30_000,
        line_rate_mbps: 100_000,
        size,
        arrival,
        flows: 1000,
        popularity: Popularity::Uniform,
        seed: 42,
        port: 0,
    }
}

fn take(src: &mut Source, n: usize) -> Vec<Packet> {
    (0..n).map(|_| src.next()).collect()
}

/// Offered wire rate in Mbps over `pkts`: wire bits of all but the last
/// frame over the first-bit-to-first-bit span.
fn wire_mbps(pkts: &[Packet]) -> f64 {
    let n = pkts.len() - 1;
    let bits: u64 = pkts[..n].iter().map(|p| wire_bytes(p.size) * 8).sum();
    bits as f64 / (pkts[n].arrival - pkts[0].arrival) as f64 * 1e6
}

// ---------------------------------------------------------------- sample pcap

/// The sample trace's 5 flows: TCP, UDP, TCP, ICMP (L3-only RSS), UDP in a VLAN.
fn sample_flows() -> [(FiveTuple, bool); 5] {
    let ip = |a, b, c, d| u32::from_be_bytes([a, b, c, d]);
    [
        (
            FiveTuple {
                src_ip: ip(66, 9, 149, 187),
                dst_ip: ip(161, 142, 100, 80),
                src_port: 2794,
                dst_port: 1766,
                proto: 6,
            },
            false,
        ),
        (
            FiveTuple {
                src_ip: ip(10, 1, 0, 1),
                dst_ip: ip(10, 2, 0, 1),
                src_port: 5000,
                dst_port: 4791,
                proto: 17,
            },
            false,
        ),
        (
            FiveTuple {
                src_ip: ip(10, 1, 0, 2),
                dst_ip: ip(10, 2, 0, 1),
                src_port: 40000,
                dst_port: 443,
                proto: 6,
            },
            false,
        ),
        (
            FiveTuple {
                src_ip: ip(10, 1, 0, 3),
                dst_ip: ip(10, 2, 0, 9),
                src_port: 0,
                dst_port: 0,
                proto: 1,
            },
            false,
        ),
        (
            FiveTuple {
                src_ip: ip(10, 1, 0, 4),
                dst_ip: ip(10, 2, 0, 7),
                src_port: 53,
                dst_port: 53000,
                proto: 17,
            },
            true,
        ),
    ]
}

/// Frame size (FCS included) of sample packet k: 64..=1518.
fn sample_size(k: u32) -> u32 {
    64 + (k * 97) % 1455
}

/// Sample packet k's capture time, µs: 5 bursts of 10 packets 1 µs apart,
/// bursts starting 100 µs apart.
fn sample_time_us(k: u32) -> u64 {
    (k / 10) as u64 * 100 + (k % 10) as u64
}

/// The 50-packet sample pcap: Ethernet, µs stamps, snaplen 64 so only the
/// headers are captured (orig_len carries the real length, without FCS).
fn sample_trace() -> Vec<u8> {
    let header = PcapHeader {
        snaplen: 64,
        endianness: Endianness::Little,
        ..PcapHeader::default()
    };
    let mut w = PcapWriter::with_header(Vec::new(), header).unwrap();
    for k in 0..50u32 {
        let (t, vlan) = sample_flows()[(k % 5) as usize];
        let size = sample_size(k);
        let mut d = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2];
        if vlan {
            d.extend_from_slice(&[0x81, 0x00, 0x00, 0x64]);
        }
        d.extend_from_slice(&[0x08, 0x00]);
        let ip_len = (size - 18 - if vlan { 4 } else { 0 }) as u16;
        d.extend_from_slice(&[0x45, 0]);
        d.extend_from_slice(&ip_len.to_be_bytes());
        d.extend_from_slice(&[0, k as u8, 0x40, 0, 64, t.proto, 0, 0]);
        d.extend_from_slice(&t.src_ip.to_be_bytes());
        d.extend_from_slice(&t.dst_ip.to_be_bytes());
        if t.has_ports() {
            d.extend_from_slice(&t.src_port.to_be_bytes());
            d.extend_from_slice(&t.dst_port.to_be_bytes());
        } else {
            d.extend_from_slice(&[8, 0, 0, 0]); // ICMP echo request
        }
        let ts = Duration::from_secs(1_700_000_000) + Duration::from_micros(sample_time_us(k));
        w.write_packet(&PcapPacket::new(ts, size - 4, &d)).unwrap();
    }
    w.into_writer()
}

fn sample_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traffic/sample50.pcap")
}

#[test]
fn committed_sample_pcap_matches_its_generator() {
    let bytes = sample_trace();
    if std::env::var_os("PACKETPATH_REGEN_TEST_DATA").is_some() {
        std::fs::write(sample_path(), &bytes).unwrap();
    }
    let on_disk = std::fs::read(sample_path()).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; regenerate with PACKETPATH_REGEN_TEST_DATA=1",
            sample_path().display()
        )
    });
    assert_eq!(
        on_disk, bytes,
        "sample50.pcap differs from sample_trace(); regenerate with PACKETPATH_REGEN_TEST_DATA=1"
    );
}

fn load_mem(bytes: &[u8]) -> Result<(pcap::Trace, Vec<FlowRec>), String> {
    pcap::load_from(
        Cursor::new(bytes),
        "mem",
        10_000,
        100_000,
        &Toeplitz::default(),
    )
}

#[test]
fn pcap_round_trip() {
    let rate = 1_000;
    let mut src = Source::new(&TrafficSpec {
        rate_mbps: rate,
        ..spec(SizeDist::Pcap(sample_path()), Arrival::Poisson)
    })
    .unwrap();
    assert_eq!(src.flow_count(), 5);
    let t = Toeplitz::default();
    let pkts = take(&mut src, 50 * 200 + 1);
    for (k, p) in pkts.iter().enumerate() {
        let k = (k % 50) as u32;
        let (tuple, _) = sample_flows()[(k % 5) as usize];
        assert_eq!(p.size, sample_size(k), "packet {k}");
        assert_eq!(p.flow, k % 5, "flows are numbered by first appearance");
        assert_eq!(p.rss_hash, tuple.rss_hash(&t), "packet {k}");
        assert_eq!(p.dst_ip, tuple.dst_ip);
    }
    // Flow 0 is the Microsoft test vector; flow 3 (ICMP) hashes L3 only.
    assert_eq!(pkts[0].rss_hash, 0x51ccc178);
    assert_eq!(
        pkts[3].rss_hash,
        t.hash_ipv4(sample_flows()[3].0.src_ip, sample_flows()[3].0.dst_ip)
    );
    // Whole loops: the rate is exact up to a picosecond per loop.
    let r = wire_mbps(&pkts);
    assert!((r / rate as f64 - 1.0).abs() < 1e-6, "rate {r}");
    // Relative timing kept: 91 µs between bursts vs 1 µs inside one.
    let g = |k: usize| (pkts[k + 1].arrival - pkts[k].arrival) as f64;
    assert!((g(9) / g(0) - 91.0).abs() < 0.01, "{}", g(9) / g(0));
    assert!((g(3) / g(0) - 1.0).abs() < 1e-4);
    // Wrap-around gap is the mean trace gap: 4 * 91 + 45 * 1 µs over 49 gaps.
    assert!((g(49) / g(0) - (4.0 * 91.0 + 45.0) / 49.0).abs() < 0.01);
}

#[test]
fn pcap_near_line_rate_stretches_gaps_to_wire_time() {
    let mut src = Source::new(&TrafficSpec {
        rate_mbps: 95_000,
        ..spec(SizeDist::Pcap(sample_path()), Arrival::Constant)
    })
    .unwrap();
    let pkts = take(&mut src, 5001);
    for w in pkts.windows(2) {
        assert!(w[1].arrival - w[0].arrival >= frame_time(w[0].size, 100_000));
    }
    let r = wire_mbps(&pkts);
    assert!((r / 95_000.0 - 1.0).abs() < 1e-5, "rate {r}");
    // At 100 % the trace is replayed back to back.
    let mut src = Source::new(&TrafficSpec {
        rate_mbps: 100_000,
        ..spec(SizeDist::Pcap(sample_path()), Arrival::Constant)
    })
    .unwrap();
    let pkts = take(&mut src, 5001);
    for w in pkts.windows(2).take(49) {
        assert_eq!(w[1].arrival - w[0].arrival, frame_time(w[0].size, 100_000));
    }
}

#[test]
fn pcap_other_link_types_and_fcs() {
    // Raw IPv4 and a capture that includes the FCS, two packets each.
    for (linktype, orig, expect) in [
        (101u32, 46u32, 64u32),
        (101, 1500, 1518),
        (1 | 0x2400_0000, 1518, 1518),
        (1 | 0x2400_0000, 64, 64),
    ] {
        let header = PcapHeader {
            datalink: DataLink::from(linktype),
            snaplen: 65535,
            ..PcapHeader::default()
        };
        let mut w = PcapWriter::with_header(Vec::new(), header).unwrap();
        let mut d = vec![];
        if linktype & 0xFFFF == 1 {
            d.extend_from_slice(&[0; 12]);
            d.extend_from_slice(&[0x08, 0x00]);
        }
        d.extend_from_slice(&[
            0x45, 0, 0, 0, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, 0, 1, 0, 2,
        ]);
        for i in 0..2 {
            w.write_packet(&PcapPacket::new(Duration::from_micros(i), orig, &d))
                .unwrap();
        }
        let (mut trace, flows) = load_mem(&w.into_writer()).unwrap();
        assert_eq!(
            trace.current().0,
            expect,
            "linktype {linktype:#x} orig {orig}"
        );
        assert_eq!(flows.len(), 1);
        assert_eq!(
            flows[0].rss_hash,
            Toeplitz::default().hash_ipv4_l4(0x0a000001, 0x0a000002, 1, 2)
        );
        trace.gap();
    }
}

#[test]
fn malformed_pcaps_are_errors() {
    let good = sample_trace();
    let raw_header = |datalink: u32| {
        let mut v = Vec::new();
        PcapHeader {
            datalink: DataLink::from(datalink),
            ..PcapHeader::default()
        }
        .write_to(&mut v)
        .unwrap();
        v
    };
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![], "only 0 bytes"),
        (b"this is not a capture file at all".to_vec(), "wrong magic"),
        (vec![0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0], "pcapng"),
        (good[..20].to_vec(), "truncated"),
        (good[..24].to_vec(), "no packets"),
        (good[..good.len() - 10].to_vec(), "packet 49: truncated"),
        (good[..24 + 8].to_vec(), "packet 0: truncated"),
        (raw_header(105), "link type 105"),
    ];
    for (bytes, want) in cases {
        let e = load_mem(&bytes)
            .err()
            .unwrap_or_else(|| panic!("accepted, expected '{want}'"));
        assert!(
            e.contains(want) && e.starts_with("traffic.size pcap 'mem'"),
            "'{e}' lacks '{want}'"
        );
        assert!(!e.contains('\n'));
    }
    // Packet-record field checks (big-endian header, as PcapHeader::default()).
    for (incl, orig, frac, want) in [
        (
            80u32,
            60u32,
            0u32,
            "captured length 80 > original length 60",
        ),
        (20, 60, 1_000_000, "timestamp fraction"),
    ] {
        let mut v = raw_header(1);
        for x in [1u32, frac, incl, orig] {
            v.extend_from_slice(&x.to_be_bytes());
        }
        v.extend(std::iter::repeat_n(0u8, incl as usize));
        let e = load_mem(&v).err().unwrap();
        assert!(e.contains(want), "{e}");
    }
    let e = Source::new(&spec(
        SizeDist::Pcap("/nonexistent/x.pcap".into()),
        Arrival::Constant,
    ))
    .err()
    .unwrap();
    assert!(
        e.contains("/nonexistent/x.pcap") && e.contains("cannot open"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Corrupted or cut captures give Ok or Err, never a panic.
    #[test]
    fn corrupted_pcap_never_panics(cut in 0usize..3000, flips in proptest::collection::vec((0usize..3000, any::<u8>()), 0..8)) {
        let mut bytes = sample_trace();
        for (i, b) in flips {
            let n = bytes.len();
            bytes[i % n] ^= b;
        }
        bytes.truncate(cut);
        // either a trace, or one line naming the file and what is wrong with it
        if let Err(e) = load_mem(&bytes) {
            prop_assert!(e.starts_with("traffic.size pcap 'mem': ") && e.len() > 25 && !e.contains('\n'), "{}", e);
        }
    }
}

// ------------------------------------------------------------ synthetic sources

#[test]
fn offered_rate_within_half_percent_for_every_size_and_arrival() {
    let sizes = [
        SizeDist::Fixed(64),
        SizeDist::Fixed(1518),
        SizeDist::Fixed(9216),
        SizeDist::Imix,
        SizeDist::Bimodal {
            small: 64,
            large: 1518,
            small_share: 0.6,
        },
        SizeDist::Empirical {
            sizes: vec![64, 256, 1024, 9000],
            weights: vec![1.0, 2.0, 3.0, 0.5],
        },
        SizeDist::Pcap(sample_path()),
    ];
    for size in sizes {
        for arrival in [
            Arrival::Constant,
            Arrival::Poisson,
            Arrival::Bursty { burst_len: 32 },
        ] {
            for rate in [30_000, 97_000] {
                let mut src = Source::new(&TrafficSpec {
                    rate_mbps: rate,
                    ..spec(size.clone(), arrival)
                })
                .unwrap();
                let r = wire_mbps(&take(&mut src, 1_000_001));
                assert!(
                    (r / rate as f64 - 1.0).abs() < 0.005,
                    "{size:?} {arrival:?} at {rate}: {r:.1} Mbps"
                );
            }
        }
    }
}

#[test]
fn constant_rate_is_exact_and_evenly_spaced() {
    // 64 B at 10 % of 100G: every 67.2 ns.
    let mut src = Source::new(&TrafficSpec {
        rate_mbps: 10_000,
        ..spec(SizeDist::Fixed(64), Arrival::Constant)
    })
    .unwrap();
    let p = take(&mut src, 1000);
    assert!(p.windows(2).all(|w| w[1].arrival - w[0].arrival == 67_200));
    // 100 % load of 64 B frames is 148.81 Mpps: 6.72 ns apart.
    let mut src = Source::new(&TrafficSpec {
        rate_mbps: 100_000,
        ..spec(SizeDist::Fixed(64), Arrival::Constant)
    })
    .unwrap();
    let p = take(&mut src, 1001);
    assert_eq!(p[1000].arrival, 1000 * 6_720);
    // A rate that does not divide evenly still averages exactly (carry).
    let mut src = Source::new(&TrafficSpec {
        rate_mbps: 33_333,
        ..spec(SizeDist::Fixed(64), Arrival::Constant)
    })
    .unwrap();
    let p = take(&mut src, 33_334);
    let exact = 33_333.0 * 84.0 * 8.0 * 1e6 / 33_333.0;
    assert!((p[33_333].arrival as f64 - exact).abs() <= 1.0);
}

#[test]
fn poisson_interarrivals_are_exponential_at_low_load() {
    // 1 Gbps of 64 B on a 100G port: mean 672 ns, CV = 1 - 0.01.
    let mut src = Source::new(&TrafficSpec {
        rate_mbps: 1_000,
        ..spec(SizeDist::Fixed(64), Arrival::Poisson)
    })
    .unwrap();
    let p = take(&mut src, 500_001);
    let gaps: Vec<f64> = p
        .windows(2)
        .map(|w| (w[1].arrival - w[0].arrival) as f64)
        .collect();
    let n = gaps.len() as f64;
    let mean = gaps.iter().sum::<f64>() / n;
    let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n).sqrt();
    assert!(
        (mean / (672.0 * NS as f64) - 1.0).abs() < 0.005,
        "mean {mean}"
    );
    assert!((sd / mean - 0.99).abs() < 0.02, "cv {}", sd / mean);
    // Memoryless tail: P(gap > mean + x) = exp(-x / idle_mean).
    let idle = 672_000.0 - 6_720.0;
    let tail = gaps.iter().filter(|g| **g > 6_720.0 + 2.0 * idle).count() as f64 / n;
    assert!((tail / (-2.0f64).exp() - 1.0).abs() < 0.03, "tail {tail}");
}

#[test]
fn bursty_frames_are_back_to_back_inside_a_burst() {
    let mut src = Source::new(&TrafficSpec {
        rate_mbps: 10_000,
        ..spec(SizeDist::Fixed(64), Arrival::Bursty { burst_len: 16 })
    })
    .unwrap();
    let p = take(&mut src, 16 * 100 + 1);
    for (k, w) in p.windows(2).enumerate() {
        let gap = w[1].arrival - w[0].arrival;
        if k % 16 == 15 {
            // The whole burst's idle time: 16 x (67.2 - 6.72) ns.
            assert_eq!(gap, 6_720 + 16 * (67_200 - 6_720), "gap {k}");
        } else {
            assert_eq!(gap, 6_720, "gap {k}");
        }
    }
    // Mixed sizes: inside a burst each gap is the frame's own wire time.
    let mut src = Source::new(&TrafficSpec {
        rate_mbps: 20_000,
        ..spec(SizeDist::Imix, Arrival::Bursty { burst_len: 8 })
    })
    .unwrap();
    let p = take(&mut src, 8001);
    for (k, w) in p.windows(2).enumerate().filter(|(k, _)| k % 8 != 7) {
        assert_eq!(
            w[1].arrival - w[0].arrival,
            frame_time(w[0].size, 100_000),
            "gap {k}"
        );
    }
}

#[test]
fn imix_mean_matches_analytic_value() {
    assert!((imix_mean_size() - 361.833).abs() < 0.001);
    let mut src = Source::new(&spec(SizeDist::Imix, Arrival::Constant)).unwrap();
    let n = 1_000_000;
    let mean = take(&mut src, n).iter().map(|p| p.size as f64).sum::<f64>() / n as f64;
    assert!((mean / imix_mean_size() - 1.0).abs() < 0.01, "mean {mean}");
}

#[test]
fn empirical_and_bimodal_frequencies() {
    let sizes = vec![64, 256, 1024, 1500];
    let weights = vec![0.5, 0.3, 0.15, 0.05];
    let mut src = Source::new(&spec(
        SizeDist::Empirical {
            sizes: sizes.clone(),
            weights: weights.clone(),
        },
        Arrival::Poisson,
    ))
    .unwrap();
    let n = 400_000;
    let p = take(&mut src, n);
    for (s, w) in sizes.iter().zip(&weights) {
        let f = p.iter().filter(|x| x.size == *s).count() as f64 / n as f64;
        assert!((f - w).abs() < 0.005, "size {s}: {f} vs {w}");
    }
    let mut src = Source::new(&spec(
        SizeDist::Bimodal {
            small: 64,
            large: 1518,
            small_share: 0.8,
        },
        Arrival::Constant,
    ))
    .unwrap();
    let p = take(&mut src, n);
    let f = p.iter().filter(|x| x.size == 64).count() as f64 / n as f64;
    assert!(
        (f - 0.8).abs() < 0.005 && p.iter().all(|x| x.size == 64 || x.size == 1518),
        "{f}"
    );
}

#[test]
fn zipf_popularity() {
    for s in [0.8, 1.0, 1.5] {
        let mut src = Source::new(&TrafficSpec {
            popularity: Popularity::Zipf(s),
            ..spec(SizeDist::Fixed(64), Arrival::Constant)
        })
        .unwrap();
        let mut count = vec![0u32; 1000];
        for p in take(&mut src, 1_000_000) {
            count[p.flow as usize] += 1;
        }
        let max = count.iter().enumerate().max_by_key(|(_, c)| **c).unwrap().0;
        assert_eq!(max, 0, "flow 0 is the most popular");
        let ratio = count[0] as f64 / count[1] as f64;
        assert!(
            (ratio / 2f64.powf(s) - 1.0).abs() < 0.03,
            "s {s}: f(1)/f(2) = {ratio}"
        );
        let ratio13 = count[0] as f64 / count[2] as f64;
        assert!(
            (ratio13 / 3f64.powf(s) - 1.0).abs() < 0.04,
            "s {s}: f(1)/f(3) = {ratio13}"
        );
    }
}

#[test]
fn zipf_tail_beyond_the_alias_table_follows_the_power_law() {
    let n = 100_000u32;
    for s in [0.7, 1.0, 1.0 + 1e-12, 1.3] {
        let z = ZipfPick::new(n, s).unwrap();
        let mut rng = rng_stream(1, 0, 0);
        let bins = [
            0u32,
            ZIPF_HEAD / 2,
            ZIPF_HEAD,
            2 * ZIPF_HEAD,
            5 * ZIPF_HEAD,
            n,
        ];
        let exact: Vec<f64> = {
            let w: Vec<f64> = (1..=n).map(|k| (k as f64).powf(-s)).collect();
            let total: f64 = w.iter().sum();
            bins.windows(2)
                .map(|b| w[b[0] as usize..b[1] as usize].iter().sum::<f64>() / total)
                .collect()
        };
        let samples = 2_000_000;
        let mut got = vec![0u32; exact.len()];
        for _ in 0..samples {
            let f = z.sample(&mut rng);
            assert!(f < n);
            got[bins.windows(2).position(|b| f >= b[0] && f < b[1]).unwrap()] += 1;
        }
        for (g, e) in got.iter().zip(&exact) {
            // 4 sigma of the binomial count plus 0.5 % systematic.
            let expect = e * samples as f64;
            assert!(
                (*g as f64 - expect).abs() < 4.0 * expect.sqrt() + 0.005 * expect,
                "s {s}: {g} vs exact {expect:.0}"
            );
        }
    }
}

#[test]
fn uniform_flows_and_their_hashes() {
    let sp = TrafficSpec {
        flows: 100,
        port: 3,
        ..spec(SizeDist::Fixed(64), Arrival::Constant)
    };
    let mut src = Source::new(&sp).unwrap();
    let t = Toeplitz::default();
    let mut count = vec![0u32; 100];
    for p in take(&mut src, 1_000_000) {
        count[p.flow as usize] += 1;
        let tuple = synthetic_tuple(p.flow, 3);
        assert_eq!((p.rss_hash, p.dst_ip), (tuple.rss_hash(&t), tuple.dst_ip));
    }
    assert!(
        count
            .iter()
            .all(|c| (*c as f64 / 10_000.0 - 1.0).abs() < 0.05),
        "{count:?}"
    );
    // Distinct flows, distinct tuples; RSS spreads them over queues.
    let tuples: std::collections::HashSet<_> =
        (0..100_000).map(|i| synthetic_tuple(i, 3)).collect();
    assert_eq!(tuples.len(), 100_000);
    let mut per_queue = [0u32; 8];
    for i in 0..100_000 {
        per_queue[crate::wire::rss_queue(synthetic_tuple(i, 3).rss_hash(&t), 128, 8)] += 1;
    }
    assert!(
        per_queue
            .iter()
            .all(|q| (*q as f64 / 12_500.0 - 1.0).abs() < 0.05),
        "{per_queue:?}"
    );
}

#[test]
fn ten_million_flows() {
    let sp = TrafficSpec {
        flows: 10_000_000,
        popularity: Popularity::Zipf(0.9),
        ..spec(SizeDist::Imix, Arrival::Poisson)
    };
    let mut src = Source::new(&sp).unwrap();
    assert_eq!(src.flow_count(), 10_000_000);
    let t = Toeplitz::default();
    let mut max_flow = 0;
    for p in take(&mut src, 100_000) {
        assert_eq!(p.rss_hash, synthetic_tuple(p.flow, 0).rss_hash(&t));
        max_flow = max_flow.max(p.flow);
    }
    assert!(max_flow > 1_000_000 && max_flow < 10_000_000);
}

#[test]
fn deterministic_and_seed_sensitive() {
    let sp = TrafficSpec {
        popularity: Popularity::Zipf(1.1),
        ..spec(SizeDist::Imix, Arrival::Poisson)
    };
    let a = take(&mut Source::new(&sp).unwrap(), 100_000);
    let b = take(&mut Source::new(&sp).unwrap(), 100_000);
    assert_eq!(a, b);
    let c = take(
        &mut Source::new(&TrafficSpec {
            seed: 43,
            ..sp.clone()
        })
        .unwrap(),
        100_000,
    );
    assert_ne!(a, c);
    let d = take(
        &mut Source::new(&TrafficSpec {
            port: 1,
            ..sp.clone()
        })
        .unwrap(),
        100_000,
    );
    assert_ne!(
        a.iter().map(|p| p.flow).collect::<Vec<_>>(),
        d.iter().map(|p| p.flow).collect::<Vec<_>>()
    );
    // Independent streams: another size mix leaves the flow sequence alone.
    let e = take(
        &mut Source::new(&TrafficSpec {
            size: SizeDist::Fixed(128),
            ..sp.clone()
        })
        .unwrap(),
        100_000,
    );
    assert!(a.iter().zip(&e).all(|(x, y)| x.flow == y.flow));
    // peek_time announces the next arrival.
    let mut src = Source::new(&sp).unwrap();
    for _ in 0..1000 {
        let t = src.peek_time();
        assert_eq!(src.next().arrival, t);
    }
    assert_eq!(a[0].arrival, 0);
}

#[test]
fn validation_errors_name_field_value_and_range() {
    let ok = spec(SizeDist::Fixed(64), Arrival::Constant);
    let cases: Vec<(TrafficSpec, &str)> = vec![
        (
            TrafficSpec {
                rate_mbps: 0,
                ..ok.clone()
            },
            "traffic.rate_mbps = 0: offered wire rate must be 1..=100000",
        ),
        (
            TrafficSpec {
                rate_mbps: 100_001,
                ..ok.clone()
            },
            "traffic.rate_mbps = 100001",
        ),
        (
            TrafficSpec {
                line_rate_mbps: 0,
                ..ok.clone()
            },
            "traffic.line_rate_mbps = 0",
        ),
        (
            TrafficSpec {
                size: SizeDist::Fixed(63),
                ..ok.clone()
            },
            "traffic.size = 63 B: frame sizes (FCS included) must be 64..=9216",
        ),
        (
            TrafficSpec {
                size: SizeDist::Fixed(9217),
                ..ok.clone()
            },
            "traffic.size = 9217",
        ),
        (
            TrafficSpec {
                size: SizeDist::Empirical {
                    sizes: vec![],
                    weights: vec![],
                },
                ..ok.clone()
            },
            "0 sizes and 0 weights",
        ),
        (
            TrafficSpec {
                size: SizeDist::Empirical {
                    sizes: vec![64],
                    weights: vec![1.0, 2.0],
                },
                ..ok.clone()
            },
            "1 sizes and 2 weights",
        ),
        (
            TrafficSpec {
                size: SizeDist::Empirical {
                    sizes: vec![64, 32],
                    weights: vec![1.0, 2.0],
                },
                ..ok.clone()
            },
            "traffic.size.sizes[] = 32",
        ),
        (
            TrafficSpec {
                size: SizeDist::Empirical {
                    sizes: vec![64],
                    weights: vec![-1.0],
                },
                ..ok.clone()
            },
            "weights[] = -1",
        ),
        (
            TrafficSpec {
                size: SizeDist::Empirical {
                    sizes: vec![64],
                    weights: vec![f64::NAN],
                },
                ..ok.clone()
            },
            "weights[] = NaN",
        ),
        (
            TrafficSpec {
                size: SizeDist::Empirical {
                    sizes: vec![64, 128],
                    weights: vec![0.0, 0.0],
                },
                ..ok.clone()
            },
            "all weights are 0",
        ),
        (
            TrafficSpec {
                size: SizeDist::Bimodal {
                    small: 64,
                    large: 1518,
                    small_share: 1.5,
                },
                ..ok.clone()
            },
            "small_share = 1.5",
        ),
        (
            TrafficSpec {
                size: SizeDist::Bimodal {
                    small: 10,
                    large: 1518,
                    small_share: 0.5,
                },
                ..ok.clone()
            },
            "traffic.size.small = 10",
        ),
        (
            TrafficSpec {
                arrival: Arrival::Bursty { burst_len: 0 },
                ..ok.clone()
            },
            "burst_len = 0",
        ),
        (
            TrafficSpec {
                flows: 0,
                ..ok.clone()
            },
            "traffic.flows = 0: must be 1..=16777216",
        ),
        (
            TrafficSpec {
                flows: MAX_FLOWS + 1,
                ..ok.clone()
            },
            "traffic.flows = 16777217",
        ),
        (
            TrafficSpec {
                popularity: Popularity::Zipf(0.0),
                ..ok.clone()
            },
            "zipf exponent = 0: must be finite and > 0",
        ),
        (
            TrafficSpec {
                popularity: Popularity::Zipf(-1.0),
                ..ok.clone()
            },
            "zipf exponent = -1",
        ),
        (
            TrafficSpec {
                popularity: Popularity::Zipf(f64::INFINITY),
                ..ok.clone()
            },
            "zipf exponent = inf",
        ),
    ];
    for (sp, want) in cases {
        let e = Source::new(&sp)
            .err()
            .unwrap_or_else(|| panic!("accepted {sp:?}"));
        assert!(e.contains(want), "'{e}' lacks '{want}'");
        assert!(!e.contains('\n'));
    }
    assert!(Source::new(&TrafficSpec {
        rate_mbps: 100_000,
        flows: MAX_FLOWS,
        ..ok
    })
    .is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Arrivals never go back in time and frames never overlap on the wire,
    /// for any load, line rate, size mix and arrival process.
    #[test]
    fn arrivals_ordered_and_non_overlapping(
        line in prop::sample::select(vec![1_000u64, 10_000, 25_000, 100_000, 400_000, 800_000]),
        load in 0.0001f64..=1.0,
        small in 64u32..=9216,
        large in 64u32..=9216,
        share in 0.0f64..=1.0,
        arrival in prop_oneof![Just(Arrival::Constant), Just(Arrival::Poisson), (1u32..64).prop_map(|b| Arrival::Bursty { burst_len: b })],
        seed in any::<u64>(),
    ) {
        let rate = ((line as f64 * load) as u64).max(1);
        let sp = TrafficSpec {
            rate_mbps: rate,
            line_rate_mbps: line,
            size: SizeDist::Bimodal { small, large, small_share: share },
            arrival,
            flows: 64,
            popularity: Popularity::Uniform,
            seed,
            port: 7,
        };
        let mut src = Source::new(&sp).unwrap();
        let mut prev = src.next();
        for _ in 0..3000 {
            let p = src.next();
            prop_assert!(p.arrival >= prev.arrival + frame_time(prev.size, line));
            prev = p;
        }
    }
}

#[test]
fn trace_from_pcap_writer_with_tcp_tuple() {
    // A direct check of classify(): TCP over 802.1Q over Ethernet.
    let mut d = vec![0u8; 12];
    d.extend_from_slice(&[
        0x81, 0x00, 0, 5, 0x08, 0x00, 0x45, 0, 0, 40, 0, 0, 0, 0, 64, PROTO_TCP, 0, 0, 1, 2, 3, 4,
        5, 6, 7, 8, 0, 80, 1, 0,
    ]);
    let c = pcap::classify_for_test(&d, 1);
    assert_eq!(
        c,
        (
            Toeplitz::default().hash_ipv4_l4(0x01020304, 0x05060708, 80, 256),
            0x05060708
        )
    );
    // Fragments hash on addresses only.
    d[18 + 6] = 0x20; // MF flag
    assert_eq!(
        pcap::classify_for_test(&d, 1).0,
        Toeplitz::default().hash_ipv4(0x01020304, 0x05060708)
    );
    // ARP: no RSS hash.
    let arp = [[0u8; 12].as_slice(), &[0x08, 0x06], &[0; 28]].concat();
    assert_eq!(pcap::classify_for_test(&arp, 1), (0, 0));
}

#[test]
fn phases_change_rate_and_target_share_at_their_times() {
    let mut src = Source::new(&spec(SizeDist::Fixed(1500), Arrival::Poisson)).unwrap();
    let ms = crate::units::MS;
    let phases = [
        Phase { at: ms, rate_mbps: Some(90_000), target_share: None },
        Phase { at: 2 * ms, rate_mbps: None, target_share: Some(0.25) },
    ];
    src.schedule(&phases, 64, 42, 0).unwrap();
    let mut by_phase: [Vec<Packet>; 3] = Default::default();
    loop {
        let p = src.next();
        if p.arrival >= 3 * ms {
            break;
        }
        by_phase[(p.arrival / ms) as usize].push(p);
    }
    // Offered rate: 30 Gbps, then 90 Gbps (both phases), each within 1 %.
    for (pkts, want) in by_phase.iter().zip([30_000.0, 90_000.0]) {
        let got = wire_mbps(pkts);
        assert!((got / want - 1.0).abs() < 0.01, "{got} vs {want}");
    }
    // Target frames (64 B, RSS hash 0) only in the last phase, ~25 % of it.
    assert!(by_phase[..2].iter().flatten().all(|p| p.size == 1500));
    let last = &by_phase[2];
    let aimed = last.iter().filter(|p| p.size == 64 && p.rss_hash == 0).count() as f64 / last.len() as f64;
    assert!((aimed - 0.25).abs() < 0.02, "{aimed}");
    // Rates above line rate and unordered phases are errors.
    let mut bad = Source::new(&spec(SizeDist::Fixed(1500), Arrival::Constant)).unwrap();
    let over = [Phase { at: ms, rate_mbps: Some(100_001), target_share: None }];
    assert!(bad.schedule(&over, 64, 1, 0).unwrap_err().starts_with("traffic.phase_rate = "));
    let unordered = [phases[1], phases[0]];
    assert!(bad.schedule(&unordered, 64, 1, 0).unwrap_err().starts_with("traffic.phase_at"));
}

#[test]
fn a_target_size_of_zero_steers_frames_without_resizing_them() {
    // Load imbalance as the DDIO paper's Fig 12: a share of the frames goes
    // to queue 0 with the traffic's own size mix.
    let sizes = SizeDist::Imix;
    let (mut aimed, mut plain) = (
        Source::new(&spec(sizes.clone(), Arrival::Constant)).unwrap(),
        Source::new(&spec(sizes, Arrival::Constant)).unwrap(),
    );
    aimed.aim_at_queue0(0.3, 0, 7, 0);
    let (mut hashed0, n) = (0, 20_000);
    for _ in 0..n {
        let (a, p) = (aimed.next(), plain.next());
        assert_eq!((a.size, a.arrival), (p.size, p.arrival), "sizes and times as without a target");
        hashed0 += (a.rss_hash == 0) as usize;
    }
    let share = hashed0 as f64 / n as f64;
    assert!((share - 0.3).abs() < 0.02, "{share}");
}
