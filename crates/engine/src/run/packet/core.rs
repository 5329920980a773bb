//! The cores' run-to-completion poll loop (DPDK + FastClick style) and the
//! memory-streaming co-runner.
//!
//! One poll: free the buffers of completed transmissions, move queued
//! packets into the Tx ring, take up to `rx_burst` received packets, run the
//! NF on each, refill each Rx slot with a fresh buffer, enqueue for Tx, then
//! ring the Rx and Tx doorbells. Its duration is the cycles of the code plus
//! the memory stalls the cache hierarchy reports.

use super::{pay_mbuf, request_done, Ev, Layout, NicState, World};
use crate::config::Cfg;
use crate::cpu::fill::Wait;
use crate::cpu::mempool::Mempool;
use crate::cpu::wc::WcBuffers;
use crate::cpu::Stall;
use crate::mem::dram::queued::Back;
use crate::mem::Memory;
use crate::nic::{PktRef, TxQueue, NO_BUF};
use crate::units::{cycles_to_ps, Time};

impl World {
    pub(super) fn on_core_poll(&mut self, c: usize, now: Time) {
        // `qi`: the core's Tx queue; `cqi`: the completion ring it polls;
        // `ri`: that ring's Rx descriptor ring.
        let (n, qi, local) = (self.host.cores[c].nic, self.host.cores[c].queue, self.host.cores[c].local);
        let (k, cfg) = (&self.host.k, &self.host.cfg);
        let measuring = self.host.measuring;
        let mut stall = Stall::default();
        let mut cycles = cfg.cpu.poll_cycles;
        let nic = &mut self.nics[n];
        let cqi = nic.poll_cq(qi);
        let ri = nic.cqs[cqi].ring;
        let mem = &mut self.host.mem;

        // Tx completions: read the CQE, free each buffer (touching its mbuf).
        let (from, to) = (nic.txq[qi].freed, nic.txq[qi].completed);
        let freed = to - from;
        if freed > 0 {
            stall.add(mem.core_access(c, nic.txq[qi].cqe_addr(to - 1, cfg.nic.cqe_size), false, now));
            for i in from..to {
                let p = nic.txq[qi].slot_pkt[nic.txq[qi].slot(i)];
                self.host.nf.released(c, &p, mem, now, &mut stall);
                cycles += free_pkt(mem, c, nic, ri, local, p, cfg, now, &mut stall);
            }
            nic.txq[qi].freed = to;
        }
        // Freed nicmem buffers go back to the primary ring: descriptors the
        // core writes into NIC memory with write-combined MMIO stores.
        let posted = nic.rxq[ri].post_primary();
        if posted > 0 {
            // one scatter entry each
            nic.rp.link.mmio_write(now, posted * cfg.nic.rx_desc_size);
        }

        // Packets queued in software go first, keeping order.
        let tq = &mut nic.txq[qi];
        let core = &mut self.host.cores[c];
        let produced_before = tq.produced;
        let mut tx_extra = 0;
        while tq.room() > 0 {
            let Some(p) = core.sw_queue.pop_front() else {
                break;
            };
            tx_extra += post_wqe(mem, c, tq, &mut nic.pool, local, p, (k, cfg), now, &mut stall);
        }

        // rx_burst: the core's completion ring names the descriptors of
        // its frames in its Rx ring.
        let cq = &mut nic.cqs[cqi];
        cq.sample(now, measuring);
        let got = (cq.completed - cq.consumed).min(cfg.app.rx_burst);
        if got > 0 {
            core.frames_until = Time::MAX;
        }
        let rq = &mut nic.rxq[ri];
        core.re_armed.clear();
        for j in 0..got {
            // A core works through its burst packet by packet: this
            // packet's misses issue once the stalls before it have passed
            // (overlapped up to cpu.mlp), not all at the poll's start.
            let now = now + stall.total(cfg.cpu.mlp);
            let pos = cq.consumed + j;
            let idx = cq.rx_index(pos);
            core.re_armed.push(idx);
            let slot = rq.slot(idx);
            let mut pkt = rq.slot_pkt[slot];
            pkt.t_core = now;
            let cqe = cq.cqe_addr(pos, k.rx_cqe, k.cqe_per_line);
            stall.add(mem.core_access(c, cqe, false, now));
            stall.add(mem.core_access(c, nic.pool.mbuf_addr(pkt.mbuf), true, now));
            cycles += cfg.cpu.rx_cycles + k.nf_cycles;
            if k.hdr_in_cqe(pkt.size) {
                // Scatter-to-CQE: the header is the CQE's first 64 B; the
                // driver copies it into the mbuf, as mlx5's PMD does.
                stall.add(mem.core_access(c, cqe + 64, false, now));
                stall.add(mem.core_access(c, nic.pool.data_addr(pkt.mbuf), true, now));
                cycles += cfg.cpu.copy_cycles_per_line;
            }
            if pkt.pay != NO_BUF {
                // The payload's mbuf is chained to the header's.
                let meta = pay_mbuf(nic.nicmem.as_ref(), nic.pay_pool.as_ref(), &pkt);
                stall.add(mem.core_access(c, meta, true, now));
                cycles += cfg.cpu.seg_cycles;
            }
            let data = nic.pool.data_addr(pkt.mbuf);
            let cost = self.host.nf.serve(c, &mut pkt, data, mem, &mut self.host.core_rng[c], now, &mut stall, &mut self.host.nf_scratch);
            cycles += cost.copied_lines * cfg.cpu.copy_cycles_per_line;
            if cost.nicmem_bytes > 0 {
                // The copy into nicmem: write-combined stores, each
                // full line a posted 64 B write; the core waits only
                // when its WC buffers are all draining.
                let mut wc = WcBuffers::new(cfg.cpu.wc_buffers as usize);
                let mut t = now;
                for _ in 0..cost.nicmem_bytes.div_ceil(64) {
                    let pcie = &mut nic.rp.link;
                    t = wc.store_line(t, |at| pcie.mmio_write(at, 64) - pcie.latency());
                }
                stall.add(t - now);
            }
            // Refill the slot (a host payload buffer too if the frame took
            // the slot's one); without a buffer the packet is dropped and
            // its buffers stay in the ring (DPDK's rx_nombuf).
            let took_slot_pay = pkt.pay != NO_BUF && !pkt.pay_nic;
            match refill(&mut nic.pool, nic.pay_pool.as_mut(), local, took_slot_pay) {
                Some((m2, p2)) => {
                    stall.add(mem.core_access(c, nic.pool.mbuf_addr(m2), false, now));
                    stall.add(mem.core_access(c, rq.desc_addr(idx, k.rx_desc), true, now));
                    rq.slot_mbuf[slot] = m2;
                    if let (Some(p2), Some(pp)) = (p2, nic.pay_pool.as_ref()) {
                        stall.add(mem.core_access(c, pp.mbuf_addr(p2), false, now));
                        rq.slot_pay[slot] = p2;
                    }
                }
                None => {
                    if pkt.pay_nic {
                        rq.nicmem_spare.push(pkt.pay);
                    }
                    self.host.nf.released(c, &pkt, mem, now, &mut stall);
                    nic.total_drop += 1;
                    request_done(&mut self.host.q, n, &mut nic.client, now);
                    // Counted against the window the packet arrived in,
                    // like every other drop, so drop_rate stays a share.
                    if pkt.arrival >= self.host.cfg.sim.warmup {
                        nic.c.drop_core += 1;
                    }
                    continue;
                }
            }
            if tq.room() > 0 && core.sw_queue.is_empty() {
                tx_extra += post_wqe(mem, c, tq, &mut nic.pool, local, pkt, (k, cfg), now, &mut stall);
            } else if core.sw_queue.len() < (cfg.app.sw_queue as usize) {
                core.sw_queue.push_back(pkt);
            } else {
                let (pool, pay_pool, spare) =
                    (&mut nic.pool, nic.pay_pool.as_mut(), &mut rq.nicmem_spare);
                release(pool, pay_pool, spare, local, pkt);
                // A dropped zero-copy response gives its reference back too.
                self.host.nf.released(c, &pkt, mem, now, &mut stall);
                nic.total_drop += 1;
                request_done(&mut self.host.q, n, &mut nic.client, now);
                if pkt.arrival >= self.host.cfg.sim.warmup {
                    nic.c.drop_core += 1;
                }
            }
        }
        cq.consumed += got;
        if got > 0 {
            core.rx_calls += 1;
            core.last_rx_at = now;
        }
        // Every consumed descriptor is re-armed (with a fresh buffer, or
        // its old one if the packet was dropped): hand them back.
        let (sync_cycles, sync_ps) = if got > 0 {
            let (cyc, ps) =
                super::shring::hand_back(mem, c, rq, &core.re_armed, (k, &cfg.cpu), now, measuring, &mut stall);
            if measuring {
                core.sync_ps += cycles_to_ps(cyc, cfg.cpu.freq) + ps;
            }
            (cyc, ps)
        } else {
            (0, 0)
        };
        cycles += sync_cycles;
        let tx_new = tq.produced - produced_before;
        cycles += tx_new * cfg.cpu.tx_cycles + tx_extra;
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
            // Doorbell record in host memory (the completion ring's consumer
            // index), then the MMIO the NIC sees.
            stall.add(mem.core_access(c, nic.dbr_addr + 64 * qi as u64, true, now));
        }
        let tail = PollTail { got, tx_new, cycles, sync_ps, ri, measuring };
        self.pass_done(c, Pass { start: now, stall, then: Then::Poll(tail) }, now);
    }

    /// Core `c`'s pass from `p.start` has made its accesses: with the
    /// memory controllers its DRAM reads go out through its fill buffers
    /// and the pass ends when the last is back (a memory loop's step: when
    /// the last has left, `cpu::fill`); otherwise it ends now.
    fn pass_done(&mut self, c: usize, p: Pass, now: Time) {
        if let Some(mc) = self.host.mem.mc.as_mut().filter(|mc| !mc.missed.is_empty()) {
            let mut missed = std::mem::take(&mut mc.missed);
            let wait = if matches!(p.then, Then::Poll(_)) { Wait::Back } else { Wait::Issued };
            let over = self.host.fills[c].start(c, missed.drain(..), wait, now, mc);
            mc.missed = missed;
            self.schedule_dram();
            if over {
                return self.resume(c, p, self.host.fills[c].done);
            }
            self.host.passes[c] = Some(p);
            return;
        }
        self.resume(c, p, now);
    }

    /// Core `c`'s pass `p` is over, its DRAM data back (a memory loop's
    /// reads issued) by `last`.
    fn resume(&mut self, c: usize, p: Pass, last: Time) {
        // (a memory loop's next step follows its stall and compute)
        let (next, compute) = match p.then {
            Then::Poll(t) => return self.finish_poll(c, p.start, p.stall, t, last),
            Then::Corunner(compute) => (Ev::Corunner, compute),
            Then::Antagonist(i, compute) => (Ev::Antagonist { i: i as u16 }, compute),
        };
        let at = (p.start + p.stall.total(self.host.cfg.cpu.mlp) + compute).max(last);
        self.host.q.push(at, next);
    }

    /// The end of core `c`'s poll from `start`: its duration is the
    /// cycles of the code plus the memory stalls; its doorbells leave and
    /// its next poll starts then.
    fn finish_poll(&mut self, c: usize, start: Time, stall: Stall, t: PollTail, last: Time) {
        let (n, qi) = (self.host.cores[c].nic, self.host.cores[c].queue);
        let cfg = &self.host.cfg;
        let nic = &mut self.nics[n];
        let (rq, tq, core) = (&mut nic.rxq[t.ri], &mut nic.txq[qi], &mut self.host.cores[c]);
        let cost = cycles_to_ps(t.cycles, cfg.cpu.freq) + stall.total(cfg.cpu.mlp) + t.sync_ps;
        let done = (start + cost).max(last);
        let cost = done - start;
        // Doorbells leave when the burst's work is done; the link is used
        // then, in time order with the NIC's own traffic.
        if rq.driver_pi > rq.doorbell_pi {
            rq.doorbell_pi = rq.driver_pi;
            self.host.q.push(
                done,
                Ev::RxDoorbell {
                    nic: n as u16,
                    q: t.ri as u16,
                    pi: rq.driver_pi,
                    arrived: false,
                },
            );
        }
        if t.tx_new > 0 {
            // The frames posted in this burst leave the core with its doorbell.
            for i in tq.produced - t.tx_new..tq.produced {
                let s = tq.slot(i);
                tq.slot_pkt[s].t_db = done;
            }
            let doorbells = t.tx_new.div_ceil(cfg.app.tx_burst) as u32;
            self.host.q.push(
                done,
                Ev::TxDoorbell {
                    nic: n as u16,
                    q: qi as u16,
                    pi: tq.produced,
                    doorbells,
                },
            );
        }
        if t.got > 0 {
            core.frames_until = done;
        }
        if t.measuring {
            core.busy_ps += cost;
            if t.got > 0 {
                core.pkt_ps += cost;
            }
        }
        self.host.q.push(done, Ev::CorePoll { core: c as u16 });
    }

    /// The memory controllers' tick: run them cycle by cycle (skipping
    /// cycles where nothing can happen) up to the next event of the run,
    /// handing each core's read back to its fill buffers.
    pub(super) fn on_dram(&mut self, now: Time) {
        let Some(mc) = &mut self.host.mem.mc else { return };
        let tck = mc.ctl.tck();
        let mut cycle = now / tck;
        if cycle != mc.due {
            return; // (a tick moved earlier since)
        }
        mc.due = u64::MAX;
        let mut back = std::mem::take(&mut self.host.dram_back);
        loop {
            let mc = self.host.mem.mc.as_mut().expect("controllers");
            let refused = mc.tick(cycle, &mut back);
            for b in back.drain(..) {
                self.read_back(b);
            }
            self.holds_and_fetches_done();
            let mc = self.host.mem.mc.as_mut().expect("controllers");
            let next = if refused { cycle + 1 } else { mc.wake().max(cycle + 1) };
            mc.sent = u64::MAX; // (the wake counts them)
            if next == u64::MAX {
                break;
            }
            // (what the run does next may send a request: stop before it,
            // or at the run's end)
            if self.host.q.next_at().is_none_or(|t| next * tck >= t) || next * tck > self.host.end {
                mc.due = next;
                self.host.q.push(next * tck, Ev::Dram);
                break;
            }
            cycle = next;
        }
        self.host.dram_back = back;
    }

    /// A core's DRAM read is back: its latency joins the core's poll (a
    /// memory loop's figures: the loop may be steps on), its fill buffer
    /// frees, and the pass resumes if that ended its wait.
    fn read_back(&mut self, b: Back) {
        let (c, measuring) = (b.core, self.host.measuring);
        if let Some(l) = self.host.memory_loop(c) {
            l.dram_read(b.lat, measuring);
        } else {
            let p = self.host.passes[c].as_mut().expect("a read back to a core whose poll waits");
            self.host.cores[c].read_back_at = b.at;
            if b.chained {
                p.stall.chain(b.lat);
            } else {
                p.stall.add(b.lat);
            }
        }
        self.host.mem.stats.c2m_read_ps += b.lat;
        self.host.mem.stats.c2m_reads += 1;
        let mc = self.host.mem.mc.as_mut().expect("controllers");
        if self.host.fills[c].back(c, b.chained, b.at, mc) {
            self.host.q.push(self.host.fills[c].done, Ev::Resume { core: c as u16 });
        }
    }

    /// Core `c`'s pass has stopped waiting on its fill buffers.
    pub(super) fn on_resume(&mut self, c: usize) {
        let p = self.host.passes[c].take().expect("a pass waiting");
        let last = self.host.fills[c].done;
        self.resume(c, p, last);
    }

    /// Make sure the controllers tick by the first cycle something can
    /// happen in them (a request sent since may be due before the tick).
    pub(super) fn schedule_dram(&mut self) {
        let Some(mc) = &mut self.host.mem.mc else { return };
        let first = std::mem::replace(&mut mc.sent, u64::MAX);
        if first < mc.due {
            let tck = mc.ctl.tck();
            let first = first.max(self.host.q.now().div_ceil(tck));
            mc.due = first;
            self.host.q.push(first * tck, Ev::Dram);
        }
    }

    /// The co-runner streams through its buffer, a few lines per step, on
    /// its own core and CAT mask; what it sees is the memory system's load.
    pub(super) fn on_corunner(&mut self, now: Time) {
        let Some(cr) = &mut self.host.corunner else { return };
        let (stall, compute) = cr.step(&mut self.host.mem, now, self.host.cfg.cpu.freq, self.host.measuring);
        let c = cr.core;
        self.pass_done(c, Pass { start: now, stall, then: Then::Corunner(compute) }, now);
    }

    /// Antagonist `i` takes its next step of memory accesses.
    pub(super) fn on_antagonist(&mut self, i: usize, now: Time) {
        let a = &mut self.host.antagonists[i];
        let (stall, compute) = a.step(&mut self.host.mem, now, self.host.cfg.cpu.freq, self.host.measuring);
        let c = a.core;
        self.pass_done(c, Pass { start: now, stall, then: Then::Antagonist(i, compute) }, now);
    }
}

/// A core's pass of memory accesses (a poll, or a memory loop's step):
/// when it started, its stall so far, and what follows it.
pub(crate) struct Pass {
    start: Time,
    stall: Stall,
    then: Then,
}

enum Then {
    Poll(PollTail),
    /// A memory loop's step, with its compute time.
    Corunner(Time),
    Antagonist(usize, Time),
}

/// What ends a poll: its counts and cycles, and the Rx ring it re-armed.
struct PollTail {
    got: u64,
    tx_new: u64,
    cycles: u64,
    sync_ps: Time,
    ri: usize,
    measuring: bool,
}

/// Build the WQE of one packet in the next Tx ring slot; returns the
/// driver cycles beyond `tx_cycles`. With header inlining the core copies
/// the header into the WQE and frees its buffer at once.
#[allow(clippy::too_many_arguments)]
fn post_wqe(
    mem: &mut Memory,
    c: usize,
    tq: &mut TxQueue,
    pool: &mut Mempool,
    local: usize,
    mut p: PktRef,
    (k, cfg): (&Layout, &Cfg),
    now: Time,
    stall: &mut Stall,
) -> u64 {
    let wqe = tq.wqe_addr(tq.produced, k.tx_desc);
    for off in (0..k.tx_desc).step_by(64) {
        stall.add(mem.core_access(c, wqe + off, true, now));
    }
    let mut cycles = 0;
    if cfg.nic.tx_inline {
        let hdr = k.hdr_len(p.size);
        for off in (0..hdr).step_by(64) {
            stall.add(mem.core_access(c, pool.data_addr(p.mbuf) + off, false, now));
        }
        cycles += hdr.div_ceil(64) * cfg.cpu.copy_cycles_per_line;
        pool.free(local, p.mbuf);
        p.mbuf = NO_BUF;
    } else if p.pay != NO_BUF {
        cycles += cfg.cpu.seg_cycles;
    }
    let s = tq.slot(tq.produced);
    tq.slot_pkt[s] = p;
    tq.produced += 1;
    cycles
}

/// Free a transmitted packet's buffers, touching each mbuf; returns the
/// cycles of freeing a chained payload mbuf.
#[allow(clippy::too_many_arguments)]
fn free_pkt(
    mem: &mut Memory,
    c: usize,
    nic: &mut NicState,
    ri: usize,
    local: usize,
    p: PktRef,
    cfg: &Cfg,
    now: Time,
    stall: &mut Stall,
) -> u64 {
    if p.mbuf != NO_BUF {
        stall.add(mem.core_access(c, nic.pool.mbuf_addr(p.mbuf), false, now));
    }
    let mut cycles = 0;
    if p.pay != NO_BUF {
        let meta = pay_mbuf(nic.nicmem.as_ref(), nic.pay_pool.as_ref(), &p);
        stall.add(mem.core_access(c, meta, false, now));
        cycles += cfg.cpu.seg_cycles;
    }
    release(
        &mut nic.pool,
        nic.pay_pool.as_mut(),
        &mut nic.rxq[ri].nicmem_spare,
        local,
        p,
    );
    cycles
}

/// Return a packet's buffers: the header to its pool, the payload to the
/// host payload pool or to its queue's nicmem buffers.
fn release(
    pool: &mut Mempool,
    pay_pool: Option<&mut Mempool>,
    nicmem_spare: &mut Vec<u32>,
    local: usize,
    p: PktRef,
) {
    if p.mbuf != NO_BUF {
        pool.free(local, p.mbuf);
    }
    if p.pay != NO_BUF {
        if p.pay_nic {
            nicmem_spare.push(p.pay);
        } else {
            pay_pool.expect("payload pool").free(local, p.pay);
        }
    }
}

/// New buffers for a consumed Rx slot: a header buffer, and a host payload
/// buffer if the frame took the slot's. All or nothing.
fn refill(
    pool: &mut Mempool,
    pay_pool: Option<&mut Mempool>,
    local: usize,
    need_pay: bool,
) -> Option<(u32, Option<u32>)> {
    let m = pool.alloc(local)?;
    if !need_pay {
        return Some((m, None));
    }
    match pay_pool.expect("payload pool").alloc(local) {
        Some(p) => Some((m, Some(p))),
        None => {
            pool.free(local, m);
            None
        }
    }
}
