//! Network functions a core runs on each packet, expressed as the memory
//! they touch and the cycles they compute:
//! - `l2fwd`: swap MAC addresses (read and write the header line);
//! - `l3fwd`: longest-prefix match on the destination (rte_lpm layout),
//!   rewrite the header;
//! - `workpackage`: FastClick's WorkPackage, N random reads over an S-byte
//!   buffer per packet.

pub mod lpm;

use crate::cpu::Stall;
use crate::mem::Memory;
use crate::nic::PktRef;
use crate::sim::Rng;
use crate::units::Time;
use lpm::Lpm;
use rand::Rng as _;

pub enum Nf {
    L2fwd,
    L3fwd(Lpm),
    WorkPackage { base: u64, size: u64, reads: u32 },
}

impl Nf {
    /// Touch what the NF touches for `pkt` whose data starts at `data`;
    /// memory latencies go to `stall`.
    #[allow(clippy::too_many_arguments)]
    pub fn process(&self, core: usize, pkt: &PktRef, data: u64, mem: &mut Memory, rng: &mut Rng, now: Time, stall: &mut Stall) {
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
                    stall.add(mem.core_access(core, base + off, false, now));
                }
            }
        }
        // MAC swap / TTL and MAC rewrite: the header line is written.
        stall.add(mem.core_access(core, data, true, now));
    }
}
