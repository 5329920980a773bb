//! The L2 hardware prefetchers of Intel's cores, as the Intel 64 and IA-32
//! Architectures Optimization Reference Manual describes them ("Data
//! Prefetching", Sandy Bridge onwards, unchanged through Skylake-SP):
//!
//! - the spatial (adjacent-line) prefetcher completes every line an L2
//!   demand miss fetches with the other line of its 128-byte-aligned pair;
//! - the streamer keeps up to 32 streams, one forward and one backward per
//!   4 KiB page; once accesses in a page move in one direction it fetches
//!   the next lines of the page, at most two per L2 lookup and at most 20
//!   lines ahead of the load.
//!
//! Both watch the L1D's misses (the manual: the streamer "monitors read
//! requests from the L1 cache"), so a line the L1D serves trains neither.
//!
//! With the memory controllers a prefetch that misses the LLC takes an
//! entry of the core's superqueue (`l2.superqueue`: the L2's outstanding
//! misses to memory, demand and prefetch alike) until its data is back; a
//! prefetch finding the superqueue full is not issued (checked before
//! its LLC lookup, so one the LLC would serve is refused too). Demand
//! reads are bounded by the fill buffers alone: entries the prefetches
//! hold do not hold them back, so the two together can exceed the
//! superqueue by up to `cpu.mlp`. The manual says the
//! streamer then "prefetches to the LLC only and less far ahead"; how many
//! of those can be outstanding it does not say, so they are left out.
//!
//! Left out too: the L1D's own prefetchers (DCU next-line and IP-stride):
//! a line-granular model has neither the byte offsets nor the load
//! instructions they train on.

use super::Memory;
use crate::units::Time;

/// Streams the streamer tracks.
const STREAMS: usize = 32;
/// Lines the streamer runs ahead of the load, at most.
const AHEAD: u64 = 20;
/// Prefetches the streamer issues per L2 lookup, at most.
const PER_LOOKUP: usize = 2;
/// Lines in a 4 KiB page.
const PAGE_LINES: u64 = 64;

#[derive(Clone, Copy, Default)]
struct Stream {
    /// The last line accessed in the page.
    last: u64,
    /// +1 ascending, -1 descending, 0 not yet seen to move.
    dir: i64,
    /// The furthest line prefetched.
    front: u64,
}

/// One core's streamer.
#[derive(Clone)]
pub struct Streamer {
    /// Each stream's 4 KiB page (line / 64) + 1; 0 = unused. (u32: lines
    /// stay below 2^30, so pages below 2^24.) A page is in one stream at
    /// most.
    pages: [u32; STREAMS],
    streams: [Stream; STREAMS],
    /// The stream used last (most accesses stay in one page).
    last: usize,
    /// The next stream a new page replaces (the oldest started; Intel does
    /// not say which the hardware drops).
    next: usize,
    /// Per bucket of pages (page % BUCKETS): how many streams hold a page
    /// of it, and the stream that took one last. Most accesses find their
    /// stream, or learn that none holds the page, without a search.
    in_bucket: [u8; BUCKETS],
    hint: [u8; BUCKETS],
}

/// Buckets of the streamer's page index (8 per stream: a new page's bucket
/// is rarely taken).
const BUCKETS: usize = 256;

impl Default for Streamer {
    fn default() -> Self {
        Streamer {
            pages: [0; STREAMS],
            streams: [Stream::default(); STREAMS],
            last: 0,
            next: 0,
            in_bucket: [0; BUCKETS],
            hint: [0; BUCKETS],
        }
    }
}

impl Streamer {
    /// Train on an access to `line`; the lines to prefetch go to `out`
    /// (returns how many).
    pub fn access(&mut self, line: u64, out: &mut [u64; PER_LOOKUP]) -> usize {
        debug_assert!(line < super::cache::MAX_LINE);
        let page = (line / PAGE_LINES + 1) as u32;
        let b = page as usize % BUCKETS;
        let found = if self.pages[self.last] == page {
            Some(self.last)
        } else if self.in_bucket[b] == 0 {
            None
        } else if self.pages[self.hint[b] as usize] == page {
            Some(self.hint[b] as usize)
        } else {
            find(&self.pages, page)
        };
        let i = match found {
            Some(i) => i,
            None => {
                let i = self.next;
                self.next = (i + 1) % STREAMS;
                if self.pages[i] != 0 {
                    self.in_bucket[self.pages[i] as usize % BUCKETS] -= 1;
                }
                self.in_bucket[b] += 1;
                self.hint[b] = i as u8;
                self.pages[i] = page;
                self.streams[i] = Stream { last: line, dir: 0, front: line };
                self.last = i;
                return 0;
            }
        };
        self.last = i;
        self.hint[b] = i as u8;
        let s = &mut self.streams[i];
        let dir = (line as i64 - s.last as i64).signum();
        s.last = line;
        if dir == 0 {
            return 0;
        }
        if dir != s.dir {
            // a new direction: the stream restarts from here
            (s.dir, s.front) = (dir, line);
        }
        let first = (page as u64 - 1) * PAGE_LINES;
        let mut n = 0;
        while n < PER_LOOKUP {
            let next = s.front as i64 + dir;
            if next < first as i64 || next >= (first + PAGE_LINES) as i64 || next.abs_diff(line as i64) > AHEAD {
                break;
            }
            s.front = next as u64;
            out[n] = s.front;
            n += 1;
        }
        n
    }
}

/// The first index of `x` in `xs`, if any (N a multiple of 4, at most 32).
/// On x86-64, SSE2 compares four entries at a time.
#[inline(always)]
fn find<const N: usize>(xs: &[u32; N], x: u32) -> Option<usize> {
    const { assert!(N % 4 == 0 && N <= 32) };
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86-64; the N / 4 16-byte loads cover the
    // array exactly.
    let hits = unsafe {
        use std::arch::x86_64::*;
        let want = _mm_set1_epi32(x as i32);
        let p = xs.as_ptr() as *const __m128i;
        let four = |k: usize| _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_loadu_si128(p.add(k)), want))) as u32;
        (0..N / 4).fold(0u32, |m, k| m | four(k) << (4 * k))
    };
    #[cfg(not(target_arch = "x86_64"))]
    let hits = xs.iter().enumerate().fold(0u32, |m, (i, &v)| m | ((v == x) as u32) << i);
    (hits != 0).then(|| hits.trailing_zeros() as usize)
}

/// The pair line the adjacent-line prefetcher adds to a miss of `line`.
pub fn adjacent(line: u64) -> u64 {
    line ^ 1
}


/// Prefetches of one core still on their way, with when each lands.
const IN_FLIGHT: usize = 16;

/// One core's recent prefetches, oldest overwritten.
#[derive(Clone)]
struct InFlight {
    /// Lines (u32: lines stay below 2^30; u32::MAX = none) and when each
    /// lands.
    lines: [u32; IN_FLIGHT],
    ready: [Time; IN_FLIGHT],
    next: usize,
    /// The latest ready time of any; once it has passed, no hit can wait
    /// for one and the search is skipped.
    latest: Time,
}

/// The prefetchers of every core.
pub struct Prefetchers {
    adjacent: bool,
    /// `l2.superqueue` (0 = unbounded).
    superqueue: u32,
    /// One per core; empty with the streamer off.
    streamers: Vec<Streamer>,
    /// One per core.
    in_flight: Vec<InFlight>,
}

impl Prefetchers {
    /// `None` when both are off.
    pub fn new(l2: &crate::config::L2Cfg, cores: usize) -> Option<Prefetchers> {
        let (adjacent, streamer) = (l2.prefetch_adjacent, l2.prefetch_streamer);
        (adjacent || streamer).then(|| Prefetchers {
            adjacent,
            superqueue: l2.superqueue as u32,
            streamers: if streamer { vec![Streamer::default(); cores] } else { Vec::new() },
            in_flight: vec![InFlight { lines: [u32::MAX; IN_FLIGHT], ready: [0; IN_FLIGHT], next: 0, latest: 0 }; cores],
        })
    }
}

impl Memory {
    /// After a demand access of `core` to `line` (an L2 hit or not, seen
    /// after `lat`): wait for a prefetch of it still in flight, and train
    /// and fire the prefetchers. Returns the latency the core sees.
    pub(super) fn prefetch_after(&mut self, core: usize, line: u64, l2_hit: bool, now: Time, lat: Time) -> Time {
        let p = self.prefetch.as_mut().expect("prefetchers on");
        let mut lat = lat;
        let f = &p.in_flight[core];
        if l2_hit && f.latest > now {
            if let Some(i) = find(&f.lines, line as u32) {
                lat = lat.max(f.ready[i].saturating_sub(now));
            }
        }
        let adjacent = (!l2_hit && p.adjacent).then(|| adjacent(line));
        let mut streamed = [0u64; PER_LOOKUP];
        let n = p.streamers.get_mut(core).map_or(0, |s| s.access(line, &mut streamed));
        if let Some(l) = adjacent {
            self.prefetch_fill(core, l, now);
        }
        for &l in &streamed[..n] {
            self.prefetch_fill(core, l, now);
        }
        lat
    }

    /// Bring `line` into `core`'s L2 as a load the core does not wait for;
    /// its cache and DRAM effects are a load's, its count is apart. (Most
    /// prefetches find the line in the L2 already: that check is inline.)
    #[inline(always)]
    fn prefetch_fill(&mut self, core: usize, line: u64, now: Time) {
        // (set sampling: only modelled lines are fetched; the others'
        // hits come from the modelled lines' mix, prefetches included)
        if self.sampled(line) {
            if let Err(l2_set) = self.l2[core].lookup(line) {
                self.prefetch_miss(core, line, l2_set, now);
            }
        }
    }

    /// [`Memory::prefetch_fill`] of a line `core`'s L2 lacks (`l2_set`:
    /// its set there).
    #[inline(never)]
    fn prefetch_miss(&mut self, core: usize, line: u64, l2_set: usize, now: Time) {
        let sq = self.prefetch.as_ref().expect("prefetchers on").superqueue;
        if sq != 0 && self.mc.as_ref().is_some_and(|mc| mc.in_flight(core) >= sq) {
            self.stats.l2_prefetches_refused += 1;
            return;
        }
        // (a prefetch is not a demand access: the core counters stay)
        let st = &self.stats;
        let s = (st.core_l2_hits, st.core_llc_hits, st.core_llc_misses, st.c2m_read_ps, st.c2m_reads);
        let misses = self.core_misses[core];
        let missed = self.mc.as_ref().map_or(0, |mc| mc.missed.len());
        // (into the L2, not the L1D; an L1D tag of the line is stale, as
        // the L2 lost it: dropped, so the refill does not revive it)
        if let Some(l1) = self.l1.get_mut(core) {
            l1.remove(line);
        }
        let mut lat = if self.sf.is_some() {
            self.l2_miss_ni(core, line, l2_set, false, now)
        } else {
            self.l2_access(core, line, false, now)
        };
        // (with the controllers no core waits for a prefetch's DRAM read:
        // it goes now, holding a superqueue entry until it is back, and a
        // demand load of the line waits until an idle read later)
        if let Some(mc) = self.mc.as_mut().filter(|mc| mc.missed.len() > missed) {
            while mc.missed.len() > missed {
                let (l, _) = mc.missed.pop().expect("a prefetch's read");
                mc.prefetch(core, l, now);
            }
            lat += self.dram.idle_latency();
        }
        let st = &mut self.stats;
        (st.core_l2_hits, st.core_llc_hits, st.core_llc_misses, st.c2m_read_ps, st.c2m_reads) = s;
        self.core_misses[core] = misses;
        self.stats.l2_prefetches += 1;
        let p = self.prefetch.as_mut().expect("prefetchers on");
        let f = &mut p.in_flight[core];
        let i = f.next;
        (f.lines[i], f.ready[i]) = (line as u32, now + lat);
        f.latest = f.latest.max(now + lat);
        f.next = (i + 1) % IN_FLIGHT;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(lines: impl IntoIterator<Item = u64>) -> Vec<u64> {
        let mut s = Streamer::default();
        let mut got = Vec::new();
        let mut out = [0; PER_LOOKUP];
        for l in lines {
            let n = s.access(l, &mut out);
            got.extend_from_slice(&out[..n]);
        }
        got
    }

    #[test]
    fn an_ascending_walk_is_prefetched_two_per_access_up_to_20_ahead() {
        let base = 64 * 1000;
        let got = run(base..base + 20);
        // the second access confirms the stream; from then on two lines
        // per access until the front is 20 lines ahead
        assert_eq!(&got[..4], &[base + 2, base + 3, base + 4, base + 5]);
        assert_eq!(*got.last().unwrap(), base + 19 + 20);
        assert!(got.windows(2).all(|w| w[1] == w[0] + 1), "no line twice");
    }

    #[test]
    fn streams_stop_at_the_page_and_follow_descending_walks() {
        let base = 64 * 1000;
        let got = run(base + 50..base + 64);
        assert!(got.iter().all(|&l| l < base + 64), "never past the 4 KiB page");
        let down = run((base..base + 10).rev());
        assert_eq!(&down[..2], &[base + 7, base + 6]);
    }

    #[test]
    fn the_search_finds_the_first_entry_a_scan_finds() {
        let mut r = crate::sim::rng(4, 0, 0);
        use rand::Rng as _;
        for _ in 0..2_000 {
            // (few distinct values, so most arrays hold the one sought twice)
            let mut pages = [0u32; STREAMS];
            let mut lines = [0u32; IN_FLIGHT];
            pages.iter_mut().chain(lines.iter_mut()).for_each(|x| *x = r.gen_range(0..40));
            let want: u32 = r.gen_range(0..40);
            assert_eq!(find(&pages, want), pages.iter().position(|&p| p == want));
            assert_eq!(find(&lines, want), lines.iter().position(|&l| l == want));
        }
    }

    /// The streamer as its header describes it, with a plain list of
    /// streams searched in order: the page index must not change a thing.
    #[test]
    fn the_page_index_agrees_with_a_plain_scan_of_the_streams() {
        struct Plain {
            streams: Vec<(u64, u64, i64, u64)>, // page, last, dir, front
            next: usize,
        }
        impl Plain {
            fn access(&mut self, line: u64) -> Vec<u64> {
                let page = line / PAGE_LINES;
                let Some(s) = self.streams.iter_mut().find(|s| s.0 == page) else {
                    let e = (page, line, 0, line);
                    if self.streams.len() < STREAMS {
                        self.streams.push(e);
                    } else {
                        self.streams[self.next] = e;
                    }
                    self.next = (self.next + 1) % STREAMS;
                    return Vec::new();
                };
                let dir = (line as i64 - s.1 as i64).signum();
                s.1 = line;
                if dir == 0 {
                    return Vec::new();
                }
                if dir != s.2 {
                    (s.2, s.3) = (dir, line);
                }
                let mut out = Vec::new();
                while out.len() < PER_LOOKUP {
                    let n = s.3 as i64 + dir;
                    if n.div_euclid(PAGE_LINES as i64) != page as i64 || n.abs_diff(line as i64) > AHEAD {
                        break;
                    }
                    s.3 = n as u64;
                    out.push(s.3);
                }
                out
            }
        }
        use rand::Rng as _;
        let mut r = crate::sim::rng(9, 0, 0);
        let (mut fast, mut plain) = (Streamer::default(), Plain { streams: Vec::new(), next: 0 });
        let mut out = [0; PER_LOOKUP];
        let mut line = 0u64;
        for _ in 0..200_000 {
            // walks within pages, jumps among ~100 pages (many share a
            // bucket of the index) and far ones
            line = match r.gen_range(0..10) {
                0..=5 => line.saturating_add_signed(r.gen_range(-2..=3)),
                6..=8 => r.gen_range(0..100) * 256 * PAGE_LINES + r.gen_range(0..PAGE_LINES),
                _ => r.gen_range(0..1u64 << 29),
            };
            let n = fast.access(line, &mut out);
            assert_eq!(&out[..n], &plain.access(line)[..], "line {line}");
        }
    }

    #[test]
    fn random_accesses_start_no_stream() {
        let got = run([5u64, 900_000, 77, 123_456_789, 4_242]);
        assert!(got.is_empty());
    }
}
