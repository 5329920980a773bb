//! The packet run (`sim.kind = packet`): builds every component from its
//! sections of the validated [`Cfg`], runs the event loop, and turns the
//! counters into a [`Report`] (`report.rs`).
//!
//! Events are small copyable records routed here; each component's
//! behaviour lives in its own file. A NIC (`nic.rs`: its state, built from
//! its sections) acts on its own state beside a borrowed [`Host`]: `rx.rs`
//! (the receive path), `tx.rs` (the transmit path), `accel.rs` (accelNFV's
//! flow engine), `rootport.rs` (its root port's read tags and posted
//! credits, and the reads and writes that wait for the memory
//! controllers). The host's side is `core.rs` (the cores' poll loop, the
//! co-runner and antagonists, the controllers' returns), `shring.rs`
//! (dshRing's decisions) and `report.rs`.

mod accel;
mod bottleneck;
pub(crate) mod converge;
mod core;
mod nic;
mod report;
mod rootport;
mod rx;
mod shring;
mod tx;

pub(crate) use nic::{pay_mbuf, ClosedLoop, Departure, NicState};

use crate::config::SimUntil;
use crate::cpu::fill::FillBuffers;
use crate::cpu::memloop::MemLoop;
use crate::cpu::Core;
use crate::mem::dram::queued::{Back, Queued};
use crate::mem::{AddressMap, MemStats, Memory};
use crate::nf::Nf;
use crate::nic::{Discipline, Port};
use crate::config::Cfg;
use crate::pcie::PcieConfig;
use crate::report::Report;
use crate::sim::{rng, stream, EventQueue, Rng};
use crate::units::{ser_time, Time};

#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// The next frame of NIC `nic` has been fully received.
    Arrive {
        nic: u16,
        /// With flow control: the frame's schedule this event belongs to
        /// (PAUSE moves frames; an event of an older epoch is ignored).
        epoch: u32,
    },
    /// With flow control: NIC `nic`'s Rx buffer may have drained below XON.
    PauseCheck {
        nic: u16,
    },
    /// The frame DMA of Rx index `idx` of ring `q` reached host memory.
    RxDma {
        nic: u16,
        q: u16,
        idx: u64,
    },
    /// A line of completion ring `q` covering positions below `upto`
    /// reached host memory.
    RxCqe {
        nic: u16,
        q: u16,
        upto: u64,
    },
    /// `n` descriptors from Rx index `from` reached the NIC.
    RxDescFetched {
        nic: u16,
        q: u16,
        from: u64,
        n: u16,
    },
    /// The driver's doorbell: written by the core (`arrived` false), then
    /// seen by the NIC after crossing PCIe.
    RxDoorbell {
        nic: u16,
        q: u16,
        pi: u64,
        arrived: bool,
    },
    /// Tx doorbell writes still to cross the link (0 = seen by the NIC).
    TxDoorbell {
        nic: u16,
        q: u16,
        pi: u64,
        doorbells: u32,
    },
    TxWqeFetched {
        nic: u16,
        q: u16,
        n: u32,
    },
    TxResume {
        nic: u16,
    },
    /// A data read of frame `frame` of NIC `nic`'s Tx FIFO is back.
    TxData {
        nic: u16,
        frame: u64,
    },
    /// A Tx queue descheduled for filling the Tx buffer is eligible again.
    TxResched {
        nic: u16,
        q: u16,
    },
    RxPump {
        nic: u16,
    },
    TxCqe {
        nic: u16,
        q: u16,
        upto: u64,
    },
    CorePoll {
        core: u16,
    },
    Corunner,
    Antagonist { i: u16 },
    /// The memory controllers' next cycle with something to do.
    Dram,
    /// Core `core`'s DRAM reads are all back: its pass goes on.
    Resume { core: u16 },
    /// dshRing samples and decides.
    Dshring,
    /// Record a timeline sample (`sim.sample_period`).
    Sample,
    WarmupEnd,
    /// A batch boundary of `sim.until = converged`.
    Batch,
}

/// The NIC's descriptor and completion layout and the other values the
/// hot path derives from several parameters, worked out once at build.
/// (Plain parameters are read from `Host::cfg`.)
pub(crate) struct Layout {
    /// Bytes of one Rx descriptor: one scatter entry per buffer.
    pub rx_desc: u64,
    /// Bytes of one Tx WQE (mlx5 layout).
    pub tx_desc: u64,
    /// Rx completion entry: `nic.cqe_size`, or 128 B with Rx header inlining.
    pub rx_cqe: u64,
    /// Rx completions per CQE line (8 with CQE compression, else 1).
    pub cqe_per_line: u64,
    /// Time the NIC pipeline spends per packet.
    pub pipe_ps: Time,
    /// Header split offset (0 = frames are not split).
    pub split: u64,
    /// `nic.tx_queue_buffer` with `nic.tx_desched` (0 = no per-queue limit).
    pub tx_queue_buffer: u64,
    /// Rx header inlining: a split frame's header arrives in its CQE.
    pub rx_inline: bool,
    /// Compute cycles of the NF per packet: `app.nf_cycles`, plus
    /// `app.nat_cycles` and `app.lb_cycles` for the NFs that run them.
    pub nf_cycles: u64,
}

impl Layout {
    pub fn from_cfg(c: &Cfg) -> Layout {
        let (split, rx_inline) = (c.nic.header_split, c.nic.rx_inline);
        Layout {
            // One scatter entry per buffer: header and payload when split,
            // unless the header arrives in the CQE.
            rx_desc: c.nic.rx_desc_size * if split && !rx_inline { 2 } else { 1 },
            tx_desc: crate::nic::tx_wqe_bytes(&c.nic),
            rx_cqe: if rx_inline { 128 } else { c.nic.cqe_size },
            cqe_per_line: if c.nic.rx_cqe_comp { 8 } else { 1 },
            pipe_ps: (1e6 / c.nic.pipeline_mpps) as Time,
            split: if split { c.nic.split_offset } else { 0 },
            tx_queue_buffer: if c.nic.tx_desched { c.nic.tx_queue_buffer } else { 0 },
            rx_inline,
            nf_cycles: crate::nf::compute_cycles(&c.app),
        }
    }

    /// Whether a frame's header arrives inside its CQE (Rx inlining of a
    /// split frame) rather than in its header buffer.
    #[inline]
    pub fn hdr_in_cqe(&self, size: u32) -> bool {
        self.rx_inline && mem_len(size) > self.split
    }

    /// Bytes of a frame that go to its (header) buffer in host memory.
    #[inline]
    pub fn hdr_len(&self, size: u32) -> u64 {
        if self.split == 0 {
            mem_len(size)
        } else {
            self.split.min(mem_len(size))
        }
    }
}

pub use crate::wire::mem_len;

/// The LLC ways each core of the run may fill (CAT): the NF cores, NIC by
/// NIC (`llc.cat_masks`), then the co-runner's, then the antagonists';
/// and where the co-runner's and the antagonists' cores start.
struct CatMasks {
    per_core: Vec<u64>,
    corunner: usize,
    antagonists: usize,
}

impl CatMasks {
    fn of(c: &Cfg) -> CatMasks {
        let all = (1u64 << c.llc.ways) - 1;
        let mut per_core = vec![];
        for n in 0..c.nic.count as usize {
            let m = c.llc.cat_masks.as_slice().get(n).copied().unwrap_or(all);
            per_core.extend(std::iter::repeat_n(m, c.cpu.cores as usize));
        }
        let corunner = per_core.len();
        if c.corunner.enabled {
            let m = c.corunner.cat_mask;
            per_core.push(if m == 0 { all } else { m });
        }
        let antagonists = per_core.len();
        per_core.extend(std::iter::repeat_n(all, c.antagonist.cores as usize));
        CatMasks { per_core, corunner, antagonists }
    }
}


/// Queue an RxPump for NIC `n` at `at`, unless one comes no later. A time
/// already past is now: the queue runs it now, and the pending pump must be
/// remembered at that time, or its event would never clear it and every later
/// pump would wait for it (a frame whose credits came back "before now", as
/// a large frame's do, stalled the Rx path for good).
pub(super) fn pump_at(q: &mut EventQueue<Ev>, n: usize, port: &mut Port, at: Time) {
    let at = at.max(q.now());
    if port.rx_pump_at.is_none_or(|p| at < p) {
        port.rx_pump_at = Some(at);
        q.push(at, Ev::RxPump { nic: n as u16 });
    }
}

/// A request of NIC `n` ended at `at` (its response left, or it was
/// dropped): a closed-loop client waiting on its window sends the next.
#[inline]
pub(crate) fn request_done(q: &mut EventQueue<Ev>, n: usize, client: &mut Option<ClosedLoop>, at: Time) {
    if let Some(t) = client.as_mut().and_then(|cl| cl.done(at)) {
        q.push(t, Ev::Arrive { nic: n as u16, epoch: 0 });
    }
}


/// The packet run: the NICs, and the host they serve. Kept apart so a
/// NIC's behaviour (`rx.rs`, `tx.rs`, `accel.rs`, `rootport.rs`) runs on
/// its own state beside a borrowed host, as smoltcp's `Interface` keeps
/// its sockets apart from `InterfaceInner`.
pub struct World {
    pub(crate) nics: Vec<NicState>,
    pub(crate) host: Host,
}

/// Everything of the server but its NICs: the event queue, memory,
/// cores, the NF, the run's settings and counters.
pub(crate) struct Host {
    pub(crate) q: EventQueue<Ev>,
    pub(crate) mem: Memory,
    pub(crate) cores: Vec<Core>,
    pub(crate) core_rng: Vec<Rng>,
    /// Lines a flow-table NF touched for the packet in hand.
    pub(crate) nf_scratch: crate::nf::flowtable::Touched,
    pub(crate) nf: Nf,
    pub(crate) k: Layout,
    /// The scenario, typed; the hot path reads its plain parameters here.
    pub(crate) cfg: Cfg,
    pub(crate) corunner: Option<MemLoop>,
    pub(crate) antagonists: Vec<MemLoop>,
    /// With the memory controllers, per memory core (the NF cores, the
    /// co-runner, the antagonists): its fill buffers, and its pass waiting
    /// for DRAM reads.
    pub(crate) fills: Vec<FillBuffers>,
    pub(crate) passes: Vec<Option<core::Pass>>,
    pub(crate) dram_back: Vec<Back>,
    /// Per hold of the controllers: the NIC, the posted credits whose
    /// entries it holds, and when the root port was done with the write.
    pub(crate) credit_holds: Vec<Option<(usize, u64, Time)>>,
    /// Device reads waiting for DRAM, by their fetch (see `rootport::Fetch`).
    fetches: Vec<Option<rootport::Fetch>>,
    /// End of the run: `sim.warmup + sim.duration`.
    pub(crate) end: Time,
    pub(crate) measuring: bool,
    pub(crate) mem_base: MemStats,
    /// At warm-up end, per NIC: PCIe busy time up, down; payload bytes up, down.
    pub(crate) pcie_base: Vec<[u64; 5]>,
    pub(crate) core_miss_base: Vec<u64>,
    pub(crate) dshring: Option<shring::Dshring>,
    pub(crate) timeline: Option<Timeline>,
    /// `sim.until = converged`: the batches so far.
    pub(crate) batches: Option<converge::Batches>,
}

impl Host {
    /// The memory loop (co-runner or antagonist) on core `core`, if any.
    pub(super) fn memory_loop(&mut self, core: usize) -> Option<&mut MemLoop> {
        if self.corunner.as_ref().is_some_and(|l| l.core == core) {
            return self.corunner.as_mut();
        }
        // (the antagonists' cores are consecutive)
        let first = self.antagonists.first()?.core;
        self.antagonists.get_mut(core.checked_sub(first)?)
    }

    /// Core `core`, if asleep, polls again at `now` (a completion for it
    /// is in host memory).
    pub(super) fn wake(&mut self, core: usize, now: Time) {
        if self.cores[core].sleeping {
            self.cores[core].sleeping = false;
            self.q.push(now, Ev::CorePoll { core: core as u16 });
        }
    }
}

/// Samples of `sim.sample_period`, and the whole-run counters at the last one.
pub(crate) struct Timeline {
    period: Time,
    last: [u64; 3],
    pub samples: Vec<crate::report::Sample>,
}


/// The first NIC whose measured window saw thousands of frames arrive and
/// handed not one of them to the host (no descriptor given, so no DMA)
/// while none of its cores was still working on frames it took (a poll
/// still waiting at the end had a read back in the window): a blocked
/// datapath. (A slow core still takes frames until its ring is full, and
/// its drops are then for want of descriptors; a core whose poll outlasts
/// the window holds its ring's descriptors all through it, and is slow,
/// not blocked.) Per NIC: (accelerated, arrived, descriptors given,
/// Rx-buffer drops, a core holds frames at the end); the answer: (NIC,
/// arrived, dropped).
fn blocked(nics: impl Iterator<Item = (bool, u64, u64, u64, bool)>) -> Option<(usize, u64, u64)> {
    const ENOUGH: u64 = 1000;
    nics.enumerate()
        .find(|(_, (accel, arrived, given, _, working))| !accel && *arrived >= ENOUGH && *given == 0 && !working)
        .map(|(i, (_, arrived, _, dropped, _))| (i, arrived, dropped))
}

#[cfg(test)]
mod progress_tests {
    #[test]
    fn a_window_of_arrivals_with_nothing_handed_to_the_host_is_blocked() {
        let ok = (false, 15_000, 14_000, 0, false);
        let stuck = (false, 15_185, 0, 15_185, false);
        assert_eq!(super::blocked([ok, stuck].into_iter()), Some((1, 15_185, 15_185)));
        assert_eq!(super::blocked([ok].into_iter()), None);
        assert_eq!(super::blocked([(false, 999, 0, 999, false)].into_iter()), None, "too few frames to tell");
        assert_eq!(super::blocked([(true, 15_000, 0, 0, false)].into_iter()), None, "accelNFV never hands frames to the host");
        assert_eq!(super::blocked([(false, 16_447, 0, 0, true)].into_iter()), None, "a core's poll outlasts the window: slow");
    }
}

/// `app.preload_flows`: every flow of each NIC's source is in its NIC's
/// flow cache (accelNFV) and in the table of the core RSS steers it to,
/// as after a warm-up long enough to have seen them all.
fn preload(c: &Cfg, nf: &mut Nf, nics: &mut [NicState], g: &mut crate::sim::Guard) -> Result<(), String> {
    let cores_per_nic = c.cpu.cores as usize;
    let stateful = crate::nf::flow_tables_per_core(c.app.nf) > 0;
    let mut r = rng(c.sim.seed, stream::NF, u64::MAX);
    for (n, s) in nics.iter_mut().enumerate() {
        let flows = s.src.flow_count() as u32;
        if let Some(a) = &mut s.accel {
            a.preload(flows);
        }
        if stateful {
            // Flows go in in order (the RNG of cuckoo kicks sees the
            // same sequence); the tables' memory is prefetched a few
            // flows ahead, since bulk loading waits on host DRAM.
            const AHEAD: u32 = 8;
            let core_of = |f: u32| n * cores_per_nic + s.port.rss_queue(s.src.flow_rss_hash(f));
            let mut cores: std::collections::VecDeque<usize> = (0..flows.min(AHEAD)).map(core_of).collect();
            for f in 0..flows {
                g.tick(|| 0.0)?;
                if f + AHEAD < flows {
                    let c = core_of(f + AHEAD);
                    nf.prefetch_flow(c, f + AHEAD);
                    cores.push_back(c);
                }
                let core = cores.pop_front().expect("one core per flow");
                nf.preload(core, f, &mut r);
            }
        }
    }
    Ok(())
}

impl World {
    pub fn build(c: &Cfg) -> Result<World, String> {
        Self::build_with(c, &mut |_| true)
    }

    /// [`World::build`], telling `progress` (share 0: nothing simulated yet)
    /// while it preloads flow tables, which for millions of flows takes
    /// seconds: Ctrl-C stops a build too.
    pub fn build_with(c: &Cfg, progress: &mut dyn FnMut(f64) -> bool) -> Result<World, String> {
        let mut g = crate::sim::Guard::new(progress);
        let seed = c.sim.seed;
        let cores_per_nic = c.cpu.cores as usize;
        let masks = CatMasks::of(c);
        let mem_cores = masks.per_core.len();
        let mut mem = Memory::new(&c.mem, &c.llc, &c.l1d, &c.l2, &c.dram, c.sim.seed, masks.per_core);
        mem.mc = Queued::from_cfg(&c.dram)?;
        let mut map = AddressMap::new();
        let pcfg = PcieConfig::from_section(&c.pcie)?;
        let k = Layout::from_cfg(c);
        let mut nic_states = (0..c.nic.count as usize)
            .map(|n| NicState::build(c, n, &k, pcfg, &mut map))
            .collect::<Result<Vec<_>, _>>()?;
        let cores: Vec<Core> = (0..nic_states.len()).flat_map(|n| (0..cores_per_nic).map(move |q| Core::new(n, q, q))).collect();
        let mut nf = Nf::build(c, &mut map, cores.len());
        if c.app.preload_flows {
            preload(c, &mut nf, &mut nic_states, &mut g)?;
        }
        let corunner = c.corunner.enabled.then(|| MemLoop::corunner(&c.corunner, &mut map, masks.corunner, seed));
        let antagonists = MemLoop::antagonists(&c.antagonist, &mut map, masks.antagonists, seed);
        let core_rng = (0..cores.len())
            .map(|i| rng(seed, stream::NF, i as u64))
            .collect();
        let warmup = c.sim.warmup;
        let mut w = World {
            nics: nic_states,
            host: Host {
                q: EventQueue::new(),
                mem,
                cores,
                core_rng,
                nf_scratch: Default::default(),
                nf,
                k,
                cfg: c.clone(),
                corunner,
                antagonists,
                fills: (0..mem_cores).map(|_| FillBuffers::new(c.cpu.mlp)).collect(),
                passes: (0..mem_cores).map(|_| None).collect(),
                dram_back: Vec::new(),
                credit_holds: Vec::new(),
                fetches: Vec::new(),
                end: warmup + c.sim.duration,
                measuring: false,
                mem_base: MemStats::default(),
                pcie_base: vec![],
                core_miss_base: vec![],
                dshring: c.rings.dynamic.then(|| shring::Dshring::new(&c.rings)),
                timeline: (c.sim.sample_period > 0).then(|| Timeline {
                    period: c.sim.sample_period,
                    last: [0; 3],
                    samples: vec![],
                }),
                batches: (c.sim.until == SimUntil::Converged).then(|| converge::Batches::new(c.sim.batch, c.sim.rel_error)),
            },
        };
        w.start();
        Ok(w)
    }

    /// The first events: each NIC's first frame and Rx descriptor fetches,
    /// the memory loops, the samplers and the warm-up's end.
    fn start(&mut self) {
        for n in 0..self.nics.len() {
            let nic = &mut self.nics[n];
            let due = nic.sent(ser_time(crate::wire::wire_bytes(nic.next.size), self.host.cfg.nic.line_rate));
            self.host.q.push(due, Ev::Arrive { nic: n as u16, epoch: 0 });
            for q in 0..self.nics[n].rxq.len() {
                self.nics[n].rx_fetch(n, &mut self.host, q, 0);
            }
        }
        if self.host.corunner.is_some() {
            self.host.q.push(0, Ev::Corunner);
        }
        for i in 0..self.host.antagonists.len() {
            self.host.q.push(0, Ev::Antagonist { i: i as u16 });
        }
        if let Some(d) = &self.host.dshring {
            self.host.q.push(d.period, Ev::Dshring);
        }
        if let Some(t) = &self.host.timeline {
            self.host.q.push(t.period, Ev::Sample);
        }
        self.host.q.push(self.host.cfg.sim.warmup, Ev::WarmupEnd);
        if let Some(b) = &self.host.batches {
            self.host.q.push(self.host.cfg.sim.warmup + b.period, Ev::Batch);
        }
    }

    /// Run to the end of the measured window and report.
    pub fn run(self) -> Result<Report, String> {
        self.run_with(&mut |_| true)
    }

    /// [`World::run`], telling `progress` every 2^16 events the share of
    /// the simulated time done; it returns false to stop the run (an
    /// error, "interrupted"). It sees the simulation, never changes it.
    pub fn run_with(mut self, progress: &mut dyn FnMut(f64) -> bool) -> Result<Report, String> {
        while let Some((now, e)) = self.host.q.pop() {
            self.host.mem.dram.advance(now);
            if now > self.host.end {
                break;
            }
            if self.host.q.events() & ((1 << 16) - 1) == 0 && !progress(now as f64 / self.host.end.max(1) as f64) {
                return Err("interrupted".into());
            }
            // (a NIC's event runs on its state beside the host)
            let (nics, h) = (&mut self.nics, &mut self.host);
            match e {
                Ev::Arrive { nic, epoch } => nics[nic as usize].on_arrive(nic as usize, h, epoch, now),
                Ev::PauseCheck { nic } => nics[nic as usize].on_pause_check(nic as usize, h, now),
                Ev::RxDma { nic, q, idx } => nics[nic as usize].on_rx_dma(nic as usize, h, q as usize, idx, now),
                Ev::RxCqe { nic, q, upto } => nics[nic as usize].on_rx_cqe(nic as usize, h, q as usize, upto, now),
                Ev::RxDescFetched { nic, q, from, n } => {
                    nics[nic as usize].on_rx_desc_fetched(nic as usize, h, q as usize, from, n as u64, now)
                }
                Ev::RxDoorbell {
                    nic,
                    q,
                    pi,
                    arrived,
                } => nics[nic as usize].on_rx_doorbell(nic as usize, h, q as usize, pi, arrived, now),
                Ev::TxDoorbell {
                    nic,
                    q,
                    pi,
                    doorbells,
                } => nics[nic as usize].on_tx_doorbell(nic as usize, h, q as usize, pi, doorbells, now),
                Ev::TxWqeFetched { nic, q, n } => {
                    nics[nic as usize].on_tx_wqe_fetched(nic as usize, h, q as usize, n as u64, now)
                }
                Ev::TxData { nic, frame } => nics[nic as usize].on_tx_data(nic as usize, h, frame, now),
                Ev::TxResume { nic } => {
                    nics[nic as usize].port.tx_resume_pending = false;
                    nics[nic as usize].tx_pump(nic as usize, h, now)
                }
                Ev::TxResched { nic, q } => nics[nic as usize].on_tx_resched(nic as usize, h, q as usize, now),
                Ev::RxPump { nic } => {
                    let port = &mut nics[nic as usize].port;
                    if port.rx_pump_at == Some(now) {
                        port.rx_pump_at = None;
                    }
                    nics[nic as usize].rx_pump(nic as usize, h, now)
                }
                Ev::TxCqe { nic, q, upto } => nics[nic as usize].on_tx_cqe(nic as usize, h, q as usize, upto, now),
                Ev::CorePoll { core } => self.on_core_poll(core as usize, now),
                Ev::Corunner => self.on_corunner(now),
                Ev::Antagonist { i } => self.on_antagonist(i as usize, now),
                Ev::Dram => self.on_dram(now),
                Ev::Resume { core } => self.on_resume(core as usize),
                Ev::Dshring => self.on_dshring(now),
                Ev::Sample => self.on_sample(now),
                Ev::WarmupEnd => self.on_warmup_end(now),
                Ev::Batch => self.on_batch(now),
            }
            if self.host.mem.mc.as_ref().is_some_and(|mc| mc.sent < mc.due) {
                self.schedule_dram();
            }
        }
        let end = self.host.end;
        for n in &mut self.nics {
            n.settle(end, self.host.cfg.sim.warmup);
        }
        if let Some(mc) = &mut self.host.mem.mc {
            mc.ctl.settle();
        }
        self.check_invariants()?;
        self.check_progress()?;
        Ok(self.report())
    }

    /// A blocked datapath (see [`blocked`]) is an error, not a throughput of zero.
    fn check_progress(&self) -> Result<(), String> {
        // (a poll still working at the end must have had a read back in the
        // window: one waiting on nothing is stuck)
        let (start, end) = (self.host.cfg.sim.warmup, self.host.end);
        let working = |c: &crate::cpu::Core| c.frames_until > end && (c.frames_until != Time::MAX || c.read_back_at >= start);
        let working = |i: usize| self.host.cores.iter().any(|c| c.nic == i && working(c));
        let counts = self.nics.iter().enumerate().map(|(i, n)| (n.accel.is_some(), n.c.arrived, n.c.rx_desc_given, n.c.drop_rx_buffer, working(i)));
        match blocked(counts) {
            Some((i, arrived, dropped)) => Err(format!(
                "no progress: NIC {i} received {arrived} frames in the measured window and passed none to the host \
                 ({dropped} dropped in its Rx buffer); its datapath is blocked (a deadlock of this configuration), \
                 so there is no throughput to report"
            )),
            None => Ok(()),
        }
    }

    fn on_sample(&mut self, now: Time) {
        let Some(t) = &mut self.host.timeline else { return };
        let sum = |f: fn(&NicState) -> u64| self.nics.iter().map(f).sum::<u64>();
        let now_counts = [sum(|n| n.out_bytes), sum(|n| n.total_in), sum(|n| n.total_drop)];
        let d: Vec<u64> = now_counts.iter().zip(&t.last).map(|(a, b)| a - b).collect();
        t.last = now_counts;
        let shared = if self.host.dshring.is_some() { self.nics[0].set == 1 } else { self.host.cfg.rings.sharing > 1 };
        t.samples.push(crate::report::Sample {
            t_us: now as f64 / 1e6,
            tx_gbps: d[0] as f64 * 8.0 / (t.period as f64 / 1e12) / 1e9,
            arrived: d[1],
            dropped: d[2],
            ring_set: shared as u8,
        });
        self.host.q.push(now + t.period, Ev::Sample);
    }

    /// A batch boundary: stop here if throughput and latency have
    /// converged (events at this instant still run, as at a normal end).
    fn on_batch(&mut self, now: Time) {
        let warmup = self.host.cfg.sim.warmup;
        let (mut bytes, mut lat, mut samples) = (0, 0, 0);
        for n in &mut self.nics {
            n.settle(now, warmup);
            bytes += n.c.tx_bytes;
            lat += n.c.stage_ps.iter().sum::<u128>();
            samples += n.hist.len();
        }
        let b = self.host.batches.as_mut().expect("batches on");
        if b.boundary(bytes, lat, samples) {
            self.host.end = now;
        } else if now + b.period <= self.host.end {
            self.host.q.push(now + b.period, Ev::Batch);
        }
    }

    fn on_warmup_end(&mut self, now: Time) {
        self.host.measuring = true;
        self.host.mem_base = self.host.mem.stats;
        self.host.core_miss_base = self.host.mem.core_misses.clone();
        self.host.pcie_base = self
            .nics
            .iter()
            .map(|n| {
                [
                    n.rp.link.up.busy_ps(),
                    n.rp.link.down.busy_ps(),
                    n.rp.link.data_up,
                    n.rp.link.data_down,
                    n.rp.link.writes + n.rp.link.reads,
                ]
            })
            .collect();
        for n in &mut self.nics {
            n.rp.credits.reset_stats(now);
        }
        if let Some(mc) = &mut self.host.mem.mc {
            // (idle time up to now is not counted)
            mc.ctl.reset_stats(now / mc.ctl.tck());
        }
        for n in &mut self.nics {
            for c in &mut n.cqs {
                c.sample(now, false);
            }
        }
        for l in self.host.corunner.iter_mut().chain(self.host.antagonists.iter_mut()) {
            l.reset();
        }
    }

    /// Conservation laws every run must satisfy; a violation is an engine bug.
    fn check_invariants(&self) -> Result<(), String> {
        for (i, n) in self.nics.iter().enumerate() {
            let mut in_flight = 0;
            for (qi, r) in n.rxq.iter().enumerate() {
                let cqs = || n.cqs.iter().filter(move |c| c.ring == qi);
                let (consumed, written) = cqs().fold((0, 0), |(a, b), c| (a + c.consumed, b + c.written));
                let array_ok = matches!(r.disc, Discipline::List { .. })
                    || (r.used <= r.fetched && r.fetched <= r.posted);
                if cqs().any(|c| c.consumed > c.completed || c.completed > c.written)
                    || written != r.used
                    || r.used > r.posted
                    || !array_ok
                {
                    return Err(format!(
                        "engine invariant: NIC {i} Rx ring indices out of order"
                    ));
                }
                if r.posted > consumed + r.size {
                    return Err(format!(
                        "engine invariant: NIC {i} Rx ring holds more than its size"
                    ));
                }
                in_flight += written - consumed + r.wait.len() as u64;
                // Every nicmem buffer is posted, spare, or holds a frame in
                // a ring or a software queue of one of the ring's cores.
                let held = cqs()
                    .flat_map(|c| (c.consumed..c.written).map(|p| r.slot_pkt[r.slot(c.rx_index(p))]))
                    .chain(
                        self.host.cores
                            .iter()
                            .filter(|c| c.nic == i && n.cqs[c.queue].ring == qi)
                            .flat_map(|c| {
                                let t = &n.txq[c.queue];
                                (t.freed..t.produced)
                                    .map(|x| t.slot_pkt[t.slot(x)])
                                    .chain(c.sw_queue.iter().copied())
                            }),
                    )
                    .filter(|p| p.pay_nic)
                    .count();
                let total = (r.primary.len() + r.nicmem_spare.len() + held) as u64;
                if total != r.nicmem_owned {
                    return Err(format!("engine invariant: NIC {i} ring {qi} accounts for {total} nicmem buffers, owns {}", r.nicmem_owned));
                }
            }
            for t in &n.txq {
                if t.freed > t.completed
                    || t.completed > t.sent
                    || t.sent > t.fetched
                    || t.produced - t.freed > t.size
                {
                    return Err(format!(
                        "engine invariant: NIC {i} Tx ring indices out of order"
                    ));
                }
                in_flight += t.produced - t.sent;
            }
            for c in self.host.cores.iter().filter(|c| c.nic == i) {
                in_flight += c.sw_queue.len() as u64;
            }
            // (read, not yet on the wire: waiting for DRAM)
            in_flight += n.port.tx_fetching.len() as u64;
            // TLPs carry their payload plus headers: wire bytes bound payload bytes.
            if n.rp.link.up.bytes() < n.rp.link.data_up || n.rp.link.down.bytes() < n.rp.link.data_down {
                return Err(format!(
                    "engine invariant: NIC {i} PCIe carried fewer wire bytes than payload bytes"
                ));
            }
            if n.total_in != n.total_out + n.total_drop + in_flight {
                return Err(format!(
                    "engine invariant: NIC {i} packets offered {} != delivered {} + dropped {} + in flight {in_flight}",
                    n.total_in, n.total_out, n.total_drop
                ));
            }
        }
        // Every reference to a stable nicmem buffer is a zero-copy response
        // still in a Tx ring or a software queue.
        if let Some(refs) = self.host.nf.buffer_refs() {
            let queued = self.nics.iter().flat_map(|n| {
                n.txq.iter().flat_map(|t| (t.freed..t.produced).map(|x| t.slot_pkt[t.slot(x)]))
            });
            let sw = self.host.cores.iter().flat_map(|c| c.sw_queue.iter().copied());
            let zero_copy = queued.chain(sw).filter(|p| p.kvs != crate::nic::NO_BUF).count() as u64;
            if refs != zero_copy {
                return Err(format!("engine invariant: {refs} stable-buffer references, {zero_copy} zero-copy responses queued"));
            }
        }
        let cap = (self.host.mem.llc.sets() as usize) * self.host.mem.llc.ways();
        if self.host.mem.llc_occupancy() > cap {
            return Err("engine invariant: LLC holds more lines than its capacity".into());
        }
        Ok(())
    }
}
