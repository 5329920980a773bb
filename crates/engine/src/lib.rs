//! packetpath engine: a discrete-event model of the server network I/O path —
//! wire, NIC, PCIe, LLC with DDIO, DRAM and cores — in integer picoseconds.
//!
//! No Python here. The one entry point for front ends is [`api`]: a scenario
//! (JSON) goes in once, a report (JSON) comes out.

pub mod api;
pub mod params;
pub mod units;
pub mod mem;
pub mod sim;
pub mod cpu;
pub mod nf;
pub mod nic;
pub mod report;
pub mod world;
pub mod pcie;
pub mod traffic;
pub mod wire;
pub mod rings;
pub mod devices;
