//! The NIC's state: one port with a bounded Rx buffer and a Tx wire, RSS,
//! and per-queue Rx/Tx rings whose descriptors and completion entries live
//! at real host addresses.
//!
//! Ring indices are free-running counters (as in DPDK and mlx5); the slot of
//! index `i` is `i % size`. The NIC-side behaviour (descriptor prefetch,
//! DMA, Tx scheduling) is in `run::packet::rx` and `run::packet::tx`.
//!
//! Receive is split as on mlx5 (and shRing, Fig 4): a descriptor ring
//! ([`RxQueue`]) holds the buffers, and every core has its own completion
//! ring ([`CompRing`]) through which the NIC tells it which descriptors hold
//! its frames. A private ring has one completion ring; a shared ring
//! (shRing) has N, one per sharing core.

pub mod check;

use crate::config::NicCfg;
use crate::rings::{rxarr::RxArr, rxlist::RxList};
use crate::units::Time;
use std::collections::VecDeque;

/// No buffer (a header already inlined and freed, or an unsplit frame's payload).
pub const NO_BUF: u32 = u32::MAX;

/// A packet as software and rings carry it.
#[derive(Clone, Copy, Debug, Default)]
pub struct PktRef {
    /// The (header) buffer in host memory.
    pub mbuf: u32,
    /// Payload buffer of a split frame ([`NO_BUF`] if none), in NIC memory
    /// when `pay_nic`, else in the host payload pool.
    pub pay: u32,
    pub pay_nic: bool,
    pub size: u32,
    /// First bit at the NIC's Rx port.
    pub arrival: Time,
    /// Nanoseconds PAUSE held the frame at its source before that (its
    /// latency counts from when the source made it).
    pub held: u32,
    pub dst_ip: u32,
    /// Flow index within its port (the key of per-flow NF state).
    pub flow: u32,
    /// A KVS response whose value is hot item `kvs`'s stable buffer in
    /// nicmem ([`NO_BUF`] if none).
    pub kvs: u32,
    /// When its Rx DMA started, its completion became visible, a core
    /// started on it and that core's Tx doorbell left (the latency breakdown).
    pub t_dma: Time,
    pub t_cqe: Time,
    pub t_core: Time,
    pub t_db: Time,
}

/// One Rx queue: descriptor ring + completion queue in host memory.
pub struct RxQueue {
    /// Buffer posted in each descriptor slot (the header buffer of a split frame).
    pub slot_mbuf: Vec<u32>,
    /// With header split: the host payload buffer posted in each slot (the
    /// secondary ring), used when the primary ring is empty.
    pub slot_pay: Vec<u32>,
    /// Split rings: nicmem payload buffers posted to the primary ring. Its
    /// descriptors and indices live in NIC memory, so the NIC takes them
    /// without a PCIe read.
    pub primary: VecDeque<u32>,
    /// This queue's nicmem buffers not posted (the primary ring is full).
    pub nicmem_spare: Vec<u32>,
    /// nicmem buffers this queue owns (for the conservation check).
    pub nicmem_owned: u64,
    /// Packet received into each slot (valid between DMA and consumption).
    pub slot_pkt: Vec<PktRef>,
    pub size: u64,
    pub ring_addr: u64,
    /// Descriptors the driver has refilled (its producer index).
    pub driver_pi: u64,
    /// Producer index the NIC has seen (after the doorbell).
    pub posted: u64,
    /// Descriptors in the NIC's descriptor cache up to here.
    pub fetched: u64,
    pub fetching: bool,
    /// Descriptors the NIC has filled with a packet (DMA issued).
    pub used: u64,
    /// Frames in the NIC's Rx buffer waiting for this queue's descriptors
    /// to arrive (posted but not yet fetched), with their completion ring.
    pub wait: VecDeque<(PktRef, u16)>,
    /// How the sharing cores hand descriptors back.
    pub disc: Discipline,
    /// Producer index of the last doorbell the cores rang.
    pub doorbell_pi: u64,
    /// Shared rings: the spinlock is free from then on.
    pub lock_free: Time,
    /// Scratch: bitmap words one hand-back touches.
    pub words: Vec<usize>,
    /// Descriptors handed back in the measured window, and their summed
    /// wait between being re-armed and being handed back (RxArr: waiting
    /// for earlier descriptors held by other cores).
    pub reposted: u64,
    pub repost_wait: u128,
    /// Shared rings: the lock, consumer index and list tail share this
    /// line; the RxArr bitmap words follow it.
    pub sync_addr: u64,
}

/// How the cores of a ring hand re-armed descriptors back to the NIC.
pub enum Discipline {
    /// One core: it reposts in array order (privRing).
    Private,
    /// shRing RxArr: a bitmap and an in-order consumer index (shRing Sec. 4.3).
    Arr {
        arr: RxArr,
        /// When each slot was marked in the bitmap (its wait for the head).
        marked_at: Vec<Time>,
    },
    /// shRing RxList: a linked free list the NIC follows (Sec. 4.4).
    List {
        list: RxList,
        /// Slots whose descriptor sits valid in the NIC's descriptor cache.
        cached: Vec<bool>,
    },
}

/// A core's completion ring: the NIC appends the Rx index of every frame
/// RSS steers to the core; the core polls it without synchronisation.
pub struct CompRing {
    /// Rx index (of descriptor ring `ring`) of each completion position.
    pub idx: Vec<u64>,
    /// The descriptor ring it completes for (index in the NIC's Rx queues).
    pub ring: usize,
    pub size: u64,
    pub cq_addr: u64,
    /// Completions assigned (their frame's DMA is queued or done).
    pub written: u64,
    /// Frames of this ring waiting for the link (in the port's rx_ready).
    pub ready: u64,
    /// Completions written to host memory (visible to the core).
    pub completed: u64,
    /// Completions the core has consumed.
    pub consumed: u64,
    /// Time-weighted occupancy (completed - consumed) for the report.
    pub occ_area: u128,
    pub occ_last: Time,
}

impl CompRing {
    pub fn new(size: u64, ring: usize, cq_addr: u64) -> CompRing {
        CompRing {
            idx: vec![0; size as usize],
            ring,
            size,
            cq_addr,
            written: 0,
            ready: 0,
            completed: 0,
            consumed: 0,
            occ_area: 0,
            occ_last: 0,
        }
    }
    /// Rx index of completion position `pos`.
    #[inline]
    pub fn rx_index(&self, pos: u64) -> u64 {
        self.idx[(pos % self.size) as usize]
    }
    /// Address of completion `pos`; with `per_line` completions in a 64 B
    /// line (CQE compression) they share it.
    pub fn cqe_addr(&self, pos: u64, cqe_size: u64, per_line: u64) -> u64 {
        self.cq_addr + (pos % self.size) * (cqe_size / per_line).max(1)
    }
    /// Account the occupancy integral up to `now`.
    pub fn sample(&mut self, now: Time, measuring: bool) {
        if measuring {
            self.occ_area +=
                (self.completed - self.consumed) as u128 * (now - self.occ_last) as u128;
        }
        self.occ_last = now;
    }
}

impl RxQueue {
    pub fn new(size: u64, ring_addr: u64) -> RxQueue {
        RxQueue {
            slot_mbuf: vec![0; size as usize],
            slot_pay: vec![],
            primary: VecDeque::new(),
            nicmem_spare: vec![],
            nicmem_owned: 0,
            slot_pkt: vec![PktRef::default(); size as usize],
            size,
            ring_addr,
            driver_pi: 0,
            posted: 0,
            fetched: 0,
            fetching: false,
            used: 0,
            wait: VecDeque::new(),
            disc: Discipline::Private,
            doorbell_pi: 0,
            lock_free: 0,
            words: vec![],
            reposted: 0,
            repost_wait: 0,
            sync_addr: 0,
        }
    }
    #[inline]
    pub fn slot(&self, i: u64) -> usize {
        (i % self.size) as usize
    }
    pub fn desc_addr(&self, i: u64, desc_size: u64) -> u64 {
        self.ring_addr + (i % self.size) * desc_size
    }
    /// The NIC holds a valid descriptor for the next frame.
    #[inline]
    pub fn desc_ready(&self) -> bool {
        match &self.disc {
            Discipline::List { list, cached } => {
                self.used < self.posted && list.head().is_some_and(|d| cached[d as usize])
            }
            _ => self.fetched > self.used,
        }
    }
    /// A descriptor is posted (the NIC has seen its doorbell) for one more
    /// frame than those already waiting.
    #[inline]
    pub fn can_wait(&self) -> bool {
        self.posted - self.used > self.wait.len() as u64
    }
    /// The NIC takes the next descriptor; returns its Rx index (an array
    /// ring's running index, or a list ring's slot).
    pub fn take_desc(&mut self) -> u64 {
        self.used += 1;
        match &mut self.disc {
            Discipline::List { list, cached } => {
                let d = list.take().expect("a posted descriptor");
                cached[d as usize] = false;
                d as u64
            }
            _ => self.used - 1,
        }
    }
    /// Post spare nicmem buffers to the primary ring while it has room;
    /// returns how many were posted (each is a descriptor the core writes
    /// into NIC memory).
    pub fn post_primary(&mut self) -> u64 {
        let mut n = 0;
        while (self.primary.len() as u64) < self.size {
            let Some(b) = self.nicmem_spare.pop() else {
                break;
            };
            self.primary.push_back(b);
            n += 1;
        }
        n
    }
}

/// One Tx queue: WQE ring + completion queue in host memory.
pub struct TxQueue {
    pub slot_pkt: Vec<PktRef>,
    pub size: u64,
    pub ring_addr: u64,
    pub cq_addr: u64,
    /// WQEs written by the driver.
    pub produced: u64,
    /// Producer index the NIC has seen (doorbell).
    pub nic_pi: u64,
    /// WQEs fetched into the NIC.
    pub fetched: u64,
    pub fetching: bool,
    /// Frames whose data the NIC has read and scheduled on the wire.
    pub sent: u64,
    /// Completions requested (CQE write issued) up to here.
    pub cqe_issued: u64,
    /// Completions visible in host memory.
    pub completed: u64,
    /// Buffers the driver has freed.
    pub freed: u64,
    /// Tx scheduling: the NIC skips this queue until then (it filled the
    /// Tx buffer), and the round trip of its last WQE read, which sets how long.
    pub desched_until: Time,
    pub read_rtt: Time,
    /// Bytes of this queue's frames the NIC holds (`nic.tx_queue_buffer`),
    /// and when each leaves the wire.
    pub held: u64,
    pub leaving: VecDeque<(Time, u32)>,
}

impl TxQueue {
    pub fn new(size: u64, ring_addr: u64, cq_addr: u64) -> TxQueue {
        TxQueue {
            slot_pkt: vec![PktRef::default(); size as usize],
            size,
            ring_addr,
            cq_addr,
            produced: 0,
            nic_pi: 0,
            fetched: 0,
            fetching: false,
            sent: 0,
            cqe_issued: 0,
            completed: 0,
            freed: 0,
            desched_until: 0,
            read_rtt: 0,
            held: 0,
            leaving: VecDeque::new(),
        }
    }
    #[inline]
    pub fn slot(&self, i: u64) -> usize {
        (i % self.size) as usize
    }
    pub fn wqe_addr(&self, i: u64, wqe_size: u64) -> u64 {
        self.ring_addr + (i % self.size) * wqe_size
    }
    pub fn cqe_addr(&self, i: u64, cqe_size: u64) -> u64 {
        self.cq_addr + (i % self.size) * cqe_size
    }
    /// Free slots the driver may fill.
    pub fn room(&self) -> u64 {
        self.size - (self.produced - self.freed)
    }
    /// Frames that have left the wire by `now` no longer count as held.
    pub fn drain(&mut self, now: Time) {
        release(&mut self.leaving, &mut self.held, now);
    }
}

/// A frame the NIC is reading for the wire.
#[derive(Clone, Copy, Debug)]
pub struct TxFrame {
    pub pkt: PktRef,
    /// Its Tx queue, and its position in it (1-based: the queue's `sent`).
    pub qi: usize,
    pub seq: u64,
    /// Whether it was the last WQE the NIC knew of when it read it.
    pub last: bool,
    /// Tx buffer bytes it holds until it has left the wire.
    pub held: u64,
    /// When its data is in the NIC (so far), and the reads still awaited.
    pub data: Time,
    pub waits: u8,
}

/// The port and the packet pipeline in front of the queues.
pub struct Port {
    /// Bytes of packets whose DMA is still serialising on PCIe: (release time, bytes).
    pub rx_draining: VecDeque<(Time, u32)>,
    pub rx_buffer_used: u64,
    pub rx_buffer: u64,
    /// Frames with a descriptor, waiting for the PCIe link: (queue, Rx index).
    /// The DMA engine hands a frame to the link only when the link is free,
    /// so Tx reads and descriptor fetches interleave with Rx writes.
    pub rx_ready: VecDeque<(u16, u64)>,
    /// When a queued RxPump event will pump (None: none is queued).
    pub rx_pump_at: Option<Time>,
    /// The pump waits for posted credits whose return is not yet known
    /// (since the time given): the next return wakes it.
    pub credit_wait: Option<Time>,
    /// Tx buffer: bytes reserved by data reads until the frame leaves the wire.
    pub tx_buffer_used: u64,
    pub tx_buffer: u64,
    pub tx_leaving: VecDeque<(Time, u32)>,
    pub pipe_free: Time,
    pub wire_free: Time,
    /// Queues with fetched WQEs waiting for their data read, round-robin.
    pub tx_ready: VecDeque<usize>,
    pub tx_resume_pending: bool,
    /// Frames whose data reads wait for DRAM (with the memory controllers),
    /// in the order they go to the wire, and the id of the first.
    pub tx_fetching: VecDeque<TxFrame>,
    pub tx_fetch_first: u64,
    /// The Tx pump waits for a read tag to be released.
    pub tx_tag_wait: bool,
    /// RSS redirection table: hash -> queue.
    pub reta: Vec<u16>,
}

impl Port {
    pub fn new(rx_buffer: u64, tx_buffer: u64, queues: usize) -> Port {
        // Filled round-robin as DPDK's default RETA (128 entries on mlx5).
        let reta = (0..128).map(|i| (i % queues) as u16).collect();
        Port {
            rx_draining: VecDeque::new(),
            rx_buffer_used: 0,
            rx_buffer,
            rx_ready: VecDeque::new(),
            rx_pump_at: None,
            credit_wait: None,
            tx_buffer_used: 0,
            tx_buffer,
            tx_leaving: VecDeque::new(),
            pipe_free: 0,
            wire_free: 0,
            tx_ready: VecDeque::new(),
            tx_resume_pending: false,
            tx_fetching: VecDeque::new(),
            tx_fetch_first: 0,
            tx_tag_wait: false,
            reta,
        }
    }

    #[inline]
    pub fn rss_queue(&self, hash: u32) -> usize {
        self.reta[hash as usize % self.reta.len()] as usize
    }

    /// Release the Rx buffer space of DMAs that finished serialising and
    /// the Tx buffer space of frames that left the wire by `now`.
    pub fn drain(&mut self, now: Time) {
        release(&mut self.rx_draining, &mut self.rx_buffer_used, now);
        release(&mut self.tx_leaving, &mut self.tx_buffer_used, now);
    }
}

fn release(q: &mut VecDeque<(Time, u32)>, used: &mut u64, now: Time) {
    while let Some(&(t, b)) = q.front() {
        if t > now {
            break;
        }
        *used -= b as u64;
        q.pop_front();
    }
}

/// Bytes of one Tx WQE (mlx5 layout): 16 B control + 16 B Ethernet segment,
/// the inlined header rounded to 16 B, one 16 B data segment per buffer in
/// host or NIC memory; whole 64 B building blocks.
pub fn tx_wqe_bytes(nic: &NicCfg) -> u64 {
    let (split, inline) = (nic.header_split, nic.tx_inline);
    let inlined = if inline {
        nic.split_offset.next_multiple_of(16)
    } else {
        0
    };
    let segs = if split && !inline { 2 } else { 1 };
    (32 + inlined + 16 * segs).next_multiple_of(nic.tx_desc_size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_addresses_wrap() {
        let q = RxQueue::new(4, 0x1000);
        assert_eq!(q.desc_addr(5, 16), 0x1000 + 16);
        let cq = CompRing::new(4, 0, 0x2000);
        assert_eq!(cq.cqe_addr(7, 64, 1), 0x2000 + 3 * 64);
        assert_eq!(cq.cqe_addr(7, 64, 8), 0x2000 + 3 * 8);
        let t = TxQueue::new(8, 0, 0);
        assert_eq!(t.room(), 8);
    }

    #[test]
    fn reta_spreads_round_robin() {
        let p = Port::new(1 << 18, 1 << 17, 3);
        let counts = (0..128u32).fold([0; 3], |mut c, h| {
            c[p.rss_queue(h)] += 1;
            c
        });
        assert_eq!(counts, [43, 43, 42]);
    }

    #[test]
    fn rx_buffer_drains_in_time_order() {
        let mut p = Port::new(10_000, 10_000, 1);
        p.rx_buffer_used = 3000;
        p.rx_draining.extend([(10, 1000), (20, 2000)]);
        p.drain(15);
        assert_eq!(p.rx_buffer_used, 2000);
        p.drain(25);
        assert_eq!(p.rx_buffer_used, 0);
    }
}
