//! The BlueField-3 memory system as the DPA paper's Fig 4 draws it, with
//! real line addresses in set-associative caches:
//!
//! - DPA -> DPA memory: DPA L1 (per thread) -> DPA L2 -> DPA L3 -> cache
//!   port -> NIC switch -> Arm L3 -> Arm DRAM;
//! - DPA -> Arm memory: DPA L1 -> aperture -> NIC switch -> Arm L3 -> Arm DRAM;
//! - DPA -> host memory: DPA L1 -> aperture -> NIC switch -> PCIe -> host L3
//!   -> host DRAM;
//! - host and Arm cores: private L1 and L2 -> their L3 -> their DRAM.
//!
//! Each hop adds its latency and, where it has one, holds a shared pipe
//! (`hop::Pipe`) for the bytes it moves, or a tag (`hop::Tags`) until the
//! response returns. The NIC writes received packets into the DPA L2 (DPA
//! memory as network buffer; `bf3.nic_l2_ways` ways, older lines spill to
//! the L3 and on to the Arm side) or into the Arm or host L3, and reads
//! packets to send from the same places.
//!
//! The DPA L1 is write-through: a store goes on to the DPA L2 (DPA memory)
//! or leaves through the aperture as a posted write; the thread waits only
//! for the first hop to accept it. Host and Arm stores write-allocate.
//! Left out: coherence traffic, private-cache writebacks of the host and Arm
//! cores, DRAM banks (a channel is a FIFO server, `mem::dram`).

use super::hop::{Pipe, Tags};
use super::{Mem, Proc};
use crate::mem::cache::{Cache, Indexing, Policy, Victim};
use crate::mem::dram::Dram;
use crate::config::Cfg;
use crate::sim::rng;
use crate::units::Time;

/// Bytes of a PCIe TLP header + framing around a 64 B payload (the
/// aperture turns each load or store into its own TLP).
const TLP_OVERHEAD: u64 = 24;
/// The same per 64 B of a NIC DMA, which moves packets in 256 B TLPs.
const DMA_OVERHEAD: u64 = 6;
const LINE: u64 = 64;

/// Hits per level, for tests and the report.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub l1_hits: u64,
    pub l2_hits: u64,
    pub l3_hits: u64,
    /// Served by the owning side: Arm L3 or DRAM, host L3 or DRAM.
    pub far: u64,
}

/// One processor's private caches (host, Arm: per core; DPA: per thread).
struct Private {
    l1: Vec<Cache>,
    l1_lat: Time,
    l2: Vec<Cache>,
    l2_lat: Time,
}

pub struct MemSys {
    dpa: Private,
    dpa_l2: Cache,
    dpa_l2_lat: Time,
    dpa_l3: Cache,
    dpa_l3_lat: Time,
    nic_l2_mask: u64,
    arm: Private,
    arm_l3: Cache,
    arm_l3_lat: Time,
    arm_dram: Dram,
    host: Private,
    host_l3: Cache,
    host_l3_lat: Time,
    host_io_mask: u64,
    host_dram: Dram,
    switch_lat: Time,
    switch_rd: Pipe,
    switch_wr: Pipe,
    port_rd: Pipe,
    port_wr: Pipe,
    ap_lat: Time,
    ap_tags: Tags,
    ap_wr: Pipe,
    arm_rd: Pipe,
    arm_wr: Pipe,
    /// One-way PCIe latency.
    pcie_lat: Time,
    /// Device to host (posted writes, read requests).
    pcie_up: Pipe,
    /// Host to device (read completions).
    pcie_down: Pipe,
    dpa_doorbell: Time,
    host_doorbell: Time,
    pub stats: Stats,
}

fn cache(size: u64, ways: u64, seed: u64, index: u64) -> Cache {
    Cache::new(
        size,
        ways as usize,
        Indexing::Modulo,
        Policy::Lru,
        rng(seed, STREAM, index),
    )
}

/// Random stream id of the BF3 caches (fixed, see `sim::stream`).
const STREAM: u64 = 17;

fn fill(c: &mut Cache, line: u64, mask: u64, dirty: bool) -> Option<Victim> {
    match c.find(line) {
        Some(s) => {
            c.touch(s);
            if dirty {
                c.set_dirty(s);
            }
            None
        }
        None => c.insert(line, mask, dirty).1,
    }
}

/// Look `line` up; a hit is touched.
fn hit(c: &mut Cache, line: u64) -> bool {
    match c.find(line) {
        Some(s) => {
            c.touch(s);
            true
        }
        None => false,
    }
}

/// A processor's L1: (bytes, ways, latency).
pub fn l1_of(c: &Cfg, proc: &str) -> (u64, u64, u64) {
    match proc {
        "dpa" => (c.dpa.l1_size, c.dpa.l1_ways, c.dpa.l1_latency),
        "arm" => (c.arm.l1_size, c.arm.l1_ways, c.arm.l1_latency),
        _ => (c.host.l1_size, c.host.l1_ways, c.host.l1_latency),
    }
}

impl MemSys {
    pub fn new(c: &Cfg) -> MemSys {
        let seed = c.sim.seed;
        let private = |prefix: &str, n: u64, l2: bool, base: u64| {
            let (l1_size, l1_ways, l1_lat) = l1_of(c, prefix);
            Private {
                l1: (0..n).map(|i| cache(l1_size, l1_ways, seed, base + i)).collect(),
                l1_lat,
                l2: if l2 {
                    let (size, ways) = if prefix == "host" {
                        (c.l2.size, c.l2.ways)
                    } else {
                        (c.arm.l2_size, c.arm.l2_ways)
                    };
                    (0..n)
                        .map(|i| cache(size, ways, seed, base + 1000 + i))
                        .collect()
                } else {
                    vec![]
                },
                l2_lat: if prefix == "host" {
                    c.l2.latency
                } else if prefix == "arm" {
                    c.arm.l2_latency
                } else {
                    0
                },
            }
        };
        let dpa_threads = c.dpa.cores * c.dpa.threads_per_core;
        let pcie = crate::pcie::phy::tlp_layer_gbps(
            c.pcie.gen as u8,
            c.pcie.lanes as u8,
            c.pcie.mps as u32,
        );
        let pcie_mbs = (pcie * 1e3 / 8.0) as u64;
        MemSys {
            dpa: private("dpa", dpa_threads, false, 0),
            dpa_l2: cache(c.dpa.l2_size, c.dpa.l2_ways, seed, 3000),
            dpa_l2_lat: c.dpa.l2_latency,
            dpa_l3: cache(c.dpa.l3_size, c.dpa.l3_ways, seed, 3001),
            dpa_l3_lat: c.dpa.l3_latency,
            nic_l2_mask: (1u64 << c.bf3.nic_l2_ways) - 1,
            arm: private("arm", c.arm.cores, true, 4000),
            arm_l3: cache(c.arm.l3_size, c.arm.l3_ways, seed, 3002),
            arm_l3_lat: c.arm.l3_latency,
            arm_dram: Dram::new(
                c.arm.dram_channels as usize,
                c.arm.dram_channel_bw,
                c.arm.dram_latency,
            ),
            host: private("host", c.cpu.max_cores, true, 6000),
            host_l3: Cache::new(
                c.llc.size,
                c.llc.ways as usize,
                crate::mem::llc_indexing(&c.llc).expect("mem::check checked the LLC's mapping"),
                Policy::Lru,
                rng(seed, STREAM, 3003),
            ),
            host_l3_lat: c.llc.latency,
            host_io_mask: (1u64 << c.llc.ddio_ways) - 1,
            // (the levels' latencies add up here, so the DRAM's is what a
            // host load's miss adds beyond its L1, L2 and L3 lookups:
            // `dram.latency` is the whole load-to-use)
            host_dram: Dram::host(&crate::config::DramCfg {
                latency: c.dram.latency.saturating_sub(c.host.l1_latency + c.l2.latency + c.llc.latency).max(1),
                ..c.dram.clone()
            }),
            switch_lat: c.bf3.switch_latency,
            switch_rd: Pipe::new(c.bf3.switch_bw),
            switch_wr: Pipe::new(c.bf3.switch_bw),
            port_rd: Pipe::new(c.bf3.cache_port_read_bw),
            port_wr: Pipe::new(c.bf3.cache_port_write_bw),
            ap_lat: c.bf3.aperture_latency,
            ap_tags: Tags::new(c.bf3.aperture_read_tags as usize),
            ap_wr: Pipe::new(c.bf3.aperture_write_bw),
            arm_rd: Pipe::new(c.bf3.arm_port_bw),
            arm_wr: Pipe::new(c.bf3.arm_port_bw),
            pcie_lat: c.pcie.latency,
            pcie_up: Pipe::new(pcie_mbs),
            pcie_down: Pipe::new(pcie_mbs),
            dpa_doorbell: c.bf3.dpa_doorbell_latency,
            host_doorbell: c.host.doorbell_latency,
            stats: Stats::default(),
        }
    }

    /// A doorbell rung at `now` reaches the NIC: on chip from the DPA,
    /// through the switch from the Arm, through PCIe and the switch from
    /// the host.
    pub fn doorbell(&self, p: Proc, now: Time) -> Time {
        match p {
            Proc::Dpa => now + self.dpa_doorbell,
            Proc::Arm => now + self.switch_lat / 2,
            Proc::Host => now + self.host_doorbell + self.pcie_lat + self.switch_lat / 2,
        }
    }

    /// When every pipe has drained (posted writes finish after their thread
    /// has moved on).
    pub fn drained(&self) -> Time {
        [
            &self.switch_rd,
            &self.switch_wr,
            &self.port_rd,
            &self.port_wr,
            &self.ap_wr,
            &self.arm_rd,
            &self.arm_wr,
            &self.pcie_up,
            &self.pcie_down,
        ]
        .iter()
        .map(|p| p.free_at())
        .max()
        .unwrap_or(0)
    }

    // --- the owning sides -------------------------------------------------

    /// Arm L3, then Arm DRAM; returns when the data is at the L3.
    fn arm_side_read(&mut self, line: u64, mut t: Time) -> Time {
        t += self.arm_l3_lat;
        if hit(&mut self.arm_l3, line) {
            self.stats.far += 1;
            return t;
        }
        self.stats.far += 1;
        t += self.arm_dram.read(line, t);
        let all = self.arm_l3.all_ways();
        if let Some(v) = fill(&mut self.arm_l3, line, all, false) {
            if v.dirty {
                self.arm_dram.write(v.line, t);
            }
        }
        t
    }

    fn arm_side_write(&mut self, line: u64, t: Time) {
        let all = self.arm_l3.all_ways();
        if let Some(v) = fill(&mut self.arm_l3, line, all, true) {
            if v.dirty {
                self.arm_dram.write(v.line, t);
            }
        }
    }

    fn host_side_read(&mut self, line: u64, mut t: Time) -> Time {
        t += self.host_l3_lat;
        self.stats.far += 1;
        if hit(&mut self.host_l3, line) {
            return t;
        }
        t += self.host_dram.read(line, t);
        let all = self.host_l3.all_ways();
        if let Some(v) = fill(&mut self.host_l3, line, all, false) {
            if v.dirty {
                self.host_dram.write(v.line, t);
            }
        }
        t
    }

    /// A write from the device side allocates into the I/O ways (DDIO);
    /// with DDIO off (no I/O ways) a cached copy is stale and the data
    /// goes to DRAM, as the host's own DMA writes do.
    fn host_side_write(&mut self, line: u64, t: Time) {
        let mask = self.host_io_mask;
        if mask == 0 {
            self.host_l3.invalidate(line);
            self.host_dram.write(line, t);
            return;
        }
        if let Some(v) = fill(&mut self.host_l3, line, mask, true) {
            if v.dirty {
                self.host_dram.write(v.line, t);
            }
        }
    }

    // --- the DPA's L2/L3 (DPA memory only) --------------------------------

    /// A DPA L3 victim that is dirty goes back to the Arm side through the
    /// cache port and the switch; returns when it has left the port (the
    /// cache has one writeback slot, so whoever caused the eviction waits).
    fn dpa_l3_evicted(&mut self, v: Option<Victim>, t: Time) -> Time {
        if let Some(v) = v.filter(|v| v.dirty) {
            let left = self.port_wr.pass(t, LINE);
            let t = self.switch_wr.pass(left, LINE);
            let t = self.arm_wr.pass(t, LINE);
            self.arm_side_write(v.line, t);
            return left;
        }
        t
    }

    /// An L2 victim moves down to the L3 (dirty or not: the L3 holds what
    /// the L2 drops, which is how older packets end up there).
    fn dpa_l2_evicted(&mut self, v: Option<Victim>, t: Time) -> Time {
        match v {
            Some(v) => {
                let all = self.dpa_l3.all_ways();
                let w = fill(&mut self.dpa_l3, v.line, all, v.dirty);
                self.dpa_l3_evicted(w, t)
            }
            None => t,
        }
    }

    /// Returns when the fill's evictions have been taken care of.
    fn dpa_l2_fill(&mut self, line: u64, mask: u64, dirty: bool, t: Time) -> Time {
        let v = fill(&mut self.dpa_l2, line, mask, dirty);
        self.dpa_l2_evicted(v, t)
    }

    /// A read of DPA memory below the L1; returns when the data is at the L1.
    fn dpa_mem_read(&mut self, line: u64, mut t: Time) -> Time {
        t += self.dpa_l2_lat;
        if hit(&mut self.dpa_l2, line) {
            self.stats.l2_hits += 1;
            return t;
        }
        t += self.dpa_l3_lat;
        if hit(&mut self.dpa_l3, line) {
            self.stats.l3_hits += 1;
            let all = self.dpa_l2.all_ways();
            return self.dpa_l2_fill(line, all, false, t);
        }
        t += self.switch_lat;
        t = self.arm_side_read(line, t);
        t = self.arm_rd.pass(t, LINE);
        t = self.switch_rd.pass(t, LINE);
        t = self.port_rd.pass(t, LINE);
        let all3 = self.dpa_l3.all_ways();
        let v = fill(&mut self.dpa_l3, line, all3, false);
        let t = self.dpa_l3_evicted(v, t);
        let all = self.dpa_l2.all_ways();
        self.dpa_l2_fill(line, all, false, t)
    }

    /// A read through the aperture (Arm or host memory); returns when the
    /// data is back at the DPA.
    fn aperture_read(&mut self, mem: Mem, line: u64, t: Time) -> Time {
        let go = self.ap_tags.take(t);
        let mut t = go + self.ap_lat + self.switch_lat;
        t = match mem {
            Mem::Arm => {
                let t = self.arm_side_read(line, t);
                self.arm_rd.pass(t, LINE)
            }
            _ => {
                let t = self.pcie_up.pass(t, TLP_OVERHEAD) + 2 * self.pcie_lat;
                let t = self.host_side_read(line, t);
                self.pcie_down.pass(t, LINE + TLP_OVERHEAD)
            }
        };
        t = self.switch_rd.pass(t, LINE);
        self.ap_tags.give_back(t);
        t
    }

    // --- what threads do --------------------------------------------------

    /// A load by `thread` (on `core`) of processor `p`; returns when its
    /// data is ready.
    pub fn load(&mut self, p: Proc, thread: usize, core: usize, addr: u64, now: Time) -> Time {
        let line = addr / LINE;
        let mem = Mem::of(addr);
        match p {
            Proc::Dpa => {
                let t = now + self.dpa.l1_lat;
                if hit(&mut self.dpa.l1[thread], line) {
                    self.stats.l1_hits += 1;
                    return t;
                }
                let t = match mem {
                    Mem::Dpa => self.dpa_mem_read(line, t),
                    _ => self.aperture_read(mem, line, t),
                };
                let all = self.dpa.l1[thread].all_ways();
                fill(&mut self.dpa.l1[thread], line, all, false);
                t
            }
            Proc::Host | Proc::Arm => {
                let host = p == Proc::Host;
                let pr = if host { &mut self.host } else { &mut self.arm };
                let mut t = now + pr.l1_lat;
                if hit(&mut pr.l1[core], line) {
                    self.stats.l1_hits += 1;
                    return t;
                }
                t += pr.l2_lat;
                if hit(&mut pr.l2[core], line) {
                    self.stats.l2_hits += 1;
                } else {
                    t = if host {
                        self.host_side_read(line, t)
                    } else {
                        self.arm_side_read(line, t)
                    };
                    let pr = if host { &mut self.host } else { &mut self.arm };
                    let all = pr.l2[core].all_ways();
                    fill(&mut pr.l2[core], line, all, false);
                }
                let pr = if host { &mut self.host } else { &mut self.arm };
                let all = pr.l1[core].all_ways();
                fill(&mut pr.l1[core], line, all, false);
                t
            }
        }
    }

    /// A store of one whole line; returns when the thread may go on.
    pub fn store(&mut self, p: Proc, thread: usize, core: usize, addr: u64, now: Time) -> Time {
        let line = addr / LINE;
        match p {
            Proc::Dpa => {
                let t = now + self.dpa.l1_lat;
                // write-through: update the L1 copy if there is one
                if let Some(s) = self.dpa.l1[thread].find(line) {
                    self.dpa.l1[thread].touch(s);
                }
                match Mem::of(addr) {
                    Mem::Dpa => {
                        let t = t + self.dpa_l2_lat;
                        let all = self.dpa_l2.all_ways();
                        self.dpa_l2_fill(line, all, true, t)
                    }
                    mem => {
                        let accepted = self.ap_wr.pass(t, LINE);
                        let t = self
                            .switch_wr
                            .pass(accepted + self.ap_lat + self.switch_lat / 2, LINE);
                        if mem == Mem::Arm {
                            let t = self.arm_wr.pass(t, LINE);
                            self.arm_side_write(line, t);
                        } else {
                            let t = self.pcie_up.pass(t, LINE + TLP_OVERHEAD) + self.pcie_lat;
                            self.host_side_write(line, t);
                        }
                        accepted
                    }
                }
            }
            Proc::Host | Proc::Arm => {
                // write-allocate: read for ownership, then dirty in the L1
                let t = self.load(p, thread, core, addr, now);
                let pr = if p == Proc::Host {
                    &mut self.host
                } else {
                    &mut self.arm
                };
                if let Some(s) = pr.l1[core].find(line) {
                    pr.l1[core].set_dirty(s);
                }
                t
            }
        }
    }

    // --- the NIC ----------------------------------------------------------

    /// The NIC writes `bytes` received at `now` to `addr`; returns when the
    /// last line has landed.
    pub fn nic_write(&mut self, addr: u64, bytes: u64, now: Time) -> Time {
        let mut done = now;
        for line in addr / LINE..(addr + bytes).div_ceil(LINE) {
            let t = match Mem::of(addr) {
                // straight into the DPA L2, without crossing the switch
                Mem::Dpa => {
                    let t = self.port_wr.pass(now, LINE);
                    let mask = self.nic_l2_mask;
                    if mask == 0 {
                        let all = self.dpa_l3.all_ways();
                        let v = fill(&mut self.dpa_l3, line, all, true);
                        self.dpa_l3_evicted(v, t)
                    } else {
                        self.dpa_l2_fill(line, mask, true, t)
                    }
                }
                Mem::Arm => {
                    let t = self.switch_wr.pass(now + self.switch_lat / 2, LINE);
                    let t = self.arm_wr.pass(t, LINE);
                    self.arm_side_write(line, t);
                    t
                }
                Mem::Host => {
                    let t = self.switch_wr.pass(now + self.switch_lat / 2, LINE);
                    let t = self.pcie_up.pass(t, LINE + DMA_OVERHEAD) + self.pcie_lat;
                    self.host_side_write(line, t);
                    t
                }
            };
            done = done.max(t);
        }
        done
    }

    /// The NIC reads `bytes` at `addr` (a packet to send) from `now`;
    /// returns when the last line is at the NIC.
    pub fn nic_read(&mut self, addr: u64, bytes: u64, now: Time) -> Time {
        let mut done = now;
        for line in addr / LINE..(addr + bytes).div_ceil(LINE) {
            let t = match Mem::of(addr) {
                Mem::Dpa => {
                    // from the DPA caches (or below them), out through the port
                    let t = self.dpa_mem_read(line, now);
                    self.port_rd.pass(t, LINE)
                }
                Mem::Arm => {
                    let t = self.arm_side_read(line, now + self.switch_lat);
                    let t = self.arm_rd.pass(t, LINE);
                    self.switch_rd.pass(t, LINE)
                }
                Mem::Host => {
                    let t = self.switch_rd.pass(now + self.switch_lat, 0);
                    let t = self.pcie_up.pass(t, DMA_OVERHEAD) + 2 * self.pcie_lat;
                    let t = self.host_side_read(line, t);
                    let t = self.pcie_down.pass(t, LINE + DMA_OVERHEAD);
                    self.switch_rd.pass(t, LINE)
                }
            };
            done = done.max(t);
        }
        done
    }

    /// Idle latency of a DPA load of DPA memory at `addr` (missing its L1)
    /// from wherever the line is now, without touching any cache: the
    /// packet-recency probe (Fig 11).
    pub fn dpa_probe_latency(&self, addr: u64) -> Time {
        let line = addr / LINE;
        let mut t = self.dpa.l1_lat + self.dpa_l2_lat;
        if self.dpa_l2.find(line).is_some() {
            return t;
        }
        t += self.dpa_l3_lat;
        if self.dpa_l3.find(line).is_some() {
            return t;
        }
        t += self.switch_lat + self.arm_l3_lat;
        if self.arm_l3.find(line).is_some() {
            return t;
        }
        t + self.arm_dram.idle_latency()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The NIC's writes to host memory allocate in the host LLC's DDIO
    /// ways; with DDIO off (`llc.ddio_ways = 0`) they go to DRAM and leave
    /// no line behind (the model once kept a DDIO way regardless).
    #[test]
    fn with_ddio_off_the_nics_writes_to_host_memory_allocate_nothing() {
        for (ways, cached) in [(2, true), (0, false)] {
            let c = crate::run::validated(&serde_json::json!({"sim": {"kind": "dpa"}, "llc": {"ddio_ways": ways}})).unwrap();
            let mut m = MemSys::new(&c);
            let addr = Mem::Host.base() + (1 << 20);
            m.nic_write(addr, 64, 0);
            assert_eq!(m.host_l3.find(addr / LINE).is_some(), cached, "llc.ddio_ways = {ways}");
        }
    }

    /// A host core's load that misses every level costs `dram.latency`
    /// idle, the whole load-to-use (MLC's), its lookups included.
    #[test]
    fn a_host_loads_miss_costs_the_idle_dram_latency() {
        let c = crate::run::validated(&serde_json::json!({"sim": {"kind": "dpa"}})).unwrap();
        let mut m = MemSys::new(&c);
        let lat = m.load(Proc::Host, 0, 0, Mem::Host.base() + (1 << 20), 1_000_000) - 1_000_000;
        assert!(lat >= c.dram.latency && lat <= c.dram.latency + 3_000, "{lat} vs {}", c.dram.latency);
    }
}
