//! Attachments beyond a PCIe NIC.

pub mod dpa;
