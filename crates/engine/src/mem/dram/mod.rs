//! DRAM, in one vocabulary for the host and for devices: JEDEC speed bins
//! ([`timing`]), where an address lies in a channel ([`map`]), and two
//! models of a channel.
//!
//! - [`Dram`] (`calendar`): each channel a calendar of busy intervals at
//!   its peak bandwidth, optionally banks busy a row cycle and a batched
//!   write queue. Requests may arrive out of time order; latency rises only
//!   as a channel nears its peak.
//! - [`controller::Channel`]: a memory controller as servers have one per
//!   channel: read and write queues of finite depth, per-bank command
//!   queues scheduled first-ready first-come-first-served, row buffers
//!   under a page policy, ranks and bank groups with every JEDEC
//!   command-to-command constraint, write drains by watermarks and refresh.
//!   Requests arrive in time order; latency rises with row conflicts, bank
//!   imbalance, write drains and refresh long before the channel saturates.
//! - [`host::Controllers`]: the host's controllers, one per channel, lines
//!   interleaved over them, taking what cores and devices send in time
//!   order (reads passing writes a full write queue holds at the CHA), and
//!   their summed PCM-style counters.
//! - [`queued::Queued`]: those controllers inside a packet run (`dram.model
//!   = controller`): the caches send requests in time order and a core's
//!   read comes back later, to its fill buffers.

mod calendar;
pub mod controller;
pub mod host;
pub mod map;
pub mod queued;
pub mod timing;

pub use calendar::{Dram, WriteQueue};

/// The set bits of `mask`, lowest first (banks or channels in a mask).
#[inline]
pub(crate) fn ones(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}
