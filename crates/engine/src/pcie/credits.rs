//! Posted-write flow control at the root port (PCIe Base Specification,
//! Sec. 2.6: posted header and data credits, returned by UpdateFC DLLPs).
//!
//! The root port advertises as many posted credits as its write buffer
//! (Intel's IIO write cache) holds. A device may send a posted write only
//! while it holds credits for it; the root port frees them once the write
//! has left the buffer, committed to the LLC (a DDIO write) or accepted by
//! the memory controller (a non-allocating write), and the UpdateFC that
//! says so has crossed the link. So when the LLC or memory is slow to take
//! writes, the link stalls: back-pressure from memory to the device.
//!
//! Credits are counted in 64 B lines, the unit the IIO tracks; header and
//! data credits are not told apart (a line-sized write needs one of each).

use std::collections::VecDeque;

use crate::units::Time;

/// Lines (credits) a write of `len` bytes at `addr` needs.
pub fn lines(addr: u64, len: u64) -> u64 {
    (addr + len.max(1) - 1) / 64 - addr / 64 + 1
}

/// The posted credits one device holds against its root port.
#[derive(Clone, Debug, Default)]
pub struct PostedCredits {
    /// Lines of buffer (0 = unbounded: writes never wait).
    capacity: u64,
    /// Lines sent and not yet returned.
    in_use: u64,
    /// Known returns, sorted by time: (when, lines).
    returns: VecDeque<(Time, u64)>,
    /// Statistics since `reset_stats`: in-use lines integrated over time,
    /// the largest in-use count, time senders waited for credits.
    area: u128,
    since: Time,
    last: Time,
    max: u64,
    stalled_ps: Time,
}

impl PostedCredits {
    pub fn new(lines: u32) -> PostedCredits {
        PostedCredits {
            capacity: lines as u64,
            ..PostedCredits::default()
        }
    }

    pub fn bounded(&self) -> bool {
        self.capacity > 0
    }

    /// Apply the returns due by `now` (times only move forward).
    fn settle(&mut self, now: Time) {
        while let Some(&(t, n)) = self.returns.front() {
            if t > now {
                break;
            }
            self.advance(t);
            self.in_use -= n;
            self.returns.pop_front();
        }
        self.advance(now);
    }

    fn advance(&mut self, t: Time) {
        if t > self.last {
            self.area += self.in_use as u128 * (t - self.last) as u128;
            self.last = t;
        }
    }

    /// Whether `lines` credits are free at `now`.
    pub fn available(&mut self, now: Time, lines: u64) -> bool {
        self.settle(now);
        !self.bounded() || self.in_use + lines <= self.capacity.max(lines)
    }

    /// Spend `lines` credits at `now`. Callers that cannot wait (completion
    /// writes) may overdraw: later writes then wait longer.
    pub fn take(&mut self, now: Time, lines: u64) {
        self.settle(now);
        self.in_use += lines;
        // (a write's later TLPs are counted from its first, some before
        // earlier writes return theirs: never more than the buffer holds)
        self.max = self.max.max(self.in_use.min(self.capacity.max(lines)));
    }

    /// The earliest time from `now` a write of `tlps` (each: its lines, and
    /// when the link reaches it, after the write's start) may start: a
    /// device sends TLP by TLP, each once its own credits are back, so
    /// each TLP's credits, with those before it, must be back by the time
    /// the link reaches it. None if a return still to be declared must
    /// come first.
    pub fn start_at(&mut self, now: Time, tlps: impl IntoIterator<Item = (u64, Time)>) -> Option<Time> {
        self.settle(now);
        let mut need = 0;
        let mut start = now;
        for (lines, offset) in tlps {
            need += lines;
            start = start.max(self.free_at(need)?.saturating_sub(offset));
        }
        Some(start)
    }

    /// `lines` credits come back to the device at `at`.
    pub fn give_back(&mut self, lines: u64, at: Time) {
        let mut i = self.returns.len();
        while i > 0 && self.returns[i - 1].0 > at {
            i -= 1;
        }
        self.returns.insert(i, (at, lines));
    }

    /// The earliest time `lines` credits are free given the returns known
    /// so far; None if they are not enough (a return still to be declared
    /// must come first).
    pub fn free_at(&self, lines: u64) -> Option<Time> {
        if !self.bounded() {
            return Some(self.last);
        }
        let need = (self.in_use + lines).saturating_sub(self.capacity.max(lines));
        if need == 0 {
            return Some(self.last);
        }
        let mut got = 0;
        for &(t, n) in &self.returns {
            got += n;
            if got >= need {
                return Some(t);
            }
        }
        None
    }

    /// A sender waited for credits from `from` to `to`.
    pub fn stalled(&mut self, from: Time, to: Time) {
        self.stalled_ps += to.saturating_sub(from);
    }

    /// Start the measured window at `now`.
    pub fn reset_stats(&mut self, now: Time) {
        self.settle(now);
        self.area = 0;
        self.since = now;
        self.max = self.in_use;
        self.stalled_ps = 0;
    }

    /// Mean and largest lines in use, and the share of time senders
    /// waited for credits, over the window up to `now`.
    pub fn stats(&mut self, now: Time) -> (f64, u64, f64) {
        self.settle(now);
        let dur = now.saturating_sub(self.since).max(1) as f64;
        (self.area as f64 / dur, self.max, self.stalled_ps as f64 / dur)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_starts_once_each_tlps_credits_are_back_by_its_turn() {
        let mut c = PostedCredits::new(12);
        c.take(0, 8);
        c.give_back(8, 100);
        // Two 4-line TLPs, the second 30 ps after the first: the first has
        // its credits now, the second needs the return at 100, so the write
        // starts at 70 (all 8 lines at once: at 100).
        assert_eq!(c.start_at(10, [(4, 0), (4, 30)]), Some(70));
        assert_eq!(c.start_at(10, [(8, 0)]), Some(100));
        assert_eq!(c.start_at(10, [(4, 0)]), Some(10));
        // (more than the returns known so far: wait for the next declared)
        c.take(10, 4);
        assert_eq!(c.start_at(10, [(4, 0), (8, 30)]), None);
    }

    #[test]
    fn unbounded_never_waits() {
        let mut c = PostedCredits::new(0);
        c.take(0, 1_000_000);
        assert!(c.available(0, 1_000_000));
        assert_eq!(c.free_at(5), Some(0));
    }

    #[test]
    fn credits_come_back_when_returned_and_not_before() {
        let mut c = PostedCredits::new(4);
        assert!(c.available(0, 4));
        c.take(0, 3);
        assert!(c.available(0, 1) && !c.available(0, 2));
        // Unknown return: no time to offer.
        assert_eq!(c.free_at(2), None);
        c.give_back(2, 100);
        c.give_back(1, 50);
        assert_eq!(c.free_at(2), Some(50));
        assert_eq!(c.free_at(4), Some(100));
        assert!(!c.available(49, 2));
        assert!(c.available(50, 2));
        assert!(c.available(100, 4));
        // 3 lines for 50 ps, then 2 for 50 ps: mean 2.5 over 100 ps.
        let (mean, max, _) = c.stats(100);
        assert!((mean - 2.5).abs() < 1e-9, "{mean}");
        assert_eq!(max, 3);
    }

    #[test]
    fn a_write_larger_than_the_buffer_waits_for_an_empty_one() {
        let mut c = PostedCredits::new(2);
        assert!(c.available(0, 5));
        c.take(0, 5);
        assert!(!c.available(0, 1));
        c.give_back(5, 10);
        assert_eq!(c.free_at(5), Some(10));
        assert!(c.available(10, 5));
    }

    /// Against a reference: a buffer of N lines where each write holds its
    /// lines for a fixed time admits at most N lines per that time.
    #[test]
    fn throughput_is_capacity_over_holding_time() {
        let (cap, hold) = (16u64, 1000);
        let mut c = PostedCredits::new(cap as u32);
        let mut t = 0;
        let n = 10_000;
        for _ in 0..n {
            if !c.available(t, 1) {
                t = c.free_at(1).expect("returns are known");
            }
            assert!(c.available(t, 1));
            c.take(t, 1);
            c.give_back(1, t + hold);
        }
        let rate = n as f64 / t as f64;
        let bound = cap as f64 / hold as f64;
        assert!((rate - bound).abs() / bound < 0.01, "{rate} vs {bound}");
        let (mean, max, _) = c.stats(t);
        assert_eq!(max, cap);
        assert!(mean > cap as f64 * 0.98, "{mean}");
    }
}
