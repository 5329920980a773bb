//! Host cores running DPDK-style run-to-completion poll loops, and the
//! software around them that shapes memory traffic (the mempool).
//!
//! A core's state between polls lives here; the poll itself, which touches
//! the NIC's rings and the memory system, is in `run::packet::core`.

pub mod fill;
pub mod memloop;
pub mod mempool;
pub mod wc;

use crate::config::CpuCfg;
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
    /// The frames of its latest poll that took any are its until then
    /// (`Time::MAX` while that poll is still working).
    pub frames_until: Time,
    /// When a DRAM read of the poll in hand last came back (with the
    /// controllers: a poll still working is waiting for them).
    pub read_back_at: Time,
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
            frames_until: 0,
            read_back_at: 0,
        }
    }
}

/// Lines a copy loop keeps in flight. Each line is `64 / copy_move` loads
/// and as many stores, and every one holds an entry until it retires (a
/// load) or reaches the L1D (a store): the reorder buffer, the load buffer
/// and the store buffer each bound the lines in flight, and so do the L1D
/// fill buffers (`mlp`). On Skylake-class cores with 32 B moves the fill
/// buffers bind; on a small core copying 8 B at a time the buffers do.
pub fn copy_window(c: &CpuCfg) -> u64 {
    let moves = 64u64.div_ceil(c.copy_move.max(1));
    c.mlp
        .min(c.load_buffer / moves)
        .min(c.store_buffer / moves)
        .min(c.rob / (2 * moves))
        .max(1)
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
    /// A load (or a locked read-modify-write): the core waits for it.
    #[inline]
    pub fn add(&mut self, lat: Time) {
        self.sum += lat;
        self.max = self.max.max(lat);
    }
    /// A store: it retires into the store buffer and nothing waits for it,
    /// but its read for ownership holds a fill buffer as long as a load's
    /// miss would (Intel Optimization Manual: the L1D's fill buffers serve
    /// loads and RFOs alike), so it counts in the overlapped sum only. (A
    /// full store buffer would stall the core; it drains at the fill
    /// buffers' rate, which the sum already bounds.) A fence waits for
    /// every store before it: a packet poll's stores are all followed by
    /// the Tx doorbell's (DPDK's `rte_wmb`, an SFENCE on x86, before the
    /// MMIO write), so they are `add`ed there; memory loops and copies
    /// fence at their end only.
    #[inline]
    pub fn store(&mut self, lat: Time) {
        self.sum += lat;
    }
    /// A load or a store.
    #[inline]
    pub fn access(&mut self, lat: Time, write: bool) {
        if write {
            self.store(lat)
        } else {
            self.add(lat)
        }
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
    fn a_store_holds_a_fill_buffer_but_nothing_waits_for_it() {
        let mut s = Stall::default();
        s.add(10);
        s.store(200);
        assert_eq!(s.total(10), 21, "the load's 10, and the RFO's share of the buffers");
        assert_eq!(s.total(1), 210);
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

    fn cpu(v: serde_json::Value) -> CpuCfg {
        crate::run::validated(&serde_json::json!({ "cpu": v })).unwrap().cpu
    }

    /// Skylake's buffers with 32 B moves leave the 10 fill buffers binding;
    /// the NetDIMM paper's gem5 core (Table 1: ROB 40, LQ/SQ 16, 6 MSHRs)
    /// copying 8 B at a time keeps 16 / 8 = 2 lines in flight.
    #[test]
    fn copy_window_is_the_tightest_of_the_core_buffers() {
        assert_eq!(copy_window(&cpu(serde_json::json!({}))), 10);
        let gem5 = serde_json::json!({"mlp": 6, "rob": 40, "load_buffer": 16, "store_buffer": 16, "copy_move": 8});
        assert_eq!(copy_window(&cpu(gem5.clone())), 2);
        // with 16 B moves the ROB binds: 40 / (4 + 4) = 5, the LQ 16 / 4 = 4
        let mut sse = gem5.clone();
        sse["copy_move"] = 16.into();
        assert_eq!(copy_window(&cpu(sse.clone())), 4);
        sse["load_buffer"] = 64.into();
        sse["store_buffer"] = 64.into();
        assert_eq!(copy_window(&cpu(sse)), 5);
        // a one-entry store buffer still copies a line at a time
        let mut tiny = gem5;
        tiny["store_buffer"] = 1.into();
        assert_eq!(copy_window(&cpu(tiny)), 1);
    }
}
