//! The cores' run-to-completion poll loop (DPDK + FastClick style) and the
//! memory-streaming co-runner.
//!
//! One poll: free the buffers of completed transmissions, move queued
//! packets into the Tx ring, take up to `rx_burst` received packets, run the
//! NF on each, refill each Rx slot with a fresh buffer, enqueue for Tx, then
//! ring the Rx and Tx doorbells. Its duration is the cycles of the code plus
//! the memory stalls the cache hierarchy reports.

use super::{Ev, World};
use crate::cpu::Stall;
use crate::units::{cycles_to_ps, Time};

impl World {
    pub(super) fn on_core_poll(&mut self, c: usize, now: Time) {
        let (n, qi, local) = (self.cores[c].nic, self.cores[c].queue, self.cores[c].local);
        let k = &self.k;
        let measuring = self.measuring;
        let mut stall = Stall::default();
        let mut cycles = k.poll_cycles;
        let nic = &mut self.nics[n];
        let mem = &mut self.mem;

        // Tx completions: read the CQE, free each buffer (touching its mbuf).
        let tq = &mut nic.txq[qi];
        let freed = tq.completed - tq.freed;
        if freed > 0 {
            stall.add(mem.core_access(c, tq.cqe_addr(tq.completed - 1, k.cqe), false, now));
            for i in tq.freed..tq.completed {
                let m = tq.slot_pkt[tq.slot(i)].mbuf;
                stall.add(mem.core_access(c, nic.pool.mbuf_addr(m), false, now));
                nic.pool.free(local, m);
            }
            tq.freed = tq.completed;
        }

        // Packets queued in software go first, keeping order.
        let core = &mut self.cores[c];
        let produced_before = tq.produced;
        while tq.room() > 0 {
            let Some(p) = core.sw_queue.pop_front() else { break };
            post_wqe(mem, c, tq, p, k.tx_desc, now, &mut stall);
        }

        // rx_burst
        let rq = &mut nic.rxq[qi];
        rq.sample(now, measuring);
        let got = (rq.completed - rq.consumed).min(k.rx_burst);
        let mut refilled = 0;
        for j in 0..got {
            let idx = rq.consumed + j;
            let slot = rq.slot(idx);
            let pkt = rq.slot_pkt[slot];
            stall.add(mem.core_access(c, rq.cqe_addr(idx, k.cqe, k.cqe_per_line), false, now));
            stall.add(mem.core_access(c, nic.pool.mbuf_addr(pkt.mbuf), true, now));
            cycles += k.rx_cycles + k.nf_cycles;
            let data = nic.pool.data_addr(pkt.mbuf);
            self.nf.process(c, &pkt, data, mem, &mut self.core_rng[c], now, &mut stall);
            // Refill the slot; without a buffer the packet is dropped and its
            // buffer stays in the ring (DPDK's rx_nombuf).
            match nic.pool.alloc(local) {
                Some(m2) => {
                    stall.add(mem.core_access(c, nic.pool.mbuf_addr(m2), false, now));
                    stall.add(mem.core_access(c, rq.desc_addr(idx, k.rx_desc), true, now));
                    rq.slot_mbuf[slot] = m2;
                }
                None => {
                    nic.total_drop += 1;
                    // Counted against the window the packet arrived in,
                    // like every other drop, so drop_rate stays a share.
                    if pkt.arrival >= self.warmup {
                        nic.c.drop_core += 1;
                    }
                    refilled += 1;
                    continue;
                }
            }
            refilled += 1;
            if tq.room() > 0 && core.sw_queue.is_empty() {
                post_wqe(mem, c, tq, pkt, k.tx_desc, now, &mut stall);
            } else if core.sw_queue.len() < k.sw_queue {
                core.sw_queue.push_back(pkt);
            } else {
                nic.pool.free(local, pkt.mbuf);
                nic.total_drop += 1;
                if pkt.arrival >= self.warmup {
                    nic.c.drop_core += 1;
                }
            }
        }
        rq.consumed += got;
        rq.driver_pi += refilled;
        let tx_new = tq.produced - produced_before;
        cycles += tx_new * k.tx_cycles;
        if measuring {
            nic.c.rx_pkts += got;
        }

        let worked = freed > 0 || tx_new > 0 || got > 0;
        if !worked {
            // Nothing to do: sleep until an Rx or Tx completion wakes the core.
            core.sleeping = true;
            return;
        }
        if got > 0 {
            // Doorbell record in host memory, then the MMIO the NIC sees.
            stall.add(mem.core_access(c, nic.dbr_addr + 64 * qi as u64, true, now));
        }
        let cost = cycles_to_ps(cycles, k.freq_mhz) + stall.total(k.mlp);
        let done = now + cost;
        // Doorbells leave when the burst's work is done; the link is used
        // then, in time order with the NIC's own traffic.
        if got > 0 {
            self.q.push(done, Ev::RxDoorbell { nic: n as u16, q: qi as u16, pi: rq.driver_pi, arrived: false });
        }
        if tx_new > 0 {
            let doorbells = tx_new.div_ceil(k.tx_burst) as u32;
            self.q.push(done, Ev::TxDoorbell { nic: n as u16, q: qi as u16, pi: tq.produced, doorbells });
        }
        if measuring {
            core.busy_ps += cost;
            if got > 0 {
                core.pkt_ps += cost;
            }
        }
        self.q.push(done, Ev::CorePoll { core: c as u16 });
    }

    /// The co-runner streams through its buffer, a few lines per step, on
    /// its own core and CAT mask; what it sees is the memory system's load.
    pub(super) fn on_corunner(&mut self, now: Time) {
        let Some(cr) = &mut self.corunner else { return };
        let mut stall = Stall::default();
        let mut lat_sum = 0;
        for _ in 0..16 {
            let lat = self.mem.core_access(cr.core, cr.base + cr.pos * 64, false, now);
            lat_sum += lat;
            stall.add(lat);
            cr.pos = (cr.pos + 1) % cr.lines;
        }
        if self.measuring {
            cr.done_lines += 16;
            cr.lat_sum += lat_sum;
        }
        let cost = stall.total(self.k.mlp) + cycles_to_ps(16, self.k.freq_mhz);
        self.q.push(now + cost, Ev::Corunner);
    }
}

/// Build the WQE of one packet in the next Tx ring slot.
fn post_wqe(mem: &mut crate::mem::Memory, c: usize, tq: &mut crate::nic::TxQueue, p: crate::nic::PktRef, wqe_size: u64, now: Time, stall: &mut Stall) {
    stall.add(mem.core_access(c, tq.wqe_addr(tq.produced, wqe_size), true, now));
    let s = tq.slot(tq.produced);
    tq.slot_pkt[s] = p;
    tq.produced += 1;
}
