//! One channel's memory controller, clocked at the DRAM clock, as server
//! controllers (and DRAMsim3, the reference it is tested against) work:
//!
//! - a read queue and a write queue of finite depth take requests in time
//!   order; a write is acknowledged (posted) when the write queue takes it,
//!   a read that finds its line in the write queue is served from there. A
//!   request frees its queue entry when it moves to its bank (DRAMsim3's
//!   transaction queue) or, with `hold` (the host: Intel's RPQ and WPQ),
//!   only at its column command, so queued requests count the banked ones
//!   (a read of a device on the channel keeps its entry until its data is
//!   back: `Far`);
//! - each cycle one request moves from a queue into its bank's command
//!   queue: reads, unless the controller is draining writes, which it
//!   starts when the writes it holds reach the high watermark (or exceed
//!   `drain_idle` while no command is queued) and stops at the low
//!   watermark, but not again before a read waiting since has moved;
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

use super::map::{Geometry, Map};
use super::ones;
use super::timing::{self, Gaps, Timing};
use crate::config::{DramCfg, DramPagePolicy};
use crate::units::Time;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PagePolicy {
    Open,
    Closed,
    OpenAdaptive,
}

impl From<DramPagePolicy> for PagePolicy {
    fn from(p: DramPagePolicy) -> PagePolicy {
        match p {
            DramPagePolicy::Open => PagePolicy::Open,
            DramPagePolicy::Closed => PagePolicy::Closed,
            DramPagePolicy::OpenAdaptive => PagePolicy::OpenAdaptive,
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
    /// writes queued when it started, down to `drain_low` (an idle drain
    /// down to `drain_idle` at most).
    pub drain_high: usize,
    pub drain_low: usize,
    pub drain_idle: usize,
    pub refresh: bool,
    /// A request keeps its read or write queue entry until its column
    /// command, as Intel's RPQ and WPQ hold it (the IIO's credit waits on
    /// that), rather than until its bank's command queue takes it, as
    /// DRAMsim3's transaction queue does.
    pub hold: bool,
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
            hold: false,
        }
    }

    /// A host channel as the profile's `dram` section describes it, checked
    /// against the channel bandwidth and idle latency it must agree with.
    pub fn host(c: &DramCfg) -> Result<Config, String> {
        let timing = timing::bin(c.speed.word()).ok_or_else(|| format!("dram.speed = {}: no such speed bin", c.speed))?;
        if c.write_high > c.write_queue {
            return Err(format!(
                "dram.write_high = {}: at most dram.write_queue = {}, the writes the queue holds (a drain would never start); lower dram.write_high with dram.write_queue",
                c.write_high, c.write_queue
            ));
        }
        if c.write_low >= c.write_high {
            return Err(format!("dram.write_low = {}: must be below dram.write_high = {}", c.write_low, c.write_high));
        }
        if c.write_idle >= c.write_queue {
            return Err(format!(
                "dram.write_idle = {}: must be below dram.write_queue = {} (an idle drain above it could never start)",
                c.write_idle, c.write_queue
            ));
        }
        let agrees = |t: &Timing| (t.peak_bytes_per_s() / 1e6 / c.channel_bw as f64 - 1.0).abs() <= 0.01;
        if !agrees(&timing) {
            let bw = c.channel_bw;
            return Err(match timing::BINS.iter().find(|t| agrees(t)) {
                Some(t) => format!(
                    "dram.speed = {}: moves {} MB/s per channel, but dram.channel_bw = {bw} MB/s is {}'s; set both to the DIMMs' speed",
                    c.speed,
                    timing.mts * 8,
                    t.name
                ),
                None => format!(
                    "dram.channel_bw = {bw} MB/s: no DDR4 speed bin moves that (the memory controller models DDR4-2400 to DDR4-3200; DDR5 is not modelled yet)"
                ),
            });
        }
        let cfg = Config {
            timing,
            map: Map::host(Geometry::ddr4_8gb_x8(c.ranks)),
            page: c.page_policy.into(),
            read_queue: c.read_queue as usize,
            write_queue: c.write_queue as usize,
            bank_queue: c.bank_queue as usize,
            drain_high: c.write_high as usize,
            drain_low: c.write_low as usize,
            drain_idle: c.write_idle as usize,
            refresh: true,
            hold: true,
        };
        let idle = cfg.idle_read();
        if c.latency <= idle {
            return Err(format!(
                "dram.latency = {:.1} ns: the idle load-to-use latency must exceed the DRAM's own idle read, {:.1} ns for {}",
                c.latency as f64 / 1e3,
                idle as f64 / 1e3,
                c.speed
            ));
        }
        Ok(cfg)
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
    row: u64,
    bank: usize,
}

/// A read of a device on the channel that answers when it is ready
/// (NVDIMM-P's XREAD, NetDIMM's host reads): it holds a read-queue entry
/// from arrival until its data is back, as the paper's host MC (gem5's,
/// whose read buffer counts the reads awaiting their response) queues it
/// (Alian and Kim, MICRO'19, Sec. 5.1; a read of the DIMMs frees its
/// entry at its column, as Intel's RPQ, with `hold`); its XRD goes when the command
/// bus is free, its SEND once the device has raised RDY (the DIMMs'
/// columns hold back meanwhile), the data tCL later on the shared data
/// bus, between the DIMMs' bursts as another rank's.
#[derive(Clone, Copy, Debug)]
struct Far {
    id: u64,
    arrival: u64,
    /// Its XRD has gone.
    sent: bool,
    /// The cycle RDY is back (u64::MAX: not yet known).
    ready: u64,
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
    /// The row of the oldest request in its queue (if any).
    head: u64,
    /// Earliest cycle for ACT, READ, WRITE, PRE by the bank's own
    /// commands (its group's bound the first three too: [`Channel::at`]).
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
    /// Column commands for reads and for writes (the IMC's CAS_COUNT.RD/WR).
    pub cas_reads: u64,
    pub cas_writes: u64,
    /// Reads that needed their row opened (ACTs for reads).
    pub read_activates: u64,
    /// Precharges closing a row for another, not for refresh or by policy
    /// (PRE_COUNT.PAGE_MISS).
    pub conflict_precharges: u64,
    /// Write drains started, each ending in a write-to-read switch
    /// (WMM_TO_RMM).
    pub write_to_read_switches: u64,
    pub acts: u64,
    pub pres: u64,
    pub refreshes: u64,
    /// Reads served from the write queue.
    pub forwarded: u64,
    /// Reads of a device on the channel (XRD then SEND), of the reads.
    pub far_reads: u64,
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
    /// Of them, reads.
    pub per_bank_reads: Vec<u64>,
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
    /// Requests in bank queues, and which queues hold any (bit b: bank b).
    in_banks: usize,
    /// Of them, writes (the rest are reads).
    banked_writes: usize,
    /// Per bank queue: its reads and its writes that hit the open row.
    row_hits: Vec<[u32; 2]>,
    /// The bank queues that are full (bit b: bank b).
    full: u64,
    /// Per bank, the requests of the read queue and of the write queue
    /// bound for it, and the banks with any (bit b: bank b): whether a
    /// request can move is a mask test, not a queue scan.
    waiting: Vec<[u32; 2]>,
    waiting_banks: [u64; 2],
    queued: u64,
    banks: Vec<Bank>,
    /// The banks with a row open (bit b: bank b).
    open: u64,
    /// Per bank group: earliest cycle for ACT, READ, WRITE by its
    /// neighbours' commands (tRRD; the group's own columns' tCCD_L,
    /// tWTR_L), which bind every bank of the group alike.
    groups: Vec<[u64; 3]>,
    /// Per rank: earliest cycle for READ, WRITE by the columns of its other
    /// groups (tCCD_S, tWTR_S) and of other ranks (the bus switch): a
    /// group's own columns bind it at least as long (JEDEC's _L >= _S), so
    /// one floor a rank serves all its groups.
    rank_col: Vec<[u64; 2]>,
    ranks: Vec<Rank>,
    /// Writes the current drain still moves to the bank queues (0: not
    /// draining).
    drain_left: usize,
    /// A drain ended with reads waiting: one moves before the next drain.
    read_owed: bool,
    /// The bank queue the next command search starts at.
    rr: usize,
    /// Per bank, the cycle its first command can issue at, as the last
    /// [`next_event`](Self::next_event) found it (`ready_valid`: and
    /// nothing has changed the banks since), so that a cycle's command
    /// search visits only the banks that have one ready.
    ready_at: Vec<u64>,
    ready_valid: bool,
    /// log2 of banks per group and per rank (bank index to group, rank).
    group_shift: u32,
    rank_shift: u32,
    /// The earliest rank's `refresh_due` (before it no rank refreshes).
    refresh_next: u64,
    /// The cycle anything can next happen at ([`next_event`](Self::next_event)),
    /// as of the last cycle run or request offered.
    next: u64,
    /// Reads issued, in issue order (so in completion order): cycle their
    /// data is done, id, arrival, and whether a device's.
    returns: VecDeque<(u64, u64, u64, bool)>,
    /// Devices' reads whose SEND has gone and whose data is not back (they
    /// keep their read-queue entry).
    far_back: usize,
    /// Reads of a device on the channel, in arrival order.
    far: VecDeque<Far>,
    /// The first cycle a SEND may issue at by the column commands before it.
    far_col: u64,
    /// XRDs issued since the caller last took them: id, cycle. The caller
    /// answers each with [`far_ready`](Self::far_ready).
    pub far_sent: Vec<(u64, u64)>,
    /// The queue counters hold the cycles before this one (the queues'
    /// fill changes far less often than a cycle passes).
    counted: u64,
    stats: Stats,
}

impl Channel {
    pub fn new(cfg: Config) -> Channel {
        let geo = cfg.map.geo;
        let n = geo.banks();
        assert!(n <= 64, "a channel of at most 64 banks (a bank mask is a u64)");
        assert!(geo.banks_per_group.is_power_of_two() && geo.bank_groups.is_power_of_two(), "banks and groups in powers of two");
        let g = cfg.timing.gaps();
        assert!(g.rd_rd_l >= g.rd_rd_s && g.wr_wr_l >= g.wr_wr_s && g.wr_rd_l >= g.wr_rd_s, "same-group gaps at least the other groups' (rank_col)");
        let t = cfg.timing;
        let ranks: Vec<Rank> = (0..geo.ranks)
            .map(|r| Rank {
                // Staggered: rank r first refreshes (r + 1) / ranks of tREFI in.
                refresh_due: if cfg.refresh { t.refi * (r + 1) / geo.ranks } else { u64::MAX },
                ..Rank::default()
            })
            .collect();
        let refresh_next = ranks.iter().map(|r| r.refresh_due).min().unwrap_or(u64::MAX);
        Channel {
            gaps: t.gaps(),
            cfg,
            now: 0,
            reads: VecDeque::with_capacity(cfg.read_queue),
            writes: VecDeque::with_capacity(cfg.write_queue),
            bank_q: (0..n).map(|_| VecDeque::with_capacity(cfg.bank_queue)).collect(),
            in_banks: 0,
            banked_writes: 0,
            row_hits: vec![[0; 2]; n],
            full: 0,
            waiting: vec![[0; 2]; n],
            waiting_banks: [0; 2],
            queued: 0,
            banks: vec![Bank::default(); n],
            open: 0,
            groups: vec![[0; 3]; n / geo.banks_per_group as usize],
            rank_col: vec![[0; 2]; geo.ranks as usize],
            ranks,
            drain_left: 0,
            read_owed: false,
            rr: 0,
            ready_at: vec![u64::MAX; n],
            ready_valid: false,
            group_shift: geo.banks_per_group.trailing_zeros(),
            rank_shift: geo.banks_per_rank().trailing_zeros(),
            refresh_next,
            next: 0,
            returns: VecDeque::new(),
            far_back: 0,
            far: VecDeque::new(),
            far_col: 0,
            far_sent: Vec::new(),
            counted: 0,
            stats: Stats { per_bank: vec![0; n], per_bank_reads: vec![0; n], ..Stats::default() },
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
        !self.reads.is_empty() || !self.writes.is_empty() || self.in_banks > 0 || !self.returns.is_empty() || !self.far.is_empty()
    }

    /// Whether the controller can take a read (or a write) now.
    pub fn can_take(&self, write: bool) -> bool {
        if write {
            self.pending(true) < self.cfg.write_queue
        } else {
            self.pending(false) < self.cfg.read_queue
        }
    }

    /// Reads (or writes) holding a queue entry.
    fn pending(&self, write: bool) -> usize {
        let (queued, banked) = if write {
            (self.writes.len(), self.banked_writes)
        } else {
            (self.reads.len() + self.far.len() + self.far_back, self.in_banks - self.banked_writes)
        };
        queued + if self.cfg.hold { banked } else { 0 }
    }

    /// A request of queue `k` (0 reads, 1 writes) bound for bank `b` queued.
    #[inline]
    fn wait(&mut self, b: usize, k: usize) {
        self.waiting[b][k] += 1;
        self.waiting_banks[k] |= 1 << b;
    }

    /// Whether a request of queue `k` can move to its bank (its bank queue
    /// has room).
    #[inline]
    fn movable(&self, k: usize) -> bool {
        self.waiting_banks[k] & !self.full != 0
    }

    /// Offer a request at the current cycle; false when its queue is full
    /// (the requester keeps it and retries). A read found in the write
    /// queue returns at the next cycle.
    pub fn offer(&mut self, id: u64, addr: u64, write: bool) -> bool {
        if !self.can_take(write) {
            return false;
        }
        self.count_to(self.now);
        let line = addr >> 6;
        if write {
            self.stats.writes += 1;
            let loc = self.cfg.map.locate(addr);
            let bank = loc.bank_index(&self.cfg.map.geo);
            self.writes.push_back(Req { id, write, arrival: self.now, line, row: loc.row, bank });
            self.wait(bank, 1);
            // (a queued write changes what can happen only by starting a
            // drain: otherwise the next event stands)
            if self.drains() {
                self.next = self.now;
            }
            return true;
        }
        self.next = self.now;
        self.stats.reads += 1;
        let loc = self.cfg.map.locate(addr);
        let bank = loc.bank_index(&self.cfg.map.geo);
        // (with `hold` a write at its bank still holds its queue entry)
        let held = self.cfg.hold && self.bank_q[bank].iter().any(|w| w.write && w.line == line);
        if held || self.writes.iter().any(|w| w.line == line) {
            self.stats.forwarded += 1;
            self.push_return(self.now + 1, id, self.now, false);
            return true;
        }
        self.reads.push_back(Req { id, write, arrival: self.now, line, row: loc.row, bank });
        self.wait(bank, 0);
        true
    }

    /// Offer a read of the device on the channel at the current cycle;
    /// false when the read queue is full.
    pub fn offer_far(&mut self, id: u64) -> bool {
        if !self.can_take(false) {
            return false;
        }
        self.count_to(self.now);
        self.next = self.now;
        self.stats.reads += 1;
        self.stats.far_reads += 1;
        self.far.push_back(Far { id, arrival: self.now, sent: false, ready: u64::MAX });
        true
    }

    /// The device has raised RDY for far read `id` (its XRD went at a cycle
    /// in `far_sent`): its SEND may go from `cycle` on.
    pub fn far_ready(&mut self, id: u64, cycle: u64) {
        let f = self.far.iter_mut().find(|f| f.id == id && f.sent).expect("an XRD sent");
        f.ready = cycle;
        self.next = self.next.min(cycle.max(self.far_col).max(self.now));
    }

    /// A SEND whose data the device has ready, if the data bus allows;
    /// else the oldest XRD not sent. Returns whether one issued.
    fn issue_far(&mut self) -> bool {
        let now = self.now;
        if let Some(i) = self.far.iter().position(|f| f.ready <= now) {
            // (another rank's burst: the DIMMs' columns wait for it to pass,
            // and while it waits for the bus no DIMM column takes the bus
            // from it)
            let (g, send) = (self.gaps, self.far_col.max(now));
            for rc in self.rank_col.iter_mut() {
                rc[0] = rc[0].max(send + g.rd_rd_r);
                rc[1] = rc[1].max(send + g.rd_wr);
            }
            if send == now {
                self.count_to(now + 1);
                let f = self.far.remove(i).unwrap();
                self.far_back += 1;
                self.far_col = now + g.rd_rd_s;
                self.push_return(now + self.cfg.timing.cl + g.burst, f.id, f.arrival, true);
                return true;
            }
        }
        if let Some(f) = self.far.iter_mut().find(|f| !f.sent) {
            f.sent = true;
            self.far_sent.push((f.id, now));
            return true;
        }
        false
    }

    fn push_return(&mut self, done: u64, id: u64, arrival: u64, far: bool) {
        // Forwarded reads may finish before issued ones: keep the order.
        let i = self.returns.iter().rposition(|r| r.0 <= done).map_or(0, |i| i + 1);
        self.returns.insert(i, (done, id, arrival, far));
    }

    /// Run to `cycle` (exclusive of its work), pushing the reads whose data
    /// returned by then onto `out`. Cycles in which nothing can happen (no
    /// command ready, no request to move, no data due) are skipped in one
    /// step, their counters added as if ticked: requests arrive only
    /// between calls, so nothing else can change in them.
    #[inline]
    pub fn run_to(&mut self, cycle: u64, out: &mut Vec<Done>) {
        if self.next >= cycle {
            // (nothing happens before `cycle`)
            self.now = self.now.max(cycle);
            return;
        }
        self.work_to(cycle, out);
    }

    /// [`run_to`](Self::run_to) when something happens before `cycle`.
    fn work_to(&mut self, cycle: u64, out: &mut Vec<Done>) {
        while self.now < cycle {
            if self.next > self.now {
                let to = self.next.min(cycle);
                self.idle(to - self.now);
                continue;
            }
            self.tick(out);
            self.next = self.next_event();
        }
    }

    /// The cycle anything can next happen at (the present cycle if
    /// something can now).
    pub fn wake(&self) -> u64 {
        self.next
    }

    /// Run to `cycle` a cycle at a time, skipping none (what skipping must
    /// equal).
    #[cfg(test)]
    fn tick_to(&mut self, cycle: u64, out: &mut Vec<Done>) {
        while self.now < cycle {
            self.tick(out);
            self.next = self.next_event();
        }
    }

    /// The cycle anything can next happen at: the first data due back, a
    /// refresh falling due or its next step, a queued request's command
    /// becoming ready (the present cycle if one is ready now, a request can
    /// move to its bank or a write drain starts).
    fn next_event(&mut self) -> u64 {
        // (a device's read can send its XRD)
        if !self.far.is_empty() && self.far.iter().any(|f| !f.sent) {
            self.ready_valid = false;
            return self.now;
        }
        // (a request can move to its bank, or a drain starts)
        let drains = self.drains();
        if self.movable(drains as usize) || (drains && self.drain_left == 0 && self.pending(true) > self.drain_target()) {
            self.ready_valid = false;
            return self.now;
        }
        let blocked = self.refreshing();
        let mut w = self.returns.front().map_or(u64::MAX, |r| r.0);
        // (a device's read can send its SEND)
        if !self.far.is_empty() {
            for f in self.far.iter().filter(|f| f.ready != u64::MAX) {
                w = w.min(f.ready.max(self.far_col));
            }
        }
        let per = self.cfg.map.geo.banks_per_rank();
        if blocked == 0 {
            // (no rank due: the first falling due)
            w = w.min(self.refresh_next);
        } else {
            for (r, rk) in self.ranks.iter().enumerate() {
                if rk.refresh_due > self.now {
                    w = w.min(rk.refresh_due);
                    continue;
                }
                // Due: its next PRE, or the REF once every bank may take it.
                let open = self.open & self.rank_banks(r);
                w = w.min(match ones(open).map(|b| self.banks[b].next[Cmd::Pre as usize]).min() {
                    Some(pre) => pre,
                    None => (r * per..(r + 1) * per).map(|b| self.at(Cmd::Act, b)).max().unwrap_or(0),
                });
            }
        }
        for b in ones(self.queued & !blocked) {
            let at = self.bank_ready(b);
            self.ready_at[b] = at;
            w = w.min(at);
        }
        self.ready_valid = true;
        w.max(self.now)
    }

    /// The earliest cycle bank `b`'s queue can issue a command at (it
    /// holds a request; its rank is not refreshing): what
    /// [`first_ready`](Self::first_ready) finds ready from then on.
    #[inline]
    fn bank_ready(&self, b: usize) -> u64 {
        let bank = &self.banks[b];
        let Some(row) = bank.open else {
            // Closed: every request needs an ACT.
            let rk = &self.ranks[b >> self.rank_shift];
            let at = self.at(Cmd::Act, b);
            return if rk.act_count >= 4 { at.max(rk.acts[rk.act_i] + self.cfg.timing.faw) } else { at };
        };
        // Open: the requests hitting the row need a column command; the
        // oldest, if it conflicts, may need a PRE.
        // (a READ's and a WRITE's cycle are the same for every request)
        let [reads, writes] = self.row_hits[b].map(|n| n > 0);
        let mut w = u64::MAX;
        if reads {
            w = self.at(Cmd::Read, b);
        }
        if writes {
            w = w.min(self.at(Cmd::Write, b));
        }
        let hit = reads || writes;
        if bank.head != row && (!hit || bank.hits >= ROW_HIT_CAP) {
            w = w.min(bank.next[Cmd::Pre as usize]);
        }
        w
    }

    /// `n` cycles in which nothing happens.
    fn idle(&mut self, n: u64) {
        self.now += n;
    }

    /// Count the cycles before `to` in the queue counters, at the queues'
    /// present fill: called before the fill changes (before `to` = the
    /// present cycle + 1 when it changes in a cycle's work, which counts
    /// the cycle as it began).
    #[inline]
    fn count_to(&mut self, to: u64) {
        if to > self.counted {
            let n = to - self.counted;
            self.counted = to;
            let (reads, writes) = (self.pending(false), self.pending(true));
            Self::count(&mut self.stats, n, reads, writes, &self.cfg);
        }
    }

    /// Count `n` cycles at a fill of `reads` and `writes`.
    fn count(s: &mut Stats, n: u64, reads: usize, writes: usize, cfg: &Config) {
        s.cycles += n;
        s.read_queue_occupancy += n * reads as u64;
        s.write_queue_occupancy += n * writes as u64;
        s.read_queue_full += n * (reads >= cfg.read_queue) as u64;
        s.write_queue_full += n * (writes >= cfg.write_queue) as u64;
    }

    /// Reads issued, and per bank.
    pub fn bank_reads(&self) -> (u64, &[u64]) {
        (self.stats.cas_reads, &self.stats.per_bank_reads)
    }

    /// The counters up to the present cycle.
    pub fn stats(&self) -> Stats {
        let mut s = self.stats.clone();
        Self::count(&mut s, self.now.saturating_sub(self.counted), self.pending(false), self.pending(true), &self.cfg);
        s
    }

    /// Start the counters afresh (a measured window's start).
    pub fn reset_stats(&mut self) {
        self.stats = Stats { per_bank: vec![0; self.banks.len()], per_bank_reads: vec![0; self.banks.len()], ..Stats::default() };
        self.counted = self.now;
    }

    /// One DRAM clock cycle: data returns, a command issues, a request
    /// moves to its bank.
    fn tick(&mut self, out: &mut Vec<Done>) {
        let t = self.cfg.timing;
        while let Some(&(done, id, arrival, far)) = self.returns.front() {
            if done > self.now {
                break;
            }
            self.returns.pop_front();
            if far {
                // (its read-queue entry frees with its data)
                self.count_to(self.now + 1);
                self.far_back -= 1;
            }
            let latency = t.ps(done - arrival);
            self.stats.read_latency_ps += latency;
            out.push(Done { id, at: t.ps(done), latency });
        }
        if !self.refresh() && (self.far.is_empty() || !self.issue_far()) {
            self.issue();
        }
        self.schedule();
        self.ready_valid = false;
        self.now += 1;
    }

    /// A rank whose refresh is due: precharge its open banks, then refresh
    /// it. Returns whether a command issued this cycle.
    fn refresh(&mut self) -> bool {
        if self.refresh_next > self.now {
            return false;
        }
        let per = self.cfg.map.geo.banks_per_rank();
        for r in 0..self.ranks.len() {
            if self.ranks[r].refresh_due > self.now {
                continue;
            }
            let banks = r * per..(r + 1) * per;
            let open = self.open & self.rank_banks(r);
            if open != 0 {
                if let Some(b) = ones(open).find(|&b| self.banks[b].next[Cmd::Pre as usize] <= self.now) {
                    self.do_pre(b);
                    return true;
                }
                continue;
            }
            if banks.clone().all(|b| self.at(Cmd::Act, b) <= self.now) {
                let until = self.now + self.cfg.timing.rfc;
                for b in banks {
                    self.banks[b].next[Cmd::Act as usize] = until;
                }
                self.ranks[r].refresh_due += self.cfg.timing.refi;
                self.refresh_next = self.ranks.iter().map(|r| r.refresh_due).min().unwrap_or(u64::MAX);
                self.stats.refreshes += 1;
                return true;
            }
        }
        false
    }

    /// Rank `r`'s banks (bit b: bank b).
    #[inline]
    fn rank_banks(&self, r: usize) -> u64 {
        let per = 1u32 << self.rank_shift;
        let mask = if per >= 64 { u64::MAX } else { (1u64 << per) - 1 };
        mask << (r as u32 * per)
    }

    /// The banks of ranks due for refresh (bit b: bank b).
    #[inline]
    fn refreshing(&self) -> u64 {
        if self.refresh_next > self.now {
            return 0;
        }
        let mut m = 0;
        for (r, rk) in self.ranks.iter().enumerate() {
            if rk.refresh_due <= self.now {
                m |= self.rank_banks(r);
            }
        }
        m
    }

    /// Whether a drain starts (or goes on) at this cycle's move. A drain
    /// does not start while a read owed a move since the last one can move:
    /// reads are not starved by a write queue that refills as it drains.
    fn drains(&self) -> bool {
        if self.drain_left > 0 {
            return true;
        }
        // (with every pending write already at its bank, nothing to drain;
        // idle: no read in a bank queue nor waiting for its XRD or SEND;
        // a device's read whose data is on its way does not hold off a
        // drain, as gem5's response queue does not)
        if self.writes.is_empty() {
            return false;
        }
        let (c, n) = (&self.cfg, self.pending(true));
        let due = n >= c.drain_high || (self.in_banks == 0 && self.far.is_empty() && n > c.drain_idle);
        due && !(self.read_owed && self.movable(0))
    }

    /// The writes a drain starting now leaves queued: the low watermark, or
    /// for a drain the idle threshold started (below the high watermark) at
    /// most that threshold, so that it moves something.
    fn drain_target(&self) -> usize {
        let c = &self.cfg;
        if self.pending(true) >= c.drain_high {
            c.drain_low
        } else {
            c.drain_low.min(c.drain_idle)
        }
    }

    /// Move one request from the read or write queue into its bank queue;
    /// returns whether one moved.
    fn schedule(&mut self) -> bool {
        if self.drain_left == 0 && self.drains() {
            // down to the low watermark of the writes held, those already at
            // their banks counted (with `hold`)
            let n = self.writes.len();
            self.drain_left = n.min(self.pending(true).saturating_sub(self.drain_target()));
            self.stats.write_to_read_switches += (self.drain_left > 0) as u64;
        }
        let draining = self.drain_left > 0;
        let k = draining as usize;
        if !self.movable(k) {
            return false;
        }
        let q = if draining { &self.writes } else { &self.reads };
        let full = self.full;
        let i = q.iter().position(|r| full & 1 << r.bank == 0).expect("a movable request");
        self.count_to(self.now + 1);
        let q = if draining { &mut self.writes } else { &mut self.reads };
        // (mostly the oldest moves)
        let req = if i == 0 { q.pop_front() } else { q.remove(i) }.unwrap();
        if draining {
            self.drain_left -= 1;
            // The drain's last write: the oldest waiting read moves before
            // the next drain.
            self.read_owed = self.drain_left == 0 && !self.reads.is_empty();
        } else {
            self.read_owed = false;
        }
        self.queued |= 1 << req.bank;
        self.in_banks += 1;
        self.banked_writes += req.write as usize;
        if self.banks[req.bank].open == Some(req.row) {
            self.row_hits[req.bank][req.write as usize] += 1;
        }
        let b = req.bank;
        self.waiting[b][k] -= 1;
        if self.waiting[b][k] == 0 {
            self.waiting_banks[k] &= !(1 << b);
        }
        if self.bank_q[b].is_empty() {
            self.banks[b].head = req.row;
        }
        self.bank_q[b].push_back(req);
        if self.bank_q[b].len() >= self.cfg.bank_queue {
            self.full |= 1 << b;
        }
        true
    }

    /// The earliest cycle `cmd` (not PRE) may issue at bank `b` by the
    /// bank's, its group's and its rank's timings.
    #[inline]
    fn at(&self, cmd: Cmd, b: usize) -> u64 {
        let own = self.banks[b].next[cmd as usize];
        if cmd == Cmd::Pre {
            return own;
        }
        let own = own.max(self.groups[b >> self.group_shift][cmd as usize]);
        if cmd == Cmd::Act {
            return own;
        }
        own.max(self.rank_col[b >> self.rank_shift][cmd as usize - 1])
    }

    /// Whether `cmd` may issue at bank `b` this cycle.
    #[inline]
    fn ready(&self, cmd: Cmd, b: usize, rank: usize) -> bool {
        if self.at(cmd, b) > self.now {
            return false;
        }
        let rk = &self.ranks[rank];
        // Four ACTs per tFAW.
        cmd != Cmd::Act || rk.act_count < 4 || rk.acts[rk.act_i] + self.cfg.timing.faw <= self.now
    }

    /// Issue the first ready command, visiting bank queues round robin
    /// from the one after the last to issue; returns whether one issued.
    fn issue(&mut self) -> bool {
        let n = self.bank_q.len() as u32;
        // The non-empty queues of ranks not due for refresh (those take no
        // command but the refresh's), rotated so that bit 0 is queue `rr`;
        // each visited has a command ready if its ready cycle (as the last
        // `next_event` found it, with `ready_valid`) has come.
        let ready = self.queued & !self.refreshing();
        for k in ones(ready.rotate_right(self.rr as u32)) {
            let b = (self.rr + k) % 64;
            let at = if self.ready_valid { self.ready_at[b] } else { self.bank_ready(b) };
            if at > self.now {
                debug_assert!(self.first_ready(b).is_none(), "bank {b} ready before its ready cycle");
                continue;
            }
            // (a device's SEND waiting for the bus may have moved the
            // columns' floor since `next_event`)
            let Some((i, cmd, rank, row)) = self.first_ready(b) else {
                continue;
            };
            match cmd {
                Cmd::Act => self.do_act(b, row, rank),
                Cmd::Pre => {
                    self.stats.conflict_precharges += 1;
                    self.do_pre(b)
                }
                Cmd::Read | Cmd::Write => {
                    self.count_to(self.now + 1);
                    let req = self.bank_q[b].remove(i).unwrap();
                    if let Some(next) = self.bank_q[b].front().filter(|_| i == 0) {
                        self.banks[b].head = next.row;
                    }
                    self.full &= !(1 << b);
                    self.row_hits[b][req.write as usize] -= 1;
                    if self.bank_q[b].is_empty() {
                        self.queued &= !(1 << b);
                    }
                    self.in_banks -= 1;
                    self.banked_writes -= req.write as usize;
                    self.do_column(req);
                }
            }
            self.rr = (b + 1) % n as usize;
            return true;
        }
        false
    }

    /// The first request of bank `b`'s queue whose next command may issue
    /// now: its index, the command, its rank and row.
    #[inline]
    fn first_ready(&self, b: usize) -> Option<(usize, Cmd, usize, u64)> {
        let q = &self.bank_q[b];
        let rank = b >> self.rank_shift;
        let Some(row) = self.banks[b].open else {
            // Closed: every request needs the one ACT; the oldest takes it.
            return self.ready(Cmd::Act, b, rank).then(|| (0, Cmd::Act, rank, q[0].row));
        };
        // Open: the first request hitting the row whose column command may
        // issue (whether a READ, or a WRITE, may is the same for every
        // request), or the oldest's PRE if it may close the row.
        let (mut read, mut write) = (None, None);
        for (i, r) in q.iter().enumerate() {
            if r.row != row {
                if i == 0 && self.may_close(b, 0) && self.ready(Cmd::Pre, b, rank) {
                    return Some((0, Cmd::Pre, rank, r.row));
                }
                continue;
            }
            let (cmd, ok) = if r.write {
                (Cmd::Write, *write.get_or_insert_with(|| self.ready(Cmd::Write, b, rank)))
            } else {
                (Cmd::Read, *read.get_or_insert_with(|| self.ready(Cmd::Read, b, rank)))
            };
            if ok {
                return Some((i, cmd, rank, row));
            }
        }
        None
    }

    /// Whether request `i` of bank `b`'s queue may close the open row: only
    /// the oldest may, and not while a queued request still hits the row,
    /// unless the row has served four since its ACT.
    #[inline]
    fn may_close(&self, b: usize, i: usize) -> bool {
        let bank = &self.banks[b];
        i == 0 && (bank.hits >= ROW_HIT_CAP || self.row_hits[b] == [0, 0])
    }

    fn do_act(&mut self, b: usize, row: u64, rank: usize) {
        let (t, now) = (self.cfg.timing, self.now);
        // (tRRD: the rank's groups, its own by the longer gap)
        let per_rank = 1 << (self.rank_shift - self.group_shift);
        let group = b >> self.group_shift;
        let (short, long) = (now + t.rrd_s, now + t.rrd_l);
        for (g, n) in self.groups.iter_mut().enumerate().skip(rank * per_rank).take(per_rank) {
            let n = &mut n[Cmd::Act as usize];
            *n = (*n).max(if g == group { long } else { short });
        }
        let mut n = [0; 2];
        for r in self.bank_q[b].iter().filter(|r| r.row == row) {
            n[r.write as usize] += 1;
        }
        self.row_hits[b] = n;
        let bank = &mut self.banks[b];
        bank.open = Some(row);
        self.open |= 1 << b;
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
        self.row_hits[b] = [0, 0];
        let bank = &mut self.banks[b];
        bank.open = None;
        self.open &= !(1 << b);
        bank.next[Cmd::Act as usize] = bank.next[Cmd::Act as usize].max(now + self.cfg.timing.rp);
        self.stats.pres += 1;
    }

    fn do_column(&mut self, r: Req) {
        let (g, now) = (self.gaps, self.now);
        let (rank, group) = (r.bank >> self.rank_shift, r.bank >> self.group_shift);
        // Gaps to later READs and WRITEs: same group, other group, other rank.
        let (rd, wr) = if r.write {
            ([g.wr_rd_l, g.wr_rd_s, g.wr_rd_r], [g.wr_wr_l, g.wr_wr_s, g.wr_wr_r])
        } else {
            ([g.rd_rd_l, g.rd_rd_s, g.rd_rd_r], [g.rd_wr; 3])
        };
        let n = &mut self.groups[group];
        n[Cmd::Read as usize] = n[Cmd::Read as usize].max(now + rd[0]);
        n[Cmd::Write as usize] = n[Cmd::Write as usize].max(now + wr[0]);
        for (ri, rc) in self.rank_col.iter_mut().enumerate() {
            let k = if ri == rank { 1 } else { 2 };
            rc[0] = rc[0].max(now + rd[k]);
            rc[1] = rc[1].max(now + wr[k]);
        }
        // (a device's SEND is another rank's burst)
        self.far_col = self.far_col.max(now + if r.write { g.wr_rd_r } else { g.rd_rd_r });
        let to_pre = if r.write { g.wr_pre } else { g.rd_pre };
        let bank = &mut self.banks[r.bank];
        bank.next[Cmd::Pre as usize] = bank.next[Cmd::Pre as usize].max(now + to_pre);
        if bank.hits > 0 {
            self.stats.row_hits += 1;
        } else if !r.write {
            self.stats.read_activates += 1;
        }
        if r.write {
            self.stats.cas_writes += 1;
        } else {
            self.stats.cas_reads += 1;
            self.stats.per_bank_reads[r.bank] += 1;
        }
        bank.hits += 1;
        self.stats.per_bank[r.bank] += 1;
        if !r.write {
            let t = self.cfg.timing;
            self.returns.push_back((now + t.cl + g.burst, r.id, r.arrival, false));
        }
        let close = match self.cfg.page {
            PagePolicy::Open => false,
            PagePolicy::Closed => true,
            PagePolicy::OpenAdaptive => self.row_hits[r.bank] == [0, 0],
        };
        if close {
            // Auto-precharge: the PRE goes as soon as tRAS and tRTP/tWR allow.
            let bank = &mut self.banks[r.bank];
            let pre = bank.next[Cmd::Pre as usize];
            bank.open = None;
            self.open &= !(1 << r.bank);
            self.row_hits[r.bank] = [0, 0];
            bank.next[Cmd::Act as usize] = bank.next[Cmd::Act as usize].max(pre + self.cfg.timing.rp);
            self.stats.pres += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::dram::map::Geometry;
    use crate::mem::dram::timing::DDR4_2666;
    use crate::sim::rng;
    use rand::Rng;

    /// DRAMsim3's stock DDR4-2666 channel, 2 ranks.
    fn config() -> Config {
        Config::dramsim3(DDR4_2666, Map::dramsim3(Geometry::ddr4_8gb_x8(2)))
    }

    fn channel() -> Channel {
        Channel::new(config())
    }

    #[test]
    fn an_idle_drain_below_the_low_watermark_still_moves_writes() {
        // (gem5's values as netdimm-table1 maps them: drain above 108 down
        // to 93 with reads waiting, above 64 with none)
        let mut cfg = config();
        (cfg.read_queue, cfg.write_queue, cfg.drain_high, cfg.drain_low, cfg.drain_idle, cfg.hold) = (64, 128, 109, 93, 64, true);
        let mut ch = Channel::new(cfg);
        for i in 0..80 {
            assert!(ch.offer(i, i << 14, true));
        }
        ch.run_to(100_000, &mut Vec::new());
        assert_eq!(ch.stats.cas_writes, 80 - 64, "down to the idle threshold");
    }

    #[test]
    fn a_devices_read_holds_a_read_entry_and_its_data_follows_rdy_on_the_shared_bus() {
        // (NetDIMM's host reads, as the paper's host MC queues them: XRD
        // when chosen, SEND once the device is ready, data tCL later)
        let mut cfg = config();
        cfg.read_queue = 2;
        let mut ch = Channel::new(cfg);
        let (t, g) = (DDR4_2666, DDR4_2666.gaps());
        assert!(ch.offer_far(7) && ch.offer(8, 64, false));
        assert!(!ch.offer_far(9) && !ch.can_take(false), "a device's read takes a read-queue entry");
        let mut out = vec![];
        ch.run_to(1, &mut out);
        assert_eq!(ch.far_sent, vec![(7, 0)], "the XRD goes at once");
        ch.far_sent.clear();
        // The device is ready 30 cycles on; the DIMM's read (ACT, READ
        // tRCD later) is on the data bus first, so the SEND waits for the
        // bus to turn to another rank.
        ch.far_ready(7, 30);
        ch.run_to(500, &mut out);
        let dimm_read = 1 + t.rcd;
        assert_eq!(out.iter().map(|d| d.id).collect::<Vec<_>>(), vec![8, 7]);
        assert_eq!(out[0].at, t.ps(dimm_read + t.cl + g.burst));
        let send = 30u64.max(dimm_read + g.rd_rd_r);
        assert_eq!(out[1].at, t.ps(send + t.cl + g.burst));
        assert_eq!(out[1].latency, out[1].at, "held from its arrival at cycle 0");
        assert!(ch.can_take(false) && !ch.busy());
        assert_eq!((ch.stats.reads, ch.stats.far_reads, ch.stats.cas_reads), (2, 1, 1));
    }

    #[test]
    fn a_devices_read_keeps_its_read_entry_until_its_data_is_back() {
        let mut cfg = config();
        cfg.read_queue = 1;
        let mut ch = Channel::new(cfg);
        let (t, g) = (DDR4_2666, DDR4_2666.gaps());
        assert!(ch.offer_far(7));
        let mut out = vec![];
        ch.run_to(1, &mut out);
        ch.far_ready(7, 20);
        // (the SEND goes at cycle 20, its data is back CL and a burst later)
        let back = 20 + t.cl + g.burst;
        ch.run_to(back, &mut out);
        assert!(out.is_empty() && !ch.can_take(false), "sent, data not back: the entry is held");
        ch.run_to(back + 1, &mut out);
        assert_eq!(out.len(), 1);
        assert!(ch.can_take(false), "data back: the entry is free");
    }

    #[test]
    fn a_devices_send_gets_the_bus_while_the_dimms_keep_it_busy() {
        // Back-to-back row hits every tCCD_S would leave no rank-switch gap
        // for the SEND; the DIMMs' columns hold back for it instead.
        let mut ch = channel();
        let (t, mut out, mut line) = (DDR4_2666, vec![], 0u64);
        const FAR_ID: u64 = u64::MAX;
        for cycle in 0..20_000u64 {
            // (16 of the DIMM's reads queued at a time, to one open row in
            // each of two bank groups, alternately: a burst every tCCD_S)
            while line < 16 + out.len() as u64 {
                assert!(ch.offer(line, ((line % 2) * 128 + (line / 2) % 128) << 6, false));
                line += 1;
            }
            if cycle == 1000 {
                assert!(ch.offer_far(FAR_ID));
            }
            ch.run_to(cycle + 1, &mut out);
            for (id, c) in std::mem::take(&mut ch.far_sent) {
                ch.far_ready(id, c + 5);
            }
            if let Some(d) = out.iter().find(|d| d.id == FAR_ID) {
                assert!(d.latency < t.ps(40), "{} cycles", d.latency / t.tck_ps);
                assert!(out.len() > 200, "the DIMM's reads kept the bus busy: {} back", out.len());
                return;
            }
        }
        panic!("the device's read never came back");
    }

    /// (cycle, address, write) of a bursty random trace with row locality.
    fn trace(n: usize, seed: u64) -> Vec<(u64, u64, bool)> {
        let mut r = rng(seed, 0, 0);
        let mut t = 0;
        (0..n)
            .map(|_| {
                t += if r.gen_bool(0.1) { r.gen_range(0..400) } else { r.gen_range(0..6) };
                let row_local = r.gen_bool(0.5);
                let a = if row_local { r.gen_range(0..1u64 << 16) } else { r.gen_range(0..1u64 << 32) } & !63;
                (t, a, r.gen_bool(0.3))
            })
            .collect()
    }

    /// Drive a trace; `step` = tick every cycle (no skipping).
    fn drive(tr: &[(u64, u64, bool)], step: bool) -> (Vec<Done>, Stats) {
        drive_with(tr, step, false)
    }

    /// [`drive`], with every fifth read (`far`) one of a device on the
    /// channel that is ready 10 to 16 cycles after its XRD.
    fn drive_with(tr: &[(u64, u64, bool)], step: bool, far: bool) -> (Vec<Done>, Stats) {
        let mut ch = channel();
        let mut out = vec![];
        let mut next = 0;
        // (writes below the drain threshold may stay queued: run past the
        // last arrival long enough for every read)
        let end = tr.last().map_or(0, |r| r.0) + 200_000;
        while next < tr.len() || ch.cycle() < end {
            if next < tr.len() && tr[next].0 <= ch.cycle() {
                let (_, a, w) = tr[next];
                let taken = if far && !w && next % 5 == 0 { ch.offer_far(next as u64) } else { ch.offer(next as u64, a, w) };
                if taken {
                    next += 1;
                    continue;
                }
            }
            let ready = |ch: &mut Channel| {
                for (id, c) in std::mem::take(&mut ch.far_sent) {
                    ch.far_ready(id, c + 10 + id % 7);
                }
            };
            if step {
                ch.tick_to(ch.cycle() + 1, &mut out);
                ready(&mut ch);
            } else {
                // (idle up to the wake, then its cycle, as `host` steps
                // them: the device answers an XRD before the next cycle)
                let to = if next >= tr.len() { ch.cycle() + 1 } else { tr[next].0.max(ch.cycle() + 1) };
                while ch.cycle() < to {
                    let w = ch.wake().clamp(ch.cycle(), to);
                    ch.run_to(w, &mut out);
                    if w < to {
                        ch.run_to(w + 1, &mut out);
                        ready(&mut ch);
                    }
                }
            }
        }
        (out, ch.stats())
    }

    #[test]
    fn skipping_idle_cycles_changes_nothing() {
        for seed in 0..4 {
            let tr = trace(4000, seed);
            let (a, sa) = drive(&tr, true);
            let (b, sb) = drive(&tr, false);
            assert_eq!(a, b, "seed {seed}");
            assert_eq!(
                (sa.cycles, sa.read_queue_occupancy, sa.write_queue_occupancy, sa.row_hits, sa.acts, sa.refreshes),
                (sb.cycles, sb.read_queue_occupancy, sb.write_queue_occupancy, sb.row_hits, sb.acts, sb.refreshes)
            );
        }
    }

    #[test]
    fn skipping_idle_cycles_changes_nothing_with_a_device_on_the_channel() {
        for seed in 0..4 {
            let tr = trace(4000, seed);
            let (a, sa) = drive_with(&tr, true, true);
            let (b, sb) = drive_with(&tr, false, true);
            assert_eq!(a, b, "seed {seed}");
            assert_eq!((sa.cycles, sa.read_queue_occupancy, sa.row_hits, sa.far_reads), (sb.cycles, sb.read_queue_occupancy, sb.row_hits, sb.far_reads));
            let reads = tr.iter().filter(|r| !r.2).count();
            assert_eq!(a.len(), reads, "every read back, the device's too");
            assert!(sa.far_reads > 100);
        }
    }

    #[test]
    fn idle_reads_cost_the_jedec_sum() {
        // A closed bank: ACT, READ (tRCD), data after CL + burst, plus the
        // cycle a request takes to reach its bank queue.
        let mut ch = channel();
        let mut out = vec![];
        assert!(ch.offer(1, 0, false));
        ch.run_to(200, &mut out);
        let t = DDR4_2666;
        assert_eq!(out[0].latency, t.ps(1 + t.rcd + t.cl + t.bl / 2));
        // The same row again: a row hit.
        assert!(ch.offer(2, 64, false));
        ch.run_to(400, &mut out);
        assert_eq!(out[1].latency, t.ps(1 + t.cl + t.bl / 2));
        // Another row of that bank: precharge first.
        assert!(ch.offer(3, 1 << 18, false));
        ch.run_to(600, &mut out);
        assert_eq!(out[2].latency, t.ps(1 + t.rp + t.rcd + t.cl + t.bl / 2));
    }

    #[test]
    fn a_full_queue_refuses_and_a_read_finds_a_queued_write() {
        let mut ch = channel();
        for i in 0..32 {
            assert!(ch.offer(i, i * 4096, true));
        }
        assert!(!ch.offer(99, 1 << 20, true), "the write queue holds 32");
        assert!(ch.offer(100, 5 * 4096, false));
        let mut out = vec![];
        ch.run_to(2, &mut out);
        assert_eq!(out, vec![Done { id: 100, at: DDR4_2666.ps(1), latency: DDR4_2666.ps(1) }]);
        assert_eq!(ch.stats.forwarded, 1);
    }

    #[test]
    fn refresh_blocks_a_rank_for_trfc() {
        let mut ch = channel();
        let mut out = vec![];
        let t = DDR4_2666;
        // Rank 0 falls due at tREFI / 2; a read just after waits for it.
        ch.run_to(t.refi / 2 + 1, &mut out);
        assert!(ch.offer(1, 0, false));
        ch.run_to(t.refi, &mut out);
        assert_eq!(ch.stats.refreshes, 1);
        assert!(out[0].latency > t.ps(t.rfc - 2), "{}", out[0].latency);
    }
}
