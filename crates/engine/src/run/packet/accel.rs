//! accelNFV (nicmem paper Sec. 6.7): the NIC itself runs a per-flow
//! byte/packet counter on a hairpin path. Frames never reach the host's
//! queues; each one needs its flow's context in the NIC's bounded context
//! cache. A miss writes the evicted context back to host memory and reads
//! the missing one over PCIe, and the NIC's in-order flow engine waits for
//! it, so misses bound the packet rate; frames queue in the Rx buffer and
//! drop when it is full.

use super::{Host, NicState};
use crate::mem::cache::{Cache, Indexing, Policy};
use crate::nic::PktRef;
use crate::units::{ser_time, Time};
use crate::wire::wire_bytes;

/// Bytes of one flow context (counters and match state).
pub const CTX_BYTES: u64 = 64;

pub(crate) struct Accel {
    /// Flow contexts cached on the NIC (one 64 B line each).
    pub cache: Cache,
    /// Host region holding every flow's context.
    pub ctx_base: u64,
    /// When the in-order flow engine is next free.
    pub engine_free: Time,
}

impl Accel {
    pub fn new(cache_bytes: u64, ctx_base: u64, rng: crate::sim::Rng) -> Accel {
        // 8-way sets, as large as the capacity allows with a power-of-two set count.
        let ways = 8;
        let sets = (cache_bytes / CTX_BYTES / ways as u64).max(1);
        let sets = if sets.is_power_of_two() {
            sets
        } else {
            sets.next_power_of_two() / 2
        };
        Accel {
            cache: Cache::new(
                sets * ways as u64 * CTX_BYTES,
                ways,
                Indexing::Modulo,
                Policy::Lru,
                rng,
            ),
            ctx_base,
            engine_free: 0,
        }
    }
}

impl Accel {
    /// Bring flow contexts in as the run so far would have (the last ones
    /// used stay cached), without pricing: a long-running NIC's state.
    pub fn preload(&mut self, flows: u32) {
        let mask = self.cache.all_ways();
        // Flows have distinct contexts: none is cached twice.
        for f in 0..flows as u64 {
            self.cache.insert(self.ctx_base / 64 + f, mask, true);
        }
    }
}

impl NicState {
    /// A frame accepted into the Rx buffer of NIC `n` is processed by the
    /// flow engine and sent back out (hairpin).
    pub(super) fn accel_frame(&mut self, n: usize, h: &mut Host, pkt: PktRef, now: Time) {
        let a = self.accel.as_mut().expect("accel NIC");
        let ctx = a.ctx_base / 64 + pkt.flow as u64;
        let start = now.max(a.engine_free);
        let ready = match a.cache.find(ctx) {
            Some(slot) => {
                a.cache.touch(slot);
                start
            }
            None => {
                let mask = a.cache.all_ways();
                let (_, victim) = a.cache.insert(ctx, mask, true);
                if let Some(v) = victim {
                    // The evicted context's counters go back to host memory.
                    self.posted_write(n, h, start, v.line * 64, CTX_BYTES);
                }
                self.dma_read(h, start, ctx * 64, CTX_BYTES)
            }
        };
        let (k, cfg) = (&h.k, &h.cfg);
        let done = ready + k.pipe_ps;
        self.accel.as_mut().expect("accel NIC").engine_free = done;
        let wire_start = done.max(self.port.wire_free);
        let end = wire_start + ser_time(wire_bytes(pkt.size), cfg.nic.line_rate);
        self.port.wire_free = end;
        // The frame holds its Rx buffer space until it leaves the wire.
        self.port.rx_buffer_used += pkt.size as u64;
        self.port.rx_draining.push_back((end, pkt.size));
        self.total_out += 1;
        super::request_done(&mut h.q, n, &mut self.client, end);
        // Hairpinned on the NIC: no DMA, ring or core stage.
        let on_nic = crate::nic::PktRef { t_dma: wire_start, t_cqe: wire_start, t_core: wire_start, t_db: wire_start, ..pkt };
        let window_end = h.batches.is_none().then_some(h.end);
        self.depart(super::Departure { start: wire_start, end, pkt: on_nic }, now, cfg.sim.warmup, window_end);
        if h.measuring {
            self.c.rx_pkts += 1;
        }
        if self.fc.is_some() {
            self.pause_check(n, h, now);
        }
    }
}
