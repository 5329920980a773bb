//! The calendar model of DRAM: independent channels, each a FIFO server of 64 B bursts at its peak
//! bandwidth. A request's latency is the idle latency plus its wait behind
//! earlier requests on the channel, so loaded latency rises steeply as
//! utilisation nears the peak (an M/D/1-like queue, not a fitted curve).
//!
//! Requests do not always reach the model in time order (a core prices a
//! poll's packets one after another, ahead of the event clock; a device's
//! read reaches memory after its PCIe request). So a channel keeps a
//! calendar of busy intervals and serves each request in the first idle
//! slot at or after its arrival: for requests in time order this is the
//! FIFO above, and a request dated later never holds up one dated earlier.
//!
//! An interval goes once the event clock has passed its end (dropped when a
//! booking is appended after the others): no request is dated before the
//! clock (a debug build checks), so the calendar serves every request as if
//! it kept every interval. A simulator without an event
//! clock (`advance` never called) drops intervals a horizon (1 ms) before
//! the newest one instead. That was the packet simulator's rule until a
//! core pricing a burst milliseconds ahead left other cores' requests
//! dated beyond the horizon, served as if the channel had been idle there.
//!
//! Writes, optionally, wait in a write queue per channel as a memory
//! controller buffers them (gem5's DRAMCtrl, for one): a write is posted,
//! and once `batch` writes wait the controller turns the bus round, writes
//! them back to back and turns it back. A read that arrives during the
//! drain waits for all of it, so batched writes delay reads more than the
//! same writes served one by one would. Without a write queue
//! (`batch = 0`) a write takes its burst when it arrives, like a read.
//!
//! Banks, optionally (`banks` > 0 per channel): an access first takes its
//! bank for a row cycle (tRC: activate, read or write, precharge; a closed
//! page, as the adaptive page policy of server memory controllers leaves a
//! row under random traffic), at the bank's first idle time, and then its
//! burst on the channel. Two accesses to one bank within tRC queue, so
//! loaded latency rises with the bank load as well as the channel load.
//!
//! Left out: row-buffer hits (a stream of one row pays a row cycle a line,
//! spread over the banks), bank groups, tFAW and refresh. With a write
//! queue, when the drains start (gem5 starts one when the queue passes a
//! threshold, or when no read waits) only sets how many writes stand in the
//! queue, not what a read waits for, so it is left out; so are reads served
//! from the write queue, and the banks of drained writes.

use crate::config::DramCfg;
use crate::units::Time;

/// Busy intervals of one channel, [start, end) in 1/1024 ps, sorted and
/// disjoint: `busy[head..]`. Intervals no request can reach any more are
/// dropped by moving `head` (and compacting now and then): a
/// plain vector indexes in one instruction where a ring buffer wraps, and
/// an insert moves the shorter side, into the dropped space at the front
/// if need be.
#[derive(Default)]
struct Calendar {
    busy: Vec<(u64, u64)>,
    head: usize,
    /// The shortest booking the calendar takes: an idle gap shorter than
    /// it can never be used, so it is booked as busy (fewer intervals to
    /// search and move; every start stays exactly where it was).
    quantum: u64,
    /// Where the last late booking went (a live index, or past the end):
    /// a core prices its reads one after another, so the next late one is
    /// usually dated just after it.
    cursor: usize,
}

/// Without an event clock: how far back (in 1/1024 ps) before the newest
/// booking a request may still be dated, 1 ms.
const HORIZON_FP: u64 = 1_000_000_000 * FP;
/// Dropped intervals kept before the vector is compacted (to half): few,
/// so that a host with many calendars (a bank's each) keeps them in cache.
const COMPACT: usize = 256;

impl Calendar {
    /// A calendar whose every booking lasts at least `quantum`.
    fn with_quantum(quantum: u64) -> Calendar {
        Calendar { quantum, ..Calendar::default() }
    }

    /// The live intervals.
    #[cfg(test)]
    fn live(&self) -> &[(u64, u64)] {
        &self.busy[self.head..]
    }

    /// Book `len` at the first idle time at or after `t`; returns the start.
    /// `floor`: the event clock (0: none).
    fn book(&mut self, t: u64, len: u64, floor: u64) -> u64 {
        debug_assert!(t >= floor, "a DRAM request dated before the event clock");
        debug_assert!(len >= self.quantum, "a booking shorter than the calendar's quantum");
        // Most requests come after or inside the last busy interval (which
        // is live: pruning keeps at least one).
        if let Some(last) = self.busy.last_mut() {
            if t >= last.0 {
                let start = t.max(last.1);
                if start - last.1 < self.quantum.max(1) {
                    last.1 = start + len;
                } else {
                    self.busy.push((start, start + len));
                    self.prune(floor);
                }
                return start;
            }
        }
        let busy = &mut self.busy[self.head..];
        let mut i = first_ending_after(busy, t, self.cursor);
        let mut start = t;
        while i < busy.len() && busy[i].0 < start + len {
            start = start.max(busy[i].1);
            i += 1;
        }
        // Insert [start, start + len) before interval i, merging neighbours
        // (and the unusable gaps to them).
        let end = start + len;
        let q = self.quantum.max(1);
        let joins_prev = i > 0 && start - busy[i - 1].1 < q;
        let joins_next = i < busy.len() && busy[i].0 - end < q;
        match (joins_prev, joins_next) {
            (true, true) => {
                busy[i - 1].1 = busy[i].1;
                self.remove(i);
            }
            (true, false) => busy[i - 1].1 = end,
            (false, true) => busy[i].0 = start,
            (false, false) => self.insert(i, (start, end)),
        }
        self.cursor = i;
        // (no prune: the next append prunes; the search skips what ended)
        start
    }

    /// Insert before live interval `i`, moving the shorter side (into the
    /// dropped space before `head` when the front is shorter), as a ring
    /// buffer would: a request dated far back inserts near the front.
    fn insert(&mut self, i: usize, x: (u64, u64)) {
        if self.head > 0 && i < (self.busy.len() - self.head) / 2 {
            self.head -= 1;
            self.busy.copy_within(self.head + 1..self.head + 1 + i, self.head);
            self.busy[self.head + i] = x;
        } else {
            self.busy.insert(self.head + i, x);
        }
    }

    /// Remove live interval `i`, moving the shorter side.
    fn remove(&mut self, i: usize) {
        if i < (self.busy.len() - self.head) / 2 {
            self.busy.copy_within(self.head..self.head + i, self.head + 1);
            self.head += 1;
        } else {
            self.busy.remove(self.head + i);
        }
    }

    /// Drop intervals that ended by the event clock or, without one, a
    /// horizon before the newest one.
    #[inline(always)]
    fn prune(&mut self, floor: u64) {
        let newest = self.busy.last().map_or(0, |b| b.1);
        let gone = if floor > 0 { floor } else { newest.saturating_sub(HORIZON_FP + 1) };
        while self.busy.len() - self.head > 1 && self.busy[self.head].1 <= gone {
            self.head += 1;
        }
        if self.head >= COMPACT && 2 * self.head >= self.busy.len() {
            // (half the dropped space stays, for inserts near the front)
            self.busy.drain(..self.head / 2);
            self.head -= self.head / 2;
        }
    }
}

/// Index of the first interval of `busy` that ends after `t`, for a `t`
/// before the last interval's start (or an empty calendar). The search
/// gallops from the interval at `hint` (1, 2, 4 ... intervals, up or down)
/// and then bisects the last step: O(log d) for an answer d intervals from
/// the hint, rather than O(log n) always. Late requests are dated close to
/// the previous late one, or shortly before the newest bookings.
fn first_ending_after(busy: &[(u64, u64)], t: u64, hint: usize) -> usize {
    let Some(last) = busy.len().checked_sub(1) else {
        return 0;
    };
    let ends_after = |j: usize| busy[j].1 > t;
    let h = hint.min(last);
    let (lo, hi) = if ends_after(h) {
        // busy[hi] ends after t throughout
        let (mut hi, mut step) = (h, 1);
        let lo = loop {
            match hi.checked_sub(step) {
                Some(j) if ends_after(j) => (hi, step) = (j, step * 2),
                Some(j) => break j + 1,
                None => break 0,
            }
        };
        (lo, hi)
    } else {
        // busy[lo - 1] ends at or before t throughout
        let (mut lo, mut step) = (h + 1, 1);
        let hi = loop {
            let j = lo + step - 1;
            if j > last {
                break last + 1;
            }
            if ends_after(j) {
                break j;
            }
            (lo, step) = (j + 1, step * 2);
        };
        (lo, hi)
    };
    // the answer lies in lo..=hi
    lo + busy[lo..hi].partition_point(|&(_, end)| end <= t)
}

/// A memory controller's write queue, per channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteQueue {
    /// Writes drained per bus turnaround (0: no queue, writes are served as
    /// they come).
    pub batch: u64,
    /// Bus turnaround a drain costs: read-to-write before it plus
    /// write-to-read after it (tRTW + tWTR).
    pub turnaround: Time,
}

pub struct Dram {
    /// ps to move one line on one channel, in 1/1024 ps so rates are exact.
    line_time_fp: u64,
    cal: Vec<Calendar>,
    wq: WriteQueue,
    /// Writes waiting in each channel's write queue.
    waiting: Vec<u64>,
    /// Banks per channel (0: banks are not modelled) and the calendar of
    /// each (channel-major); a bank is busy a row cycle per access.
    banks: usize,
    t_rc_fp: u64,
    bank_cal: Vec<Calendar>,
    /// The event clock (1/1024 ps), once a simulator advances it.
    floor_fp: u64,
    idle_latency: Time,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub busy_fp: u64,
}

const FP: u64 = 1024;

impl Dram {
    /// `channel_mbs`: peak MB/s of one channel.
    pub fn new(channels: usize, channel_mbs: u64, idle_latency: Time) -> Dram {
        // 64 B / (MB/s) = 64e6/MBs ps
        let line_time_fp = 64_000_000 * FP / channel_mbs;
        Dram {
            line_time_fp,
            cal: (0..channels).map(|_| Calendar::with_quantum(line_time_fp)).collect(),
            wq: WriteQueue::default(),
            waiting: vec![0; channels],
            banks: 0,
            t_rc_fp: 0,
            bank_cal: Vec::new(),
            floor_fp: 0,
            idle_latency,
            read_bytes: 0,
            write_bytes: 0,
            busy_fp: 0,
        }
    }

    /// The host's DRAM as a profile's `dram` section describes it.
    pub fn host(c: &DramCfg) -> Dram {
        Dram::new(c.channels as usize, c.channel_bw, c.latency)
            .with_write_queue(WriteQueue {
                batch: c.write_batch,
                turnaround: c.turnaround,
            })
            .with_banks(c.banks as usize, c.t_rc)
    }

    /// Model `banks` banks per channel, each busy `t_rc` per access.
    pub fn with_banks(mut self, banks: usize, t_rc: Time) -> Dram {
        self.banks = banks;
        self.t_rc_fp = t_rc * FP;
        self.bank_cal = (0..banks * self.cal.len()).map(|_| Calendar::with_quantum(self.t_rc_fp)).collect();
        self
    }

    /// Hold the line's bank a row cycle from its first idle time at or
    /// after `now_fp`; returns when it starts. (Out of line: it keeps
    /// `serve` small enough to inline where banks are not modelled.)
    #[inline(never)]
    fn book_bank(&mut self, ch: usize, line: u64, now_fp: u64) -> u64 {
        let b = ch * self.banks + self.bank(line);
        self.bank_cal[b].book(now_fp, self.t_rc_fp, self.floor_fp)
    }

    /// The bank of a line within its channel: a uniform hash of the line
    /// address (Intel XORs row bits into the bank bits so that strided and
    /// sequential accesses spread over the banks; Pessl et al., DRAMA,
    /// USENIX Security'16), independent of the channel hash.
    #[inline]
    fn bank(&self, line: u64) -> usize {
        ((line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % self.banks as u64) as usize
    }

    /// Buffer writes in a write queue per channel (`wq.batch` > 0).
    pub fn with_write_queue(mut self, wq: WriteQueue) -> Dram {
        self.wq = wq;
        self
    }

    #[inline]
    fn channel(&self, line: u64) -> usize {
        super::map::interleave(line, self.cal.len())
    }

    /// Occupy the line's bank (if modelled) and then its channel from
    /// `now`; returns the wait before service.
    #[inline]
    fn serve(&mut self, line: u64, now: Time) -> Time {
        let ch = self.channel(line);
        let now_fp = now * FP;
        let at = if self.banks == 0 { now_fp } else { self.book_bank(ch, line, now_fp) };
        let start = self.cal[ch].book(at, self.line_time_fp, self.floor_fp);
        self.busy_fp += self.line_time_fp;
        (start - now_fp + self.line_time_fp) / FP
    }

    /// The event clock reached `now`: no request will be dated before it.
    #[inline]
    pub fn advance(&mut self, now: Time) {
        self.floor_fp = now * FP;
    }

    /// A 64 B read issued at `now`; returns its load-to-use latency.
    pub fn read(&mut self, line: u64, now: Time) -> Time {
        self.read_bytes += 64;
        self.idle_latency + self.serve(line, now)
    }

    /// A 64 B write (writeback or non-allocating DMA): it takes channel time
    /// but no core waits for it. Returns when the channel has taken it,
    /// after `now` (what a writer holding a buffer entry for it waits).
    #[inline]
    pub fn write(&mut self, line: u64, now: Time) -> Time {
        self.write_bytes += 64;
        if self.wq.batch == 0 {
            return self.serve(line, now);
        }
        self.queue_write(line, now)
    }

    /// A write into the line's write queue (out of line, as `book_bank`).
    #[inline(never)]
    fn queue_write(&mut self, line: u64, now: Time) -> Time {
        let ch = self.channel(line);
        self.waiting[ch] += 1;
        if self.waiting[ch] < self.wq.batch {
            return 0; // posted: the queue has room
        }
        // A batch waits: drain it in one booking, turnarounds included. The
        // write that completed it is taken once the drain starts.
        self.waiting[ch] = 0;
        let len = self.wq.batch * self.line_time_fp + self.wq.turnaround * FP;
        let now_fp = now * FP;
        let start = self.cal[ch].book(now_fp, len, self.floor_fp);
        self.busy_fp += len;
        (start - now_fp) / FP
    }

    pub fn idle_latency(&self) -> Time {
        self.idle_latency
    }

    /// The channel a line is interleaved to.
    pub fn channel_of(&self, line: u64) -> usize {
        self.channel(line)
    }

    pub fn channels(&self) -> usize {
        self.cal.len()
    }

    /// Peak bytes per second of all channels.
    pub fn peak_bytes_per_s(&self) -> f64 {
        self.cal.len() as f64 * 64.0 * 1e12 * FP as f64 / self.line_time_fp as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng;
    use rand::Rng;

    #[test]
    fn idle_latency_when_unloaded() {
        let mut d = Dram::new(6, 21333, 90_000);
        let l = d.read(123, 1_000_000);
        assert!(l >= 90_000 && l <= 93_001, "{l}");
    }

    #[test]
    fn saturated_channel_serves_at_peak_bandwidth() {
        let mut d = Dram::new(1, 10_000, 50_000); // 10 GB/s: 6.4 ns per line
        for i in 0..10_000 {
            d.write(i, 0);
        }
        let l = d.read(0, 0) - 50_000;
        // 10 001 lines at 6.4 ns
        assert!((l as f64 - 10_001.0 * 6400.0).abs() < 10.0, "{l}");
    }

    #[test]
    fn a_later_booking_does_not_hold_up_an_earlier_request() {
        let mut d = Dram::new(1, 10_000, 0); // 6.4 ns per line
        assert_eq!(d.read(0, 1_000_000), 6400, "idle channel");
        // Dated 1 us earlier, served in the idle time before that booking.
        assert_eq!(d.read(1, 0), 6400);
        // Dated inside the first booking: waits for its end only.
        assert_eq!(d.read(2, 1_003_200), 3200 + 6400);
        // Fills the gap exactly: [6.4 ns, 12.8 ns) is idle.
        assert_eq!(d.read(3, 6400), 6400);
    }

    /// The galloping search, from any hint, finds the interval a binary
    /// search over the whole calendar finds, for calendars built by random
    /// late bookings.
    #[test]
    fn galloping_search_agrees_with_bisection() {
        let mut r = rng(5, 0, 0);
        for _ in 0..50 {
            let mut cal = Calendar::default();
            for _ in 0..r.gen_range(0..300) {
                cal.book(r.gen_range(0..1_000_000), r.gen_range(1..5_000), 0);
            }
            let busy = cal.live();
            let sorted = busy.iter().zip(busy.iter().skip(1)).all(|(a, b)| a.1 < b.0);
            assert!(sorted, "intervals overlap or touch: {busy:?}");
            for _ in 0..200 {
                let t = r.gen_range(0..1_200_000);
                if busy.last().is_some_and(|b| t >= b.0) {
                    continue; // the fast path's case
                }
                let hint = r.gen_range(0..busy.len() + 2);
                assert_eq!(first_ending_after(busy, t, hint), busy.partition_point(|&(_, end)| end <= t));
            }
        }
    }

    /// Book `len` at `t` in a sorted list by scanning it from the start.
    fn first_fit(reference: &mut Vec<(u64, u64)>, t: u64, len: u64) -> u64 {
        let mut start = t;
        for &(a, b) in reference.iter() {
            if a < start + len && b > start {
                start = b;
            }
        }
        reference.push((start, start + len));
        reference.sort_unstable();
        start
    }

    /// Every booking starts where a plain first fit over all earlier
    /// bookings (a sorted list, scanned from the start) puts it, across
    /// compactions of the vector (bookings span 4 ms, the horizon 1 ms, and
    /// a late one is dated up to 0.1 or 0.9 ms back, inserting near the end
    /// or the front).
    #[test]
    fn bookings_match_a_plain_first_fit() {
        let mut r = rng(9, 0, 0);
        let mut cal = Calendar::default();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut newest = 0u64;
        for n in 0..10_000u64 {
            let back = [0, 100_000_000, 900_000_000][r.gen_range(0..3)] * (r.gen_range(0..4) == 0) as u64;
            let t = (n * 400_000 * FP).saturating_sub(r.gen_range(0..=back) * FP);
            let len = r.gen_range(1..600_000 * FP);
            let start = first_fit(&mut reference, t, len);
            newest = newest.max(start + len);
            reference.retain(|&(_, b)| b + 2 * HORIZON_FP >= newest);
            assert_eq!(cal.book(t, len, 0), start, "booking {n}");
        }
        // (about 7500 intervals were dropped, 2500 are live)
        // (compaction keeps at most COMPACT dropped intervals, or as many as
        // are live)
        assert!(cal.live().len() < 3000 && cal.head <= COMPACT.max(cal.live().len()), "dropped intervals are compacted");
    }

    /// With an event clock, a request dated after the clock but far (here
    /// up to 5 ms, beyond the horizon) before the newest booking is served
    /// as by a first fit over every booking ever made; intervals that ended
    /// before the clock are gone once a booking is appended.
    #[test]
    fn with_a_clock_no_reachable_interval_is_dropped() {
        let mut r = rng(11, 0, 0);
        let mut cal = Calendar::default();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        for n in 0..6_000u64 {
            let clock = n * 100_000 * FP;
            // every tenth request is priced 2-5 ms ahead of the clock
            let ahead = if n % 10 == 0 { r.gen_range(2_000_000_000..5_000_000_000) } else { r.gen_range(0..50_000) };
            let (t, len) = (clock + ahead * FP, r.gen_range(1..80_000 * FP));
            let start = first_fit(&mut reference, t, len);
            assert_eq!(cal.book(t, len, clock), start, "booking {n}");
        }
        // (an append prunes: one dated after every booking)
        let clock = 5_999 * 100_000 * FP;
        cal.book(10_000_000_000 * FP, FP, clock);
        assert!(cal.live().len() > 1 && cal.live()[1..].iter().all(|&(_, end)| end > clock));
        assert!(cal.live().len() < reference.len() / 2);
    }

    /// A calendar that books the gaps shorter than its quantum as busy
    /// starts every booking (none shorter than the quantum) where a plain
    /// first fit does, and keeps fewer intervals.
    #[test]
    fn gaps_shorter_than_the_quantum_are_booked_without_moving_a_start() {
        let mut r = rng(13, 0, 0);
        let q = 3_000 * FP;
        let (mut cal, mut plain) = (Calendar::with_quantum(q), Calendar::default());
        let mut reference: Vec<(u64, u64)> = Vec::new();
        for n in 0..8_000u64 {
            let clock = n * 2_000 * FP;
            let t = clock + r.gen_range(0..400_000) * FP;
            let len = if n % 7 == 0 { 5 * q } else { q };
            let start = first_fit(&mut reference, t, len);
            assert_eq!(cal.book(t, len, clock), start, "booking {n}");
            assert_eq!(plain.book(t, len, clock), start, "booking {n}, no quantum");
        }
        let gaps_ok = cal.live().windows(2).all(|w| w[1].0 - w[0].1 >= q);
        assert!(gaps_ok, "a gap shorter than the quantum was left");
        assert!(cal.live().len() < plain.live().len(), "{} vs {}", cal.live().len(), plain.live().len());
    }

    /// A booking that fills a gap near the front exactly merges its
    /// neighbours by moving the front side into the dropped space.
    #[test]
    fn filling_a_gap_near_the_front_merges_its_neighbours() {
        let mut cal = Calendar::default();
        let base = 2 * HORIZON_FP;
        cal.book(0, 10 * FP, 0); // dropped once the later ones are booked
        for k in 0..8 {
            cal.book(base + k * 100 * FP, 10 * FP, 0);
        }
        assert_eq!(cal.head, 1);
        assert_eq!(cal.book(base + 10 * FP, 90 * FP, 0), base + 10 * FP);
        let want: Vec<(u64, u64)> = std::iter::once((base, base + 110 * FP))
            .chain((2..8).map(|k| (base + k * 100 * FP, base + (k * 100 + 10) * FP)))
            .collect();
        assert_eq!(cal.live(), &want[..]);
        // and one dated before them all goes in front, into the dropped space
        assert_eq!(cal.book(base - 50 * FP, 5 * FP, 0), base - 50 * FP);
        assert_eq!(cal.live()[..2], [(base - 50 * FP, base - 45 * FP), (base, base + 110 * FP)]);
    }

    fn queued(batch: u64, turnaround: Time) -> Dram {
        Dram::new(1, 10_000, 0).with_write_queue(WriteQueue { batch, turnaround }) // 6.4 ns per line
    }

    #[test]
    fn posted_writes_take_no_channel_time_until_a_batch_waits() {
        let mut d = queued(16, 5_000);
        for i in 0..15 {
            assert_eq!(d.write(i, 0), 0, "posted");
        }
        assert_eq!(d.read(100, 0), 6400, "the channel is idle");
        assert_eq!(d.busy_fp, 6400 * FP);
    }

    /// The 16th write drains all 16 back to back with the turnaround; a
    /// read arriving as the drain starts waits for all of it.
    #[test]
    fn a_read_arriving_during_a_drain_waits_for_all_of_it() {
        let mut d = queued(16, 5_000);
        for i in 0..16 {
            assert_eq!(d.write(i, 1_000_000), 0, "the channel is idle: the drain starts at once");
        }
        let drain = 16 * 6400 + 5_000;
        assert_eq!(d.read(100, 1_000_000), drain + 6400);
        // one-by-one writes would have kept the read waiting one burst
        let mut plain = Dram::new(1, 10_000, 0);
        for i in 0..16 {
            plain.write(i, 1_000_000);
        }
        assert_eq!(plain.read(100, 1_000_000 + 6400 * 15), 6400 + 6400);
    }

    /// Back-to-back writes move `batch` lines per batch of bursts plus a
    /// turnaround: 16 x 6.4 ns of every 107.4 ns.
    #[test]
    fn a_write_stream_runs_at_the_batched_bandwidth() {
        let mut d = queued(16, 5_000);
        for i in 0..16_000 {
            d.write(i, 0);
        }
        let done = d.read(u64::MAX / 2, 0) - 6400;
        assert_eq!(done, 1000 * (16 * 6400 + 5_000));
        let share = 16.0 * 6400.0 / (16.0 * 6400.0 + 5000.0);
        assert!((16_000.0 * 6400.0 / done as f64 - share).abs() < 1e-9);
    }

    /// Sparse Poisson reads (utilisation 0.02) among Poisson writes (0.2):
    /// a read waits the residual of what it lands in, so a drain of 16
    /// writes (102.4 ns) costs it ~16x what one write's burst does. The
    /// mean wait lies between two analytic cases: drains as regular as
    /// clockwork (the read waits 0.2 x half a drain) and drains as a
    /// Poisson stream (Pollaczek-Khinchine with the drain as service).
    #[test]
    fn batched_writes_delay_reads_by_the_residual_drain() {
        let wait = |batch| {
            let mut d = queued(batch, 0);
            let mut r = rng(4, 0, 0);
            let gap = |r: &mut crate::sim::Rng, rho: f64| -(6400.0 / rho) * (1.0 - r.gen::<f64>()).ln();
            let (mut tr, mut tw, mut sum, n) = (0f64, gap(&mut r, 0.2), 0f64, 100_000);
            for i in 0..n {
                tr += gap(&mut r, 0.02);
                // requests reach the channel in time order
                while tw < tr {
                    d.write(1 << 40 | i, tw as Time);
                    tw += gap(&mut r, 0.2);
                }
                sum += (d.read(i, tr as Time) - 6400) as f64;
            }
            sum / n as f64
        };
        let (one, sixteen) = (wait(1), wait(16));
        // Pollaczek-Khinchine over both kinds of service
        let pk = |drain: f64| (0.2 * drain + 0.02 * 6400.0) / 2.0 / (1.0 - 0.22);
        assert!((one - pk(6400.0)).abs() / pk(6400.0) < 0.05, "one by one: {one} vs {}", pk(6400.0));
        // periodic drains: a read sees 0.2 x half a drain (and little else)
        let periodic = 0.2 * 16.0 * 6400.0 / 2.0;
        assert!(sixteen > periodic && sixteen < pk(16.0 * 6400.0), "batched: {sixteen} not in {periodic}..{}", pk(16.0 * 6400.0));
        assert!(sixteen > 10.0 * one);
    }

    /// Two lines of one bank: the second waits out the first's row cycle;
    /// a line of another bank waits only for the channel.
    #[test]
    fn an_access_waits_for_its_bank_then_its_channel() {
        let mut d = Dram::new(1, 10_000, 0).with_banks(16, 48_000); // 6.4 ns per line
        let first = 7u64;
        let same = (first + 1..).find(|&l| d.bank(l) == d.bank(first)).unwrap();
        let other = (first + 1..).find(|&l| d.bank(l) != d.bank(first)).unwrap();
        assert_eq!(d.read(first, 0), 6400);
        assert_eq!(d.read(other, 0), 2 * 6400, "behind the first burst only");
        assert_eq!(d.read(same, 0), 48_000 + 6400, "a row cycle later");
        // banks spread lines evenly
        let mut per = [0u32; 16];
        (0..16_000u64).for_each(|l| per[d.bank(l)] += 1);
        assert!(per.iter().all(|&n| (900..1100).contains(&n)), "{per:?}");
    }

    /// Poisson reads over 16 banks at channel utilisation 0.5: each bank
    /// is busy 0.5 x 48 / 6.4 / 16 = 23 % of the time, and a read waits
    /// what an M/D/1 queue of row cycles at that load predicts on top of
    /// its wait for the channel.
    #[test]
    fn loaded_latency_adds_the_bank_queue() {
        let mean_wait = |banks: usize| {
            let mut d = Dram::new(1, 10_000, 0).with_banks(banks, 48_000);
            let mut r = rng(6, 0, 0);
            let (mut t, mut sum, n) = (0f64, 0f64, 200_000);
            for _ in 0..n {
                t += -(6400.0 / 0.5) * (1.0 - r.gen::<f64>()).ln();
                sum += d.read(r.gen(), t as Time) as f64 - 6400.0;
            }
            sum / n as f64
        };
        let rho_bank = 0.5 * 48.0 / 6.4 / 16.0;
        let md1 = rho_bank / (2.0 * (1.0 - rho_bank)) * 48_000.0;
        let extra = mean_wait(16) - mean_wait(0);
        assert!((extra - md1).abs() / md1 < 0.15, "banks add {extra} ps, M/D/1 {md1}");
    }

    /// Poisson reads at utilisation rho: mean wait follows M/D/1.
    #[test]
    fn loaded_latency_follows_md1() {
        for rho in [0.3, 0.6, 0.9] {
            let mut d = Dram::new(1, 10_000, 0);
            let service = 6400.0;
            let mut r = rng(3, 0, 0);
            let (mut t, mut sum, n) = (0f64, 0f64, 200_000);
            for i in 0..n {
                t += -(service / rho) * (1.0 - r.gen::<f64>()).ln();
                sum += d.read(i, t as Time) as f64 - service;
            }
            let w = sum / n as f64;
            let pk = rho * service / (2.0 * (1.0 - rho));
            assert!((w - pk).abs() / pk < 0.08, "rho {rho}: wait {w} vs {pk}");
        }
    }
}
