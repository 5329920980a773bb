//! The root port's side of a NIC's DMA: read tags held from a read's
//! request until its completions are back, posted credits held until the
//! LLC or memory has taken a write (with the memory controllers, until
//! the write queues take its DRAM lines: holds), and reads that wait for
//! DRAM (with the controllers: fetches).

use super::{pump_at, Ev, Host, NicState, World};
use crate::pcie::{lines, Read};
use crate::units::Time;

/// What follows a device read that waited for DRAM, once it is back.
#[derive(Clone, Copy, Debug)]
pub(super) enum Fetched {
    /// An event, at the time the data is at the device.
    Event(Ev),
    /// Tx queue `q`'s WQE fetch of `n`, issued at `issued` (its round trip
    /// paces the queue's descheduling).
    Wqes { q: u16, n: u32, issued: Time },
    /// Frame `.0` of the Tx FIFO.
    Frame(u64),
}

/// A device read waiting for its lines from DRAM: its NIC, address and
/// length, its request, when the rest of its data is in.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fetch {
    nic: usize,
    addr: u64,
    len: u64,
    read: Read,
    ready: Time,
    then: Fetched,
}

impl NicState {
    /// NIC `n`'s root port has taken a posted write of `lines` lines at
    /// `now` and holds it for `commit`: the credits are back at the NIC an
    /// UpdateFC later, and a pump waiting for credits retries then.
    /// With the memory controllers, a write whose lines went to DRAM
    /// (`hold`) holds its root-port entries until the write queues take
    /// the last of them: the credits come back then (`on_dram`).
    pub(super) fn credits_back(&mut self, n: usize, h: &mut Host, lines: u64, now: Time, commit: Time, hold: Option<u32>) {
        if !self.rp.credits.bounded() {
            return;
        }
        if let Some(i) = hold {
            let i = i as usize;
            if h.credit_holds.len() <= i {
                h.credit_holds.resize(i + 1, None);
            }
            h.credit_holds[i] = Some((n, lines, now + commit));
            return;
        }
        self.credits_at(n, h, lines, now + commit);
    }

    /// NIC `n`'s root port frees `lines` entries at `at`: the credits are
    /// back at the NIC an UpdateFC later.
    fn credits_at(&mut self, n: usize, h: &mut Host, lines: u64, at: Time) {
        let at = self.rp.credits_back_at(at);
        self.rp.credits.give_back(lines, at);
        if self.port.credit_wait.is_some() {
            pump_at(&mut h.q, n, &mut self.port, at);
        }
    }

    /// A posted write the NIC sends at `now` without waiting for credits
    /// (a completion entry, a flow context): it spends them all the same.
    pub(super) fn posted_write(&mut self, n: usize, h: &mut Host, now: Time, addr: u64, len: u64) {
        let (mem, mode) = (&mut h.mem, self.mode);
        mem.hold();
        let (at, commit) = self.rp.write(now, addr, len, |at| mem.dma_write(addr, len, mode, at));
        let hold = mem.unhold();
        if self.rp.credits.bounded() {
            self.rp.credits.take(now, lines(addr, len));
            self.credits_back(n, h, lines(addr, len), at, commit, hold);
        }
    }

    /// A device read of host memory: tag, request upstream, the memory
    /// system's latency, completions downstream. Returns when the data is
    /// at the device (DRAM reads priced at once, at the idle latency, with
    /// the controllers too: see [`NicState::dma_fetch`]).
    pub(super) fn dma_read(&mut self, h: &mut Host, now: Time, addr: u64, len: u64) -> Time {
        let r = self.rp.read_request(now, addr, len);
        let lat = h.mem.dma_read(addr, len, self.mode, r.at_host);
        self.read_complete(h, addr, len, &r, r.at_host + lat)
    }

    /// A device read as [`NicState::dma_read`], whose lines from DRAM, with
    /// the memory controllers, come back when the controllers return them:
    /// then the read completes and `then` follows; returns None. Otherwise
    /// returns when the data is at the device, and the caller goes on
    /// ([`NicState::follow`], or a frame's own bookkeeping).
    pub(super) fn dma_fetch(&mut self, n: usize, h: &mut Host, now: Time, addr: u64, len: u64, then: Fetched) -> Option<Time> {
        let r = self.rp.read_request(now, addr, len);
        h.mem.fetch();
        let lat = h.mem.dma_read(addr, len, self.mode, r.at_host);
        let Some(g) = h.mem.unfetch() else {
            return Some(self.read_complete(h, addr, len, &r, r.at_host + lat));
        };
        let g = g as usize;
        if h.fetches.len() <= g {
            h.fetches.resize(g + 1, None);
        }
        h.fetches[g] = Some(Fetch { nic: n, addr, len, read: r, ready: r.at_host + lat, then });
        None
    }

    /// Fetch `f` of NIC `n`: its DRAM lines are all back at the root
    /// complex at `at`.
    fn fetched(&mut self, n: usize, h: &mut Host, f: Fetch, at: Time) {
        // (a remote socket's lines cross back to it)
        let back = f.ready.max(at + h.mem.remote_latency(self.mode));
        h.mem.stats.p2m_read_ps += back - f.ready;
        let done = self.read_complete(h, f.addr, f.len, &f.read, back);
        self.follow(n, h, f.then, done);
        if self.port.tx_tag_wait {
            self.port.tx_tag_wait = false;
            self.tx_resume_at(n, h, done);
        }
    }

    /// NIC `n`'s read is at the device at `done`: what follows it.
    pub(super) fn follow(&mut self, n: usize, h: &mut Host, then: Fetched, done: Time) {
        match then {
            Fetched::Event(ev) => h.q.push(done, ev),
            Fetched::Wqes { q, n: cnt, issued } => {
                self.txq[q as usize].read_rtt = done - issued;
                h.q.push(done, Ev::TxWqeFetched { nic: n as u16, q, n: cnt });
            }
            Fetched::Frame(frame) => h.q.push(done, Ev::TxData { nic: n as u16, frame }),
        }
    }

    /// A read's data is at the root complex at `back`: its completions
    /// cross the link and its tags return (counted while measuring).
    /// Returns when it is at the device.
    fn read_complete(&mut self, h: &mut Host, addr: u64, len: u64, r: &Read, back: Time) -> Time {
        if h.measuring {
            self.c.tags_max = self.c.tags_max.max(self.rp.tags.in_use_at(r.start));
        }
        let done = self.rp.read_complete(r, back, addr, len);
        if h.measuring {
            self.c.tag_ps += (done - r.start) as u128 * r.tags as u128;
        }
        done
    }
}

impl World {
    /// The holds the controllers' write queues have taken the last line
    /// of, and the fetches whose last line is back.
    pub(super) fn holds_and_fetches_done(&mut self) {
        let h = &mut self.host;
        let mc = h.mem.mc.as_mut().expect("controllers");
        for (i, at) in std::mem::take(&mut mc.holds.done) {
            // (a NIC without bounded credits left its holds unnamed)
            let Some((n, lines, ready)) = h.credit_holds.get_mut(i as usize).and_then(Option::take) else {
                continue;
            };
            // (the P2M-Write domain ends at the write queue)
            h.mem.stats.p2m_write_ps += at.saturating_sub(ready);
            // (its DDIO lines, if any, were committed by `ready`)
            self.nics[n].credits_at(n, h, lines, at.max(ready));
        }
        let mc = h.mem.mc.as_mut().expect("controllers");
        for (g, at) in std::mem::take(&mut mc.fetches.done) {
            let f = h.fetches[g as usize].take().expect("a fetch waits for its lines");
            self.nics[f.nic].fetched(f.nic, h, f, at);
        }
    }
}
