//! The NetDIMM paper's experiment (Alian and Kim, MICRO'19, Sec. 3 and 5) as
//! a scenario: one host sends messages to another, one at a time, and the
//! one-way latency of each is broken down into the driver's and the
//! hardware's steps (Fig 4, Fig 11):
//!
//! `tx_copy` (allocation and copy into a DMA buffer), `tx_flush` (NetDIMM:
//! write the data back from the CPU caches), `io_reg_access` (the Tx tail-register
//! write, or NetDIMM's kick-off flush), `tx_dma` (the NIC fetches the
//! descriptor and the frame), `wire` (MAC/PHY, serialisation, cables,
//! switches), `rx_dma` (the NIC writes the frame and the descriptor, until
//! the polling driver sees it), `rx_invalidate` (NetDIMM: drop the stale
//! descriptor and fetch it fresh), `rx_copy` (allocation and copy, or
//! NetDIMM's in-memory clone), and `queue` (waiting behind earlier
//! messages, with `netdimm.load` > 0).
//!
//! Attachments, all on the same two hosts (cores, caches, DRAM), on the
//! hardware path of the paper's gem5 system:
//! - `dnic`: a PCIe NIC (Sec. 2.1's T1-T4, R0-R5) as gem5's IGbE (e1000)
//!   model behind the paper's PCIe model: the Tx tail-register write over
//!   the link (T1's status check reads the ring in memory, as e1000 does),
//!   DMA as TLPs through the root port, each crossing the I/O cache to
//!   memory and back (`inic.fabric_latency`), the NIC's own descriptor
//!   delays (`nic.desc_delay`), Rx descriptors prefetched, the Rx
//!   descriptor written back once the frame's lines are answered;
//! - `inic`: the same NIC on the CPU die: its register behind the I/O
//!   bridge; its DMA writes allocate in the LLC's DDIO ways (`inic.ddio`:
//!   the paper's Sec. 5.3 has it bring frames to the LLC), where the PCIe
//!   NIC's go to DRAM behind the I/O cache (`nic.ddio`, the paper's gem5
//!   PCIe model);
//! - `*.zcpy`: the application's buffers are the DMA buffers (no copies);
//! - `netdimm`: Algorithm 1 against the `devices::netdimm` model.
//!
//! Each message's steps run one after another (a bare-metal polling driver,
//! one descriptor at a time); a message beyond the MTU is sent as frames,
//! one after another. With `netdimm.load` = 0 every message starts on an
//! idle system. Otherwise messages arrive as a Poisson process at that
//! share of the line rate and wait, first come first served, at five
//! stations in turn: the sending core (copy, flush, registers), the sending
//! NIC's DMA engine, the egress port (serialisation; later links run at the
//! same rate, so the frame does not wait again), the receiving NIC and the
//! receiving core. `sustained_gbps` is the bottleneck rate of a stream
//! of such messages with the steps pipelined (cores, PCIe link, memory
//! channel, local DRAM bus, wire).
//!
//! Left out: interrupts (the drivers poll), TCP, cross traffic from other
//! hosts in the switches, the Rx tail-register write (posted, off the
//! critical path). With load, a station's shared parts (a PCIe link, the
//! DIMM's banks) are booked message by message, so a message's early steps
//! can queue behind a previous message's later bookings on the same host.

use crate::config::{NetdimmAppBuffers, NetdimmNf, NetdimmNic, NetdimmTraffic};
use crate::cpu::Stall;
use super::dram::{DdrTiming, Geometry};
use super::rowclone::Mode;
use super::{NetDimm, NetDimmConfig};
use crate::mem::dram::queued::{Clock, Queued};
use crate::mem::{AddressMap, DmaMode, Memory};
use crate::config::Cfg;
use crate::pcie::{PcieConfig, RootPort};
use crate::report::{latency, NetDimmBreakdown, NetDimmClones, NetDimmReport, Report, Body, SimInfo};
use crate::sim::{rng, Guard};
use crate::units::{cycles_to_ps, ser_time, Time};
use hdrhistogram::Histogram;
use rand::Rng as _;

use crate::wire::UDP_HEADERS as HEADERS;
/// Smallest Ethernet frame without FCS.
const MIN_FRAME: u64 = (crate::wire::MIN_FRAME - crate::wire::FCS) as u64;
/// FCS + preamble/SFD + inter-frame gap: wire bytes beyond the frame.
const WIRE_EXTRA: u64 = crate::wire::FCS as u64 + crate::wire::WIRE_OVERHEAD;
/// Descriptors per ring; also the messages that warm the caches.
const RING: u64 = 256;
const DESC: u64 = 16;
const APP_SLOT: u64 = 64 << 10;
/// Random stream of this scenario (message sizes, nCache replacement).
const STREAM: u64 = 0x4e44;
/// Messages are sent on an idle system: this long after the previous one
/// arrived (queues, links and banks have drained; caches keep their state).
const IDLE_GAP: Time = 10 * crate::units::US;

/// The stations a message queues at, in path order.
#[derive(Clone, Copy)]
enum Station {
    TxCore,
    TxNic,
    Port,
    RxNic,
    RxCore,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dnic,
    Inic,
    NetDimm,
}

/// One message's breakdown, in ps.
#[derive(Clone, Copy, Default, Debug)]
pub struct Breakdown {
    pub tx_copy: Time,
    pub tx_flush: Time,
    pub io_reg_access: Time,
    pub tx_dma: Time,
    pub wire: Time,
    pub rx_dma: Time,
    pub rx_invalidate: Time,
    pub rx_copy: Time,
    pub queue: Time,
}

impl Breakdown {
    pub fn total(&self) -> Time {
        self.tx_copy
            + self.tx_flush
            + self.io_reg_access
            + self.tx_dma
            + self.wire
            + self.rx_dma
            + self.rx_invalidate
            + self.rx_copy
            + self.queue
    }
    fn add(&mut self, o: &Breakdown) {
        self.tx_copy += o.tx_copy;
        self.tx_flush += o.tx_flush;
        self.io_reg_access += o.io_reg_access;
        self.tx_dma += o.tx_dma;
        self.wire += o.wire;
        self.rx_dma += o.rx_dma;
        self.rx_invalidate += o.rx_invalidate;
        self.rx_copy += o.rx_copy;
        self.queue += o.queue;
    }
}

/// One host: its caches and DRAM, and the NIC's link to it.
struct Host {
    mem: Memory,
    /// The dNIC's root port.
    rp: RootPort,
    nd: NetDimm,
    /// Host buffers (application, DMA, descriptors).
    app: u64,
    dma: u64,
    desc: u64,
}

/// Addresses inside a NetDIMM (relative to its base).
const ND_DESC: u64 = 0;
const ND_DMA: u64 = 1 << 30;
/// Application buffers start in bank 8, away from the descriptors' bank 0.
const ND_APP: u64 = (2 << 30) + 8 * 8192;

pub struct Sim {
    kind: Kind,
    zcpy: bool,
    copy_needed: bool,
    tx: Host,
    rx: Host,
    freq: u64,
    /// Lines a copy keeps in flight (`cpu::copy_window`).
    window: u64,
    copy_cycles: u64,
    tx_cycles: u64,
    rx_cycles: u64,
    flush_cycles: u64,
    reg_latency: Time,
    /// The NIC's delay around a descriptor fetch and before a write-back.
    desc_delay: Time,
    fabric: Time,
    /// Core <-> memory controller, one way (the idle DRAM latency less the
    /// DRAM device's own time).
    mc_one_way: Time,
    line_rate: u64,
    phy: Time,
    cable: Time,
    switch: Time,
    hops: u64,
    /// How the NIC's DMA writes treat the host caches (`nic.ddio` for the
    /// PCIe NIC, `inic.ddio` for the on-die NIC).
    dma_mode: DmaMode,
    slot: u64,
    max_payload: u64,
    segmentation: bool,
    /// When the last message was delivered; the next starts an idle gap later.
    clock: Time,
    /// Offered load as a share of the line rate (0: one message at a time).
    load: f64,
    next_arrival: Time,
    arrivals: crate::sim::Rng,
    /// When each station (`Station`) is next free.
    free: [Time; 5],
    pub pcie_ps: Time,
    pub clones: [u64; 3],
    pub copy_needed_msgs: u64,
}

fn ddr(c: &Cfg) -> DdrTiming {
    crate::mem::dram::timing::bin(c.ddr.speed.word()).expect("the table lists the bins").in_ps()
}

pub fn netdimm_config(c: &Cfg) -> NetDimmConfig {
    NetDimmConfig {
        geo: Geometry {
            ranks: c.netdimm.ranks,
            banks: c.netdimm.banks,
            subarrays: c.netdimm.subarrays,
            rows_per_subarray: c.netdimm.rows_per_subarray,
            row_bytes: c.netdimm.row_size,
        },
        ddr: ddr(c),
        t_cmd: c.netdimm.t_cmd,
        t_rdy: c.netdimm.t_rdy,
        ncache_bytes: c.netdimm.ncache_size,
        ncache_ways: (c.netdimm.ncache_ways as usize),
        t_ncache: c.netdimm.ncache_latency,
        prefetch_lines: c.netdimm.prefetch_lines,
        alloc_pages: c.netdimm.alloc_pages,
    }
}

impl Sim {
    pub fn new(c: &Cfg) -> Result<Sim, String> {
        let nic = c.netdimm.nic;
        let kind = match nic {
            NetdimmNic::Dnic | NetdimmNic::DnicZcpy => Kind::Dnic,
            NetdimmNic::Inic | NetdimmNic::InicZcpy => Kind::Inic,
            NetdimmNic::Netdimm => Kind::NetDimm,
        };
        let pcfg = PcieConfig::from_section(&c.pcie)?;
        let ndcfg = netdimm_config(c);
        if ndcfg.geo.capacity() < 4 << 30 {
            return Err(format!("netdimm: the local DRAM holds {} MiB; the model places rings, DMA and application buffers in its first 3 GiB (give more ranks, banks, subarrays or rows)", ndcfg.geo.capacity() >> 20));
        }
        let all = (1u64 << c.llc.ways) - 1;
        let seed = c.sim.seed;
        let mtu = c.netdimm.mtu;
        let slot = mtu.next_multiple_of(4096);
        let host = |i: u64| {
            let mut map = AddressMap::new();
            let app = map.alloc(8 * APP_SLOT, 4096);
            let dma = map.alloc(RING * slot, 4096);
            let desc = map.alloc(RING * DESC, 4096);
            Host {
                mem: Memory::new(&c.mem, &c.llc, &c.l1d, &c.l2, &c.dram, c.sim.seed, vec![all]),
                rp: RootPort::new(pcfg),
                nd: NetDimm::new(ndcfg, rng(seed, STREAM, 1 + i)),
                app,
                dma,
                desc,
            }
        };
        let d = ndcfg.ddr;
        let device = d.t_rcd + d.t_cl + d.t_burst;
        Ok(Sim {
            kind,
            zcpy: matches!(nic, NetdimmNic::DnicZcpy | NetdimmNic::InicZcpy),
            copy_needed: c.netdimm.app_buffers == NetdimmAppBuffers::Host,
            tx: host(0),
            rx: host(1),
            freq: c.cpu.freq,
            window: crate::cpu::copy_window(&c.cpu),
            copy_cycles: c.cpu.copy_cycles_per_line,
            tx_cycles: c.cpu.tx_cycles,
            rx_cycles: c.cpu.rx_cycles,
            flush_cycles: c.cpu.flush_cycles,
            reg_latency: c.nic.reg_latency,
            desc_delay: c.nic.desc_delay,
            fabric: c.inic.fabric_latency,
            mc_one_way: c.dram.latency.saturating_sub(device) / 2,
            line_rate: c.nic.line_rate,
            phy: c.network.phy_latency,
            cable: c.network.cable_latency,
            switch: c.network.switch_latency,
            hops: c.network.switch_hops,
            dma_mode: if (kind == Kind::Inic && c.inic.ddio) || (kind != Kind::Inic && c.nic.ddio.first().copied().unwrap_or(true)) {
                DmaMode::Ddio
            } else {
                DmaMode::NoAllocate
            },
            slot,
            max_payload: mtu - HEADERS,
            segmentation: c.netdimm.segmentation,
            clock: 0,
            load: c.netdimm.load,
            next_arrival: 0,
            arrivals: rng(seed, STREAM, 10),
            free: [0; 5],
            pcie_ps: 0,
            clones: [0; 3],
            copy_needed_msgs: 0,
        })
    }

    /// Serialisation time of a message of `size` payload bytes sent as
    /// `frames` frames (each at most the MTU's payload).
    fn serialisation(&self, size: u64, frames: u64) -> Time {
        (0..frames)
            .map(|f| {
                let payload = (size - (f * self.max_payload).min(size)).min(self.max_payload);
                ser_time((payload + HEADERS).max(MIN_FRAME) + WIRE_EXTRA, self.line_rate)
            })
            .sum()
    }

    /// Wait at `st` until it is free; the wait is booked as `queue`.
    fn wait(&self, b: &mut Breakdown, st: Station, t: Time) -> Time {
        let free = self.free[st as usize];
        if free > t {
            b.queue += free - t;
            free
        } else {
            t
        }
    }

    fn cyc(&self, n: u64) -> Time {
        cycles_to_ps(n, self.freq)
    }

    /// Wire time of one frame: both ports' MAC/PHY, serialisation and
    /// propagation on every link, and every store-and-forward switch.
    pub fn wire(&self, frame: u64) -> Time {
        let ser = ser_time(frame.max(MIN_FRAME) + WIRE_EXTRA, self.line_rate);
        2 * self.phy + (ser + self.cable) * (self.hops + 1) + self.hops * self.switch
    }

    /// A CPU copy of `bytes` from `t`: `window` lines in flight, each line's
    /// load and store priced by `line(l, at, stall)`, plus the copy loop's
    /// own cycles per line.
    fn copy_lines(bytes: u64, mut t: Time, window: u64, line_ps: Time, mut line: impl FnMut(u64, Time, &mut Stall)) -> Time {
        let lines = bytes.div_ceil(64);
        for first in (0..lines).step_by(window as usize) {
            let n = window.min(lines - first);
            let mut stall = Stall::default();
            for l in first..first + n {
                line(l, t, &mut stall);
            }
            t += stall.total(window) + n * line_ps;
        }
        t
    }

    /// A copy between host buffers through the cache model.
    fn copy_host(mem: &mut Memory, src: u64, dst: u64, bytes: u64, t: Time, window: u64, line_ps: Time) -> Time {
        Self::copy_lines(bytes, t, window, line_ps, |l, t, stall| {
            stall.add(mem.core_access(0, src + l * 64, false, t));
            stall.add(mem.core_access(0, dst + l * 64, true, t));
        })
    }

    /// Send one message of `size` payload bytes (the `msg`-th); returns its
    /// breakdown and when it started and was delivered.
    pub fn message(&mut self, msg: u64, size: u64) -> (Breakdown, Time, Time) {
        let mut b = Breakdown::default();
        let frames = if self.segmentation {
            size.div_ceil(self.max_payload).max(1)
        } else {
            1
        };
        let app_off = (msg % 8) * APP_SLOT;
        let start = if self.load > 0.0 {
            // the next arrival comes after this message's share of the wire
            let wire = self.serialisation(size, frames);
            let u: f64 = self.arrivals.gen();
            let at = self.next_arrival;
            self.next_arrival += (-(1.0 - u).ln() * wire as f64 / self.load) as Time;
            at
        } else {
            self.clock + IDLE_GAP
        };
        // The sender's application has just written the message.
        for l in 0..size.div_ceil(64) {
            self.tx
                .mem
                .core_access(0, self.tx.app + app_off + l * 64, true, start);
        }
        let mut left = size;
        let mut t = start;
        for f in 0..frames {
            let payload = left.min(self.max_payload);
            left -= payload;
            let slot = (msg * frames + f) % RING;
            let off = app_off + f * self.max_payload;
            t = self.frame(&mut b, slot, off, payload, t);
        }
        self.clock = t;
        (b, start, t)
    }

    /// One frame's steps from `t`; adds them to `b`, returns when the
    /// receiver's application has the data.
    fn frame(
        &mut self,
        b: &mut Breakdown,
        slot: u64,
        app_off: u64,
        payload: u64,
        mut t: Time,
    ) -> Time {
        let frame = (payload + HEADERS).max(MIN_FRAME);
        let line_ps = self.cyc(self.copy_cycles);
        let mc = self.mc_one_way;
        let mut s;
        // Host addresses of this frame.
        let (tx_app, tx_dma, tx_desc) = (
            self.tx.app + app_off,
            self.tx.dma + slot * self.slot,
            self.tx.desc + slot * DESC,
        );
        let (rx_app, rx_dma, rx_desc) = (
            self.rx.app + app_off,
            self.rx.dma + slot * self.slot,
            self.rx.desc + slot * DESC,
        );
        // NetDIMM addresses of this frame.
        let nd_tx_app = ND_APP + app_off;
        let nd_tx_dma = ND_DMA + slot * self.slot;
        let nd_rx_dma = ND_DMA + slot * self.slot;
        let nd_desc = ND_DESC + slot * DESC;

        // ---- tx_copy: descriptor set-up, and the copy into a DMA buffer
        t = self.wait(b, Station::TxCore, t);
        s = t;
        t += self.cyc(self.tx_cycles);
        match self.kind {
            Kind::Dnic | Kind::Inic if !self.zcpy => {
                t = Self::copy_host(
                    &mut self.tx.mem,
                    tx_app,
                    tx_dma,
                    payload,
                    t,
                    self.window,
                    line_ps,
                );
            }
            Kind::NetDimm if self.copy_needed => {
                // COPY_NEEDED: stores to NetDIMM lines fetch them first (RFO).
                let tx = &mut self.tx;
                t = Self::copy_lines(payload, t, self.window, line_ps, |l, t, stall| {
                    stall.add(tx.mem.core_access(0, tx_app + l * 64, false, t));
                    stall.add(tx.nd.host_read(t + mc, nd_tx_dma + HEADERS + l * 64) + mc - t);
                });
            }
            _ => {}
        }
        // The driver writes the descriptor (a cached store).
        t += self.tx.mem.core_access(0, tx_desc, true, t);
        b.tx_copy += t - s;

        // ---- tx_flush (NetDIMM): write the frame back to the DIMM
        if self.kind == Kind::NetDimm {
            s = t;
            let src = if self.copy_needed {
                nd_tx_dma
            } else {
                nd_tx_app
            };
            let mut issue = t;
            for l in 0..frame.div_ceil(64) {
                issue += self.cyc(self.flush_cycles);
                self.tx.nd.host_write(issue + mc, src + l * 64);
            }
            // The fence returns once the last write-back has reached the
            // memory controller; the channel carries it from there.
            t = issue + mc;
            b.tx_flush += t - s;
        }

        // ---- io_reg_access
        s = t;
        match self.kind {
            // T2: the Tx tail register write (posted), which the NIC acts
            // on once its register file has taken it (gem5's PCI device
            // `pio_latency`). T1, the driver's check of the NIC's status,
            // reads the ring in memory, not a register: Linux e1000's
            // transmit (e1000_xmit_frame) and polling userspace drivers
            // read no register per packet.
            Kind::Dnic => {
                t = self.tx.rp.link.mmio_write(t, 4);
                self.pcie_ps += t - s;
                t += self.reg_latency;
            }
            // (through the bridge between the memory bus and the I/O bus)
            Kind::Inic => t += self.fabric + self.reg_latency,
            Kind::NetDimm => {
                // Flush the descriptor's size and flags: the write that
                // kicks the nNIC off, behind the frame's write-backs.
                t += self.cyc(self.flush_cycles);
                t = self.tx.nd.host_write(t + mc, nd_desc);
            }
        }
        b.io_reg_access += t - s;

        self.free[Station::TxCore as usize] = t;

        // ---- tx_dma: fetch the descriptor, then the frame
        t = self.wait(b, Station::TxNic, t);
        s = t;
        match self.kind {
            // Behind the root complex, or for the on-die NIC right away, a
            // DMA crosses the I/O cache to memory and back (`fabric` each
            // way, gem5's IOCache).
            Kind::Dnic => {
                for (addr, len) in [
                    (tx_desc, DESC),
                    (if self.zcpy { tx_app } else { tx_dma }, frame),
                ] {
                    // (the NIC's delay before the descriptor fetch, and
                    // after it before the frame's)
                    t += self.desc_delay;
                    let (h, mode, fabric) = (&mut self.tx, self.dma_mode, self.fabric);
                    let mut host = 0;
                    let (_, done) = h.rp.read(t, addr, len, |at| {
                        host = fabric + h.mem.dma_read(addr, len, mode, at + fabric) + fabric;
                        host
                    });
                    self.pcie_ps += done - t - host;
                    t = done;
                }
            }
            Kind::Inic => {
                for (addr, len) in [
                    (tx_desc, DESC),
                    (if self.zcpy { tx_app } else { tx_dma }, frame),
                ] {
                    t += self.desc_delay + self.fabric;
                    t += self.tx.mem.dma_read(addr, len, self.dma_mode, t) + self.fabric;
                }
            }
            Kind::NetDimm => {
                t = self.tx.nd.nic_read(t, nd_desc, DESC);
                let src = if self.copy_needed {
                    nd_tx_dma
                } else {
                    nd_tx_app
                };
                t = self.tx.nd.nic_read(t, src, frame);
            }
        }
        b.tx_dma += t - s;
        self.free[Station::TxNic as usize] = t;

        // ---- wire
        t = self.wait(b, Station::Port, t);
        self.free[Station::Port as usize] =
            t + ser_time(frame.max(MIN_FRAME) + WIRE_EXTRA, self.line_rate);
        let w = self.wire(frame);
        t += w;
        b.wire += w;

        // ---- rx_dma: frame and descriptor into memory, until the polling
        // driver sees the descriptor done
        t = self.wait(b, Station::RxNic, t);
        s = t;
        match self.kind {
            // The frame's lines, then the descriptor's write-back, which
            // the NIC issues once every line of the frame is acknowledged
            // (gem5's IGbE: pktComplete, then writeback; its DMA writes are
            // answered, not posted): the I/O cache takes each line and
            // answers, across the root complex for the dNIC.
            Kind::Dnic => {
                let dst = if self.zcpy { rx_app } else { rx_dma };
                let (h, mode, fabric) = (&mut self.rx, self.dma_mode, self.fabric);
                let (at, _) = h.rp.write(t, dst, frame, |at| h.mem.dma_write(dst, frame, mode, at + fabric));
                let acked = at + 2 * fabric + h.rp.latency() + self.desc_delay;
                let (at, _) = h.rp.write(acked, rx_desc, DESC, |at| h.mem.dma_write(rx_desc, DESC, mode, at + fabric));
                // (the root complex's crossings: the frame's way up, the
                // answer's down, the descriptor's up; not the I/O cache
                // or the NIC's own delay)
                self.pcie_ps += at - t - 2 * fabric - self.desc_delay;
                t = at + fabric;
                t += self.rx.mem.core_access(0, rx_desc, false, t);
            }
            Kind::Inic => {
                let dst = if self.zcpy { rx_app } else { rx_dma };
                t += self.fabric;
                self.rx.mem.dma_write(dst, frame, self.dma_mode, t);
                t += 2 * self.fabric + self.desc_delay;
                self.rx.mem.dma_write(rx_desc, DESC, self.dma_mode, t);
                t += self.rx.mem.core_access(0, rx_desc, false, t);
            }
            Kind::NetDimm => {
                // The nController reads the next descriptor, writes the
                // frame (its header line also into nCache) and the status.
                t = self.rx.nd.nic_read(t, nd_desc, DESC);
                t = self.rx.nd.nic_write(t, nd_rx_dma, frame, true);
                t = self.rx.nd.nic_write(t, nd_desc, DESC, false);
                t = self.rx.nd.host_read(t + mc, nd_desc) + mc;
            }
        }
        b.rx_dma += t - s;
        self.free[Station::RxNic as usize] = t;
        t = self.wait(b, Station::RxCore, t);

        // ---- rx_invalidate (NetDIMM): drop the cached descriptor and read
        // it fresh (Alg. 1 line 12); with COPY_NEEDED also the frame's lines
        if self.kind == Kind::NetDimm {
            s = t;
            let lines = if self.copy_needed {
                1 + frame.div_ceil(64)
            } else {
                1
            };
            t += self.cyc(lines * self.flush_cycles);
            t = self.rx.nd.host_read(t + mc, nd_desc) + mc;
            b.rx_invalidate += t - s;
        }

        // ---- rx_copy: buffer allocation and the copy (or clone)
        s = t;
        t += self.cyc(self.rx_cycles);
        match self.kind {
            Kind::Dnic | Kind::Inic if !self.zcpy => {
                t = Self::copy_host(
                    &mut self.rx.mem,
                    rx_dma + HEADERS,
                    rx_app,
                    payload,
                    t,
                    self.window,
                    line_ps,
                );
            }
            Kind::NetDimm if self.copy_needed => {
                self.copy_needed_msgs += 1;
                let rx = &mut self.rx;
                t = Self::copy_lines(payload, t, self.window, line_ps, |l, t, stall| {
                    // In line order: the header line comes from nCache,
                    // the payload from DRAM and the prefetcher.
                    stall.add(rx.nd.host_read(t + mc, nd_rx_dma + (HEADERS & !63) + l * 64) + mc - t);
                    stall.add(rx.mem.core_access(0, rx_app + l * 64, true, t));
                });
            }
            Kind::NetDimm => {
                // allocCache: an application buffer in the DMA buffer's
                // subarray (else anywhere: the clone is slower).
                let app = self.rx.nd.alloc.take(nd_rx_dma).unwrap_or(ND_APP + app_off);
                // netdimmClone: dst, src and size in one register write,
                // then a status read that the DIMM answers when done.
                let at = self.rx.nd.reg_write(t + mc);
                let (mode, done) =
                    self.rx
                        .nd
                        .clone(at, nd_rx_dma + HEADERS, app + HEADERS, payload);
                self.clones[match mode {
                    Mode::Fpm => 0,
                    Mode::Psm => 1,
                    Mode::Gcm => 2,
                }] += 1;
                t = self.rx.nd.reg_read(t + mc, done) + mc;
                self.rx.nd.alloc.give_back(nd_rx_dma);
            }
            _ => {}
        }
        b.rx_copy += t - s;
        self.free[Station::RxCore as usize] = t;
        t
    }

    /// Busy time so far of the busiest PCIe link direction and of the
    /// busier NetDIMM's host channel, for the bandwidth bound.
    fn busy(&self) -> (Time, Time) {
        let link = self.tx.rp.link.up.busy_ps()
            .max(self.tx.rp.link.down.busy_ps())
            .max(self.rx.rp.link.up.busy_ps())
            .max(self.rx.rp.link.down.busy_ps());
        (link, self.tx.nd.channel_busy.max(self.rx.nd.channel_busy))
    }
}

/// Message payload sizes: fixed, or a Facebook cluster's frame sizes
/// (Roy et al., SIGCOMM'15, as the NetDIMM paper Sec. 5.1 describes them).
fn size_of(dist: NetdimmTraffic, fixed: u64, r: &mut crate::sim::Rng) -> u64 {
    let frame = match dist {
        // uniform between 64 B and the 1514 B MTU
        NetdimmTraffic::Database => r.gen_range(64..=1514),
        // ~90 % below 300 B
        NetdimmTraffic::Webserver => {
            if r.gen::<f64>() < 0.9 {
                r.gen_range(64..300)
            } else {
                r.gen_range(300..=1514)
            }
        }
        // ~41 % below 100 B, ~52 % at the MTU
        NetdimmTraffic::Hadoop => {
            let u = r.gen::<f64>();
            if u < 0.41 {
                r.gen_range(64..100)
            } else if u < 0.93 {
                1514
            } else {
                r.gen_range(100..1514)
            }
        }
        NetdimmTraffic::Fixed => return fixed,
    };
    frame - HEADERS
}

/// Fig 12b: the receiving host takes line-rate traffic (`netdimm.traffic`)
/// through an iNIC or NetDIMM, one core runs L3F (reads each packet's
/// header line) or DPI (reads every line), and a co-runner on another core
/// chases pointers through `corunner.buffer`. The co-runner's mean load
/// latency is reported.
///
/// What couples them: with the iNIC, DMA writes allocate in the LLC's
/// DDIO ways (`inic.ddio`), evicting the co-runner's lines, and the
/// frames' lines evicted from there are written back to DRAM (off, they go
/// to DRAM and the NF's reads of them miss). With NetDIMM, packets stay in
/// the DIMM; the NF's reads cross the DIMM's channel with the asynchronous
/// protocol: on the controllers they queue in the host's controller of that
/// channel and their data shares its bus with the DIMMs' (`read_far`); on
/// the calendar a co-runner miss to that channel waits for NetDIMM's data
/// bus. The NF core is assumed to keep up; the lines NetDIMM's NF reads are
/// not placed in the host LLC.
fn run_corunner(c: &Cfg, g: &mut Guard) -> Result<Report, String> {
    let mut sim = Sim::new(c)?;
    let all = (1u64 << c.llc.ways) - 1;
    let mut mem = Memory::new(&c.mem, &c.llc, &c.l1d, &c.l2, &c.dram, c.sim.seed, vec![all, all]);
    let mut map = AddressMap::new();
    let ring = map.alloc(RING * sim.slot, 4096);
    let co_lines = (c.corunner.buffer / 64).max(1);
    let co_base = map.alloc(co_lines * 64, 4096);
    let dpi = c.netdimm.nf == NetdimmNf::Dpi;
    let ch = c.netdimm.channel as usize;
    let llc_lat = c.llc.latency;
    let n = c.netdimm.messages;
    let warm = RING.min(n / 2);
    let mut r = rng(c.sim.seed, STREAM, 0);
    let mut co = rng(c.sim.seed, STREAM, 9);
    let dist = c.netdimm.traffic;
    let mc = sim.mc_one_way;
    let (mut t, mut t_co) = (0 as Time, 0 as Time);
    let (mut lat_sum, mut accesses, mut t_warm) = (0u64, 0u64, 0 as Time);
    // With the controllers (`dram.model = controller`): their clock, the
    // co-runner's read in flight (when it left, and the wait for
    // NetDIMM's data bus it owes), the reads back.
    mem.mc = Queued::from_cfg(&c.dram)?;
    let mut clock = Clock::default();
    let mut pending: Option<(Time, Time)> = None;
    let mut back = Vec::new();
    for k in 0..n {
        g.tick(|| k as f64 / n as f64)?;
        if k == warm {
            t_warm = t;
        }
        let payload = size_of(dist, c.netdimm.size, &mut r).min(sim.max_payload);
        let frame = (payload + HEADERS).max(MIN_FRAME);
        let slot = k % RING;
        let lines = if dpi { frame.div_ceil(64) } else { 1 };
        // The co-runner's dependent loads up to when the packet's traffic
        // reaches the memory system, before that traffic: requests reach it
        // in time order. (With the controllers a load that misses waits for
        // its data, which may come back after the traffic has been sent.)
        // First up to the frame's arrival, so that NetDIMM answers the XRDs
        // sent before it before its nNIC writes the frame; then up to when
        // the traffic reaches the memory system: the iNIC's DMA writes, or
        // the NF's reads once NetDIMM has the packet (the nNIC's own writes
        // stay inside the DIMM).
        let (mut buf, mut until) = (ring + slot * sim.slot, t);
        for arrived in [false, true] {
            if arrived {
                (buf, until) = match sim.kind {
                    Kind::Inic => (buf, t + sim.fabric),
                    _ => {
                        let buf = ND_DMA + slot * sim.slot;
                        (buf, sim.rx.nd.nic_write(t, buf, frame, true) + mc)
                    }
                };
            }
            // (NetDIMM on the controllers: no further than the next frame's
            // arrival, so that NetDIMM answers the XRDs sent after it after
            // its nNIC has written that frame; the NF's reads, sent at
            // `until`, wait in the controllers meanwhile)
            let upto = match (arrived, sim.kind, &mem.mc) {
                (true, Kind::NetDimm, Some(_)) => until.min(t + ser_time(frame + WIRE_EXTRA, sim.line_rate)),
                _ => until,
            };
            loop {
                g.tick(|| k as f64 / n as f64)?;
                let lat = match (&mut pending, mem.mc.as_mut()) {
                    (Some((issued, extra)), Some(q)) => match clock.run(q, upto, &mut back, &mut |a, at| sim.rx.nd.xrd(at, a)) {
                        Some(b) => (b.at - *issued) + *extra,
                        None => break,
                    },
                    (_, q) if t_co >= upto => {
                        // (nothing pending: the controllers run on to then)
                        if let Some(q) = q {
                            let none = clock.run(q, upto, &mut back, &mut |a, at| sim.rx.nd.xrd(at, a));
                            debug_assert!(none.is_none(), "no read the co-runner waits for");
                        }
                        break;
                    }
                    _ => {
                        let addr = co_base + co.gen_range(0..co_lines) * 64;
                        let mut lat = mem.core_access(1, addr, false, t_co);
                        // (with the controllers a DRAM read is left to send)
                        let read = mem.mc.as_mut().and_then(|q| q.missed.pop());
                        // (on the calendar, a miss to NetDIMM's channel waits
                        // for its data bus too; the controllers schedule it)
                        let missed = lat > llc_lat;
                        let extra = if sim.kind == Kind::NetDimm && missed && mem.dram.channel_of(addr / 64) == ch {
                            sim.rx.nd.dq_free().saturating_sub(t_co + mc)
                        } else {
                            0
                        };
                        if let (Some((line, _)), Some(q)) = (read, mem.mc.as_mut()) {
                            debug_assert!(q.missed.is_empty(), "a load misses one line");
                            q.read(1, line, true, t_co);
                            pending = Some((t_co, extra));
                            continue;
                        }
                        lat += extra;
                        lat
                    }
                };
                if let Some((issued, _)) = pending.take() {
                    t_co = issued;
                }
                if k >= warm {
                    lat_sum += lat;
                    accesses += 1;
                }
                t_co += lat;
            }
        }
        let nf_at = until;
        if sim.kind == Kind::Inic {
            mem.dma_write(buf, frame, sim.dma_mode, nf_at);
        }
        for l in 0..lines {
            match (sim.kind, mem.mc.as_mut()) {
                (Kind::Inic, _) => {
                    mem.core_access(0, buf + l * 64, false, nf_at);
                }
                // (the host's controller for NetDIMM's channel queues the
                // read among the DIMMs' and schedules its XRD and SEND)
                (_, Some(q)) => q.read_far(ch, buf + l * 64, nf_at),
                _ => {
                    sim.rx.nd.host_read(nf_at, buf + l * 64);
                }
            }
        }
        // (the NF core keeps up: its reads load the controllers, and no
        // pass waits for them)
        if let Some(q) = &mut mem.mc {
            for (line, _) in std::mem::take(&mut q.missed) {
                q.post(line, false, nf_at);
            }
        }
        t += ser_time(frame + WIRE_EXTRA, sim.line_rate);
    }
    Ok(Report {
        body: Body::NetDimm { netdimm: None, corunner: Some(crate::report::CorunnerReport {
            mean_latency_ns: crate::report::ratio(lat_sum, accesses) / 1e3,
            gbytes_s: accesses as f64 * 64.0 / (t - t_warm).max(1) as f64 * 1e3,
        }) },
        sim: SimInfo::new(c.sim.seed, 0, n, t),
    })
}

pub fn run(c: &Cfg) -> Result<Report, String> {
    crate::sim::unguarded(|g| run_guarded(c, g))
}

/// [`run`], telling `g` of every message (and co-runner load).
pub fn run_guarded(c: &Cfg, g: &mut Guard) -> Result<Report, String> {
    if c.netdimm.nf != NetdimmNf::Off {
        return run_corunner(c, g);
    }
    let mut sim = Sim::new(c)?;
    let n = c.netdimm.messages;
    let warm = RING.min(n / 2);
    let mut r = rng(c.sim.seed, STREAM, 0);
    let dist = c.netdimm.traffic;
    let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).expect("bounds");
    let mut sum = Breakdown::default();
    let (mut bytes, mut frames_bytes, mut wire_ps) = (0u64, 0u64, 0 as Time);
    let mut base = (0, 0);
    for m in 0..n {
        g.tick(|| m as f64 / n as f64)?;
        if m == warm {
            sim.pcie_ps = 0;
            sim.clones = [0; 3];
            sim.copy_needed_msgs = 0;
            base = sim.busy();
            sim.tx.nd.ncache.hits = 0;
            sim.rx.nd.ncache.hits = 0;
            sim.rx.nd.ncache.misses = 0;
        }
        let size = size_of(dist, c.netdimm.size, &mut r);
        let (b, _, _) = sim.message(m, size);
        if m >= warm {
            sum.add(&b);
            hist.record((b.total() / 1000).max(1))
                .map_err(|e| format!("latency out of range: {e}"))?;
            bytes += size;
            let per = sim.max_payload;
            let frames = if sim.segmentation {
                size.div_ceil(per).max(1)
            } else {
                1
            };
            frames_bytes += size + frames * HEADERS;
            wire_ps += sim.serialisation(size, frames);
        }
    }
    let k = (n - warm).max(1) as f64;
    let ns = |x: Time| x as f64 / 1e3 / k;
    // Bandwidth: the busiest pipelined resource per message. The driver
    // steps occupy a core (spread over cpu.cores queues); DMA engines keep
    // many requests in flight, so PCIe, the memory channel and the wire
    // bound them by occupancy, not latency.
    let cores = c.cpu.cores as f64;
    let tx_core = (sum.tx_copy + sum.tx_flush + sum.io_reg_access) as f64 / k / cores;
    let rx_core = (sum.rx_invalidate + sum.rx_copy) as f64 / k / cores;
    let (link, chan) = sim.busy();
    let link = (link - base.0) as f64 / k;
    let chan = (chan - base.1) as f64 / k;
    let wire = wire_ps as f64 / k;
    let bottleneck = tx_core.max(rx_core).max(link).max(chan).max(wire);
    let frame_bits = frames_bytes as f64 * 8.0 / k;
    let rx = &sim.rx.nd.ncache;
    let total = sum.total();
    Ok(Report {
        body: Body::NetDimm { corunner: None, netdimm: Some(NetDimmReport {
            nic: c.netdimm.nic.to_string(),
            messages: n - warm,
            mean_size: bytes as f64 / k,
            latency_ns: latency(&hist),
            breakdown_ns: NetDimmBreakdown {
                tx_copy: ns(sum.tx_copy),
                tx_flush: ns(sum.tx_flush),
                io_reg_access: ns(sum.io_reg_access),
                tx_dma: ns(sum.tx_dma),
                wire: ns(sum.wire),
                rx_dma: ns(sum.rx_dma),
                rx_invalidate: ns(sum.rx_invalidate),
                rx_copy: ns(sum.rx_copy),
                queue: ns(sum.queue),
                total: ns(total),
            },
            pcie_ns: ns(sim.pcie_ps),
            sustained_gbps: frame_bits / bottleneck.max(1.0) * 1e3,
            clones: NetDimmClones {
                fpm: sim.clones[0],
                psm: sim.clones[1],
                gcm: sim.clones[2],
            },
            ncache_hit_rate: crate::report::ratio(rx.hits, rx.hits + rx.misses),
            copy_needed: sim.copy_needed_msgs,
        }) },
        sim: SimInfo::new(c.sim.seed, 0, n, total),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::validated as validate;
    use crate::pcie::tlp::mmio_write_wire_bytes;
    use serde_json::{json, Value};

    fn cfg(extra: Value) -> Cfg {
        let mut v = json!({"sim": {"kind": "netdimm"}, "netdimm": {"nic": "netdimm", "messages": 300, "segmentation": true}});
        crate::devices::netdimm::system::tests::merge(&mut v, extra);
        validate(&v).unwrap()
    }

    pub(crate) fn merge(a: &mut Value, b: Value) {
        if let (Value::Object(a), Value::Object(b)) = (a, b) {
            for (k, v) in b {
                match a.get_mut(&k) {
                    Some(x) if x.is_object() && v.is_object() => merge(x, v),
                    _ => {
                        a.insert(k, v);
                    }
                }
            }
        }
    }

    #[test]
    fn parts_sum_to_the_one_way_latency_for_every_attachment() {
        for nic in ["dnic", "dnic.zcpy", "inic", "inic.zcpy", "netdimm"] {
            for (size, buffers) in [
                (10, "netdimm"),
                (1000, "netdimm"),
                (5000, "netdimm"),
                (1000, "host"),
            ] {
                let c = cfg(json!({"netdimm": {"nic": nic, "app_buffers": buffers}}));
                let mut sim = Sim::new(&c).unwrap();
                for m in 0..20 {
                    let (b, start, end) = sim.message(m, size);
                    assert_eq!(b.total(), end - start, "{nic} {size} B");
                    assert!(b.wire > 0 && b.tx_dma > 0 && b.rx_dma > 0);
                    if nic != "netdimm" {
                        assert_eq!(b.tx_flush + b.rx_invalidate, 0, "only NetDIMM flushes");
                    }
                }
            }
        }
    }

    #[test]
    fn under_load_messages_queue_and_the_parts_still_sum() {
        let lat = |nic: &str, load: f64| {
            let c = cfg(json!({"netdimm": {"nic": nic, "load": load, "size": 1024}}));
            let mut sim = Sim::new(&c).unwrap();
            let (mut queue, mut total) = (0, 0);
            for m in 0..400 {
                let (b, start, end) = sim.message(m, 1024);
                // latency counts from the arrival, queueing included
                assert_eq!(b.total(), end - start, "{nic} at {load}");
                queue += b.queue;
                total += b.total();
            }
            (queue, total)
        };
        for nic in ["dnic", "inic", "netdimm"] {
            let (q0, t0) = lat(nic, 0.0);
            assert_eq!(q0, 0, "{nic}: an idle system has no queue");
            let (q1, t1) = lat(nic, 0.05);
            let (q2, t2) = lat(nic, 0.2);
            assert!(q2 > q1 && q1 > 0, "{nic}: {q1} {q2}");
            assert!(t2 > t1 && t1 > t0, "{nic}: {t0} {t1} {t2}");
        }
    }

    #[test]
    fn wire_is_phy_serialisation_cables_and_switches() {
        let c = cfg(
            json!({"network": {"phy_latency": "50ns", "cable_latency": "5ns", "switch_latency": "100ns", "switch_hops": 2}, "nic": {"line_rate": "40Gbps"}, "traffic": {"rate": "40Gbps"}}),
        );
        let sim = Sim::new(&c).unwrap();
        // A 64 B payload: 106 B frame + 24 B FCS, preamble, gap = 130 B at
        // 40 Gbps = 26 ns, serialised on each of the 3 links.
        assert_eq!(
            sim.wire(106),
            2 * 50_000 + 3 * (26_000 + 5_000) + 2 * 100_000
        );
    }

    #[test]
    fn dnic_register_access_is_a_posted_write_the_nic_then_takes() {
        // (no status-register read: e1000's transmit reads none)
        let c = cfg(json!({"netdimm": {"nic": "dnic"}}));
        let mut sim = Sim::new(&c).unwrap();
        let (b, _, _) = sim.message(0, 64);
        let p = PcieConfig::from_section(&c.pcie).unwrap();
        let link = crate::pcie::PcieLink::new(p);
        let expect = link.down.ser_ps(mmio_write_wire_bytes(&p, 4)) + p.latency_ps + c.nic.reg_latency;
        assert!(b.io_reg_access.abs_diff(expect) <= 2, "{} vs {expect}", b.io_reg_access);
    }

    #[test]
    fn a_dnic_dma_read_crosses_the_root_complex_and_the_io_cache_both_ways() {
        // The descriptor fetch of a 10 B message: request up, the I/O
        // cache to memory and back, completions down; then the frame's.
        let c = cfg(json!({"netdimm": {"nic": "dnic"}}));
        let mut sim = Sim::new(&c).unwrap();
        let (b, _, _) = sim.message(0, 10);
        let p = PcieConfig::from_section(&c.pcie).unwrap();
        let fixed = 2 * (2 * p.latency_ps + 2 * c.inic.fabric_latency);
        assert!(b.tx_dma > fixed, "{} vs at least {fixed}", b.tx_dma);
        // (the rest: serialisation and host memory, under a microsecond)
        assert!(b.tx_dma < fixed + 1_000_000, "{}", b.tx_dma);
    }

    #[test]
    fn the_rx_path_crosses_the_io_cache_three_times() {
        // The frame's lines in, their answer out, the descriptor in (then
        // the driver's poll): rx_dma grows by three crossings of the I/O
        // cache, for the PCIe NIC and the on-die one alike.
        for nic in ["dnic", "inic"] {
            let rx = |fabric: &str| {
                let c = cfg(json!({"netdimm": {"nic": nic}, "inic": {"fabric_latency": fabric}}));
                Sim::new(&c).unwrap().message(0, 10).0.rx_dma
            };
            let grew = rx("50ns") - rx("0ns");
            assert!(grew.abs_diff(150_000) <= 1_000, "{nic}: {grew} ps");
        }
    }

    #[test]
    fn netdimm_kickoff_and_nic_fetch_hand_computed() {
        // One 10 B message on a fresh NetDIMM: the kick-off flush and the
        // nNIC's descriptor + frame fetch from closed banks.
        let c = cfg(json!({}));
        let mut sim = Sim::new(&c).unwrap();
        let (b, _, _) = sim.message(0, 10);
        let d = ddr(&c);
        // tx_dma starts when the kick-off write reaches the nController.
        // That write opens bank 0 (tRCD) and its burst follows tCWL later;
        // the descriptor read may issue once the write's burst is issued
        // (tRCD + burst), hits the open row (tCL + burst). The frame's line
        // was written back to bank 8 just before: a row hit (tCL + burst).
        let desc = d.t_rcd + d.t_burst + d.t_cl + d.t_burst;
        let data = d.t_cl + d.t_burst;
        assert_eq!(b.tx_dma, desc + data);
        // The kick-off: flush issue, core -> MC, one write on the channel
        // (queued behind the frame's write-back burst), then tCMD.
        assert!(
            b.io_reg_access
                >= sim.cyc(c.cpu.flush_cycles)
                    + sim.mc_one_way
                    + d.t_cwl
                    + d.t_burst
                    + c.netdimm.t_cmd
        );
    }

    #[test]
    fn netdimm_clones_with_fpm_and_copy_needed_falls_back_to_copies() {
        let r = run(&cfg(json!({"netdimm": {"size": 1000}})))
            .unwrap()
            .netdimm()
            .cloned().unwrap();
        assert_eq!(
            (r.clones.fpm, r.clones.psm, r.clones.gcm),
            (r.messages, 0, 0)
        );
        assert_eq!(r.copy_needed, 0);
        let h = run(&cfg(
            json!({"netdimm": {"size": 1000, "app_buffers": "host"}}),
        ))
        .unwrap()
        .netdimm()
        .cloned().unwrap();
        assert_eq!(h.clones.fpm + h.clones.psm + h.clones.gcm, 0);
        assert_eq!(h.copy_needed, h.messages);
        assert!(
            h.ncache_hit_rate > 0.5,
            "header line + prefetched payload: {}",
            h.ncache_hit_rate
        );
        assert!(
            h.breakdown_ns.total > r.breakdown_ns.total,
            "the COPY_NEEDED path is slower"
        );
    }

    #[test]
    fn zero_copy_removes_the_copies() {
        for nic in ["dnic", "inic"] {
            let full = run(&cfg(json!({"netdimm": {"nic": nic, "size": 2000}})))
                .unwrap()
                .netdimm()
                .cloned().unwrap();
            let z = run(&cfg(
                json!({"netdimm": {"nic": format!("{nic}.zcpy"), "size": 2000}}),
            ))
            .unwrap()
            .netdimm()
            .cloned().unwrap();
            assert!(
                z.breakdown_ns.rx_copy < full.breakdown_ns.rx_copy
                    && z.breakdown_ns.tx_copy < full.breakdown_ns.tx_copy
            );
            assert!((z.breakdown_ns.wire - full.breakdown_ns.wire).abs() < 1e-9);
        }
    }

    #[test]
    fn latency_grows_with_size_and_runs_are_deterministic() {
        for nic in ["dnic", "inic", "netdimm"] {
            let l: Vec<f64> = [64, 512, 1400]
                .iter()
                .map(|s| {
                    run(&cfg(json!({"netdimm": {"nic": nic, "size": s}})))
                        .unwrap()
                        .netdimm()
                        .cloned().unwrap()
                        .breakdown_ns
                        .total
                })
                .collect();
            assert!(l[0] < l[1] && l[1] < l[2], "{nic}: {l:?}");
        }
        let c = cfg(json!({"netdimm": {"traffic": "hadoop"}}));
        let a = serde_json::to_string(&run(&c).unwrap()).unwrap();
        assert_eq!(a, serde_json::to_string(&run(&c).unwrap()).unwrap());
    }

    #[test]
    fn dpi_through_netdimm_loads_the_channel_more_than_l3f() {
        let co = |nf: &str| {
            let c = cfg(json!({"netdimm": {"nf": nf, "traffic": "database", "messages": 5000}}));
            run(&c).unwrap().corunner().cloned().unwrap().mean_latency_ns
        };
        let (l3f, dpi) = (co("l3f"), co("dpi"));
        assert!(dpi > l3f && l3f > 0.0, "dpi {dpi} l3f {l3f}");
        // On the controllers, the host's controller for NetDIMM's channel
        // queues the NF's reads of its packets among the DIMMs' (Sec. 5.1)
        // and shares its data bus with their SENDs: the co-runner's reads
        // there wait behind DPI's, not L3F's header reads.
        let co = |nf: &str| {
            let dram = json!({"model": "controller", "channels": 2, "speed": "DDR4-2400", "channel_bw": "19200MB/s", "latency": "60ns"});
            let c = cfg(json!({"dram": dram, "llc": {"size": "2MiB", "ways": 16, "slices": 1, "slice_hash": "none"},
                               "netdimm": {"nf": nf, "traffic": "database", "messages": 5000}}));
            run(&c).unwrap().corunner().cloned().unwrap().mean_latency_ns
        };
        let (l3f, dpi) = (co("l3f"), co("dpi"));
        assert!(dpi > 1.01 * l3f && l3f > 0.0, "on the controllers: dpi {dpi} l3f {l3f}");
    }

    #[test]
    fn on_the_controllers_the_inics_dma_writes_queue_the_co_runner() {
        // (gem5's DRAMCtrl serves the paper's co-runner: with the iNIC the
        // frames' writes reach host DRAM and its reads wait behind them;
        // NetDIMM keeps them in the DIMM)
        let co = |nic: &str, model: &str| {
            // (Table 1's two DDR4-2400 channels and 2 MB last-level cache)
            let dram = json!({"model": model, "channels": 2, "speed": "DDR4-2400", "channel_bw": "19200MB/s", "latency": "60ns"});
            let c = cfg(json!({"dram": dram, "llc": {"size": "2MiB", "ways": 16, "slices": 1, "slice_hash": "none"},
                               "netdimm": {"nic": nic, "nf": "l3f", "traffic": "database", "messages": 5000}}));
            run(&c).unwrap().corunner().cloned().unwrap().mean_latency_ns
        };
        let (inic, nd) = (co("inic", "controller"), co("netdimm", "controller"));
        assert!(inic > 1.02 * nd && nd > 0.0, "inic {inic} netdimm {nd}");
        assert_eq!(inic, co("inic", "controller"), "deterministic");
        assert_ne!(inic, co("inic", "calendar"), "the controllers serve it");
    }

    #[test]
    fn netdimm_answers_xrds_in_time_order_with_its_nics_writes() {
        // (NetDimm::xrd asserts, in debug builds, that no nNIC write later
        // than the XRD came first; webserver's small frames arrive faster
        // than the NF's reads reach the controllers)
        let dram = json!({"model": "controller", "channels": 2, "speed": "DDR4-2400", "channel_bw": "19200MB/s", "latency": "60ns"});
        let c = cfg(json!({"dram": dram, "netdimm": {"nic": "netdimm", "nf": "dpi", "traffic": "webserver", "messages": 5000}}));
        assert!(run(&c).unwrap().corunner().cloned().unwrap().mean_latency_ns > 0.0);
    }

    #[test]
    fn the_on_die_nics_frames_land_in_the_llc_unless_inic_ddio_is_off() {
        // (Sec. 5.3: the iNIC brings frames to the LLC, where DPI reads
        // them; to DRAM they cost the co-runner a write and a read each)
        let co = |ddio: bool| {
            let dram = json!({"model": "controller", "channels": 2, "speed": "DDR4-2400", "channel_bw": "19200MB/s", "latency": "60ns"});
            let c = cfg(json!({"dram": dram, "inic": {"ddio": ddio}, "llc": {"size": "2MiB", "ways": 16, "slices": 1, "slice_hash": "none"},
                               "netdimm": {"nic": "inic", "nf": "dpi", "traffic": "database", "messages": 5000}}));
            run(&c).unwrap().corunner().cloned().unwrap().mean_latency_ns
        };
        let (llc, dram) = (co(true), co(false));
        assert!(dram > 1.02 * llc && llc > 0.0, "to the LLC {llc} ns, to DRAM {dram} ns");
        // (the PCIe NIC's root port keeps nic.ddio: the iNIC's key leaves it be)
        let rx = |nic: &str, ddio: bool| {
            let c = cfg(json!({"nic": {"ddio": [false]}, "inic": {"ddio": ddio}, "netdimm": {"nic": nic, "size": 1000}}));
            run(&c).unwrap().netdimm().cloned().unwrap().breakdown_ns.rx_copy
        };
        assert_eq!(rx("dnic", true), rx("dnic", false));
        assert!(rx("inic", true) < rx("inic", false));
    }

    #[test]
    fn bad_inputs_name_the_parameter() {
        let e = validate(&json!({"sim": {"kind": "netdimm"}, "netdimm": {"nic": "dnic", "nf": "dpi"}})).unwrap_err();
        assert!(e.starts_with("netdimm.nf = dpi"), "{e}");
        let e = validate(&json!({"netdimm": {"channel": 9}})).unwrap_err();
        assert!(
            e.starts_with("netdimm.channel = 9") && e.contains("dram.channels = 6"),
            "{e}"
        );
        let e = validate(&json!({"netdimm": {"interleave": true}})).unwrap_err();
        assert!(e.starts_with("netdimm.interleave = true"), "{e}");
        let e = validate(&json!({"sim": {"kind": "netdimm"}, "netdimm": {"nic": "dnic", "size": 2000}})).unwrap_err();
        assert!(
            e.starts_with("netdimm.size = 2000") && e.contains("netdimm.segmentation"),
            "{e}"
        );
        assert!(
            validate(&json!({"sim": {"kind": "netdimm"}, "netdimm": {"nic": "dnic", "size": 2000, "segmentation": true}}))
                .is_ok()
        );
    }
}
