//! Network functions a core runs on each packet, expressed as the memory
//! they touch and the cycles they compute:
//! - `l2fwd`: swap MAC addresses (read and write the header line);
//! - `l3fwd`: longest-prefix match on the destination (rte_lpm layout),
//!   rewrite the header;
//! - `workpackage`: FastClick's WorkPackage, N random reads over an S-byte
//!   buffer per packet;
//! - `nat`: per-core cuckoo flow table (rte_hash layout), two entries per
//!   flow (one per direction), source IP and port rewritten; new flows get
//!   the next free port;
//! - `lb`: per-core cuckoo flow table mapping each flow to one of N
//!   backends, round-robin for new flows (the nicmem paper's NFs).

pub mod flowtable;
pub mod lpm;

use crate::cpu::Stall;
use crate::mem::Memory;
use crate::nic::PktRef;
use crate::sim::Rng;
use crate::units::Time;
use flowtable::{FlowTable, Touched};
use lpm::Lpm;
use rand::Rng as _;

pub enum Nf {
    L2fwd,
    L3fwd(Lpm),
    WorkPackage { base: u64, size: u64, reads: u32 },
    /// One flow table per core (index = core id) and the next free port.
    Nat { tables: Vec<FlowTable>, next_port: Vec<u32> },
    /// One flow table per core, the backend count and each core's round-robin pointer.
    Lb { tables: Vec<FlowTable>, backends: u32, next: Vec<u32> },
}

/// The reverse-direction key of a NAT flow.
const REVERSE: u64 = 1 << 63;

impl Nf {
    /// Touch what the NF touches for `pkt` whose data starts at `data`;
    /// memory latencies go to `stall`.
    #[allow(clippy::too_many_arguments)]
    pub fn process(&mut self, core: usize, pkt: &PktRef, data: u64, mem: &mut Memory, rng: &mut Rng, now: Time, stall: &mut Stall) {
        stall.add(mem.core_access(core, data, false, now));
        match self {
            Nf::L2fwd => {}
            Nf::L3fwd(lpm) => {
                let l = lpm.lookup(pkt.dst_ip);
                for &a in &l.reads[..l.n_reads] {
                    stall.add(mem.core_access(core, a, false, now));
                }
            }
            Nf::WorkPackage { base, size, reads } => {
                for _ in 0..*reads {
                    let off = rng.gen_range(0..*size / 64) * 64;
                    stall.add(mem.core_access(core, *base + off, false, now));
                }
            }
            Nf::Nat { tables, next_port } => {
                let mut t = Touched::default();
                let key = pkt.flow as u64;
                if tables[core].lookup(key, &mut t).is_none() {
                    let port = next_port[core];
                    next_port[core] = port.wrapping_add(1);
                    tables[core].insert(key, port, rng, &mut t);
                    tables[core].insert(key | REVERSE, port, rng, &mut t);
                }
                touch(mem, core, &t, now, stall);
            }
            Nf::Lb { tables, backends, next } => {
                let mut t = Touched::default();
                let key = pkt.flow as u64;
                if tables[core].lookup(key, &mut t).is_none() {
                    let b = next[core] % *backends;
                    next[core] = next[core].wrapping_add(1);
                    tables[core].insert(key, b, rng, &mut t);
                }
                touch(mem, core, &t, now, stall);
            }
        }
        // MAC swap / TTL and MAC rewrite: the header line is written.
        stall.add(mem.core_access(core, data, true, now));
    }
}

/// Price the flow-table lines an NF read or wrote.
fn touch(mem: &mut Memory, core: usize, t: &Touched, now: Time, stall: &mut Stall) {
    for &(addr, write) in &t.addrs {
        stall.add(mem.core_access(core, addr, write, now));
    }
}
