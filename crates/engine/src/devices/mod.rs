//! Attachments beyond a PCIe NIC: devices that reach the host some other way
//! and share its cores, caches and DRAM.

pub mod dpa;
pub mod netdimm;
