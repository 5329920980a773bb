//! NetDIMM (Alian and Kim, MICRO'19): a NIC in the buffer device of a DDR
//! DIMM. The host reaches the DIMM's DRAM and registers over its ordinary
//! memory channel with the NVDIMM-P asynchronous protocol; the NIC (nNIC)
//! reaches the same DRAM through the DIMM's own memory controller (nMC).
//!
//! This module is the device's hardware boundary:
//! - host side (`host_read`, `host_write`, `reg_write`, `reg_read`): commands
//!   and data on the shared channel, forwarded `t_cmd` after they arrive;
//! - NIC side (`nic_read`, `nic_write`): DMA into local DRAM, served before
//!   waiting host requests (the nController gives the nNIC priority);
//! - `clone`: RowClone inside the DIMM (`rowclone`).
//!
//! Components: `dram` (ranks, banks, subarrays, rows), `ncache` (header
//! cache with next-line prefetch), `rowclone`, `alloc` (allocCache).
//! `system` is the paper's experiment built on them: two hosts and a
//! PCIe NIC, an on-die NIC or a NetDIMM between them (`sim.kind =
//! netdimm`).
//!
//! Left out: ECC, refresh. The host MC serves NetDIMM's reads in issue
//! order, except with `dram.model = controller` in the co-runner's run
//! (`xrd`), where they queue among the DIMMs' in the host's controller.

pub mod alloc;
pub mod check;
pub mod dram;
pub mod ncache;
pub mod rowclone;
pub mod system;

use crate::sim::Rng;
use crate::units::Time;
use dram::{DdrTiming, Geometry, LocalDram};
use ncache::{Lookup, NCache};

/// Everything that sets the device's timing, in base units.
#[derive(Clone, Copy, Debug)]
pub struct NetDimmConfig {
    pub geo: Geometry,
    /// DDR timing of both the shared channel and the local DRAM.
    pub ddr: DdrTiming,
    /// Buffer-device delay before a host command reaches the nController.
    pub t_cmd: Time,
    /// RDY on the response pins, after the data is ready in the buffer device.
    pub t_rdy: Time,
    pub ncache_bytes: u64,
    pub ncache_ways: usize,
    /// nCache SRAM access time.
    pub t_ncache: Time,
    /// Lines the next-line prefetcher brings in after a payload access.
    pub prefetch_lines: u64,
    /// Pages allocCache keeps per subarray.
    pub alloc_pages: u64,
}

pub struct NetDimm {
    pub cfg: NetDimmConfig,
    pub dram: LocalDram,
    pub ncache: NCache,
    pub alloc: alloc::AllocCache,
    /// Shared host channel: command/address bus for requests (XRD, writes)
    /// in issue order, for SENDs in RDY order, and the data bus.
    ca_free: Time,
    send_free: Time,
    dq_free: Time,
    /// Per bank, until when the nMC is serving nNIC requests there: host
    /// requests to that bank wait (the nController gives the nNIC priority).
    nic_busy: Vec<Time>,
    /// Data-bus time the host channel spent on NetDIMM traffic.
    pub channel_busy: Time,
    /// The latest nNIC write's start, and the latest XRD answered: each
    /// comes in time order with the other (a media read must neither wait
    /// for a write yet to come nor miss one that came before it).
    nic_wrote: Time,
    xrd_read: Time,
}

impl NetDimm {
    pub fn new(cfg: NetDimmConfig, rng: Rng) -> NetDimm {
        NetDimm {
            dram: LocalDram::new(cfg.geo, cfg.ddr),
            ncache: NCache::new(cfg.ncache_bytes, cfg.ncache_ways, rng),
            alloc: alloc::AllocCache::new(cfg.geo, cfg.alloc_pages),
            cfg,
            ca_free: 0,
            send_free: 0,
            dq_free: 0,
            nic_busy: vec![0; (cfg.geo.ranks * cfg.geo.banks) as usize],
            channel_busy: 0,
            nic_wrote: 0,
            xrd_read: 0,
        }
    }

    /// When the shared channel's data bus is next free.
    pub fn dq_free(&self) -> Time {
        self.dq_free
    }

    /// One clock of the channel (BL8 is four clocks).
    fn t_ck(&self) -> Time {
        self.cfg.ddr.t_burst / 4
    }

    /// A command slot on the shared CA bus at or after `at`.
    fn command(&mut self, at: Time) -> Time {
        let t = at.max(self.ca_free);
        self.ca_free = t + self.t_ck();
        t
    }

    /// A 64 B burst on the shared DQ bus starting at or after `at`; returns its end.
    fn burst(&mut self, at: Time) -> Time {
        let t = at.max(self.dq_free);
        self.dq_free = t + self.cfg.ddr.t_burst;
        self.channel_busy += self.cfg.ddr.t_burst;
        self.dq_free
    }

    /// XRD (address + id) -> media read -> RDY (id) -> SEND -> data on DQ
    /// after tCL. Issued by the host MC at `now`; returns when the data has
    /// reached the host MC. The media read is an nCache lookup, or else a
    /// local DRAM read queued behind the nNIC's traffic.
    pub fn host_read(&mut self, now: Time, addr: u64) -> Time {
        let xrd = self.command(now);
        let at = xrd + self.cfg.t_cmd;
        let ready = self.media_read(at, addr);
        self.respond(ready)
    }

    /// An XRD the host's memory controller sent at `at`, which schedules
    /// the channel itself (`dram.model = controller`): when RDY reaches it
    /// (it then sends the SEND, the data tCL later).
    pub fn xrd(&mut self, at: Time, addr: u64) -> Time {
        debug_assert!(self.nic_wrote <= at, "an XRD at {at} ps answered after an nNIC write at {} ps", self.nic_wrote);
        self.xrd_read = self.xrd_read.max(at);
        self.media_read(at + self.cfg.t_cmd, addr) + self.cfg.t_rdy
    }

    /// XRD of a register whose value is ready at `value_ready` (e.g. a clone
    /// status): RDY waits for it.
    pub fn reg_read(&mut self, now: Time, value_ready: Time) -> Time {
        let xrd = self.command(now);
        let ready = (xrd + self.cfg.t_cmd).max(value_ready);
        self.respond(ready)
    }

    fn respond(&mut self, ready: Time) -> Time {
        let rdy = ready + self.cfg.t_rdy;
        // SENDs follow RDYs, which arrive out of issue order; they take CA
        // slots between the requests' (a slotted bus, not one queue).
        let send = rdy.max(self.send_free);
        self.send_free = send + self.t_ck();
        self.burst(send + self.cfg.ddr.t_cl)
    }

    fn media_read(&mut self, at: Time, addr: u64) -> Time {
        let line = addr / 64;
        let t = self.cfg.t_ncache;
        match self.ncache.take(line) {
            Lookup::HeaderHit(r) => at.max(r) + t,
            Lookup::Hit(r) => {
                self.prefetch(at, line);
                at.max(r) + t
            }
            Lookup::Miss => {
                let ready =
                    self.dram
                        .access(at.max(self.nic_busy[self.dram.bank_of(addr)]), addr, false);
                // The prefetcher queues its reads right behind the demand read.
                self.prefetch(at, line);
                ready
            }
        }
    }

    /// Next-line prefetch of the lines after `line` not already in nCache.
    fn prefetch(&mut self, at: Time, line: u64) {
        for l in line + 1..=line + self.cfg.prefetch_lines {
            if !self.ncache.contains(l) {
                let r = self.dram.access(at, l * 64, false);
                self.ncache.fill(l, false, r);
            }
        }
    }

    /// A 64 B write (a write-back or a flush) issued by the host MC at
    /// `now`; returns when the nController has it. It is queued in the nMC
    /// write queue from there; a cached copy in nCache is invalidated.
    pub fn host_write(&mut self, now: Time, addr: u64) -> Time {
        let at = self.reg_write(now);
        self.ncache.invalidate(addr / 64);
        self.dram
            .access(at.max(self.nic_busy[self.dram.bank_of(addr)]), addr, true);
        at
    }

    /// A 64 B write to the device's registers (ioremapped config space):
    /// when the nController sees it.
    pub fn reg_write(&mut self, now: Time) -> Time {
        let wr = self.command(now);
        self.burst(wr + self.cfg.ddr.t_cwl) + self.cfg.t_cmd
    }

    /// nNIC DMA read of `bytes` at `addr` (lines pipelined); returns when the
    /// last line is in the NIC.
    pub fn nic_read(&mut self, now: Time, addr: u64, bytes: u64) -> Time {
        let mut done = now;
        for l in addr / 64..=(addr + bytes.max(1) - 1) / 64 {
            let end = self.dram.access(now, l * 64, false);
            self.nic_access(l * 64, end);
            done = done.max(end);
        }
        done
    }

    /// nNIC DMA write of `bytes` at `addr`; with `header` the first line is
    /// also placed in nCache. Writes snoop nCache. Returns when the last
    /// line is written.
    pub fn nic_write(&mut self, now: Time, addr: u64, bytes: u64, header: bool) -> Time {
        debug_assert!(self.xrd_read <= now, "an nNIC write at {now} ps after an XRD at {} ps was answered", self.xrd_read);
        self.nic_wrote = self.nic_wrote.max(now);
        let mut done = now;
        let first = addr / 64;
        for l in first..=(addr + bytes.max(1) - 1) / 64 {
            self.ncache.invalidate(l);
            let end = self.dram.access(now, l * 64, true);
            self.nic_access(l * 64, end);
            done = done.max(end);
        }
        if header {
            self.ncache.fill(first, true, now + self.cfg.t_ncache);
        }
        done
    }

    fn nic_access(&mut self, addr: u64, end: Time) {
        let b = self.dram.bank_of(addr);
        self.nic_busy[b] = self.nic_busy[b].max(end);
    }

    /// Clone `bytes` from `src` to `dst` inside the DIMM; the destination's
    /// lines in nCache become stale.
    pub fn clone(&mut self, now: Time, src: u64, dst: u64, bytes: u64) -> (rowclone::Mode, Time) {
        for l in dst / 64..=(dst + bytes.max(1) - 1) / 64 {
            self.ncache.invalidate(l);
        }
        rowclone::clone(&mut self.dram, now, src, dst, bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng;
    use dram::tests::{ddr4_2400, fig9};

    pub(crate) fn device() -> NetDimm {
        let cfg = NetDimmConfig {
            geo: fig9(),
            ddr: ddr4_2400(),
            t_cmd: 5_000,
            t_rdy: 1_666,
            ncache_bytes: 64 << 10,
            ncache_ways: 8,
            t_ncache: 2_000,
            prefetch_lines: 4,
            alloc_pages: 2,
        };
        NetDimm::new(cfg, rng(1, 99, 0))
    }

    #[test]
    fn async_read_of_a_closed_bank_hand_computed() {
        let mut d = device();
        let t = d.cfg.ddr;
        // XRD at 0, +tCMD at the nController, local read tRCD + tCL + burst,
        // RDY after t_rdy, SEND, data tCL later, one burst on DQ.
        let expect =
            d.cfg.t_cmd + (t.t_rcd + t.t_cl + t.t_burst) + d.cfg.t_rdy + t.t_cl + t.t_burst;
        assert_eq!(d.host_read(0, 1 << 20), expect);
    }

    #[test]
    fn header_hit_is_served_from_ncache_without_prefetch() {
        let mut d = device();
        let t = d.cfg.ddr;
        d.nic_write(0, 4096, 1024, true);
        let now = 1_000_000;
        let expect = now + d.cfg.t_cmd + d.cfg.t_ncache + d.cfg.t_rdy + t.t_cl + t.t_burst;
        assert_eq!(d.host_read(now, 4096), expect);
        assert!(
            !d.ncache.contains(4096 / 64 + 1),
            "a header hit does not prefetch"
        );
        // The payload's first line misses and prefetches the next ones ...
        let miss = d.host_read(2_000_000, 4096 + 64) - 2_000_000;
        assert!(d.ncache.contains(4096 / 64 + 2));
        // ... which then hit.
        let hit = d.host_read(3_000_000, 4096 + 128) - 3_000_000;
        assert_eq!(hit, expect - now);
        assert!(miss > hit);
    }

    #[test]
    fn host_write_invalidates_ncache() {
        let mut d = device();
        d.nic_write(0, 0, 64, true);
        assert!(d.ncache.contains(0));
        let at = d.host_write(1_000_000, 0);
        assert!(!d.ncache.contains(0));
        let t = d.cfg.ddr;
        assert_eq!(at, 1_000_000 + t.t_cwl + t.t_burst + d.cfg.t_cmd);
    }

    #[test]
    fn clone_status_read_waits_for_the_clone() {
        let mut d = device();
        let (m, done) = d.clone(0, 0, d.cfg.geo.subarray_stride(), 1500);
        assert_eq!(m, rowclone::Mode::Fpm);
        let back = d.reg_read(0, done);
        assert_eq!(
            back,
            done + d.cfg.t_rdy + d.cfg.ddr.t_cl + d.cfg.ddr.t_burst
        );
    }
}
