//! One channel's memory controller, clocked at the DRAM clock, as server
//! controllers (and DRAMsim3, the reference it is tested against) work:
//!
//! - a read queue and a write queue of finite depth take requests in time
//!   order; a write is acknowledged (posted) when the write queue takes it,
//!   a read that finds its line in the write queue is served from there;
//! - each cycle one request moves from a queue into its bank's command
//!   queue: reads, unless the controller is draining writes, which it
//!   starts when the write queue reaches its high watermark (or holds more
//!   than `drain_idle` writes while no read waits) and stops at its low
//!   watermark;
//! - each cycle at most one command issues: the bank queues are visited
//!   round robin and the first request, in arrival order, whose next
//!   command (ACT, READ/WRITE, or PRE for a row conflict) is ready goes,
//!   first-ready first-come-first-served. A row conflict's PRE waits while
//!   a queued request still hits the open row;
//! - the page policy decides when a row closes: open (at a conflict),
//!   closed (auto-precharge after each access) or open-adaptive (closed
//!   unless a queued request hits the row);
//! - every rank refreshes once per tREFI, staggered over the ranks: its
//!   open banks are precharged and it is busy tRFC.
//!
//! A read's latency runs from the cycle its queue took it to its last data
//! beat (READ + CL + burst), DRAMsim3's `read_latency`.

use super::map::{Geometry, Loc, Map};
use super::timing::{self, Gaps, Timing};
use crate::config::DramCfg;
use crate::units::Time;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PagePolicy {
    Open,
    Closed,
    OpenAdaptive,
}

impl PagePolicy {
    pub fn from_name(s: &str) -> Option<PagePolicy> {
        match s {
            "open" => Some(PagePolicy::Open),
            "closed" => Some(PagePolicy::Closed),
            "open_adaptive" => Some(PagePolicy::OpenAdaptive),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub timing: Timing,
    pub map: Map,
    pub page: PagePolicy,
    /// Read queue and write queue depths (requests).
    pub read_queue: usize,
    pub write_queue: usize,
    /// Each bank's command queue depth.
    pub bank_queue: usize,
    /// Start draining writes at `drain_high` queued, or at more than
    /// `drain_idle` when no bank has a command queued; a drain moves the
    /// writes queued when it started, down to `drain_low`.
    pub drain_high: usize,
    pub drain_low: usize,
    pub drain_idle: usize,
    pub refresh: bool,
}

impl Config {
    /// DRAMsim3's stock DDR4 config: 32-entry read queue and write buffer,
    /// 8-entry per-bank command queues, open page, drain when the write
    /// buffer fills (or above 8 writes with no command queued) until empty.
    pub fn dramsim3(timing: Timing, map: Map) -> Config {
        Config {
            timing,
            map,
            page: PagePolicy::Open,
            read_queue: 32,
            write_queue: 32,
            bank_queue: 8,
            drain_high: 32,
            drain_low: 0,
            drain_idle: 8,
            refresh: true,
        }
    }

    /// A host channel as the profile's `dram` section describes it.
    pub fn host(c: &DramCfg) -> Result<Config, String> {
        let timing = timing::bin(c.speed).ok_or_else(|| format!("dram.speed = {}: no such speed bin", c.speed))?;
        if c.write_high > c.write_queue {
            return Err(format!(
                "dram.write_high = {}: at most dram.write_queue ({}), the writes a queue can hold",
                c.write_high, c.write_queue
            ));
        }
        if c.write_low >= c.write_high {
            return Err(format!("dram.write_low = {}: must be below dram.write_high ({})", c.write_low, c.write_high));
        }
        Ok(Config {
            timing,
            map: Map::host(Geometry::ddr4_8gb_x8(c.ranks)),
            page: PagePolicy::from_name(c.page_policy).expect("the table lists the policies"),
            read_queue: c.read_queue as usize,
            write_queue: c.write_queue as usize,
            bank_queue: c.bank_queue as usize,
            drain_high: c.write_high as usize,
            drain_low: c.write_low as usize,
            drain_idle: c.write_idle as usize,
            refresh: true,
        })
    }

    /// The mean latency of a random read to an idle channel (ps): its bank
    /// precharged (refresh closes every row of a rank each tREFI, and a
    /// lone probe comes back to one of a channel's 32 banks less often;
    /// the other policies close rows themselves), so ACT, READ and the
    /// burst, plus the chance of meeting a refresh (tRFC / tREFI) times the
    /// half refresh it then waits.
    pub fn idle_read(&self) -> Time {
        let t = &self.timing;
        t.ps(1 + t.rcd + t.cl + t.bl / 2) + t.ps(t.rfc) * t.rfc / (2 * t.refi)
    }
}

/// Row hits after which a waiting row conflict may close the row
/// (DRAMsim3's `ArbitratePrecharge`): no row starves the others.
const ROW_HIT_CAP: u32 = 4;

/// A request in the controller.
#[derive(Clone, Copy, Debug)]
struct Req {
    id: u64,
    write: bool,
    /// Cycle the controller took it.
    arrival: u64,
    line: u64,
    loc: Loc,
    bank: usize,
}

/// A read's data returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Done {
    pub id: u64,
    /// When its last data beat arrived (ps).
    pub at: Time,
    /// From the controller taking it to then (ps).
    pub latency: Time,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmd {
    Act,
    Read,
    Write,
    Pre,
}

#[derive(Clone, Copy, Debug, Default)]
struct Bank {
    open: Option<u64>,
    /// Column commands the open row has served since its ACT.
    hits: u32,
    /// Earliest cycle for ACT, READ, WRITE, PRE.
    next: [u64; 4],
}

#[derive(Clone, Copy, Debug, Default)]
struct Rank {
    /// The last four ACTs' cycles (tFAW), a ring.
    acts: [u64; 4],
    act_i: usize,
    /// ACTs so far (the window binds from the fifth).
    act_count: u64,
    /// Cycle the next refresh is due; once due, the rank takes no ACT
    /// until it has refreshed.
    refresh_due: u64,
}

/// Counters as the uncore names them (PCM's `imc` events).
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub reads: u64,
    pub writes: u64,
    /// Column commands to a row already used since its ACT.
    pub row_hits: u64,
    pub acts: u64,
    pub pres: u64,
    pub refreshes: u64,
    /// Reads served from the write queue.
    pub forwarded: u64,
    /// Sum of read latencies (ps).
    pub read_latency_ps: u64,
    /// Sums over cycles of the queues' occupancy, and cycles each was full.
    pub read_queue_occupancy: u64,
    pub write_queue_occupancy: u64,
    pub read_queue_full: u64,
    pub write_queue_full: u64,
    /// Cycles counted in the sums above.
    pub cycles: u64,
    /// Column commands per bank (bank imbalance).
    pub per_bank: Vec<u64>,
}

impl Stats {
    /// Column commands issued.
    pub fn columns(&self) -> u64 {
        self.per_bank.iter().sum()
    }

    /// Row hits per column command (NaN before any).
    pub fn row_hit_rate(&self) -> f64 {
        self.row_hits as f64 / self.columns() as f64
    }
}

pub struct Channel {
    cfg: Config,
    gaps: Gaps,
    now: u64,
    reads: VecDeque<Req>,
    writes: VecDeque<Req>,
    bank_q: Vec<VecDeque<Req>>,
    /// Requests in bank queues.
    in_banks: usize,
    banks: Vec<Bank>,
    ranks: Vec<Rank>,
    /// Writes the current drain still moves to the bank queues (0: not
    /// draining).
    drain_left: usize,
    /// The bank queue the next command search starts at.
    rr: usize,
    /// Reads issued, in issue order (so in completion order): cycle their
    /// data is done, id, arrival.
    returns: VecDeque<(u64, u64, u64)>,
    pub stats: Stats,
}

impl Channel {
    pub fn new(cfg: Config) -> Channel {
        let geo = cfg.map.geo;
        let n = geo.banks();
        let t = cfg.timing;
        let ranks = (0..geo.ranks)
            .map(|r| Rank {
                // Staggered: rank r first refreshes (r + 1) / ranks of tREFI in.
                refresh_due: if cfg.refresh { t.refi * (r + 1) / geo.ranks } else { u64::MAX },
                ..Rank::default()
            })
            .collect();
        Channel {
            gaps: t.gaps(),
            cfg,
            now: 0,
            reads: VecDeque::with_capacity(cfg.read_queue),
            writes: VecDeque::with_capacity(cfg.write_queue),
            bank_q: (0..n).map(|_| VecDeque::with_capacity(cfg.bank_queue)).collect(),
            in_banks: 0,
            banks: vec![Bank::default(); n],
            ranks,
            drain_left: 0,
            rr: 0,
            returns: VecDeque::new(),
            stats: Stats { per_bank: vec![0; n], ..Stats::default() },
        }
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The current cycle.
    pub fn cycle(&self) -> u64 {
        self.now
    }

    /// The current time (ps).
    pub fn now(&self) -> Time {
        self.cfg.timing.ps(self.now)
    }

    /// Requests waiting or in service.
    pub fn busy(&self) -> bool {
        !self.reads.is_empty() || !self.writes.is_empty() || self.in_banks > 0 || !self.returns.is_empty()
    }

    /// Whether the controller can take a read (or a write) now.
    pub fn can_take(&self, write: bool) -> bool {
        if write {
            self.writes.len() < self.cfg.write_queue
        } else {
            self.reads.len() < self.cfg.read_queue
        }
    }

    /// Offer a request at the current cycle; false when its queue is full
    /// (the requester keeps it and retries). A read found in the write
    /// queue returns at the next cycle.
    pub fn offer(&mut self, id: u64, addr: u64, write: bool) -> bool {
        if !self.can_take(write) {
            return false;
        }
        let line = addr >> 6;
        if write {
            self.stats.writes += 1;
            let loc = self.cfg.map.locate(addr);
            let bank = loc.bank_index(&self.cfg.map.geo);
            self.writes.push_back(Req { id, write, arrival: self.now, line, loc, bank });
            return true;
        }
        self.stats.reads += 1;
        if self.writes.iter().any(|w| w.line == line) {
            self.stats.forwarded += 1;
            self.push_return(self.now + 1, id, self.now);
            return true;
        }
        let loc = self.cfg.map.locate(addr);
        let bank = loc.bank_index(&self.cfg.map.geo);
        self.reads.push_back(Req { id, write, arrival: self.now, line, loc, bank });
        true
    }

    fn push_return(&mut self, done: u64, id: u64, arrival: u64) {
        // Forwarded reads may finish before issued ones: keep the order.
        let i = self.returns.iter().rposition(|r| r.0 <= done).map_or(0, |i| i + 1);
        self.returns.insert(i, (done, id, arrival));
    }

    /// Run to `cycle` (exclusive of its work), pushing the reads whose data
    /// returned by then onto `out`.
    pub fn run_to(&mut self, cycle: u64, out: &mut Vec<Done>) {
        while self.now < cycle {
            if !self.busy() {
                // Nothing to do before the next refresh (or the target).
                let due = self.ranks.iter().map(|r| r.refresh_due).min().unwrap_or(u64::MAX);
                let skip = due.min(cycle).max(self.now);
                self.stats.cycles += skip - self.now;
                self.now = skip;
                if self.now >= cycle {
                    break;
                }
            }
            self.tick(out);
        }
    }

    /// One DRAM clock cycle.
    fn tick(&mut self, out: &mut Vec<Done>) {
        let t = self.cfg.timing;
        while let Some(&(done, id, arrival)) = self.returns.front() {
            if done > self.now {
                break;
            }
            self.returns.pop_front();
            let latency = t.ps(done - arrival);
            self.stats.read_latency_ps += latency;
            out.push(Done { id, at: t.ps(done), latency });
        }
        let s = &mut self.stats;
        s.cycles += 1;
        s.read_queue_occupancy += self.reads.len() as u64;
        s.write_queue_occupancy += self.writes.len() as u64;
        s.read_queue_full += (self.reads.len() >= self.cfg.read_queue) as u64;
        s.write_queue_full += (self.writes.len() >= self.cfg.write_queue) as u64;
        if !self.refresh() {
            self.issue();
        }
        self.schedule();
        self.now += 1;
    }

    /// A rank whose refresh is due: precharge its open banks, then refresh
    /// it. Returns whether a command issued this cycle.
    fn refresh(&mut self) -> bool {
        let per = self.cfg.map.geo.banks_per_rank();
        for r in 0..self.ranks.len() {
            if self.ranks[r].refresh_due > self.now {
                continue;
            }
            let banks = r * per..(r + 1) * per;
            if banks.clone().any(|b| self.banks[b].open.is_some()) {
                let now = self.now;
                let ready = banks.clone().find(|&b| self.banks[b].open.is_some() && self.banks[b].next[Cmd::Pre as usize] <= now);
                if let Some(b) = ready {
                    self.do_pre(b);
                    return true;
                }
                continue;
            }
            if banks.clone().all(|b| self.banks[b].next[Cmd::Act as usize] <= self.now) {
                let until = self.now + self.cfg.timing.rfc;
                for b in banks {
                    self.banks[b].next[Cmd::Act as usize] = until;
                }
                self.ranks[r].refresh_due += self.cfg.timing.refi;
                self.stats.refreshes += 1;
                return true;
            }
        }
        false
    }

    /// Move one request from the read or write queue into its bank queue.
    fn schedule(&mut self) {
        let c = &self.cfg;
        if self.drain_left == 0 {
            let n = self.writes.len();
            if n >= c.drain_high || (self.in_banks == 0 && n > c.drain_idle) {
                self.drain_left = n - c.drain_low.min(n);
            }
        }
        let draining = self.drain_left > 0;
        let q = if draining { &mut self.writes } else { &mut self.reads };
        let cap = c.bank_queue;
        let Some(i) = q.iter().position(|r| self.bank_q[r.bank].len() < cap) else {
            return;
        };
        let req = q.remove(i).unwrap();
        self.drain_left -= draining as usize;
        self.bank_q[req.bank].push_back(req);
        self.in_banks += 1;
    }

    /// The command a request needs next at its bank.
    #[inline]
    fn needs(&self, r: &Req) -> Cmd {
        match self.banks[r.bank].open {
            Some(row) if row == r.loc.row => {
                if r.write {
                    Cmd::Write
                } else {
                    Cmd::Read
                }
            }
            Some(_) => Cmd::Pre,
            None => Cmd::Act,
        }
    }

    /// Whether `cmd` may issue at bank `b` this cycle.
    #[inline]
    fn ready(&self, cmd: Cmd, b: usize, rank: usize) -> bool {
        if self.banks[b].next[cmd as usize] > self.now {
            return false;
        }
        let rk = &self.ranks[rank];
        // Four ACTs per tFAW.
        cmd != Cmd::Act || rk.act_count < 4 || rk.acts[rk.act_i] + self.cfg.timing.faw <= self.now
    }

    /// Issue the first ready command, visiting bank queues round robin.
    fn issue(&mut self) {
        if self.in_banks == 0 {
            return;
        }
        let n = self.bank_q.len();
        for k in 0..n {
            let b = (self.rr + k) % n;
            // A rank due for refresh takes no command but the refresh's.
            if self.ranks[b / self.cfg.map.geo.banks_per_rank()].refresh_due <= self.now {
                continue;
            }
            let Some((i, cmd, rank, row)) = self.first_ready(b) else {
                continue;
            };
            match cmd {
                Cmd::Act => self.do_act(b, row, rank),
                Cmd::Pre => self.do_pre(b),
                Cmd::Read | Cmd::Write => {
                    let req = self.bank_q[b].remove(i).unwrap();
                    self.in_banks -= 1;
                    self.do_column(req);
                }
            }
            self.rr = (b + 1) % n;
            return;
        }
    }

    /// The first request of bank `b`'s queue whose next command may issue
    /// now: its index, the command, its rank and row.
    #[inline]
    fn first_ready(&self, b: usize) -> Option<(usize, Cmd, usize, u64)> {
        let q = &self.bank_q[b];
        let bank = &self.banks[b];
        for (i, r) in q.iter().enumerate() {
            let cmd = self.needs(r);
            // Only the oldest request closes a row, and not while a queued
            // one still hits it, unless the row has served four since its ACT.
            if cmd == Cmd::Pre
                && (i > 0 || (bank.hits < ROW_HIT_CAP && q.iter().any(|o| Some(o.loc.row) == bank.open)))
            {
                continue;
            }
            if self.ready(cmd, b, r.loc.rank as usize) {
                return Some((i, cmd, r.loc.rank as usize, r.loc.row));
            }
        }
        None
    }

    fn do_act(&mut self, b: usize, row: u64, rank: usize) {
        let (t, now) = (self.cfg.timing, self.now);
        let geo = self.cfg.map.geo;
        let per_rank = geo.banks_per_rank();
        let per_group = geo.banks_per_group as usize;
        let group = b / per_group;
        for o in rank * per_rank..(rank + 1) * per_rank {
            let gap = if o / per_group == group { t.rrd_l } else { t.rrd_s };
            let n = &mut self.banks[o].next[Cmd::Act as usize];
            *n = (*n).max(now + gap);
        }
        let bank = &mut self.banks[b];
        bank.open = Some(row);
        bank.hits = 0;
        bank.next[Cmd::Read as usize] = bank.next[Cmd::Read as usize].max(now + t.rcd);
        bank.next[Cmd::Write as usize] = bank.next[Cmd::Write as usize].max(now + t.rcd);
        bank.next[Cmd::Pre as usize] = bank.next[Cmd::Pre as usize].max(now + t.ras);
        bank.next[Cmd::Act as usize] = bank.next[Cmd::Act as usize].max(now + self.gaps.rc);
        let rk = &mut self.ranks[rank];
        rk.acts[rk.act_i] = now;
        rk.act_i = (rk.act_i + 1) % 4;
        rk.act_count += 1;
        self.stats.acts += 1;
    }

    fn do_pre(&mut self, b: usize) {
        let now = self.now;
        let bank = &mut self.banks[b];
        bank.open = None;
        bank.next[Cmd::Act as usize] = bank.next[Cmd::Act as usize].max(now + self.cfg.timing.rp);
        self.stats.pres += 1;
    }

    fn do_column(&mut self, r: Req) {
        let (g, now) = (self.gaps, self.now);
        let geo = self.cfg.map.geo;
        let per_group = geo.banks_per_group as usize;
        let per_rank = geo.banks_per_rank();
        let (rank, group) = (r.bank / per_rank, r.bank / per_group);
        // Gaps to later READs and WRITEs: same group, other group, other rank.
        let (rd, wr) = if r.write {
            ([g.wr_rd_l, g.wr_rd_s, g.wr_rd_r], [g.wr_wr_l, g.wr_wr_s, g.wr_wr_r])
        } else {
            ([g.rd_rd_l, g.rd_rd_s, g.rd_rd_r], [g.rd_wr, g.rd_wr, g.rd_wr_r])
        };
        for (o, bank) in self.banks.iter_mut().enumerate() {
            let k = if o / per_rank != rank {
                2
            } else if o / per_group != group {
                1
            } else {
                0
            };
            let n = &mut bank.next;
            n[Cmd::Read as usize] = n[Cmd::Read as usize].max(now + rd[k]);
            n[Cmd::Write as usize] = n[Cmd::Write as usize].max(now + wr[k]);
        }
        let to_pre = if r.write { g.wr_pre } else { g.rd_pre };
        let bank = &mut self.banks[r.bank];
        bank.next[Cmd::Pre as usize] = bank.next[Cmd::Pre as usize].max(now + to_pre);
        if bank.hits > 0 {
            self.stats.row_hits += 1;
        }
        bank.hits += 1;
        self.stats.per_bank[r.bank] += 1;
        if !r.write {
            let t = self.cfg.timing;
            self.returns.push_back((now + t.cl + g.burst, r.id, r.arrival));
        }
        let close = match self.cfg.page {
            PagePolicy::Open => false,
            PagePolicy::Closed => true,
            PagePolicy::OpenAdaptive => !self.bank_q[r.bank].iter().any(|o| o.loc.row == r.loc.row),
        };
        if close {
            // Auto-precharge: the PRE goes as soon as tRAS and tRTP/tWR allow.
            let bank = &mut self.banks[r.bank];
            let pre = bank.next[Cmd::Pre as usize];
            bank.open = None;
            bank.next[Cmd::Act as usize] = bank.next[Cmd::Act as usize].max(pre + self.cfg.timing.rp);
            self.stats.pres += 1;
        }
    }
}
