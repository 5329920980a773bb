//! The NIC transmit path: a doorbell tells the NIC of new WQEs; it fetches
//! them, reads each frame's data by DMA (bounded by its Tx buffer, so it
//! never reads far ahead of the wire), serialises the frame at line rate and
//! writes a completion every `tx_cqe_every` frames or when the queue drains.

use super::{mem_len, request_done, Ev, World};
use crate::nic::NO_BUF;
use crate::units::{ser_time, Time};
use crate::wire::wire_bytes;

impl World {
    /// `doorbells` MMIO writes leave the core at `now` (one per tx_burst);
    /// the NIC acts once the last has crossed the link.
    pub(super) fn on_tx_doorbell(
        &mut self,
        n: usize,
        qi: usize,
        pi: u64,
        doorbells: u32,
        now: Time,
    ) {
        if doorbells > 0 {
            let mut at = now;
            for _ in 0..doorbells {
                at = self.nics[n].pcie.mmio_write(now, 8);
            }
            self.q.push(
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
        let tq = &mut self.nics[n].txq[qi];
        tq.nic_pi = tq.nic_pi.max(pi);
        self.tx_fetch(n, qi, now);
    }

    fn tx_fetch(&mut self, n: usize, qi: usize, now: Time) {
        let tq = &mut self.nics[n].txq[qi];
        if tq.fetching || tq.nic_pi == tq.fetched {
            return;
        }
        let to_end = tq.size - tq.fetched % tq.size;
        let cnt = (tq.nic_pi - tq.fetched).min(self.cfg.nic.desc_fetch).min(to_end);
        let addr = tq.wqe_addr(tq.fetched, self.k.tx_desc);
        tq.fetching = true;
        let t_done = self.dma_read(n, now, addr, cnt * self.k.tx_desc);
        self.nics[n].txq[qi].read_rtt = t_done - now;
        self.q.push(
            t_done,
            Ev::TxWqeFetched {
                nic: n as u16,
                q: qi as u16,
                n: cnt as u32,
            },
        );
    }

    pub(super) fn on_tx_wqe_fetched(&mut self, n: usize, qi: usize, cnt: u64, now: Time) {
        let nic = &mut self.nics[n];
        let tq = &mut nic.txq[qi];
        tq.fetched += cnt;
        tq.fetching = false;
        if tq.desched_until <= now && !nic.port.tx_ready.contains(&qi) {
            nic.port.tx_ready.push_back(qi);
        }
        self.tx_fetch(n, qi, now);
        self.tx_pump(n, now);
    }

    /// Read frames of ready queues round-robin and put them on the wire.
    pub(super) fn tx_pump(&mut self, n: usize, now: Time) {
        loop {
            let nic = &mut self.nics[n];
            let Some(&qi) = nic.port.tx_ready.front() else {
                return;
            };
            if nic.txq[qi].sent == nic.txq[qi].fetched {
                nic.port.tx_ready.pop_front();
                continue;
            }
            // A data read reserves Tx buffer space until its frame has left
            // the wire, so the NIC never reads further ahead than it can hold.
            // A frame whose payload sits in nicmem holds only its header
            // here; the payload streams from NIC memory to the wire.
            let tq = &mut nic.txq[qi];
            let pkt = tq.slot_pkt[tq.slot(tq.sent)];
            let held = if pkt.pay_nic {
                self.k.hdr_len(pkt.size)
            } else {
                mem_len(pkt.size)
            };
            nic.port.drain(now);
            // ConnectX-5 (nicmem-asplos22 Sec. 3.3): a queue whose frames
            // fill its share of the Tx buffer is descheduled too, while
            // other queues may still fill the rest.
            let share = self.k.tx_queue_buffer;
            if share > 0 {
                tq.drain(now);
            }
            let queue_full = share > 0 && tq.held > 0 && tq.held + held > share;
            if queue_full || nic.port.tx_buffer_used + held > nic.port.tx_buffer {
                if self.cfg.nic.tx_desched {
                    // ConnectX-5: the queue is descheduled for about the
                    // time of another read from it (a PCIe round trip),
                    // expecting other queues to keep the wire busy.
                    tq.desched_until = now + tq.read_rtt.max(1);
                    nic.port.tx_ready.pop_front();
                    self.q.push(
                        tq.desched_until,
                        Ev::TxResched {
                            nic: n as u16,
                            q: qi as u16,
                        },
                    );
                    continue;
                }
                let at = nic.port.tx_leaving.front().map_or(now, |f| f.0);
                return self.tx_resume_at(n, at);
            }
            // No read tag free yet: wait for one rather than queue a request
            // on the link ahead of time.
            let tag_free = nic.tags.next_free();
            if tag_free > now {
                return self.tx_resume_at(n, tag_free);
            }
            nic.port.tx_buffer_used += held;
            if share > 0 {
                tq.held += held;
            }
            tq.sent += 1;
            let t_data = self.tx_data_read(n, &pkt, now);
            let nic = &mut self.nics[n];
            let start = t_data.max(nic.port.wire_free);
            let end = start + ser_time(wire_bytes(pkt.size), self.cfg.nic.line_rate);
            nic.port.wire_free = end;
            nic.port.tx_leaving.push_back((end, held as u32));
            if share > 0 {
                nic.txq[qi].leaving.push_back((end, held as u32));
            }
            nic.total_out += 1;
            request_done(&mut self.q, n, &mut nic.client, end);
            nic.out_bytes += pkt.size as u64;
            let window_end = self.batches.is_none().then_some(self.end);
            nic.depart(super::Departure { start, end, pkt }, now, self.cfg.sim.warmup, window_end);
            let tq = &mut nic.txq[qi];
            if tq.sent - tq.cqe_issued >= self.cfg.nic.tx_cqe_every || tq.sent == tq.nic_pi {
                let upto = tq.sent;
                tq.cqe_issued = upto;
                // Issued when the frame has left; the PCIe write is sent then,
                // so the link serialises it in time order with the Rx DMAs.
                self.q.push(
                    end,
                    Ev::TxCqe {
                        nic: n as u16,
                        q: qi as u16,
                        upto,
                    },
                );
            }
            nic.port.tx_ready.rotate_left(1);
        }
    }

    /// Read a frame's bytes into the NIC: the header buffer unless it was
    /// inlined in the WQE, the payload from host memory over PCIe or from
    /// nicmem inside the NIC. Returns when all of it is in the NIC.
    fn tx_data_read(&mut self, n: usize, pkt: &crate::nic::PktRef, now: Time) -> Time {
        if pkt.kvs != NO_BUF {
            // nmKVS zero copy: the header from host memory (unless the WQE
            // carries it inline: no mbuf), the value from nicmem.
            let mut t = now;
            if pkt.mbuf != NO_BUF {
                let addr = self.nics[n].pool.data_addr(pkt.mbuf);
                t = self.dma_read(n, now, addr, mem_len(crate::nf::kvs::RESP_HDR as u32));
            }
            return t.max(now + self.cfg.nic.nicmem_latency);
        }
        let hdr = self.k.hdr_len(pkt.size);
        let mut t = now;
        if pkt.mbuf != NO_BUF {
            let addr = self.nics[n].pool.data_addr(pkt.mbuf);
            t = self.dma_read(n, now, addr, hdr);
        }
        if let Some(addr) = self.nics[n].host_payload(pkt) {
            t = t.max(self.dma_read(n, now, addr, mem_len(pkt.size) - hdr));
        } else if pkt.pay_nic {
            t = t.max(now + self.cfg.nic.nicmem_latency);
        }
        t
    }

    /// A descheduled queue is eligible again.
    pub(super) fn on_tx_resched(&mut self, n: usize, qi: usize, now: Time) {
        let port = &mut self.nics[n].port;
        if !port.tx_ready.contains(&qi) {
            port.tx_ready.push_back(qi);
        }
        self.tx_pump(n, now);
    }

    /// Pump again at `at` (once: a pending resume covers every reason).
    fn tx_resume_at(&mut self, n: usize, at: Time) {
        let port = &mut self.nics[n].port;
        if !port.tx_resume_pending {
            port.tx_resume_pending = true;
            self.q.push(at, Ev::TxResume { nic: n as u16 });
        }
    }

    pub(super) fn on_tx_cqe(&mut self, n: usize, qi: usize, upto: u64, now: Time) {
        let nic = &mut self.nics[n];
        let tq = &mut nic.txq[qi];
        let addr = tq.cqe_addr(upto - 1, self.cfg.nic.cqe_size);
        self.posted_write(n, now, addr, self.cfg.nic.cqe_size);
        let nic = &mut self.nics[n];
        let tq = &mut nic.txq[qi];
        tq.completed = tq.completed.max(upto);
        let core = nic.first_core + qi;
        self.wake(core, now);
    }
}
