//! Every parameter of a scenario, declared once: section, name, type, unit,
//! default, allowed range and a one-line doc. From this one table come the
//! parameter list [`PARAMS`] (validation, `packetpath params`, the docs'
//! table, Python's metadata) and the typed sections ([`Cfg`]: `cfg.llc.ways`),
//! so a misspelt field does not compile and no component re-declares a
//! parameter.

use crate::units::Unit;
use super::value::{FromVal, Val, Values};

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Int,
    Float,
    Bool,
    /// One of a fixed list of words.
    Choice(&'static [&'static str]),
    /// Free text (a file path).
    Text,
    IntList,
    FloatList,
    BoolList,
}

#[derive(Debug, serde::Serialize)]
pub struct ParamDef {
    pub key: &'static str,
    pub kind: Kind,
    pub unit: Unit,
    /// Default as scenario text would write it (`"100Gbps"`, `"11"`, `"lru"`, `"[]"`).
    pub default: &'static str,
    pub min: f64,
    pub max: f64,
    pub doc: &'static str,
}

const INF: f64 = f64::INFINITY;

/// A parameter's [`Kind`] from its word in the table.
macro_rules! kind {
    (int) => { Kind::Int };
    (float) => { Kind::Float };
    (bool) => { Kind::Bool };
    (text) => { Kind::Text };
    (ints) => { Kind::IntList };
    (floats) => { Kind::FloatList };
    (bools) => { Kind::BoolList };
    (choice $E:ident [$($w:literal),*]) => { Kind::Choice(&[$($w),*]) };
    // (a choice of another parameter's words: its enum's)
    (choice $E:ident) => { Kind::Choice($E::WORDS) };
}

/// A parameter's field type in its section, in base units (ps, bytes,
/// Mbps, MHz); a choice is its own enum.
macro_rules! field_type {
    (int) => { u64 };
    (float) => { f64 };
    (bool) => { bool };
    (text) => { String };
    (ints) => { Vec<u64> };
    (floats) => { Vec<f64> };
    (bools) => { Vec<bool> };
    (choice $Enum:ident) => { $Enum };
}

macro_rules! params {
    ($( $sec:ident : $Sec:ident {
        $( $field:ident : $kind:ident $(<$Enum:ident> $([$($w:literal => $V:ident),*])?)? ($unit:ident, $default:literal, $min:expr, $max:expr, $doc:literal) ),* $(,)?
    } )*) => {
        /// The parameter table, section by section.
        pub static PARAMS: &[ParamDef] = &[$($(
            ParamDef {
                key: concat!(stringify!($sec), ".", stringify!($field)),
                kind: kind!($kind $($Enum $([$($w),*])?)?),
                unit: Unit::$unit,
                default: $default,
                min: $min as f64,
                max: $max as f64,
                doc: $doc,
            },
        )*)*];

        // One enum per choice parameter (or per list of words, which a
        // second parameter names by its enum alone): a misspelt word does
        // not compile, and a match over it is exhaustive.
        $($($($(
            #[doc = concat!("`", stringify!($sec), ".", stringify!($field), "`: ", $doc)]
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum $Enum { $( #[doc = concat!("`", $w, "`")] $V, )* }

            impl $Enum {
                /// The words a scenario may write.
                pub const WORDS: &'static [&'static str] = &[$($w),*];

                /// The word a scenario writes for it.
                pub fn word(self) -> &'static str {
                    match self { $( $Enum::$V => $w, )* }
                }
            }

            impl std::fmt::Display for $Enum {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str(self.word())
                }
            }

            impl FromVal for $Enum {
                fn from_val(v: &Val) -> $Enum {
                    match v {
                        $( Val::Choice($w) => $Enum::$V, )*
                        v => panic!("engine bug: {v:?} is not a word of {}", stringify!($Enum)),
                    }
                }
            }
        )?)?)*)*

        $(
            #[doc = concat!("The `", stringify!($sec), "` section of a validated scenario.")]
            #[derive(Clone, Debug)]
            pub struct $Sec {
                $( #[doc = $doc] pub $field: field_type!($kind $($Enum)?), )*
            }
        )*

        /// A validated scenario, one typed section per table section.
        #[derive(Clone, Debug)]
        pub struct Cfg {
            $( pub $sec: $Sec, )*
        }

        impl Cfg {
            /// The typed sections of validated values (every key present).
            pub fn from_values(v: &Values) -> Cfg {
                Cfg {
                    $( $sec: $Sec {
                        $( $field: FromVal::from_val(v.get(concat!(stringify!($sec), ".", stringify!($field)))), )*
                    }, )*
                }
            }
        }
    };
}

// Hardware values here are generic defaults; profiles set them per machine
// with a source for each.
params! {
    sim: SimCfg {
        kind: choice<SimKind>["packet" => Packet, "pcie_bench" => PcieBench, "copy_bench" => CopyBench, "dpa" => Dpa, "netdimm" => Netdimm, "mem_bench" => MemBench, "hostnet" => Hostnet](None, "packet", 0, 0, "what runs: packet traffic through the server, or a microbenchmark or device model (pcie_bench, copy_bench, dpa for dpa_bench, netdimm, mem_bench, hostnet for cores and a DMA device contending for memory); a parameter of another kind is an error"),
        seed: int(None, "1", 0, u32::MAX, "seed of every random stream (each component derives its own)"),
        duration: int(Time, "5ms", 1_000, 10e12, "simulated time measured after the warm-up"),
        warmup: int(Time, "2ms", 0, 10e12, "simulated time run before measuring (rings, caches, queues fill)"),
        sample_period: int(Time, "0ns", 0, 100e12, "record a timeline sample (throughput, drops, dshRing's ring set) every period from the start of the run; 0 = no timeline"),
        until: choice<SimUntil>["duration" => Duration, "converged" => Converged](None, "duration", 0, 0, "when a packet run stops: after sim.duration, or at the first batch boundary where throughput and mean latency have converged (sim.duration then caps the run)"),
        batch: int(Time, "100us", 1_000, 10e12, "sim.until = converged: the length of one batch of the batch-means method"),
        rel_error: float(None, "0.01", 0.0001, 0.5, "sim.until = converged: the largest 95 % confidence half-width of the batch means of throughput and of mean latency, relative to their mean"),
    }
    traffic: TrafficCfg {
        rate: int(Rate, "100Gbps", 1, 1.6e6, "offered load per NIC port, on the wire (frame + preamble + inter-frame gap)"),
        size_dist: choice<TrafficSizeDist>["fixed" => Fixed, "imix" => Imix, "bimodal" => Bimodal, "empirical" => Empirical, "pcap" => Pcap](None, "fixed", 0, 0, "frame-size distribution"),
        size: int(Bytes, "1500", 64, 9216, "frame size incl. FCS for size_dist = fixed"),
        bimodal_small: int(Bytes, "64", 64, 9216, "small frame size for size_dist = bimodal"),
        bimodal_large: int(Bytes, "1500", 64, 9216, "large frame size for size_dist = bimodal"),
        bimodal_small_share: float(None, "0.5", 0, 1, "share of small frames for size_dist = bimodal"),
        sizes: ints(Bytes, "[]", 64, 9216, "frame sizes for size_dist = empirical"),
        weights: floats(None, "[]", 0, INF, "relative weights of traffic.sizes"),
        pcap: text(None, "", 0, 0, "pcap file replayed for size_dist = pcap (sizes, flows and gaps scaled to traffic.rate)"),
        arrival: choice<TrafficArrival>["constant" => Constant, "poisson" => Poisson, "bursty" => Bursty](None, "constant", 0, 0, "inter-arrival process"),
        burst_len: int(None, "32", 1, 1_000_000, "frames per back-to-back burst for arrival = bursty"),
        flows: int(None, "1024", 1, 16_777_216, "number of distinct 5-tuples (one 10.0.0.0/8 client address each)"),
        flow_popularity: choice<TrafficFlowPopularity>["uniform" => Uniform, "zipf" => Zipf, "hot" => Hot](None, "uniform", 0, 0, "how packets pick a flow (hot: a KVS hot set, see traffic.hot_*)"),
        zipf_s: float(None, "1.0", 0, 5, "Zipf exponent for flow_popularity = zipf"),
        target_share: float(None, "0", 0, 1, "share of frames steered at the first core of each NIC (RSS hash 0), the shRing paper's overloaded target core (Fig 12)"),
        target_size: int(Bytes, "64", 0, 9216, "frame size of the frames steered at the target core; 0 = they keep their own size (load imbalance without a size change)"),
        hot_flows: int(None, "0", 0, 16_777_216, "flow_popularity = hot: the hot flows (KVS keys), the first ones"),
        hot_share: float(None, "0", 0, 1, "flow_popularity = hot: share of frames aimed at the hot flows"),
        phase_at: ints(Time, "[]", 1, 100e12, "start times (from the start of the run, warm-up included; increasing) of later load phases; each phase sets the entries of phase_rate and phase_target_share at its index"),
        phase_rate: ints(Rate, "[]", 1, 1.6e6, "offered rate per port of each phase in traffic.phase_at (empty: traffic.rate throughout)"),
        phase_target_share: floats(None, "[]", 0, 1, "traffic.target_share of each phase in traffic.phase_at (empty: traffic.target_share throughout)"),
        closed_loop: int(None, "0", 0, 1_048_576, "requests each port's client keeps outstanding: the next arrives when a response leaves or a request is dropped, back to back while the window is open (traffic.rate and arrival are then unused); 0 = open loop"),
        source_queue: int(None, "1024", 1, 1_048_576, "with nic.flow_control: frames the source queues while PAUSE holds it before it blocks (a software generator's Tx ring) and its schedule slips"),
        client_turnaround: int(Time, "1us", 0, 1e9, "closed loop: from a response's last bit leaving to the next request's first bit arriving (both wires and the client's stack; an assumption, it only spaces requests)"),
        hot_share_small: float(None, "-1", -1, 1, "flow_popularity = hot with size_dist = bimodal: share of the small frames (a KVS client's GETs) aimed at the hot flows, the large ones following traffic.hot_share; -1 = traffic.hot_share for all"),
    }
    nic: NicCfg {
        count: int(None, "1", 1, 8, "number of NICs (one port each), each with its own cores"),
        line_rate: int(Rate, "100Gbps", 1_000, 1.6e6, "Ethernet line rate of each port"),
        rx_ring_size: int(None, "1024", 16, 65536, "Rx descriptors per queue (one queue per core); a power of two"),
        tx_ring_size: int(None, "1024", 16, 65536, "Tx descriptors per queue; a power of two"),
        rx_desc_size: int(Bytes, "16", 8, 256, "bytes of one Rx scatter entry in host memory (a descriptor has one per buffer)"),
        tx_desc_size: int(Bytes, "64", 8, 256, "bytes of one Tx WQE building block (WQEBB); a WQE is 32 B of control and Ethernet segments, the inlined bytes and 16 B per buffer, rounded up to WQEBBs"),
        cqe_size: int(Bytes, "64", 8, 256, "bytes of one completion entry the NIC writes"),
        rx_cqe_comp: bool(None, "false", 0, 0, "Rx CQE compression: 8 completions share one 64 B line, written when 8 are ready or the queue idles (mlx5 rxq_cqe_comp_en)"),
        desc_fetch: int(None, "32", 1, 256, "descriptors the NIC fetches per PCIe read (it keeps up to twice this many cached)"),
        tx_cqe_every: int(None, "32", 1, 65536, "Tx WQEs per requested completion (CQE)"),
        nicmem_latency: int(Time, "100ns", 0, 1e7, "access time of on-NIC memory (nicmem), for the NIC's DMA engine or a host MMIO read"),
        nicmem_capacity: int(Bytes, "256KiB", 0, 4e9, "on-NIC memory the NIC exposes to software (nicmem), per NIC"),
        nicmem_size: int(Bytes, "256KiB", 0, 4e9, "nicmem the driver uses for packet buffers, per NIC (at most nic.nicmem_capacity)"),
        nicmem_buf_size: int(Bytes, "2KiB", 64, 65536, "bytes of one nicmem payload buffer"),
        header_split: bool(None, "false", 0, 0, "split each received frame at nic.split_offset: header to a host buffer, payload to a second buffer (two scatter entries per descriptor, two chained mbufs)"),
        split_offset: int(Bytes, "64", 14, 9216, "header bytes of a split frame; frames no longer than this are not split"),
        payload_mem: choice<NicPayloadMem>["host" => Host, "nicmem" => Nicmem](None, "host", 0, 0, "where payload buffers of split frames live; nicmem = a primary ring of nicmem buffers, spilling to host buffers when it is empty (split rings)"),
        host_queues: int(None, "0", 0, 256, "queues per NIC that get no nicmem buffers with payload_mem = nicmem (the last ones); the others are nicmem queues"),
        tx_inline: bool(None, "false", 0, 0, "header inlining: the core copies a split frame's header into the Tx WQE, so the NIC reads no header buffer"),
        max_wqe_size: int(Bytes, "1KiB", 64, 65536, "largest Tx WQE the NIC accepts (bounds inlined bytes)"),
        rx_buffer: int(Bytes, "256KiB", 2048, 1e9, "on-NIC receive buffer per port; full = drop"),
        flow_control: bool(None, "false", 0, 0, "IEEE 802.3x PAUSE: the port sends XOFF when its Rx buffer fills to within mlx5's headroom of full and XON 9216 B below that; the source holds its frames meanwhile instead of the NIC dropping them, and latency counts from when the source made a frame"),
        cable_len: int(None, "7", 0, 10000, "metres of cable to the link partner (PAUSE headroom and reaction; mlx5's default assumption is 7 m)"),
        tx_buffer: int(Bytes, "128KiB", 2048, 1e9, "on-NIC transmit buffer per port (fetched frames waiting for the wire)"),
        tx_desched: bool(None, "false", 0, 0, "Tx scheduling as on ConnectX-5: a queue whose frame does not fit the Tx buffer is skipped for one PCIe read round trip"),
        tx_queue_buffer: int(Bytes, "0B", 0, 1e9, "with tx_desched: bytes of one Tx queue's frames the NIC holds (read or being read, until they leave the wire) before it deschedules that queue; 0 = only the port's tx_buffer limits a queue"),
        accel: bool(None, "false", 0, 0, "accelNFV: the NIC counts bytes and packets per flow itself and sends frames back out (hairpin); no host core sees them"),
        ctx_cache_size: int(Bytes, "2MiB", 64, 1e9, "accelNFV: on-NIC cache of 64 B flow contexts; misses fetch them from host memory over PCIe"),
        pipeline_mpps: float(None, "150", 1, 10_000, "packets per microsecond x1000 the NIC's packet pipeline processes (Mpps)"),
        remote_socket: bools(None, "[]", 0, 0, "per NIC: attached to the remote socket (DMA bypasses the local LLC); missing = false"),
        ddio: bools(None, "[]", 0, 0, "per NIC: DDIO allocating writes on its root port; missing = true (sim.kind = netdimm: the first sets the PCIe NIC's; the on-die NIC's is inic.ddio)"),
        reg_latency: int(Time, "10ns", 0, 1e7, "time a NIC takes to act on a register access (answer a read, take a write), inside the device"),
        desc_delay: int(Time, "0ns", 0, 1e7, "the NIC's own delay before and after each descriptor fetch and before each descriptor write-back, as gem5's IGbE model has them (fetch_delay, fetch_comp_delay, wb_delay; read by sim.kind = netdimm's PCIe and on-die NICs)"),
        rx_inline: bool(None, "false", 0, 0, "Rx header inlining (mlx5 scatter-to-CQE with 128 B CQEs, which the nicmem paper's NIC lacked): a split frame's header (at most 64 B) arrives inside its completion entry, the descriptor has one scatter entry, and the driver copies the header into the mbuf; needs header_split and rx_cqe_comp = false"),
    }
    pcie: PcieCfg {
        gen: int(None, "3", 1, 7, "PCIe generation (6 and 7 run in FLIT mode: 256 B flits, 236 B of them TLPs)"),
        lanes: int(None, "16", 1, 32, "PCIe lanes"),
        mps: int(Bytes, "256", 128, 4096, "maximum payload size; a power of two"),
        mrrs: int(Bytes, "512", 128, 4096, "maximum read request size; a power of two"),
        rcb: int(Bytes, "64", 64, 128, "read completion boundary"),
        latency: int(Time, "250ns", 0, 1e9, "one-way latency device <-> root complex, excluding serialisation"),
        max_read_tags: int(None, "256", 1, 1024, "outstanding non-posted read requests per device (its tags)"),
        write_buffer: int(Bytes, "0B", 0, 1e9, "root port's posted-write buffer (Intel's IIO write cache), advertised to the device as posted credits: a line's credit comes back once the LLC or memory has taken it; a multiple of 64 B, 0 = unbounded"),
        credit_loop: int(Time, "0ns", 0, 1e7, "with pcie.write_buffer: what a line's posted credit is held beyond its serialisation and the host's commit (flights to and from the IIO, the IIO's path on); pcie.latency to twice it (credits are known once the write reaches the host); 0 = twice pcie.latency"),
        dma_writes_mps: float(None, "0", 0, 100_000, "million MWr TLPs per second the device's DMA engine issues at most; 0 = only the link limits"),
        dma_reads_mps: float(None, "0", 0, 100_000, "million MRd TLPs per second the device's DMA engine issues at most; 0 = only the link limits"),
    }
    pcie_bench: PcieBenchCfg {
        mode: choice<PcieBenchMode>["read" => Read, "write" => Write, "read_write" => ReadWrite, "latency" => Latency](None, "read", 0, 0, "sim.kind = pcie_bench: the pcie-bench microbenchmark of the device's DMA"),
        size: int(Bytes, "64", 1, 65536, "bytes per DMA transfer"),
        window: int(Bytes, "8KiB", 64, 1e10, "host buffer the transfers walk through (wrapping)"),
        cache: choice<PcieBenchCache>["warm" => Warm, "cold" => Cold](None, "warm", 0, 0, "host buffer cached before the run (warm) or flushed before each transfer (cold)"),
        transfers: int(None, "100000", 1, 100_000_000, "transfers to time"),
    }
    copy_bench: CopyBenchCfg {
        mode: choice<CopyBenchMode>["host_to_host" => HostToHost, "host_to_nicmem" => HostToNicmem, "nicmem_to_host" => NicmemToHost](None, "host_to_host", 0, 0, "sim.kind = copy_bench: the memcpy loop one core runs (nicmem paper Sec. 6.5)"),
        size: int(Bytes, "32KiB", 64, 1e9, "bytes of the source (and destination) buffer"),
        iterations: int(None, "100", 1, 1_000_000, "copies of the whole buffer"),
    }
    mem_bench: MemBenchCfg {
        cores: int(None, "0", 0, 255, "sim.kind = mem_bench: injector cores beside the latency probe, each a loop of random 64 B accesses (Intel MLC's loaded-latency test)"),
        delay: int(None, "0", 0, 1e7, "core cycles an injector waits between accesses (MLC's inject delay)"),
        read_share: float(None, "1.0", 0, 1, "share of the injectors' accesses that are reads; the rest write whole lines back (1.0 = all reads, 0.75 = 3:1)"),
        loads: int(None, "5000", 10, 1e6, "the probe's measured dependent loads (after a tenth as many warm-up loads)"),
    }
    hostnet: HostnetCfg {
        c2m_cores: int(None, "1", 0, 63, "sim.kind = hostnet: cores running the C2M loop over their own 1 GiB buffers, line after line, as many loads in flight as their fill buffers allow (cpu.mlp)"),
        c2m: choice<HostnetC2m>["read" => Read, "read_write" => ReadWrite](None, "read", 0, 0, "the C2M loop: sequential 64 B loads (C2M-Read), or sequential 64 B stores, each line read for ownership and written back when the LLC evicts it (C2M-ReadWrite)"),
        p2m: choice<HostnetP2m>["none" => Off, "write" => Write, "read" => Read](None, "write", 0, 0, "the P2M device's sequential DMA: memory writes (storage reads: P2M-Write), memory reads (storage writes: P2M-Read) or none"),
        p2m_rate: int(ByteRate, "14GB/s", 1, 1e7, "bytes per second the P2M device moves when memory keeps up (default: the host network study's Optane SSDs alone, ~14 GB/s, SIGCOMM'24 Sec. 5.1)"),
    }
    iio: IioCfg {
        write_buffer: int(None, "92", 1, 4096, "sim.kind = hostnet: IIO write buffer entries, lines (the P2M-Write domain's credits): a DMA write holds one until its controller's write queue takes it (default: ~92 measured on Cascade Lake, SIGCOMM'24 Sec. 4)"),
        write_latency: int(Time, "300ns", 1, 1e7, "unloaded P2M-Write domain latency: IIO buffer entry to write-queue admission (default: ~300 ns measured on Cascade Lake, SIGCOMM'24 Sec. 4)"),
        read_buffer: int(None, "164", 1, 4096, "IIO read entries, lines (the P2M-Read domain's credits): a DMA read holds one until its data is back at the IIO (default: the ~164 in flight measured on Cascade Lake, a lower bound, SIGCOMM'24 Sec. 4)"),
    }
    cha: ChaCfg {
        write_latency: int(Time, "10ns", 0, 1e7, "sim.kind = hostnet: unloaded C2M-Write domain latency, a written-back line's fill buffer to the CHA (default: ~10 ns measured on Cascade Lake, SIGCOMM'24 Sec. 4)"),
        write_buffer: int(None, "32", 1, 4096, "written-back lines the CHA holds per channel for the write queue; a core's write-back waits in its fill buffer while they are all taken (default: an assumption, unpublished; the write queue's depth)"),
    }
    llc: LlcCfg {
        size: int(Bytes, "24.75MiB", 65536, 1e10, "last-level cache capacity (all slices)"),
        ways: int(None, "11", 1, 20, "LLC associativity"),
        slices: int(None, "18", 1, 128, "LLC slices (sets are spread over slices by the slice hash)"),
        slice_hash: choice<LlcSliceHash>["measured" => Measured, "random" => Random, "none" => Off](None, "measured", 0, 0, "how a physical line picks its slice: measured = the mapping measured on Xeon Scalable parts with llc.slices slices (McCalpin, TACC TR-2021-03; 16, 18, 20, 24 or 28 slices; 40 on Ice Lake-SP; 56 on Sapphire Rapids), random = a strong hash no hardware uses, none = plain modulo over all sets"),
        inclusive: bool(None, "false", 0, 0, "the LLC holds every line an L2 holds (inclusive) or, as on Skylake-SP and later Xeons, mostly L2 victims with a snoop filter tracking the L2s' lines (false)"),
        sf_ways: int(None, "12", 1, 20, "llc.inclusive = false: snoop-filter ways per LLC set (entries tracking lines held in L2s)"),
        replacement: choice<LlcReplacement>["lru" => Lru, "random" => Random, "qlru" => Qlru, "qlru_adaptive" => QlruAdaptive](None, "lru", 0, 0, "LLC replacement policy within the allowed ways"),
        latency: int(Time, "20ns", 0, 1e6, "load-to-use latency of an LLC hit"),
        ddio_ways: int(None, "2", 0, 20, "LLC ways DMA writes may allocate into (IIO LLC WAYS); 0 = DDIO off"),
        cat_masks: ints(None, "[]", 1, 4294967295u32, "per NIC: CAT way mask of the cores serving it; missing = all ways"),
        snoop_latency: int(Time, "48ns", 0, 1e6, "load-to-use latency of a line served by snooping another core's private cache (modified line read, or a store to a shared line)"),
        set_sample: int(None, "1", 1, 1024, "set sampling, for speed: the LLC and L2s model the lines of a fixed, scrambled 1 in N of their sets exactly, and the cores have no L1D; other accesses take the recent outcome mix of modelled ones of their kind. 1 = the full model; a power of two"),
    }
    mem: MemCfg {
        hugepage: choice<MemHugepage>["2MiB" => TwoMiB, "1GiB" => OneGiB, "flat" => Flat](None, "2MiB", 0, 0, "pages backing DPDK's memory: each hugepage is physically contiguous, consecutive pages sit at unrelated physical frames (drawn by seed); flat = physical equals virtual (gem5's page table)"),
    }
    l1d: L1dCfg {
        size: int(Bytes, "32KiB", 0, 1e8, "private L1 data cache per core, in front of its L2; 0 = none (the L2 serves every core access, as a gem5 profile whose l2 section is its L1D)"),
        ways: int(None, "8", 1, 32, "L1D associativity"),
        latency: int(Time, "1.7ns", 0, 1e6, "load-to-use latency of an L1D hit"),
    }
    l2: L2Cfg {
        size: int(Bytes, "1MiB", 4096, 1e9, "private L2 per core"),
        ways: int(None, "16", 1, 20, "L2 associativity"),
        latency: int(Time, "6ns", 0, 1e6, "load-to-use latency of an L2 hit"),
        prefetch_adjacent: bool(None, "true", 0, 0, "the spatial prefetcher: an L2 demand miss also fetches the other line of its 128 B pair"),
        prefetch_streamer: bool(None, "true", 0, 0, "the streamer: accesses moving through a 4 KiB page fetch the next lines of it, 2 per access, up to 20 ahead"),
        superqueue: int(None, "0", 0, 256, "with the memory controllers: the L2's outstanding misses to memory (Intel's superqueue), demand and prefetch; a prefetch finding it full is not issued; 0 = unbounded"),
    }
    dram: DramCfg {
        channels: int(None, "6", 1, 64, "memory channels of the socket"),
        channel_bw: int(ByteRate, "21333MB/s", 100, 1e7, "peak bandwidth of one channel"),
        latency: int(Time, "90ns", 1, 1e7, "idle load-to-use latency of a DRAM read (MLC's idle latency: the L2 and LLC lookups on the way included)"),
        remote_latency: int(Time, "140ns", 1, 1e7, "latency of a DMA served through the inter-socket link"),
        write_batch: int(None, "0", 0, 1024, "writes the memory controller drains per bus turnaround from its write queue (a read arriving during the drain waits for it); 0 = no write queue, each write takes its burst as it comes"),
        turnaround: int(Time, "0ns", 0, 1e6, "with dram.write_batch: bus turnaround per drain, read-to-write plus write-to-read (tRTW + tWTR)"),
        banks: int(None, "0", 0, 256, "banks per channel (ranks x banks per rank), each busy a row cycle (dram.t_rc) per access; 0 = banks are not modelled"),
        t_rc: int(Time, "46ns", 1, 1e6, "with dram.banks: the row cycle a bank is busy per access (tRAS + tRP, closed page)"),
        model: choice<DramModel>["calendar" => Calendar, "controller" => Controller](None, "calendar", 0, 0, "what serves DRAM requests in packet runs and netdimm's co-runner: each channel a calendar of its peak bandwidth, taking requests as cores price them (calendar), or a memory controller per channel with queues, banks, rows and JEDEC timings, in time order, a core's fill buffers awaiting its reads (controller; slower)"),
        speed: choice<DramSpeed>["DDR4-2400" => Ddr4_2400, "DDR4-2666" => Ddr4_2666, "DDR4-2933" => Ddr4_2933, "DDR4-3200" => Ddr4_3200](None, "DDR4-2666", 0, 0, "the DIMMs' JEDEC speed bin: every timing the memory controller obeys (sim.kind = mem_bench, hostnet; packet and netdimm with dram.model = controller)"),
        ranks: int(None, "2", 1, 4, "ranks per channel (of 16 banks in 4 bank groups, 8 Gb x8 devices) (sim.kind = mem_bench, hostnet; packet and netdimm with dram.model = controller)"),
        page_policy: choice<DramPagePolicy>["open" => Open, "closed" => Closed, "open_adaptive" => OpenAdaptive](None, "open", 0, 0, "when the memory controller closes a row: at a conflict (open), after every access (closed), or after an access no queued request hits (open_adaptive) (sim.kind = mem_bench, hostnet; packet and netdimm with dram.model = controller)"),
        read_queue: int(None, "32", 1, 1024, "memory controller read queue entries per channel (sim.kind = mem_bench, hostnet; packet and netdimm with dram.model = controller)"),
        write_queue: int(None, "32", 1, 1024, "memory controller write queue entries per channel (sim.kind = mem_bench, hostnet; packet and netdimm with dram.model = controller)"),
        bank_queue: int(None, "8", 1, 64, "command queue entries per bank (sim.kind = mem_bench, hostnet; packet and netdimm with dram.model = controller)"),
        write_high: int(None, "32", 1, 1024, "writes queued that start a write drain (at most dram.write_queue) (sim.kind = mem_bench, hostnet; packet and netdimm with dram.model = controller)"),
        write_low: int(None, "0", 0, 1024, "writes left queued when a drain stops (below dram.write_high) (sim.kind = mem_bench, hostnet; packet and netdimm with dram.model = controller)"),
        write_idle: int(None, "8", 0, 1024, "a drain also starts above this many queued writes when no bank has a command queued (sim.kind = mem_bench, hostnet; packet and netdimm with dram.model = controller)"),
    }
    cpu: CpuCfg {
        cores: int(None, "1", 1, 256, "cores per NIC, each polling one Rx queue and owning one Tx queue"),
        max_cores: int(None, "18", 1, 64, "physical cores of the socket (at most 64: the snoop filter keeps a 64-bit sharer mask)"),
        freq: int(Freq, "2.3GHz", 100, 10_000, "core clock"),
        mlp: int(None, "10", 1, 64, "independent cache misses a core overlaps (line fill buffers)"),
        wc_buffers: int(None, "10", 1, 64, "write-combining buffers per core: 64 B MMIO stores in flight to write-combined memory"),
        uc_load_bytes: int(Bytes, "32", 1, 64, "bytes one load moves from uncached memory (one MMIO read each, serialised)"),
        nt_store_threshold: int(Bytes, "16MiB", 0, 1e12, "copies at least this large use non-temporal stores (glibc memcpy's __x86_shared_non_temporal_threshold); 0 = never"),
        copy_cycles_per_line: int(None, "2", 0, 1000, "cycles a copy loop's loads and stores of one 64 B line take in the core's ports, beyond its memory stalls (default: 64 / 32 B moves = 2 stores at one per cycle, Skylake's 2 loads + 1 store per cycle, Intel Optimization Manual; the whole cost of a line the L1D holds)"),
        copy_move: int(Bytes, "32", 1, 64, "bytes each load and each store of the copy loop moves (glibc's AVX2 memcpy: 32)"),
        rob: int(None, "224", 1, 4096, "reorder-buffer entries: a copy keeps at most this many of its loads and stores in flight (Skylake: 224)"),
        load_buffer: int(None, "72", 1, 4096, "load-buffer entries: loads in flight (Skylake: 72)"),
        store_buffer: int(None, "56", 1, 4096, "store-buffer entries: stores not yet written to the L1D (Skylake: 56)"),
        poll_cycles: int(None, "60", 0, 100_000, "cycles of one poll-loop iteration (rx_burst + tx_burst call overhead)"),
        rx_cycles: int(None, "40", 0, 100_000, "driver cycles per received packet (CQE parse, mbuf init, refill)"),
        tx_cycles: int(None, "40", 0, 100_000, "driver cycles per transmitted packet (WQE build, completion, free)"),
        seg_cycles: int(None, "20", 0, 100_000, "driver cycles per extra buffer (chained mbuf / scatter entry) of a packet, on Rx and on Tx"),
        flush_cycles: int(None, "4", 0, 100_000, "issue cycles of one cache-line flush or invalidate (clflushopt); the fence then waits for write-backs"),
        atomic_cycles: int(None, "18", 0, 10_000, "cycles of a locked read-modify-write (lock or / xchg / cmpxchg) beyond its cache access"),
        div_cycles: int(None, "26", 1, 1000, "latency of a 32-bit integer division (DIV r32), on the path of code whose divisor is known only at run time"),
    }
    app: AppCfg {
        rx_burst: int(None, "32", 1, 1024, "packets taken per rx_burst call"),
        tx_burst: int(None, "32", 1, 1024, "packets handed per tx_burst call"),
        sw_queue: int(None, "1024", 0, 1_000_000, "packets the application buffers when the Tx ring is full (FastClick queue)"),
        nf: choice<AppNf>["l2fwd" => L2fwd, "l3fwd" => L3fwd, "workpackage" => Workpackage, "nat" => Nat, "lb" => Lb, "flowcount" => Flowcount, "nat_lb" => NatLb, "kvs" => Kvs](None, "l2fwd", 0, 0, "network function each core runs (nat_lb: NAT then LB, a table each; kvs: a MICA-like key-value server; requests are the traffic's frames, keys its flows)"),
        nf_cycles: int(None, "20", 0, 10_000_000, "compute cycles per packet of the NF itself (beyond its memory accesses)"),
        nat_cycles: int(None, "0", 0, 10_000_000, "app.nf = nat or nat_lb: the NAT's own compute cycles per packet beyond the generic ones (app.nf_cycles) and the flow-table accesses the model prices (FastClick's NAT element graph)"),
        lb_cycles: int(None, "0", 0, 10_000_000, "app.nf = lb or nat_lb: the LB's own compute cycles per packet beyond the generic ones (app.nf_cycles) and the flow-table accesses the model prices (FastClick's LB element graph)"),
        wp_reads: int(None, "0", 0, 100_000, "WorkPackage: N, random reads per packet, each index computed from the word the read before loaded"),
        wp_chain: bool(None, "true", 0, 0, "WorkPackage: each read's index from the word the read before loaded (FastClick's element: a dependent chain); false = from the generator (independent reads, the nicmem paper's modified l3fwd)"),
        wp_draws: int(None, "1", 0, 100_000, "WorkPackage: W, std::mt19937 draws per packet before the first read (FastClick's default 1)"),
        wp_draw_cycles: int(None, "9", 0, 10_000, "WorkPackage: cycles of one std::mt19937 draw"),
        wp_size: int(Bytes, "8MiB", 64, 1e11, "WorkPackage: buffer the random reads fall into"),
        l3fwd_routes: int(None, "16384", 1, 10_000_000, "l3fwd: routes in the longest-prefix-match table"),
        flow_table_size: int(None, "1048576", 1024, 16_777_216, "nat/lb: flow entries per core's cuckoo table (NAT uses two per flow)"),
        preload_flows: bool(None, "true", 0, 0, "nat/lb/flowcount and accelNFV: start with every flow of the traffic in its core's table and the NIC's context cache (a long-running NF); false = tables fill during the run"),
        lb_backends: int(None, "32", 1, 65536, "lb: backend servers new flows are spread over round-robin"),
        wp_payload: choice<AppWpPayload>["none" => Off, "read" => Read, "write" => Write](None, "none", 0, 0, "WorkPackage: also read or overwrite every payload line of the packet (shRing Sec. 5.2)"),
        slow_core_reads: int(None, "0", 0, 1_000_000, "WorkPackage: extra random reads per packet on the first core of each NIC (shRing Fig 11's slowed target core)"),
    }
    mempool: MempoolCfg {
        size: int(None, "65535", 64, 100_000_000, "mbufs in each NIC's packet pool"),
        cache: int(None, "256", 0, 512, "per-core mempool cache (DPDK caps it at 512)"),
        order: choice<MempoolOrder>["lifo" => Lifo, "fifo" => Fifo](None, "lifo", 0, 0, "reuse order of freed buffers: lifo (DPDK per-core cache) or fifo"),
        mbuf_size: int(Bytes, "2368", 512, 65536, "bytes of one mempool object: 64 B object header + 128 B mbuf + 128 B headroom + data room"),
    }
    corunner: CorunnerCfg {
        enabled: bool(None, "false", 0, 0, "run a memory-streaming co-runner on a core of its own"),
        buffer: int(Bytes, "64MiB", 64, 1e11, "buffer the co-runner streams through"),
        cat_mask: int(None, "0", 0, 4294967295u32, "co-runner CAT way mask; 0 = all ways"),
    }
    antagonist: AntagonistCfg {
        cores: int(None, "0", 0, 255, "co-located memory-bound cores beside the packet cores (the host network study's antagonists), each a loop over a buffer of its own on the same LLC, controllers and channels"),
        pattern: choice<AntagonistPattern>["seq" => Seq, "random" => Random](None, "seq", 0, 0, "the lines an antagonist touches: in order or uniformly at random"),
        op: choice<AntagonistOp>["read" => Read, "write" => Write, "copy" => Copy, "scale" => Scale, "add" => Add, "triad" => Triad](None, "read", 0, 0, "loads, or stores of whole lines (read for ownership, then written back when evicted), or a STREAM kernel over the buffer split into its arrays (McCalpin's STREAM: copy and scale read one array and store another, add and triad read two and store a third)"),
        delay: int(None, "0", 0, 1e6, "core cycles an antagonist waits per line touched (its intensity; 0 = as fast as its misses allow)"),
        buffer: int(Bytes, "64MiB", 64, 1e11, "buffer each antagonist loops over"),
    }
    dpa_bench: DpaBenchCfg {
        workload: choice<DpaBenchWorkload>["compute" => Compute, "chase" => Chase, "bandwidth" => Bandwidth, "latency" => Latency, "net" => Net, "recency" => Recency, "clocksync" => Clocksync](None, "compute", 0, 0, "sim.kind = dpa: the BlueField-3 workload host, Arm or DPA threads run (DPA paper)"),
        proc: choice<DpaBenchProc>["host" => Host, "arm" => Arm, "dpa" => Dpa](None, "dpa", 0, 0, "processor whose threads run the workload"),
        threads: int(None, "1", 1, 256, "threads running the workload (spread round-robin over the processor's cores)"),
        mem: choice<DpaBenchMem>["host" => Host, "arm" => Arm, "dpa" => Dpa](None, "dpa", 0, 0, "memory holding the data buffer (chase, bandwidth, random reads, KV aggregation buffer); host/arm processors use their own"),
        mem2: choice<DpaBenchMem2>["none" => Off, "host" => Host, "arm" => Arm, "dpa" => Dpa](None, "none", 0, 0, "bandwidth: a second memory the last mem2_threads threads use (mixed-memory bandwidth)"),
        mem2_threads: int(None, "0", 0, 256, "bandwidth: threads (of dpa_bench.threads) that access dpa_bench.mem2"),
        net_buf: choice<DpaBenchNetBuf>["host" => Host, "arm" => Arm, "dpa" => Dpa](None, "dpa", 0, 0, "memory of the network (packet) buffers of a DPA workload"),
        pattern: choice<DpaBenchPattern>["seq" => Seq, "random" => Random](None, "seq", 0, 0, "bandwidth: sequential or uniformly random 8 B accesses"),
        op: choice<DpaBenchOp>["read" => Read, "write" => Write](None, "read", 0, 0, "bandwidth: loads of 8 B or stores of whole 64 B lines"),
        working_set: int(Bytes, "1MiB", 64, 16e9, "chase/bandwidth: bytes the accesses fall into (shared by the threads of one memory)"),
        stride: int(Bytes, "64", 8, 1e9, "chase: distance between the nodes of the pointer chain"),
        accesses: int(None, "20000", 1, 1e9, "chase/bandwidth: measured accesses per thread (after one warm-up pass)"),
        compute_ops: int(None, "100000", 1, 1e12, "compute: multiplications per thread"),
        net_mode: choice<DpaBenchNetMode>["send" => Send, "receive" => Receive, "reflector" => Reflector, "ipcheck" => Ipcheck, "kv" => Kv](None, "reflector", 0, 0, "net: what each thread does per packet"),
        pkt_size: int(Bytes, "1024", 64, 9216, "net/latency: frame size"),
        packets: int(None, "2000", 1, 1e9, "net/latency/recency: packets (round trips for latency; the bunch for recency) per thread"),
        payload_read: float(None, "0", 0, 1, "latency: share of the payload the reflector reads and sums as 8 B integers"),
        random_reads: int(None, "0", 0, 100_000, "latency: random 8 B reads per packet from an 8 MiB buffer in dpa_bench.mem"),
        kv_tuples: int(None, "8", 1, 512, "kv: 16 B key-value tuples per packet (after a 64 B header)"),
        kv_keys: int(None, "65536", 1, 4_194_304, "kv: distinct keys (16 B aggregation entries)"),
        kv_dist: choice<DpaBenchKvDist>["uniform" => Uniform, "zipf" => Zipf](None, "uniform", 0, 0, "kv: key popularity (zipf stands in for the skewed Yelp trace)"),
        kv_zipf_s: float(None, "0.99", 0, 5, "kv: Zipf exponent for kv_dist = zipf"),
        sync_interval: int(Time, "100ms", 1, 100e12, "clocksync: time between two synchronisations (the bound grows with drift in between)"),
        drift_ppm: float(None, "10", 0, 1e6, "clocksync: clock drift, microseconds per second"),
        background: int(Rate, "0Gbps", 0, 1.6e6, "clocksync: host L2-reflector load between the two hosts, per direction (0 = none)"),
    }
    host: HostCfg {
        threads_per_core: int(None, "2", 1, 8, "hardware threads per host core (Hyper-Threading)"),
        ipc: float(None, "4", 0.01, 64, "multiplications a host core issues per cycle, over all its threads"),
        thread_ipc: float(None, "4", 0.01, 64, "multiplications one host thread issues per cycle"),
        l1_size: int(Bytes, "48KiB", 1024, 1e7, "host L1 data cache per core"),
        l1_ways: int(None, "12", 1, 20, "host L1 associativity"),
        l1_latency: int(Time, "2ns", 0, 1e6, "host L1 load-to-use latency"),
        pkt_instr: int(None, "100", 0, 1e7, "host instructions per packet sent or received (driver and loop)"),
        doorbell_latency: int(Time, "0ns", 0, 1e7, "host: extra latency of a doorbell (MMIO write) before it crosses PCIe"),
    }
    arm: ArmCfg {
        cores: int(None, "16", 1, 256, "Arm cores"),
        freq: int(Freq, "2GHz", 100, 10_000, "Arm core clock"),
        ipc: float(None, "3", 0.01, 64, "multiplications an Arm core issues per cycle"),
        thread_ipc: float(None, "3", 0.01, 64, "multiplications one Arm thread issues per cycle"),
        mlp: int(None, "10", 1, 64, "independent cache misses an Arm core overlaps"),
        l1_size: int(Bytes, "64KiB", 1024, 1e7, "Arm L1 data cache per core"),
        l1_ways: int(None, "4", 1, 20, "Arm L1 associativity"),
        l1_latency: int(Time, "2ns", 0, 1e6, "Arm L1 load-to-use latency"),
        l2_size: int(Bytes, "512KiB", 4096, 1e9, "Arm private L2 per core"),
        l2_ways: int(None, "8", 1, 20, "Arm L2 associativity"),
        l2_latency: int(Time, "5ns", 0, 1e6, "Arm L2 hit latency beyond L1"),
        l3_size: int(Bytes, "16MiB", 65536, 1e10, "Arm shared L3"),
        l3_ways: int(None, "16", 1, 20, "Arm L3 associativity"),
        l3_latency: int(Time, "30ns", 0, 1e6, "Arm L3 hit latency beyond L2"),
        dram_channels: int(None, "2", 1, 64, "Arm DDR channels (DPA memory is a region of the same DRAM)"),
        dram_channel_bw: int(ByteRate, "40000MB/s", 100, 1e7, "peak bandwidth of one Arm DDR channel"),
        dram_latency: int(Time, "90ns", 1, 1e7, "Arm DRAM latency beyond the L3"),
        pkt_instr: int(None, "100", 0, 1e7, "Arm instructions per packet sent or received"),
        memory_size: int(Bytes, "15GiB", 1e6, 17179869184u64, "Arm memory usable for buffers"),
    }
    dpa: DpaCfg {
        cores: int(None, "16", 1, 64, "DPA cores"),
        threads_per_core: int(None, "16", 1, 64, "hardware threads per DPA core"),
        usable_threads: int(None, "190", 1, 4096, "DPA threads the driver lets run at once"),
        freq: int(Freq, "1.8GHz", 100, 10_000, "DPA core clock"),
        ipc: float(None, "1", 0.01, 64, "instructions a DPA core issues per cycle, over all its threads"),
        thread_ipc: float(None, "0.25", 0.01, 64, "multiplications one DPA thread issues per cycle (in order: a dependent multiply waits out the multiplier)"),
        outstanding: int(None, "1", 1, 64, "loads one DPA thread has in flight (in-order: it blocks on a miss)"),
        l1_size: int(Bytes, "1KiB", 256, 1e6, "DPA L1 data cache per thread"),
        l1_ways: int(None, "4", 1, 20, "DPA L1 associativity"),
        l1_latency: int(Time, "15ns", 0, 1e6, "DPA L1 load-to-use latency"),
        l2_size: int(Bytes, "1.5MiB", 4096, 1e9, "DPA L2, shared by all DPA cores"),
        l2_ways: int(None, "12", 1, 20, "DPA L2 associativity"),
        l2_latency: int(Time, "40ns", 0, 1e6, "DPA L2 hit latency beyond L1"),
        l3_size: int(Bytes, "3MiB", 4096, 1e9, "DPA L3, shared"),
        l3_ways: int(None, "12", 1, 20, "DPA L3 associativity"),
        l3_latency: int(Time, "60ns", 0, 1e6, "DPA L3 hit latency beyond L2"),
        memory_size: int(Bytes, "1GiB", 1e6, 17179869184u64, "DPA memory: the region of Arm DRAM reserved for the DPA"),
        pkt_instr: int(None, "100", 0, 1e7, "DPA instructions per packet sent or received"),
    }
    bf3: Bf3Cfg {
        switch_latency: int(Time, "400ns", 0, 1e7, "round trip through the NIC switch for a DPA memory request"),
        switch_bw: int(ByteRate, "100GB/s", 100, 1e7, "NIC switch bandwidth per direction"),
        cache_port_read_bw: int(ByteRate, "12.5GB/s", 100, 1e7, "DPA L2/L3 <-> NIC switch port, data into the DPA caches (fills, NIC reads of packets in DPA memory)"),
        cache_port_write_bw: int(ByteRate, "6.25GB/s", 100, 1e7, "DPA L2/L3 <-> NIC switch port, data written into DPA memory (writebacks, NIC packet writes)"),
        aperture_latency: int(Time, "20ns", 0, 1e7, "memory aperture: turns a DPA load/store to host or Arm memory into a PCIe transaction"),
        aperture_read_tags: int(None, "128", 1, 4096, "reads the aperture keeps outstanding (all DPA threads)"),
        aperture_write_bw: int(ByteRate, "14GB/s", 100, 1e7, "posted writes through the aperture"),
        arm_port_bw: int(ByteRate, "64GB/s", 100, 1e7, "NIC switch <-> Arm L3 port per direction"),
        nic_latency: int(Time, "300ns", 0, 1e7, "NIC packet pipeline latency, wire to first write (and read to wire)"),
        nic_l2_ways: int(None, "1", 0, 20, "DPA L2 ways NIC packet writes allocate into (DPA memory as network buffer); 0 = none"),
        dpa_doorbell_latency: int(Time, "50ns", 0, 1e7, "DPA doorbell to the on-chip NIC"),
    }
    netdimm: NetdimmCfg {
        nic: choice<NetdimmNic>["dnic" => Dnic, "dnic.zcpy" => DnicZcpy, "inic" => Inic, "inic.zcpy" => InicZcpy, "netdimm" => Netdimm](None, "netdimm", 0, 0, "sim.kind = netdimm: the NIC attachment whose one-way host-to-host latency is modelled (NetDIMM paper)"),
        traffic: choice<NetdimmTraffic>["fixed" => Fixed, "database" => Database, "webserver" => Webserver, "hadoop" => Hadoop](None, "fixed", 0, 0, "message sizes: fixed, or a Facebook cluster's packet-size distribution (Roy et al., SIGCOMM'15)"),
        size: int(Bytes, "64", 1, 65536, "message payload (UDP) bytes for traffic = fixed"),
        messages: int(None, "2000", 1, 10_000_000, "messages sent one at a time (the first ring's worth warm the caches and are not measured)"),
        mtu: int(Bytes, "1514", 64, 9216, "largest Ethernet frame (header + payload, no FCS)"),
        segmentation: bool(None, "false", 0, 0, "split messages larger than the MTU into frames; off = such a message is an error"),
        app_buffers: choice<NetdimmAppBuffers>["netdimm" => Netdimm, "host" => Host](None, "netdimm", 0, 0, "where applications allocate network buffers; host takes the COPY_NEEDED path"),
        channel: int(None, "0", 0, 63, "memory channel the NetDIMM sits on (must be < dram.channels)"),
        interleave: bool(None, "false", 0, 0, "interleave the NetDIMM address range across channels (not allowed: the nNIC sees one channel)"),
        ranks: int(None, "2", 1, 8, "ranks of the NetDIMM's local DRAM"),
        banks: int(None, "16", 1, 64, "banks per rank"),
        subarrays: int(None, "512", 1, 4096, "subarrays per bank"),
        rows_per_subarray: int(None, "128", 2, 4096, "rows per subarray"),
        row_size: int(Bytes, "8KiB", 512, 65536, "bytes of one row across a rank's devices"),
        t_cmd: int(Time, "5ns", 0, 1e6, "buffer-device delay before a host command reaches the nController"),
        t_rdy: int(Time, "1.67ns", 0, 1e6, "RDY on the response pins after the data is ready"),
        ncache_size: int(Bytes, "64KiB", 64, 1e8, "nCache capacity"),
        ncache_ways: int(None, "8", 1, 64, "nCache associativity"),
        ncache_latency: int(Time, "2ns", 0, 1e6, "nCache SRAM access time"),
        prefetch_lines: int(None, "4", 0, 64, "lines the next-line prefetcher fetches after a payload access"),
        alloc_pages: int(None, "2", 0, 64, "pages allocCache keeps per subarray"),
        nf: choice<NetdimmNf>["none" => Off, "l3f" => L3f, "dpi" => Dpi](None, "none", 0, 0, "instead of one-way latency: the receiving host runs this NF on line-rate traffic beside a memory-bound co-runner, whose latency is reported (Fig 12b)"),
        load: float(None, "0", 0, 0.95, "share of the line rate offered as Poisson message arrivals, queueing at cores, NICs and port; 0 = one at a time"),
    }
    ddr: DdrCfg {
        speed: choice<DramSpeed>(None, "DDR4-2400", 0, 0, "the JEDEC speed bin of the NetDIMM's local DRAM (tRCD, CL, CWL, tRP, tRAS and the burst, as the host's dram.speed)"),
    }
    inic: InicCfg {
        fabric_latency: int(Time, "20ns", 0, 1e7, "one-way latency between the chip's memory side and its I/O side: a core's register access to an on-die NIC, and each DMA's crossing to memory, behind a PCIe NIC's root complex too (gem5's I/O bridge and I/O cache)"),
        ddio: bool(None, "true", 0, 0, "the on-die NIC's DMA writes allocate in the LLC's DDIO ways (llc.ddio_ways), its reads find lines there; false = to DRAM, invalidating cached copies"),
    }
    network: NetworkCfg {
        phy_latency: int(Time, "100ns", 0, 1e7, "MAC + PHY latency of one port, each way"),
        cable_latency: int(Time, "5ns", 0, 1e9, "propagation over one link"),
        switch_latency: int(Time, "100ns", 0, 1e7, "port-to-port latency of one switch (store and forward adds the frame's serialisation)"),
        switch_hops: int(None, "0", 0, 16, "switches between the two hosts (0 = directly connected)"),
    }
    rings: RingsCfg {
        sharing: int(None, "1", 1, 64, "cores sharing one Rx descriptor ring (shRing/N); 1 = a private ring per core (privRing); each core keeps its own completion ring"),
        discipline: choice<RingsDiscipline>["arr" => Arr, "list" => List](None, "arr", 0, 0, "how sharing cores hand descriptors back: arr = bitmap + in-order consumer index (RxArr), list = linked free list the NIC follows (RxList)"),
        dynamic: bool(None, "false", 0, 0, "dshRing (shRing Sec. 4.5): keep private and shared rings and switch RSS between them by the policy below"),
        dshring_period: int(Time, "10ms", 1_000, 10e12, "dshRing: sampling period of throughput, memory bandwidth and Rx-call intervals"),
        dshring_window: int(None, "16", 2, 1024, "dshRing: samples in the sliding window"),
        dshring_gbps: int(Rate, "170Gbps", 1, 1.6e7, "dshRing: throughput (all NICs) above which sharing may pay"),
        dshring_mem_bw: int(ByteRate, "26843MB/s", 1, 1e9, "dshRing: memory bandwidth above which sharing may pay (the paper: 25 GiB/s)"),
        dshring_skew: float(None, "32", 1, 1e6, "dshRing: a core is overloaded when the spread (std) of the cores' Rx-call intervals exceeds this many times their median"),
    }
    kvs: KvsCfg {
        value_size: int(Bytes, "1KiB", 8, 8192, "kvs: bytes of a value (keys are 128 B); frames with room for headers (70 B), key and value are SETs, shorter ones GETs"),
        hot_area: int(Bytes, "0", 0, 4e9, "kvs: nicmem for hot items' stable buffers (nmKVS); 0 = baseline MICA, every value in host memory"),
    }
}
