//! packetpath engine: a discrete-event model of the server network I/O path —
//! wire, NIC, PCIe, LLC with DDIO, DRAM and cores — in integer picoseconds.
//!
//! No Python here. The one entry point for front ends is [`api`]: a scenario
//! (JSON) goes in once, a report (JSON) comes out.
//!
//! Floors, each using only those below it: `units`, `sim` (events, random
//! streams, the progress guard), `metrics` (the report's metric table);
//! `config` (the parameter table and its typed sections), `wire`, `report`
//! (plain result types); the components `mem`, `pcie`, `rings`, `cpu`,
//! `nf`, `traffic`, `nic`, `devices` (with their own run kinds), each
//! built from its own sections; `run` (the other simulators, one per
//! `sim.kind`, and the checks that need components); `api`.

pub mod api;
pub mod config;
pub mod cpu;
pub mod devices;
pub mod mem;
pub mod metrics;
pub mod nf;
pub mod nic;
pub mod pcie;
pub mod report;
pub mod rings;
pub mod run;
pub mod sim;
pub mod traffic;
pub mod units;
pub mod wire;
