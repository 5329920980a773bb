//! A NIC in the packet run, as the host sees it: its port and rings, the
//! driver's buffer pools, its root port, the source feeding its wire, and
//! its counters. Built from the `nic`, `rings`, `mempool`, `pcie` and
//! `traffic` sections; its receive and transmit behaviour is in `rx.rs`
//! and `tx.rs`.

use super::{accel, Layout};
use crate::config::{Cfg, MempoolOrder, NicPayloadMem, RingsDiscipline};
use crate::cpu::mempool::Mempool;
use crate::mem::{AddressMap, DmaMode};
use crate::nic::{CompRing, Discipline, PktRef, Port, RxQueue, TxQueue};
use crate::pcie::{PcieConfig, RootPort};
use crate::report::NicCounters;
use crate::rings::{rxarr::RxArr, rxlist::RxList};
use crate::sim::{rng, stream};
use crate::traffic::{Packet, Source};
use crate::units::{ser_time, Time};
use crate::wire::pause::FlowControl;
use hdrhistogram::Histogram;
use std::collections::VecDeque;

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
            let p = &d.pkt;
            self.c.add_latency(p.held, [p.arrival, p.t_dma, p.t_cqe, p.t_core, p.t_db, d.start, d.end]);
        }
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

    pub(super) fn done(&mut self, at: Time) -> Option<Time> {
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
    pub(super) fn sent(&mut self, wire: Time) -> Time {
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

/// NIC memory sits outside host memory (one 4 GiB window per NIC): the
/// host caches never see these addresses.
pub(crate) const NICMEM_BASE: u64 = 1 << 40;

impl NicState {
    /// NIC `n` of the scenario `c`: its pools, rings, accelNFV's flow
    /// contexts and doorbell records at addresses from `map` (in this
    /// order, so every run lays memory out alike), its source, root port
    /// and flow control.
    pub(super) fn build(c: &Cfg, n: usize, k: &Layout, pcfg: PcieConfig, map: &mut AddressMap) -> Result<NicState, String> {
        let cores_per_nic = c.cpu.cores as usize;
        // (mempools sit in hugepages, no object across a page)
        let page = crate::mem::pages::page_bytes(c.mem.hugepage);
        let mut pool = Mempool::from_cfg(&c.mempool, map, cores_per_nic, page, c.mempool.order == MempoolOrder::Fifo);
        let mut pay_pool = c.nic.header_split.then(|| Mempool::from_cfg(&c.mempool, map, cores_per_nic, page, false));
        // nicmem goes to the rings of the first cores (host_queues: the last
        // ones), the NIC's buffer region shared evenly by them.
        let nicmem_rings = if c.nic.payload_mem == NicPayloadMem::Nicmem {
            (cores_per_nic - (c.nic.host_queues as usize)).div_ceil(c.rings.sharing as usize)
        } else {
            0
        };
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
        let (rxq, cqs, txq) = rings(c, k, map, &mut pool, pay_pool.as_mut(), (nicmem_rings, per_queue))?;
        let mut src = Source::from_cfg(&c.traffic, c.nic.line_rate, c.sim.seed, n as u16)?;
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
        Ok(NicState {
            port: Port::new(c.nic.rx_buffer, c.nic.tx_buffer, cores_per_nic),
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
                accel::Accel::new(c.nic.ctx_cache_size, ctx_base, rng(c.sim.seed, stream::NF, 1000 + n as u64))
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
                FlowControl::new(c.nic.rx_buffer, c.nic.line_rate, c.nic.cable_len, c.traffic.source_queue as usize)
            }),
        })
    }
}

/// A NIC's rings: Rx descriptor rings (one per core, or per `rings.sharing`
/// cores; dshRing keeps a private set first beside the shared one), each
/// filled with buffers from its cores' caches of `pool` (and `pay_pool`
/// when frames are split), the first `nicmem.0` holding `nicmem.1` nicmem
/// buffers each; a completion ring per core per set; a Tx ring per core.
fn rings(
    c: &Cfg,
    k: &Layout,
    map: &mut AddressMap,
    pool: &mut Mempool,
    mut pay_pool: Option<&mut Mempool>,
    (nicmem_rings, per_queue): (usize, u64),
) -> Result<(Vec<RxQueue>, Vec<CompRing>, Vec<TxQueue>), String> {
    let (rx_size, tx_size) = (c.nic.rx_ring_size, c.nic.tx_ring_size);
    let (cores_per_nic, sharing) = (c.cpu.cores as usize, c.rings.sharing as usize);
    let (mut rxq, mut cqs, mut txq) = (vec![], vec![], vec![]);
    let sets: &[usize] = if c.rings.dynamic { &[1, sharing] } else { &[sharing] };
    for (set, &share) in sets.iter().enumerate() {
        let first_ring = rxq.len();
        for q in 0..cores_per_nic {
            if q % share == 0 {
                let ring = q / share;
                let mut r = RxQueue::new(rx_size, map.alloc(rx_size * k.rx_desc, 4096));
                if share > 1 {
                    // The lock, consumer index and list tail share a
                    // line; the bitmap words follow.
                    r.sync_addr = map.alloc(64 + rx_size.div_ceil(8), 64);
                    r.disc = if c.rings.discipline == RingsDiscipline::List {
                        Discipline::List { list: RxList::new(rx_size as u32), cached: vec![false; rx_size as usize] }
                    } else {
                        Discipline::Arr { arr: RxArr::new(rx_size), marked_at: vec![0; rx_size as usize] }
                    };
                }
                // Buffers come from the per-core caches of the ring's cores.
                for s in 0..rx_size as usize {
                    r.slot_mbuf[s] = pool.alloc(q + s % share).ok_or("mempool.size: too small to fill the Rx rings")?;
                }
                if let Some(pp) = pay_pool.as_deref_mut() {
                    r.slot_pay = (0..rx_size as usize)
                        .map(|s| pp.alloc(q + s % share).ok_or("mempool.size: too small to fill the Rx rings"))
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
            cqs.push(CompRing::new(rx_size, first_ring + q / share, map.alloc(rx_size * k.rx_cqe, 4096)));
            if set == 0 {
                txq.push(TxQueue::new(tx_size, map.alloc(tx_size * k.tx_desc, 4096), map.alloc(tx_size * c.nic.cqe_size, 4096)));
            }
        }
    }
    Ok((rxq, cqs, txq))
}
