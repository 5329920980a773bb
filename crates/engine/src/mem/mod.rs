//! The host memory system: per-core private L2 caches, a shared LLC with
//! DDIO and CAT way masks, DRAM, and the physical address map.
//!
//! Model choices, and why:
//! - The caches and DRAM see physical lines: `pages` maps the model's
//!   virtual addresses through hugepages, `slice` picks a line's LLC slice.
//! - `llc.inclusive = true`: the LLC holds every L2 line and its entry
//!   tracks which cores hold it. `false` (Skylake-SP and later): the LLC
//!   holds mostly L2 victims and a snoop filter tracks the L2s
//!   (`noninclusive`).
//! - DDIO (write-allocate / write-update): a DMA write to a line present in
//!   any way updates it (a PCIe write hit, PCM's ItoM hit); otherwise the line
//!   is allocated only in the DDIO ways. With DDIO off or a remote-socket NIC
//!   the write goes to DRAM and cached copies are invalidated.
//! - DMA reads hit in any way or are served from DRAM without allocating.
//! - L1 is not modelled: the cycle counts of the NF and driver stand for it;
//!   every core access is an L2 lookup, which trains the L2 prefetchers
//!   (`prefetch`).
//! - Coherence transfers: a load of a line another core holds modified, a
//!   store to a line other cores hold, is served by a snoop of their private
//!   caches and costs `llc.snoop_latency` instead of an LLC hit (shared
//!   locks, bitmaps and indices bounce between cores this way).

pub mod cache;
pub mod check;
pub mod dram;
mod noninclusive;
pub mod pages;
pub mod prefetch;
pub mod sample;
pub mod slice;
mod slice_data;

use crate::config::{LlcReplacement, LlcSliceHash};
use crate::config::{DramCfg, L1dCfg, L2Cfg, LlcCfg, MemCfg};
use crate::sim::{rng, stream};
use crate::units::Time;
use cache::{Cache, Indexing, Policy, Victim, LINE};
use dram::queued::Queued;
use dram::Dram;
use pages::PageTable;
use prefetch::Prefetchers;
use sample::{Sampler, L2_HIT, LLC_HIT, MISS, SNOOP};
use slice::SliceFn;

/// How a DMA write treats the LLC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaMode {
    /// DDIO: update in place or allocate in the DDIO ways.
    Ddio,
    /// DDIO disabled on this root port: write to DRAM.
    NoAllocate,
    /// Device on the remote socket: its traffic crosses UPI to DRAM.
    Remote,
}

/// Event counters; the world snapshots them at the end of warm-up.
#[derive(Clone, Copy, Debug, Default)]
pub struct MemStats {
    /// DMA writes and reads the CHA's lookup found (PCM's PCIe hits: in
    /// the LLC or, non-inclusive, in an L2 the snoop filter tracks) or not.
    pub dma_write_hits: u64,
    pub dma_write_misses: u64,
    pub dma_read_hits: u64,
    pub dma_read_misses: u64,
    /// Of the hits, those the LLC's own ways held.
    pub dma_write_llc_hits: u64,
    pub dma_read_llc_hits: u64,
    pub core_l1_hits: u64,
    pub core_l2_hits: u64,
    pub core_llc_hits: u64,
    pub core_llc_misses: u64,
    pub coherence_invalidations: u64,
    /// L2 copies dropped because the snoop filter evicted their entry.
    pub sf_back_invalidations: u64,
    /// Lines the L2 prefetchers brought in.
    pub l2_prefetches: u64,
    /// Prefetches not issued: the core's superqueue was full.
    pub l2_prefetches_refused: u64,
    /// Partially DMA-written lines whose rest was read from DRAM (RFO misses).
    pub dma_rfo_reads: u64,
    pub dram_read_bytes: u64,
    pub dram_write_bytes: u64,
    /// The host network study's domains (Vuppalapati et al., SIGCOMM'24):
    /// summed latencies of cores' DRAM reads (C2M-Read: the miss until its
    /// data is back), of DMA writes (P2M-Write: at the root port until the
    /// LLC or memory has taken the last line) and of DMA reads (P2M-Read:
    /// until the last line is at the root port), and the requests (a
    /// core's read counted when its data is back: with the controllers,
    /// after its miss).
    pub c2m_read_ps: u64,
    pub c2m_reads: u64,
    pub p2m_write_ps: u64,
    pub p2m_writes: u64,
    pub p2m_read_ps: u64,
    pub p2m_reads: u64,
}

impl MemStats {
    pub fn since(&self, base: &MemStats) -> MemStats {
        MemStats {
            dma_write_hits: self.dma_write_hits - base.dma_write_hits,
            dma_write_misses: self.dma_write_misses - base.dma_write_misses,
            dma_read_hits: self.dma_read_hits - base.dma_read_hits,
            dma_read_misses: self.dma_read_misses - base.dma_read_misses,
            dma_write_llc_hits: self.dma_write_llc_hits - base.dma_write_llc_hits,
            dma_read_llc_hits: self.dma_read_llc_hits - base.dma_read_llc_hits,
            core_l1_hits: self.core_l1_hits - base.core_l1_hits,
            core_l2_hits: self.core_l2_hits - base.core_l2_hits,
            core_llc_hits: self.core_llc_hits - base.core_llc_hits,
            core_llc_misses: self.core_llc_misses - base.core_llc_misses,
            coherence_invalidations: self.coherence_invalidations - base.coherence_invalidations,
            sf_back_invalidations: self.sf_back_invalidations - base.sf_back_invalidations,
            l2_prefetches: self.l2_prefetches - base.l2_prefetches,
            l2_prefetches_refused: self.l2_prefetches_refused - base.l2_prefetches_refused,
            dma_rfo_reads: self.dma_rfo_reads - base.dma_rfo_reads,
            dram_read_bytes: self.dram_read_bytes - base.dram_read_bytes,
            dram_write_bytes: self.dram_write_bytes - base.dram_write_bytes,
            c2m_read_ps: self.c2m_read_ps - base.c2m_read_ps,
            c2m_reads: self.c2m_reads - base.c2m_reads,
            p2m_write_ps: self.p2m_write_ps - base.p2m_write_ps,
            p2m_writes: self.p2m_writes - base.p2m_writes,
            p2m_read_ps: self.p2m_read_ps - base.p2m_read_ps,
            p2m_reads: self.p2m_reads - base.p2m_reads,
        }
    }
}

/// Bump allocator of physical addresses for rings, pools and tables.
pub struct AddressMap {
    next: u64,
}

impl AddressMap {
    pub fn new() -> AddressMap {
        // Start at 1 GiB so no region sits at address zero.
        AddressMap { next: 1 << 30 }
    }
    /// A region of `bytes`, aligned to `align` (a power of two, >= 64).
    pub fn alloc(&mut self, bytes: u64, align: u64) -> u64 {
        let base = self.next.next_multiple_of(align.max(LINE));
        self.next = base + bytes.max(1);
        assert!(
            self.next / LINE < cache::MAX_LINE,
            "host memory map exceeds the modelled 64 GiB"
        );
        base
    }
}

impl Default for AddressMap {
    fn default() -> Self {
        Self::new()
    }
}

/// Lines of a DMA hashed and prefetched together (a 4 KiB page; most DMAs
/// are one batch).
const BATCH: usize = 64;
/// `Memory::llc_sets` of a line set sampling does not model.
const UNSAMPLED: u32 = u32::MAX;

/// The `i`th of `k` lines picked evenly from the `n` lines from `first`:
/// the line whose DRAM channel a predicted miss or write-back of an
/// unsampled line takes (any line of the DMA will do: DRAM uses a line
/// only to pick its channel).
fn spread(first: u64, n: usize, i: u64, k: u64) -> u64 {
    // (rotated by a hash of `first`, so that aligned buffers do not put
    // every lone miss on their first line's channel)
    let rotate = first.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
    first + (i * n as u64 / k + rotate) % n as u64
}

/// The lines `len` bytes at `addr` cover, as (first line, count) batches of
/// at most BATCH lines that do not cross a page of `page_lines`.
fn batches(addr: u64, len: u64, page_lines: u64) -> impl Iterator<Item = (u64, usize)> {
    let end = (addr + len.max(1) - 1) / LINE + 1;
    let mut f = addr / LINE;
    std::iter::from_fn(move || {
        if f >= end {
            return None;
        }
        let page_end = (f | (page_lines - 1)).saturating_add(1);
        let n = (end - f).min(BATCH as u64).min(page_end - f);
        f += n;
        Some((f - n, n as usize))
    })
}

/// The LLC's set indexing: sliced by `llc.slice_hash`, or plain modulo.
pub fn llc_indexing(llc: &LlcCfg) -> Result<Indexing, String> {
    let sets = llc.size / LINE / llc.ways;
    let hash = match llc.slice_hash {
        _ if llc.slices == 1 => return Ok(Indexing::Modulo),
        LlcSliceHash::Off => return Ok(Indexing::Modulo),
        LlcSliceHash::Random => SliceFn::Random { slices: llc.slices },
        LlcSliceHash::Measured => SliceFn::measured(llc.slices).ok_or_else(|| {
            format!(
                "llc.slice_hash = measured: no measured mapping for llc.slices = {}; measured mappings exist for {:?} slices; set llc.slice_hash = random (a strong hash) or none",
                llc.slices,
                slice::measured_counts()
            )
        })?,
    };
    Ok(Indexing::Sliced {
        slices: llc.slices,
        sets_per_slice: sets / llc.slices,
        hash,
    })
}

pub struct Memory {
    pub llc: Cache,
    /// Each core's L1D (none with `l1d.size = 0` or set sampling): see
    /// [`Memory::core_access_modelled`].
    l1: Vec<Cache>,
    l2: Vec<Cache>,
    /// With a non-inclusive LLC: the snoop filter, tracking which L2s hold
    /// a line (its sharers); the LLC's own entries then have none.
    sf: Option<Cache>,
    pub dram: Dram,
    /// With `dram.model = controller`: the memory controllers, which serve
    /// every DRAM request instead of the calendar (`dram` then idles: read
    /// the bytes moved from `stats`).
    pub mc: Option<Queued>,
    ddio_mask: u64,
    /// CAT mask per core (index = core id).
    core_mask: Vec<u64>,
    llc_lat: Time,
    l1_lat: Time,
    l2_lat: Time,
    snoop_lat: Time,
    remote_lat: Time,
    pub stats: MemStats,
    /// LLC misses of each core (PCM's per-core L3 misses).
    pub core_misses: Vec<u64>,
    /// With `llc.set_sample` > 1: which lines the caches model, and the
    /// outcomes of the others.
    sampler: Option<Sampler>,
    /// Virtual to physical lines (the caches and DRAM see physical ones).
    pages: PageTable,
    /// The L2 prefetchers, if any is on.
    prefetch: Option<Prefetchers>,
}

impl Memory {
    /// The LLC, the L2s, the L1Ds and DRAM of their sections;
    /// `core_masks`: the CAT mask of every core that accesses memory.
    pub fn new(
        mem_cfg: &MemCfg,
        llc_cfg: &LlcCfg,
        l1d_cfg: &L1dCfg,
        l2_cfg: &L2Cfg,
        dram_cfg: &DramCfg,
        seed: u64,
        core_masks: Vec<u64>,
    ) -> Memory {
        let n_cores = core_masks.len();
        let ways = llc_cfg.ways as usize;
        let indexing = llc_indexing(llc_cfg).expect("mem::check checked the LLC's mapping");
        let policy = match llc_cfg.replacement {
            LlcReplacement::Random => Policy::Random,
            LlcReplacement::Qlru => Policy::Qlru,
            LlcReplacement::QlruAdaptive => Policy::QlruAdaptive,
            LlcReplacement::Lru => Policy::Lru,
        };
        let sf_ways = llc_cfg.sf_ways as usize;
        let sf = (!llc_cfg.inclusive).then(|| {
            let sets = llc_cfg.size / LINE / ways as u64;
            // (its replacement is unpublished: LRU)
            Cache::new(sets * sf_ways as u64 * LINE, sf_ways, indexing.clone(), Policy::Lru, rng(seed, stream::LLC, 1 << 20))
        });
        let llc = Cache::new(
            llc_cfg.size,
            ways,
            indexing,
            policy,
            rng(seed, stream::LLC, 0),
        );
        let l2 = (0..core_masks.len())
            .map(|i| {
                Cache::new(
                    l2_cfg.size,
                    l2_cfg.ways as usize,
                    Indexing::Modulo,
                    Policy::Lru,
                    rng(seed, stream::LLC, 1 + i as u64),
                )
            })
            .collect();
        // (set sampling models no L1D: sampling its 64 sets would leave
        // too few residues to sample the LLC's and L2s' lines evenly, and
        // an L1D set fed 1 in N of its lines would act N times larger)
        let l1d = l1d_cfg.size > 0 && llc_cfg.set_sample == 1;
        let l1 = (0..if l1d { n_cores } else { 0 })
            .map(|_| Cache::new(l1d_cfg.size, l1d_cfg.ways as usize, Indexing::Modulo, Policy::Lru, rng(seed, stream::LLC, 1 << 21)))
            .collect();
        let n_sample = llc_cfg.set_sample;
        let sampler = (n_sample > 1).then(|| {
            let (llc_low, l2_sets) = sample::low_index_sets(llc_cfg, l2_cfg);
            Sampler::new(n_sample, llc_low.min(l2_sets).trailing_zeros(), n_cores)
        });
        let ddio = llc_cfg.ddio_ways;
        // DDIO owns the top ways (IIO LLC WAYS = 0x600 on an 11-way Skylake).
        let ddio_mask = if ddio == 0 {
            0
        } else {
            ((1u64 << ddio) - 1) << (ways as u64 - ddio)
        };
        Memory {
            llc,
            l1,
            l2,
            sf,
            dram: Dram::host(dram_cfg),
            mc: None,
            ddio_mask,
            core_mask: core_masks,
            llc_lat: llc_cfg.latency,
            l1_lat: l1d_cfg.latency,
            l2_lat: l2_cfg.latency,
            snoop_lat: llc_cfg.snoop_latency,
            remote_lat: dram_cfg.remote_latency,
            stats: MemStats::default(),
            core_misses: vec![0; n_cores],
            sampler,
            pages: PageTable::new(mem_cfg.hugepage, seed),
            prefetch: Prefetchers::new(l2_cfg, n_cores),
        }
    }

    /// Whether the caches model `line` (always, without set sampling).
    #[inline(always)]
    fn sampled(&self, line: u64) -> bool {
        self.sampler.as_ref().is_none_or(|s| s.sampled(line))
    }

    /// Write-backs and invalidations so far, to see what one access caused.
    fn side_effects(&self) -> (u64, u64) {
        (
            self.stats.dram_write_bytes / LINE,
            self.stats.coherence_invalidations,
        )
    }

    /// Tell the sampler what a sampled access of `class` did.
    fn record(&mut self, class: usize, served: usize, before: (u64, u64)) {
        let after = self.side_effects();
        if let Some(s) = &mut self.sampler {
            s.record(class, served, after.0 - before.0, after.1 - before.1);
        }
    }

    /// A line's data goes to DRAM (a write-back or an uncached write);
    /// returns when its channel has taken it, after `now`.
    #[inline]
    fn write_back(&mut self, line: u64, now: Time) -> Time {
        self.stats.dram_write_bytes += LINE;
        match &mut self.mc {
            // (posted: the CHA takes it, and nothing waits for the write queue)
            Some(mc) => {
                mc.post(line, true, now);
                0
            }
            None => self.dram.write(line, now),
        }
    }

    /// A DRAM read nobody in the caches waits for here (a device's, a
    /// merge's); returns its latency: the calendar's, or with the
    /// controllers 0 for an open fetch (the controllers say when it is
    /// back), else the idle path's (the read loads them all the same).
    fn uncore_dram_read(&mut self, line: u64, now: Time) -> Time {
        self.stats.dram_read_bytes += LINE;
        match &mut self.mc {
            Some(mc) => {
                if mc.read_fetched(line, now) {
                    return 0;
                }
                mc.post(line, false, now);
                self.dram.idle_latency()
            }
            None => self.dram.read(line, now),
        }
    }

    /// With the controllers: the DRAM reads that miss from now on depend
    /// each on the one before (a pointer chase), until `false`.
    pub fn set_chained(&mut self, chained: bool) {
        if let Some(mc) = &mut self.mc {
            mc.chained = chained;
        }
    }

    /// Replay the side effects a predicted outcome owes: write-backs go to
    /// DRAM (on the accessed line's channel), invalidations are counted.
    fn owe(&mut self, o: sample::Outcome, line: u64, now: Time) {
        for _ in 0..o.writebacks {
            self.write_back(line, now);
        }
        self.stats.coherence_invalidations += o.invalidations;
    }

    /// The outcome of an unsampled access of `class` (set sampling only).
    fn predict(&mut self, class: usize) -> sample::Outcome {
        self.sampler.as_mut().expect("set sampling is on").predict(class)
    }

    /// The outcomes of `n` unsampled accesses of `class` (set sampling only).
    fn predict_many(&mut self, class: usize, n: u64) -> sample::Outcomes {
        self.sampler.as_mut().expect("set sampling is on").predict_many(class, n)
    }

    /// A core access to an unsampled line, priced by the sampled mix.
    fn core_access_unsampled(&mut self, core: usize, line: u64, write: bool, now: Time) -> Time {
        let o = self.predict(sample::core_class(core, write));
        self.owe(o, line, now);
        match o.served {
            L2_HIT => {
                self.stats.core_l2_hits += 1;
                self.l2_lat
            }
            LLC_HIT => {
                self.stats.core_llc_hits += 1;
                self.llc_lat
            }
            SNOOP => {
                self.stats.core_llc_hits += 1;
                self.snoop_lat
            }
            _ => self.core_dram_read(core, line, now),
        }
    }

    /// [`Memory::core_access`] for a caller that must price the access at
    /// once (a lock held across it): with the controllers a DRAM miss,
    /// whose latency comes back only with its data, is priced at the idle
    /// path (its read still goes out and loads them).
    pub fn core_access_at_once(&mut self, core: usize, addr: u64, write: bool, now: Time) -> Time {
        let missed = self.mc.as_ref().map_or(0, |mc| mc.missed.len());
        let lat = self.core_access(core, addr, write, now);
        if self.mc.as_ref().is_some_and(|mc| mc.missed.len() > missed) {
            return lat.max(self.dram.idle_latency());
        }
        lat
    }

    /// A core's LLC miss served by DRAM; returns its load-to-use latency
    /// (with the controllers 0: the whole latency comes back with the
    /// read's data). `dram.latency` is that whole latency idle (MLC's),
    /// the L2 and LLC lookups on the way included: not added again.
    #[inline(always)]
    fn core_dram_read(&mut self, core: usize, line: u64, now: Time) -> Time {
        self.stats.core_llc_misses += 1;
        self.core_misses[core] += 1;
        self.stats.dram_read_bytes += LINE;
        if let Some(mc) = &mut self.mc {
            // The read leaves its fill buffer once the pass is done; its
            // whole latency comes back with its data.
            mc.missed.push((line, mc.chained));
            return 0;
        }
        let lat = self.dram.read(line, now);
        self.stats.c2m_read_ps += lat;
        self.stats.c2m_reads += 1;
        lat
    }

    /// The LLC's load-to-use latency.
    pub fn llc_latency(&self) -> Time {
        self.llc_lat
    }

    /// Whether the cores have an L1D (`l1d.size` > 0, no set sampling).
    pub fn has_l1d(&self) -> bool {
        !self.l1.is_empty()
    }

    pub fn ddio_enabled(&self) -> bool {
        self.ddio_mask != 0
    }

    /// An LLC victim leaves: dirty data goes to DRAM, private copies are
    /// back-invalidated (their dirty data goes to DRAM too).
    fn evict_llc(&mut self, v: Victim, now: Time) {
        let mut dirty = v.dirty;
        let mut s = v.sharers;
        while s != 0 {
            let core = s.trailing_zeros() as usize;
            s &= s - 1;
            dirty |= self.l2[core].remove(v.line) == Some(true);
        }
        if dirty {
            self.write_back(v.line, now);
        }
    }

    /// Whether one of the cores in `cores` holds `line` modified.
    fn modified_elsewhere(&self, line: u64, mut cores: u64) -> bool {
        while cores != 0 {
            let c = cores.trailing_zeros() as usize;
            cores &= cores - 1;
            if self.l2[c].find(line).is_some_and(|s| self.l2[c].is_dirty(s)) {
                return true;
            }
        }
        false
    }

    /// Invalidate the L2 copies of `line` in `cores` (coherence
    /// invalidations); returns whether one was dirty.
    fn drop_l2_copies(&mut self, line: u64, mut cores: u64) -> bool {
        let mut dirty = false;
        while cores != 0 {
            let core = cores.trailing_zeros() as usize;
            cores &= cores - 1;
            self.stats.coherence_invalidations += 1;
            dirty |= self.l2[core].remove(line) == Some(true);
        }
        dirty
    }

    /// Drop private copies other than `keep`'s; returns whether any was dirty.
    fn invalidate_sharers(&mut self, slot: usize, keep: Option<usize>) -> bool {
        let line_sharers = self.llc.sharers(slot);
        let l = self.llc.line_at(slot);
        let dirty = self.drop_l2_copies(l, line_sharers & !keep.map_or(0, |k| 1u64 << k));
        let keep_bits = line_sharers & keep.map_or(0, |k| 1u64 << k);
        self.llc.clear_sharers(slot);
        if keep_bits != 0 {
            self.llc.add_sharer(slot, keep.unwrap());
        }
        dirty
    }

    /// A core load (`write = false`) or store of the line holding `addr`.
    /// Returns the latency the core sees.
    pub fn core_access(&mut self, core: usize, addr: u64, write: bool, now: Time) -> Time {
        let line = self.pages.phys(addr / LINE);
        if self.prefetch.is_none() {
            return self.demand(core, line, write, now);
        }
        let (l1_hits, l2_hits) = (self.stats.core_l1_hits, self.stats.core_l2_hits);
        let lat = self.demand(core, line, write, now);
        if self.stats.core_l1_hits > l1_hits {
            // (the L2 prefetchers watch the L1's misses: Intel Optimization
            // Manual, "monitors read requests from the L1 cache")
            return lat;
        }
        let l2_hit = self.stats.core_l2_hits > l2_hits;
        self.prefetch_after(core, line, l2_hit, now, lat)
    }

    /// A core's demand access to physical `line`.
    #[inline(always)]
    fn demand(&mut self, core: usize, line: u64, write: bool, now: Time) -> Time {
        if self.sampler.is_none() {
            return self.core_access_modelled(core, line, write, now);
        }
        if !self.sampled(line) {
            return self.core_access_unsampled(core, line, write, now);
        }
        let before = self.side_effects();
        let (l2_hits, llc_hits) = (self.stats.core_l2_hits, self.stats.core_llc_hits);
        let lat = self.core_access_modelled(core, line, write, now);
        let served = if lat == self.snoop_lat && self.snoop_lat != self.l2_lat && self.snoop_lat != self.llc_lat {
            SNOOP
        } else if self.stats.core_l2_hits > l2_hits {
            L2_HIT
        } else if self.stats.core_llc_hits > llc_hits {
            LLC_HIT
        } else {
            MISS
        };
        self.record(sample::core_class(core, write), served, before);
        lat
    }

    /// A core access to a line the caches model: its L1D, else below.
    ///
    /// The L1D holds a subset of its L2: a line the L2 has lost (evicted,
    /// invalidated by a DMA write or another core's store) is gone from it
    /// too, so coherence is the L2's (checked here, on use, rather than on
    /// every L2 removal; a prefetch refilling the L2 drops the stale tag).
    /// A store hits only a line the core owns: one it stored to through
    /// the L2 (whose copy is then modified) and no other core has read
    /// since ([`Memory::l1_share`]); otherwise its RFO goes below.
    #[inline(always)]
    fn core_access_modelled(&mut self, core: usize, line: u64, write: bool, now: Time) -> Time {
        if self.l1.is_empty() {
            return self.l2_access(core, line, write, now);
        }
        match self.l1[core].lookup(line) {
            Ok(s) => {
                if self.l2[core].find(line).is_some() && (!write || self.l1[core].is_dirty(s)) {
                    self.l1[core].touch(s);
                    self.stats.core_l1_hits += 1;
                    return self.l1_lat;
                }
                // A stale tag, or a store to a line not owned: served below,
                // the tag then holds the line afresh (owned after a store).
                let lat = self.l2_access(core, line, write, now);
                let l1 = &mut self.l1[core];
                l1.touch(s);
                if write {
                    l1.set_dirty(s);
                } else {
                    l1.clear_dirty(s);
                }
                lat
            }
            Err(set) => {
                let lat = self.l2_access(core, line, write, now);
                // (its victim needs nothing: the L2 copy holds its state)
                let all = self.l1[core].all_ways();
                self.l1[core].insert_at(set, line, all, write);
                lat
            }
        }
    }

    /// Other cores (`cores`) have had their modified `line` read by a
    /// snoop: their copies are shared now, so a store of theirs needs an
    /// RFO again.
    fn l1_share(&mut self, line: u64, mut cores: u64) {
        while cores != 0 {
            let c = cores.trailing_zeros() as usize;
            cores &= cores - 1;
            if let Some(l1) = self.l1.get_mut(c) {
                if let Some(s) = l1.find(line) {
                    l1.clear_dirty(s);
                }
            }
        }
    }

    /// A core access below the L1D: its L2, the LLC, DRAM.
    #[inline(always)]
    fn l2_access(&mut self, core: usize, line: u64, write: bool, now: Time) -> Time {
        if self.sf.is_some() {
            return self.core_access_ni(core, line, write, now);
        }
        if let Some(s) = self.l2[core].find(line) {
            self.l2[core].touch(s);
            self.stats.core_l2_hits += 1;
            if write {
                self.l2[core].set_dirty(s);
                // A store to a shared line invalidates the other copies
                // (a read-for-ownership snoop).
                if let Some(ls) = self.llc.find(line) {
                    if self.llc.sharers(ls) & !(1u64 << core) != 0 {
                        self.invalidate_sharers(ls, Some(core));
                        return self.snoop_lat;
                    }
                }
            }
            return self.l2_lat;
        }
        let lat;
        let found = self.llc.lookup(line);
        if let Ok(ls) = found {
            self.llc.touch(ls);
            self.stats.core_llc_hits += 1;
            let others = self.llc.sharers(ls) & !(1u64 << core);
            // Another core's copy must be snooped: invalidated for a store,
            // forwarded if it is modified for a load.
            let snoop = others != 0 && (write || self.modified_elsewhere(line, others));
            if snoop && !write {
                self.l1_share(line, others);
            }
            if write && self.invalidate_sharers(ls, Some(core)) {
                self.llc.set_dirty(ls);
            }
            self.llc.add_sharer(ls, core);
            lat = if snoop { self.snoop_lat } else { self.llc_lat };
        } else {
            lat = self.core_dram_read(core, line, now);
            let set = found.expect_err("a miss");
            let (ls, victim) = self.llc.insert_at(set, line, self.core_mask[core], false);
            if let Some(v) = victim {
                self.evict_llc(v, now);
            }
            self.llc.add_sharer(ls, core);
        }
        let all = self.l2[core].all_ways();
        let (_, victim) = self.l2[core].insert(line, all, write);
        if let Some(v) = victim {
            // Inclusive LLC: the L2 victim is in the LLC; hand back its data.
            if let Some(ls) = self.llc.find(v.line) {
                self.llc.remove_sharer(ls, core);
                if v.dirty {
                    self.llc.set_dirty(ls);
                }
            } else if v.dirty {
                self.write_back(v.line, now);
            }
        }
        lat
    }

    /// The LLC sets of lines `first..first + n` (n <= BATCH), each
    /// prefetched into the host cache (with the snoop filter's set);
    /// UNSAMPLED for lines set sampling leaves out. A DMA hashes each line
    /// once, and the sets of its lines load in parallel.
    #[inline(always)]
    fn llc_sets(&self, first: u64, n: usize, sets: &mut [u32; BATCH]) {
        self.llc.sets_of_run(first, &mut sets[..n]);
        for (i, line) in (first..first + n as u64).enumerate() {
            if self.sampled(line) {
                self.llc.prefetch_set(sets[i] as usize);
                if let Some(sf) = &self.sf {
                    sf.prefetch_set(sets[i] as usize);
                }
            } else {
                sets[i] = UNSAMPLED;
            }
        }
    }

    /// A DMA write of `len` bytes at `addr`, arriving at the root complex
    /// at `now`. Returns how long the root port holds it: until the last
    /// line is committed to the LLC (DDIO) or taken by a memory channel
    /// (non-allocating), after the home agent's (CHA's) lookup and any
    /// snoop of cached copies. A line the write covers only in part is
    /// an RFO (Intel PCM: "Demand Data RFO [PCIe write partial cache
    /// line]"; a whole line is an ItoM): the rest of the line must be read
    /// before the merge, from DRAM when no cache holds it.
    pub fn dma_write(&mut self, addr: u64, len: u64, mode: DmaMode, now: Time) -> Time {
        let allocating = mode == DmaMode::Ddio && self.ddio_mask != 0;
        let mut commit = 0;
        let mut sets = [0u32; BATCH];
        // (virtual lines: the first and last the write touches, if partial)
        let end = addr + len.max(1);
        let head = if addr % LINE != 0 || len < LINE { addr / LINE } else { u64::MAX };
        let tail = if end % LINE != 0 { (end - 1) / LINE } else { u64::MAX };
        for (virt, n) in batches(addr, len, self.pages.page_lines()) {
            let first = self.pages.phys(virt);
            self.llc_sets(first, n, &mut sets);
            let mut skipped = 0;
            for (i, &s) in sets[..n].iter().enumerate() {
                let (line, v) = (first + i as u64, virt + i as u64);
                let partial = (v == head) | (v == tail);
                let c = if s == UNSAMPLED {
                    // (set sampling prices an unsampled line's hit or miss by
                    // the sampled mix, but not its RFO read: left out)
                    skipped += 1;
                    if allocating {
                        self.llc_lat
                    } else {
                        self.llc_lat + self.dma_write_dram(line, now)
                    }
                } else {
                    self.dma_write_line(s as usize, line, allocating, partial, now)
                };
                commit = commit.max(c);
            }
            if skipped > 0 && allocating {
                self.dma_write_unsampled(first, n, skipped, now);
            }
        }
        self.stats.p2m_write_ps += commit;
        self.stats.p2m_writes += 1;
        commit
    }

    /// A DMA write of one modelled line of LLC set `set`; returns how long
    /// it takes to commit.
    #[inline(always)]
    fn dma_write_line(&mut self, set: usize, line: u64, allocating: bool, partial: bool, now: Time) -> Time {
        let before = self.side_effects();
        let (hits, llc_hits) = (self.stats.dma_write_hits, self.stats.dma_write_llc_hits);
        // (non-inclusive: the L2 copies the snoop filter tracks go; the
        // lookup found the line in the combined LLC / snoop-filter tags)
        let in_l2 = self.sf.is_some() && self.sf_drop(set, line).is_some();
        // (the CHA's lookup, or a snoop when private copies must go)
        let mut commit = if in_l2 { self.snoop_lat } else { self.llc_lat };
        match (self.llc.lookup_in(set, line), allocating) {
            (Ok(s), true) => {
                self.stats.dma_write_hits += 1;
                self.stats.dma_write_llc_hits += 1;
                if self.llc.sharers(s) != 0 {
                    self.invalidate_sharers(s, None);
                    commit = self.snoop_lat;
                }
                self.llc.touch(s);
                self.llc.set_dirty(s);
            }
            (Err(set), true) => {
                // A line only an L2 held is a hit of the tag lookup (PCM's
                // ItoM hit) but has no LLC copy to update: it is allocated.
                if in_l2 {
                    self.stats.dma_write_hits += 1;
                } else {
                    self.stats.dma_write_misses += 1;
                    if partial {
                        commit += self.rfo_read(line, now + commit);
                    }
                }
                let (_, victim) = self.llc.insert_at(set, line, self.ddio_mask, true);
                if let Some(v) = victim {
                    self.evict_llc(v, now);
                }
            }
            (found, false) => {
                // Non-allocating: cached copies are stale, data goes to DRAM.
                if let Ok(s) = found {
                    if self.llc.sharers(s) != 0 {
                        commit = self.snoop_lat;
                    }
                    self.invalidate_sharers(s, None);
                    self.llc.clear(s);
                } else if partial && !in_l2 {
                    commit += self.rfo_read(line, now + commit);
                }
                commit += self.dma_write_dram(line, now + commit);
            }
        }
        if allocating && self.sampler.is_some() {
            let served = if self.stats.dma_write_llc_hits > llc_hits {
                LLC_HIT
            } else if self.stats.dma_write_hits > hits {
                SNOOP
            } else {
                MISS
            };
            self.record(sample::DMA_WRITE, served, before);
        }
        commit
    }

    /// DDIO writes of `skipped` unsampled lines among the `n` from `first`:
    /// they hit or allocate as sampled DDIO writes recently did.
    #[cold]
    fn dma_write_unsampled(&mut self, first: u64, n: usize, skipped: u64, now: Time) {
        let o = self.predict_many(sample::DMA_WRITE, skipped);
        self.stats.dma_write_misses += o.served[MISS];
        self.stats.dma_write_hits += skipped - o.served[MISS];
        self.stats.dma_write_llc_hits += o.served[LLC_HIT];
        for i in 0..o.writebacks {
            self.write_back(spread(first, n, i, o.writebacks), now);
        }
        self.stats.coherence_invalidations += o.invalidations;
    }

    /// The rest of a partially written line, read from DRAM for the merge;
    /// returns its latency.
    fn rfo_read(&mut self, line: u64, now: Time) -> Time {
        self.stats.dma_rfo_reads += 1;
        self.uncore_dram_read(line, now)
    }

    /// A non-allocating DMA write of a line (its cached copies dropped);
    /// returns when a memory channel has taken it, after `now`.
    fn dma_write_dram(&mut self, line: u64, now: Time) -> Time {
        self.stats.dma_write_misses += 1;
        if let Some(mc) = &mut self.mc {
            // (its buffer entry waits for the write queue: see `hold`)
            self.stats.dram_write_bytes += LINE;
            mc.post_held(line, now);
            return 0;
        }
        self.write_back(line, now)
    }

    /// With the controllers: the device writes to DRAM from now until
    /// [`Memory::unhold`] hold their IIO write-buffer entries until the
    /// write queues take them (the host network study's P2M-Write domain).
    pub fn hold(&mut self) {
        if let Some(mc) = &mut self.mc {
            mc.hold();
        }
    }

    /// The hold's id, if it holds a write (see `dram::queued`'s `freed`).
    pub fn unhold(&mut self) -> Option<u32> {
        self.mc.as_mut().and_then(|mc| mc.unhold())
    }

    /// With the controllers: the device reads from DRAM from now until
    /// [`Memory::unfetch`] wait for their data from the controllers (the
    /// host network study's P2M-Read domain); without, they are priced
    /// at once.
    pub fn fetch(&mut self) {
        if let Some(mc) = &mut self.mc {
            mc.fetch();
        }
    }

    /// The fetch's id, if it reads from DRAM (see `dram::queued`'s
    /// `fetches`).
    pub fn unfetch(&mut self) -> Option<u32> {
        self.mc.as_mut().and_then(|mc| mc.unfetch())
    }

    /// What a device's access in `mode` adds for crossing to the other
    /// socket.
    pub fn remote_latency(&self, mode: DmaMode) -> Time {
        if mode == DmaMode::Remote {
            self.remote_lat
        } else {
            0
        }
    }

    /// A DMA read of `len` bytes at `addr` reaching the host at `now`.
    /// Returns the time until the last line is available to the root complex.
    pub fn dma_read(&mut self, addr: u64, len: u64, mode: DmaMode, now: Time) -> Time {
        let extra = self.remote_latency(mode);
        let mut lat = 0;
        let mut sets = [0u32; BATCH];
        for (virt, n) in batches(addr, len, self.pages.page_lines()) {
            let first = self.pages.phys(virt);
            self.llc_sets(first, n, &mut sets);
            let mut skipped = 0;
            for (line, &s) in (first..).zip(&sets[..n]) {
                if s == UNSAMPLED {
                    skipped += 1;
                    continue;
                }
                let hit = self.llc.lookup_in(s as usize, line).map(|s| self.llc.touch(s)).is_ok();
                // (non-inclusive: an L2 may hold it, and a snoop serves it)
                let snooped = !hit && self.in_some_l2(s as usize, line);
                if let Some(s) = &mut self.sampler {
                    s.record(sample::DMA_READ, if hit { LLC_HIT } else if snooped { SNOOP } else { MISS }, 0, 0);
                }
                if hit || snooped {
                    self.stats.dma_read_hits += 1;
                    self.stats.dma_read_llc_hits += hit as u64;
                    lat = lat.max(if hit { self.llc_lat } else { self.snoop_lat });
                } else {
                    lat = lat.max(self.dma_read_miss(line, now) + extra);
                }
            }
            if skipped > 0 {
                lat = lat.max(self.dma_read_unsampled(first, n, skipped, extra, now));
            }
        }
        self.stats.p2m_read_ps += lat;
        self.stats.p2m_reads += 1;
        lat
    }

    /// DMA reads of `skipped` unsampled lines among the `n` from `first`:
    /// the sampled mix of DMA reads; returns the latency of the slowest.
    #[cold]
    fn dma_read_unsampled(&mut self, first: u64, n: usize, skipped: u64, extra: Time, now: Time) -> Time {
        let o = self.predict_many(sample::DMA_READ, skipped);
        let misses = o.served[MISS];
        self.stats.dma_read_hits += skipped - misses;
        self.stats.dma_read_llc_hits += o.served[LLC_HIT];
        let mut lat = if misses < skipped { self.llc_lat } else { 0 };
        for i in 0..misses {
            lat = lat.max(self.dma_read_miss(spread(first, n, i, misses), now) + extra);
        }
        lat
    }

    /// A DMA read of `line` from DRAM; returns its latency.
    fn dma_read_miss(&mut self, line: u64, now: Time) -> Time {
        self.stats.dma_read_misses += 1;
        self.uncore_dram_read(line, now)
    }

    /// A non-temporal (streaming) store of a whole line: no read for
    /// ownership; cached copies are dropped and the line goes to DRAM.
    pub fn nt_store(&mut self, addr: u64, now: Time) {
        let line = self.pages.phys(addr / LINE);
        if self.sampled(line) && self.sf.is_some() {
            let _ = self.sf_drop(self.llc.set_of(line) as usize, line);
        }
        if let Some(s) = self.sampled(line).then(|| self.llc.find(line)).flatten() {
            self.invalidate_sharers(s, None);
            self.llc.clear(s);
        }
        self.write_back(line, now);
    }

    /// Flush `len` bytes at `addr` from every cache (clflush): dirty data is
    /// written back to DRAM, all copies are invalidated.
    pub fn flush(&mut self, addr: u64, len: u64, now: Time) {
        for virt in addr / LINE..=(addr + len.max(1) - 1) / LINE {
            let line = self.pages.phys(virt);
            if self.sampled(line) && self.sf.is_some() && self.sf_drop(self.llc.set_of(line) as usize, line) == Some(true) {
                self.write_back(line, now);
            }
            // (an unsampled line is in no cache: nothing to flush)
            if let Some(v) = self
                .sampled(line)
                .then(|| self.llc.invalidate(line))
                .flatten()
            {
                self.evict_llc(v, now);
            }
        }
    }

    /// Lines of the LLC currently in the DDIO ways (for invariants, tests).
    pub fn llc_occupancy(&self) -> usize {
        self.llc.occupancy()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::validated as validate;
    use serde_json::json;

    fn mem(extra: serde_json::Value) -> Memory {
        let mut s = json!({"llc": {"size": "704KiB", "ways": 11, "slices": 1, "slice_hash": "none", "inclusive": true}, "l2": {"size": "64KiB", "prefetch_adjacent": false, "prefetch_streamer": false}, "mem": {"hugepage": "flat"}, "l1d": {"size": 0}});
        if let (Some(a), Some(b)) = (s.as_object_mut(), extra.as_object()) {
            for (k, v) in b {
                a.insert(k.clone(), v.clone());
            }
        }
        let c = validate(&s).unwrap();
        Memory::new(
            &c.mem,
            &c.llc,
            &c.l1d,
            &c.l2,
            &c.dram,
            c.sim.seed,
            vec![c.llc.cat_masks.as_slice().first().copied().unwrap_or(0x7ff); 2],
        )
    }

    /// `dram.latency` is MLC's idle latency, the whole load-to-use of a
    /// DRAM read: a cold load costs it, not the LLC's lookup on top.
    #[test]
    fn a_cold_load_costs_the_measured_idle_latency() {
        let mut m = mem(json!({"dram": {"latency": "90ns"}}));
        let lat = m.core_access(0, 1 << 30, false, 1_000_000);
        assert!((90_000..=93_000).contains(&lat), "{lat}");
        let e = validate(&json!({"dram": {"latency": "20ns"}, "llc": {"latency": "26ns"}})).err().unwrap();
        assert!(e.to_string().contains("dram.latency = 20 ns: must exceed llc.latency = 26 ns"), "{e}");
    }

    /// A DMA write covering part of a line reads the rest first (an RFO),
    /// from DRAM when no cache holds the line; whole lines (ItoM) never
    /// read. The read lengthens the root port's hold on the write.
    #[test]
    fn partial_line_dma_writes_read_the_line_whole_ones_do_not() {
        for ddio in [2, 0] {
            let mut m = mem(json!({"llc": {"size": "704KiB", "ways": 11, "slices": 1, "slice_hash": "none", "inclusive": true, "ddio_ways": ddio}}));
            let mode = DmaMode::Ddio;
            let (base, t) = (1u64 << 30, 1_000_000);
            // 1496 B from a line boundary: 23 whole lines, 1 partial.
            let full_commit = m.dma_write(base, 1472, mode, t);
            assert_eq!(m.stats.dma_rfo_reads, 0);
            let commit = m.dma_write(base + 4096, 1496, mode, t);
            assert_eq!((m.stats.dma_rfo_reads, m.stats.dram_read_bytes), (1, 64), "ddio {ddio}");
            assert!(commit >= full_commit + m.dram.idle_latency(), "{commit} vs {full_commit}");
            // Unaligned start and end: two partial lines.
            m.dma_write(base + 8192 + 8, 100, mode, t);
            assert_eq!(m.stats.dma_rfo_reads, 3);
            if ddio > 0 {
                // Now cached (DDIO allocated it): the merge reads no DRAM.
                m.dma_write(base + 4096 + 1472, 24, mode, t);
                assert_eq!(m.stats.dma_rfo_reads, 3);
            }
        }
        // A line a core holds is merged from the cache, not DRAM.
        let mut m = mem(json!({}));
        m.core_access(0, 1 << 30, true, 0);
        m.dma_write(1 << 30, 60, DmaMode::Ddio, 1000);
        assert_eq!(m.stats.dma_rfo_reads, 0);
    }

    /// Set sampling is exact for the lines it models: a mixed trace of DMA
    /// writes and reads and core loads and stores over sampled lines gives
    /// the same latencies and counters as the full model.
    #[test]
    fn sampled_lines_behave_exactly_as_in_the_full_model() {
        for inclusive in [true, false] {
            sampled_lines_are_exact(inclusive);
        }
    }

    fn sampled_lines_are_exact(inclusive: bool) {
        use rand::Rng as _;
        let llc = json!({"size": "704KiB", "ways": 11, "slices": 1, "slice_hash": "none", "inclusive": inclusive});
        let mut sampled_llc = llc.clone();
        sampled_llc["set_sample"] = json!(8);
        let mut full = mem(json!({ "llc": llc }));
        let mut part = mem(json!({ "llc": sampled_llc }));
        let sampler = part.sampler.as_ref().expect("sampling on");
        // 3 x the LLC's lines, so there are evictions and write-backs
        let lines: Vec<u64> = (0..3 * 11 * 1024u64)
            .map(|i| (1 << 24) + i)
            .filter(|&l| sampler.sampled(l))
            .collect();
        assert_eq!(lines.len(), 3 * 11 * 1024 / 8);
        let mut r = crate::sim::rng(9, 0, 0);
        for t in 0..200_000u64 {
            let a = lines[r.gen_range(0..lines.len())] * LINE;
            let now = t * 1000;
            match r.gen_range(0..4) {
                0 => {
                    full.dma_write(a, 64, DmaMode::Ddio, now);
                    part.dma_write(a, 64, DmaMode::Ddio, now);
                }
                1 => assert_eq!(
                    full.dma_read(a, 64, DmaMode::Ddio, now),
                    part.dma_read(a, 64, DmaMode::Ddio, now)
                ),
                k => {
                    let (core, write) = (k as usize - 2, r.gen_bool(0.3));
                    assert_eq!(
                        full.core_access(core, a, write, now),
                        part.core_access(core, a, write, now)
                    );
                }
            }
        }
        assert_eq!(format!("{:?}", full.stats), format!("{:?}", part.stats));
        assert!(full.stats.dram_write_bytes > 0 && full.stats.coherence_invalidations > 0);
    }

    #[test]
    fn dma_write_updates_a_cached_line_and_invalidates_the_core_copy() {
        let mut m = mem(json!({}));
        let a = 0x1_0000_0000;
        m.core_access(0, a, false, 0);
        assert_eq!(m.core_access(0, a, false, 0), m.l2_lat);
        m.dma_write(a, 64, DmaMode::Ddio, 0);
        assert_eq!(m.stats.dma_write_hits, 1);
        assert_eq!(m.stats.coherence_invalidations, 1);
        // The core's next read misses its L2 and hits the updated LLC line.
        assert_eq!(m.core_access(0, a, false, 0), m.llc_lat);
    }

    #[test]
    fn ddio_allocates_only_in_its_ways() {
        let mut m = mem(json!({}));
        // 1024 sets: 3 lines per set cycle through 2 DDIO ways, so every
        // write misses (LRU), while core lines in other ways survive.
        let sets = m.llc.sets();
        let core_line = 0x2_0000_0000u64;
        m.core_access(0, core_line, false, 0);
        for round in 0..3 {
            for k in 0..3u64 {
                m.dma_write(
                    (k * sets) * 64 + 0x1_0000_0000 - (0x1_0000_0000 % (sets * 64)),
                    64,
                    DmaMode::Ddio,
                    0,
                );
            }
            let _ = round;
        }
        assert_eq!(m.stats.dma_write_hits, 0);
        assert_eq!(m.stats.dma_write_misses, 9);
        assert!(m.llc.find(core_line / 64).is_some());
    }

    #[test]
    fn ddio_off_writes_to_dram() {
        let mut m = mem(
            json!({"llc": {"size": "704KiB", "ways": 11, "slices": 1, "slice_hash": "none", "inclusive": true, "ddio_ways": 0}}),
        );
        m.dma_write(0x1_0000_0000, 1500, DmaMode::Ddio, 0);
        assert_eq!(m.stats.dma_write_misses, 24);
        assert_eq!(m.stats.dram_write_bytes, 24 * 64);
        assert_eq!(m.llc_occupancy(), 0);
    }

    /// With set sampling, every line of a DMA is counted once, modelled or
    /// predicted; without DDIO every line still goes to DRAM.
    #[test]
    fn sampled_dmas_account_for_every_line() {
        for ddio in [2, 0] {
            let llc = json!({"size": "704KiB", "ways": 11, "slices": 1, "slice_hash": "none", "inclusive": true, "ddio_ways": ddio, "set_sample": 8});
            let mut m = mem(json!({ "llc": llc }));
            let lines = 3 * 11 * 1024u64; // 3x the LLC: evictions
            for i in 0..lines / 32 {
                m.dma_write((1 << 30) + i * 2048, 2048, DmaMode::Ddio, i * 1000);
            }
            let s = m.stats;
            assert_eq!(s.dma_write_hits + s.dma_write_misses, lines, "ddio {ddio}");
            if ddio == 0 {
                assert_eq!(s.dram_write_bytes, lines * 64);
            } else {
                assert!(s.dma_write_misses > 0 && s.dram_write_bytes > 0, "{s:?}");
            }
            let lat = m.dma_read(1 << 30, 4096, DmaMode::Ddio, lines * 1000);
            assert_eq!(m.stats.dma_read_hits + m.stats.dma_read_misses, 64);
            assert!(lat >= m.llc_lat, "{lat}");
        }
    }

    #[test]
    fn dma_read_hits_after_ddio_write_and_misses_after_eviction() {
        let mut m = mem(json!({}));
        m.dma_write(0x1_0000_0000, 1500, DmaMode::Ddio, 0);
        let lat = m.dma_read(0x1_0000_0000, 1500, DmaMode::Ddio, 0);
        assert_eq!(m.stats.dma_read_hits, 24);
        assert_eq!(lat, m.llc_lat);
        m.dma_read(0x3_0000_0000, 64, DmaMode::Ddio, 0);
        assert_eq!(m.stats.dma_read_misses, 1);
    }

    #[test]
    fn remote_dma_bypasses_the_llc() {
        let mut m = mem(json!({}));
        m.dma_write(0x1_0000_0000, 640, DmaMode::Remote, 0);
        assert_eq!(m.llc_occupancy(), 0);
        assert_eq!(m.stats.dram_write_bytes, 640);
    }

    #[test]
    fn cat_mask_confines_core_fills() {
        let mut m = mem(
            json!({"llc": {"size": "704KiB", "ways": 11, "slices": 1, "slice_hash": "none", "inclusive": true, "cat_masks": [3]}}),
        );
        for i in 0..5000u64 {
            m.core_access(0, 0x1_0000_0000 + i * 64, false, 0);
        }
        // Only 2 of 11 ways may hold core lines.
        assert!(m.llc_occupancy() <= 2 * m.llc.sets() as usize);
    }

    /// A memory with a 32 KiB 8-way L1D per core (and `extra`'s sections).
    fn with_l1(inclusive: bool, mut extra: serde_json::Value) -> Memory {
        extra["l1d"] = json!({"size": "32KiB", "ways": 8, "latency": "1ns"});
        extra["llc"] = json!({"size": "704KiB", "ways": 11, "slices": 1, "slice_hash": "none", "inclusive": inclusive});
        mem(extra)
    }

    #[test]
    fn the_l1d_serves_a_reload_and_loses_what_its_l2_loses() {
        for inclusive in [true, false] {
            let mut m = with_l1(inclusive, json!({}));
            let a = 0x1_0000_0000;
            assert!(m.core_access(0, a, false, 0) > m.l2_lat, "cold: from DRAM");
            assert_eq!(m.core_access(0, a, false, 0), m.l1_lat);
            assert_eq!((m.stats.core_l1_hits, m.stats.core_l2_hits), (1, 0), "the L2 never saw the reload");
            // A DMA write invalidates the core's copies: the next load finds
            // the new data in the LLC, not the stale L1D line.
            m.dma_write(a, 64, DmaMode::Ddio, 0);
            assert_eq!(m.core_access(0, a, false, 0), m.llc_lat, "inclusive {inclusive}");
            // 8 more lines of its L1D set (64 sets) evict it from the L1D
            // only: the L2 serves it.
            for i in 1..=8u64 {
                m.core_access(0, a + i * 64 * 64, false, 0);
            }
            assert_eq!(m.core_access(0, a, false, 0), m.l2_lat);
        }
    }

    #[test]
    fn an_l1d_store_hit_needs_ownership() {
        for inclusive in [true, false] {
            let mut m = with_l1(inclusive, json!({}));
            let a = 0x1_0000_0000;
            m.core_access(0, a, false, 0);
            m.core_access(1, a, false, 0);
            // Shared with core 1: core 0's store is an RFO below the L1D,
            // which invalidates core 1's copies.
            assert_eq!(m.core_access(0, a, true, 0), m.snoop_lat, "inclusive {inclusive}");
            assert_eq!(m.core_access(0, a, true, 0), m.l1_lat, "owned now");
            // Core 1 reads the modified line (a snoop); core 0's next store
            // needs ownership again.
            assert_eq!(m.core_access(1, a, false, 0), m.snoop_lat);
            assert_eq!(m.core_access(0, a, true, 0), m.snoop_lat, "inclusive {inclusive}");
        }
    }

    /// A prefetch that refills a line into the L2 does not revive the L1D's
    /// stale tag of it: after a DMA write, the core's next load of the line
    /// is served below the L1D even once the adjacent-line prefetcher has
    /// brought it back.
    #[test]
    fn a_prefetch_refill_does_not_revive_a_stale_l1d_line() {
        for inclusive in [true, false] {
            let mut m = with_l1(inclusive, json!({"l2": {"size": "64KiB", "prefetch_adjacent": true, "prefetch_streamer": false}}));
            let a = 0x1_0000_0000;
            m.core_access(0, a, false, 0);
            m.dma_write(a, 128, DmaMode::Ddio, 0);
            m.core_access(0, a + 64, false, 0); // (its pair, a, comes back by prefetch)
            let l1_hits = m.stats.core_l1_hits;
            assert!(m.core_access(0, a, false, 0) > m.l1_lat, "inclusive {inclusive}");
            assert_eq!(m.stats.core_l1_hits, l1_hits);
        }
    }

    /// The streamer watches L1D misses: a reload the L1D serves trains
    /// nothing. (Lines 10 then 9 start a descending stream; were the
    /// reload of 10 seen, it would turn the stream and fetch 11 and 12.)
    #[test]
    fn the_streamer_sees_only_l1d_misses() {
        let mut m = with_l1(false, json!({"l2": {"size": "64KiB", "prefetch_streamer": true, "prefetch_adjacent": false}}));
        let a = 0x1_0000_0000;
        m.core_access(0, a + 10 * 64, false, 0);
        m.core_access(0, a + 9 * 64, false, 0);
        assert_eq!(m.stats.l2_prefetches, 2, "lines 8 and 7");
        assert_eq!(m.core_access(0, a + 10 * 64, false, 0), m.l1_lat);
        assert_eq!(m.stats.l2_prefetches, 2);
    }

    /// With the controllers, a prefetch that misses the LLC holds a
    /// superqueue entry until its data is back: a walk through a page
    /// with nothing back yet issues `l2.superqueue` prefetches, no more;
    /// unbounded, the streamer runs to the page's end.
    #[test]
    fn prefetches_wait_for_a_superqueue_entry() {
        let walk = |sq: u64| {
            let mut m = mem(json!({"l2": {"size": "64KiB", "prefetch_streamer": true, "prefetch_adjacent": false, "superqueue": sq}}));
            m.mc = crate::mem::dram::queued::Queued::from_cfg(&validate(&json!({"dram": {"model": "controller"}})).unwrap().dram).unwrap();
            let a = 0x1_0000_0000;
            for i in 0..64 {
                m.core_access(0, a + i * 64, false, 0);
            }
            let mc = m.mc.as_ref().unwrap();
            (m.stats.l2_prefetches, m.stats.l2_prefetches_refused, mc.in_flight(0))
        };
        assert_eq!(walk(16), (16, 46, 16), "lines 2..=17 prefetched, every later one refused");
        let (issued, refused, _) = walk(0);
        assert_eq!((issued, refused), (62, 0));
    }
}
