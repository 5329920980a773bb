//! Network functions a core runs on each packet, expressed as the memory
//! they touch and the cycles they compute:
//! - `l2fwd`: swap MAC addresses (read and write the header line);
//! - `l3fwd`: longest-prefix match on the destination (rte_lpm layout),
//!   rewrite the header;
//! - `workpackage`: FastClick's WorkPackage, a chain of N dependent random
//!   reads over an S-byte array per packet after W random draws, optionally
//!   reading or overwriting the payload (as the shRing paper modified it);
//! - `nat`: per-core cuckoo flow table (rte_hash layout), two entries per
//!   flow (one per direction), source IP and port rewritten; new flows get
//!   the next free port;
//! - `lb`: per-core cuckoo flow table mapping each flow to one of N
//!   backends, round-robin for new flows (the nicmem paper's NFs);
//! - `flowcount`: per-core cuckoo table of per-flow byte and packet
//!   counters, updated on every packet (the nicmem paper's accelNFV
//!   comparison, Sec. 6.7);
//! - `nat_lb`: NAT then LB on every packet, each with its own per-core
//!   table (the DDIO paper's stateful service chain, Sec. 6: NAPT and a
//!   round-robin load balancer, routing offloaded to the NIC).

pub mod flowtable;
pub mod kvs;
pub mod lpm;
pub mod nmkvs;
pub mod workpackage;

use crate::config::{AppCfg, AppNf, AppWpPayload, Cfg};
use crate::cpu::Stall;
use crate::mem::{AddressMap, Memory};
use crate::nic::PktRef;
use crate::sim::{rng, stream, Rng};
use crate::units::cycles_to_ps;
use rand::Rng as _;
use workpackage::WorkPackage;
use crate::units::Time;
use flowtable::{FlowTable, Record, Touched, Unpriced};
use lpm::Lpm;

pub enum Nf {
    L2fwd,
    L3fwd(Lpm),
    WorkPackage(workpackage::WorkPackage),
    /// One flow table per core (index = core id) and the next free port.
    Nat {
        tables: Vec<FlowTable>,
        next_port: Vec<u32>,
    },
    /// One flow table per core, the backend count and each core's round-robin pointer.
    Lb {
        tables: Vec<FlowTable>,
        backends: u32,
        next: Vec<u32>,
    },
    /// One table of per-flow counters per core.
    FlowCount {
        tables: Vec<FlowTable>,
    },
    /// A MICA-like key-value server (served by `Kvs::serve`, not `process`).
    Kvs(kvs::Kvs),
    /// NFs applied in order to the same packet (`nat_lb`): each keeps its
    /// own state and reads and rewrites the header.
    Chain(Vec<Nf>),
}

/// The reverse-direction key of a NAT flow.
const REVERSE: u64 = 1 << 63;

pub use kvs::Cost;

impl Nf {
    /// Serve `pkt` whose data starts at `data`: touch what the NF touches,
    /// its memory latencies to `stall`; the KVS turns the request into its
    /// response in place. Returns the work beyond the stalls (copies).
    /// `scratch` collects a flow-table NF's touched lines (reused, so a
    /// packet allocates nothing).
    #[allow(clippy::too_many_arguments)]
    pub fn serve(
        &mut self,
        core: usize,
        pkt: &mut PktRef,
        data: u64,
        mem: &mut Memory,
        rng: &mut Rng,
        now: Time,
        stall: &mut Stall,
        scratch: &mut Touched,
    ) -> Cost {
        match self {
            Nf::Kvs(kv) => return kv.serve(core, pkt, data, mem, now, stall),
            // Each element reads and rewrites the header itself (NAT its
            // addresses and port, LB its destination).
            Nf::Chain(nfs) => {
                for nf in nfs {
                    nf.serve(core, pkt, data, mem, rng, now, stall, scratch);
                }
                return Cost::default();
            }
            _ => {}
        }
        stall.add(mem.core_access(core, data, false, now));
        match self {
            Nf::L2fwd => {}
            Nf::L3fwd(lpm) => {
                let l = lpm.lookup(pkt.dst_ip);
                for &a in &l.reads[..l.n_reads] {
                    stall.add(mem.core_access(core, a, false, now));
                }
            }
            Nf::WorkPackage(wp) => wp.process(core, pkt, data, mem, rng, now, stall),
            Nf::Nat { .. } | Nf::Lb { .. } | Nf::FlowCount { .. } => {
                scratch.addrs.clear();
                self.flow_state(core, pkt.flow, rng, scratch, false);
                touch(mem, core, scratch, now, stall);
            }
            Nf::Kvs(_) | Nf::Chain(_) => unreachable!("served above"),
        }
        // MAC swap / TTL and MAC rewrite: the header line is written.
        stall.add(mem.core_access(core, data, true, now));
        Cost::default()
    }

    /// A packet the NF served has left it, sent (its Tx completion) or
    /// dropped: a zero-copy KVS response gives its stable buffer's
    /// reference back.
    #[inline]
    pub fn released(&mut self, core: usize, pkt: &PktRef, mem: &mut Memory, now: Time, stall: &mut Stall) {
        if let Nf::Kvs(kv) = self {
            kv.tx_complete(core, pkt.kvs, mem, now, stall);
        }
    }

    /// References held to stable buffers (the KVS's zero-copy responses),
    /// which must equal the responses naming one that are still queued;
    /// None for an NF that holds none.
    pub fn buffer_refs(&self) -> Option<u64> {
        match self {
            Nf::Kvs(kv) => Some(kv.hot.iter().map(|h| h.refs as u64).sum()),
            _ => None,
        }
    }
}

impl Nf {
    /// The network function `app.nf` names, its tables and arrays at
    /// addresses from `map`, for `cores` packet cores in all (the NAT, LB
    /// and counter keep a table per core).
    pub fn build(c: &Cfg, map: &mut AddressMap, cores: usize) -> Nf {
        let cores_per_nic = c.cpu.cores as usize;
        match c.app.nf {
            AppNf::L3fwd => {
                let routes = l3fwd_routes(c);
                let tbl24 = map.alloc((1 << 24) * 4, 1 << 21);
                // tbl8's size is known once the routes are in.
                let mut lpm = Lpm::new(&routes, 0, tbl24, 0);
                lpm.tbl8_addr = map.alloc(lpm.tbl8_bytes(), 4096);
                Nf::L3fwd(lpm)
            }
            AppNf::Workpackage => Nf::WorkPackage(WorkPackage {
                base: map.alloc(c.app.wp_size, 4096),
                size: c.app.wp_size,
                reads: c.app.wp_reads as u32,
                payload: match c.app.wp_payload {
                    AppWpPayload::Read => Some(false),
                    AppWpPayload::Write => Some(true),
                    AppWpPayload::Off => None,
                },
                slow_reads: c.app.slow_core_reads as u32,
                cores_per_nic,
                draws_ps: cycles_to_ps(c.app.wp_draws * c.app.wp_draw_cycles, c.cpu.freq),
                // One XOR with the loaded word, then the division.
                step_ps: cycles_to_ps(1 + c.cpu.div_cycles, c.cpu.freq),
                chain: c.app.wp_chain,
                mlp: c.cpu.mlp as u32,
            }),
            nf @ (AppNf::Nat | AppNf::Lb | AppNf::Flowcount | AppNf::NatLb) => {
                let entries = c.app.flow_table_size;
                let (b, k) = FlowTable::footprint(entries);
                let mut tables = || {
                    (0..cores)
                        .map(|_| FlowTable::new(entries, map.alloc(b, 4096), map.alloc(k, 4096)))
                        .collect()
                };
                let nat = |tables| Nf::Nat {
                    tables,
                    next_port: vec![1024; cores],
                };
                let lb = |tables| Nf::Lb {
                    tables,
                    backends: c.app.lb_backends as u32,
                    next: vec![0; cores],
                };
                match nf {
                    AppNf::Nat => nat(tables()),
                    AppNf::Lb => lb(tables()),
                    AppNf::Flowcount => Nf::FlowCount { tables: tables() },
                    AppNf::NatLb => Nf::Chain(vec![nat(tables()), lb(tables())]),
                    _ => unreachable!("the arm matched a stateful NF"),
                }
            }
            AppNf::Kvs => {
                let items = c.traffic.flows;
                let value = c.kvs.value_size;
                let vbuf = value.next_multiple_of(64);
                let hot = (c.kvs.hot_area / vbuf) as usize;
                let slot = (64 + 128 + value).next_multiple_of(64);
                // MICA's index: buckets of 64 B, about 8 items each.
                let buckets = items.div_ceil(8).next_power_of_two();
                Nf::Kvs(kvs::Kvs {
                    log_base: map.alloc(items * slot, 4096),
                    index_base: map.alloc(buckets * 64, 4096),
                    buckets,
                    stack_base: map.alloc(cores as u64 * vbuf, 4096),
                    meta_base: map.alloc(hot as u64 * 64 + 64, 4096),
                    pending_base: map.alloc(hot as u64 * vbuf + 64, 4096),
                    value,
                    hot: vec![nmkvs::HotItem::new(0); hot],
                    version: vec![0; hot],
                })
            }
            AppNf::L2fwd => Nf::L2fwd,
        }
    }
}

/// Routes of the l3fwd table: mostly /24s as in Internet tables, some
/// shorter and some longer prefixes, plus a default route; the traffic's
/// destination prefixes are among them so lookups exercise real entries.
fn l3fwd_routes(c: &Cfg) -> Vec<(u32, u8, u16)> {
    let nics = c.nic.count as usize;
    let mut r = rng(c.sim.seed, stream::ROUTES, 0);
    let n = c.app.l3fwd_routes as usize;
    let mut routes = Vec::with_capacity(n + nics * 2);
    // The traffic's servers sit in 198.18.0.0/15 (RFC 2544 range): one /24
    // route each, so every destination matches a real entry.
    for i in 0..512u32 {
        routes.push((0xC612_0000 | i << 8, 24, (i as usize % nics) as u16));
    }
    while routes.len() < n {
        let len = match r.gen_range(0..100) {
            0..=69 => 24,
            70..=84 => r.gen_range(16..24),
            _ => r.gen_range(25..=32),
        };
        routes.push((r.gen::<u32>(), len, r.gen_range(0..nics as u16)));
    }
    routes
}

/// A packet's compute beyond its table accesses: `app.nf_cycles`, plus
/// FastClick's NAT and LB element graphs where the NF runs them.
pub fn compute_cycles(app: &AppCfg) -> u64 {
    app.nf_cycles
        + match app.nf {
            AppNf::Nat => app.nat_cycles,
            AppNf::Lb => app.lb_cycles,
            AppNf::NatLb => app.nat_cycles + app.lb_cycles,
            AppNf::L2fwd | AppNf::L3fwd | AppNf::Workpackage | AppNf::Flowcount | AppNf::Kvs => 0,
        }
}

/// Flow tables (`app.flow_table_size` entries each) every core keeps for
/// the NF named `nf` (`app.nf`): NAT, LB and the flow counter one, the
/// NAT + LB chain two. The parameter checks size host memory by it before
/// the NF exists.
pub fn flow_tables_per_core(nf: AppNf) -> u64 {
    match nf {
        AppNf::Nat | AppNf::Lb | AppNf::Flowcount => 1,
        AppNf::NatLb => 2,
        AppNf::L2fwd | AppNf::L3fwd | AppNf::Workpackage | AppNf::Kvs => 0,
    }
}

/// Entries one flow takes in the fullest of its core's tables (NAT keeps
/// both directions; LB and the counters one).
pub fn entries_per_flow(nf: AppNf) -> u64 {
    match nf {
        AppNf::Nat | AppNf::NatLb => 2,
        AppNf::Lb | AppNf::Flowcount => 1,
        AppNf::L2fwd | AppNf::L3fwd | AppNf::Workpackage | AppNf::Kvs => 0,
    }
}

impl Nf {
    /// Look up `flow` in `core`'s table, installing it on a miss (NAT: the
    /// next free port, both directions; LB: the next backend round-robin).
    /// The table lines touched are recorded in `t`. A flow known to be new
    /// skips the lookup.
    fn flow_state(
        &mut self,
        core: usize,
        flow: u32,
        rng: &mut Rng,
        t: &mut impl Record,
        known_new: bool,
    ) {
        let key = flow as u64;
        let (Nf::Nat { tables, .. } | Nf::Lb { tables, .. } | Nf::FlowCount { tables }) = self
        else {
            return;
        };
        let found = !known_new && tables[core].lookup(key, t).is_some();
        match self {
            Nf::Nat { tables, next_port } if !found => {
                let port = next_port[core];
                next_port[core] = port.wrapping_add(1);
                tables[core].insert(key, port, rng, t);
                tables[core].insert(key | REVERSE, port, rng, t);
            }
            Nf::Lb {
                tables,
                backends,
                next,
            } if !found => {
                let b = next[core] % *backends;
                next[core] = next[core].wrapping_add(1);
                tables[core].insert(key, b, rng, t);
            }
            Nf::FlowCount { tables } => {
                if !found {
                    tables[core].insert(key, 0, rng, t);
                }
                // The counters live in the flow's key entry: written back.
                if let Some((line, _)) = t.last() {
                    t.note(line, true);
                }
            }
            _ => {}
        }
    }

    /// Prefetch the host memory installing `flow` in `core`'s table will
    /// read (bulk preloading runs a few flows ahead).
    #[inline]
    pub fn prefetch_flow(&self, core: usize, flow: u32) {
        match self {
            Nf::Chain(nfs) => nfs.iter().for_each(|nf| nf.prefetch_tables(core, flow)),
            nf => nf.prefetch_tables(core, flow),
        }
    }

    /// [`Nf::prefetch_flow`] for one NF (not recursive, so it inlines).
    #[inline(always)]
    fn prefetch_tables(&self, core: usize, flow: u32) {
        if let Nf::Nat { tables, .. } | Nf::Lb { tables, .. } | Nf::FlowCount { tables } = self {
            tables[core].prefetch(flow as u64);
            if matches!(self, Nf::Nat { .. }) {
                tables[core].prefetch(flow as u64 | REVERSE);
            }
        }
    }

    /// Install `flow`, new to `core`'s table, without pricing memory: the
    /// state of an NF that has run long enough to have seen every flow.
    pub fn preload(&mut self, core: usize, flow: u32, rng: &mut Rng) {
        if let Nf::Chain(nfs) = self {
            return nfs.iter_mut().for_each(|nf| nf.preload(core, flow, rng));
        }
        self.flow_state(core, flow, rng, &mut Unpriced, true);
    }
}

/// Price the flow-table lines an NF read or wrote.
fn touch(mem: &mut Memory, core: usize, t: &Touched, now: Time, stall: &mut Stall) {
    for &(addr, write) in &t.addrs {
        stall.add(mem.core_access(core, addr, write, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chain touches what NAT alone and LB alone touch, each reading
    /// and rewriting the header.
    #[test]
    fn a_chain_touches_what_its_elements_touch() {
        let (b, k) = FlowTable::footprint(1024);
        let at = |i: u64| FlowTable::new(1024, i * (b + k), i * (b + k) + b);
        let nat = || Nf::Nat {
            tables: vec![at(1)],
            next_port: vec![1024],
        };
        let lb = || Nf::Lb {
            tables: vec![at(2)],
            backends: 32,
            next: vec![0],
        };
        let accesses = |mut nf: Nf| {
            let c = crate::run::validated(&serde_json::json!({})).unwrap();
            let mut mem = Memory::new(&c.mem, &c.llc, &c.l1d, &c.l2, &c.dram, c.sim.seed, vec![0x7ff]);
            let (mut r, mut scratch) = (crate::sim::rng(1, 0, 0), Touched::default());
            for f in 0..100 {
                nf.preload(0, f, &mut r);
            }
            let mut pkt = PktRef { flow: 7, ..Default::default() };
            nf.serve(0, &mut pkt, 1 << 30, &mut mem, &mut r, 0, &mut Stall::default(), &mut scratch);
            let s = mem.stats;
            s.core_l1_hits + s.core_l2_hits + s.core_llc_hits + s.core_llc_misses
        };
        let (n, l, chain) = (accesses(nat()), accesses(lb()), accesses(Nf::Chain(vec![nat(), lb()])));
        assert!(n > 2 && l > 2, "each NF reads its table: {n}, {l}");
        assert_eq!(chain, n + l);
    }

    #[test]
    fn preloading_installs_each_flow_as_its_first_packet_would() {
        let (b, k) = FlowTable::footprint(1024);
        let table = || FlowTable::new(1024, 0, b + k);
        let mut r = crate::sim::rng(1, 0, 0);
        let mut nat = Nf::Nat {
            tables: vec![table()],
            next_port: vec![1024],
        };
        let mut lb = Nf::Lb {
            tables: vec![table()],
            backends: 32,
            next: vec![0],
        };
        for f in 0..100 {
            nat.preload(0, f, &mut r);
            lb.preload(0, f, &mut r);
        }
        let (
            Nf::Nat {
                tables: nt,
                next_port,
            },
            Nf::Lb {
                tables: lt, next, ..
            },
        ) = (&nat, &lb)
        else {
            unreachable!()
        };
        // NAT: both directions, ports handed out in order; LB: round-robin.
        assert_eq!((nt[0].len(), next_port[0]), (200, 1124));
        assert_eq!((lt[0].len(), next[0]), (100, 100));
        let mut t = Touched::default();
        assert_eq!(nt[0].lookup(7 | REVERSE, &mut t), Some(1031));
        assert_eq!(lt[0].lookup(40, &mut t), Some(40 % 32));
    }
}
