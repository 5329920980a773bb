//! The NIC receive path: frames land in the port's bounded Rx buffer, RSS
//! picks a queue, the NIC takes a prefetched descriptor, DMA-writes the
//! frame and then a completion entry. With no descriptor posted the frame
//! is dropped (mlx5's `rx_out_of_buffer`); with descriptors posted but not
//! yet fetched it waits in the Rx buffer, which overflows when PCIe or the
//! descriptor fetches cannot keep up. With flow control (802.3x PAUSE, see
//! [`crate::wire::pause`]) frames wait for descriptors too, and a filling
//! Rx buffer holds the source back instead of dropping.

use super::rootport::Fetched;
use super::{mem_len, pump_at, request_done, Ev, Host, NicState};
use crate::nic::{Discipline, PktRef, NO_BUF};
use crate::pcie::tlp::{mwr_overhead, mwr_split};
use crate::pcie::{lines, mwr_wire_bytes_at};
use crate::units::{ser_time, Time};
use crate::wire::pause::Signal;
use crate::wire::{wire_bytes, MIN_FRAME};

impl NicState {
    pub(super) fn on_arrive(&mut self, n: usize, h: &mut Host, epoch: u32, now: Time) {
        let line_rate = h.cfg.nic.line_rate;
        let measuring = h.measuring;
        let mut p = self.next;
        let mut held = 0;
        if self.client.is_some() {
            // A closed-loop request's first bit: its wire time before now.
            p.arrival = now - crate::units::ser_time(wire_bytes(p.size), line_rate);
        }
        if let Some(fc) = &mut self.fc {
            if epoch != fc.epoch {
                return; // superseded: PAUSE moved this frame
            }
            if !fc.arrived(now) {
                // A PAUSE that came after it was scheduled holds it.
                return self.rearm_arrival(n, h);
            }
            held = ((p.arrival - fc.created) / 1000).min(u32::MAX as u64) as u32;
        }
        if let Some(t_next) = self.advance(now, line_rate) {
            let epoch = self.fc.as_ref().map_or(0, |fc| fc.epoch);
            h.q.push(t_next, Ev::Arrive { nic: n as u16, epoch });
        }
        self.total_in += 1;
        if measuring {
            self.c.arrived += 1;
            self.c.arrived_bytes += p.size as u64;
        }
        self.port.drain(now);
        if let Some(fc) = &mut self.fc {
            let fill = (self.port.rx_buffer_used + p.size as u64).min(self.port.rx_buffer);
            if let Some(s) = fc.on_fill(fill, now) {
                self.send_pause(n, h, s, now);
            }
        }
        if self.port.rx_buffer_used + p.size as u64 > self.port.rx_buffer {
            self.total_drop += 1;
            request_done(&mut h.q, n, &mut self.client, now);
            if measuring {
                self.c.drop_rx_buffer += 1;
            }
            return;
        }
        let pkt = PktRef {
            mbuf: 0,
            pay: NO_BUF,
            pay_nic: false,
            size: p.size,
            arrival: p.arrival,
            held,
            dst_ip: p.dst_ip,
            flow: p.flow,
            kvs: NO_BUF,
            ..PktRef::default()
        };
        if self.accel.is_some() {
            return self.accel_frame(n, h, pkt, now);
        }
        // RSS picks the core (its completion ring); the core's ring holds the buffers.
        let cq = self.cq_of(self.port.rss_queue(p.rss_hash));
        let qi = self.cqs[cq].ring;
        let rq = &mut self.rxq[qi];
        if rq.wait.is_empty() && rq.desc_ready() {
            self.port.rx_buffer_used += p.size as u64;
            self.rx_dma(n, h, qi, cq, pkt, now);
        } else if rq.can_wait() || self.fc.is_some() {
            // A descriptor is posted for it but not yet in the NIC: wait.
            // With flow control the port is lossless: a frame waits for
            // the driver to post one, and the Rx buffer filling sends XOFF.
            self.port.rx_buffer_used += p.size as u64;
            rq.wait.push_back((pkt, cq as u16));
            self.rx_fetch(n, h, qi, now);
        } else {
            // No descriptor posted: the NIC drops (mlx5 rx_out_of_buffer).
            self.total_drop += 1;
            request_done(&mut h.q, n, &mut self.client, now);
            if measuring {
                self.c.drop_no_desc += 1;
            }
        }
    }

    /// Give a frame the ring's next descriptor, note it in the core's
    /// completion ring and queue it for DMA.
    fn rx_dma(&mut self, n: usize, h: &mut Host, qi: usize, cq: usize, pkt: PktRef, now: Time) {
        let rq = &mut self.rxq[qi];
        let idx = rq.take_desc();
        let slot = rq.slot(idx);
        let mut p = PktRef {
            mbuf: rq.slot_mbuf[slot],
            ..pkt
        };
        if h.k.split > 0 && mem_len(pkt.size) > h.k.split {
            // Split rings: a nicmem buffer from the primary ring if it has
            // one, else the host buffer of the secondary ring.
            match rq.primary.pop_front() {
                Some(b) => (p.pay, p.pay_nic) = (b, true),
                None => p.pay = rq.slot_pay[slot],
            }
            if h.measuring {
                *if p.pay_nic {
                    &mut self.c.pay_nicmem
                } else {
                    &mut self.c.pay_host
                } += 1;
            }
        }
        rq.slot_pkt[slot] = p;
        if h.measuring {
            self.c.rx_desc_given += 1;
            // Time since the frame's last bit arrived.
            let last_bit = pkt.arrival + crate::units::ser_time(wire_bytes(pkt.size), h.cfg.nic.line_rate);
            self.c.rx_desc_wait_ps += now.saturating_sub(last_bit);
        }
        let c = &mut self.cqs[cq];
        let pos = c.written;
        let at = (pos % c.size) as usize;
        c.idx[at] = idx;
        c.written += 1;
        c.ready += 1;
        self.port.rx_ready.push_back((cq as u16, pos));
        self.rx_fetch(n, h, qi, now);
        self.rx_pump(n, h, now);
    }

    /// Hand ready frames to the link while it is idle and the root port
    /// has posted credits for them: the frame's data MWr TLPs, then its
    /// completion entry (with CQE compression, one line per 8 frames, or
    /// fewer when the queue has no more frames ready).
    pub(super) fn rx_pump(&mut self, n: usize, h: &mut Host, now: Time) {
        while let Some(&(cq, pos)) = self.port.rx_ready.front() {
            let free = self.rp.link.write_ready_at();
            if free > now {
                pump_at(&mut h.q, n, &mut self.port, free);
                break;
            }
            let c = &self.cqs[cq as usize];
            let (qi, idx) = (c.ring, c.rx_index(pos));
            let pkt = self.rxq[qi].slot_pkt[self.rxq[qi].slot(idx)];
            let pay = self.host_payload(&pkt);
            // The header (the whole frame unless split), then a payload
            // bound for host memory; a payload bound for nicmem stays on the NIC.
            // With Rx inlining the header travels in the CQE instead.
            let hdr = h.k.hdr_len(pkt.size);
            let hdr_addr = (!h.k.hdr_in_cqe(pkt.size)).then(|| self.pool.data_addr(pkt.mbuf));
            let per = h.k.cqe_per_line;
            let with_cqe = (pos + 1) % per == 0 || c.ready == 1;
            if self.rp.credits.bounded() {
                let need = hdr_addr.map_or(0, |a| lines(a, hdr))
                    + pay.map_or(0, |p| lines(p, mem_len(pkt.size) - hdr))
                    + with_cqe as u64;
                if !self.rp.credits.available(now, need) {
                    // (the frame's TLPs: its header, payload and completion
                    // line, MPS at most each, back to back on the link)
                    let cfg = *self.rp.link.cfg();
                    let writes = [hdr_addr.map(|a| (a, hdr)), pay.map(|p| (p, mem_len(pkt.size) - hdr)),
                                  with_cqe.then(|| (c.cqe_addr(pos, h.k.rx_cqe, per) & !63, h.k.rx_cqe))];
                    let mut off = 0;
                    let tlps = writes.into_iter().flatten().flat_map(|(a, len)| mwr_split(&cfg, a, len)).map(|(a, l)| {
                        let at = off;
                        off += self.rp.link.up.ser_ps(mwr_overhead(&cfg) + l);
                        (lines(a, l), at)
                    });
                    match self.rp.credits.start_at(now, tlps) {
                        Some(t) if t <= now => {}
                        at => {
                            // Wait for the credits: at a known return, or the next one declared.
                            self.port.credit_wait.get_or_insert(now);
                            if let Some(t) = at {
                                pump_at(&mut h.q, n, &mut self.port, t);
                            }
                            break;
                        }
                    }
                }
                if let Some(since) = self.port.credit_wait.take() {
                    self.rp.credits.stalled(since, now);
                }
                self.rp.credits.take(now, need);
            }
            self.port.rx_ready.pop_front();
            let c = &mut self.cqs[cq as usize];
            c.ready -= 1;
            let start = now.max(self.port.pipe_free);
            self.port.pipe_free = start + h.k.pipe_ps;
            let rq = &mut self.rxq[qi];
            let slot = rq.slot(idx);
            rq.slot_pkt[slot].t_dma = start;
            let mut t_end = start;
            if let Some(a) = hdr_addr {
                t_end = self.rp.link.dma_write(start, a, hdr);
            }
            if let Some(pay) = pay {
                t_end = self.rp.link.dma_write(start, pay, mem_len(pkt.size) - hdr);
            }
            h.q.push(
                t_end,
                Ev::RxDma {
                    nic: n as u16,
                    q: qi as u16,
                    idx,
                },
            );
            if with_cqe {
                let line = c.cqe_addr(pos, h.k.rx_cqe, per) & !63;
                t_end = self.rp.link.dma_write(start, line, h.k.rx_cqe);
                h.q.push(
                    t_end,
                    Ev::RxCqe {
                        nic: n as u16,
                        q: cq,
                        upto: pos + 1,
                    },
                );
            }
            // The frame's buffer space frees once its TLPs have left.
            self.port
                .rx_draining
                .push_back((t_end.saturating_sub(self.rp.latency()), pkt.size));
        }
        if self.fc.is_some() {
            self.pause_check(n, h, now);
        }
    }

    /// Send PAUSE signal `s` from NIC `n`'s port to its source at `now`.
    /// The 64 B MAC Control frame takes its wire time from the port's Tx
    /// (charged after the frames already scheduled); the source sees it a
    /// frame time and a cable after `now`, as if it went out at once (a
    /// MAC sends it after the frame on the wire, at most one frame later).
    pub(super) fn send_pause(&mut self, n: usize, h: &mut Host, s: Signal, now: Time) {
        let line_rate = h.cfg.nic.line_rate;
        let measuring = h.measuring;
        self.port.wire_free =
            self.port.wire_free.max(now) + ser_time(wire_bytes(MIN_FRAME), line_rate);
        if measuring {
            self.c.pause_frames += 1;
        }
        let Some(fc) = &mut self.fc else { return };
        if fc.send(s, now) {
            // XON let the held frame go earlier.
            self.rearm_arrival(n, h);
        }
        if s == Signal::Xoff {
            self.pause_check(n, h, now);
        }
    }

    /// PAUSE moved NIC `n`'s pending frame to `fc.due`: queue its arrival
    /// there; the event queued before becomes stale (an older epoch).
    fn rearm_arrival(&mut self, n: usize, h: &mut Host) {
        let line_rate = h.cfg.nic.line_rate;
        let Some(fc) = &mut self.fc else { return };
        fc.epoch += 1;
        self.next.arrival = fc.due - ser_time(wire_bytes(self.next.size), line_rate);
        h.q.push(fc.due, Ev::Arrive { nic: n as u16, epoch: fc.epoch });
    }

    /// While NIC `n`'s port holds its source, queue a check for when its
    /// Rx buffer, draining as the DMAs already issued finish, falls below
    /// XON. Frames still waiting for a DMA are not counted as leaving:
    /// issuing their DMAs calls this again.
    pub(super) fn pause_check(&mut self, n: usize, h: &mut Host, now: Time) {
        let Some(fc) = &mut self.fc else { return };
        if fc.check_pending || now >= fc.xoff_until {
            return;
        }
        let mut fill = self.port.rx_buffer_used;
        let mut at = (fill < fc.xon).then_some(now);
        for &(t, b) in &self.port.rx_draining {
            if at.is_some() {
                break;
            }
            fill -= b as u64;
            if fill < fc.xon {
                at = Some(t.max(now));
            }
        }
        if let Some(t) = at {
            fc.check_pending = true;
            h.q.push(t, Ev::PauseCheck { nic: n as u16 });
        }
    }

    pub(super) fn on_pause_check(&mut self, n: usize, h: &mut Host, now: Time) {
        self.port.drain(now);
        let fill = self.port.rx_buffer_used;
        let Some(fc) = &mut self.fc else { return };
        fc.check_pending = false;
        match fc.on_fill(fill, now) {
            Some(s) => self.send_pause(n, h, s, now),
            None => self.pause_check(n, h, now),
        }
    }

    /// Keep the NIC's descriptor cache topped up: one outstanding read of up
    /// to `desc_fetch` contiguous descriptors per ring. An array ring reads
    /// ahead in array order; a list ring (RxList) reads the contiguous run
    /// starting at the first descriptor ahead in list order that is not
    /// cached, so a shuffled list costs a read per short run.
    pub(super) fn rx_fetch(&mut self, n: usize, h: &mut Host, qi: usize, now: Time) {
        let (k, cfg) = (&h.k, &h.cfg);
        let rq = &mut self.rxq[qi];
        if rq.fetching {
            return;
        }
        let (from, cnt) = match &rq.disc {
            Discipline::List { list, cached } => {
                let visible = (rq.posted - rq.used).min(cfg.nic.desc_fetch) as usize;
                let Some(d) = list.ahead(visible).find(|&d| !cached[d as usize]) else {
                    return;
                };
                (d as u64, cfg.nic.desc_fetch.min(rq.size - d as u64))
            }
            _ => {
                if rq.posted == rq.fetched || rq.fetched - rq.used >= cfg.nic.desc_fetch {
                    return;
                }
                // Contiguous descriptors only: a fetch stops at the ring's end.
                let to_end = rq.size - rq.fetched % rq.size;
                (rq.fetched, (rq.posted - rq.fetched).min(cfg.nic.desc_fetch).min(to_end))
            }
        };
        let addr = rq.desc_addr(from, k.rx_desc);
        let len = cnt * k.rx_desc;
        rq.fetching = true;
        let then = Fetched::Event(Ev::RxDescFetched {
            nic: n as u16,
            q: qi as u16,
            from,
            n: cnt as u16,
        });
        if let Some(t_done) = self.dma_fetch(n, h, now, addr, len, then) {
            self.follow(n, h, then, t_done);
        }
    }

    pub(super) fn on_rx_desc_fetched(
        &mut self,
        n: usize,
        h: &mut Host,
        qi: usize,
        from: u64,
        cnt: u64,
        now: Time,
    ) {
        let rq = &mut self.rxq[qi];
        rq.fetching = false;
        match &mut rq.disc {
            // Only descriptors still free are valid; the others hold frames.
            Discipline::List { list, cached } => {
                for d in from..from + cnt {
                    cached[d as usize] = list.contains(d as u32);
                }
            }
            _ => rq.fetched += cnt,
        }
        self.rx_drain_wait(n, h, qi, now);
        self.rx_fetch(n, h, qi, now);
    }

    pub(super) fn on_rx_doorbell(
        &mut self,
        n: usize,
        h: &mut Host,
        qi: usize,
        pi: u64,
        arrived: bool,
        now: Time,
    ) {
        if !arrived {
            // The core writes the doorbell now; the NIC sees it after the link.
            let at = self.rp.link.mmio_write(now, 4);
            h.q.push(
                at,
                Ev::RxDoorbell {
                    nic: n as u16,
                    q: qi as u16,
                    pi,
                    arrived: true,
                },
            );
            return;
        }
        let rq = &mut self.rxq[qi];
        rq.posted = rq.posted.max(pi);
        // A list ring may already cache a descriptor this doorbell posts.
        self.rx_drain_wait(n, h, qi, now);
        self.rx_fetch(n, h, qi, now);
    }

    /// Frames waiting in the Rx buffer take the descriptors the NIC holds.
    fn rx_drain_wait(&mut self, n: usize, h: &mut Host, qi: usize, now: Time) {
        while self.rxq[qi].desc_ready() {
            let Some((pkt, cq)) = self.rxq[qi].wait.pop_front() else {
                break;
            };
            self.rx_dma(n, h, qi, cq as usize, pkt, now);
        }
    }

    /// The frame is at the root port: DDIO (or DRAM) takes its lines.
    pub(super) fn on_rx_dma(&mut self, n: usize, h: &mut Host, qi: usize, idx: u64, now: Time) {
        let rq = &self.rxq[qi];
        let pkt = rq.slot_pkt[rq.slot(idx)];
        let hdr = h.k.hdr_len(pkt.size);
        let mut commit = 0;
        let hdr_addr = (!h.k.hdr_in_cqe(pkt.size)).then(|| self.pool.data_addr(pkt.mbuf));
        let pay = self.host_payload(&pkt).map(|p| (p, mem_len(pkt.size) - hdr));
        h.mem.hold();
        if let Some(a) = hdr_addr {
            commit = h.mem.dma_write(a, hdr, self.mode, now);
        }
        if let Some((p, len)) = pay {
            commit = commit.max(h.mem.dma_write(p, len, self.mode, now));
        }
        let hold = h.mem.unhold();
        if !self.rp.credits.bounded() {
            return;
        }
        let pcfg = *self.rp.link.cfg();
        let writes = hdr_addr.map(|a| (a, hdr)).into_iter().chain(pay);
        let (n_lines, wire) = writes.fold((0, 0), |(l, w), (a, len)| {
            (l + lines(a, len), w + mwr_wire_bytes_at(&pcfg, a, len))
        });
        // The frame's credits were all taken when its first TLP left; each
        // TLP's are held from its own send, so they come back as early as
        // the first TLP's would (same credit-time as TLP by TLP).
        let up = &self.rp.link.up;
        let first = mwr_wire_bytes_at(&pcfg, 0, mem_len(pkt.size).min(pcfg.mps as u64));
        let early = up.ser_ps(wire).saturating_sub(up.ser_ps(first));
        self.credits_back(n, h, n_lines, now.saturating_sub(early), commit, hold);
    }

    /// A completion line is in host memory: the core polling this queue
    /// may now see the frames it covers.
    pub(super) fn on_rx_cqe(&mut self, n: usize, h: &mut Host, cq: usize, upto: u64, now: Time) {
        let measuring = h.measuring;
        let c = &mut self.cqs[cq];
        let line = c.cqe_addr(upto - 1, h.k.rx_cqe, h.k.cqe_per_line) & !63;
        h.mem.hold();
        let commit = h.mem.dma_write(line, h.k.rx_cqe, self.mode, now);
        let hold = h.mem.unhold();
        c.sample(now, measuring);
        let rq = &mut self.rxq[c.ring];
        for pos in c.completed..upto {
            let slot = rq.slot(c.rx_index(pos));
            rq.slot_pkt[slot].t_cqe = now;
        }
        c.completed = c.completed.max(upto);
        let core = self.first_core + cq % self.txq.len();
        self.credits_back(n, h, 1, now, commit, hold);
        h.wake(core, now);
    }
}

