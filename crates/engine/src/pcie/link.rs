//! Timing: each direction of the link is a FIFO serialiser running at the
//! TLP-layer bandwidth; a fixed one-way latency covers PHY/DLL pipelines,
//! flight time and the root complex. Non-posted reads are bounded by tags.

use std::collections::VecDeque;

use super::tlp::{
    cpld_wire_bytes, mrd_overhead, mrd_request_tlps_at, mrd_split, mwr_overhead, mwr_tlps_at,
};
use super::{phy, PcieConfig};
use crate::units::Time;

/// Busy time is kept in 1/1024 ps so that rounding happens once per query,
/// not once per TLP: a million back-to-back sends end exactly where one
/// send of the same total would. u64 of 1/1024 ps still spans ~5 hours.
const FRAC_BITS: u32 = 10;
const ONE: u64 = 1 << FRAC_BITS;

/// One direction of a PCIe link, as a serialiser whose bandwidth already
/// has the ACK/UpdateFC/SKIP overheads taken out (the model's `TLP_bw`).
#[derive(Clone, Debug)]
pub struct Link {
    gbps: f64,
    /// Serialisation time of one wire byte, in 1/1024 ps.
    per_byte: u64,
    /// When the last queued byte leaves, in 1/1024 ps.
    free_at: u64,
    busy: u64,
    bytes: u64,
}

impl Link {
    /// A link of `gbps` Gb/s. Panics unless `gbps` is positive and finite
    /// (`PcieConfig::validate` guarantees that for configured links).
    pub fn new(gbps: f64) -> Link {
        assert!(
            gbps.is_finite() && gbps > 0.0,
            "link bandwidth must be a positive number of Gb/s, got {gbps}"
        );
        // 8 bit / (gbps * 1e9 bit/s) = 8000 / gbps ps per byte.
        let per_byte = (8000.0 * ONE as f64 / gbps).round().max(1.0) as u64;
        Link {
            gbps,
            per_byte,
            free_at: 0,
            busy: 0,
            bytes: 0,
        }
    }

    /// Nominal bandwidth this link was built with.
    pub fn gbps(&self) -> f64 {
        self.gbps
    }

    /// Queue `wire_bytes` at `now` behind earlier sends; returns the time
    /// the last byte leaves.
    pub fn send(&mut self, now: Time, wire_bytes: u64) -> Time {
        let start = self.free_at.max(now.saturating_mul(ONE));
        let dur = wire_bytes * self.per_byte;
        self.free_at = start + dur;
        self.busy += dur;
        self.bytes += wire_bytes;
        self.free_at.div_ceil(ONE)
    }

    /// Serialisation time of `wire_bytes` on an idle link.
    pub fn ser_ps(&self, wire_bytes: u64) -> Time {
        (wire_bytes * self.per_byte).div_ceil(ONE)
    }

    /// When the link has sent everything queued so far.
    pub fn free_at(&self) -> Time {
        self.free_at.div_ceil(ONE)
    }

    /// Total time spent serialising.
    pub fn busy_ps(&self) -> Time {
        self.busy / ONE
    }

    /// Total wire bytes sent.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Fraction of `over_ps` the link was busy.
    pub fn utilisation(&self, over_ps: Time) -> f64 {
        if over_ps == 0 {
            return 0.0;
        }
        self.busy as f64 / ONE as f64 / over_ps as f64
    }
}

/// Bounds non-posted reads in flight: one tag per outstanding MRd. Holds the
/// times at which free tags become (or became) available, sorted; a tag that
/// has been acquired is absent until `release` says when it returns.
/// Releases come nearly in time order, so a release is placed by a short
/// scan from the back. Capacity is fixed at construction: acquire/release
/// never allocate.
#[derive(Clone, Debug)]
pub struct ReadTags {
    free_at: VecDeque<Time>,
    tags: usize,
    held: u32,
    last_release: Time,
}

impl ReadTags {
    /// `tags` tags, all free at time 0 (at least one).
    pub fn new(tags: u32) -> ReadTags {
        let tags = tags.max(1) as usize;
        let mut free_at = VecDeque::with_capacity(tags);
        free_at.extend(std::iter::repeat_n(0, tags));
        ReadTags {
            free_at,
            tags,
            held: 0,
            last_release: 0,
        }
    }

    /// Take a tag: the earliest time, not before `now`, at which one is
    /// free; None if every tag is held and none has a release time yet.
    pub fn try_acquire(&mut self, now: Time) -> Option<Time> {
        let t = self.free_at.pop_front()?;
        self.held += 1;
        Some(t.max(now))
    }

    /// As `try_acquire`, for callers that take several tags before
    /// releasing any: when all are held without a release time, the caller
    /// is assumed to wait for the latest release declared so far (it cannot
    /// know better), so this never fails.
    pub fn acquire(&mut self, now: Time) -> Time {
        self.try_acquire(now).unwrap_or_else(|| {
            self.held += 1;
            now.max(self.last_release)
        })
    }

    /// Return a tag at time `at` (when its last completion arrived).
    /// Ignored if no tag is held.
    pub fn release(&mut self, at: Time) {
        if self.held == 0 {
            return;
        }
        self.held -= 1;
        self.last_release = self.last_release.max(at);
        if self.free_at.len() < self.tags {
            let mut i = self.free_at.len();
            while i > 0 && self.free_at[i - 1] > at {
                i -= 1;
            }
            self.free_at.insert(i, at);
        }
    }

    /// Tags free or with a release time declared (the rest are held by
    /// reads whose release is not yet known).
    pub fn known(&self) -> usize {
        self.free_at.len()
    }

    /// Earliest time a tag is (or becomes) free, without taking it.
    pub fn next_free(&self) -> Time {
        self.free_at.front().copied().unwrap_or(self.last_release)
    }

    /// Tags in use at `t`: those not free by then (releases declared so far).
    pub fn in_use_at(&self, t: Time) -> u32 {
        self.tags as u32 - self.free_at.partition_point(|&f| f <= t) as u32
    }

    /// Tags acquired and not yet released.
    pub fn held(&self) -> u32 {
        self.held
    }

    pub fn capacity(&self) -> u32 {
        self.tags as u32
    }
}

/// Both directions of a device's link: `up` carries device->host TLPs
/// (MWr, MRd, MSI), `down` host->device TLPs (CplD, MMIO MWr).
#[derive(Clone, Debug)]
pub struct PcieLink {
    pub up: Link,
    pub down: Link,
    /// Payload bytes (TLP data, no headers) carried upstream and downstream.
    pub data_up: u64,
    pub data_down: u64,
    /// MWr and MRd TLPs the device has issued.
    pub writes: u64,
    pub reads: u64,
    /// When the device's DMA engine may issue its next MWr / MRd.
    write_next: Time,
    read_next: Time,
    cfg: PcieConfig,
}

impl PcieLink {
    /// Panics with `validate`'s message if `cfg` is invalid; validate
    /// first, or use `try_new`.
    pub fn new(cfg: PcieConfig) -> PcieLink {
        PcieLink::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn try_new(cfg: PcieConfig) -> Result<PcieLink, String> {
        cfg.validate()?;
        let gbps = phy::tlp_layer_gbps(cfg.gen, cfg.lanes, cfg.mps);
        Ok(PcieLink {
            up: Link::new(gbps),
            down: Link::new(gbps),
            data_up: 0,
            data_down: 0,
            writes: 0,
            reads: 0,
            write_next: 0,
            read_next: 0,
            cfg,
        })
    }

    pub fn cfg(&self) -> &PcieConfig {
        &self.cfg
    }

    /// One-way latency, excluding serialisation.
    pub fn latency(&self) -> Time {
        self.cfg.latency_ps
    }

    /// Posted DMA write: when the last MWr reaches the root complex. The
    /// DMA engine issues its TLPs no closer than `write_interval_ps`.
    pub fn dma_write(&mut self, now: Time, addr: u64, len: u64) -> Time {
        self.data_up += len;
        let tlps = mwr_tlps_at(&self.cfg, addr, len);
        self.writes += tlps.count;
        let start = now.max(self.write_next);
        self.write_next = start + tlps.count * self.cfg.write_interval_ps;
        // (the last TLP leaves no earlier than its issue slot)
        let last_issue = self.write_next - self.cfg.write_interval_ps;
        self.up.send(start, tlps.wire_bytes).max(last_issue) + self.cfg.latency_ps
    }

    /// When the DMA engine can next put a write on the link: the link is
    /// idle and the engine may issue.
    pub fn write_ready_at(&self) -> Time {
        self.up.free_at().max(self.write_next)
    }

    /// When the DMA engine may issue the next of `n` MRd TLPs, at or after `now`.
    fn read_issue(&mut self, now: Time, n: u64) -> Time {
        self.reads += n;
        let start = now.max(self.read_next);
        self.read_next = start + n * self.cfg.read_interval_ps;
        start
    }

    /// MSI interrupt: a 4 B MWr upstream; when it reaches the root complex.
    pub fn msi(&mut self, now: Time) -> Time {
        self.up
            .send(now, mwr_overhead(&self.cfg) + super::tlp::MSI_PAYLOAD)
            + self.cfg.latency_ps
    }

    /// MRd request(s) for `len` bytes at `addr`: when the last reaches the host.
    /// Tags are the caller's business here; `dma_read` handles them.
    pub fn dma_read_request(&mut self, now: Time, addr: u64, len: u64) -> Time {
        let tlps = mrd_request_tlps_at(&self.cfg, addr, len);
        let start = self.read_issue(now, tlps.count);
        let last_issue = self.read_next - self.cfg.read_interval_ps;
        self.up.send(start, tlps.wire_bytes).max(last_issue) + self.cfg.latency_ps
    }

    /// CplDs for `len` bytes at `addr`, sent downstream once the host has the
    /// data at `host_ready`: when the last completion reaches the device.
    pub fn dma_read_completion(&mut self, host_ready: Time, addr: u64, len: u64) -> Time {
        self.data_down += len;
        self.down
            .send(host_ready, cpld_wire_bytes(&self.cfg, addr, len))
            + self.cfg.latency_ps
    }

    /// A whole DMA read: one MRd per MRRS piece, each holding a tag until
    /// its completions arrive; the host answers each request
    /// `host_latency_ps` after it arrives. Returns when the last completion
    /// reaches the device.
    pub fn dma_read(
        &mut self,
        tags: &mut ReadTags,
        now: Time,
        addr: u64,
        len: u64,
        host_latency_ps: Time,
    ) -> Time {
        let mut done = now;
        for (a, n) in mrd_split(&self.cfg, addr, len) {
            let issue = self.read_issue(tags.acquire(now), 1);
            let at_host = self.up.send(issue, mrd_overhead(&self.cfg)) + self.cfg.latency_ps;
            let back = self.dma_read_completion(at_host + host_latency_ps, a, n);
            tags.release(back);
            done = done.max(back);
        }
        done
    }

    /// CPU MMIO write (doorbell): when it reaches the device.
    pub fn mmio_write(&mut self, now: Time, len: u64) -> Time {
        self.data_down += len;
        self.down
            .send(now, super::tlp::mmio_write_wire_bytes(&self.cfg, len))
            + self.cfg.latency_ps
    }

    /// CPU MMIO read of device memory that the device answers
    /// `device_ps` after the request arrives: when the data is back at the
    /// root complex.
    pub fn mmio_read(&mut self, now: Time, len: u64, device_ps: Time) -> Time {
        self.data_up += len;
        let at_dev = self.down.send(now, mrd_overhead(&self.cfg)) + self.cfg.latency_ps;
        self.up
            .send(at_dev + device_ps, cpld_wire_bytes(&self.cfg, 0, len))
            + self.cfg.latency_ps
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{NS, US};

    #[test]
    fn a_million_small_sends_do_not_drift() {
        let gbps = phy::tlp_layer_gbps(3, 8, 256);
        let mut many = Link::new(gbps);
        let mut end = 0;
        for _ in 0..1_000_000 {
            end = many.send(0, 64);
        }
        let mut one = Link::new(gbps);
        assert_eq!(end, one.send(0, 64_000_000));
        assert_eq!(many.busy_ps(), one.busy_ps());
        assert_eq!(many.bytes(), 64_000_000);
        // And the fixed-point rate is the nominal one to ~1e-5.
        let exact = 64e6 * 8.0 / gbps * 1e3;
        assert!(
            (end as f64 - exact).abs() / exact < 1e-5,
            "{end} vs {exact}"
        );
    }

    #[test]
    fn sends_queue_and_idle_gaps_are_not_busy() {
        let mut l = Link::new(8.0); // 1 ns per byte
        assert_eq!(l.send(0, 100), 100 * NS);
        assert_eq!(l.send(50 * NS, 100), 200 * NS); // queued behind the first
        assert_eq!(l.send(US, 100), US + 100 * NS); // idle gap
        assert_eq!(l.busy_ps(), 300 * NS);
        assert!((l.utilisation(2 * US) - 0.15).abs() < 1e-12);
    }

    #[test]
    fn tags_bound_reads_in_flight() {
        let mut t = ReadTags::new(2);
        assert_eq!(t.try_acquire(5), Some(5));
        assert_eq!(t.acquire(5), 5);
        assert_eq!(t.try_acquire(5), None);
        t.release(100);
        t.release(40);
        assert_eq!(t.held(), 0);
        assert_eq!(t.acquire(10), 40);
        assert_eq!(t.acquire(200), 200);
        t.release(1);
        t.release(2);
        t.release(3); // nothing held: ignored
        assert_eq!(t.held(), 0);
        // Over-subscribed: the third waits for the latest known release.
        let mut t = ReadTags::new(2);
        t.acquire(0);
        t.release(70);
        t.acquire(0);
        t.acquire(0);
        assert_eq!(t.held(), 2);
        assert_eq!(t.acquire(10), 70);
        for _ in 0..3 {
            t.release(90);
        }
        assert_eq!((t.held(), t.acquire(0)), (0, 90));
    }

    /// The sorted free list hands out tags as a min-heap of release times
    /// would, for random interleavings of acquires and out-of-order releases.
    #[test]
    fn tags_match_a_heap_reference() {
        use rand::Rng as _;
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut r = crate::sim::rng(3, 0, 0);
        for n in [1u32, 4, 128] {
            let mut tags = ReadTags::new(n);
            let mut heap: BinaryHeap<Reverse<Time>> = (0..n).map(|_| Reverse(0)).collect();
            let mut held = 0;
            for _ in 0..20_000 {
                let now = r.gen_range(0..1_000_000);
                if held < n && r.gen_bool(0.5) {
                    let want = heap.pop().map(|Reverse(t)| t.max(now));
                    assert_eq!(tags.try_acquire(now), want);
                    held += 1;
                } else if held > 0 {
                    let at = r.gen_range(0..2_000_000);
                    tags.release(at);
                    heap.push(Reverse(at));
                    held -= 1;
                }
                assert_eq!(tags.next_free(), heap.peek().map_or(tags.last_release, |t| t.0));
            }
        }
    }

    #[test]
    fn isolated_read_is_two_latencies_plus_host_plus_serialisation() {
        let cfg = PcieConfig {
            latency_ps: 200 * NS,
            ..PcieConfig::default()
        };
        let mut l = PcieLink::new(cfg);
        let mut tags = ReadTags::new(cfg.max_read_tags);
        let done = l.dma_read(&mut tags, 0, 0, 64, 100 * NS);
        let expect = l.up.ser_ps(24) + 200 * NS + 100 * NS + l.down.ser_ps(84) + 200 * NS;
        assert!(done.abs_diff(expect) <= 1, "{done} vs {expect}");
        assert_eq!((l.up.bytes(), l.down.bytes()), (24, 84));
        assert_eq!(tags.held(), 0);
    }

    #[test]
    fn mmio_and_msi_use_the_right_direction() {
        let mut l = PcieLink::new(PcieConfig::default());
        l.mmio_write(0, 4);
        l.msi(0);
        l.mmio_read(0, 4, 0);
        assert_eq!(l.down.bytes(), 28 + 24);
        assert_eq!(l.up.bytes(), 28 + 24);
    }
}
