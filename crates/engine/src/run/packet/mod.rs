//! The packet run (`sim.kind = packet`): builds every component from its
//! sections of the validated [`Cfg`], runs the event loop, and turns the
//! counters into a [`Report`] (`report.rs`).
//!
//! Events are small copyable records routed here; each component's
//! behaviour lives in its own file: `rx.rs` (the NIC receive path), `tx.rs`
//! (the NIC transmit path), `rootport.rs` (the root port's read tags,
//! posted credits and the reads and writes that wait for the memory
//! controllers), `core.rs` (the cores' poll loop and the co-runner).

mod accel;
mod bottleneck;
pub(crate) mod converge;
mod core;
mod report;
mod rootport;
mod rx;
mod shring;
mod tx;

use crate::config::{MempoolOrder, NicPayloadMem, RingsDiscipline, SimUntil};
use crate::cpu::fill::FillBuffers;
use crate::cpu::memloop::MemLoop;
use crate::cpu::mempool::Mempool;
use crate::cpu::Core;
use crate::mem::dram::queued::{Back, Queued};
use crate::mem::{AddressMap, DmaMode, MemStats, Memory};
use crate::nf::Nf;
use crate::nic::{CompRing, Discipline, PktRef, Port, RxQueue, TxQueue};
use crate::rings::{rxarr::RxArr, rxlist::RxList};
use crate::config::Cfg;
use crate::pcie::{PcieConfig, RootPort};
use crate::report::{NicCounters, Report};
use crate::sim::{rng, stream, EventQueue, Rng};
use crate::traffic::{Packet, Source};
use crate::units::{ser_time, Time};
use crate::wire::pause::FlowControl;
use hdrhistogram::Histogram;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// The next frame of NIC `nic` has been fully received.
    Arrive {
        nic: u16,
        /// With flow control: the frame's schedule this event belongs to
        /// (PAUSE moves frames; an event of an older epoch is ignored).
        epoch: u32,
    },
    /// With flow control: NIC `nic`'s Rx buffer may have drained below XON.
    PauseCheck {
        nic: u16,
    },
    /// The frame DMA of Rx index `idx` of ring `q` reached host memory.
    RxDma {
        nic: u16,
        q: u16,
        idx: u64,
    },
    /// A line of completion ring `q` covering positions below `upto`
    /// reached host memory.
    RxCqe {
        nic: u16,
        q: u16,
        upto: u64,
    },
    /// `n` descriptors from Rx index `from` reached the NIC.
    RxDescFetched {
        nic: u16,
        q: u16,
        from: u64,
        n: u16,
    },
    /// The driver's doorbell: written by the core (`arrived` false), then
    /// seen by the NIC after crossing PCIe.
    RxDoorbell {
        nic: u16,
        q: u16,
        pi: u64,
        arrived: bool,
    },
    /// Tx doorbell writes still to cross the link (0 = seen by the NIC).
    TxDoorbell {
        nic: u16,
        q: u16,
        pi: u64,
        doorbells: u32,
    },
    TxWqeFetched {
        nic: u16,
        q: u16,
        n: u32,
    },
    TxResume {
        nic: u16,
    },
    /// A data read of frame `frame` of NIC `nic`'s Tx FIFO is back.
    TxData {
        nic: u16,
        frame: u64,
    },
    /// A Tx queue descheduled for filling the Tx buffer is eligible again.
    TxResched {
        nic: u16,
        q: u16,
    },
    RxPump {
        nic: u16,
    },
    TxCqe {
        nic: u16,
        q: u16,
        upto: u64,
    },
    CorePoll {
        core: u16,
    },
    Corunner,
    Antagonist { i: u16 },
    /// The memory controllers' next cycle with something to do.
    Dram,
    /// Core `core`'s DRAM reads are all back: its pass goes on.
    Resume { core: u16 },
    /// dshRing samples and decides.
    Dshring,
    /// Record a timeline sample (`sim.sample_period`).
    Sample,
    WarmupEnd,
    /// A batch boundary of `sim.until = converged`.
    Batch,
}

/// The NIC's descriptor and completion layout and the other values the
/// hot path derives from several parameters, worked out once at build.
/// (Plain parameters are read from `World::cfg`.)
pub(crate) struct Layout {
    /// Bytes of one Rx descriptor: one scatter entry per buffer.
    pub rx_desc: u64,
    /// Bytes of one Tx WQE (mlx5 layout).
    pub tx_desc: u64,
    /// Rx completion entry: `nic.cqe_size`, or 128 B with Rx header inlining.
    pub rx_cqe: u64,
    /// Rx completions per CQE line (8 with CQE compression, else 1).
    pub cqe_per_line: u64,
    /// Time the NIC pipeline spends per packet.
    pub pipe_ps: Time,
    /// Header split offset (0 = frames are not split).
    pub split: u64,
    /// `nic.tx_queue_buffer` with `nic.tx_desched` (0 = no per-queue limit).
    pub tx_queue_buffer: u64,
    /// Rx header inlining: a split frame's header arrives in its CQE.
    pub rx_inline: bool,
    /// Compute cycles of the NF per packet: `app.nf_cycles`, plus
    /// `app.nat_cycles` and `app.lb_cycles` for the NFs that run them.
    pub nf_cycles: u64,
}

impl Layout {
    /// Whether a frame's header arrives inside its CQE (Rx inlining of a
    /// split frame) rather than in its header buffer.
    #[inline]
    pub fn hdr_in_cqe(&self, size: u32) -> bool {
        self.rx_inline && mem_len(size) > self.split
    }

    /// Bytes of a frame that go to its (header) buffer in host memory.
    #[inline]
    pub fn hdr_len(&self, size: u32) -> u64 {
        if self.split == 0 {
            mem_len(size)
        } else {
            self.split.min(mem_len(size))
        }
    }
}

pub use crate::wire::mem_len;

pub(crate) struct NicState {
    pub port: Port,
    /// Rx descriptor rings: one per core, or one per `rings.sharing` cores.
    pub rxq: Vec<RxQueue>,
    /// Completion rings, one per core (index = the core's queue); with
    /// dshRing a second set follows, one per core for the shared rings.
    pub cqs: Vec<CompRing>,
    /// The ring set RSS steers to (dshRing: 0 = private, 1 = shared).
    pub set: usize,
    /// Frame bytes sent (whole run), for dshRing's throughput samples.
    pub out_bytes: u64,
    pub txq: Vec<TxQueue>,
    /// Its root port: the link, read tags, posted credits.
    pub rp: RootPort,
    pub src: Source,
    pub next: Packet,
    pub pool: Mempool,
    /// Payload buffers of split frames in host memory (the secondary rings).
    pub pay_pool: Option<Mempool>,
    /// Addresses of the nicmem payload buffers (each queue owns a share).
    pub nicmem: Option<Mempool>,
    pub mode: DmaMode,
    /// accelNFV: the NIC runs the flow counter itself (hairpin).
    pub accel: Option<accel::Accel>,
    pub first_core: usize,
    /// Rx doorbell record line of each queue (host memory the driver writes).
    pub dbr_addr: u64,
    pub c: NicCounters,
    pub hist: Histogram<u64>,
    /// With `sim.until = converged`: frames scheduled onto the wire whose
    /// last bit has not yet left (in the order they leave). The window's
    /// end is not known in advance, so they count once they have left.
    pub departing: VecDeque<Departure>,
    /// Packets accepted into the NIC, delivered to the wire, dropped (whole run).
    pub total_in: u64,
    pub total_out: u64,
    pub total_drop: u64,
    /// `traffic.closed_loop`: the client's window instead of the source's times.
    pub client: Option<ClosedLoop>,
    /// `nic.flow_control`: PAUSE between the port and the source.
    pub fc: Option<FlowControl>,
}

/// A frame on its way out of the Tx port: when its first and last bit
/// leave, and the stages its latency splits into.
#[derive(Clone, Copy, Debug)]
pub struct Departure {
    pub start: Time,
    pub end: Time,
    pub pkt: PktRef,
}

impl NicState {
    /// A frame scheduled onto the wire: it counts in the measured window if
    /// it leaves within it. With the window's end known (`window_end`),
    /// that is decided now; otherwise (`sim.until = converged`) once it has
    /// left.
    pub(crate) fn depart(&mut self, d: Departure, now: Time, warmup: Time, window_end: Option<Time>) {
        match window_end {
            Some(end) if d.end <= end => self.count(&d, warmup),
            Some(_) => {}
            None => {
                self.departing.push_back(d);
                self.settle(now, warmup);
            }
        }
    }

    /// Count the frames waiting in `departing` that have left by `now`.
    pub(crate) fn settle(&mut self, now: Time, warmup: Time) {
        while self.departing.front().is_some_and(|d| d.end <= now) {
            let d = self.departing.pop_front().expect("a front");
            self.count(&d, warmup);
        }
    }

    /// A frame that left within the window's end counts if it left after
    /// the warm-up; its latency if it also arrived after it.
    fn count(&mut self, d: &Departure, warmup: Time) {
        if d.end < warmup {
            return;
        }
        self.c.tx_bytes += d.pkt.size as u64;
        self.c.tx_pkts += 1;
        if d.pkt.arrival >= warmup {
            let ns = (d.end - d.pkt.arrival) / 1000 + d.pkt.held as u64;
            let _ = self.hist.record(ns.max(1));
            self.c.add_latency(&d.pkt, d.start, d.end);
        }
    }
}

/// Queue an RxPump for NIC `n` at `at`, unless one comes no later. A time
/// already past is now: the queue runs it now, and the pending pump must be
/// remembered at that time, or its event would never clear it and every later
/// pump would wait for it (a frame whose credits came back "before now", as
/// a large frame's do, stalled the Rx path for good).
pub(super) fn pump_at(q: &mut EventQueue<Ev>, n: usize, port: &mut Port, at: Time) {
    let at = at.max(q.now());
    if port.rx_pump_at.is_none_or(|p| at < p) {
        port.rx_pump_at = Some(at);
        q.push(at, Ev::RxPump { nic: n as u16 });
    }
}

/// A request of NIC `n` ended at `at` (its response left, or it was
/// dropped): a closed-loop client waiting on its window sends the next.
#[inline]
pub(crate) fn request_done(q: &mut EventQueue<Ev>, n: usize, client: &mut Option<ClosedLoop>, at: Time) {
    if let Some(t) = client.as_mut().and_then(|cl| cl.done(at)) {
        q.push(t, Ev::Arrive { nic: n as u16, epoch: 0 });
    }
}

/// A closed-loop client (`traffic.closed_loop`): `window` requests are
/// outstanding; a response leaving or a request dropped lets the next one
/// arrive `turnaround` later. Frames come back to back while the window is
/// open.
pub(crate) struct ClosedLoop {
    window: u64,
    turnaround: Time,
    outstanding: u64,
    /// The window is full: no arrival is scheduled; the next frame's wire time.
    waiting: Option<Time>,
}

impl ClosedLoop {
    /// A request arrived at `now`; the next one's last bit arrives at the
    /// returned time if the window has room.
    fn sent(&mut self, now: Time, wire: Time) -> Option<Time> {
        self.outstanding += 1;
        if self.outstanding >= self.window {
            self.waiting = Some(wire);
            return None;
        }
        Some(now + wire)
    }

    fn done(&mut self, at: Time) -> Option<Time> {
        self.outstanding -= 1;
        self.waiting.take().map(|wire| at + self.turnaround + wire)
    }
}

/// Address of the (host-resident) mbuf of a split frame's payload buffer,
/// from the NIC's nicmem or host payload pool.
pub(crate) fn pay_mbuf(
    nicmem: Option<&Mempool>,
    pay_pool: Option<&Mempool>,
    pkt: &crate::nic::PktRef,
) -> u64 {
    let pool = if pkt.pay_nic { nicmem } else { pay_pool };
    pool.expect("split frames have a payload pool")
        .mbuf_addr(pkt.pay)
}

impl NicState {
    /// Draw the next frame of the source; it arrives (last bit) at the
    /// returned time, or not yet when a closed-loop client's window is full.
    pub fn advance(&mut self, now: Time, line_rate: u64) -> Option<Time> {
        self.next = self.src.next();
        let wire = ser_time(crate::wire::wire_bytes(self.next.size), line_rate);
        match &mut self.client {
            None => Some(self.sent(wire)),
            Some(cl) => cl.sent(now, wire),
        }
    }

    /// When the last bit of the open-loop source's next frame (`wire`
    /// long) reaches the port; with flow control PAUSE may hold it, and
    /// `next.arrival` moves with it.
    fn sent(&mut self, wire: Time) -> Time {
        match &mut self.fc {
            Some(fc) => {
                let due = fc.next_frame(self.next.arrival, wire);
                self.next.arrival = due - wire;
                due
            }
            None => self.next.arrival + wire,
        }
    }

    /// Completion ring of the core with queue `q` in the active set.
    #[inline]
    pub fn cq_of(&self, q: usize) -> usize {
        self.set * self.txq.len() + q
    }

    /// The completion ring the core with queue `q` polls: one of the
    /// inactive set with completions left is drained first (dshRing).
    pub fn poll_cq(&self, q: usize) -> usize {
        let cores = self.txq.len();
        if self.cqs.len() > cores {
            let old = &self.cqs[(1 - self.set) * cores + q];
            if old.completed > old.consumed {
                return (1 - self.set) * cores + q;
            }
        }
        self.cq_of(q)
    }

    /// Address of a split frame's payload when it sits in a host buffer.
    pub fn host_payload(&self, pkt: &crate::nic::PktRef) -> Option<u64> {
        (pkt.pay != crate::nic::NO_BUF && !pkt.pay_nic).then(|| {
            self.pay_pool
                .as_ref()
                .expect("split frames have a payload pool")
                .data_addr(pkt.pay)
        })
    }
}

pub struct World {
    pub(crate) q: EventQueue<Ev>,
    pub(crate) mem: Memory,
    pub(crate) nics: Vec<NicState>,
    pub(crate) cores: Vec<Core>,
    pub(crate) core_rng: Vec<Rng>,
    /// Lines a flow-table NF touched for the packet in hand.
    pub(crate) nf_scratch: crate::nf::flowtable::Touched,
    pub(crate) nf: Nf,
    pub(crate) k: Layout,
    /// The scenario, typed; the hot path reads its plain parameters here.
    pub(crate) cfg: Cfg,
    pub(crate) corunner: Option<MemLoop>,
    pub(crate) antagonists: Vec<MemLoop>,
    /// With the memory controllers, per memory core (the NF cores, the
    /// co-runner, the antagonists): its fill buffers, and its pass waiting
    /// for DRAM reads.
    pub(crate) fills: Vec<FillBuffers>,
    pub(crate) passes: Vec<Option<core::Pass>>,
    pub(crate) dram_back: Vec<Back>,
    /// Per hold of the controllers: the NIC, the posted credits whose
    /// entries it holds, and when the root port was done with the write.
    pub(crate) credit_holds: Vec<Option<(usize, u64, Time)>>,
    /// Device reads waiting for DRAM, by their fetch (see `rootport::Fetch`).
    fetches: Vec<Option<rootport::Fetch>>,
    /// End of the run: `sim.warmup + sim.duration`.
    pub(crate) end: Time,
    pub(crate) measuring: bool,
    pub(crate) mem_base: MemStats,
    /// At warm-up end, per NIC: PCIe busy time up, down; payload bytes up, down.
    pub(crate) pcie_base: Vec<[u64; 5]>,
    pub(crate) core_miss_base: Vec<u64>,
    pub(crate) dshring: Option<shring::Dshring>,
    pub(crate) timeline: Option<Timeline>,
    /// `sim.until = converged`: the batches so far.
    pub(crate) batches: Option<converge::Batches>,
}

/// Samples of `sim.sample_period`, and the whole-run counters at the last one.
pub(crate) struct Timeline {
    period: Time,
    last: [u64; 3],
    pub samples: Vec<crate::report::Sample>,
}

/// NIC memory sits outside host memory (one 4 GiB window per NIC): the
/// host caches never see these addresses.
pub(crate) const NICMEM_BASE: u64 = 1 << 40;

/// The first NIC whose measured window saw thousands of frames arrive and
/// handed not one of them to the host (no descriptor given, so no DMA): a
/// blocked datapath. (A slow core still takes frames until its ring is full,
/// and its drops are then for want of descriptors.) Per NIC: (accelerated,
/// arrived, descriptors given, Rx-buffer drops); the answer: (NIC, arrived, dropped).
fn blocked(nics: impl Iterator<Item = (bool, u64, u64, u64)>) -> Option<(usize, u64, u64)> {
    const ENOUGH: u64 = 1000;
    nics.enumerate()
        .find(|(_, (accel, arrived, given, _))| !accel && *arrived >= ENOUGH && *given == 0)
        .map(|(i, (_, arrived, _, dropped))| (i, arrived, dropped))
}

#[cfg(test)]
mod progress_tests {
    #[test]
    fn a_window_of_arrivals_with_nothing_handed_to_the_host_is_blocked() {
        let ok = (false, 15_000, 14_000, 0);
        let stuck = (false, 15_185, 0, 15_185);
        assert_eq!(super::blocked([ok, stuck].into_iter()), Some((1, 15_185, 15_185)));
        assert_eq!(super::blocked([ok].into_iter()), None);
        assert_eq!(super::blocked([(false, 999, 0, 999)].into_iter()), None, "too few frames to tell");
        assert_eq!(super::blocked([(true, 15_000, 0, 0)].into_iter()), None, "accelNFV never hands frames to the host");
    }
}

impl World {
    pub fn build(c: &Cfg) -> Result<World, String> {
        Self::build_with(c, &mut |_| true)
    }

    /// [`World::build`], telling `progress` (share 0: nothing simulated yet)
    /// while it preloads flow tables, which for millions of flows takes
    /// seconds: Ctrl-C stops a build too.
    pub fn build_with(c: &Cfg, progress: &mut dyn FnMut(f64) -> bool) -> Result<World, String> {
        let mut g = crate::run::Guard::new(progress);
        let seed = c.sim.seed;
        let nics = c.nic.count as usize;
        let cores_per_nic = c.cpu.cores as usize;
        let ways = c.llc.ways;
        let all = (1u64 << ways) - 1;
        let mut masks = vec![];
        for n in 0..nics {
            let m = c.llc.cat_masks.as_slice().get(n).copied().unwrap_or(all);
            masks.extend(std::iter::repeat(m).take(cores_per_nic));
        }
        let corunner_core = masks.len();
        if c.corunner.enabled {
            let m = c.corunner.cat_mask;
            masks.push(if m == 0 { all } else { m });
        }
        let antagonist_core = masks.len();
        masks.extend(std::iter::repeat(all).take(c.antagonist.cores as usize));
        let mem_cores = masks.len();
        let mut mem = Memory::new(&c.mem, &c.llc, &c.l2, &c.dram, c.sim.seed, masks);
        mem.mc = Queued::from_cfg(&c.dram)?;
        let mut map = AddressMap::new();
        let pcfg = PcieConfig::from_section(&c.pcie)?;
        let rx_size = c.nic.rx_ring_size;
        let tx_size = c.nic.tx_ring_size;
        let split = c.nic.header_split;
        // One scatter entry per buffer: header and payload when split,
        // unless the header arrives in the CQE.
        let (rx_inline, rx_sge) = (c.nic.rx_inline, c.nic.rx_desc_size);
        let rx_desc = rx_sge * if split && !rx_inline { 2 } else { 1 };
        let (tx_desc, cqe) = (crate::nic::tx_wqe_bytes(&c.nic), c.nic.cqe_size);
        let rx_cqe = if rx_inline { 128 } else { cqe };
        let sharing = c.rings.sharing as usize;
        let dynamic = c.rings.dynamic;
        // nicmem goes to the rings of the first cores (host_queues: the last ones).
        let nicmem_rings = if c.nic.payload_mem == NicPayloadMem::Nicmem {
            (cores_per_nic - (c.nic.host_queues as usize)).div_ceil(sharing)
        } else {
            0
        };
        let mut nic_states = vec![];
        let mut cores = vec![];
        for n in 0..nics {
            // (mempools sit in hugepages, no object across a page)
            let page = crate::mem::pages::page_bytes(c.mem.hugepage);
            let mut pool = Mempool::from_cfg(&c.mempool, &mut map, cores_per_nic, page, c.mempool.order == MempoolOrder::Fifo);
            let mut pay_pool = split.then(|| Mempool::from_cfg(&c.mempool, &mut map, cores_per_nic, page, false));
            // nicmem: the NIC's buffer region shared evenly by its nicmem queues.
            let nicmem_buf = c.nic.nicmem_buf_size;
            let per_queue = if nicmem_rings > 0 {
                c.nic.nicmem_size / nicmem_buf / nicmem_rings as u64
            } else {
                0
            };
            let nicmem = (nicmem_rings > 0).then(|| {
                let count = per_queue as usize * nicmem_rings;
                let hdr = crate::cpu::mempool::OBJ_HDR + crate::cpu::mempool::MBUF_HDR;
                Mempool::with_external_data(
                    map.alloc(Mempool::footprint(hdr, count as u64, page), 4096),
                    count,
                    1,
                    0,
                    NICMEM_BASE + ((n as u64) << 32),
                    nicmem_buf,
                )
                .in_pages(page)
            });
            let mut rxq = vec![];
            let mut cqs = vec![];
            let mut txq = vec![];
            // dshRing keeps a private set (first) beside the shared one.
            let sets: &[usize] = if dynamic { &[1, sharing] } else { &[sharing] };
            for (set, &share) in sets.iter().enumerate() {
                let first_ring = rxq.len();
                for q in 0..cores_per_nic {
                    if q % share == 0 {
                        let ring = q / share;
                        let mut r = RxQueue::new(rx_size, map.alloc(rx_size * rx_desc, 4096));
                        if share > 1 {
                            // The lock, consumer index and list tail share a
                            // line; the bitmap words follow.
                            r.sync_addr = map.alloc(64 + rx_size.div_ceil(8), 64);
                            r.disc = if c.rings.discipline == RingsDiscipline::List {
                                Discipline::List {
                                    list: RxList::new(rx_size as u32),
                                    cached: vec![false; rx_size as usize],
                                }
                            } else {
                                Discipline::Arr {
                                    arr: RxArr::new(rx_size),
                                    marked_at: vec![0; rx_size as usize],
                                }
                            };
                        }
                        // Buffers come from the per-core caches of the ring's cores.
                        for s in 0..rx_size as usize {
                            r.slot_mbuf[s] = pool
                                .alloc(q + s % share)
                                .ok_or("mempool.size: too small to fill the Rx rings")?;
                        }
                        if let Some(pp) = &mut pay_pool {
                            r.slot_pay = (0..rx_size as usize)
                                .map(|s| {
                                    pp.alloc(q + s % share)
                                        .ok_or("mempool.size: too small to fill the Rx rings")
                                })
                                .collect::<Result<_, _>>()?;
                        }
                        if ring < nicmem_rings {
                            let first = (ring as u64 * per_queue) as u32;
                            r.nicmem_spare = (first..first + per_queue as u32).rev().collect();
                            r.nicmem_owned = per_queue;
                            r.post_primary();
                        }
                        r.posted = rx_size;
                        r.driver_pi = rx_size;
                        r.doorbell_pi = rx_size;
                        rxq.push(r);
                    }
                    cqs.push(CompRing::new(
                        rx_size,
                        first_ring + q / share,
                        map.alloc(rx_size * rx_cqe, 4096),
                    ));
                    if set == 0 {
                        txq.push(TxQueue::new(
                            tx_size,
                            map.alloc(tx_size * tx_desc, 4096),
                            map.alloc(tx_size * cqe, 4096),
                        ));
                        cores.push(Core::new(n, q, q));
                    }
                }
            }
            let mut src = Source::from_cfg(&c.traffic, c.nic.line_rate, seed, n as u16)?;
            // A trace's frames are known once read: each must fit an mbuf, as traffic.size must.
            let room = c.mempool.mbuf_size.saturating_sub(crate::cpu::mempool::DATA_OFFSET);
            if let Some(big) = src.trace_max_frame().filter(|&m| m as u64 > room) {
                return Err(format!(
                    "traffic.pcap = {}: its largest frame is {big} B; mempool.mbuf_size = {} holds frames up to {room} B \
                     (give mempool.mbuf_size >= {})",
                    c.traffic.pcap.as_str().escape_debug(),
                    c.mempool.mbuf_size,
                    big as u64 + crate::cpu::mempool::DATA_OFFSET
                ));
            }
            let next = src.next();
            let remote = c.nic.remote_socket.get(n).copied().unwrap_or(false);
            let ddio = c.nic.ddio.get(n).copied().unwrap_or(true);
            let mode = if remote {
                DmaMode::Remote
            } else if ddio {
                DmaMode::Ddio
            } else {
                DmaMode::NoAllocate
            };
            nic_states.push(NicState {
                port: Port::new(
                    c.nic.rx_buffer,
                    c.nic.tx_buffer,
                    cores_per_nic,
                ),
                rxq,
                cqs,
                set: 0,
                out_bytes: 0,
                txq,
                rp: RootPort::new(pcfg),
                src,
                next,
                pool,
                pay_pool,
                nicmem,
                mode,
                accel: c.nic.accel.then(|| {
                    let ctx_base = map.alloc(c.traffic.flows * accel::CTX_BYTES, 4096);
                    accel::Accel::new(
                        c.nic.ctx_cache_size,
                        ctx_base,
                        rng(seed, stream::NF, 1000 + n as u64),
                    )
                }),
                first_core: n * cores_per_nic,
                dbr_addr: map.alloc(64 * cores_per_nic as u64, 4096),
                c: NicCounters::default(),
                hist: Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("histogram bounds"),
                departing: VecDeque::new(),
                total_in: 0,
                total_out: 0,
                total_drop: 0,
                client: (c.traffic.closed_loop > 0).then(|| ClosedLoop {
                    window: c.traffic.closed_loop,
                    turnaround: c.traffic.client_turnaround,
                    outstanding: 0,
                    waiting: None,
                }),
                fc: c.nic.flow_control.then(|| {
                    FlowControl::new(
                        c.nic.rx_buffer,
                        c.nic.line_rate,
                        c.nic.cable_len,
                        c.traffic.source_queue as usize,
                    )
                }),
            });
        }
        let mut nf = Nf::build(c, &mut map, cores.len());
        if c.app.preload_flows {
            let stateful = crate::nf::flow_tables_per_core(c.app.nf) > 0;
            let mut r = rng(seed, stream::NF, u64::MAX);
            for (n, s) in nic_states.iter_mut().enumerate() {
                let flows = s.src.flow_count() as u32;
                if let Some(a) = &mut s.accel {
                    a.preload(flows);
                }
                if stateful {
                    // Flows go in in order (the RNG of cuckoo kicks sees the
                    // same sequence); the tables' memory is prefetched a few
                    // flows ahead, since bulk loading waits on host DRAM.
                    const AHEAD: u32 = 8;
                    let core_of = |f: u32| n * cores_per_nic + s.port.rss_queue(s.src.flow_rss_hash(f));
                    let mut cores: std::collections::VecDeque<usize> = (0..flows.min(AHEAD)).map(core_of).collect();
                    for f in 0..flows {
                        g.tick(|| 0.0)?;
                        if f + AHEAD < flows {
                            let c = core_of(f + AHEAD);
                            nf.prefetch_flow(c, f + AHEAD);
                            cores.push_back(c);
                        }
                        let core = cores.pop_front().expect("one core per flow");
                        nf.preload(core, f, &mut r);
                    }
                }
            }
        }
        let corunner = c.corunner.enabled.then(|| {
            MemLoop::new(corunner_core, map.alloc(c.corunner.buffer, 4096), c.corunner.buffer, false, false, 0, rng(seed, stream::ANTAGONIST, u64::MAX))
        });
        let antagonists = MemLoop::antagonists(&c.antagonist, &mut map, antagonist_core, seed);
        let line_rate = c.nic.line_rate;
        let k = Layout {
            rx_desc,
            tx_desc,
            rx_cqe,
            cqe_per_line: if c.nic.rx_cqe_comp { 8 } else { 1 },
            pipe_ps: (1e6 / c.nic.pipeline_mpps) as Time,
            split: if split { c.nic.split_offset } else { 0 },
            tx_queue_buffer: if c.nic.tx_desched { c.nic.tx_queue_buffer } else { 0 },
            rx_inline,
            nf_cycles: crate::nf::compute_cycles(&c.app),
        };
        let core_rng = (0..cores.len())
            .map(|i| rng(seed, stream::NF, i as u64))
            .collect();
        let warmup = c.sim.warmup;
        let mut w = World {
            q: EventQueue::new(),
            mem,
            nics: nic_states,
            cores,
            core_rng,
            nf_scratch: Default::default(),
            nf,
            k,
            cfg: c.clone(),
            corunner,
            antagonists,
            fills: (0..mem_cores).map(|_| FillBuffers::new(c.cpu.mlp)).collect(),
            passes: (0..mem_cores).map(|_| None).collect(),
            dram_back: Vec::new(),
            credit_holds: Vec::new(),
            fetches: Vec::new(),
            end: warmup + c.sim.duration,
            measuring: false,
            mem_base: MemStats::default(),
            pcie_base: vec![],
            core_miss_base: vec![],
            dshring: dynamic.then(|| shring::Dshring::new(&c.rings)),
            timeline: (c.sim.sample_period > 0).then(|| Timeline {
                period: c.sim.sample_period,
                last: [0; 3],
                samples: vec![],
            }),
            batches: (c.sim.until == SimUntil::Converged).then(|| converge::Batches::new(c.sim.batch, c.sim.rel_error)),
        };
        for n in 0..w.nics.len() {
            let nic = &mut w.nics[n];
            let due = nic.sent(ser_time(crate::wire::wire_bytes(nic.next.size), line_rate));
            w.q.push(due, Ev::Arrive { nic: n as u16, epoch: 0 });
            for q in 0..w.nics[n].rxq.len() {
                w.rx_fetch(n, q, 0);
            }
        }
        if w.corunner.is_some() {
            w.q.push(0, Ev::Corunner);
        }
        for i in 0..w.antagonists.len() {
            w.q.push(0, Ev::Antagonist { i: i as u16 });
        }
        if let Some(d) = &w.dshring {
            w.q.push(d.period, Ev::Dshring);
        }
        if let Some(t) = &w.timeline {
            w.q.push(t.period, Ev::Sample);
        }
        w.q.push(warmup, Ev::WarmupEnd);
        if let Some(b) = &w.batches {
            w.q.push(warmup + b.period, Ev::Batch);
        }
        Ok(w)
    }

    /// Run to the end of the measured window and report.
    pub fn run(self) -> Result<Report, String> {
        self.run_with(&mut |_| true)
    }

    /// [`World::run`], telling `progress` every 2^16 events the share of
    /// the simulated time done; it returns false to stop the run (an
    /// error, "interrupted"). It sees the simulation, never changes it.
    pub fn run_with(mut self, progress: &mut dyn FnMut(f64) -> bool) -> Result<Report, String> {
        while let Some((now, e)) = self.q.pop() {
            self.mem.dram.advance(now);
            if now > self.end {
                break;
            }
            if self.q.events() & ((1 << 16) - 1) == 0 && !progress(now as f64 / self.end.max(1) as f64) {
                return Err("interrupted".into());
            }
            match e {
                Ev::Arrive { nic, epoch } => self.on_arrive(nic as usize, epoch, now),
                Ev::PauseCheck { nic } => self.on_pause_check(nic as usize, now),
                Ev::RxDma { nic, q, idx } => self.on_rx_dma(nic as usize, q as usize, idx, now),
                Ev::RxCqe { nic, q, upto } => self.on_rx_cqe(nic as usize, q as usize, upto, now),
                Ev::RxDescFetched { nic, q, from, n } => {
                    self.on_rx_desc_fetched(nic as usize, q as usize, from, n as u64, now)
                }
                Ev::RxDoorbell {
                    nic,
                    q,
                    pi,
                    arrived,
                } => self.on_rx_doorbell(nic as usize, q as usize, pi, arrived, now),
                Ev::TxDoorbell {
                    nic,
                    q,
                    pi,
                    doorbells,
                } => self.on_tx_doorbell(nic as usize, q as usize, pi, doorbells, now),
                Ev::TxWqeFetched { nic, q, n } => {
                    self.on_tx_wqe_fetched(nic as usize, q as usize, n as u64, now)
                }
                Ev::TxData { nic, frame } => self.on_tx_data(nic as usize, frame, now),
                Ev::TxResume { nic } => {
                    self.nics[nic as usize].port.tx_resume_pending = false;
                    self.tx_pump(nic as usize, now)
                }
                Ev::TxResched { nic, q } => self.on_tx_resched(nic as usize, q as usize, now),
                Ev::RxPump { nic } => {
                    let port = &mut self.nics[nic as usize].port;
                    if port.rx_pump_at == Some(now) {
                        port.rx_pump_at = None;
                    }
                    self.rx_pump(nic as usize, now)
                }
                Ev::TxCqe { nic, q, upto } => self.on_tx_cqe(nic as usize, q as usize, upto, now),
                Ev::CorePoll { core } => self.on_core_poll(core as usize, now),
                Ev::Corunner => self.on_corunner(now),
                Ev::Antagonist { i } => self.on_antagonist(i as usize, now),
                Ev::Dram => self.on_dram(now),
                Ev::Resume { core } => self.on_resume(core as usize),
                Ev::Dshring => self.on_dshring(now),
                Ev::Sample => self.on_sample(now),
                Ev::WarmupEnd => self.on_warmup_end(now),
                Ev::Batch => self.on_batch(now),
            }
            if self.mem.mc.as_ref().is_some_and(|mc| mc.sent < mc.due) {
                self.schedule_dram();
            }
        }
        let end = self.end;
        for n in &mut self.nics {
            n.settle(end, self.cfg.sim.warmup);
        }
        if let Some(mc) = &mut self.mem.mc {
            mc.ctl.settle();
        }
        self.check_invariants()?;
        self.check_progress()?;
        Ok(self.report())
    }

    /// A blocked datapath (see [`blocked`]) is an error, not a throughput of zero.
    fn check_progress(&self) -> Result<(), String> {
        let counts = self.nics.iter().map(|n| (n.accel.is_some(), n.c.arrived, n.c.rx_desc_given, n.c.drop_rx_buffer));
        match blocked(counts) {
            Some((i, arrived, dropped)) => Err(format!(
                "no progress: NIC {i} received {arrived} frames in the measured window and passed none to the host \
                 ({dropped} dropped in its Rx buffer); its datapath is blocked (a deadlock of this configuration), \
                 so there is no throughput to report"
            )),
            None => Ok(()),
        }
    }

    fn on_sample(&mut self, now: Time) {
        let Some(t) = &mut self.timeline else { return };
        let sum = |f: fn(&NicState) -> u64| self.nics.iter().map(f).sum::<u64>();
        let now_counts = [sum(|n| n.out_bytes), sum(|n| n.total_in), sum(|n| n.total_drop)];
        let d: Vec<u64> = now_counts.iter().zip(&t.last).map(|(a, b)| a - b).collect();
        t.last = now_counts;
        let shared = if self.dshring.is_some() { self.nics[0].set == 1 } else { self.cfg.rings.sharing > 1 };
        t.samples.push(crate::report::Sample {
            t_us: now as f64 / 1e6,
            tx_gbps: d[0] as f64 * 8.0 / (t.period as f64 / 1e12) / 1e9,
            arrived: d[1],
            dropped: d[2],
            ring_set: shared as u8,
        });
        self.q.push(now + t.period, Ev::Sample);
    }

    /// A batch boundary: stop here if throughput and latency have
    /// converged (events at this instant still run, as at a normal end).
    fn on_batch(&mut self, now: Time) {
        let warmup = self.cfg.sim.warmup;
        let (mut bytes, mut lat, mut samples) = (0, 0, 0);
        for n in &mut self.nics {
            n.settle(now, warmup);
            bytes += n.c.tx_bytes;
            lat += n.c.stage_ps.iter().sum::<u128>();
            samples += n.hist.len();
        }
        let b = self.batches.as_mut().expect("batches on");
        if b.boundary(bytes, lat, samples) {
            self.end = now;
        } else if now + b.period <= self.end {
            self.q.push(now + b.period, Ev::Batch);
        }
    }

    fn on_warmup_end(&mut self, now: Time) {
        self.measuring = true;
        self.mem_base = self.mem.stats;
        self.core_miss_base = self.mem.core_misses.clone();
        self.pcie_base = self
            .nics
            .iter()
            .map(|n| {
                [
                    n.rp.link.up.busy_ps(),
                    n.rp.link.down.busy_ps(),
                    n.rp.link.data_up,
                    n.rp.link.data_down,
                    n.rp.link.writes + n.rp.link.reads,
                ]
            })
            .collect();
        for n in &mut self.nics {
            n.rp.credits.reset_stats(now);
        }
        if let Some(mc) = &mut self.mem.mc {
            // (idle time up to now is not counted)
            mc.ctl.reset_stats(now / mc.ctl.tck());
        }
        for n in &mut self.nics {
            for c in &mut n.cqs {
                c.sample(now, false);
            }
        }
        for l in self.corunner.iter_mut().chain(self.antagonists.iter_mut()) {
            l.reset();
        }
    }

    /// Conservation laws every run must satisfy; a violation is an engine bug.
    fn check_invariants(&self) -> Result<(), String> {
        for (i, n) in self.nics.iter().enumerate() {
            let mut in_flight = 0;
            for (qi, r) in n.rxq.iter().enumerate() {
                let cqs = || n.cqs.iter().filter(move |c| c.ring == qi);
                let (consumed, written) = cqs().fold((0, 0), |(a, b), c| (a + c.consumed, b + c.written));
                let array_ok = matches!(r.disc, Discipline::List { .. })
                    || (r.used <= r.fetched && r.fetched <= r.posted);
                if cqs().any(|c| c.consumed > c.completed || c.completed > c.written)
                    || written != r.used
                    || r.used > r.posted
                    || !array_ok
                {
                    return Err(format!(
                        "engine invariant: NIC {i} Rx ring indices out of order"
                    ));
                }
                if r.posted > consumed + r.size {
                    return Err(format!(
                        "engine invariant: NIC {i} Rx ring holds more than its size"
                    ));
                }
                in_flight += written - consumed + r.wait.len() as u64;
                // Every nicmem buffer is posted, spare, or holds a frame in
                // a ring or a software queue of one of the ring's cores.
                let held = cqs()
                    .flat_map(|c| (c.consumed..c.written).map(|p| r.slot_pkt[r.slot(c.rx_index(p))]))
                    .chain(
                        self.cores
                            .iter()
                            .filter(|c| c.nic == i && n.cqs[c.queue].ring == qi)
                            .flat_map(|c| {
                                let t = &n.txq[c.queue];
                                (t.freed..t.produced)
                                    .map(|x| t.slot_pkt[t.slot(x)])
                                    .chain(c.sw_queue.iter().copied())
                            }),
                    )
                    .filter(|p| p.pay_nic)
                    .count();
                let total = (r.primary.len() + r.nicmem_spare.len() + held) as u64;
                if total != r.nicmem_owned {
                    return Err(format!("engine invariant: NIC {i} ring {qi} accounts for {total} nicmem buffers, owns {}", r.nicmem_owned));
                }
            }
            for t in &n.txq {
                if t.freed > t.completed
                    || t.completed > t.sent
                    || t.sent > t.fetched
                    || t.produced - t.freed > t.size
                {
                    return Err(format!(
                        "engine invariant: NIC {i} Tx ring indices out of order"
                    ));
                }
                in_flight += t.produced - t.sent;
            }
            for c in self.cores.iter().filter(|c| c.nic == i) {
                in_flight += c.sw_queue.len() as u64;
            }
            // (read, not yet on the wire: waiting for DRAM)
            in_flight += n.port.tx_fetching.len() as u64;
            // TLPs carry their payload plus headers: wire bytes bound payload bytes.
            if n.rp.link.up.bytes() < n.rp.link.data_up || n.rp.link.down.bytes() < n.rp.link.data_down {
                return Err(format!(
                    "engine invariant: NIC {i} PCIe carried fewer wire bytes than payload bytes"
                ));
            }
            if n.total_in != n.total_out + n.total_drop + in_flight {
                return Err(format!(
                    "engine invariant: NIC {i} packets offered {} != delivered {} + dropped {} + in flight {in_flight}",
                    n.total_in, n.total_out, n.total_drop
                ));
            }
        }
        // Every reference to a stable nicmem buffer is a zero-copy response
        // still in a Tx ring or a software queue.
        if let Some(refs) = self.nf.buffer_refs() {
            let queued = self.nics.iter().flat_map(|n| {
                n.txq.iter().flat_map(|t| (t.freed..t.produced).map(|x| t.slot_pkt[t.slot(x)]))
            });
            let sw = self.cores.iter().flat_map(|c| c.sw_queue.iter().copied());
            let zero_copy = queued.chain(sw).filter(|p| p.kvs != crate::nic::NO_BUF).count() as u64;
            if refs != zero_copy {
                return Err(format!("engine invariant: {refs} stable-buffer references, {zero_copy} zero-copy responses queued"));
            }
        }
        let cap = (self.mem.llc.sets() as usize) * self.mem.llc.ways();
        if self.mem.llc_occupancy() > cap {
            return Err("engine invariant: LLC holds more lines than its capacity".into());
        }
        Ok(())
    }
}
