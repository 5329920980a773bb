//! Attachments beyond a PCIe NIC: devices that reach the host some other way
//! and share its cores, caches and DRAM. Each holds its own experiment as a
//! run kind: `dpa::bench` (`sim.kind = dpa`), `netdimm::system`
//! (`sim.kind = netdimm`, the two hosts of the paper's latency model).

pub mod dpa;
pub mod netdimm;
