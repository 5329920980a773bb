//! The report of one run: the metrics researchers compare with hardware
//! counters (names follow Intel PCM and DPDK), computed over the measured
//! window only.

use crate::units::Time;
use crate::wire::WIRE_OVERHEAD;
use hdrhistogram::Histogram;
use serde::Serialize;

/// Per-NIC packet counters of the measured window.
#[derive(Clone, Copy, Debug, Default)]
pub struct NicCounters {
    pub arrived: u64,
    pub arrived_bytes: u64,
    pub drop_rx_buffer: u64,
    pub drop_no_desc: u64,
    pub drop_core: u64,
    pub rx_pkts: u64,
    pub tx_bytes: u64,
    pub tx_pkts: u64,
    /// Split frames whose payload went to a nicmem / a host buffer.
    pub pay_nicmem: u64,
    pub pay_host: u64,
    /// Frames given a descriptor, and their summed wait in the NIC for it.
    pub rx_desc_given: u64,
    pub rx_desc_wait_ps: u64,
    /// PAUSE frames (XOFF and XON) the port sent.
    pub pause_frames: u64,
    /// Read tags held, summed over time (ps), and the most held at once.
    pub tag_ps: u128,
    pub tags_max: u32,
    /// Latency of the packets in the histogram, summed per stage (ps), in
    /// the order of `LatencyBreakdown`'s fields.
    pub stage_ps: [u128; STAGES],
}

/// Stages of a packet's latency, in path order.
pub const STAGES: usize = 7;

impl NicCounters {
    /// A forwarded packet's latency, stage by stage: held at its source,
    /// arriving and waiting in the Rx buffer (until its DMA starts), the
    /// DMA until its completion is visible, the completion ring until a
    /// core takes it, the core's burst until its Tx doorbell leaves, the
    /// NIC's Tx path (doorbell, WQE and data reads, Tx buffer) until the
    /// wire, and the wire: `held_ns` at the source, then the times it
    /// reached each stage (arrival, DMA, completion, core, doorbell, wire
    /// start) and left the wire.
    pub fn add_latency(&mut self, held_ns: u32, marks: [Time; STAGES]) {
        self.stage_ps[0] += held_ns as u128 * 1000;
        for (i, w) in marks.windows(2).enumerate() {
            self.stage_ps[i + 1] += w[1].saturating_sub(w[0]) as u128;
        }
    }
}

/// The mean latency split by stage (ns); the parts add up to `total`.
#[derive(Serialize, Debug, Clone, Default)]
pub struct LatencyBreakdown {
    pub source_queue: f64,
    pub nic_rx: f64,
    pub pcie_dma: f64,
    pub ring_wait: f64,
    pub core: f64,
    pub tx_queue: f64,
    pub wire: f64,
    pub total: f64,
}

impl LatencyBreakdown {
    pub fn new(stage_ps: &[u128; STAGES], packets: u64) -> LatencyBreakdown {
        let ns = |i: usize| if packets == 0 { 0.0 } else { stage_ps[i] as f64 / packets as f64 / 1000.0 };
        let total = if packets == 0 { 0.0 } else { stage_ps.iter().sum::<u128>() as f64 / packets as f64 / 1000.0 };
        LatencyBreakdown {
            source_queue: ns(0),
            nic_rx: ns(1),
            pcie_dma: ns(2),
            ring_wait: ns(3),
            core: ns(4),
            tx_queue: ns(5),
            wire: ns(6),
            total,
        }
    }
}

#[derive(Serialize, Debug, Clone, Default)]
pub struct Latency {
    pub p50: f64,
    pub p99: f64,
    pub p999: f64,
    pub mean: f64,
    pub max: f64,
}

#[derive(Serialize, Debug, Clone, Default)]
pub struct Drops {
    /// On-NIC Rx buffer full (PCIe or the NIC pipeline could not keep up).
    pub rx_buffer: u64,
    /// No Rx descriptor posted (the cores could not keep up).
    pub no_descriptor: u64,
    /// Dropped by software (Tx ring and software queue full, or no mbuf).
    pub software: u64,
}

/// What happened to the packets: the same metrics for the whole server
/// and for each NIC.
#[derive(Serialize, Debug, Clone, Default)]
pub struct PacketMetrics {
    /// Offered frame bits (FCS included, preamble and gap excluded) per second.
    pub offered_gbps: f64,
    /// Frame bits that left the Tx ports per second.
    pub throughput_gbps: f64,
    /// The same on the wire: with each frame's preamble, SFD and
    /// inter-frame gap, as `traffic.rate` and a port's line rate count.
    pub offered_wire_gbps: f64,
    pub throughput_wire_gbps: f64,
    pub rx_pps: f64,
    pub drop_rate: f64,
    pub drops: Drops,
    /// None (JSON null) when no packet completed in the measured window:
    /// missing data is missing, never zeros.
    pub latency_ns: Option<Latency>,
    pub pcie_util: Dir,
    /// PCIe payload bytes (TLP data: packets, descriptors, completions,
    /// doorbells) per received packet, each direction.
    pub pcie_bytes_per_packet: Dir,
    pub ring_occupancy_mean: f64,
    /// Share of split frames whose payload landed in nicmem (the rest
    /// spilled to the host buffers of the secondary rings).
    pub nicmem_rx_share: f64,
    /// LLC misses of the packet-processing cores per received packet.
    pub llc_misses_per_packet: f64,
    /// PAUSE frames (XOFF and XON) the ports sent (`nic.flow_control`).
    pub pause_frames: u64,
}

#[derive(Serialize, Debug, Clone, Default)]
pub struct Dir {
    pub upstream: f64,
    pub downstream: f64,
}

#[derive(Serialize, Debug, Clone, Default)]
pub struct Bw {
    pub read: f64,
    pub write: f64,
}

#[derive(Serialize, Debug, Clone)]
pub struct CorunnerReport {
    pub mean_latency_ns: f64,
    pub gbytes_s: f64,
}

/// Mean latencies of the host network study's domains (Vuppalapati et al.,
/// SIGCOMM'24), in ns; null without a request of the kind.
#[derive(Serialize, Debug, Clone, Default)]
pub struct DomainLatency {
    /// A core's LLC miss served by DRAM, until its data is back (every
    /// core's: packet cores, co-runner, antagonists).
    pub c2m_read: Option<f64>,
    /// A DMA write at the root port, until the LLC (DDIO) or memory has
    /// taken its last line: what holds an IIO write-buffer entry.
    pub p2m_write: Option<f64>,
    /// A DMA read at the root port, until its last line is there.
    pub p2m_read: Option<f64>,
}

/// The antagonist cores beside a packet run: their bandwidth in all and
/// their mean memory access latency.
#[derive(Serialize, Debug, Clone)]
pub struct AntagonistReport {
    pub cores: u64,
    pub gbytes_s: f64,
    pub mean_latency_ns: f64,
}

/// Result of a pcie-bench style microbenchmark.
#[derive(Serialize, Debug, Clone, Default)]
pub struct PcieBenchReport {
    pub mode: String,
    pub size: u64,
    /// Payload bandwidth of back-to-back transfers.
    pub gbps: f64,
    pub transfers_per_s: f64,
    /// Per-transfer latency from issue to last byte (reads) or arrival at
    /// the root complex (writes).
    pub latency_ns: Option<Latency>,
}

/// Result of the CPU copy microbenchmark.
#[derive(Serialize, Debug, Clone, Default)]
pub struct CopyBenchReport {
    pub mode: String,
    pub size: u64,
    pub gbytes_s: f64,
    pub ns_per_line: f64,
}

/// A host's memory controllers' counters, summed over the channels, as
/// PCM's `imc` events give them (`mem::dram::host` fills them).
#[derive(Serialize, Debug, Clone, Default)]
pub struct DramCounters {
    /// Column commands that found their row open and used (page hits).
    pub row_hit_rate: f64,
    /// Reads that needed their row opened, per read served from DRAM (the
    /// host network study's row miss ratio: ACTs for reads per line read).
    pub read_row_miss_ratio: f64,
    /// Mean requests waiting per channel, and the share of cycles each
    /// queue was full (PCM's RPQ/WPQ occupancy and full cycles).
    pub read_queue_occupancy: f64,
    pub write_queue_occupancy: f64,
    pub read_queue_full: f64,
    pub write_queue_full: f64,
    /// Column commands of the busiest bank over the mean bank's.
    pub bank_imbalance: f64,
    pub refreshes: u64,
    /// Event counts as the uncore's IMC counters give them: lines read and
    /// written at the DRAM (CAS_COUNT.RD/WR), activates (ACT_COUNT), of
    /// them for reads, precharges for a row conflict (PRE_COUNT.PAGE_MISS)
    /// and write-to-read switches (WMM_TO_RMM).
    pub cas_reads: u64,
    pub cas_writes: u64,
    pub activates: u64,
    pub read_activates: u64,
    pub conflict_precharges: u64,
    pub write_to_read_switches: u64,
}

/// Result of the loaded-latency microbenchmark (`sim.kind = mem_bench`),
/// named as Intel MLC and PCM name them.
#[derive(Serialize, Debug, Clone, Default)]
pub struct MemBenchReport {
    /// The probe's mean load-to-use latency, and its median and 99th
    /// percentile.
    pub latency_ns: f64,
    pub latency_p50_ns: f64,
    pub latency_p99_ns: f64,
    /// Lines read and written by all cores per second (the socket's total).
    pub gbytes_s: f64,
    pub read_gbytes_s: f64,
    pub write_gbytes_s: f64,
    /// Lines read and written in the measured window.
    pub requests: u64,
    /// The injectors' mean read latency (null without injectors).
    pub injector_latency_ns: f64,
    /// Mean read latency inside the controllers (queue to last data beat).
    pub dram_read_latency_ns: f64,
    /// Core to controller and back, outside the DRAM (from `dram.latency`).
    pub path_ns: f64,
    #[serde(flatten)]
    pub dram: DramCounters,
}

/// Result of a host network run (`sim.kind = hostnet`), named as the host
/// network study names its domains (Vuppalapati et al., SIGCOMM'24, §4).
#[derive(Serialize, Debug, Clone, Default)]
pub struct HostnetReport {
    /// The C2M loops' throughput: lines loaded (or stored) per second, each
    /// one a line the cores read from memory.
    pub c2m_gbytes_s: f64,
    /// The C2M cores' write-backs reaching the write queues.
    pub c2m_write_gbytes_s: f64,
    /// The device's DMA throughput.
    pub p2m_gbytes_s: f64,
    /// All lines read and written per second.
    pub memory_gbytes_s: f64,
    /// C2M-Read domain latency: a load's fill buffer to its data back.
    pub c2m_read_latency_ns: f64,
    /// C2M-Write domain latency: a write-back's fill buffer to the CHA.
    pub c2m_write_latency_ns: f64,
    /// P2M domain latency: an IIO entry to write-queue admission
    /// (P2M-Write) or to the data back (P2M-Read).
    pub p2m_latency_ns: f64,
    /// Mean fill buffers taken per C2M core, and IIO entries taken.
    pub lfb_occupancy: f64,
    pub iio_occupancy: f64,
    /// Mean reads past the CHA, sent to a controller and not yet back from
    /// it, all channels (the CHA's TOR occupancy of read misses).
    pub cha_read_occupancy: f64,
    /// Share of bank-load samples (every 1000 reads of the first channel,
    /// over its first 4 banks) whose busiest bank served at least 1.5x, and
    /// 2x, the mean (the study's bank deviation, §5.1; null without samples).
    pub bank_deviation_15: f64,
    pub bank_deviation_2: f64,
    /// Mean read latency inside the controllers (queue to last data beat).
    pub dram_read_latency_ns: f64,
    #[serde(flatten)]
    pub dram: DramCounters,
}

/// Result of a BlueField-3 workload (`dpa_bench`); the fields that do not
/// apply to the workload stay 0.
#[derive(Serialize, Debug, Clone, Default)]
pub struct DpaReport {
    pub workload: String,
    pub proc: String,
    pub threads: u64,
    /// Memory of the data buffer (chase, bandwidth, latency's network buffer).
    pub mem: String,
    pub net_buf: String,
    /// Multiplications per ns (compute).
    pub gops: f64,
    /// Mean load-to-use latency (chase) or round trip (latency), ns.
    pub latency_ns: f64,
    /// Useful bytes moved per second (bandwidth).
    pub gbytes_s: f64,
    pub throughput_gbps: f64,
    pub mpps: f64,
    pub drop_rate: f64,
    /// Key-value tuples aggregated per microsecond (kv).
    pub kv_mops: f64,
    /// Recency probe: load latency of each packet of the bunch, oldest
    /// first, ns.
    pub recency_ns: Vec<f64>,
    /// Clock sync: mean and p999 over time of the time uncertainty bound, ns.
    pub epsilon_ns: f64,
    pub epsilon_p999_ns: f64,
}

/// One-way latency breakdown of the NetDIMM paper's drivers (Fig 11), mean
/// ns per message; the parts sum to `total`.
#[derive(Serialize, Debug, Clone, Default)]
pub struct NetDimmBreakdown {
    pub tx_copy: f64,
    pub tx_flush: f64,
    pub io_reg_access: f64,
    pub tx_dma: f64,
    pub wire: f64,
    pub rx_dma: f64,
    pub rx_invalidate: f64,
    pub rx_copy: f64,
    /// Waiting behind earlier messages (netdimm.load > 0).
    pub queue: f64,
    pub total: f64,
}

/// In-memory clones by RowClone mode.
#[derive(Serialize, Debug, Clone, Default)]
pub struct NetDimmClones {
    pub fpm: u64,
    pub psm: u64,
    pub gcm: u64,
}

/// Result of the NetDIMM paper's one-way latency scenario.
#[derive(Serialize, Debug, Clone, Default)]
pub struct NetDimmReport {
    pub nic: String,
    /// Messages measured (after the warm-up ring).
    pub messages: u64,
    /// Mean payload bytes per message.
    pub mean_size: f64,
    /// One-way latency per message, ns.
    pub latency_ns: Option<Latency>,
    pub breakdown_ns: NetDimmBreakdown,
    /// Mean ns per message spent crossing PCIe (Fig 4's pcie.overh).
    pub pcie_ns: f64,
    /// Frame bits per second a stream of such messages sustains.
    pub sustained_gbps: f64,
    pub clones: NetDimmClones,
    /// Receiving NetDIMM's nCache hits over host reads.
    pub ncache_hit_rate: f64,
    /// Messages that took the COPY_NEEDED path.
    pub copy_needed: u64,
}

#[derive(Serialize, Debug, Clone, Default)]
pub struct SimInfo {
    pub seed: u64,
    pub events: u64,
    /// Frames offered over the whole run (warm-up included).
    pub packets: u64,
    pub sim_time_ps: Time,
    pub engine_version: &'static str,
    /// With `sim.until = converged`: where and how the run stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub convergence: Option<Convergence>,
}

impl SimInfo {
    pub fn new(seed: u64, events: u64, packets: u64, sim_time_ps: Time) -> SimInfo {
        SimInfo { seed, events, packets, sim_time_ps, engine_version: env!("CARGO_PKG_VERSION"), convergence: None }
    }
}

/// How a `sim.until = converged` run stopped.
#[derive(Serialize, Debug, Clone)]
pub struct Convergence {
    /// Whether throughput and mean latency converged before `sim.duration`
    /// ran out (the run stopped early).
    pub converged: bool,
    pub batches: u64,
    /// The measured window's length: from the warm-up's end to the stop.
    pub measured_ps: Time,
    /// The 95 % confidence half-widths of the batch means at the stop,
    /// relative to the mean (-1: unknown, e.g. a batch without a frame).
    pub throughput_rel_error: f64,
    pub latency_rel_error: f64,
}

/// The report of one run: what its kind measured, and how the run went.
#[derive(Serialize, Debug, Clone)]
pub struct Report {
    #[serde(flatten)]
    pub body: Body,
    pub sim: SimInfo,
}

/// What a run measured, one variant per run kind (`sim.kind`); in JSON
/// the variant's fields sit at the top level, beside `sim`.
#[derive(Serialize, Debug, Clone)]
#[serde(untagged)]
pub enum Body {
    Packet(Box<PacketReport>),
    PcieBench {
        /// DMA-written lines that were already in the LLC.
        pcie_write_hit_rate: f64,
        /// DMA-read lines served by the LLC.
        pcie_read_hit_rate: f64,
        pcie_bench: PcieBenchReport,
    },
    CopyBench {
        copy_bench: CopyBenchReport,
    },
    MemBench {
        mem_bench: MemBenchReport,
    },
    Hostnet {
        hostnet: HostnetReport,
    },
    Dpa {
        dpa: DpaReport,
    },
    /// One-way latency (`netdimm`), or with `netdimm.nf` the co-runner
    /// beside the NF (`corunner`).
    NetDimm {
        #[serde(skip_serializing_if = "Option::is_none")]
        corunner: Option<CorunnerReport>,
        #[serde(skip_serializing_if = "Option::is_none")]
        netdimm: Option<NetDimmReport>,
    },
}

impl Report {
    /// The packet metrics of a packet run.
    pub fn into_packet(self) -> Option<PacketReport> {
        match self.body {
            Body::Packet(p) => Some(*p),
            _ => None,
        }
    }
    pub fn pcie_bench(&self) -> Option<&PcieBenchReport> {
        match &self.body {
            Body::PcieBench { pcie_bench, .. } => Some(pcie_bench),
            _ => None,
        }
    }
    pub fn copy_bench(&self) -> Option<&CopyBenchReport> {
        match &self.body {
            Body::CopyBench { copy_bench } => Some(copy_bench),
            _ => None,
        }
    }
    pub fn mem_bench(&self) -> Option<&MemBenchReport> {
        match &self.body {
            Body::MemBench { mem_bench } => Some(mem_bench),
            _ => None,
        }
    }
    pub fn dpa(&self) -> Option<&DpaReport> {
        match &self.body {
            Body::Dpa { dpa } => Some(dpa),
            _ => None,
        }
    }
    pub fn netdimm(&self) -> Option<&NetDimmReport> {
        match &self.body {
            Body::NetDimm { netdimm, .. } => netdimm.as_ref(),
            _ => None,
        }
    }
    /// The co-runner beside a packet run or a NetDIMM NF.
    pub fn corunner(&self) -> Option<&CorunnerReport> {
        match &self.body {
            Body::Packet(p) => p.corunner.as_ref(),
            Body::NetDimm { corunner, .. } => corunner.as_ref(),
            _ => None,
        }
    }
}

/// What a packet run measured: the whole server, each NIC, and the
/// mechanisms in use.
#[derive(Serialize, Debug, Clone, Default)]
pub struct PacketReport {
    #[serde(flatten)]
    pub packets: PacketMetrics,
    /// DMA-written lines the LLC's tag lookup found (in the LLC, or with a
    /// non-inclusive LLC in an L2 its snoop filter tracks): PCM ItoM hits.
    pub pcie_write_hit_rate: f64,
    /// DMA-read lines served on chip (the LLC or a snooped L2): PCM
    /// PCIeRdCur hits.
    pub pcie_read_hit_rate: f64,
    /// The share of DMA-written and DMA-read lines the LLC's own ways
    /// held (hits found only in an L2 not counted).
    pub pcie_write_hit_rate_llc: f64,
    pub pcie_read_hit_rate_llc: f64,
    /// Core accesses the L1D served, over all core accesses.
    pub l1d_hit_rate: f64,
    /// Core accesses that missed L2 and hit the LLC, over all that missed L2.
    pub llc_hit_rate_cpu: f64,
    /// Lines the L2 prefetchers fetched, per received packet.
    pub l2_prefetches_per_packet: f64,
    /// The share of the L2 prefetches to DRAM refused for want of a
    /// superqueue entry (with the controllers and `l2.superqueue`).
    pub l2_prefetch_refused_share: f64,
    /// L2 copies a non-inclusive LLC's snoop filter evicted, per received
    /// packet.
    pub sf_back_invalidations_per_packet: f64,
    /// DMA writes of part of a line whose rest the root complex read from
    /// DRAM for the merge (RFO misses), per received packet.
    pub dma_rfo_reads_per_packet: f64,
    pub mem_bw_gbytes_s: Bw,
    /// Mean latency in each of the host network's domains.
    pub domain_latency_ns: DomainLatency,
    /// Core cycles (work + memory stalls) per received packet.
    pub cycles_per_packet: f64,
    /// Share of the packet cores' time spent working (not idle polling).
    pub core_util: f64,
    pub per_nic: Vec<PacketMetrics>,
    pub corunner: Option<CorunnerReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub antagonist: Option<AntagonistReport>,
    /// The memory controllers' counters (`dram.model = controller` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imc: Option<DramCounters>,
    pub pcie_flow: PcieFlowReport,
    /// What bounds this run: the busiest resource and the runner-up.
    pub bottleneck: Bottleneck,
    /// The mean latency stage by stage (ns).
    pub latency_breakdown_ns: LatencyBreakdown,
    /// Shared Rx rings (rings.sharing > 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rings: Option<RingsReport>,
    /// One sample per `sim.sample_period` (none when it is 0).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<Sample>,
}

/// What all NICs did in one sampling period ending at `t_us` (warm-up
/// included: time counts from the start of the run).
#[derive(Serialize, Debug, Clone, Default, PartialEq)]
pub struct Sample {
    pub t_us: f64,
    /// Frame bytes sent, as Gbit/s.
    pub tx_gbps: f64,
    /// Frames accepted by the NICs and frames dropped anywhere.
    pub arrived: u64,
    pub dropped: u64,
    /// dshRing: the ring set RSS steered to at the sample (0 = private,
    /// 1 = shared); otherwise 1 for shared rings and 0 for private ones.
    pub ring_set: u8,
}

/// The resource that bounds a run: each resource's utilisation (busiest
/// NIC for per-NIC resources), the busiest and the runner-up. A run whose
/// busiest resource is below `SATURATED` and that drops nothing is bound
/// by its offered load.
#[derive(Serialize, Debug, Clone, Default)]
pub struct Bottleneck {
    /// "offered load" or one of the resources below.
    pub resource: String,
    pub utilisation: f64,
    /// What shows it: drops, stalls, queues.
    pub evidence: String,
    pub next: String,
    pub next_utilisation: f64,
    /// Every resource's utilisation, busiest first.
    pub resources: Vec<Resource>,
}

#[derive(Serialize, Debug, Clone, Default)]
pub struct Resource {
    pub name: String,
    pub utilisation: f64,
}

/// Utilisation from which a resource counts as saturated.
pub const SATURATED: f64 = 0.95;

/// How the PCIe flow control between NICs and root ports behaved: the
/// posted-write credits (the root port's write buffer), the read tags, the
/// DMA engines' request rate. Means are over NICs.
#[derive(Serialize, Debug, Clone, Default)]
pub struct PcieFlowReport {
    /// Posted credits a NIC held (64 B lines of its root port's write
    /// buffer reserved: in flight, being committed, or their UpdateFC in
    /// flight), time-weighted mean and most at once; 0 when unbounded.
    pub write_buffer_lines_mean: f64,
    pub write_buffer_lines_max: u64,
    /// Share of the time a NIC's Rx DMA waited for posted credits.
    pub credit_stall_share: f64,
    /// Read tags a NIC held (outstanding MRd), mean and most at once.
    pub read_tags_mean: f64,
    pub read_tags_max: u32,
    /// MWr and MRd TLPs the NICs issued, per second.
    pub dma_requests_per_s: f64,
}

/// What sharing Rx rings costs (shRing paper, Fig 2a, 6b, 11b).
#[derive(Serialize, Debug, Clone, Default)]
pub struct RingsReport {
    /// Core cycles per received packet spent handing descriptors back
    /// (atomics, coherence transfers, spinning on the lock).
    pub sync_cycles_per_packet: f64,
    /// Mean time a re-armed descriptor waited before the NIC could have it
    /// back (RxArr: for earlier descriptors still held by other cores).
    pub repost_wait_ns: f64,
    /// Mean time a frame spent in the NIC between its last bit arriving
    /// and its DMA being queued (waiting for a descriptor).
    pub nic_rx_wait_ns: f64,
    /// dshRing: ring-set switches in the measured window, and the share of
    /// it spent on the shared rings.
    pub dshring_switches: u64,
    pub dshring_shared_share: f64,
}

impl NicCounters {
    pub fn add(&mut self, o: &NicCounters) {
        self.tag_ps += o.tag_ps;
        for (a, b) in self.stage_ps.iter_mut().zip(&o.stage_ps) {
            *a += b;
        }
        self.tx_pkts += o.tx_pkts;
        self.tags_max = self.tags_max.max(o.tags_max);
        self.arrived += o.arrived;
        self.arrived_bytes += o.arrived_bytes;
        self.drop_rx_buffer += o.drop_rx_buffer;
        self.drop_no_desc += o.drop_no_desc;
        self.drop_core += o.drop_core;
        self.rx_pkts += o.rx_pkts;
        self.tx_bytes += o.tx_bytes;
        self.pay_nicmem += o.pay_nicmem;
        self.pay_host += o.pay_host;
        self.rx_desc_given += o.rx_desc_given;
        self.rx_desc_wait_ps += o.rx_desc_wait_ps;
        self.pause_frames += o.pause_frames;
    }

    pub fn metrics(
        &self,
        hist: &Histogram<u64>,
        pcie: (Dir, [u64; 2]),
        ring_occupancy_mean: f64,
        llc_misses: u64,
        secs: f64,
    ) -> PacketMetrics {
        let c = self;
        let (pcie_util, data) = pcie;
        PacketMetrics {
            offered_gbps: c.arrived_bytes as f64 * 8.0 / secs / 1e9,
            throughput_gbps: c.tx_bytes as f64 * 8.0 / secs / 1e9,
            offered_wire_gbps: (c.arrived_bytes + c.arrived * WIRE_OVERHEAD) as f64 * 8.0 / secs / 1e9,
            throughput_wire_gbps: (c.tx_bytes + c.tx_pkts * WIRE_OVERHEAD) as f64 * 8.0 / secs / 1e9,
            rx_pps: c.rx_pkts as f64 / secs,
            drop_rate: ratio(c.drop_rx_buffer + c.drop_no_desc + c.drop_core, c.arrived),
            drops: Drops {
                rx_buffer: c.drop_rx_buffer,
                no_descriptor: c.drop_no_desc,
                software: c.drop_core,
            },
            latency_ns: latency(hist),
            pcie_util,
            pcie_bytes_per_packet: Dir {
                upstream: ratio(data[0], c.rx_pkts),
                downstream: ratio(data[1], c.rx_pkts),
            },
            ring_occupancy_mean,
            nicmem_rx_share: ratio(c.pay_nicmem, c.pay_nicmem + c.pay_host),
            llc_misses_per_packet: ratio(llc_misses, c.rx_pkts),
            pause_frames: c.pause_frames,
        }
    }
}

/// A hit rate: `hits` of `total`; NaN (null in the JSON report) when there
/// was nothing to hit, so a run that measured no access reports no rate
/// rather than a plausible 0.
pub fn hit_rate(hits: u64, total: u64) -> f64 {
    if total == 0 {
        f64::NAN
    } else {
        hits as f64 / total as f64
    }
}

pub fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// The latency percentiles of a histogram; None when it holds no sample.
pub fn latency(h: &Histogram<u64>) -> Option<Latency> {
    if h.is_empty() {
        return None;
    }
    Some(Latency {
        p50: h.value_at_quantile(0.5) as f64,
        p99: h.value_at_quantile(0.99) as f64,
        p999: h.value_at_quantile(0.999) as f64,
        mean: (h.mean() * 10.0).round() / 10.0,
        max: h.max() as f64,
    })
}

