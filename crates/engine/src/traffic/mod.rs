//! Traffic sources: the stream of Ethernet frames offered to one NIC port.
//!
//! Modelled: what a traffic generator (TRex, pktgen, a tester port) puts on
//! the wire. Each [`Packet`] is a frame whose first bit reaches the port at
//! `arrival`; sizes come from a fixed size, the simple IMIX, a bimodal or an
//! empirical mix, or a pcap trace; arrivals are constant-rate, Poisson or
//! line-rate bursts; each frame belongs to one of `flows` flows picked
//! uniformly or by Zipf popularity, and carries its flow's RSS hash.
//!
//! The offered load `rate_mbps` counts wire bytes (frame + preamble, SFD and
//! IFG, see [`crate::wire::wire_bytes`]), as testers and RFC 2544 do, so
//! `rate_mbps == line_rate_mbps` is 100 % load whatever the size mix.
//! Frames never overlap on the wire: the first bits of consecutive frames
//! are at least one [`crate::wire::frame_time`] at line rate apart.
//!
//! Left out: packet contents (frames are typed records), the far end's
//! clock drift, TCP feedback (the source is open-loop: nothing a NIC does
//! slows it down; drops are the receiver's business), and multi-port
//! correlation (each port has its own independent source).
//!
//! Determinism: all randomness is Xoshiro256++ seeded from (seed, port);
//! sizes, gaps and flow picks each use their own stream, so changing e.g.
//! the size mix leaves the flow sequence unchanged. Same spec, same frames.
//! Nothing is allocated per packet.

pub mod check;
mod pcap;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp1, WeightedAliasIndex};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::config::{TrafficArrival, TrafficCfg, TrafficFlowPopularity, TrafficSizeDist};
use crate::units::Time;
use crate::wire::{wire_bytes, FiveTuple, Toeplitz, MAX_FRAME, MIN_FRAME, PROTO_UDP};

/// One frame offered to the port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// First bit (of the preamble) at the NIC port.
    pub arrival: Time,
    /// Frame bytes, FCS included (64..=9216).
    pub size: u32,
    /// Flow index, 0-based; for synthetic sources 0 is the most popular.
    pub flow: u32,
    /// The flow's Toeplitz RSS hash (Microsoft default key).
    pub rss_hash: u32,
    /// Destination IPv4 address, host order.
    pub dst_ip: u32,
}

/// Frame size distribution. Sizes are frames including FCS, 64..=9216 B.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    Fixed(u32),
    /// Simple IMIX, 7:4:1 of 64, 594 and 1518 B frames ([`IMIX`]).
    Imix,
    /// `small` with probability `small_share`, else `large`.
    Bimodal {
        small: u32,
        large: u32,
        small_share: f64,
    },
    /// `sizes[i]` with probability proportional to `weights[i]`.
    Empirical {
        sizes: Vec<u32>,
        weights: Vec<f64>,
    },
    /// Replay a pcap file (not pcapng): sizes, flows and relative timing
    /// come from the trace, so `arrival`, `flows` and `popularity` are not
    /// used. See the `pcap` submodule for the details.
    Pcap(PathBuf),
}

/// Simple IMIX as (frame bytes incl. FCS, share): the IP sizes 40/576/1500
/// of the classic "Simple IMIX" (Wikipedia "Internet Mix"; Ostinato and
/// TRex's imix profile use the same frames) plus 14 B Ethernet header and
/// 4 B FCS, the 58 B frame padded to 64. Mean 4342/12 = 361.83 B. Some
/// vendors use 570 B for the middle size (mean 353.83 B); we do not.
pub const IMIX: [(u32, u32); 3] = [(64, 7), (594, 4), (1518, 1)];

/// Mean frame size of [`IMIX`], 361.83 B.
pub fn imix_mean_size() -> f64 {
    let (bytes, n) = IMIX
        .iter()
        .fold((0, 0), |(b, n), (s, w)| (b + s * w, n + w));
    bytes as f64 / n as f64
}

/// When frames arrive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arrival {
    /// Evenly spaced: each frame is followed by exactly its share of time
    /// at `rate_mbps` (gaps vary with size so the bit rate is exact).
    Constant,
    /// Poisson-like: after each frame's line-rate wire time, an
    /// exponentially distributed idle time whose mean makes the offered rate
    /// `rate_mbps`. Inter-arrival CV is (1 - load/line), ~1 at low load; at
    /// line rate there is no idle time left to draw, so the arrivals are the
    /// constant schedule whatever the seed (a wire cannot carry a burst).
    Poisson,
    /// `burst_len` frames back to back at line rate, then the idle time that
    /// brings the long-run average to `rate_mbps`.
    Bursty { burst_len: u32 },
}

/// Which flow each frame belongs to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Popularity {
    Uniform,
    /// Flow i (0-based) is picked with probability proportional to
    /// 1/(i+1)^s, s > 0. O(1) per frame: an alias table for the 16384 most
    /// popular flows, the continuous power law (inverse CDF, rounded) for
    /// the rest, whose per-rank error is below 1e-8 relative.
    Zipf(f64),
    /// A share of frames picks uniformly among the first `hot` flows, the
    /// rest uniformly among the others (a KVS's hot set). With
    /// `small_share`, the small frames of a bimodal mix (a KVS client's
    /// GETs) use that share instead (the large ones, SETs, keep `share`).
    Hot { hot: u32, share: f64, small_share: Option<f64> },
}

/// Everything a [`Source`] needs; the engine fills it from its config.
#[derive(Clone, Debug, PartialEq)]
pub struct TrafficSpec {
    /// Offered load on the wire (preamble and IFG counted), Mbit/s.
    pub rate_mbps: u64,
    /// Port line rate, Mbit/s.
    pub line_rate_mbps: u64,
    pub size: SizeDist,
    pub arrival: Arrival,
    /// Number of flows, 1..=[`MAX_FLOWS`].
    pub flows: u32,
    pub popularity: Popularity,
    pub seed: u64,
    /// NIC port this source feeds; part of the seed and of the flows' addresses.
    pub port: u16,
}

impl TrafficSpec {
    /// The source of NIC port `port`, as the `traffic` section describes it.
    pub fn from_cfg(t: &TrafficCfg, line_rate_mbps: u64, seed: u64, port: u16) -> TrafficSpec {
        let size = match t.size_dist {
            TrafficSizeDist::Fixed => SizeDist::Fixed(t.size as u32),
            TrafficSizeDist::Imix => SizeDist::Imix,
            TrafficSizeDist::Bimodal => SizeDist::Bimodal {
                small: t.bimodal_small as u32,
                large: t.bimodal_large as u32,
                small_share: t.bimodal_small_share,
            },
            TrafficSizeDist::Empirical => SizeDist::Empirical {
                sizes: t.sizes.as_slice().iter().map(|&s| s as u32).collect(),
                weights: t.weights.as_slice().to_vec(),
            },
            TrafficSizeDist::Pcap => SizeDist::Pcap(t.pcap.as_str().into()),
        };
        let arrival = match t.arrival {
            TrafficArrival::Constant => Arrival::Constant,
            TrafficArrival::Poisson => Arrival::Poisson,
            TrafficArrival::Bursty => Arrival::Bursty { burst_len: t.burst_len as u32 },
        };
        let popularity = match t.flow_popularity {
            TrafficFlowPopularity::Zipf => Popularity::Zipf(t.zipf_s),
            TrafficFlowPopularity::Hot => Popularity::Hot {
                hot: t.hot_flows as u32,
                share: t.hot_share,
                small_share: Some(t.hot_share_small).filter(|&s| s >= 0.0),
            },
            TrafficFlowPopularity::Uniform => Popularity::Uniform,
        };
        TrafficSpec { rate_mbps: t.rate, line_rate_mbps, size, arrival, flows: t.flows as u32, popularity, seed, port }
    }
}

/// The load phases of `traffic.phase_*`.
pub fn phases(t: &TrafficCfg) -> Vec<Phase> {
    let (rates, shares) = (t.phase_rate.as_slice(), t.phase_target_share.as_slice());
    t.phase_at
        .as_slice()
        .iter()
        .enumerate()
        .map(|(i, &at)| Phase { at, rate_mbps: rates.get(i).copied(), target_share: shares.get(i).copied() })
        .collect()
}

impl Source {
    /// NIC port `port`'s source, built from the `traffic` section: its
    /// spec, the share aimed at queue 0 and the load phases.
    pub fn from_cfg(t: &TrafficCfg, line_rate_mbps: u64, seed: u64, port: u16) -> Result<Source, String> {
        let mut src = Source::new(&TrafficSpec::from_cfg(t, line_rate_mbps, seed, port)).map_err(|e| format!("traffic: {e}"))?;
        src.aim_at_queue0(t.target_share, t.target_size as u32, seed, port);
        src.schedule(&phases(t), t.target_size as u32, seed, port).map_err(|e| format!("traffic: {e}"))?;
        Ok(src)
    }
}

/// Read a pcap trace held in memory as a [`Source`] reads its file, at
/// `rate_mbps` on a `line_rate_mbps` port: the frames and distinct flows
/// it replays, or the one-line error. The entry point of the pcap fuzzer.
pub fn read_pcap(bytes: &[u8], rate_mbps: u64, line_rate_mbps: u64) -> Result<(usize, usize), String> {
    if rate_mbps == 0 || rate_mbps > line_rate_mbps {
        return Err(format!("traffic.rate_mbps = {rate_mbps}: must be 1..={line_rate_mbps} Mbps"));
    }
    let (trace, flows) = pcap::load_from(bytes, "<memory>", rate_mbps, line_rate_mbps, &Toeplitz::default())?;
    Ok((trace.len(), flows.len()))
}

/// Most flows a synthetic source supports: one 10.0.0.0/8 source address each.
pub const MAX_FLOWS: u32 = 1 << 24;

/// The 5-tuple of synthetic flow `flow` on `port`: UDP from client
/// 10.0.0.0 + flow, source port 1024 + flow % 64512, to destination port
/// 9000 in the RFC 2544 benchmarking range 198.18.0.0/15: server
/// flow % 256 of the /24 number (port * 64 + flow / 256) % 512.
/// Distinct flows on a port always have distinct tuples.
pub fn synthetic_tuple(flow: u32, port: u16) -> FiveTuple {
    FiveTuple {
        src_ip: 0x0A00_0000 | (flow & 0x00FF_FFFF),
        // 256 servers per /24; consecutive groups of 256 flows move to the
        // next /24 of 198.18.0.0/15, so routing lookups see many prefixes.
        dst_ip: 0xC612_0000 | (((port as u32 * 64 + flow / 256) % 512) << 8) | (flow & 0xFF),
        src_port: 1024 + (flow % 64512) as u16,
        dst_port: 9000,
        proto: PROTO_UDP,
    }
}

/// What a frame needs from its flow.
#[derive(Clone, Copy, Debug)]
struct FlowRec {
    rss_hash: u32,
    dst_ip: u32,
}

/// Synthetic flow sets up to this size are precomputed at construction
/// (8 B per flow, 512 KiB at most, cache-resident). Larger ones recompute
/// the tuple and its table-driven hash per frame: twelve lookups in a 12 KiB
/// table cost less than a cache miss into a table of up to 128 MiB.
const PRECOMPUTED_FLOWS: u32 = 1 << 16;

#[derive(Clone)]
enum Flows {
    Table(Vec<FlowRec>),
    OnTheFly {
        count: u32,
        port: u16,
        toeplitz: Box<Toeplitz>,
    },
}

impl Flows {
    #[inline]
    fn get(&self, flow: u32) -> FlowRec {
        match self {
            Flows::Table(v) => v[flow as usize],
            Flows::OnTheFly { port, toeplitz, .. } => synthetic_rec(flow, *port, toeplitz),
        }
    }
}

#[inline]
fn synthetic_rec(flow: u32, port: u16, t: &Toeplitz) -> FlowRec {
    let tuple = synthetic_tuple(flow, port);
    FlowRec {
        rss_hash: tuple.rss_hash(t),
        dst_ip: tuple.dst_ip,
    }
}

/// An infinite, deterministic stream of frames for one port.
#[derive(Clone)]
pub struct Source {
    next: Packet,
    flows: Flows,
    kind: Kind,
    target: Option<Target>,
    /// Load changes still to come, earliest first.
    phases: std::collections::VecDeque<Phase>,
}

/// A change of offered load at a point in simulated time: from the first
/// frame arriving at or after `at`, the offered rate and/or the share of
/// frames aimed at the target core become these.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Phase {
    pub at: Time,
    pub rate_mbps: Option<u64>,
    pub target_share: Option<f64>,
}

/// A share of frames, resized to `size` (0: kept as they are), steered at
/// RSS queue 0 (their headers hash to RETA entry 0): the shRing paper's
/// overloaded target core, or the DDIO paper's load imbalance.
#[derive(Clone)]
struct Target {
    share: f64,
    size: u32,
    rng: Xoshiro256PlusPlus,
}

// One per port, so the unboxed synthetic state's size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Kind {
    Synthetic(Synthetic),
    Trace(pcap::Trace),
}

#[derive(Clone)]
struct Synthetic {
    sizes: Sizes,
    pick: Pick,
    arrival: Arrival,
    rate: u64,
    line: u64,
    rng_size: Xoshiro256PlusPlus,
    rng_gap: Xoshiro256PlusPlus,
    rng_flow: Xoshiro256PlusPlus,
    /// Remainder of the exact offered gap, in ps x Mbps, carried so rounding
    /// never drifts the long-run rate.
    rem: u64,
    /// Sub-picosecond carry of Poisson idle times.
    frac: f64,
    /// Bursty: idle time owed (ps) at the end of the current burst.
    debt: i64,
    burst_pos: u32,
}

#[derive(Clone)]
enum Sizes {
    Fixed(u32),
    Mix {
        sizes: Vec<u32>,
        alias: WeightedAliasIndex<f64>,
    },
}

#[derive(Clone)]
enum Pick {
    Uniform(u32),
    Zipf(ZipfPick),
    /// `small`: the bimodal small size and its own hot share.
    Hot { hot: u32, n: u32, share: f64, small: Option<(u32, f64)> },
}

/// Zipf ranks 1..=n, see [`Popularity::Zipf`]. The alias table holds the
/// head ranks' weights k^-s plus one entry for the whole tail, whose mass is
/// the integral of x^-s over [head + 1/2, n + 1/2].
#[derive(Clone)]
struct ZipfPick {
    alias: WeightedAliasIndex<f64>,
    head: u32,
    n: u32,
    /// Tail inverse CDF: x = a exp(ln(1 + u expm1(t L)) / t), t = 1 - s,
    /// L = ln(b / a); written with expm1/ln_1p to stay exact near s = 1.
    a: f64,
    t: f64,
    log_ba: f64,
    expm1_tl: f64,
}

const ZIPF_HEAD: u32 = 1 << 14;

impl ZipfPick {
    fn new(n: u32, s: f64) -> Result<ZipfPick, String> {
        let head = n.min(ZIPF_HEAD);
        let mut weights: Vec<f64> = (1..=head).map(|k| (k as f64).powf(-s)).collect();
        let (a, b, t) = (head as f64 + 0.5, n as f64 + 0.5, 1.0 - s);
        let log_ba = (b / a).ln();
        let expm1_tl = (t * log_ba).exp_m1();
        if n > head {
            let tail = if t.abs() < 1e-9 {
                log_ba
            } else {
                a.powf(t) * expm1_tl / t
            };
            weights.push(tail);
        }
        let alias = WeightedAliasIndex::new(weights)
            .map_err(|e| format!("traffic.popularity zipf exponent = {s}: {e}"))?;
        Ok(ZipfPick {
            alias,
            head,
            n,
            a,
            t,
            log_ba,
            expm1_tl,
        })
    }

    /// A 0-based flow index.
    #[inline]
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> u32 {
        let i = self.alias.sample(rng) as u32;
        if i < self.head {
            return i;
        }
        let u: f64 = rng.gen();
        let x = if self.t.abs() < 1e-9 {
            self.a * (u * self.log_ba).exp()
        } else {
            self.a * ((u * self.expm1_tl).ln_1p() / self.t).exp()
        };
        // x in [head + 1/2, n + 1/2): round to the rank, clamp float edges.
        ((x + 0.5) as u32).clamp(self.head + 1, self.n) - 1
    }
}

const STREAM_SIZE: u32 = 0;
const STREAM_GAP: u32 = 1;
const STREAM_FLOW: u32 = 2;
const STREAM_TARGET: u32 = 3;

/// SplitMix64 finaliser: neighbouring seeds/ports give unrelated states.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Stream `stream` of (seed, port): the base generator advanced by
/// `stream` jumps of 2^128 steps, so streams can never overlap.
fn rng_stream(seed: u64, port: u16, stream: u32) -> Xoshiro256PlusPlus {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(mix(seed ^ mix(port as u64 + 1)));
    for _ in 0..stream {
        r.jump();
    }
    r
}

fn check_size(field: &str, v: u32) -> Result<(), String> {
    if (MIN_FRAME..=MAX_FRAME).contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "traffic.{field} = {v} B: frame sizes (FCS included) must be {MIN_FRAME}..={MAX_FRAME}"
        ))
    }
}

fn validate(spec: &TrafficSpec) -> Result<(), String> {
    let line = spec.line_rate_mbps;
    if line == 0 {
        return Err("traffic.line_rate_mbps = 0: must be a positive rate in Mbps".into());
    }
    if spec.rate_mbps == 0 || spec.rate_mbps > line {
        return Err(format!(
            "traffic.rate_mbps = {}: offered wire rate must be 1..={line} Mbps (line_rate_mbps)",
            spec.rate_mbps
        ));
    }
    match &spec.size {
        SizeDist::Fixed(s) => check_size("size", *s)?,
        SizeDist::Imix | SizeDist::Pcap(_) => {}
        SizeDist::Bimodal {
            small,
            large,
            small_share,
        } => {
            check_size("size.small", *small)?;
            check_size("size.large", *large)?;
            if !(0.0..=1.0).contains(small_share) {
                return Err(format!(
                    "traffic.size.small_share = {small_share}: must be a fraction in 0..=1"
                ));
            }
        }
        SizeDist::Empirical { sizes, weights } => {
            if sizes.is_empty() || sizes.len() != weights.len() {
                return Err(format!(
                    "traffic.size.sizes/weights: {} sizes and {} weights; need the same number, at least one",
                    sizes.len(),
                    weights.len()
                ));
            }
            for s in sizes {
                check_size("size.sizes[]", *s)?;
            }
            if let Some(w) = weights.iter().find(|w| !(w.is_finite() && **w >= 0.0)) {
                return Err(format!(
                    "traffic.size.weights[] = {w}: weights must be finite and >= 0"
                ));
            }
            if weights.iter().sum::<f64>() <= 0.0 {
                return Err(
                    "traffic.size.weights: all weights are 0; at least one must be positive".into(),
                );
            }
        }
    }
    if let Arrival::Bursty { burst_len: 0 } = spec.arrival {
        return Err("traffic.arrival.burst_len = 0: must be at least 1 frame".into());
    }
    if matches!(spec.size, SizeDist::Pcap(_)) {
        return Ok(()); // the trace supplies flows
    }
    if spec.flows == 0 || spec.flows > MAX_FLOWS {
        return Err(format!(
            "traffic.flows = {}: must be 1..={MAX_FLOWS}",
            spec.flows
        ));
    }
    if let Popularity::Zipf(s) = spec.popularity {
        if !(s.is_finite() && s > 0.0) {
            return Err(format!("traffic.popularity zipf exponent = {s}: must be finite and > 0 (use uniform for 0)"));
        }
    }
    if let Popularity::Hot { hot, share, small_share } = spec.popularity {
        if small_share.is_some() && !matches!(spec.size, SizeDist::Bimodal { .. }) {
            return Err("traffic.hot_share_small: needs size_dist = bimodal (the small frames are its GETs)".into());
        }
        if let Some(sh) = small_share.filter(|sh| !(0.0..=1.0).contains(sh)) {
            return Err(format!("traffic.hot_share_small = {sh}: must be in 0..=1"));
        }
        if hot > spec.flows || !(0.0..=1.0).contains(&share) {
            return Err(format!(
                "traffic.hot_flows = {hot}: must be at most traffic.flows = {} (hot share {share} in 0..=1)",
                spec.flows
            ));
        }
    }
    Ok(())
}

impl Source {
    /// The largest frame a replayed trace holds; None for synthetic sizes
    /// (their largest is known from the configuration before anything is built).
    pub fn trace_max_frame(&self) -> Option<u32> {
        match &self.kind {
            Kind::Trace(t) => Some(t.max_size()),
            Kind::Synthetic(_) => None,
        }
    }

    /// Build the source: validation, pcap reading, flow tuples and RSS
    /// hashes (for up to 65536 synthetic flows; beyond that they are
    /// recomputed per frame, see `PRECOMPUTED_FLOWS`) all happen here. The
    /// error is one line naming the field, its value and what is allowed.
    pub fn new(spec: &TrafficSpec) -> Result<Source, String> {
        validate(spec)?;
        let toeplitz = Toeplitz::default();
        let (flows, kind) = match &spec.size {
            SizeDist::Pcap(path) => {
                let (trace, flows) =
                    pcap::load(path, spec.rate_mbps, spec.line_rate_mbps, &toeplitz)?;
                (Flows::Table(flows), Kind::Trace(trace))
            }
            size => {
                let flows = if spec.flows <= PRECOMPUTED_FLOWS {
                    Flows::Table(
                        (0..spec.flows)
                            .map(|i| synthetic_rec(i, spec.port, &toeplitz))
                            .collect(),
                    )
                } else {
                    Flows::OnTheFly {
                        count: spec.flows,
                        port: spec.port,
                        toeplitz: Box::new(toeplitz),
                    }
                };
                let table = |sizes: Vec<u32>, weights: Vec<f64>| -> Result<Sizes, String> {
                    let alias = WeightedAliasIndex::new(weights)
                        .map_err(|e| format!("traffic.size: weights rejected: {e}"))?;
                    Ok(Sizes::Mix { sizes, alias })
                };
                let sizes = match size {
                    SizeDist::Fixed(s) => Sizes::Fixed(*s),
                    SizeDist::Imix => table(
                        IMIX.iter().map(|x| x.0).collect(),
                        IMIX.iter().map(|x| x.1 as f64).collect(),
                    )?,
                    SizeDist::Bimodal {
                        small,
                        large,
                        small_share,
                    } => table(vec![*small, *large], vec![*small_share, 1.0 - small_share])?,
                    SizeDist::Empirical { sizes, weights } => {
                        table(sizes.clone(), weights.clone())?
                    }
                    SizeDist::Pcap(_) => unreachable!(),
                };
                let pick = match spec.popularity {
                    Popularity::Uniform => Pick::Uniform(spec.flows),
                    Popularity::Zipf(s) => Pick::Zipf(ZipfPick::new(spec.flows, s)?),
                    Popularity::Hot { hot, share, small_share } => Pick::Hot {
                        hot,
                        n: spec.flows,
                        share,
                        small: small_share.map(|sh| match spec.size {
                            SizeDist::Bimodal { small, .. } => (small, sh),
                            _ => unreachable!("validated"),
                        }),
                    },
                };
                let synth = Synthetic {
                    sizes,
                    pick,
                    arrival: spec.arrival,
                    rate: spec.rate_mbps,
                    line: spec.line_rate_mbps,
                    rng_size: rng_stream(spec.seed, spec.port, STREAM_SIZE),
                    rng_gap: rng_stream(spec.seed, spec.port, STREAM_GAP),
                    rng_flow: rng_stream(spec.seed, spec.port, STREAM_FLOW),
                    rem: 0,
                    frac: 0.0,
                    debt: 0,
                    burst_pos: 0,
                };
                (flows, Kind::Synthetic(synth))
            }
        };
        let mut src = Source {
            next: Packet {
                arrival: 0,
                size: 0,
                flow: 0,
                rss_hash: 0,
                dst_ip: 0,
            },
            flows,
            kind,
            target: None,
            phases: Default::default(),
        };
        let (size, flow) = src.draw();
        src.next = src.packet(0, size, flow);
        Ok(src)
    }

    /// The next frame; arrivals are non-decreasing and never overlap.
    #[inline]
    #[allow(clippy::should_implement_trait)] // infinite and infallible: not an Iterator
    pub fn next(&mut self) -> Packet {
        let cur = self.next;
        let gap = match &mut self.kind {
            Kind::Synthetic(s) => s.gap(cur.size),
            Kind::Trace(t) => t.gap(),
        };
        let (size, flow) = self.draw();
        self.next = self.packet(cur.arrival + gap, size, flow);
        while self.phases.front().is_some_and(|p| p.at <= self.next.arrival) {
            let p = self.phases.pop_front().expect("checked");
            self.enter(p);
        }
        if let Some(t) = &mut self.target {
            if t.rng.gen::<f64>() < t.share {
                if t.size > 0 {
                    self.next.size = t.size;
                }
                self.next.rss_hash = 0;
            }
        }
        cur
    }

    /// Steer `share` of the frames after the first, resized to `size` (0:
    /// not resized), at RSS queue 0 (hash 0).
    pub fn aim_at_queue0(&mut self, share: f64, size: u32, seed: u64, port: u16) {
        self.target = (share > 0.0).then(|| Target {
            share,
            size,
            rng: rng_stream(seed, port, STREAM_TARGET),
        });
    }

    /// Change the load at the given times (increasing). Call after
    /// [`Source::aim_at_queue0`]; a phase's target share needs a target
    /// (its frame size), so a source with none gets one of share 0.
    pub fn schedule(&mut self, phases: &[Phase], size: u32, seed: u64, port: u16) -> Result<(), String> {
        if phases.iter().any(|p| p.rate_mbps.is_some()) && matches!(self.kind, Kind::Trace(_)) {
            return Err("traffic.phase_rate: a pcap replay keeps the trace's rate; leave phase_rate empty".into());
        }
        if phases.windows(2).any(|w| w[0].at >= w[1].at) {
            return Err("traffic.phase_at: phase start times must increase".into());
        }
        for p in phases {
            if let (Some(r), Kind::Synthetic(s)) = (p.rate_mbps, &self.kind) {
                if r == 0 || r > s.line {
                    return Err(format!(
                        "traffic.phase_rate = {}Gbps: must be above 0 and at most nic.line_rate = {}Gbps",
                        r as f64 / 1e3,
                        s.line as f64 / 1e3
                    ));
                }
            }
        }
        if phases.iter().any(|p| p.target_share.is_some()) && self.target.is_none() {
            self.target = Some(Target {
                share: 0.0,
                size,
                rng: rng_stream(seed, port, STREAM_TARGET),
            });
        }
        self.phases = phases.iter().copied().collect();
        Ok(())
    }

    fn enter(&mut self, p: Phase) {
        if let (Some(r), Kind::Synthetic(s)) = (p.rate_mbps, &mut self.kind) {
            s.rate = r;
            (s.rem, s.debt) = (0, 0);
        }
        if let (Some(share), Some(t)) = (p.target_share, &mut self.target) {
            t.share = share;
        }
    }

    /// Arrival time of the frame the next call to [`Source::next`] returns.
    #[inline]
    pub fn peek_time(&self) -> Time {
        self.next.arrival
    }

    /// The RSS hash of flow `flow` (< `flow_count()`).
    pub fn flow_rss_hash(&self, flow: u32) -> u32 {
        self.flows.get(flow).rss_hash
    }

    /// Number of distinct flows (for a trace: distinct flows seen in it).
    pub fn flow_count(&self) -> usize {
        match &self.flows {
            Flows::Table(v) => v.len(),
            Flows::OnTheFly { count, .. } => *count as usize,
        }
    }

    #[inline]
    fn draw(&mut self) -> (u32, u32) {
        match &mut self.kind {
            Kind::Synthetic(s) => {
                let size = s.size();
                (size, s.flow(size))
            }
            Kind::Trace(t) => t.current(),
        }
    }

    #[inline]
    fn packet(&self, arrival: Time, size: u32, flow: u32) -> Packet {
        let f = self.flows.get(flow);
        Packet {
            arrival,
            size,
            flow,
            rss_hash: f.rss_hash,
            dst_ip: f.dst_ip,
        }
    }
}

impl Synthetic {
    #[inline]
    fn size(&mut self) -> u32 {
        match &self.sizes {
            Sizes::Fixed(s) => *s,
            Sizes::Mix { sizes, alias } => sizes[alias.sample(&mut self.rng_size)],
        }
    }

    #[inline]
    fn flow(&mut self, size: u32) -> u32 {
        match &self.pick {
            Pick::Uniform(n) => self.rng_flow.gen_range(0..*n),
            Pick::Zipf(z) => z.sample(&mut self.rng_flow),
            Pick::Hot { hot, n, share, small } => {
                let share = match small {
                    Some((s, sh)) if *s == size => *sh,
                    _ => *share,
                };
                if *hot == *n || (*hot > 0 && self.rng_flow.gen::<f64>() < share) {
                    self.rng_flow.gen_range(0..*hot)
                } else {
                    self.rng_flow.gen_range(*hot..*n)
                }
            }
        }
    }

    /// First-bit-to-first-bit time from a frame of `size` to the next one.
    #[inline]
    fn gap(&mut self, size: u32) -> Time {
        // Wire bits x 1e6: dividing by a rate in Mbps gives picoseconds.
        let bits = wire_bytes(size) * 8_000_000;
        let line_gap = bits.div_ceil(self.line);
        let n = bits + self.rem;
        let rate_gap = n / self.rate;
        self.rem = n % self.rate;
        match self.arrival {
            Arrival::Constant => rate_gap.max(line_gap),
            Arrival::Poisson => {
                // Mean idle = exact offered gap minus the wire time, so the
                // mean gap is exact; the sub-ps part is carried.
                let idle_mean = bits as f64 / self.rate as f64 - line_gap as f64;
                if idle_mean <= 0.0 {
                    return line_gap;
                }
                let e: f64 = Exp1.sample(&mut self.rng_gap);
                let x = idle_mean * e + self.frac;
                let whole = x.floor();
                self.frac = x - whole;
                line_gap + whole as u64
            }
            Arrival::Bursty { burst_len } => {
                self.debt += rate_gap as i64 - line_gap as i64;
                self.burst_pos += 1;
                if self.burst_pos < burst_len {
                    return line_gap;
                }
                self.burst_pos = 0;
                let idle = self.debt.max(0);
                self.debt -= idle;
                line_gap + idle as u64
            }
        }
    }
}
