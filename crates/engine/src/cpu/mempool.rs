//! A DPDK-style packet buffer pool: objects at fixed addresses in one
//! region, a shared FIFO ring, and a LIFO cache per core.
//!
//! Reuse order decides which buffer the NIC writes next and so how warm it
//! is in the LLC: the per-core cache hands back the most recently freed
//! buffer, the ring the least recently freed one.

use crate::config::MempoolCfg;
use crate::mem::AddressMap;
use std::collections::VecDeque;

/// Object layout, as `rte_mempool` + `rte_mbuf` lay it out: a 64 B mempool
/// object header, the 128 B mbuf (two lines), the 128 B headroom, the data.
pub const OBJ_HDR: u64 = 64;
pub const MBUF_HDR: u64 = 128;
pub const HEADROOM: u64 = 128;
/// Bytes before the packet data in each object.
pub const DATA_OFFSET: u64 = OBJ_HDR + MBUF_HDR + HEADROOM;

pub struct Mempool {
    base: u64,
    obj_size: u64,
    /// Objects per hugepage and the page's bytes: DPDK never lets an object
    /// cross a page (rte_mempool_op_populate_helper skips to the next page),
    /// so each page ends in a gap. u64::MAX objects: no pages.
    per_page: u64,
    page: u64,
    /// Objects before the first page boundary after `base`.
    first: u64,
    ring: VecDeque<u32>,
    caches: Vec<Vec<u32>>,
    cache_size: usize,
    len: usize,
    /// Data in another region (nicmem): its base and per-object stride.
    ext_data: Option<(u64, u64)>,
}

impl Mempool {
    /// `cache_size` 0 means no per-core cache: every alloc and free goes
    /// through the FIFO ring.
    pub fn new(base: u64, obj_size: u64, count: usize, cores: usize, cache_size: usize) -> Mempool {
        Mempool {
            base,
            obj_size,
            per_page: u64::MAX,
            page: 0,
            first: 0,
            ring: (0..count as u32).collect(),
            caches: vec![Vec::with_capacity(cache_size * 3 / 2 + 64); cores],
            cache_size,
            len: count,
            ext_data: None,
        }
    }

    /// A pool of `mempool.size` mbufs at addresses from `map`, per-core
    /// caches for `cores` cores (none when `fifo`), laid out in pages of
    /// `page` bytes (0: flat memory).
    pub fn from_cfg(m: &MempoolCfg, map: &mut AddressMap, cores: usize, page: u64, fifo: bool) -> Mempool {
        let bytes = Mempool::footprint(m.mbuf_size, m.size, page);
        let cache = if fifo { 0 } else { m.cache as usize };
        Mempool::new(map.alloc(bytes, 4096), m.mbuf_size, m.size as usize, cores, cache).in_pages(page)
    }

    /// A pool whose mbufs live in host memory but whose data buffers lie
    /// elsewhere (DPDK external buffers, here in NIC memory at `data_base`).
    pub fn with_external_data(
        base: u64,
        count: usize,
        cores: usize,
        cache_size: usize,
        data_base: u64,
        data_stride: u64,
    ) -> Mempool {
        let mut p = Mempool::new(base, OBJ_HDR + MBUF_HDR, count, cores, cache_size);
        p.ext_data = Some((data_base, data_stride));
        p
    }

    /// The objects laid out in hugepages of `page` bytes (0: none).
    pub fn in_pages(mut self, page: u64) -> Mempool {
        if page >= self.obj_size {
            (self.per_page, self.page) = (page / self.obj_size, page);
            self.first = (page - self.base % page) / self.obj_size;
        }
        self
    }

    /// Bytes `count` objects of `obj_size` may take in pages of `page`
    /// bytes (0: none), wherever they start: each page boundary they pass
    /// costs a gap shorter than one object.
    pub fn footprint(obj_size: u64, count: u64, page: u64) -> u64 {
        let packed = count * obj_size;
        if page < obj_size {
            return packed;
        }
        packed + (packed / page + 2) * obj_size
    }

    /// Start of object `m`.
    #[inline]
    fn obj(&self, m: u32) -> u64 {
        let m = m as u64;
        if self.per_page == u64::MAX || m < self.first {
            return self.base + m * self.obj_size;
        }
        // the pages after the first boundary, each from its start
        let k = m - self.first;
        let next_page = self.base - self.base % self.page + self.page;
        next_page + k / self.per_page * self.page + k % self.per_page * self.obj_size
    }

    /// Address of the mbuf header (its first line holds the fields the driver touches).
    #[inline]
    pub fn mbuf_addr(&self, m: u32) -> u64 {
        self.obj(m) + OBJ_HDR
    }

    /// Address of the packet data.
    #[inline]
    pub fn data_addr(&self, m: u32) -> u64 {
        debug_assert!(m != u32::MAX, "data_addr of no buffer");
        if let Some((base, stride)) = self.ext_data {
            return base + m as u64 * stride;
        }
        self.obj(m) + DATA_OFFSET
    }

    /// `rte_mempool_get` for one object by `core` (pool-local core index).
    pub fn alloc(&mut self, core: usize) -> Option<u32> {
        if self.cache_size == 0 {
            return self.ring.pop_front();
        }
        let cache = &mut self.caches[core];
        if cache.is_empty() {
            // Refill the cache with a bulk dequeue, as DPDK does.
            for _ in 0..self.cache_size {
                match self.ring.pop_front() {
                    Some(m) => cache.push(m),
                    None => break,
                }
            }
        }
        cache.pop()
    }

    /// `rte_mempool_put`: into the core's cache; past 1.5x its size the
    /// most recent objects above `cache_size` are flushed to the ring.
    pub fn free(&mut self, core: usize, m: u32) {
        if self.cache_size == 0 {
            self.ring.push_back(m);
            return;
        }
        let cache = &mut self.caches[core];
        cache.push(m);
        if cache.len() >= self.cache_size * 3 / 2 {
            self.ring.extend(cache.drain(self.cache_size..));
        }
    }

    /// Objects not handed out (ring + caches).
    pub fn available(&self) -> usize {
        self.ring.len() + self.caches.iter().map(Vec::len).sum::<usize>()
    }

    pub fn capacity(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn objects_never_cross_a_hugepage() {
        let page = 2 << 20;
        let p = Mempool::new(1 << 30, 2368, 2000, 1, 0).in_pages(page);
        // 885 objects of 2368 B per 2 MiB page, then the next page
        assert_eq!(p.mbuf_addr(884) - OBJ_HDR, (1 << 30) + 884 * 2368);
        assert_eq!(p.mbuf_addr(885) - OBJ_HDR, (1 << 30) + page);
        for m in 0..2000 {
            let start = p.mbuf_addr(m) - OBJ_HDR;
            assert_eq!(start / page, (start + 2367) / page, "object {m} crosses a page");
        }
        assert!(p.mbuf_addr(1999) - OBJ_HDR + 2368 <= (1 << 30) + Mempool::footprint(2368, 2000, page));
        // a pool starting inside a page fills it first, then whole pages
        let q = Mempool::new((1 << 30) + page - 3 * 2368 - 100, 2368, 2000, 1, 0).in_pages(page);
        assert_eq!(q.mbuf_addr(3) - OBJ_HDR, (1 << 30) + page);
        for m in 0..2000 {
            let start = q.mbuf_addr(m) - OBJ_HDR;
            assert_eq!(start / page, (start + 2367) / page, "object {m} crosses a page");
            assert!(start + 2368 <= q.base + Mempool::footprint(2368, 2000, page));
        }
        // without pages: packed
        assert_eq!(Mempool::new(0, 2368, 4, 1, 0).in_pages(0).mbuf_addr(3), 3 * 2368 + OBJ_HDR);
    }

    #[test]
    fn lifo_cache_returns_the_last_freed_buffer() {
        let mut p = Mempool::new(0, 2368, 1024, 1, 256);
        let a = p.alloc(0).unwrap();
        let b = p.alloc(0).unwrap();
        p.free(0, a);
        p.free(0, b);
        assert_eq!(p.alloc(0), Some(b));
        assert_eq!(p.alloc(0), Some(a));
    }

    #[test]
    fn fifo_without_cache_returns_the_oldest_freed_buffer() {
        let mut p = Mempool::new(0, 2368, 4, 1, 0);
        let got: Vec<u32> = (0..4).map(|_| p.alloc(0).unwrap()).collect();
        for m in &got {
            p.free(0, *m);
        }
        assert_eq!(p.alloc(0), Some(got[0]));
        assert_eq!(p.alloc(0), None.or(Some(got[1])));
    }

    #[test]
    fn addresses_follow_the_object_layout() {
        let p = Mempool::new(1 << 32, 2368, 8, 1, 0);
        assert_eq!(p.mbuf_addr(2), (1 << 32) + 2 * 2368 + 64);
        assert_eq!(p.data_addr(0) - p.mbuf_addr(0), 256);
    }

    #[test]
    fn external_data_lies_in_its_own_region() {
        let p = Mempool::with_external_data(1 << 30, 4, 1, 0, 1 << 40, 2048);
        assert_eq!(p.mbuf_addr(1), (1 << 30) + 192 + 64);
        assert_eq!(p.data_addr(3), (1 << 40) + 3 * 2048);
    }

    proptest! {
        /// No buffer is ever handed out twice or lost.
        #[test]
        fn conserves_buffers(ops in proptest::collection::vec((0usize..2, any::<bool>()), 1..3000), cache in 0usize..64) {
            let mut p = Mempool::new(0, 2368, 200, 2, cache);
            let mut out: Vec<u32> = vec![];
            let mut held = std::collections::HashSet::new();
            for (core, alloc) in ops {
                if alloc || out.is_empty() {
                    if let Some(m) = p.alloc(core) {
                        prop_assert!(held.insert(m), "buffer {} handed out twice", m);
                        out.push(m);
                    }
                } else {
                    let m = out.pop().unwrap();
                    held.remove(&m);
                    p.free(core, m);
                }
                prop_assert_eq!(p.available() + held.len(), 200);
            }
        }
    }
}
