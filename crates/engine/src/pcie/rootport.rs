//! A device's root port: its link, the read tags its reads hold until
//! their completions are back, and the posted credits its writes hold in
//! the root port's write buffer. Every device's DMA (the packet run's NICs,
//! pcie_bench, NetDIMM's dNIC) crosses one; the host's side (what memory
//! answers, when it commits a write) is the caller's, given as the time it
//! takes, or, where the write lands at an event of its own (the packet
//! run's Rx frames), committed then.

use super::{PcieConfig, PcieLink, PostedCredits, ReadTags};
use crate::units::Time;

pub struct RootPort {
    pub link: PcieLink,
    pub tags: ReadTags,
    pub credits: PostedCredits,
}

/// A read's request upstream: when its tags let it start, when it reached
/// the host, and the tags it holds (one per MRRS piece).
#[derive(Clone, Copy, Debug)]
pub struct Read {
    pub start: Time,
    pub at_host: Time,
    pub tags: u64,
}

impl RootPort {
    pub fn new(cfg: PcieConfig) -> RootPort {
        RootPort {
            link: PcieLink::new(cfg),
            tags: ReadTags::new(cfg.max_read_tags),
            credits: PostedCredits::new(cfg.write_buffer_lines),
        }
    }

    /// One-way latency of the link.
    #[inline]
    pub fn latency(&self) -> Time {
        self.link.latency()
    }

    /// When the credits of a write the host took at `free` are back at the
    /// device. The device takes them as it sends (its own part of the path
    /// precedes its link, a fixed delay, so taking them then holds them
    /// as long): they are held its serialisation, the credit loop and the
    /// host's commit, the loop's part of the path after `free` (no earlier
    /// than `free`: the loop is at least the latency one way).
    #[inline]
    pub fn credits_back_at(&self, free: Time) -> Time {
        (free + self.link.cfg().credit_loop_ps).saturating_sub(self.latency())
    }

    /// A read of `len` bytes at `addr` the device starts at `now`: it waits
    /// for its tags, then its requests go upstream.
    pub fn read_request(&mut self, now: Time, addr: u64, len: u64) -> Read {
        let tags = len.div_ceil(self.link.cfg().mrrs as u64);
        let mut start = now;
        for _ in 0..tags {
            start = start.max(self.tags.acquire(now));
        }
        Read { start, at_host: self.link.dma_read_request(start, addr, len), tags }
    }

    /// The host has `r`'s data at `back`: its completions cross the link
    /// and its tags return. Returns when the data is at the device.
    pub fn read_complete(&mut self, r: &Read, back: Time, addr: u64, len: u64) -> Time {
        let done = self.link.dma_read_completion(back, addr, len);
        for _ in 0..r.tags {
            self.tags.release(done);
        }
        done
    }

    /// A whole read, the host answering `host(at_host)` after its request
    /// arrives: the request and when the data is at the device.
    pub fn read(&mut self, now: Time, addr: u64, len: u64, host: impl FnOnce(Time) -> Time) -> (Read, Time) {
        let r = self.read_request(now, addr, len);
        let back = r.at_host + host(r.at_host);
        (r, self.read_complete(&r, back, addr, len))
    }

    /// A posted write the device sends at `now` (the caller has waited
    /// for and taken its credits, when bounded): when it reaches the host,
    /// and `host(at)`, the time the host takes to commit it.
    pub fn write(&mut self, now: Time, addr: u64, len: u64, host: impl FnOnce(Time) -> Time) -> (Time, Time) {
        let at = self.link.dma_write(now, addr, len);
        (at, host(at))
    }
}
