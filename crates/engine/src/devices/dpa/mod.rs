//! BlueField-3: the host, the 16 off-path Arm cores and the datapath
//! accelerator (DPA, 16 in-order RV64 cores x 16 hardware threads) with the
//! memory paths between them (the DPA paper's Fig 4).
//!
//! - [`hop`]: one step of a memory path: latency plus a shared bandwidth
//!   limit (a pipe) or a limit on outstanding requests (tags);
//! - [`memsys`]: the caches (per-thread DPA L1, shared DPA L2/L3, Arm and
//!   host hierarchies), DRAMs and the hops, and the path each access takes;
//! - [`cores`]: threads interleaving on a core's issue slots.

pub mod cores;
pub mod hop;
pub mod memsys;

/// Which processor runs a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proc {
    Host,
    Arm,
    Dpa,
}

/// Which memory a buffer lives in. DPA memory is a region of the Arm DRAM
/// reserved for the DPA; it is cached in the DPA L2/L3 as well as the Arm L3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mem {
    Host,
    Arm,
    Dpa,
}

impl Proc {
    pub fn parse(s: &str) -> Proc {
        match s {
            "host" => Proc::Host,
            "arm" => Proc::Arm,
            _ => Proc::Dpa,
        }
    }
}

impl Mem {
    pub fn parse(s: &str) -> Option<Mem> {
        match s {
            "host" => Some(Mem::Host),
            "arm" => Some(Mem::Arm),
            "dpa" => Some(Mem::Dpa),
            _ => None,
        }
    }
    /// Each memory is a 16 GiB window of the model's physical address space.
    pub fn base(self) -> u64 {
        (self as u64) << 34
    }
    pub fn of(addr: u64) -> Mem {
        match addr >> 34 {
            0 => Mem::Host,
            1 => Mem::Arm,
            _ => Mem::Dpa,
        }
    }
}
