//! The NIC transmit path: a doorbell tells the NIC of new WQEs; it fetches
//! them, reads each frame's data by DMA (bounded by its Tx buffer, so it
//! never reads far ahead of the wire), serialises the frame at line rate and
//! writes a completion every `tx_cqe_every` frames or when the queue drains.

use super::rootport::Fetched;
use super::{mem_len, request_done, Ev, Host, NicState};
use crate::nic::{TxFrame, NO_BUF};
use crate::units::{ser_time, Time};
use crate::wire::wire_bytes;

impl NicState {
    /// `doorbells` MMIO writes leave the core at `now` (one per tx_burst);
    /// the NIC acts once the last has crossed the link.
    pub(super) fn on_tx_doorbell(
        &mut self,
        n: usize,
        h: &mut Host,
        qi: usize,
        pi: u64,
        doorbells: u32,
        now: Time,
    ) {
        if doorbells > 0 {
            let mut at = now;
            for _ in 0..doorbells {
                at = self.rp.link.mmio_write(now, 8);
            }
            h.q.push(
                at,
                Ev::TxDoorbell {
                    nic: n as u16,
                    q: qi as u16,
                    pi,
                    doorbells: 0,
                },
            );
            return;
        }
        let tq = &mut self.txq[qi];
        tq.nic_pi = tq.nic_pi.max(pi);
        self.tx_fetch(n, h, qi, now);
    }

    fn tx_fetch(&mut self, n: usize, h: &mut Host, qi: usize, now: Time) {
        let tq = &mut self.txq[qi];
        if tq.fetching || tq.nic_pi == tq.fetched {
            return;
        }
        let to_end = tq.size - tq.fetched % tq.size;
        let cnt = (tq.nic_pi - tq.fetched).min(h.cfg.nic.desc_fetch).min(to_end);
        let addr = tq.wqe_addr(tq.fetched, h.k.tx_desc);
        tq.fetching = true;
        let then = Fetched::Wqes { q: qi as u16, n: cnt as u32, issued: now };
        if let Some(t_done) = self.dma_fetch(n, h, now, addr, cnt * h.k.tx_desc, then) {
            self.follow(n, h, then, t_done);
        }
    }

    pub(super) fn on_tx_wqe_fetched(&mut self, n: usize, h: &mut Host, qi: usize, cnt: u64, now: Time) {
        let tq = &mut self.txq[qi];
        tq.fetched += cnt;
        tq.fetching = false;
        if tq.desched_until <= now && !self.port.tx_ready.contains(&qi) {
            self.port.tx_ready.push_back(qi);
        }
        self.tx_fetch(n, h, qi, now);
        self.tx_pump(n, h, now);
    }

    /// Read frames of ready queues round-robin and put them on the wire.
    pub(super) fn tx_pump(&mut self, n: usize, h: &mut Host, now: Time) {
        loop {
            let Some(&qi) = self.port.tx_ready.front() else {
                return;
            };
            if self.txq[qi].sent == self.txq[qi].fetched {
                self.port.tx_ready.pop_front();
                continue;
            }
            // A data read reserves Tx buffer space until its frame has left
            // the wire, so the NIC never reads further ahead than it can hold.
            // A frame whose payload sits in nicmem holds only its header
            // here; the payload streams from NIC memory to the wire.
            let tq = &mut self.txq[qi];
            let pkt = tq.slot_pkt[tq.slot(tq.sent)];
            let held = if pkt.pay_nic {
                h.k.hdr_len(pkt.size)
            } else {
                mem_len(pkt.size)
            };
            self.port.drain(now);
            // ConnectX-5 (nicmem-asplos22 Sec. 3.3): a queue whose frames
            // fill its share of the Tx buffer is descheduled too, while
            // other queues may still fill the rest.
            let share = h.k.tx_queue_buffer;
            if share > 0 {
                tq.drain(now);
            }
            let queue_full = share > 0 && tq.held > 0 && tq.held + held > share;
            if queue_full || self.port.tx_buffer_used + held > self.port.tx_buffer {
                if h.cfg.nic.tx_desched {
                    // ConnectX-5: the queue is descheduled for about the
                    // time of another read from it (a PCIe round trip),
                    // expecting other queues to keep the wire busy.
                    tq.desched_until = now + tq.read_rtt.max(1);
                    self.port.tx_ready.pop_front();
                    h.q.push(
                        tq.desched_until,
                        Ev::TxResched {
                            nic: n as u16,
                            q: qi as u16,
                        },
                    );
                    continue;
                }
                // (every frame held waiting for DRAM: its data pumps again)
                if self.port.tx_leaving.is_empty() && !self.port.tx_fetching.is_empty() {
                    return;
                }
                let at = self.port.tx_leaving.front().map_or(now, |f| f.0);
                return self.tx_resume_at(n, h, at);
            }
            // No read tag free yet: wait for one rather than queue a request
            // on the link ahead of time. Reads still waiting for DRAM hold
            // theirs until they are back: wait for as many as the frame's
            // reads may take (its header's and payload's).
            let tags = (mem_len(pkt.size).div_ceil(h.cfg.pcie.mrrs) + 1).min(self.rp.tags.capacity() as u64);
            if (self.rp.tags.known() as u64) < tags {
                self.port.tx_tag_wait = true;
                return;
            }
            let tag_free = self.rp.tags.next_free();
            if tag_free > now {
                return self.tx_resume_at(n, h, tag_free);
            }
            self.port.tx_buffer_used += held;
            if share > 0 {
                tq.held += held;
            }
            tq.sent += 1;
            let f = TxFrame { pkt, qi, seq: tq.sent, last: tq.sent == tq.nic_pi, held, data: now, waits: 0 };
            let id = self.port.tx_fetch_first + self.port.tx_fetching.len() as u64;
            let f = self.tx_data_read(n, h, f, id, now);
            let port = &mut self.port;
            if f.waits == 0 && port.tx_fetching.is_empty() {
                self.tx_wire(n, h, f, now);
            } else {
                port.tx_fetching.push_back(f);
            }
            self.port.tx_ready.rotate_left(1);
        }
    }

    /// Frame `f`'s data is in the NIC: it goes on the wire once the wire
    /// is free, and a completion follows every `tx_cqe_every` frames or
    /// when the queue drained.
    fn tx_wire(&mut self, n: usize, h: &mut Host, f: TxFrame, now: Time) {
        let start = f.data.max(self.port.wire_free);
        let end = start + ser_time(wire_bytes(f.pkt.size), h.cfg.nic.line_rate);
        self.port.wire_free = end;
        self.port.tx_leaving.push_back((end, f.held as u32));
        if h.k.tx_queue_buffer > 0 {
            self.txq[f.qi].leaving.push_back((end, f.held as u32));
        }
        self.total_out += 1;
        request_done(&mut h.q, n, &mut self.client, end);
        self.out_bytes += f.pkt.size as u64;
        let window_end = h.batches.is_none().then_some(h.end);
        self.depart(super::Departure { start, end, pkt: f.pkt }, now, h.cfg.sim.warmup, window_end);
        let tq = &mut self.txq[f.qi];
        if f.seq - tq.cqe_issued >= h.cfg.nic.tx_cqe_every || f.last {
            let upto = f.seq;
            tq.cqe_issued = upto;
            // Issued when the frame has left; the PCIe write is sent then,
            // so the link serialises it in time order with the Rx DMAs.
            h.q.push(
                end,
                Ev::TxCqe {
                    nic: n as u16,
                    q: f.qi as u16,
                    upto,
                },
            );
        }
    }

    /// A data read of frame `id` of the Tx FIFO is back: the frames at the
    /// FIFO's head whose data is all in go on the wire, in order.
    pub(super) fn on_tx_data(&mut self, n: usize, h: &mut Host, id: u64, now: Time) {
        let port = &mut self.port;
        let f = &mut port.tx_fetching[(id - port.tx_fetch_first) as usize];
        f.data = f.data.max(now);
        f.waits -= 1;
        while let Some(&f) = self.port.tx_fetching.front().filter(|f| f.waits == 0) {
            let port = &mut self.port;
            port.tx_fetching.pop_front();
            port.tx_fetch_first += 1;
            self.tx_wire(n, h, f, now);
        }
        self.tx_pump(n, h, now);
    }

    /// Read frame `f`'s bytes into the NIC: the header buffer unless it
    /// was inlined in the WQE, the payload from host memory over PCIe or
    /// from nicmem inside the NIC. Reads that wait for DRAM are counted in
    /// `waits` and come back to frame `id` of the Tx FIFO; `data` is when
    /// the others are in.
    fn tx_data_read(&mut self, n: usize, h: &mut Host, mut f: TxFrame, id: u64, now: Time) -> TxFrame {
        let pkt = f.pkt;
        let mut read = |nic: &mut NicState, h: &mut Host, addr: u64, len: u64| match nic.dma_fetch(n, h, now, addr, len, Fetched::Frame(id)) {
            Some(t) => f.data = f.data.max(t),
            None => f.waits += 1,
        };
        if pkt.kvs != NO_BUF {
            // nmKVS zero copy: the header from host memory (unless the WQE
            // carries it inline: no mbuf), the value from nicmem.
            if pkt.mbuf != NO_BUF {
                let addr = self.pool.data_addr(pkt.mbuf);
                read(self, h, addr, mem_len(crate::nf::kvs::RESP_HDR as u32));
            }
            f.data = f.data.max(now + h.cfg.nic.nicmem_latency);
            return f;
        }
        let hdr = h.k.hdr_len(pkt.size);
        if pkt.mbuf != NO_BUF {
            let addr = self.pool.data_addr(pkt.mbuf);
            read(self, h, addr, hdr);
        }
        if let Some(addr) = self.host_payload(&pkt) {
            read(self, h, addr, mem_len(pkt.size) - hdr);
        } else if pkt.pay_nic {
            f.data = f.data.max(now + h.cfg.nic.nicmem_latency);
        }
        f
    }

    /// A descheduled queue is eligible again.
    pub(super) fn on_tx_resched(&mut self, n: usize, h: &mut Host, qi: usize, now: Time) {
        let port = &mut self.port;
        if !port.tx_ready.contains(&qi) {
            port.tx_ready.push_back(qi);
        }
        self.tx_pump(n, h, now);
    }

    /// Pump again at `at` (once: a pending resume covers every reason).
    pub(super) fn tx_resume_at(&mut self, n: usize, h: &mut Host, at: Time) {
        let port = &mut self.port;
        if !port.tx_resume_pending {
            port.tx_resume_pending = true;
            h.q.push(at, Ev::TxResume { nic: n as u16 });
        }
    }

    pub(super) fn on_tx_cqe(&mut self, n: usize, h: &mut Host, qi: usize, upto: u64, now: Time) {
        let tq = &mut self.txq[qi];
        let addr = tq.cqe_addr(upto - 1, h.cfg.nic.cqe_size);
        self.posted_write(n, h, now, addr, h.cfg.nic.cqe_size);
        let tq = &mut self.txq[qi];
        tq.completed = tq.completed.max(upto);
        let core = self.first_core + qi;
        h.wake(core, now);
    }
}
