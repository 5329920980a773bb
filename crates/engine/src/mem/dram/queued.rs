//! The host's memory controllers inside a packet run (`dram.model =
//! controller`). The caches send each DRAM read and write-back the moment
//! it happens, dated no earlier than the event clock, so requests reach the
//! controllers in time order (the calendar instead takes them as cores
//! price them, ahead of the clock). A read a core waits for comes back
//! later: the run ticks the controllers at their `wake` and hands each
//! returned read to the core's fill buffers (`cpu::fill`).
//!
//! A request takes half the core-to-memory path to reach its controller,
//! and its data the other half back; the path is the measured idle latency
//! (`dram.latency`) less the controller's own idle read, as in `mem_bench`.

use super::controller::Config;
use crate::config::{DramCfg, DramModel};
use super::host::{Controllers, Event};
use crate::units::Time;

/// The id of a request no core waits for: a write, or a device's read.
const POSTED: u64 = u64::MAX;
/// Marks the id of a device's write whose buffer entry waits for the
/// write queue to take it (the rest of the id names its hold).
const HELD: u64 = 1 << 63;
/// Marks the id of a device's read whose fetch waits for it (the rest of
/// the id names the fetch).
const FETCHED: u64 = 1 << 62;
/// Marks the id of a read of the device on a channel (NetDIMM); the rest
/// of the id indexes its address.
const FAR: u64 = 1 << 61;

/// A read of a core's: the core, when it left the core, whether its
/// address came from the read before it (a pointer chase), and whether it
/// is the L2 prefetcher's (no pass waits for it).
#[derive(Clone, Copy)]
struct Flight {
    core: u32,
    issued: Time,
    chained: bool,
    prefetch: bool,
}

/// A core's read whose data is back at the core.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Back {
    pub core: usize,
    /// When the data reached the core.
    pub at: Time,
    /// Its load-to-use latency from leaving the core.
    pub lat: Time,
    pub chained: bool,
}

pub struct Queued {
    pub ctl: Controllers,
    /// Half the core-to-memory path.
    pub half: Time,
    flights: Slab<Flight>,
    /// The DRAM reads of the core pass in hand, in program order, each
    /// with whether it depends on the one before; the run hands them to
    /// the core's fill buffers when the pass is done.
    pub missed: Vec<(u64, bool)>,
    /// Reads missed from now on depend on the one before.
    pub chained: bool,
    /// The cycle a tick of the controllers is scheduled at (`u64::MAX`: none).
    pub due: u64,
    /// The first cycle a request sent since the run last looked reaches
    /// its controller at (`u64::MAX`: none sent).
    pub sent: u64,
    /// Per core: its reads that have left its L2 and are not back (demand
    /// and prefetch: its superqueue's occupancy).
    in_flight: Vec<u32>,
    /// Holds: a device write's lines to DRAM, whose IIO write-buffer
    /// entries free when the write queues have taken them all (`done`:
    /// when the last was taken).
    pub holds: Groups,
    /// Fetches: a device read's lines from DRAM, whose data is at the root
    /// complex when the last is back (`done`: when).
    pub fetches: Groups,
    /// Reads of the device on a channel: their addresses.
    far: Slab<u64>,
    /// Of them, those whose XRD went since the run last looked: channel,
    /// id, address, when. The run answers each with [`Queued::far_ready`].
    pub far_sent: Vec<(usize, u64, u64, Time)>,
}

/// Values under ids that are reused once freed.
struct Slab<T> {
    items: Vec<T>,
    spare: Vec<u64>,
}

impl<T: Copy> Slab<T> {
    fn new() -> Slab<T> {
        Slab { items: Vec::new(), spare: Vec::new() }
    }

    /// `x` under a free id.
    fn put(&mut self, x: T) -> u64 {
        match self.spare.pop() {
            Some(id) => {
                self.items[id as usize] = x;
                id
            }
            None => {
                self.items.push(x);
                self.items.len() as u64 - 1
            }
        }
    }

    fn get(&self, id: u64) -> T {
        self.items[id as usize]
    }

    /// The value under `id`, whose id is free from now.
    fn take(&mut self, id: u64) -> T {
        self.spare.push(id);
        self.items[id as usize]
    }

    /// Ids in use.
    #[cfg(test)]
    fn used(&self) -> usize {
        self.items.len() - self.spare.len()
    }
}

/// Requests gathered in groups, each done when its last request is:
/// `open` a group, the requests sent meanwhile join it, `close` it.
#[derive(Default)]
pub struct Groups {
    /// Per group: requests not yet done.
    left: Vec<u32>,
    spare: Vec<u32>,
    /// The group requests join now.
    open: Option<u32>,
    /// Groups done, and when.
    pub done: Vec<(u32, Time)>,
}

impl Groups {
    fn open(&mut self) {
        let g = self.spare.pop().unwrap_or_else(|| {
            self.left.push(0);
            self.left.len() as u32 - 1
        });
        self.left[g as usize] = 0;
        self.open = Some(g);
    }

    /// The open group's id, if a request joined it (one none joined is
    /// done at once).
    fn close(&mut self) -> Option<u32> {
        let g = self.open.take()?;
        if self.left[g as usize] == 0 {
            self.spare.push(g);
            return None;
        }
        Some(g)
    }

    /// A request joins the open group: its id, if one is open.
    fn join(&mut self) -> Option<u32> {
        let g = self.open?;
        self.left[g as usize] += 1;
        Some(g)
    }

    /// A request of group `g` is done at `at`.
    fn land(&mut self, g: u32, at: Time) {
        let left = &mut self.left[g as usize];
        *left -= 1;
        if *left == 0 {
            self.spare.push(g);
            self.done.push((g, at));
        }
    }
}

impl Queued {
    /// The controllers a packet run's `dram` section asks for, if any
    /// (`dram.model = controller`).
    pub fn from_cfg(c: &DramCfg) -> Result<Option<Queued>, String> {
        if c.model != DramModel::Controller {
            return Ok(None);
        }
        Ok(Some(Queued::new(Config::host(c)?, c.channels as usize, c.latency)))
    }

    /// The controllers of `channels` channels; `idle`: the idle
    /// load-to-use latency of a DRAM read (MLC's).
    pub fn new(cfg: Config, channels: usize, idle: Time) -> Queued {
        let half = idle.saturating_sub(cfg.idle_read()) / 2;
        Queued {
            ctl: Controllers::new(cfg, channels),
            half,
            flights: Slab::new(),
            missed: Vec::new(),
            chained: false,
            due: u64::MAX,
            sent: u64::MAX,
            in_flight: Vec::new(),
            holds: Groups::default(),
            fetches: Groups::default(),
            far: Slab::new(),
            far_sent: Vec::new(),
        }
    }

    /// A read of physical `line` core `core` issues at `now` and waits for.
    pub fn read(&mut self, core: usize, line: u64, chained: bool, now: Time) {
        self.read_for(core, line, chained, false, now);
    }

    /// An L2 prefetch of `line` by core `core` at `now`: it holds a
    /// superqueue entry until its data is back.
    pub fn prefetch(&mut self, core: usize, line: u64, now: Time) {
        self.read_for(core, line, false, true, now);
    }

    /// Core `core`'s reads out (demand and prefetch).
    pub fn in_flight(&self, core: usize) -> u32 {
        self.in_flight.get(core).copied().unwrap_or(0)
    }

    fn read_for(&mut self, core: usize, line: u64, chained: bool, prefetch: bool, now: Time) {
        if self.in_flight.len() <= core {
            self.in_flight.resize(core + 1, 0);
        }
        self.in_flight[core] += 1;
        let id = self.flights.put(Flight { core: core as u32, issued: now, chained, prefetch });
        self.send(now, id, line, false);
    }

    /// A request of `line` leaving the caches at `now` that no core waits
    /// for: a write (a write-back, or a device's write to DRAM), or a
    /// device's read.
    pub fn post(&mut self, line: u64, write: bool, now: Time) {
        self.send(now, POSTED, line, write);
    }

    /// A device's write of `line` to DRAM at `now`: it joins the open
    /// hold, if any (see [`Queued::hold`]).
    pub fn post_held(&mut self, line: u64, now: Time) {
        let id = self.holds.join().map_or(POSTED, |h| HELD | h as u64);
        self.send(now, id, line, true);
    }

    /// Open a hold: the device writes to DRAM until [`Queued::unhold`]
    /// free their buffer entries together, when the write queues have
    /// taken the last of them.
    pub fn hold(&mut self) {
        self.holds.open();
    }

    /// Close the open hold: its id if it holds any write (it appears in
    /// `holds.done` when they are all taken).
    pub fn unhold(&mut self) -> Option<u32> {
        self.holds.close()
    }

    /// A device's read of `line` from DRAM at `now`, for the open fetch
    /// (see [`Queued::fetch`]); false, and nothing sent, if none is open.
    pub fn read_fetched(&mut self, line: u64, now: Time) -> bool {
        let Some(g) = self.fetches.join() else { return false };
        self.send(now, FETCHED | g as u64, line, false);
        true
    }

    /// Open a fetch: the device reads from DRAM until
    /// [`Queued::unfetch`] are done together, when the last is back.
    pub fn fetch(&mut self) {
        self.fetches.open();
    }

    /// Close the open fetch: its id if it reads any line from DRAM (it
    /// appears in `fetches.done` when they are all back).
    pub fn unfetch(&mut self) -> Option<u32> {
        self.fetches.close()
    }

    /// A core's read of `addr` on the device in channel `ch` (NetDIMM) at
    /// `now`, that no core waits for: it queues in that channel's
    /// controller, which sends its XRD, and its SEND once the device is
    /// ready ([`Queued::far_ready`]).
    pub fn read_far(&mut self, ch: usize, addr: u64, now: Time) {
        let i = self.far.put(addr);
        let at = now + self.half;
        self.sent = self.sent.min(at.div_ceil(self.ctl.tck()));
        self.ctl.send_far(at, FAR | i, ch);
    }

    /// The device in channel `ch` has the data of read `id` (from
    /// `far_sent`) ready at `at`.
    pub fn far_ready(&mut self, ch: usize, id: u64, at: Time) {
        self.ctl.far_ready(ch, id, at);
    }

    fn send(&mut self, now: Time, id: u64, line: u64, write: bool) {
        let at = now + self.half;
        self.sent = self.sent.min(at.div_ceil(self.ctl.tck()));
        self.ctl.send(at, id, line << 6, write);
    }

    /// Requests still to reach a controller or in one? (Cores' reads,
    /// demand and prefetch, only.)
    #[cfg(test)]
    pub fn waiting(&self) -> bool {
        self.flights.used() > 0
    }

    /// Run DRAM cycle `cycle`, adding the cores' demand reads whose data it
    /// returned to `back`. Returns whether a request due is still waiting
    /// to be taken (the next cycle must run too).
    pub fn tick(&mut self, cycle: u64, back: &mut Vec<Back>) -> bool {
        let (flights, half, in_flight) = (&mut self.flights, self.half, &mut self.in_flight);
        let (holds, fetches) = (&mut self.holds, &mut self.fetches);
        let (far, far_sent) = (&mut self.far, &mut self.far_sent);
        let now = cycle * self.ctl.tck();
        self.ctl.step(cycle, |e| match e {
            Event::Returned { id, .. } if id == POSTED => {}
            Event::Returned { id, at } if id & FETCHED != 0 => fetches.land((id & !FETCHED) as u32, at + half),
            // (a device's read no core waits for)
            Event::Returned { id, .. } if id & FAR != 0 => {
                far.take(id & !FAR);
            }
            Event::FarSent { ch, id, at } => far_sent.push((ch, id, far.get(id & !FAR), at)),
            Event::Returned { id, at } => {
                let f = flights.take(id);
                in_flight[f.core as usize] -= 1;
                // (an L2 prefetch's return frees its superqueue entry; no
                // core waits for it)
                if !f.prefetch {
                    let at = at + half;
                    back.push(Back { core: f.core as usize, at, lat: at - f.issued, chained: f.chained });
                }
            }
            Event::Admitted { id, write: true } if id != POSTED && id & HELD != 0 => holds.land((id & !HELD) as u32, now),
            _ => {}
        })
    }

    /// The first cycle anything can happen at in a controller.
    pub fn wake(&self) -> u64 {
        self.ctl.wake()
    }
}

/// The controllers driven by a loop of its own that sends its requests in
/// time order (NetDIMM's co-runner; a packet run ticks them from its event
/// queue): their cycles run up to a time the loop names.
#[derive(Default)]
pub struct Clock {
    /// The next cycle to run, and whether a request due then was refused
    /// (then that cycle runs whatever the controllers' wake).
    next: u64,
    refused: bool,
}

impl Clock {
    /// Run the controllers' cycles before `until` (ps); stop at the first
    /// cycle a read some core waits for comes back, and return it.
    /// `device(addr, at)`: when the device on a channel has the data of a
    /// read whose XRD went at `at`.
    pub fn run(&mut self, q: &mut Queued, until: Time, back: &mut Vec<Back>, device: &mut impl FnMut(u64, Time) -> Time) -> Option<Back> {
        let tck = q.ctl.tck();
        loop {
            let c = if self.refused { self.next } else { q.wake().max(self.next) };
            if c == u64::MAX || c * tck >= until {
                return None;
            }
            self.refused = q.tick(c, back);
            while let Some((ch, id, addr, at)) = q.far_sent.pop() {
                q.far_ready(ch, id, device(addr, at));
            }
            self.next = c + 1;
            if let Some(b) = back.pop() {
                return Some(b);
            }
        }
    }
}

/// Two channels of DRAMsim3's stock DDR4-2666 behind a 90 ns idle path
/// (the tests' controllers, here and in `cpu::fill`).
#[cfg(test)]
pub(crate) fn two_ddr4_2666() -> Queued {
    use crate::mem::dram::map::{Geometry, Map};
    use crate::mem::dram::timing;
    let cfg = Config::dramsim3(timing::bin("DDR4-2666").unwrap(), Map::dramsim3(Geometry::ddr4_8gb_x8(2)));
    Queued::new(cfg, 2, 90 * crate::units::NS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{NS, US};
    use super::two_ddr4_2666 as queued;

    /// Tick at every wake until nothing waits; the reads back.
    fn drain(q: &mut Queued) -> Vec<Back> {
        let mut back = Vec::new();
        let mut cycle = 0;
        while q.waiting() {
            let refused = q.tick(cycle, &mut back);
            cycle = if refused { cycle + 1 } else { q.wake().max(cycle + 1) };
        }
        back
    }

    #[test]
    fn an_idle_read_takes_the_measured_idle_latency() {
        let mut q = queued();
        q.read(3, 1 << 20, false, 10 * NS);
        let back = drain(&mut q);
        assert_eq!(back.len(), 1);
        assert_eq!((back[0].core, back[0].chained), (3, false));
        // (90 ns is MLC's mean, refreshes included: a read that meets none
        // is up to tRFC^2 / 2tREFI, ~8 ns, faster)
        let lat = back[0].lat as f64 / NS as f64;
        assert!(lat <= 90.0 && lat > 81.0, "{lat} ns");
        assert_eq!(back[0].at, 10 * NS + back[0].lat);
    }

    #[test]
    fn reads_sent_out_of_order_are_served_in_arrival_order() {
        let mut q = queued();
        // (same bank, different rows: served one after another)
        q.read(0, 7 << 24, false, 50 * NS);
        q.read(1, 9 << 24, false, 0);
        let back = drain(&mut q);
        assert_eq!(back.iter().map(|b| b.core).collect::<Vec<_>>(), vec![1, 0]);
    }

    #[test]
    fn a_hold_frees_when_the_write_queue_has_taken_its_last_line() {
        let mut q = queued();
        q.hold();
        for i in 0..3 {
            q.post_held(i << 14, 0);
        }
        let h = q.unhold().expect("three writes held");
        q.hold();
        assert_eq!(q.unhold(), None, "a hold of no write frees at once");
        let (mut back, mut cycle) = (Vec::new(), 0);
        while q.holds.done.is_empty() {
            q.tick(cycle, &mut back);
            cycle += 1;
        }
        // one admission a cycle, from the cycle the first arrives
        let first = q.half.div_ceil(q.ctl.tck());
        assert_eq!(q.holds.done, vec![(h, (first + 2) * q.ctl.tck())]);
    }

    #[test]
    fn a_fetch_is_back_when_its_last_line_is() {
        let mut q = queued();
        q.fetch();
        assert!(q.read_fetched(1 << 20, 0) && q.read_fetched(2 << 20, 0) && q.read_fetched(3 << 20, 10 * NS));
        let g = q.unfetch().expect("three lines fetched");
        q.fetch();
        assert_eq!(q.unfetch(), None, "a fetch of no line is back at once");
        assert!(!q.read_fetched(4 << 20, 0), "no fetch open: the read is the caller's to post");
        let (mut back, mut cycle) = (Vec::new(), 0);
        while q.fetches.done.is_empty() {
            q.tick(cycle, &mut back);
            cycle += 1;
        }
        let (id, at) = q.fetches.done[0];
        assert_eq!(id, g);
        // the last line back no sooner than an idle read after it left, and
        // no later than the three read one after another
        let ns = (at - 10 * NS) as f64 / NS as f64;
        assert!(ns > 81.0 && ns < 3.0 * 90.0, "{ns} ns");
        assert!(back.is_empty(), "no core waited");
    }

    #[test]
    fn posted_requests_load_the_channel_but_return_nothing() {
        let mut q = queued();
        for i in 0..64 {
            q.post(i << 14, true, 0);
        }
        q.read(0, 1 << 30, false, 0);
        let mut back = drain(&mut q);
        assert_eq!(back.len(), 1);
        // (the drain waits for the write queue's high watermark; run on)
        let mut cycle = q.wake();
        while cycle < 20 * US / q.ctl.tck() {
            let refused = q.tick(cycle, &mut back);
            cycle = if refused { cycle + 1 } else { q.wake().max(cycle + 1) };
        }
        assert_eq!((back.len(), q.ctl.counters().cas_writes), (1, 64));
    }
}
