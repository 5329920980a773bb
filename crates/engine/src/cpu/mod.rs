//! Host cores running DPDK-style run-to-completion poll loops, and the
//! software around them that shapes memory traffic (the mempool).
//!
//! A core's state between polls lives here; the poll itself, which touches
//! the NIC's rings and the memory system, is in `run::packet::core`.

pub mod mempool;
pub mod wc;

use crate::nic::PktRef;
use crate::units::Time;
use std::collections::VecDeque;

pub struct Core {
    pub nic: usize,
    /// Queue index on its NIC (= Rx and Tx queue it owns).
    pub queue: usize,
    /// Index of this core among its NIC's cores (its mempool cache).
    pub local: usize,
    /// No poll is scheduled; an Rx completion or Tx completion wakes it.
    pub sleeping: bool,
    /// Packets waiting for room in the Tx ring (FastClick's queue).
    pub sw_queue: VecDeque<PktRef>,
    /// Polls that received packets, and when the last one started
    /// (dshRing's Rx-call intervals).
    pub rx_calls: u64,
    pub last_rx_at: Time,
    /// Scratch: Rx indices re-armed in the current poll.
    pub re_armed: Vec<u64>,
    /// Measured time spent handing descriptors back (shared-ring sync).
    pub sync_ps: Time,
    /// Busy time in the measured window, and the part spent on polls that
    /// received packets.
    pub busy_ps: Time,
    pub pkt_ps: Time,
}

impl Core {
    pub fn new(nic: usize, queue: usize, local: usize) -> Core {
        Core {
            nic,
            queue,
            local,
            sleeping: true,
            sw_queue: VecDeque::new(),
            rx_calls: 0,
            last_rx_at: 0,
            re_armed: vec![],
            sync_ps: 0,
            busy_ps: 0,
            pkt_ps: 0,
        }
    }
}

/// Memory stall of a burst: independent misses overlap up to the core's
/// memory-level parallelism, but never finish faster than the slowest one.
/// A dependent chain (each load's address from the one before) is serial
/// and overlaps nothing: behind a DRAM miss of ~200 cycles the 224-entry
/// reorder buffer (Skylake, Intel Optimization Manual 2.2) fills within
/// ~60 cycles of issue, so little work after the chain runs under it.
#[derive(Default, Clone, Copy)]
pub struct Stall {
    sum: Time,
    max: Time,
    serial: Time,
}

impl Stall {
    #[inline]
    pub fn add(&mut self, lat: Time) {
        self.sum += lat;
        self.max = self.max.max(lat);
    }
    /// A stretch of dependent work: loads and the compute between them.
    #[inline]
    pub fn chain(&mut self, t: Time) {
        self.serial += t;
    }
    pub fn total(&self, mlp: u64) -> Time {
        self.serial + (self.sum / mlp.max(1)).max(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stall_overlaps_up_to_mlp() {
        let mut s = Stall::default();
        for _ in 0..10 {
            s.add(100);
        }
        assert_eq!(s.total(10), 100);
        assert_eq!(s.total(5), 200);
        assert_eq!(s.total(1), 1000);
    }

    #[test]
    fn a_chain_adds_to_the_overlapped_misses() {
        let mut s = Stall::default();
        s.add(100);
        s.add(100);
        s.chain(500);
        assert_eq!(s.total(10), 600);
        assert_eq!(s.total(1), 700);
    }
}
