//! BlueField-3: the host, the 16 off-path Arm cores and the datapath
//! accelerator (DPA, 16 in-order RV64 cores x 16 hardware threads) with the
//! memory paths between them (the DPA paper's Fig 4).
//!
//! - [`hop`]: one step of a memory path: latency plus a shared bandwidth
//!   limit (a pipe) or a limit on outstanding requests (tags);
//! - [`memsys`]: the caches (per-thread DPA L1, shared DPA L2/L3, Arm and
//!   host hierarchies), DRAMs and the hops, and the path each access takes;
//! - [`cores`]: threads interleaving on a core's issue slots;
//! - [`bench`]: the paper's workloads on them (`sim.kind = dpa`).

pub mod bench;
pub mod check;
pub mod cores;
pub mod hop;
pub mod memsys;

use crate::config::{DpaBenchMem, DpaBenchMem2, DpaBenchNetBuf, DpaBenchProc};

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

impl From<DpaBenchProc> for Proc {
    fn from(p: DpaBenchProc) -> Proc {
        match p {
            DpaBenchProc::Host => Proc::Host,
            DpaBenchProc::Arm => Proc::Arm,
            DpaBenchProc::Dpa => Proc::Dpa,
        }
    }
}

impl From<DpaBenchMem> for Mem {
    fn from(m: DpaBenchMem) -> Mem {
        match m {
            DpaBenchMem::Host => Mem::Host,
            DpaBenchMem::Arm => Mem::Arm,
            DpaBenchMem::Dpa => Mem::Dpa,
        }
    }
}

impl From<DpaBenchNetBuf> for Mem {
    fn from(m: DpaBenchNetBuf) -> Mem {
        match m {
            DpaBenchNetBuf::Host => Mem::Host,
            DpaBenchNetBuf::Arm => Mem::Arm,
            DpaBenchNetBuf::Dpa => Mem::Dpa,
        }
    }
}

impl std::fmt::Display for Mem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mem::Host => "host",
            Mem::Arm => "arm",
            Mem::Dpa => "dpa",
        })
    }
}

impl Mem {
    /// `dpa_bench.mem2`: the second memory of a mixed-memory bandwidth run, if any.
    pub fn second(m: DpaBenchMem2) -> Option<Mem> {
        match m {
            DpaBenchMem2::Off => None,
            DpaBenchMem2::Host => Some(Mem::Host),
            DpaBenchMem2::Arm => Some(Mem::Arm),
            DpaBenchMem2::Dpa => Some(Mem::Dpa),
        }
    }
    /// The memory a workload's buffer lives in: host and Arm threads use
    /// their own memory; DPA threads `dpa_choice`, the one named.
    pub fn of_buffer(proc: Proc, dpa_choice: Mem) -> Mem {
        match proc {
            Proc::Host => Mem::Host,
            Proc::Arm => Mem::Arm,
            Proc::Dpa => dpa_choice,
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
