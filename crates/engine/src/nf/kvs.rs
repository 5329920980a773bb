//! A MICA-like key-value server (Lim et al., NSDI'14) as the nicmem paper
//! runs it (Sec. 6.6): each core owns a partition of a hash index (one 64 B
//! bucket line per lookup) and the items live in a log at real addresses,
//! each 64 B of header + 128 B key + the value. The request's key is its
//! flow; a frame long enough to carry headers, key and value is a SET, a
//! shorter one a GET.
//!
//! Baseline MICA copies a GET's value twice (log -> stack -> response
//! buffer) and a SET's once (request -> log). With nmKVS (`kvs.hot_area`)
//! the hot items (the first keys) keep a stable buffer in nicmem served
//! zero-copy and a pending buffer in host memory (`nmkvs`): a GET of a hot
//! item sends a 70 B header from host memory and the value straight from
//! nicmem; refreshing a stale stable buffer writes it over PCIe with
//! write-combined stores.

use super::nmkvs::{Get, HotItem};
use crate::config::{AppNf, Cfg, TrafficFlowPopularity, TrafficSizeDist};
use crate::cpu::Stall;
use crate::mem::Memory;
use crate::nic::{PktRef, NO_BUF};
use crate::units::Time;

/// Ethernet + IPv4 + UDP + MICA request/response header + FCS.
pub const RESP_HDR: u64 = 14 + 20 + 8 + 24 + 4;
const KEY: u64 = 128;
const ITEM_HDR: u64 = 64;

pub struct Kvs {
    pub log_base: u64,
    pub index_base: u64,
    pub buckets: u64,
    /// Per core: a value-sized stack buffer MICA copies through.
    pub stack_base: u64,
    /// Host lines of the hot items' metadata (valid bit, reference count)
    /// and their pending buffers.
    pub meta_base: u64,
    pub pending_base: u64,
    pub value: u64,
    pub hot: Vec<HotItem<u32>>,
    /// Sets applied to each hot item (the version its buffers hold).
    pub version: Vec<u32>,
}

/// What a request cost beyond its memory stalls.
#[derive(Default)]
pub struct Cost {
    /// Lines copied by the core.
    pub copied_lines: u64,
    /// Bytes written into nicmem with write-combined stores.
    pub nicmem_bytes: u64,
}

impl Kvs {
    fn slot_bytes(&self) -> u64 {
        (ITEM_HDR + KEY + self.value).next_multiple_of(64)
    }
    fn item(&self, key: u32) -> u64 {
        self.log_base + key as u64 * self.slot_bytes()
    }

    /// Serve the request in `pkt` (data at `data`), turning it into its response.
    pub fn serve(
        &mut self,
        core: usize,
        pkt: &mut PktRef,
        data: u64,
        mem: &mut Memory,
        now: Time,
        stall: &mut Stall,
    ) -> Cost {
        let key = pkt.flow;
        let is_set = pkt.size as u64 >= RESP_HDR + KEY + self.value;
        let lines = self.value.div_ceil(64);
        let mut cost = Cost::default();
        let touch = |mem: &mut Memory, base: u64, n: u64, write: bool, stall: &mut Stall| {
            for l in 0..n {
                stall.add(mem.core_access(core, base + 64 * l, write, now));
            }
        };
        // The request header, the index bucket, then the item's header and
        // key in the log.
        touch(mem, data, 1, false, stall);
        let bucket = self.index_base + (key as u64 * 0x9E37_79B9 % self.buckets) * 64;
        touch(mem, bucket, 1, false, stall);
        let item = self.item(key);
        touch(mem, item, (ITEM_HDR + KEY) / 64, false, stall);
        let hot = (key as usize) < self.hot.len();
        let payload = data + RESP_HDR - 4;
        if is_set {
            // The value comes from the request; a hot item's goes to its
            // pending buffer and invalidates the stable one.
            touch(mem, payload, lines, false, stall);
            let dst = if hot {
                let k = key as usize;
                self.version[k] += 1;
                self.hot[k].set(self.version[k]);
                touch(mem, self.meta_base + 64 * key as u64, 1, true, stall);
                self.pending_base + key as u64 * self.value.next_multiple_of(64)
            } else {
                item + ITEM_HDR + KEY
            };
            touch(mem, dst, lines, true, stall);
            cost.copied_lines += lines;
            pkt.size = RESP_HDR as u32;
        } else if hot {
            let k = key as usize;
            touch(mem, self.meta_base + 64 * key as u64, 1, true, stall);
            match self.hot[k].get().0 {
                Get::ZeroCopy => pkt.kvs = key,
                Get::RefreshThenZeroCopy => {
                    let pending = self.pending_base + key as u64 * self.value.next_multiple_of(64);
                    touch(mem, pending, lines, false, stall);
                    cost.copied_lines += lines;
                    cost.nicmem_bytes += self.value;
                    pkt.kvs = key;
                }
                Get::CopyPending => {
                    let pending = self.pending_base + key as u64 * self.value.next_multiple_of(64);
                    touch(mem, pending, lines, false, stall);
                    touch(mem, payload, lines, true, stall);
                    cost.copied_lines += lines;
                }
            }
            pkt.size = (RESP_HDR + self.value) as u32;
        } else {
            // MICA's two copies: log -> stack -> response.
            let stack = self.stack_base + core as u64 * self.value.next_multiple_of(64);
            touch(mem, item + ITEM_HDR + KEY, lines, false, stall);
            touch(mem, stack, lines, true, stall);
            touch(mem, stack, lines, false, stall);
            touch(mem, payload, lines, true, stall);
            cost.copied_lines += 2 * lines;
            pkt.size = (RESP_HDR + self.value) as u32;
        }
        // The response header, written over the request's.
        touch(mem, data, 1, true, stall);
        cost
    }

    /// The Tx completion of a zero-copy response: the stable buffer's
    /// reference goes (DPDK's completion callback touches its metadata).
    pub fn tx_complete(&mut self, core: usize, key: u32, mem: &mut Memory, now: Time, stall: &mut Stall) {
        if key == NO_BUF {
            return;
        }
        self.hot[key as usize].tx_complete();
        stall.add(mem.core_access(core, self.meta_base + 64 * key as u64, true, now));
    }
}

/// KVS: the hot area fits in nicmem, hot items are items.
pub fn check(c: &Cfg) -> Result<(), String> {
    let (area, value) = (c.kvs.hot_area, c.kvs.value_size);
    if area > c.nic.nicmem_capacity {
        return Err(format!(
            "kvs.hot_area = {area} B: more than the NIC's nicmem (nic.nicmem_capacity = {} B)",
            c.nic.nicmem_capacity
        ));
    }
    let hot = area / value.next_multiple_of(64);
    if c.app.nf == AppNf::Kvs && hot > c.traffic.flows {
        return Err(format!(
            "kvs.hot_area = {area} B: holds {hot} hot items, more than the {} items (traffic.flows)",
            c.traffic.flows
        ));
    }
    if c.traffic.flow_popularity == TrafficFlowPopularity::Hot && c.traffic.hot_flows > c.traffic.flows {
        return Err(format!(
            "traffic.hot_flows = {}: more hot items than traffic.flows = {}",
            c.traffic.hot_flows,
            c.traffic.flows
        ));
    }
    let small = c.traffic.hot_share_small;
    if small >= 0.0 && (c.traffic.flow_popularity != TrafficFlowPopularity::Hot || c.traffic.size_dist != TrafficSizeDist::Bimodal) {
        return Err(format!(
            "traffic.hot_share_small = {small}: needs flow_popularity = hot and size_dist = bimodal (its small frames are the GETs); -1 = off"
        ));
    }
    Ok(())
}
