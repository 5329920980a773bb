//! Every parameter of a scenario, declared once: dotted key, type, unit,
//! default, allowed range and a one-line doc. Validation, `packetpath params`
//! and the README's parameter table are all derived from [`PARAMS`].
//!
//! A validated scenario is a [`Config`]: a flat map from key to a typed value
//! in base units (ps, bytes, Mbps, MHz). Components read it once, in
//! `World::build`; nothing reads it on the hot path.

use crate::units::Unit;
use serde_json::Value;
use std::collections::BTreeMap;

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

macro_rules! p {
    ($key:literal, $kind:expr, $unit:ident, $default:literal, $min:expr, $max:expr, $doc:literal) => {
        ParamDef {
            key: $key,
            kind: $kind,
            unit: Unit::$unit,
            default: $default,
            min: $min as f64,
            max: $max as f64,
            doc: $doc,
        }
    };
}

use Kind::*;

/// The parameter table. Hardware values here are generic defaults; profiles
/// set them per machine with a source for each.
pub static PARAMS: &[ParamDef] = &[
    // --- execution ---------------------------------------------------------
    p!("sim.seed", Int, None, "1", 0, u32::MAX, "seed of every random stream (each component derives its own)"),
    p!("sim.duration", Int, Time, "5ms", 1_000, 10e12, "simulated time measured after the warm-up"),
    p!("sim.warmup", Int, Time, "2ms", 0, 10e12, "simulated time run before measuring (rings, caches, queues fill)"),
    // --- traffic -----------------------------------------------------------
    p!("traffic.rate", Int, Rate, "100Gbps", 1, 1.6e6, "offered load per NIC port, on the wire (frame + preamble + inter-frame gap)"),
    p!("traffic.size_dist", Choice(&["fixed", "imix", "bimodal", "empirical", "pcap"]), None, "fixed", 0, 0, "frame-size distribution"),
    p!("traffic.size", Int, Bytes, "1500", 64, 9216, "frame size incl. FCS for size_dist = fixed"),
    p!("traffic.bimodal_small", Int, Bytes, "64", 64, 9216, "small frame size for size_dist = bimodal"),
    p!("traffic.bimodal_large", Int, Bytes, "1500", 64, 9216, "large frame size for size_dist = bimodal"),
    p!("traffic.bimodal_small_share", Float, None, "0.5", 0, 1, "share of small frames for size_dist = bimodal"),
    p!("traffic.sizes", IntList, Bytes, "[]", 64, 9216, "frame sizes for size_dist = empirical"),
    p!("traffic.weights", FloatList, None, "[]", 0, INF, "relative weights of traffic.sizes"),
    p!("traffic.pcap", Text, None, "", 0, 0, "pcap file replayed for size_dist = pcap (sizes, flows and gaps scaled to traffic.rate)"),
    p!("traffic.arrival", Choice(&["constant", "poisson", "bursty"]), None, "constant", 0, 0, "inter-arrival process"),
    p!("traffic.burst_len", Int, None, "32", 1, 1_000_000, "frames per back-to-back burst for arrival = bursty"),
    p!("traffic.flows", Int, None, "1024", 1, 16_777_216, "number of distinct 5-tuples (one 10.0.0.0/8 client address each)"),
    p!("traffic.flow_popularity", Choice(&["uniform", "zipf", "hot"]), None, "uniform", 0, 0, "how packets pick a flow (hot: a KVS hot set, see traffic.hot_*)"),
    p!("traffic.zipf_s", Float, None, "1.0", 0, 5, "Zipf exponent for flow_popularity = zipf"),
    // --- NIC ---------------------------------------------------------------
    p!("nic.count", Int, None, "1", 1, 8, "number of NICs (one port each), each with its own cores"),
    p!("nic.line_rate", Int, Rate, "100Gbps", 1_000, 1.6e6, "Ethernet line rate of each port"),
    p!("nic.rx_ring_size", Int, None, "1024", 16, 65536, "Rx descriptors per queue (one queue per core); a power of two"),
    p!("nic.tx_ring_size", Int, None, "1024", 16, 65536, "Tx descriptors per queue; a power of two"),
    p!("nic.rx_desc_size", Int, Bytes, "16", 8, 256, "bytes of one Rx scatter entry in host memory (a descriptor has one per buffer)"),
    p!("nic.tx_desc_size", Int, Bytes, "64", 8, 256, "bytes of one Tx WQE building block (WQEBB); a WQE is 32 B of control and Ethernet segments, the inlined bytes and 16 B per buffer, rounded up to WQEBBs"),
    p!("nic.cqe_size", Int, Bytes, "64", 8, 256, "bytes of one completion entry the NIC writes"),
    p!("nic.rx_cqe_comp", Bool, None, "false", 0, 0, "Rx CQE compression: 8 completions share one 64 B line, written when 8 are ready or the queue idles (mlx5 rxq_cqe_comp_en)"),
    p!("nic.desc_fetch", Int, None, "32", 1, 256, "descriptors the NIC fetches per PCIe read (it keeps up to twice this many cached)"),
    p!("nic.tx_cqe_every", Int, None, "32", 1, 65536, "Tx WQEs per requested completion (CQE)"),
    p!("nic.nicmem_latency", Int, Time, "100ns", 0, 1e7, "access time of on-NIC memory (nicmem), for the NIC's DMA engine or a host MMIO read"),
    p!("nic.nicmem_capacity", Int, Bytes, "256KiB", 0, 4e9, "on-NIC memory the NIC exposes to software (nicmem), per NIC"),
    p!("nic.nicmem_size", Int, Bytes, "256KiB", 0, 4e9, "nicmem the driver uses for packet buffers, per NIC (at most nic.nicmem_capacity)"),
    p!("nic.nicmem_buf_size", Int, Bytes, "2KiB", 64, 65536, "bytes of one nicmem payload buffer"),
    p!("nic.header_split", Bool, None, "false", 0, 0, "split each received frame at nic.split_offset: header to a host buffer, payload to a second buffer (two scatter entries per descriptor, two chained mbufs)"),
    p!("nic.split_offset", Int, Bytes, "64", 14, 9216, "header bytes of a split frame; frames no longer than this are not split"),
    p!("nic.payload_mem", Choice(&["host", "nicmem"]), None, "host", 0, 0, "where payload buffers of split frames live; nicmem = a primary ring of nicmem buffers, spilling to host buffers when it is empty (split rings)"),
    p!("nic.host_queues", Int, None, "0", 0, 256, "queues per NIC that get no nicmem buffers with payload_mem = nicmem (the last ones); the others are nicmem queues"),
    p!("nic.tx_inline", Bool, None, "false", 0, 0, "header inlining: the core copies a split frame's header into the Tx WQE, so the NIC reads no header buffer"),
    p!("nic.max_wqe_size", Int, Bytes, "1KiB", 64, 65536, "largest Tx WQE the NIC accepts (bounds inlined bytes)"),
    p!("nic.rx_buffer", Int, Bytes, "256KiB", 2048, 1e9, "on-NIC receive buffer per port; full = drop"),
    p!("nic.flow_control", Bool, None, "false", 0, 0, "IEEE 802.3x PAUSE: the port sends XOFF when its Rx buffer fills to within mlx5's headroom of full and XON 9216 B below that; the source holds its frames meanwhile instead of the NIC dropping them, and latency counts from when the source made a frame"),
    p!("nic.cable_len", Int, None, "7", 0, 10000, "metres of cable to the link partner (PAUSE headroom and reaction; mlx5's default assumption is 7 m)"),
    p!("nic.tx_buffer", Int, Bytes, "128KiB", 2048, 1e9, "on-NIC transmit buffer per port (fetched frames waiting for the wire)"),
    p!("nic.tx_desched", Bool, None, "false", 0, 0, "Tx scheduling as on ConnectX-5: a queue whose frame does not fit the Tx buffer is skipped for one PCIe read round trip"),
    p!("nic.tx_queue_buffer", Int, Bytes, "0B", 0, 1e9, "with tx_desched: bytes of one Tx queue's frames the NIC holds (read or being read, until they leave the wire) before it deschedules that queue; 0 = only the port's tx_buffer limits a queue"),
    p!("nic.accel", Bool, None, "false", 0, 0, "accelNFV: the NIC counts bytes and packets per flow itself and sends frames back out (hairpin); no host core sees them"),
    p!("nic.ctx_cache_size", Int, Bytes, "2MiB", 64, 1e9, "accelNFV: on-NIC cache of 64 B flow contexts; misses fetch them from host memory over PCIe"),
    p!("nic.pipeline_mpps", Float, None, "150", 1, 10_000, "packets per microsecond x1000 the NIC's packet pipeline processes (Mpps)"),
    p!("nic.remote_socket", BoolList, None, "[]", 0, 0, "per NIC: attached to the remote socket (DMA bypasses the local LLC); missing = false"),
    p!("nic.ddio", BoolList, None, "[]", 0, 0, "per NIC: DDIO allocating writes on its root port; missing = true"),
    // --- PCIe --------------------------------------------------------------
    p!("pcie.gen", Int, None, "3", 1, 5, "PCIe generation"),
    p!("pcie.lanes", Int, None, "16", 1, 32, "PCIe lanes"),
    p!("pcie.mps", Int, Bytes, "256", 128, 4096, "maximum payload size; a power of two"),
    p!("pcie.mrrs", Int, Bytes, "512", 128, 4096, "maximum read request size; a power of two"),
    p!("pcie.rcb", Int, Bytes, "64", 64, 128, "read completion boundary"),
    p!("pcie.latency", Int, Time, "250ns", 0, 1e9, "one-way latency device <-> root complex, excluding serialisation"),
    p!("pcie.max_read_tags", Int, None, "128", 1, 1024, "outstanding non-posted read requests per device"),
    // --- pcie-bench style microbenchmark (instead of packet traffic) --------
    p!("pcie_bench.mode", Choice(&["off", "read", "write", "read_write", "latency"]), None, "off", 0, 0, "run a pcie-bench microbenchmark of the device's DMA instead of packet traffic"),
    p!("pcie_bench.size", Int, Bytes, "64", 1, 65536, "bytes per DMA transfer"),
    p!("pcie_bench.window", Int, Bytes, "8KiB", 64, 1e10, "host buffer the transfers walk through (wrapping)"),
    p!("pcie_bench.cache", Choice(&["warm", "cold"]), None, "warm", 0, 0, "host buffer cached before the run (warm) or flushed before each transfer (cold)"),
    p!("pcie_bench.transfers", Int, None, "100000", 1, 100_000_000, "transfers to time"),
    // --- CPU copy microbenchmark between host memory and NIC memory ------
    p!("copy_bench.mode", Choice(&["off", "host_to_host", "host_to_nicmem", "nicmem_to_host"]), None, "off", 0, 0, "run a memcpy loop on one core instead of packet traffic (nicmem paper Sec. 6.5)"),
    p!("copy_bench.size", Int, Bytes, "32KiB", 64, 1e9, "bytes of the source (and destination) buffer"),
    p!("copy_bench.iterations", Int, None, "100", 1, 1_000_000, "copies of the whole buffer"),
    // --- LLC, private caches, DDIO, CAT --------------------------------------
    p!("llc.size", Int, Bytes, "24.75MiB", 65536, 1e10, "last-level cache capacity (all slices)"),
    p!("llc.ways", Int, None, "11", 1, 20, "LLC associativity"),
    p!("llc.slices", Int, None, "18", 1, 128, "LLC slices (sets are spread over slices by the slice hash)"),
    p!("llc.slice_hash", Bool, None, "true", 0, 0, "hash line addresses to slices (Intel's complex addressing) instead of plain modulo"),
    p!("llc.replacement", Choice(&["lru", "random", "qlru", "qlru_adaptive"]), None, "lru", 0, 0, "LLC replacement policy within the allowed ways"),
    p!("llc.latency", Int, Time, "20ns", 0, 1e6, "load-to-use latency of an LLC hit"),
    p!("llc.ddio_ways", Int, None, "2", 0, 20, "LLC ways DMA writes may allocate into (IIO LLC WAYS); 0 = DDIO off"),
    p!("llc.cat_masks", IntList, None, "[]", 1, 4294967295u32, "per NIC: CAT way mask of the cores serving it; missing = all ways"),
    p!("l2.size", Int, Bytes, "1MiB", 4096, 1e9, "private L2 per core"),
    p!("l2.ways", Int, None, "16", 1, 20, "L2 associativity"),
    p!("l2.latency", Int, Time, "6ns", 0, 1e6, "load-to-use latency of an L2 hit"),
    // --- DRAM --------------------------------------------------------------
    p!("dram.channels", Int, None, "6", 1, 64, "memory channels of the socket"),
    p!("dram.channel_bw", Int, ByteRate, "21333MB/s", 100, 1e7, "peak bandwidth of one channel"),
    p!("dram.latency", Int, Time, "90ns", 1, 1e7, "idle load-to-use latency of a DRAM access"),
    p!("dram.remote_latency", Int, Time, "140ns", 1, 1e7, "latency of a DMA served through the inter-socket link"),
    // --- cores and the poll loop -------------------------------------------
    p!("cpu.cores", Int, None, "1", 1, 256, "cores per NIC, each polling one Rx queue and owning one Tx queue"),
    p!("cpu.max_cores", Int, None, "18", 1, 32, "physical cores of the socket"),
    p!("cpu.freq", Int, Freq, "2.3GHz", 100, 10_000, "core clock"),
    p!("cpu.mlp", Int, None, "10", 1, 64, "independent cache misses a core overlaps (line fill buffers)"),
    p!("cpu.wc_buffers", Int, None, "10", 1, 64, "write-combining buffers per core: 64 B MMIO stores in flight to write-combined memory"),
    p!("cpu.uc_load_bytes", Int, Bytes, "32", 1, 64, "bytes one load moves from uncached memory (one MMIO read each, serialised)"),
    p!("cpu.nt_store_threshold", Int, Bytes, "16MiB", 0, 1e12, "copies at least this large use non-temporal stores (glibc memcpy's __x86_shared_non_temporal_threshold); 0 = never"),
    p!("cpu.copy_cycles_per_line", Int, None, "2", 0, 1000, "instructions' cycles to copy one 64 B line beyond its memory stalls"),
    p!("cpu.poll_cycles", Int, None, "60", 0, 100_000, "cycles of one poll-loop iteration (rx_burst + tx_burst call overhead)"),
    p!("cpu.rx_cycles", Int, None, "40", 0, 100_000, "driver cycles per received packet (CQE parse, mbuf init, refill)"),
    p!("cpu.tx_cycles", Int, None, "40", 0, 100_000, "driver cycles per transmitted packet (WQE build, completion, free)"),
    p!("cpu.seg_cycles", Int, None, "20", 0, 100_000, "driver cycles per extra buffer (chained mbuf / scatter entry) of a packet, on Rx and on Tx"),
    p!("app.rx_burst", Int, None, "32", 1, 1024, "packets taken per rx_burst call"),
    p!("app.tx_burst", Int, None, "32", 1, 1024, "packets handed per tx_burst call"),
    p!("app.sw_queue", Int, None, "1024", 0, 1_000_000, "packets the application buffers when the Tx ring is full (FastClick queue)"),
    p!("app.nf", Choice(&["l2fwd", "l3fwd", "workpackage", "nat", "lb", "flowcount", "nat_lb", "kvs"]), None, "l2fwd", 0, 0, "network function each core runs (nat_lb: NAT then LB, a table each; kvs: a MICA-like key-value server; requests are the traffic's frames, keys its flows)"),
    p!("app.nf_cycles", Int, None, "20", 0, 10_000_000, "compute cycles per packet of the NF itself (beyond its memory accesses)"),
    p!("app.wp_reads", Int, None, "0", 0, 100_000, "WorkPackage: random reads per packet"),
    p!("app.wp_size", Int, Bytes, "8MiB", 64, 1e11, "WorkPackage: buffer the random reads fall into"),
    p!("app.l3fwd_routes", Int, None, "16384", 1, 10_000_000, "l3fwd: routes in the longest-prefix-match table"),
    p!("app.flow_table_size", Int, None, "1048576", 1024, 16_777_216, "nat/lb: flow entries per core's cuckoo table (NAT uses two per flow)"),
    p!("app.preload_flows", Bool, None, "true", 0, 0, "nat/lb/flowcount and accelNFV: start with every flow of the traffic in its core's table and the NIC's context cache (a long-running NF); false = tables fill during the run"),
    p!("app.lb_backends", Int, None, "32", 1, 65536, "lb: backend servers new flows are spread over round-robin"),
    p!("mempool.size", Int, None, "65535", 64, 100_000_000, "mbufs in each NIC's packet pool"),
    p!("mempool.cache", Int, None, "256", 0, 512, "per-core mempool cache (DPDK caps it at 512)"),
    p!("mempool.order", Choice(&["lifo", "fifo"]), None, "lifo", 0, 0, "reuse order of freed buffers: lifo (DPDK per-core cache) or fifo"),
    p!("mempool.mbuf_size", Int, Bytes, "2368", 512, 65536, "bytes of one mempool object: 64 B object header + 128 B mbuf + 128 B headroom + data room"),
    // --- co-runner -----------------------------------------------------------
    p!("corunner.enabled", Bool, None, "false", 0, 0, "run a memory-streaming co-runner on a core of its own"),
    p!("corunner.buffer", Int, Bytes, "64MiB", 64, 1e11, "buffer the co-runner streams through"),
    p!("corunner.cat_mask", Int, None, "0", 0, 4294967295u32, "co-runner CAT way mask; 0 = all ways"),
    // --- BlueField-3: host/Arm/DPA processors, the DPA's memory paths, and the DPA workloads (issue 7) ---
    p!("dpa_bench.workload", Choice(&["off", "compute", "chase", "bandwidth", "latency", "net", "recency", "clocksync"]), None, "off", 0, 0, "run a BlueField-3 workload on host, Arm or DPA threads instead of packet traffic (DPA paper)"),
    p!("dpa_bench.proc", Choice(&["host", "arm", "dpa"]), None, "dpa", 0, 0, "processor whose threads run the workload"),
    p!("dpa_bench.threads", Int, None, "1", 1, 256, "threads running the workload (spread round-robin over the processor's cores)"),
    p!("dpa_bench.mem", Choice(&["host", "arm", "dpa"]), None, "dpa", 0, 0, "memory holding the data buffer (chase, bandwidth, random reads, KV aggregation buffer); host/arm processors use their own"),
    p!("dpa_bench.mem2", Choice(&["none", "host", "arm", "dpa"]), None, "none", 0, 0, "bandwidth: a second memory the last mem2_threads threads use (mixed-memory bandwidth)"),
    p!("dpa_bench.mem2_threads", Int, None, "0", 0, 256, "bandwidth: threads (of dpa_bench.threads) that access dpa_bench.mem2"),
    p!("dpa_bench.net_buf", Choice(&["host", "arm", "dpa"]), None, "dpa", 0, 0, "memory of the network (packet) buffers of a DPA workload"),
    p!("dpa_bench.pattern", Choice(&["seq", "random"]), None, "seq", 0, 0, "bandwidth: sequential or uniformly random 8 B accesses"),
    p!("dpa_bench.op", Choice(&["read", "write"]), None, "read", 0, 0, "bandwidth: loads of 8 B or stores of whole 64 B lines"),
    p!("dpa_bench.working_set", Int, Bytes, "1MiB", 64, 16e9, "chase/bandwidth: bytes the accesses fall into (shared by the threads of one memory)"),
    p!("dpa_bench.stride", Int, Bytes, "64", 8, 1e9, "chase: distance between the nodes of the pointer chain"),
    p!("dpa_bench.accesses", Int, None, "20000", 1, 1e9, "chase/bandwidth: measured accesses per thread (after one warm-up pass)"),
    p!("dpa_bench.compute_ops", Int, None, "100000", 1, 1e12, "compute: multiplications per thread"),
    p!("dpa_bench.net_mode", Choice(&["send", "receive", "reflector", "ipcheck", "kv"]), None, "reflector", 0, 0, "net: what each thread does per packet"),
    p!("dpa_bench.pkt_size", Int, Bytes, "1024", 64, 9216, "net/latency: frame size"),
    p!("dpa_bench.packets", Int, None, "2000", 1, 1e9, "net/latency/recency: packets (round trips for latency; the bunch for recency) per thread"),
    p!("dpa_bench.payload_read", Float, None, "0", 0, 1, "latency: share of the payload the reflector reads and sums as 8 B integers"),
    p!("dpa_bench.random_reads", Int, None, "0", 0, 100_000, "latency: random 8 B reads per packet from an 8 MiB buffer in dpa_bench.mem"),
    p!("dpa_bench.kv_tuples", Int, None, "8", 1, 512, "kv: 16 B key-value tuples per packet (after a 64 B header)"),
    p!("dpa_bench.kv_keys", Int, None, "65536", 1, 4_194_304, "kv: distinct keys (16 B aggregation entries)"),
    p!("dpa_bench.kv_dist", Choice(&["uniform", "zipf"]), None, "uniform", 0, 0, "kv: key popularity (zipf stands in for the skewed Yelp trace)"),
    p!("dpa_bench.kv_zipf_s", Float, None, "0.99", 0, 5, "kv: Zipf exponent for kv_dist = zipf"),
    p!("host.threads_per_core", Int, None, "2", 1, 8, "hardware threads per host core (Hyper-Threading)"),
    p!("host.ipc", Float, None, "4", 0.01, 64, "multiplications a host core issues per cycle, over all its threads"),
    p!("host.thread_ipc", Float, None, "4", 0.01, 64, "multiplications one host thread issues per cycle"),
    p!("host.l1_size", Int, Bytes, "48KiB", 1024, 1e7, "host L1 data cache per core"),
    p!("host.l1_ways", Int, None, "12", 1, 20, "host L1 associativity"),
    p!("host.l1_latency", Int, Time, "2ns", 0, 1e6, "host L1 load-to-use latency"),
    p!("host.pkt_instr", Int, None, "100", 0, 1e7, "host instructions per packet sent or received (driver and loop)"),
    p!("host.doorbell_latency", Int, Time, "0ns", 0, 1e7, "host: extra latency of a doorbell (MMIO write) before it crosses PCIe"),
    p!("arm.cores", Int, None, "16", 1, 256, "Arm cores"),
    p!("arm.freq", Int, Freq, "2GHz", 100, 10_000, "Arm core clock"),
    p!("arm.ipc", Float, None, "3", 0.01, 64, "multiplications an Arm core issues per cycle"),
    p!("arm.thread_ipc", Float, None, "3", 0.01, 64, "multiplications one Arm thread issues per cycle"),
    p!("arm.mlp", Int, None, "10", 1, 64, "independent cache misses an Arm core overlaps"),
    p!("arm.l1_size", Int, Bytes, "64KiB", 1024, 1e7, "Arm L1 data cache per core"),
    p!("arm.l1_ways", Int, None, "4", 1, 20, "Arm L1 associativity"),
    p!("arm.l1_latency", Int, Time, "2ns", 0, 1e6, "Arm L1 load-to-use latency"),
    p!("arm.l2_size", Int, Bytes, "512KiB", 4096, 1e9, "Arm private L2 per core"),
    p!("arm.l2_ways", Int, None, "8", 1, 20, "Arm L2 associativity"),
    p!("arm.l2_latency", Int, Time, "5ns", 0, 1e6, "Arm L2 hit latency beyond L1"),
    p!("arm.l3_size", Int, Bytes, "16MiB", 65536, 1e10, "Arm shared L3"),
    p!("arm.l3_ways", Int, None, "16", 1, 20, "Arm L3 associativity"),
    p!("arm.l3_latency", Int, Time, "30ns", 0, 1e6, "Arm L3 hit latency beyond L2"),
    p!("arm.dram_channels", Int, None, "2", 1, 64, "Arm DDR channels (DPA memory is a region of the same DRAM)"),
    p!("arm.dram_channel_bw", Int, ByteRate, "40000MB/s", 100, 1e7, "peak bandwidth of one Arm DDR channel"),
    p!("arm.dram_latency", Int, Time, "90ns", 1, 1e7, "Arm DRAM latency beyond the L3"),
    p!("arm.pkt_instr", Int, None, "100", 0, 1e7, "Arm instructions per packet sent or received"),
    p!("arm.memory_size", Int, Bytes, "15GiB", 1e6, 17179869184u64, "Arm memory usable for buffers"),
    p!("dpa.cores", Int, None, "16", 1, 64, "DPA cores"),
    p!("dpa.threads_per_core", Int, None, "16", 1, 64, "hardware threads per DPA core"),
    p!("dpa.usable_threads", Int, None, "190", 1, 4096, "DPA threads the driver lets run at once"),
    p!("dpa.freq", Int, Freq, "1.8GHz", 100, 10_000, "DPA core clock"),
    p!("dpa.ipc", Float, None, "1", 0.01, 64, "instructions a DPA core issues per cycle, over all its threads"),
    p!("dpa.thread_ipc", Float, None, "0.25", 0.01, 64, "multiplications one DPA thread issues per cycle (in order: a dependent multiply waits out the multiplier)"),
    p!("dpa.outstanding", Int, None, "1", 1, 64, "loads one DPA thread has in flight (in-order: it blocks on a miss)"),
    p!("dpa.l1_size", Int, Bytes, "1KiB", 256, 1e6, "DPA L1 data cache per thread"),
    p!("dpa.l1_ways", Int, None, "4", 1, 20, "DPA L1 associativity"),
    p!("dpa.l1_latency", Int, Time, "15ns", 0, 1e6, "DPA L1 load-to-use latency"),
    p!("dpa.l2_size", Int, Bytes, "1.5MiB", 4096, 1e9, "DPA L2, shared by all DPA cores"),
    p!("dpa.l2_ways", Int, None, "12", 1, 20, "DPA L2 associativity"),
    p!("dpa.l2_latency", Int, Time, "40ns", 0, 1e6, "DPA L2 hit latency beyond L1"),
    p!("dpa.l3_size", Int, Bytes, "3MiB", 4096, 1e9, "DPA L3, shared"),
    p!("dpa.l3_ways", Int, None, "12", 1, 20, "DPA L3 associativity"),
    p!("dpa.l3_latency", Int, Time, "60ns", 0, 1e6, "DPA L3 hit latency beyond L2"),
    p!("dpa.memory_size", Int, Bytes, "1GiB", 1e6, 17179869184u64, "DPA memory: the region of Arm DRAM reserved for the DPA"),
    p!("dpa.pkt_instr", Int, None, "100", 0, 1e7, "DPA instructions per packet sent or received"),
    p!("bf3.switch_latency", Int, Time, "400ns", 0, 1e7, "round trip through the NIC switch for a DPA memory request"),
    p!("bf3.switch_bw", Int, ByteRate, "100GB/s", 100, 1e7, "NIC switch bandwidth per direction"),
    p!("bf3.cache_port_read_bw", Int, ByteRate, "12.5GB/s", 100, 1e7, "DPA L2/L3 <-> NIC switch port, data into the DPA caches (fills, NIC reads of packets in DPA memory)"),
    p!("bf3.cache_port_write_bw", Int, ByteRate, "6.25GB/s", 100, 1e7, "DPA L2/L3 <-> NIC switch port, data written into DPA memory (writebacks, NIC packet writes)"),
    p!("bf3.aperture_latency", Int, Time, "20ns", 0, 1e7, "memory aperture: turns a DPA load/store to host or Arm memory into a PCIe transaction"),
    p!("bf3.aperture_read_tags", Int, None, "128", 1, 4096, "reads the aperture keeps outstanding (all DPA threads)"),
    p!("bf3.aperture_write_bw", Int, ByteRate, "14GB/s", 100, 1e7, "posted writes through the aperture"),
    p!("bf3.arm_port_bw", Int, ByteRate, "64GB/s", 100, 1e7, "NIC switch <-> Arm L3 port per direction"),
    p!("bf3.nic_latency", Int, Time, "300ns", 0, 1e7, "NIC packet pipeline latency, wire to first write (and read to wire)"),
    p!("bf3.nic_l2_ways", Int, None, "1", 0, 20, "DPA L2 ways NIC packet writes allocate into (DPA memory as network buffer); 0 = none"),
    p!("bf3.dpa_doorbell_latency", Int, Time, "50ns", 0, 1e7, "DPA doorbell to the on-chip NIC"),
    // --- NetDIMM paper: one-way latency of a NIC attachment (issue 6) -------
    p!("netdimm.nic", Choice(&["off", "dnic", "dnic.zcpy", "inic", "inic.zcpy", "netdimm"]), None, "off", 0, 0, "NIC attachment whose one-way host-to-host latency is modelled (NetDIMM paper); off = packet forwarding"),
    p!("netdimm.traffic", Choice(&["fixed", "database", "webserver", "hadoop"]), None, "fixed", 0, 0, "message sizes: fixed, or a Facebook cluster's packet-size distribution (Roy et al., SIGCOMM'15)"),
    p!("netdimm.size", Int, Bytes, "64", 1, 65536, "message payload (UDP) bytes for traffic = fixed"),
    p!("netdimm.messages", Int, None, "2000", 1, 10_000_000, "messages sent one at a time (the first ring's worth warm the caches and are not measured)"),
    p!("netdimm.mtu", Int, Bytes, "1514", 64, 9216, "largest Ethernet frame (header + payload, no FCS)"),
    p!("netdimm.segmentation", Bool, None, "false", 0, 0, "split messages larger than the MTU into frames; off = such a message is an error"),
    p!("netdimm.app_buffers", Choice(&["netdimm", "host"]), None, "netdimm", 0, 0, "where applications allocate network buffers; host takes the COPY_NEEDED path"),
    p!("netdimm.channel", Int, None, "0", 0, 63, "memory channel the NetDIMM sits on (must be < dram.channels)"),
    p!("netdimm.interleave", Bool, None, "false", 0, 0, "interleave the NetDIMM address range across channels (not allowed: the nNIC sees one channel)"),
    p!("netdimm.ranks", Int, None, "2", 1, 8, "ranks of the NetDIMM's local DRAM"),
    p!("netdimm.banks", Int, None, "16", 1, 64, "banks per rank"),
    p!("netdimm.subarrays", Int, None, "512", 1, 4096, "subarrays per bank"),
    p!("netdimm.rows_per_subarray", Int, None, "128", 2, 4096, "rows per subarray"),
    p!("netdimm.row_size", Int, Bytes, "8KiB", 512, 65536, "bytes of one row across a rank's devices"),
    p!("netdimm.t_cmd", Int, Time, "5ns", 0, 1e6, "buffer-device delay before a host command reaches the nController"),
    p!("netdimm.t_rdy", Int, Time, "1.67ns", 0, 1e6, "RDY on the response pins after the data is ready"),
    p!("netdimm.ncache_size", Int, Bytes, "64KiB", 64, 1e8, "nCache capacity"),
    p!("netdimm.ncache_ways", Int, None, "8", 1, 64, "nCache associativity"),
    p!("netdimm.ncache_latency", Int, Time, "2ns", 0, 1e6, "nCache SRAM access time"),
    p!("netdimm.prefetch_lines", Int, None, "4", 0, 64, "lines the next-line prefetcher fetches after a payload access"),
    p!("netdimm.alloc_pages", Int, None, "2", 0, 64, "pages allocCache keeps per subarray"),
    p!("ddr.t_rcd", Int, Time, "13.32ns", 0, 1e6, "DDR ACTIVATE to READ/WRITE"),
    p!("ddr.t_cl", Int, Time, "13.32ns", 0, 1e6, "DDR READ to data (CAS latency)"),
    p!("ddr.t_cwl", Int, Time, "10ns", 0, 1e6, "DDR WRITE to data (CAS write latency)"),
    p!("ddr.t_rp", Int, Time, "13.32ns", 0, 1e6, "DDR PRECHARGE to ACTIVATE"),
    p!("ddr.t_ras", Int, Time, "32ns", 0, 1e6, "DDR ACTIVATE to PRECHARGE"),
    p!("ddr.t_burst", Int, Time, "3.33ns", 1, 1e6, "one 64 B burst (BL8) on the data bus"),
    p!("cpu.flush_cycles", Int, None, "4", 0, 100_000, "issue cycles of one cache-line flush or invalidate (clflushopt); the fence then waits for write-backs"),
    p!("nic.reg_latency", Int, Time, "10ns", 0, 1e7, "time a NIC takes to answer a register read, inside the device"),
    p!("inic.fabric_latency", Int, Time, "20ns", 0, 1e7, "one-way latency between a core and an on-die NIC over the on-chip interconnect"),
    p!("network.phy_latency", Int, Time, "100ns", 0, 1e7, "MAC + PHY latency of one port, each way"),
    p!("network.cable_latency", Int, Time, "5ns", 0, 1e9, "propagation over one link"),
    p!("network.switch_latency", Int, Time, "100ns", 0, 1e7, "port-to-port latency of one switch (store and forward adds the frame's serialisation)"),
    p!("network.switch_hops", Int, None, "0", 0, 16, "switches between the two hosts (0 = directly connected)"),
    p!("netdimm.nf", Choice(&["none", "l3f", "dpi"]), None, "none", 0, 0, "instead of one-way latency: the receiving host runs this NF on line-rate traffic beside a memory-bound co-runner, whose latency is reported (Fig 12b)"),
    // --- shRing paper: shared receive rings (issue 5) ------------------------
    p!("rings.sharing", Int, None, "1", 1, 64, "cores sharing one Rx descriptor ring (shRing/N); 1 = a private ring per core (privRing); each core keeps its own completion ring"),
    p!("rings.discipline", Choice(&["arr", "list"]), None, "arr", 0, 0, "how sharing cores hand descriptors back: arr = bitmap + in-order consumer index (RxArr), list = linked free list the NIC follows (RxList)"),
    p!("rings.dynamic", Bool, None, "false", 0, 0, "dshRing (shRing Sec. 4.5): keep private and shared rings and switch RSS between them by the policy below"),
    p!("rings.dshring_period", Int, Time, "10ms", 1_000, 10e12, "dshRing: sampling period of throughput, memory bandwidth and Rx-call intervals"),
    p!("rings.dshring_window", Int, None, "16", 2, 1024, "dshRing: samples in the sliding window"),
    p!("rings.dshring_gbps", Int, Rate, "170Gbps", 1, 1.6e7, "dshRing: throughput (all NICs) above which sharing may pay"),
    p!("rings.dshring_mem_bw", Int, ByteRate, "26843MB/s", 1, 1e9, "dshRing: memory bandwidth above which sharing may pay (the paper: 25 GiB/s)"),
    p!("rings.dshring_skew", Float, None, "32", 1, 1e6, "dshRing: a core is overloaded when the spread (std) of the cores' Rx-call intervals exceeds this many times their median"),
    p!("llc.snoop_latency", Int, Time, "48ns", 0, 1e6, "load-to-use latency of a line served by snooping another core's private cache (modified line read, or a store to a shared line)"),
    p!("cpu.atomic_cycles", Int, None, "18", 0, 10_000, "cycles of a locked read-modify-write (lock or / xchg / cmpxchg) beyond its cache access"),
    p!("app.wp_payload", Choice(&["none", "read", "write"]), None, "none", 0, 0, "WorkPackage: also read or overwrite every payload line of the packet (shRing Sec. 5.2)"),
    p!("traffic.target_share", Float, None, "0", 0, 1, "share of frames steered at the first core of each NIC (RSS hash 0), the shRing paper's overloaded target core (Fig 12)"),
    p!("traffic.target_size", Int, Bytes, "64", 0, 9216, "frame size of the frames steered at the target core; 0 = they keep their own size (load imbalance without a size change)"),
    p!("app.slow_core_reads", Int, None, "0", 0, 1_000_000, "WorkPackage: extra random reads per packet on the first core of each NIC (shRing Fig 11's slowed target core)"),
    // --- nicmem paper: key-value store with hot items in nicmem (issue 4) ---
    p!("traffic.hot_flows", Int, None, "0", 0, 16_777_216, "flow_popularity = hot: the hot flows (KVS keys), the first ones"),
    p!("traffic.hot_share", Float, None, "0", 0, 1, "flow_popularity = hot: share of frames aimed at the hot flows"),
    p!("kvs.value_size", Int, Bytes, "1KiB", 8, 8192, "kvs: bytes of a value (keys are 128 B); frames with room for headers (70 B), key and value are SETs, shorter ones GETs"),
    p!("kvs.hot_area", Int, Bytes, "0", 0, 4e9, "kvs: nicmem for hot items' stable buffers (nmKVS); 0 = baseline MICA, every value in host memory"),
    // --- load that changes during a run (shRing Fig 13) ----------------------
    p!("traffic.phase_at", IntList, Time, "[]", 1, 100e12, "start times (from the start of the run, warm-up included; increasing) of later load phases; each phase sets the entries of phase_rate and phase_target_share at its index"),
    p!("traffic.phase_rate", IntList, Rate, "[]", 1, 1.6e6, "offered rate per port of each phase in traffic.phase_at (empty: traffic.rate throughout)"),
    p!("traffic.phase_target_share", FloatList, None, "[]", 0, 1, "traffic.target_share of each phase in traffic.phase_at (empty: traffic.target_share throughout)"),
    p!("sim.sample_period", Int, Time, "0ns", 0, 100e12, "record a timeline sample (throughput, drops, dshRing's ring set) every period from the start of the run; 0 = no timeline"),
    p!("dpa_bench.sync_interval", Int, Time, "100ms", 1, 100e12, "clocksync: time between two synchronisations (the bound grows with drift in between)"),
    p!("dpa_bench.drift_ppm", Float, None, "10", 0, 1e6, "clocksync: clock drift, microseconds per second"),
    p!("dpa_bench.background", Int, Rate, "0Gbps", 0, 1.6e6, "clocksync: host L2-reflector load between the two hosts, per direction (0 = none)"),
    p!("netdimm.load", Float, None, "0", 0, 0.95, "share of the line rate offered as Poisson message arrivals, queueing at cores, NICs and port; 0 = one at a time"),
    p!("nic.rx_inline", Bool, None, "false", 0, 0, "Rx header inlining (mlx5 scatter-to-CQE with 128 B CQEs, which the nicmem paper's NIC lacked): a split frame's header (at most 64 B) arrives inside its completion entry, the descriptor has one scatter entry, and the driver copies the header into the mbuf; needs header_split and rx_cqe_comp = false"),
    // --- closed-loop client (nicmem Sec. 6.6's unloaded KVS latency) -------------
    p!("traffic.closed_loop", Int, None, "0", 0, 1_048_576, "requests each port's client keeps outstanding: the next arrives when a response leaves or a request is dropped, back to back while the window is open (traffic.rate and arrival are then unused); 0 = open loop"),
    p!("traffic.source_queue", Int, None, "1024", 1, 1_048_576, "with nic.flow_control: frames the source queues while PAUSE holds it before it blocks (a software generator's Tx ring) and its schedule slips"),
    p!("traffic.client_turnaround", Int, Time, "1us", 0, 1e9, "closed loop: from a response's last bit leaving to the next request's first bit arriving (both wires and the client's stack; an assumption, it only spaces requests)"),
    p!("traffic.hot_share_small", Float, None, "-1", -1, 1, "flow_popularity = hot with size_dist = bimodal: share of the small frames (a KVS client's GETs) aimed at the hot flows, the large ones following traffic.hot_share; -1 = traffic.hot_share for all"),
    // --- speed (issue 9) ----------------------------------------------------
    p!("llc.set_sample", Int, None, "1", 1, 1024, "set sampling, for speed: the LLC and L2s model the lines of a fixed, scrambled 1 in N of their sets exactly; other accesses take the recent outcome mix of modelled ones of their kind. 1 = the full model; a power of two"),
];

/// Bytes of frame data a 128 B mlx5 CQE carries (scatter-to-CQE: the first
/// 64 B hold the data, the second the completion).
pub const RX_INLINE_MAX: u64 = 64;

/// A validated parameter value in base units.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Val {
    Int(u64),
    Float(f64),
    Bool(bool),
    Text(String),
    IntList(Vec<u64>),
    FloatList(Vec<f64>),
    BoolList(Vec<bool>),
}

/// A validated scenario: every key of [`PARAMS`] with a value.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Config(pub BTreeMap<&'static str, Val>);

impl Config {
    fn get(&self, key: &str) -> &Val {
        self.0
            .get(key)
            .unwrap_or_else(|| panic!("engine bug: parameter '{key}' is not declared in PARAMS"))
    }
    pub fn u64(&self, key: &str) -> u64 {
        match self.get(key) {
            Val::Int(v) => *v,
            v => panic!("engine bug: '{key}' is {v:?}, not an integer"),
        }
    }
    pub fn usize(&self, key: &str) -> usize {
        self.u64(key) as usize
    }
    pub fn f64(&self, key: &str) -> f64 {
        match self.get(key) {
            Val::Float(v) => *v,
            Val::Int(v) => *v as f64,
            v => panic!("engine bug: '{key}' is {v:?}, not a number"),
        }
    }
    pub fn bool(&self, key: &str) -> bool {
        match self.get(key) {
            Val::Bool(v) => *v,
            v => panic!("engine bug: '{key}' is {v:?}, not a bool"),
        }
    }
    pub fn text(&self, key: &str) -> &str {
        match self.get(key) {
            Val::Text(v) => v,
            v => panic!("engine bug: '{key}' is {v:?}, not text"),
        }
    }
    pub fn ints(&self, key: &str) -> &[u64] {
        match self.get(key) {
            Val::IntList(v) => v,
            v => panic!("engine bug: '{key}' is {v:?}, not a list of integers"),
        }
    }
    pub fn floats(&self, key: &str) -> &[f64] {
        match self.get(key) {
            Val::FloatList(v) => v,
            v => panic!("engine bug: '{key}' is {v:?}, not a list of numbers"),
        }
    }
    pub fn bools(&self, key: &str) -> &[bool] {
        match self.get(key) {
            Val::BoolList(v) => v,
            v => panic!("engine bug: '{key}' is {v:?}, not a list of booleans"),
        }
    }
    /// Per-NIC boolean list entry, `default` when the list is shorter.
    pub fn bool_at(&self, key: &str, i: usize, default: bool) -> bool {
        self.bools(key).get(i).copied().unwrap_or(default)
    }
}

pub fn lookup(key: &str) -> Option<&'static ParamDef> {
    PARAMS.iter().find(|p| p.key == key)
}

/// Flatten nested JSON objects (`{"llc": {"ways": 11}}`) into dotted keys.
pub fn flatten(v: &Value, prefix: &str, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                // A table is a section unless the key itself is a parameter.
                if v.is_object() && lookup(&key).is_none() {
                    flatten(v, &key, out);
                } else {
                    out.push((key, v.clone()));
                }
            }
        }
        _ => out.push((prefix.to_string(), v.clone())),
    }
}

fn did_you_mean(key: &str) -> String {
    let best = PARAMS
        .iter()
        .map(|p| (strsim::jaro_winkler(key, p.key), p.key))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((score, k)) if score > 0.8 => format!("; did you mean '{k}'?"),
        _ => {
            let section = key.split('.').next().unwrap_or("");
            let same: Vec<&str> = PARAMS
                .iter()
                .filter(|p| p.key.starts_with(&format!("{section}.")))
                .map(|p| p.key)
                .collect();
            if same.is_empty() {
                // In order of first appearance (sections recur in the table).
                let mut secs: Vec<&str> = vec![];
                for p in PARAMS {
                    let sec = p.key.split('.').next().unwrap();
                    if !secs.contains(&sec) {
                        secs.push(sec);
                    }
                }
                format!("; sections are {}", secs.join(", "))
            } else {
                format!("; keys of '{}' are {}", section.escape_debug(), same.join(", "))
            }
        }
    }
}

fn describe_range(p: &ParamDef) -> String {
    let u = p.unit.base();
    let fmt = |x: f64| {
        if x.fract() == 0.0 && x.abs() < 1e15 {
            format!("{}", x as i64)
        } else {
            format!("{x}")
        }
    };
    match (p.min.is_finite(), p.max.is_finite()) {
        (true, true) => format!("{}..={} {u}", fmt(p.min), fmt(p.max))
            .trim_end()
            .to_string(),
        (true, false) => format!(">= {} {u}", fmt(p.min)).trim_end().to_string(),
        _ => "any".into(),
    }
}

fn parse_number(p: &ParamDef, v: &Value) -> Result<f64, String> {
    let key = p.key;
    let x = match v {
        Value::Number(n) => {
            let x = n.as_f64().unwrap();
            if matches!(
                p.unit,
                Unit::Time | Unit::Rate | Unit::Freq | Unit::ByteRate
            ) {
                return Err(format!("{key} = {x}: give a unit, {}", p.unit.accepted()));
            }
            x
        }
        // Way masks read best in hex, as CAT and IIO LLC WAYS are written.
        Value::String(s) if p.unit == Unit::None && s.starts_with("0x") => {
            u64::from_str_radix(&s[2..], 16)
                .map_err(|_| format!("{key} = {s}: not a hex number"))? as f64
        }
        Value::String(s) => p.unit.parse(s).map_err(|e| format!("{key} = {e}"))?,
        other => return Err(format!("{key} = {other}: expected {}", p.unit.accepted())),
    };
    if !(x >= p.min && x <= p.max) {
        return Err(format!(
            "{key} = {}: out of range, allowed {}",
            show(v),
            describe_range(p)
        ));
    }
    Ok(x)
}

/// A value as the error message shows it: text as written, with control
/// characters escaped so the message stays one line.
fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.escape_debug().to_string(),
        v => v.to_string(),
    }
}

fn parse_value(p: &ParamDef, v: &Value) -> Result<Val, String> {
    let key = p.key;
    Ok(match p.kind {
        Int => {
            let x = parse_number(p, v)?;
            // counts and bytes come whole (64.5 B is a mistake, not 65 B);
            // times, rates and frequencies round to their fine base unit
            if x.fract() != 0.0 && matches!(p.unit, Unit::None | Unit::Bytes) {
                let what = if p.unit == Unit::Bytes { "number of bytes" } else { "number" };
                return Err(format!("{key} = {}: must be a whole {what}", show(v)));
            }
            Val::Int(x.round() as u64)
        }
        Float => Val::Float(parse_number(p, v)?),
        Bool => match v {
            Value::Bool(b) => Val::Bool(*b),
            Value::String(s) if s == "true" || s == "false" => Val::Bool(s == "true"),
            _ => return Err(format!("{key} = {}: expected true or false", show(v))),
        },
        Choice(words) => match v {
            Value::String(s) if words.contains(&s.as_str()) => Val::Text(s.clone()),
            _ => {
                return Err(format!(
                    "{key} = {}: expected one of {}",
                    show(v),
                    words.join(", ")
                ))
            }
        },
        Text => match v {
            Value::String(s) => Val::Text(s.clone()),
            _ => return Err(format!("{key} = {}: expected text", show(v))),
        },
        IntList | FloatList | BoolList => {
            let items: Vec<Value> = match v {
                Value::Array(a) => a.clone(),
                // `--set key=1,2,3` arrives as text
                Value::String(s) if s.trim().is_empty() || s.trim() == "[]" => vec![],
                Value::String(s) => s
                    .trim_matches(|c| c == '[' || c == ']')
                    .split(',')
                    .map(|t| Value::String(t.trim().to_string()))
                    .collect(),
                _ => return Err(format!("{key} = {}: expected a list", show(v))),
            };
            let elem = ParamDef {
                kind: match p.kind {
                    IntList => Int,
                    FloatList => Float,
                    _ => Bool,
                },
                ..*p
            };
            let mut ints = vec![];
            let mut floats = vec![];
            let mut bools = vec![];
            for it in &items {
                // hex masks like "0x7ff" are handy for CAT
                let it = match it {
                    Value::String(s) if s.starts_with("0x") => {
                        match u64::from_str_radix(&s[2..], 16) {
                            Ok(n) => Value::from(n),
                            Err(_) => return Err(format!("{key}: '{}' is not a hex number", s.escape_debug())),
                        }
                    }
                    Value::String(s) if p.kind != BoolList && p.unit == Unit::None => {
                        match s.parse::<f64>() {
                            Ok(x) => Value::from(x),
                            Err(_) => return Err(format!("{key}: '{}' is not a number", s.escape_debug())),
                        }
                    }
                    _ => it.clone(),
                };
                match parse_value(&elem, &it).map_err(|e| format!("{e} (in the list {key})"))? {
                    Val::Int(x) => ints.push(x),
                    Val::Float(x) => floats.push(x),
                    Val::Bool(x) => bools.push(x),
                    _ => unreachable!(),
                }
            }
            match p.kind {
                IntList => Val::IntList(ints),
                FloatList => Val::FloatList(floats),
                _ => Val::BoolList(bools),
            }
        }
    })
}

fn default_json(p: &ParamDef) -> Value {
    match p.kind {
        Bool => Value::Bool(p.default == "true"),
        IntList | FloatList | BoolList => {
            serde_json::from_str(p.default).expect("list default is JSON")
        }
        _ => Value::String(p.default.to_string()),
    }
}

/// Validate a nested or flat JSON scenario (profile already merged in) into
/// a [`Config`]. The error is one line naming the key, the value and what is
/// allowed.
pub fn validate(scenario: &Value) -> Result<Config, String> {
    let mut given = vec![];
    flatten(scenario, "", &mut given);
    let mut cfg = BTreeMap::new();
    for p in PARAMS {
        cfg.insert(
            p.key,
            parse_value(p, &default_json(p)).unwrap_or_else(|e| panic!("bad default: {e}")),
        );
    }
    for (key, v) in &given {
        if key.is_empty() {
            return Err("scenario must be a table of sections (sim, traffic, nic, ...)".into());
        }
        let p =
            lookup(key).ok_or_else(|| format!("unknown parameter '{}'{}", key.escape_debug(), did_you_mean(key)))?;
        cfg.insert(p.key, parse_value(p, v)?);
    }
    let cfg = Config(cfg);
    cross_check(&cfg)?;
    Ok(cfg)
}

fn pow2(cfg: &Config, key: &str) -> Result<(), String> {
    let v = cfg.u64(key);
    if v.is_power_of_two() {
        Ok(())
    } else {
        Err(format!(
            "{key} = {v}: must be a power of two (e.g. {} or {})",
            v.next_power_of_two() / 2,
            v.next_power_of_two()
        ))
    }
}

/// Checks that involve more than one parameter.
fn cross_check(c: &Config) -> Result<(), String> {
    for k in [
        "nic.rx_ring_size",
        "nic.tx_ring_size",
        "pcie.mps",
        "pcie.mrrs",
    ] {
        pow2(c, k)?;
    }
    let ways = c.u64("llc.ways");
    if c.u64("llc.ddio_ways") > ways {
        return Err(format!(
            "llc.ddio_ways = {}: must be <= llc.ways = {ways}",
            c.u64("llc.ddio_ways")
        ));
    }
    let line = 64 * ways * c.u64("llc.slices");
    // (sets per slice must be a power of two: the low line bits index them)
    if c.u64("llc.size") % line != 0 || !(c.u64("llc.size") / line).is_power_of_two() {
        return Err(format!(
            "llc.size = {} B: must be llc.ways x llc.slices x 64 B x a power of two sets per slice ({} B per set-row)",
            c.u64("llc.size"),
            line
        ));
    }
    let sets = c.u64("llc.size") / 64 / ways;
    if !c.bool("llc.slice_hash") && !sets.is_power_of_two() {
        return Err(format!(
            "llc.slice_hash = false: plain modulo indexing needs a power-of-two number of sets, but llc.size / 64 B / llc.ways = {sets}; keep the slice hash or use llc.slices = 1"
        ));
    }
    let l2line = 64 * c.u64("l2.ways");
    if c.u64("l2.size") % l2line != 0 || !(c.u64("l2.size") / l2line).is_power_of_two() {
        return Err(format!(
            "l2.size = {} B: must be l2.ways x 64 B x a power of two sets",
            c.u64("l2.size")
        ));
    }
    let sample = c.u64("llc.set_sample");
    let (llc_low, l2_sets) = crate::mem::sample::low_index_sets(c);
    if !sample.is_power_of_two() || sample > llc_low.min(l2_sets) {
        return Err(format!(
            "llc.set_sample = {sample}: must be a power of two, at most the sets indexed by the low line bits (LLC sets per slice {llc_low}, L2 sets {l2_sets})"
        ));
    }
    let full = (1u64 << ways) - 1;
    for (i, m) in c.ints("llc.cat_masks").iter().enumerate() {
        if *m == 0 || m & !full != 0 {
            return Err(format!("llc.cat_masks[{i}] = {m:#x}: must be a non-empty mask within the {ways} ways (1..={full:#x})"));
        }
    }
    let cm = c.u64("corunner.cat_mask");
    if cm & !full != 0 {
        return Err(format!(
            "corunner.cat_mask = {cm:#x}: must lie within the {ways} ways (0..={full:#x})"
        ));
    }
    if c.u64("traffic.rate") > c.u64("nic.line_rate") {
        return Err(format!(
            "traffic.rate = {}Gbps: above nic.line_rate = {}Gbps",
            c.u64("traffic.rate") as f64 / 1e3,
            c.u64("nic.line_rate") as f64 / 1e3
        ));
    }
    let nics = c.u64("nic.count");
    let cores = c.u64("cpu.cores") * nics + c.bool("corunner.enabled") as u64;
    if cores > c.u64("cpu.max_cores") {
        return Err(format!(
            "cpu.cores = {}: {} NIC(s) x {} cores{} = {cores} exceeds cpu.max_cores = {}",
            c.u64("cpu.cores"),
            nics,
            c.u64("cpu.cores"),
            if c.bool("corunner.enabled") {
                " + 1 co-runner"
            } else {
                ""
            },
            c.u64("cpu.max_cores")
        ));
    }
    for key in ["nic.remote_socket", "nic.ddio"] {
        if c.bools(key).len() as u64 > nics {
            return Err(format!(
                "{key}: {} entries for nic.count = {nics}",
                c.bools(key).len()
            ));
        }
    }
    if c.ints("llc.cat_masks").len() as u64 > nics {
        return Err(format!(
            "llc.cat_masks: {} entries for nic.count = {nics}",
            c.ints("llc.cat_masks").len()
        ));
    }
    let max_frame = match c.text("traffic.size_dist") {
        "fixed" => c.u64("traffic.size"),
        "bimodal" => c
            .u64("traffic.bimodal_large")
            .max(c.u64("traffic.bimodal_small")),
        "empirical" => {
            let (s, w) = (c.ints("traffic.sizes"), c.floats("traffic.weights"));
            if s.is_empty() || s.len() != w.len() || w.iter().sum::<f64>() <= 0.0 {
                return Err(format!(
                    "traffic.sizes / traffic.weights: size_dist = empirical needs two lists of equal, non-zero length with a positive weight (got {} sizes, {} weights)",
                    s.len(),
                    w.len()
                ));
            }
            *s.iter().max().unwrap()
        }
        "pcap" => {
            if c.text("traffic.pcap").is_empty() {
                return Err("traffic.pcap: size_dist = pcap needs a file path".into());
            }
            9216
        }
        _ => 1518,
    };
    if !c.text("traffic.pcap").is_empty() && c.text("traffic.size_dist") != "pcap" {
        return Err(format!(
            "traffic.pcap = {}: only read with traffic.size_dist = pcap (now {}); set both, or drop traffic.pcap",
            c.text("traffic.pcap").escape_debug(),
            c.text("traffic.size_dist")
        ));
    }
    let phases = c.ints("traffic.phase_at");
    for (key, n) in [
        ("traffic.phase_rate", c.ints("traffic.phase_rate").len()),
        ("traffic.phase_target_share", c.floats("traffic.phase_target_share").len()),
    ] {
        if n != 0 && n != phases.len() {
            return Err(format!(
                "{key}: {n} entries for the {} phases of traffic.phase_at (give one per phase, or none)",
                phases.len()
            ));
        }
    }
    let end = c.u64("sim.warmup") + c.u64("sim.duration");
    if let Some(&late) = phases.iter().find(|&&t| t >= end) {
        return Err(format!(
            "traffic.phase_at = {late}ps: at or after the run's end (sim.warmup + sim.duration = {end}ps); the phase would never start"
        ));
    }
    if let Some(w) = phases.windows(2).find(|w| w[0] >= w[1]) {
        return Err(format!(
            "traffic.phase_at = [.., {}ps, {}ps, ..]: phase start times must increase",
            w[0], w[1]
        ));
    }
    if let Some(r) = c.ints("traffic.phase_rate").iter().find(|&&r| r > c.u64("nic.line_rate")) {
        return Err(format!(
            "traffic.phase_rate = {}Gbps: above nic.line_rate = {}Gbps",
            *r as f64 / 1e3,
            c.u64("nic.line_rate") as f64 / 1e3
        ));
    }
    if !c.ints("traffic.phase_rate").is_empty() && c.text("traffic.size_dist") == "pcap" {
        return Err("traffic.phase_rate: a pcap replay keeps the trace's own rate; leave phase_rate empty".into());
    }
    let targeted = c.f64("traffic.target_share") > 0.0
        || c.floats("traffic.phase_target_share").iter().any(|&s| s > 0.0);
    if (1..64).contains(&c.u64("traffic.target_size")) {
        return Err(format!(
            "traffic.target_size = {} B: give 0 (frames keep their size) or a frame of 64 .. 9216 B",
            c.u64("traffic.target_size")
        ));
    }
    let max_frame = if targeted {
        max_frame.max(c.u64("traffic.target_size"))
    } else {
        max_frame
    };
    let data_room = c
        .u64("mempool.mbuf_size")
        .saturating_sub(crate::cpu::mempool::DATA_OFFSET);
    if max_frame > data_room && c.text("traffic.size_dist") != "pcap" {
        return Err(format!(
            "mempool.mbuf_size = {}: a {max_frame} B frame needs at least {} B (320 B of headers and headroom + the frame)",
            c.u64("mempool.mbuf_size"),
            max_frame + crate::cpu::mempool::DATA_OFFSET
        ));
    }
    check_nicmem(c, max_frame)?;
    check_flow_control(c, max_frame)?;
    check_rings(c)?;
    check_kvs(c)?;
    let mut rings = c.u64("cpu.cores") / c.u64("rings.sharing");
    if c.bool("rings.dynamic") {
        rings += c.u64("cpu.cores"); // the private set too
    }
    let per_nic_bufs = rings * c.u64("nic.rx_ring_size")
        + c.u64("cpu.cores") * c.u64("mempool.cache")
        + c.u64("app.tx_burst");
    if c.u64("mempool.size") < per_nic_bufs {
        return Err(format!(
            "mempool.size = {}: the Rx rings and per-core caches of one NIC hold {per_nic_bufs} buffers; give at least that",
            c.u64("mempool.size")
        ));
    }
    // The model's physical address space is 64 GiB (cache tags are 30-bit).
    // A split frame's payload pool is a second pool of the same size.
    let pools = c.u64("nic.count")
        * c.u64("mempool.size")
        * c.u64("mempool.mbuf_size")
        * if c.bool("nic.header_split") { 2 } else { 1 };
    let tables = {
        let (b, k) = crate::nf::flowtable::FlowTable::footprint(c.u64("app.flow_table_size"));
        flow_tables_per_core(c) * c.u64("nic.count") * c.u64("cpu.cores") * (b + k)
    };
    let host = pools + tables + c.u64("app.wp_size") + c.u64("corunner.buffer") + (64 << 20);
    if host > 60 << 30 {
        // name the largest part: that is what to change
        let parts = [
            ("mempool.size", "packet pools", pools),
            ("app.flow_table_size", "flow tables", tables),
            ("app.wp_size", "the WorkPackage array", c.u64("app.wp_size")),
            ("corunner.buffer", "the co-runner's buffer", c.u64("corunner.buffer")),
        ];
        let (key, what, bytes) = parts.iter().max_by_key(|p| p.2).expect("parts");
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        return Err(format!(
            "{key} = {}: {what} ({:.1} GiB) with the rest of host memory ({:.1} GiB in all) exceed the 60 GiB of host memory the model addresses",
            c.u64(key),
            gib(*bytes),
            gib(host)
        ));
    }
    netdimm_check(c)?;
    check_preload(c)?;
    check_resources(c, available_memory())?;
    if c.u64("sim.warmup") + c.u64("sim.duration") > 100 * crate::units::S {
        return Err("sim.duration + sim.warmup: at most 100 s of simulated time".into());
    }
    cross_check_bf3(c)
}

/// Checks of the BlueField-3 parameters and workloads (issue 7).
fn cross_check_bf3(c: &Config) -> Result<(), String> {
    for (p, size) in [
        ("dpa.l1", "dpa.l1_size"),
        ("dpa.l2", "dpa.l2_size"),
        ("dpa.l3", "dpa.l3_size"),
        ("arm.l1", "arm.l1_size"),
        ("arm.l2", "arm.l2_size"),
        ("arm.l3", "arm.l3_size"),
        ("host.l1", "host.l1_size"),
    ] {
        let ways = c.u64(&format!("{p}_ways"));
        let bytes = c.u64(size);
        if bytes % (64 * ways) != 0 || !(bytes / 64 / ways).is_power_of_two() {
            return Err(format!(
                "{size} = {bytes} B: must be {p}_ways x 64 B x a power of two sets"
            ));
        }
    }
    if c.u64("bf3.nic_l2_ways") > c.u64("dpa.l2_ways") {
        return Err(format!(
            "bf3.nic_l2_ways = {}: must be <= dpa.l2_ways = {}",
            c.u64("bf3.nic_l2_ways"),
            c.u64("dpa.l2_ways")
        ));
    }
    let hw = c.u64("dpa.cores") * c.u64("dpa.threads_per_core");
    if c.u64("dpa.usable_threads") > hw {
        return Err(format!(
            "dpa.usable_threads = {}: more than dpa.cores x dpa.threads_per_core = {hw}",
            c.u64("dpa.usable_threads")
        ));
    }
    let workload = c.text("dpa_bench.workload");
    if workload == "off" {
        return Ok(());
    }
    let proc = c.text("dpa_bench.proc");
    let threads = c.u64("dpa_bench.threads");
    let (max, what) = match proc {
        "dpa" => (
            c.u64("dpa.usable_threads"),
            "dpa.usable_threads".to_string(),
        ),
        "arm" => (c.u64("arm.cores"), "arm.cores".to_string()),
        _ => (
            c.u64("cpu.max_cores") * c.u64("host.threads_per_core"),
            format!(
                "cpu.max_cores x host.threads_per_core = {}",
                c.u64("cpu.max_cores") * c.u64("host.threads_per_core")
            ),
        ),
    };
    if threads > max {
        return Err(format!(
            "dpa_bench.threads = {threads}: more than the {max} usable {proc} threads ({what})"
        ));
    }
    let bg = c.u64("dpa_bench.background");
    let ports = c.u64("nic.line_rate") * c.u64("nic.count");
    if workload == "clocksync" && bg >= ports {
        return Err(format!(
            "dpa_bench.background = {}Gbps: at or above the {}Gbps of the ports (nic.line_rate x nic.count); queues would grow without bound",
            bg as f64 / 1e3,
            ports as f64 / 1e3
        ));
    }
    let mem2 = c.text("dpa_bench.mem2");
    let n2 = c.u64("dpa_bench.mem2_threads");
    if workload == "bandwidth" && mem2 != "none" && (n2 == 0 || n2 >= threads) {
        return Err(format!("dpa_bench.mem2_threads = {n2}: with dpa_bench.mem2 = {mem2} give 1..{} threads (the rest use dpa_bench.mem)", threads.saturating_sub(1)));
    }
    if proc == "dpa" {
        // The memories the workload touches.
        let mut used = vec![];
        if workload != "compute"
            && !(workload == "net" && c.text("dpa_bench.net_mode") != "kv")
            && !(matches!(workload, "latency" | "clocksync") && c.u64("dpa_bench.random_reads") == 0)
        {
            used.push(("dpa_bench.mem", c.text("dpa_bench.mem")));
        }
        if workload == "bandwidth" && mem2 != "none" {
            used.push(("dpa_bench.mem2", mem2));
        }
        if matches!(workload, "latency" | "clocksync" | "net") {
            used.push(("dpa_bench.net_buf", c.text("dpa_bench.net_buf")));
        }
        let host = used.iter().find(|u| u.1 == "host");
        let arm = used.iter().find(|u| u.1 == "arm");
        if let (Some(h), Some(a)) = (host, arm) {
            return Err(format!("{} = host with {} = arm: DPA threads cannot use host and Arm memory together (DOCA 2.5)", h.0, a.0));
        }
    }
    let mem = if proc == "dpa" {
        c.text("dpa_bench.mem")
    } else {
        proc
    };
    let (cap, key) = match mem {
        "dpa" => (c.u64("dpa.memory_size"), "dpa.memory_size"),
        "arm" => (c.u64("arm.memory_size"), "arm.memory_size"),
        _ => (
            8u64 << 30,
            "the 8 GiB of host memory the model gives buffers",
        ),
    };
    let ws = if workload == "net" && c.text("dpa_bench.net_mode") == "kv" {
        c.u64("dpa_bench.kv_keys") * 16
    } else {
        c.u64("dpa_bench.working_set")
    };
    let which = if workload == "net" {
        "dpa_bench.kv_keys x 16 B"
    } else {
        "dpa_bench.working_set"
    };
    if matches!(workload, "chase" | "bandwidth") || which != "dpa_bench.working_set" {
        if ws > cap {
            return Err(format!(
                "{which} = {ws} B: larger than {mem} memory ({key} = {cap} B)"
            ));
        }
    }
    if workload == "chase" && c.u64("dpa_bench.working_set") < c.u64("dpa_bench.stride") {
        return Err(format!(
            "dpa_bench.working_set = {} B: smaller than dpa_bench.stride = {} B",
            c.u64("dpa_bench.working_set"),
            c.u64("dpa_bench.stride")
        ));
    }
    Ok(())
}

/// Flow tables each core's NF keeps.
fn flow_tables_per_core(c: &Config) -> u64 {
    crate::nf::flow_tables_per_core(c.text("app.nf"))
}

/// The simulator's own memory for a scenario, by its big parts (bytes):
/// flow tables, cache tag arrays, the traffic's flow records, the timeline.
pub fn memory_estimate(c: &Config) -> [(&'static str, &'static str, u64); 4] {
    let nics = c.u64("nic.count");
    let cores = nics * c.u64("cpu.cores");
    let tables = flow_tables_per_core(c) * cores * crate::nf::flowtable::FlowTable::host_bytes(c.u64("app.flow_table_size"));
    // Per cached line: tag, rank and sharer bits (~16 B with padding).
    let lines = c.u64("llc.size") / 64 + (cores + 1) * c.u64("l2.size") / 64;
    let period = c.u64("sim.sample_period");
    let samples = if period == 0 { 0 } else { (c.u64("sim.warmup") + c.u64("sim.duration")) / period + 1 };
    [
        ("app.flow_table_size", "flow tables", tables),
        ("llc.size", "cache tags", lines * 16),
        ("traffic.flows", "flow records", nics * c.u64("traffic.flows") * 16),
        ("sim.sample_period", "timeline samples", samples.saturating_mul(std::mem::size_of::<crate::report::Sample>() as u64)),
    ]
}

/// Bytes this process may still allocate, if the OS says (Linux): the least
/// of the memory available, what the cgroup (a Slurm or container limit)
/// leaves, and what the address-space rlimit (`ulimit -v`) leaves.
fn available_memory() -> Option<u64> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let kib = |text: &str, key: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
    };
    let mut limits = vec![];
    limits.extend(read("/proc/meminfo").and_then(|t| kib(&t, "MemAvailable:")));
    // cgroup v2, then v1
    limits.extend(headroom(read("/sys/fs/cgroup/memory.max"), read("/sys/fs/cgroup/memory.current")));
    limits.extend(headroom(
        read("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
        read("/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ));
    let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit only writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut rl) } == 0 && rl.rlim_cur != libc::RLIM_INFINITY {
        let used = read("/proc/self/status").and_then(|t| kib(&t, "VmSize:")).unwrap_or(0);
        limits.push((rl.rlim_cur as u64).saturating_sub(used));
    }
    limits.into_iter().min()
}

/// What a limit leaves beyond current use; None for no limit ("max", or a v1 "unlimited" near 2^63).
fn headroom(limit: Option<String>, used: Option<String>) -> Option<u64> {
    let limit: u64 = limit?.trim().parse().ok().filter(|&l: &u64| l < 1 << 60)?;
    let used: u64 = used.and_then(|u| u.trim().parse().ok()).unwrap_or(0);
    Some(limit.saturating_sub(used))
}

/// Refuse a scenario whose simulation would not fit in memory, naming its
/// largest part, with the estimate.
fn check_resources(c: &Config, available: Option<u64>) -> Result<(), String> {
    let Some(avail) = available else { return Ok(()) };
    let parts = memory_estimate(c);
    let total: u64 = parts.iter().map(|p| p.2).sum::<u64>() + (256 << 20);
    if total <= avail {
        return Ok(());
    }
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    let (key, _, _) = parts.iter().max_by_key(|p| p.2).expect("parts");
    let detail: Vec<String> = parts
        .iter()
        .map(|(_, what, b)| format!("{what} {:.1} GiB", gib(*b)))
        .collect();
    Err(format!(
        "{key} = {}: the scenario needs about {:.1} GiB to simulate ({}), more than the {:.1} GiB available",
        c.u64(key),
        gib(total),
        detail.join(", "),
        gib(avail)
    ))
}

/// Preloaded flow tables must hold their flows: an overfull cuckoo table
/// makes every preloaded insert run out its kicks (minutes of build for a
/// table no long-running NF would have).
fn check_preload(c: &Config) -> Result<(), String> {
    let per_flow = crate::nf::entries_per_flow(c.text("app.nf"));
    if !c.bool("app.preload_flows") || per_flow == 0 {
        return Ok(());
    }
    let (flows, cores, size) = (c.u64("traffic.flows"), c.u64("cpu.cores"), c.u64("app.flow_table_size"));
    let need = (flows * per_flow).div_ceil(cores);
    if need > size {
        return Err(format!(
            "app.flow_table_size = {size}: too small to preload traffic.flows = {flows} (about {need} entries per core: \
             {per_flow} per flow over the {cores} cores of a NIC); give at least {need}, fewer flows, or app.preload_flows = false"
        ));
    }
    Ok(())
}

/// KVS: the hot area fits in nicmem, hot items are items.
fn check_kvs(c: &Config) -> Result<(), String> {
    let (area, value) = (c.u64("kvs.hot_area"), c.u64("kvs.value_size"));
    if area > c.u64("nic.nicmem_capacity") {
        return Err(format!(
            "kvs.hot_area = {area} B: more than the NIC's nicmem (nic.nicmem_capacity = {} B)",
            c.u64("nic.nicmem_capacity")
        ));
    }
    let hot = area / value.next_multiple_of(64);
    if c.text("app.nf") == "kvs" && hot > c.u64("traffic.flows") {
        return Err(format!(
            "kvs.hot_area = {area} B: holds {hot} hot items, more than the {} items (traffic.flows)",
            c.u64("traffic.flows")
        ));
    }
    if c.text("traffic.flow_popularity") == "hot" && c.u64("traffic.hot_flows") > c.u64("traffic.flows") {
        return Err(format!(
            "traffic.hot_flows = {}: more hot items than traffic.flows = {}",
            c.u64("traffic.hot_flows"),
            c.u64("traffic.flows")
        ));
    }
    let small = c.f64("traffic.hot_share_small");
    if small >= 0.0 && (c.text("traffic.flow_popularity") != "hot" || c.text("traffic.size_dist") != "bimodal") {
        return Err(format!(
            "traffic.hot_share_small = {small}: needs flow_popularity = hot and size_dist = bimodal (its small frames are the GETs); -1 = off"
        ));
    }
    Ok(())
}

/// Shared rings: whole groups of cores, and a driver that can share.
fn check_rings(c: &Config) -> Result<(), String> {
    let (n, cores) = (c.u64("rings.sharing"), c.u64("cpu.cores"));
    if cores % n != 0 {
        return Err(format!(
            "rings.sharing = {n}: must divide cpu.cores = {cores} (each ring is shared by a whole group of cores)"
        ));
    }
    if c.bool("rings.dynamic") {
        if n == 1 {
            return Err("rings.dynamic = true: needs rings.sharing > 1 (the shared rings to switch to)".into());
        }
        if c.text("nic.payload_mem") == "nicmem" {
            return Err("rings.dynamic = true: not supported with nic.payload_mem = nicmem".into());
        }
    }
    Ok(())
}

/// PAUSE needs an open-loop source and room above the XOFF threshold.
fn check_flow_control(c: &Config, max_frame: u64) -> Result<(), String> {
    if !c.bool("nic.flow_control") {
        return Ok(());
    }
    if c.u64("traffic.closed_loop") > 0 {
        return Err("nic.flow_control = true: not supported with traffic.closed_loop (the client's window already paces it)".into());
    }
    let headroom =
        crate::wire::pause::mlx5_headroom(c.u64("nic.line_rate") / 1000, c.u64("nic.cable_len"));
    let need = headroom + crate::wire::pause::XON_GAP + max_frame;
    if c.u64("nic.rx_buffer") < need {
        return Err(format!(
            "nic.rx_buffer = {} B: with nic.flow_control it must hold the PAUSE headroom ({headroom} B for this line rate and cable) plus XON hysteresis and a frame, at least {need} B",
            c.u64("nic.rx_buffer")
        ));
    }
    Ok(())
}

/// Header split, nicmem and inlining: what the NIC and its descriptors can hold.
fn check_nicmem(c: &Config, max_frame: u64) -> Result<(), String> {
    let split = c.bool("nic.header_split");
    let off = c.u64("nic.split_offset");
    if split && off > max_frame {
        return Err(format!(
            "nic.split_offset = {off} B: beyond the largest frame of the traffic ({max_frame} B)"
        ));
    }
    let nicmem = c.text("nic.payload_mem") == "nicmem";
    if nicmem && !split {
        return Err("nic.payload_mem = nicmem: needs nic.header_split = true (the header must reach the cores in host memory)".into());
    }
    if c.bool("nic.tx_inline") && !split {
        return Err(
            "nic.tx_inline = true: needs nic.header_split = true (only a split header is inlined)"
                .into(),
        );
    }
    if c.bool("nic.rx_inline") {
        if !split {
            return Err("nic.rx_inline = true: needs nic.header_split = true (only a split header is inlined)".into());
        }
        if off > RX_INLINE_MAX {
            return Err(format!(
                "nic.rx_inline = true: nic.split_offset = {off} B is more than the {RX_INLINE_MAX} B a 128 B CQE holds"
            ));
        }
        if c.bool("nic.rx_cqe_comp") {
            return Err("nic.rx_inline = true: needs nic.rx_cqe_comp = false (compressed mini-CQEs carry no data)".into());
        }
    }
    let wqe = tx_wqe_bytes(c);
    if wqe > c.u64("nic.max_wqe_size") {
        return Err(format!(
            "nic.split_offset = {off} B: inlining it makes a {wqe} B Tx WQE, more than nic.max_wqe_size = {} B",
            c.u64("nic.max_wqe_size")
        ));
    }
    if c.bool("nic.accel") && (c.text("app.nf") != "flowcount" || split) {
        return Err(format!(
            "nic.accel = true: the NIC runs the per-flow counter on its hairpin path; needs app.nf = flowcount (got {}) and no header split",
            c.text("app.nf")
        ));
    }
    if c.u64("nic.nicmem_size") > c.u64("nic.nicmem_capacity") {
        return Err(format!(
            "nic.nicmem_size = {} B: more than the NIC exposes (nic.nicmem_capacity = {} B)",
            c.u64("nic.nicmem_size"),
            c.u64("nic.nicmem_capacity")
        ));
    }
    let (cores, host_q) = (c.u64("cpu.cores"), c.u64("nic.host_queues"));
    if host_q > cores {
        return Err(format!(
            "nic.host_queues = {host_q}: more than the {cores} queues of a NIC (cpu.cores)"
        ));
    }
    if nicmem && host_q < cores {
        let buf = c.u64("nic.nicmem_buf_size");
        if max_frame.saturating_sub(off) > buf {
            return Err(format!(
                "nic.nicmem_buf_size = {buf} B: a {max_frame} B frame split at {off} B needs {} B",
                max_frame - off
            ));
        }
        let per_queue = c.u64("nic.nicmem_size") / buf / (cores - host_q);
        if per_queue == 0 {
            return Err(format!(
                "nic.nicmem_size = {} B: not one {buf} B buffer for each of the {} nicmem queues",
                c.u64("nic.nicmem_size"),
                cores - host_q
            ));
        }
    }
    Ok(())
}

/// Bytes of one Tx WQE (mlx5 layout): 16 B control + 16 B Ethernet segment,
/// the inlined header rounded to 16 B, one 16 B data segment per buffer in
/// host or NIC memory; whole 64 B building blocks.
pub fn tx_wqe_bytes(c: &Config) -> u64 {
    let (split, inline) = (c.bool("nic.header_split"), c.bool("nic.tx_inline"));
    let inlined = if inline {
        c.u64("nic.split_offset").next_multiple_of(16)
    } else {
        0
    };
    let segs = if split && !inline { 2 } else { 1 };
    (32 + inlined + 16 * segs).next_multiple_of(c.u64("nic.tx_desc_size"))
}

/// The NetDIMM scenario's bad inputs (issue 6): a channel that does not
/// exist, interleaving over NetDIMM space, a frame beyond the MTU.
fn netdimm_check(c: &Config) -> Result<(), String> {
    let ch = c.u64("netdimm.channel");
    if ch >= c.u64("dram.channels") {
        return Err(format!(
            "netdimm.channel = {ch}: the host has dram.channels = {} (channels 0..={})",
            c.u64("dram.channels"),
            c.u64("dram.channels") - 1
        ));
    }
    if c.text("netdimm.nf") != "none" && !matches!(c.text("netdimm.nic"), "inic" | "netdimm") {
        return Err(format!("netdimm.nf = {}: the co-runner experiment (Fig 12b) runs with netdimm.nic = inic or netdimm, not {}", c.text("netdimm.nf"), c.text("netdimm.nic")));
    }
    if c.bool("netdimm.interleave") {
        return Err("netdimm.interleave = true: the NetDIMM address range must stay on one channel (flex mode, paper Sec. 4.2.1); set it to false".into());
    }
    if c.text("netdimm.nic") != "off"
        && c.text("netdimm.traffic") == "fixed"
        && !c.bool("netdimm.segmentation")
    {
        let frame = c.u64("netdimm.size") + crate::world::netdimm::HEADERS;
        if frame > c.u64("netdimm.mtu") {
            return Err(format!(
                "netdimm.size = {}: a {frame} B frame ({} B of headers) exceeds netdimm.mtu = {} B; set netdimm.segmentation = true or a size <= {} B",
                c.u64("netdimm.size"),
                crate::world::netdimm::HEADERS,
                c.u64("netdimm.mtu"),
                c.u64("netdimm.mtu").saturating_sub(crate::world::netdimm::HEADERS)
            ));
        }
    }
    if c.text("netdimm.nic") != "off"
        && c.text("netdimm.traffic") != "fixed"
        && c.u64("netdimm.mtu") < 1514
    {
        return Err(format!(
            "netdimm.mtu = {}: the Facebook size distributions reach 1514 B frames",
            c.u64("netdimm.mtu")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wqe_sizes_follow_the_mlx5_layout() {
        let wqe = |v: serde_json::Value| tx_wqe_bytes(&validate(&v).unwrap());
        assert_eq!(wqe(json!({})), 64);
        assert_eq!(wqe(json!({"nic.header_split": true})), 64);
        assert_eq!(
            wqe(json!({"nic.header_split": true, "nic.tx_inline": true})),
            128
        );
        assert_eq!(
            wqe(json!({"nic.header_split": true, "nic.tx_inline": true, "nic.split_offset": 200})),
            256
        );
    }

    #[test]
    fn a_scenario_too_big_to_simulate_is_refused_with_the_estimate() {
        // 32 cores' tables of 16 Mi entries: 2 Mi buckets of 64 B
        // + 16 Mi x 12 B = 320 MiB each, 10.0 GiB in all.
        let c = validate(&json!({"app.nf": "nat", "app.flow_table_size": 16_777_216, "cpu.cores": 16, "nic.count": 2, "cpu.max_cores": 32})).unwrap();
        let e = check_resources(&c, Some(8 << 30)).unwrap_err();
        assert!(
            e.starts_with("app.flow_table_size = 16777216: the scenario needs about 10.3 GiB")
                && e.contains("(flow tables 10.0 GiB, cache tags ")
                && e.ends_with("more than the 8.0 GiB available"),
            "{e}"
        );
        assert!(check_resources(&c, Some(64 << 30)).is_ok());
        assert!(check_resources(&c, None).is_ok(), "no figure from the OS: no guard");
        let l2 = validate(&json!({})).unwrap();
        assert!(check_resources(&l2, Some(1 << 30)).is_ok(), "the default scenario fits in 1 GiB");
        // a timeline sample every picosecond of 3 ms: 3e9 samples
        let e = validate(&json!({"sim.sample_period": "1ps"})).unwrap_err();
        assert!(e.starts_with("sim.sample_period = 1: the scenario needs about") && e.contains("timeline samples"), "{e}");
    }

    #[test]
    fn a_cgroup_limit_leaves_what_is_not_used() {
        let s = |x: &str| Some(x.to_string());
        assert_eq!(headroom(s("1073741824\n"), s("73741824\n")), Some(1_000_000_000));
        assert_eq!(headroom(s("max\n"), s("5\n")), None, "cgroup v2 without a limit");
        assert_eq!(headroom(s("9223372036854771712\n"), s("5\n")), None, "cgroup v1's 'unlimited'");
        assert_eq!(headroom(s("100"), s("200")), Some(0));
        assert_eq!(headroom(None, None), None);
    }

    #[test]
    fn nicmem_bad_inputs_name_the_key() {
        let err = |v: serde_json::Value| validate(&v).unwrap_err();
        assert!(err(json!({"nic.payload_mem": "nicmem"})).starts_with("nic.payload_mem"));
        assert!(
            err(json!({"nic.header_split": true, "nic.split_offset": 2000}))
                .starts_with("nic.split_offset = 2000")
        );
        assert!(err(json!({"nic.header_split": true, "nic.tx_inline": true, "nic.split_offset": 1400, "nic.max_wqe_size": 1024})).contains("max_wqe_size"));
        assert!(
            err(json!({"nic.host_queues": 3, "cpu.cores": 2})).starts_with("nic.host_queues = 3")
        );
        assert!(err(json!({"nic.accel": true, "app.nf": "nat"})).starts_with("nic.accel"));
        assert!(err(json!({"traffic.target_size": 40})).starts_with("traffic.target_size = 40 B"));
        assert!(err(json!({"nic.nicmem_size": "1MiB"}))
            .starts_with("nic.nicmem_size = 1048576 B: more than"));
        assert!(err(
            json!({"nic.header_split": true, "nic.payload_mem": "nicmem", "nic.nicmem_size": 1024})
        )
        .starts_with("nic.nicmem_size"));
    }

    #[test]
    fn defaults_validate() {
        let c = validate(&json!({})).unwrap();
        assert_eq!(c.u64("llc.ways"), 11);
        assert_eq!(c.u64("traffic.rate"), 100_000);
        assert_eq!(c.u64("sim.duration"), 5 * crate::units::MS);
    }

    #[test]
    fn nested_and_flat_keys_agree() {
        let a = validate(&json!({"llc": {"ddio_ways": 4}})).unwrap();
        let b = validate(&json!({"llc.ddio_ways": 4})).unwrap();
        assert_eq!(a.u64("llc.ddio_ways"), 4);
        assert_eq!(b.u64("llc.ddio_ways"), 4);
    }

    #[test]
    fn unknown_key_suggests() {
        let e = validate(&json!({"nic": {"rx_ring_sz": 64}})).unwrap_err();
        assert!(
            e.contains("unknown parameter 'nic.rx_ring_sz'")
                && e.contains("did you mean 'nic.rx_ring_size'"),
            "{e}"
        );
    }

    #[test]
    fn errors_stay_one_line_and_list_each_section_once() {
        // Found by the scenario_json fuzzer: a key with a newline.
        let e = validate(&json!({"8e\ng_si": "nat", "x": 1})).unwrap_err();
        assert!(!e.contains('\n') && e.contains("unknown parameter '8e\\ng_si'"), "{e}");
        let sections: Vec<&str> = e.split("sections are ").nth(1).unwrap().split(", ").collect();
        let mut unique = sections.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), sections.len(), "{e}");
        let e = validate(&json!({"traffic": {"size_dist": "a\nb"}})).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
    }

    #[test]
    fn impossible_values_are_named() {
        let e = validate(&json!({"llc": {"ddio_ways": 12}})).unwrap_err();
        assert!(e.starts_with("llc.ddio_ways = 12"), "{e}");
        let e = validate(&json!({"nic": {"rx_ring_size": 1000}})).unwrap_err();
        assert!(e.contains("power of two"), "{e}");
        let e = validate(&json!({"traffic": {"rate": "200Gbps"}})).unwrap_err();
        assert!(e.contains("above nic.line_rate"), "{e}");
        let e = validate(&json!({"traffic": {"rate": "fastGbps"}})).unwrap_err();
        assert!(e.starts_with("traffic.rate = "), "{e}");
        let e = validate(&json!({"traffic": {"rate": 100}})).unwrap_err();
        assert!(e.contains("give a unit"), "{e}");
    }

    #[test]
    fn host_memory_beyond_the_model_is_refused() {
        let e = validate(&json!({"mempool": {"size": 40_000_000}})).unwrap_err();
        assert!(
            e.starts_with("mempool.size = 40000000") && e.contains("60 GiB"),
            "{e}"
        );
        // the largest part is named, not the pools that did not overflow
        let e = validate(&json!({"app": {"nf": "workpackage", "wp_size": "100GB"}})).unwrap_err();
        assert!(e.starts_with("app.wp_size = 100000000000: the WorkPackage array"), "{e}");
    }

    #[test]
    fn preloaded_flow_tables_must_hold_their_flows() {
        // 4 M flows x 2 entries over 7 cores: 1.14 M entries in tables of 1 Mi
        let nat = json!({"app": {"nf": "nat"}, "traffic": {"flows": 4_000_000}, "cpu": {"cores": 7}, "nic": {"count": 2}});
        let e = validate(&nat).unwrap_err();
        assert!(e.starts_with("app.flow_table_size = 1048576: too small to preload traffic.flows = 4000000 (about 1142858 entries"), "{e}");
        let mut lb = nat.clone();
        lb["app"]["nf"] = json!("lb");
        assert!(validate(&lb).is_ok(), "LB keeps one entry per flow: 571 k per core fits");
        let mut lazy = nat.clone();
        lazy["app"]["preload_flows"] = json!(false);
        assert!(validate(&lazy).is_ok(), "tables that fill during the run may overflow");
    }

    #[test]
    fn a_pcap_without_pcap_sizes_is_refused() {
        let e = validate(&json!({"traffic": {"pcap": "trace.pcap"}})).unwrap_err();
        assert!(e.starts_with("traffic.pcap = trace.pcap: only read with traffic.size_dist = pcap (now fixed)"), "{e}");
    }

    #[test]
    fn whole_bytes_and_phases_within_the_run() {
        let e = validate(&json!({"traffic": {"size": 64.5}})).unwrap_err();
        assert!(e.starts_with("traffic.size = 64.5: must be a whole number of bytes"), "{e}");
        assert!(validate(&json!({"traffic": {"size": "1.5KiB"}})).is_ok(), "1536 B is whole");
        let e = validate(&json!({"traffic": {"phase_at": ["8ms"], "phase_rate": ["10Gbps"]}})).unwrap_err();
        assert!(e.starts_with("traffic.phase_at = 8000000000ps: at or after the run's end"), "{e}");
        assert!(validate(&json!({"traffic": {"phase_at": ["6ms"], "phase_rate": ["10Gbps"]}})).is_ok());
    }

    #[test]
    fn lists_parse_from_text_and_arrays() {
        let c = validate(&json!({"nic": {"count": 2, "remote_socket": "false,true"}, "llc": {"cat_masks": ["0x0ff", 3]}, "corunner": {"cat_mask": "0x030"}})).unwrap();
        assert_eq!(c.u64("corunner.cat_mask"), 0x30);
        assert_eq!(c.bools("nic.remote_socket"), &[false, true]);
        assert_eq!(c.ints("llc.cat_masks"), &[0xff, 3]);
    }

    #[test]
    fn every_param_has_doc_and_valid_default() {
        for p in PARAMS {
            assert!(!p.doc.is_empty(), "{}", p.key);
            parse_value(p, &default_json(p)).unwrap();
            assert_eq!(
                PARAMS.iter().filter(|q| q.key == p.key).count(),
                1,
                "duplicate {}",
                p.key
            );
        }
    }
}
