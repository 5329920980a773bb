//! The BlueField-3 DPA paper's workloads as a scenario kind
//! (`dpa_bench.workload`), run by host, Arm or DPA threads over the memory
//! system of `devices::dpa`:
//!
//! - `compute`: every thread runs a chain of multiplications (Fig 3);
//! - `chase`: one thread chases pointers through nodes `stride` apart in a
//!   working set, in a random order (Fig 5);
//! - `bandwidth`: threads read 8 B words or write 64 B lines, sequentially
//!   or at random, in one memory or split over two (Figs 6-8);
//! - `latency`: the L2 reflector's round trip between two identical
//!   machines, optionally reading the payload or making random reads
//!   (Figs 12-13);
//! - `clocksync`: the same exchange as a clock synchronisation, with the
//!   time uncertainty bound it leaves, optionally under a host L2
//!   reflector's load (Fig 15);
//! - `net`: threads send, receive, reflect, check IP headers or aggregate
//!   key-value tuples at line rate offered load (Figs 14, 16-18).
//!
//! Threads advance in time order (a heap of ready times), so threads on a
//! core share its issue slots and all threads share the hops' pipes.

use crate::config::{DpaBenchKvDist, DpaBenchNetMode, DpaBenchOp, DpaBenchPattern, DpaBenchWorkload};
use super::cores::Cores;
use super::hop::Pipe;
use super::memsys::MemSys;
use super::{Mem, Proc};
use crate::config::Cfg;
use crate::sim::Guard;
use crate::report::{DpaReport, Report, Body, SimInfo};
use crate::sim::rng;
use crate::units::Time;
use rand::Rng as _;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Offsets inside each memory's 16 GiB window.
const RINGS: u64 = 8 << 30;
const QUEUES: u64 = 9 << 30;
const AGG: u64 = 10 << 30;
/// Packet buffers per thread (its Rx/Tx ring) and their spacing.
const RING: u64 = 16;
/// Prepared buffers a sending thread cycles through.
const SEND_BUFS: u64 = 4;
/// (a DPDK mbuf object: 64 B header + 128 B mbuf + 128 B headroom + 2 KiB)
const BUF: u64 = 2368;
/// Random stream of the workloads.
const STREAM: u64 = 18;
/// Instructions per tuple of the aggregation (hash, compare, add).
const KV_INSTR: u64 = 20;
/// Instructions of an IPv4 header check (length, version, checksum of 20 B).
const IPCHECK_INSTR: u64 = 40;
/// Multiplications per scheduling chunk of the compute kernel.
const CHUNK: u64 = 1000;

/// What one processor looks like to a workload.
struct Machine {
    proc: Proc,
    ms: MemSys,
    cores: Cores,
    /// Loads one thread keeps in flight.
    outstanding: usize,
    l1_latency: Time,
    pkt_instr: u64,
}

impl Machine {
    fn new(c: &Cfg, proc: Proc) -> Machine {
        let (cores, freq, ipc, tipc, outstanding, pkt) = match proc {
            Proc::Dpa => (
                c.dpa.cores,
                c.dpa.freq,
                c.dpa.ipc,
                c.dpa.thread_ipc,
                c.dpa.outstanding,
                c.dpa.pkt_instr,
            ),
            Proc::Arm => (
                c.arm.cores,
                c.arm.freq,
                c.arm.ipc,
                c.arm.thread_ipc,
                c.arm.mlp,
                c.arm.pkt_instr,
            ),
            Proc::Host => (
                c.cpu.max_cores,
                c.cpu.freq,
                c.host.ipc,
                c.host.thread_ipc,
                c.cpu.mlp,
                c.host.pkt_instr,
            ),
        };
        let l1_latency = super::memsys::l1_of(
            c,
            match proc {
                Proc::Dpa => "dpa",
                Proc::Arm => "arm",
                Proc::Host => "host",
            },
        )
        .2;
        Machine {
            proc,
            ms: MemSys::new(c),
            cores: Cores::new(cores as usize, freq, ipc, tipc),
            outstanding: outstanding as usize,
            l1_latency,
            pkt_instr: pkt,
        }
    }
    fn core(&self, th: usize) -> usize {
        self.cores.core_of(th)
    }
    fn load(&mut self, th: usize, addr: u64, now: Time) -> Time {
        let t = self.cores.run(th, now, 1);
        let core = self.core(th);
        self.ms.load(self.proc, th, core, addr, t)
    }
    fn store(&mut self, th: usize, addr: u64, now: Time) -> Time {
        let t = self.cores.run(th, now, 1);
        let core = self.core(th);
        self.ms.store(self.proc, th, core, addr, t)
    }
    /// The memory a thread's home structures (CQ, WQ) live in.
    fn home(&self) -> Mem {
        match self.proc {
            Proc::Dpa => Mem::Dpa,
            Proc::Arm => Mem::Arm,
            Proc::Host => Mem::Host,
        }
    }
}


pub fn run(c: &Cfg) -> Result<Report, String> {
    crate::sim::unguarded(|g| run_guarded(c, g))
}

/// [`run`], telling `g` of every unit of work (a chunk of operations, a
/// load, a packet).
pub fn run_guarded(c: &Cfg, g: &mut Guard) -> Result<Report, String> {
    let proc = Proc::from(c.dpa_bench.proc);
    let mut r = DpaReport {
        workload: c.dpa_bench.workload.to_string(),
        proc: c.dpa_bench.proc.to_string(),
        threads: c.dpa_bench.threads,
        ..DpaReport::default()
    };
    let mut m = Machine::new(c, proc);
    let end = match c.dpa_bench.workload {
        DpaBenchWorkload::Compute => compute(c, &mut m, &mut r, g),
        DpaBenchWorkload::Chase => chase(c, &mut m, &mut r, g),
        DpaBenchWorkload::Bandwidth => bandwidth(c, &mut m, &mut r, g),
        DpaBenchWorkload::Latency => latency(c, m, &mut r, g),
        DpaBenchWorkload::Clocksync => clocksync(c, m, &mut r, g),
        DpaBenchWorkload::Recency => recency(c, &mut m, &mut r, g),
        DpaBenchWorkload::Net => net(c, &mut m, &mut r, g),
    }?;
    Ok(Report {
        body: Body::Dpa { dpa: r },
        sim: SimInfo::new(c.sim.seed, 0, 0, end),
    })
}

/// Fig 3: each thread multiplies `compute_ops` times; Gops over all threads.
fn compute(c: &Cfg, m: &mut Machine, r: &mut DpaReport, g: &mut Guard) -> Result<Time, String> {
    let threads = c.dpa_bench.threads as usize;
    let ops = c.dpa_bench.compute_ops;
    let mut left = vec![ops; threads];
    let mut heap: BinaryHeap<Reverse<(Time, usize)>> =
        (0..threads).map(|t| Reverse((0, t))).collect();
    let mut end = 0;
    while let Some(Reverse((now, th))) = heap.pop() {
        g.tick(|| 1.0 - left.iter().sum::<u64>() as f64 / (threads as u64 * ops).max(1) as f64)?;
        let n = left[th].min(CHUNK);
        left[th] -= n;
        let t = m.cores.run(th, now, n);
        end = end.max(t);
        if left[th] > 0 {
            heap.push(Reverse((t, th)));
        }
    }
    r.gops = (threads as u64 * ops) as f64 / end.max(1) as f64 * 1e3;
    Ok(end)
}

/// Fig 5: one thread follows a chain of nodes `stride` apart through the
/// working set, in a random order; mean load-to-use latency.
fn chase(c: &Cfg, m: &mut Machine, r: &mut DpaReport, g: &mut Guard) -> Result<Time, String> {
    let mem = Mem::of_buffer(m.proc, c.dpa_bench.mem.into());
    r.mem = mem.to_string();
    let stride = c.dpa_bench.stride;
    let nodes = (c.dpa_bench.working_set / stride).max(1);
    let mut order: Vec<u64> = (0..nodes).collect();
    let mut rg = rng(c.sim.seed, STREAM, 0);
    for i in (1..order.len()).rev() {
        order.swap(i, rg.gen_range(0..=i));
    }
    let accesses = c.dpa_bench.accesses;
    let mut t = 0;
    // one pass over the chain warms the caches; the measured accesses
    // continue along it
    for &n in &order {
        g.tick(|| 0.0)?;
        t = m.ms.load(m.proc, 0, 0, mem.base() + n * stride, t);
    }
    let start = t;
    for i in 0..accesses {
        g.tick(|| i as f64 / accesses as f64)?;
        t = m.ms.load(
            m.proc,
            0,
            0,
            mem.base() + order[(i % nodes) as usize] * stride,
            t,
        );
    }
    r.latency_ns = (t - start) as f64 / accesses as f64 / 1e3;
    Ok(t)
}

/// Figs 6-8: useful bytes per second of threads streaming or hopping
/// through a working set; the last `mem2_threads` threads use `mem2`.
fn bandwidth(c: &Cfg, m: &mut Machine, r: &mut DpaReport, g: &mut Guard) -> Result<Time, String> {
    let threads = c.dpa_bench.threads as usize;
    let mem1 = Mem::of_buffer(m.proc, c.dpa_bench.mem.into());
    let mem2 = Mem::second(c.dpa_bench.mem2).filter(|_| m.proc == Proc::Dpa);
    let n2 = if mem2.is_some() {
        c.dpa_bench.mem2_threads as usize
    } else {
        0
    };
    let groups = [(mem1, threads - n2), (mem2.unwrap_or(mem1), n2)];
    r.mem = format!("{mem1:?}").to_lowercase();
    let ws = c.dpa_bench.working_set.next_multiple_of(64);
    let write = c.dpa_bench.op == DpaBenchOp::Write;
    let random = c.dpa_bench.pattern == DpaBenchPattern::Random;
    let step = if write { 64 } else { 8 };
    let accesses = c.dpa_bench.accesses;
    // Per thread: (memory, next offset, start offset); its own rng.
    let mut at = Vec::with_capacity(threads);
    for (g, &(mem, n)) in groups.iter().enumerate() {
        for j in 0..n {
            let start = (ws / n.max(1) as u64 * j as u64) / 64 * 64;
            at.push((mem, start, g));
        }
    }
    let mut rgs: Vec<_> = (0..threads)
        .map(|t| rng(c.sim.seed, STREAM, 1 + t as u64))
        .collect();
    let mut next_addr = |th: usize, at: &mut Vec<(Mem, u64, usize)>| -> u64 {
        let (mem, off, _) = at[th];
        let a = if random {
            rgs[th].gen_range(0..ws / step) * step
        } else {
            at[th].1 = (off + step) % ws;
            off
        };
        mem.base() + a
    };
    // Warm-up long enough to touch the working set a few times, then measure.
    // (capped: beyond ~600 K lines the working set outgrows every cache anyway)
    let warm = accesses.max((3 * ws / 64).min(600_000).div_ceil(threads as u64));
    // Phase 0 warms the caches; phase 1 measures from when the warm-up has
    // drained until the first thread is done, counting what completed by
    // then (so a slow group of threads does not stretch the window).
    let mut phase_start = 0;
    for (phase, n) in [(0, warm), (1, accesses)] {
        let mut ring: Vec<VecDeque<Time>> = vec![VecDeque::new(); threads.max(m.cores.cores())];
        let mut left = vec![n; threads];
        let mut heap: BinaryHeap<Reverse<(Time, usize)>> =
            (0..threads).map(|t| Reverse((phase_start, t))).collect();
        let mut end = phase_start;
        let mut stop = Time::MAX;
        let mut dones = Vec::with_capacity(threads * n as usize);
        while let Some(Reverse((now, th))) = heap.pop() {
            g.tick(|| (phase as f64 + dones.len() as f64 / (threads as u64 * n).max(1) as f64) / 2.0)?;
            if now > stop {
                continue;
            }
            let addr = next_addr(th, &mut at);
            let issue = m.cores.run(th, now, if write { 8 } else { 1 });
            let core = m.core(th);
            let done = if write {
                m.ms.store(m.proc, th, core, addr, issue)
            } else {
                m.ms.load(m.proc, th, core, addr, issue)
            };
            end = end.max(done);
            dones.push(done);
            // An in-order thread waits for every load; an out-of-order one
            // only when its miss slots are all taken (L1 hits take none).
            // A host or Arm core's slots are its L1D fill buffers, which
            // its hardware threads share (a host core's two hyperthreads);
            // `dpa.outstanding` counts per thread.
            let slots = &mut ring[if m.proc == Proc::Dpa { th } else { core }];
            let ready = if m.outstanding == 1 {
                done
            } else if done <= issue + m.l1_latency {
                issue
            } else {
                slots.push_back(done);
                if slots.len() >= m.outstanding {
                    issue.max(slots.pop_front().unwrap_or(0))
                } else {
                    issue
                }
            };
            left[th] -= 1;
            if left[th] > 0 {
                heap.push(Reverse((ready, th)));
            } else if phase == 1 {
                stop = stop.min(ready.max(done));
            }
        }
        if phase == 1 {
            let counted = dones.iter().filter(|&&d| d <= stop).count() as u64;
            r.gbytes_s = (counted * step) as f64 / (stop - phase_start).max(1) as f64 * 1e3;
            return Ok(stop);
        }
        phase_start = end.max(m.ms.drained());
    }
    Ok(phase_start)
}

/// Addresses of thread `th`'s `k`-th packet buffer and its queue entries.
fn pkt_addr(mem: Mem, th: usize, k: u64) -> u64 {
    mem.base() + RINGS + (th as u64 * RING + k % RING) * BUF
}
fn queue_addr(mem: Mem, th: usize, k: u64) -> u64 {
    mem.base() + QUEUES + (th as u64 * RING + k % RING) * 64
}

/// What a thread does for one received packet, from the time it sees its
/// completion: returns when it is done with it (and, for a reply, when the
/// doorbell reaches the NIC).
struct PktWork {
    reads_payload: f64,
    random_reads: u64,
    reply: bool,
    ipcheck: bool,
    kv_tuples: u64,
}

fn serve(
    m: &mut Machine,
    th: usize,
    k: u64,
    size: u64,
    net: Mem,
    data: Mem,
    w: &PktWork,
    rg: &mut crate::sim::Rng,
    keys: &KeyGen,
    now: Time,
) -> (Time, Time) {
    let home = m.home();
    // poll the completion, then the work of the driver loop
    let mut t = m.load(th, queue_addr(home, th, k), now);
    t = m.cores.run(th, t, m.pkt_instr);
    let buf = pkt_addr(net, th, k);
    if w.reply || w.ipcheck || w.reads_payload > 0.0 {
        t = m.load(th, buf, t);
    }
    if w.ipcheck {
        t = m.cores.run(th, t, IPCHECK_INSTR);
    }
    // payload words summed one by one
    let words = ((size.saturating_sub(64)) as f64 * w.reads_payload / 8.0) as u64;
    for i in 0..words {
        t = m.load(th, buf + 64 + i * 8, t);
        t = m.cores.run(th, t, 1);
    }
    for _ in 0..w.random_reads {
        let a = data.base() + rg.gen_range(0..(8u64 << 20) / 8) * 8;
        t = m.load(th, a, t);
    }
    for i in 0..w.kv_tuples {
        // the tuple, then read-modify-write its key's aggregate
        t = m.load(th, buf + 64 + i * 16, t);
        t = m.cores.run(th, t, KV_INSTR);
        let entry = data.base() + AGG + keys.next(rg) * 16;
        t = m.load(th, entry, t);
        t = m.store(th, entry, t);
    }
    // repost the buffer (or build the send descriptor)
    t = m.store(th, queue_addr(home, th, k + RING / 2), t);
    if w.reply {
        t = m.store(th, buf, t); // swapped MAC addresses
                                 // the doorbell is posted; the NIC acts when it arrives
        return (t, m.ms.doorbell(m.proc, t));
    }
    (t, t)
}

/// Key popularity: uniform, or Zipf through a table of the CDF.
enum KeyGen {
    Uniform(u64),
    Zipf(Vec<f64>),
    None,
}

impl KeyGen {
    fn new(c: &Cfg) -> KeyGen {
        let n = c.dpa_bench.kv_keys;
        if c.dpa_bench.kv_dist == DpaBenchKvDist::Uniform {
            return KeyGen::Uniform(n);
        }
        let s = c.dpa_bench.kv_zipf_s;
        let mut cdf: Vec<f64> = (1..=n).map(|k| 1.0 / (k as f64).powf(s)).collect();
        let mut acc = 0.0;
        for x in cdf.iter_mut() {
            acc += *x;
            *x = acc;
        }
        cdf.iter_mut().for_each(|x| *x /= acc);
        KeyGen::Zipf(cdf)
    }
    fn next(&self, rg: &mut crate::sim::Rng) -> u64 {
        match self {
            KeyGen::Uniform(n) => rg.gen_range(0..*n),
            // key rank k is scattered over the table so hot keys do not share lines
            KeyGen::Zipf(cdf) => {
                let u: f64 = rg.gen();
                let k = cdf.partition_point(|&x| x < u) as u64;
                (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) % cdf.len() as u64
            }
            KeyGen::None => 0,
        }
    }
}

fn frame_ps(size: u64, rate_mbps: u64) -> Time {
    // frame + preamble + inter-frame gap
    (size + 20) * 8 * 1_000_000 / rate_mbps
}

/// Fig 11: the NIC writes a bunch of `packets` packets back to back into
/// DPA memory (the DPA caches start cold); then the latency of a DPA load
/// of each packet is probed where it landed, oldest first.
fn recency(c: &Cfg, m: &mut Machine, r: &mut DpaReport, g: &mut Guard) -> Result<Time, String> {
    let size = c.dpa_bench.pkt_size;
    let gap = frame_ps(size, c.nic.line_rate * c.nic.count);
    let mut t = 0;
    let n = c.dpa_bench.packets;
    // a ring of packet-sized buffers, back to back
    let stride = size.next_multiple_of(64);
    let addr = |k: u64| Mem::Dpa.base() + RINGS + k * stride;
    for k in 0..n {
        g.tick(|| k as f64 / n as f64)?;
        t = t.max(m.ms.nic_write(addr(k), size, k * gap + c.bf3.nic_latency));
    }
    r.recency_ns = (0..n)
        .map(|k| m.ms.dpa_probe_latency(addr(k)) as f64 / 1e3)
        .collect();
    r.mem = "dpa".into();
    Ok(t)
}

/// Figs 12-13: mean round trip of one packet between two machines with the
/// same processor, reflected by the server.
fn latency(c: &Cfg, client: Machine, r: &mut DpaReport, g: &mut Guard) -> Result<Time, String> {
    let (rtts, end) = round_trips(c, client, r, g)?;
    r.latency_ns = mean_ns(&rtts);
    Ok(end)
}

fn mean_ns(rtts: &[Time]) -> f64 {
    rtts.iter().sum::<Time>() as f64 / rtts.len().max(1) as f64 / 1e3
}

/// Fig 15: a clock-synchronisation client and master exchange one packet
/// each way per sync, as the reflector does. After a sync the client's time
/// uncertainty bound is half the round trip (the master's timestamp may have
/// been taken anywhere within it) and grows with the clock drift until the
/// next sync: epsilon(t) = RTT / 2 + drift x (t - t_sync). Its mean and p999
/// are taken over time: each sync's interval is sampled at evenly spaced
/// instants. With `dpa_bench.background`, both hosts' cores carry an L2
/// reflector's traffic through the same NICs, links, switch and PCIe.
fn clocksync(c: &Cfg, client: Machine, r: &mut DpaReport, g: &mut Guard) -> Result<Time, String> {
    let (rtts, end) = round_trips(c, client, r, g)?;
    let drift = c.dpa_bench.drift_ppm * 1e-6 * c.dpa_bench.sync_interval as f64;
    const SAMPLES: u64 = 100;
    let mut eps: Vec<f64> = rtts
        .iter()
        .flat_map(|&rtt| {
            (0..SAMPLES).map(move |i| rtt as f64 / 2.0 + drift * (i as f64 + 0.5) / SAMPLES as f64)
        })
        .collect();
    eps.sort_by(f64::total_cmp);
    let n = eps.len().max(1);
    r.latency_ns = mean_ns(&rtts);
    r.epsilon_ns = eps.iter().sum::<f64>() / n as f64 / 1e3;
    r.epsilon_p999_ns = eps.get((n * 999 / 1000).min(n - 1)).copied().unwrap_or(0.0) / 1e3;
    Ok(end)
}

/// Background L2-reflector traffic between the two hosts (`dpa_bench.
/// background` per direction, Poisson arrivals, 1 KB frames spread over the
/// ports): the sender's NIC reads each frame from host memory, the link
/// carries it, the receiver's NIC writes it into host memory. Frames are
/// booked as the round trips' clock passes their start.
struct Background {
    /// Mean gap between frames in one direction, ps (0 = none).
    gap: f64,
    next: [Time; 2],
    seq: u64,
    rg: crate::sim::Rng,
}

const BG_SIZE: u64 = 1024;

impl Background {
    fn new(c: &Cfg) -> Background {
        let mbps = c.dpa_bench.background;
        let gap = if mbps == 0 {
            0.0
        } else {
            frame_ps(BG_SIZE, mbps) as f64
        };
        Background {
            gap,
            next: [0; 2],
            seq: 0,
            rg: rng(c.sim.seed, STREAM, 2000),
        }
    }
    /// Book every frame that starts before `now`.
    fn advance(&mut self, ms: &mut [Machine; 2], links: &mut [Vec<Pipe>; 2], nic: Time, now: Time) {
        if self.gap == 0.0 {
            return;
        }
        for dir in 0..2 {
            while self.next[dir] <= now {
                let t0 = self.next[dir];
                let u: f64 = self.rg.gen();
                self.next[dir] += (-(1.0 - u).ln() * self.gap) as Time + 1;
                self.seq += 1;
                // buffers of host "threads" 64.. (the sync uses thread 0)
                let addr = pkt_addr(Mem::Host, 64 + (self.seq % 64) as usize, self.seq / 64);
                let port = (self.seq % links[dir].len() as u64) as usize;
                let [a, b] = ms;
                let (from, to) = if dir == 0 { (a, b) } else { (b, a) };
                let fetched = from.ms.nic_read(addr, BG_SIZE, t0) + nic;
                let sent = links[dir][port].pass(fetched, BG_SIZE + 20);
                to.ms.nic_write(addr, BG_SIZE, sent + nic);
            }
        }
    }
}

/// Round trips of one packet between two machines with the same processor,
/// reflected by the server, one after another; the round trips after the
/// first tenth (warm caches), and when the last ended.
fn round_trips(c: &Cfg, client: Machine, r: &mut DpaReport, g: &mut Guard) -> Result<(Vec<Time>, Time), String> {
    let proc = client.proc;
    let mut ms = [client, Machine::new(c, proc)];
    let net = Mem::of_buffer(proc, c.dpa_bench.net_buf.into());
    let data = Mem::of_buffer(proc, c.dpa_bench.mem.into());
    r.mem = net.to_string();
    let size = c.dpa_bench.pkt_size;
    let nic = c.bf3.nic_latency;
    // one pipe per port and direction (0: client -> server)
    let port = || Pipe::new(c.nic.line_rate / 8);
    let mut links = [0, 1].map(|_| (0..c.nic.count).map(|_| port()).collect::<Vec<_>>());
    let mut bg = Background::new(c);
    let server = PktWork {
        reads_payload: c.dpa_bench.payload_read,
        random_reads: c.dpa_bench.random_reads,
        reply: true,
        ipcheck: false,
        kv_tuples: 0,
    };
    let client_rx = PktWork {
        reads_payload: 0.0,
        random_reads: 0,
        reply: false,
        ipcheck: false,
        kv_tuples: 0,
    };
    let keys = KeyGen::None;
    let mut rg = rng(c.sim.seed, STREAM, 999);
    let packets = c.dpa_bench.packets;
    // with background traffic, syncs are spaced so their samples see
    // independent queue states
    let spacing = if bg.gap > 0.0 { 10 * crate::units::US } else { 0 };
    let mut t: Time = 0;
    let mut rtts = Vec::with_capacity(packets as usize);
    for k in 0..packets {
        g.tick(|| k as f64 / packets as f64)?;
        let start = t;
        // client: build and send
        bg.advance(&mut ms, &mut links, nic, t);
        let [a, _] = &mut ms;
        let mut x = a.store(0, pkt_addr(net, 0, k), t);
        x = a.ms.doorbell(proc, x);
        x = a.ms.nic_read(pkt_addr(net, 0, k), size, x) + nic;
        x = links[0][0].pass(x, size + 20);
        // server: receive, reflect
        bg.advance(&mut ms, &mut links, nic, x);
        let [_, b] = &mut ms;
        x = b.ms.nic_write(pkt_addr(net, 0, k), size, x + nic);
        let home = b.home();
        x = b.ms.nic_write(queue_addr(home, 0, k), 64, x);
        x = serve(b, 0, k, size, net, data, &server, &mut rg, &keys, x).1;
        bg.advance(&mut ms, &mut links, nic, x);
        let [a, b] = &mut ms;
        x = b.ms.nic_read(pkt_addr(net, 0, k), size, x) + nic;
        x = links[1][0].pass(x, size + 20);
        // client: receive
        x = a.ms.nic_write(pkt_addr(net, 0, k + RING / 2), size, x + nic);
        let home = a.home();
        x = a.ms.nic_write(queue_addr(home, 0, k + RING / 2), 64, x);
        let seen = serve(a, 0, k + RING / 2, size, net, data, &client_rx, &mut rg, &keys, x).0;
        if k >= packets / 10 {
            rtts.push(seen - start);
        }
        // the next round trip starts when this one is done
        t = seen + spacing;
    }
    Ok((rtts, t))
}

/// Figs 14, 16-18: throughput of `threads` threads with line rate offered
/// (receive-side modes) or as fast as they can send (send).
fn net(c: &Cfg, m: &mut Machine, r: &mut DpaReport, g: &mut Guard) -> Result<Time, String> {
    let threads = c.dpa_bench.threads as usize;
    let net = Mem::of_buffer(m.proc, c.dpa_bench.net_buf.into());
    let data = Mem::of_buffer(m.proc, c.dpa_bench.mem.into());
    r.mem = data.to_string();
    r.net_buf = net.to_string();
    let mode = c.dpa_bench.net_mode;
    let size = c.dpa_bench.pkt_size;
    let nic = c.bf3.nic_latency;
    let ports = c.nic.count;
    let rate = c.nic.line_rate * ports;
    // the wire (all ports, hash-balanced) and the NIC's packet pipeline
    let mut wire_out = Pipe::new(rate / 8);
    let nic_pkt_ps = (1e6 / c.nic.pipeline_mpps) as Time;
    let packets = c.dpa_bench.packets;
    let total = packets * threads as u64;
    let keys = KeyGen::new(c);
    let mut rg = rng(c.sim.seed, STREAM, 1000);
    let tuples = if mode == DpaBenchNetMode::Kv {
        c.dpa_bench.kv_tuples
    } else {
        0
    };
    let w = PktWork {
        reads_payload: 0.0,
        random_reads: 0,
        reply: matches!(mode, DpaBenchNetMode::Reflector | DpaBenchNetMode::Ipcheck),
        ipcheck: mode == DpaBenchNetMode::Ipcheck,
        kv_tuples: tuples,
    };
    let size = if mode == DpaBenchNetMode::Kv { 64 + 16 * tuples } else { size };
    let mut end: Time = 0;
    let mut done_pkts = 0u64;
    let mut dropped = 0u64;
    if mode == DpaBenchNetMode::Send {
        // each thread keeps up to a ring of sends in flight
        let mut inflight: Vec<VecDeque<Time>> = vec![VecDeque::new(); threads];
        let mut left = vec![packets; threads];
        let mut heap: BinaryHeap<Reverse<(Time, usize)>> =
            (0..threads).map(|t| Reverse((0, t))).collect();
        let mut nic_free: Time = 0;
        while let Some(Reverse((now, th))) = heap.pop() {
            g.tick(|| done_pkts as f64 / total.max(1) as f64)?;
            let k = packets - left[th];
            let mut t = m.cores.run(th, now, m.pkt_instr);
            t = m.store(th, queue_addr(m.home(), th, k), t);
            // the doorbell is posted: the thread goes on
            let rung = m.ms.doorbell(m.proc, t);
            nic_free = nic_free.max(rung) + nic_pkt_ps;
            let fetched =
                m.ms.nic_read(pkt_addr(net, th, k % SEND_BUFS), size, nic_free) + nic;
            let sent = wire_out.pass(fetched, size + 20);
            end = end.max(sent);
            done_pkts += 1;
            inflight[th].push_back(sent);
            let mut ready = t;
            if inflight[th].len() as u64 >= RING {
                ready = ready.max(inflight[th].pop_front().unwrap_or(0));
            }
            left[th] -= 1;
            if left[th] > 0 {
                heap.push(Reverse((ready, th)));
            }
        }
    } else {
        // Arrivals at line rate, spread over the threads; a thread with a
        // full ring drops. Events: (time, 0 = arrival k | 1 = thread th).
        let gap = frame_ps(size, rate).max(nic_pkt_ps);
        let mut queue: Vec<VecDeque<(u64, Time)>> = vec![VecDeque::new(); threads];
        let mut busy = vec![false; threads];
        let mut seq = vec![0u64; threads];
        let mut heap: BinaryHeap<Reverse<(Time, u8, u64)>> = BinaryHeap::new();
        heap.push(Reverse((0, 0, 0)));
        while let Some(Reverse((now, kind, id))) = heap.pop() {
            g.tick(|| (done_pkts + dropped) as f64 / total.max(1) as f64)?;
            if kind == 0 {
                let th = (id % threads as u64) as usize;
                if id + 1 < total {
                    heap.push(Reverse((now + gap, 0, id + 1)));
                }
                if queue[th].len() as u64 >= RING {
                    dropped += 1;
                    continue;
                }
                let k = seq[th];
                seq[th] += 1;
                let landed = m.ms.nic_write(pkt_addr(net, th, k), size, now + nic);
                let home = m.home();
                let cqe = m.ms.nic_write(queue_addr(home, th, k), 64, landed);
                queue[th].push_back((k, cqe));
                if !busy[th] {
                    busy[th] = true;
                    heap.push(Reverse((cqe, 1, th as u64)));
                }
            } else {
                let th = id as usize;
                let Some((k, seen)) = queue[th].pop_front() else {
                    busy[th] = false;
                    continue;
                };
                let (t, rung) = serve(m, th, k, size, net, data, &w, &mut rg, &keys, now.max(seen));
                end = end.max(t);
                if w.reply {
                    let fetched = m.ms.nic_read(pkt_addr(net, th, k), size, rung) + nic;
                    end = end.max(wire_out.pass(fetched, size + 20));
                }
                done_pkts += 1;
                match queue[th].front() {
                    Some(&(_, next)) => heap.push(Reverse((t.max(next), 1, th as u64))),
                    None => busy[th] = false,
                }
            }
        }
    }
    let secs = end.max(1) as f64 / 1e12;
    r.mpps = done_pkts as f64 / secs / 1e6;
    r.throughput_gbps = done_pkts as f64 * size as f64 * 8.0 / secs / 1e9;
    r.drop_rate = dropped as f64 / total.max(1) as f64;
    r.kv_mops = r.mpps * tuples as f64;
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::validated as validate;
    use serde_json::{json, Value};

    fn cfg(bench: Value) -> Cfg {
        validate(&json!({ "sim": {"kind": "dpa"}, "dpa_bench": bench })).unwrap()
    }
    fn dpa(bench: Value) -> DpaReport {
        run(&cfg(bench)).unwrap().dpa().cloned().unwrap()
    }
    /// The sum of default latencies, ns.
    fn ns(keys: &[&str]) -> f64 {
        let (values, _) = crate::run::validate(&json!({})).unwrap();
        keys.iter().map(|k| values.int(k)).sum::<u64>() as f64 / 1e3
    }

    #[test]
    fn pointer_chase_latency_is_the_sum_of_the_hops() {
        // L1-resident
        let r = dpa(json!({"workload": "chase", "working_set": "512B", "accesses": 1000}));
        assert!(
            (r.latency_ns - ns(&["dpa.l1_latency"])).abs() < 0.01,
            "{}",
            r.latency_ns
        );
        // L2-resident
        let r = dpa(json!({"workload": "chase", "working_set": "256KiB", "accesses": 1000}));
        assert!(
            (r.latency_ns - ns(&["dpa.l1_latency", "dpa.l2_latency"])).abs() < 0.01,
            "{}",
            r.latency_ns
        );
        // beyond every cache: DPA L1, L2, L3, switch, Arm L3, Arm DRAM (+ one
        // line's serialisation on each pipe and the DRAM channel)
        let r = dpa(json!({"workload": "chase", "working_set": "64MiB", "accesses": 2000}));
        let idle = ns(
            &[
                "dpa.l1_latency",
                "dpa.l2_latency",
                "dpa.l3_latency",
                "bf3.switch_latency",
                "arm.l3_latency",
                "arm.dram_latency",
            ],
        );
        assert!(
            r.latency_ns >= idle && r.latency_ns < idle + 20.0,
            "{} vs {idle}",
            r.latency_ns
        );
        // Arm memory through the aperture: no DPA L2/L3
        let r = dpa(
            json!({"workload": "chase", "mem": "arm", "working_set": "64MiB", "accesses": 2000}),
        );
        let idle = ns(
            &[
                "dpa.l1_latency",
                "bf3.aperture_latency",
                "bf3.switch_latency",
                "arm.l3_latency",
                "arm.dram_latency",
            ],
        );
        assert!(
            r.latency_ns >= idle && r.latency_ns < idle + 20.0,
            "{} vs {idle}",
            r.latency_ns
        );
    }

    #[test]
    fn all_thread_bandwidth_is_the_smallest_hop_limit() {
        let c = cfg(json!({"workload": "bandwidth"}));
        // DPA memory: the cache port's read limit
        let r = dpa(
            json!({"workload": "bandwidth", "threads": 190, "working_set": "64MiB", "accesses": 500}),
        );
        let port = c.bf3.cache_port_read_bw as f64 / 1e3;
        assert!(
            r.gbytes_s <= port * 1.01 && r.gbytes_s > port * 0.9,
            "{} vs {port}",
            r.gbytes_s
        );
        // writes through the aperture: its posted-write limit
        let r = dpa(
            json!({"workload": "bandwidth", "mem": "host", "op": "write", "threads": 190, "working_set": "64MiB", "accesses": 500}),
        );
        let ap = c.bf3.aperture_write_bw as f64 / 1e3;
        assert!(
            r.gbytes_s <= ap * 1.01 && r.gbytes_s > ap * 0.9,
            "{} vs {ap}",
            r.gbytes_s
        );
    }

    #[test]
    fn aperture_reads_obey_littles_law() {
        // 128 tags, each held for one round trip to host memory
        let c = cfg(json!({"workload": "bandwidth"}));
        let rtt = dpa(
            json!({"workload": "chase", "mem": "host", "working_set": "64MiB", "accesses": 1000}),
        )
        .latency_ns;
        let r = dpa(
            json!({"workload": "bandwidth", "mem": "host", "threads": 190, "working_set": "64MiB", "accesses": 500}),
        );
        // 8 B words: one line fetch per 8 loads
        let little = c.bf3.aperture_read_tags as f64 * 64.0 / rtt;
        assert!(
            r.gbytes_s <= little * 1.05 && r.gbytes_s > little * 0.8,
            "{} vs {little}",
            r.gbytes_s
        );
    }

    #[test]
    fn one_in_order_thread_is_latency_bound() {
        // per thread: 7 L1 hits and one miss per 64 B line, one at a time
        let c = cfg(json!({"workload": "chase"}));
        let miss =
            dpa(json!({"workload": "chase", "working_set": "64MiB", "accesses": 2000})).latency_ns;
        let r = dpa(
            json!({"workload": "bandwidth", "threads": 1, "working_set": "64MiB", "accesses": 4000}),
        );
        let instr = 8.0 / (c.dpa.thread_ipc * c.dpa.freq as f64 / 1e3);
        let expect = 64.0 / (miss + 7.0 * ns(&["dpa.l1_latency"]) + instr);
        assert!(
            (r.gbytes_s - expect).abs() / expect < 0.05,
            "{} vs {expect}",
            r.gbytes_s
        );
    }

    /// A host core's fill buffers bound its hyperthreads together: two
    /// threads streaming from DRAM on one core move what one does, on two
    /// cores twice as much.
    #[test]
    fn hyperthreads_share_their_cores_fill_buffers() {
        let gbs = |cores: u64| {
            let c = validate(&json!({"sim": {"kind": "dpa"}, "cpu": {"max_cores": cores},
                "dpa_bench": {"workload": "bandwidth", "proc": "host", "mem": "host", "threads": 2,
                              "working_set": "256MiB", "accesses": 4000}})).unwrap();
            run(&c).unwrap().dpa().cloned().unwrap().gbytes_s
        };
        let one = dpa(json!({"workload": "bandwidth", "proc": "host", "mem": "host", "threads": 1,
                             "working_set": "256MiB", "accesses": 4000})).gbytes_s;
        let (shared, apart) = (gbs(1), gbs(2));
        assert!(shared < 1.2 * one, "one thread {one}, two on one core {shared} GB/s");
        assert!((apart / one - 2.0).abs() < 0.2, "one thread {one}, two on two cores {apart} GB/s");
    }

    #[test]
    fn compute_scales_with_threads_until_a_core_is_full() {
        let one = dpa(json!({"workload": "compute", "threads": 1})).gops;
        let c = cfg(json!({"workload": "compute"}));
        assert!((one - c.dpa.thread_ipc * c.dpa.freq as f64 / 1e3).abs() < 1e-3);
        for t in [2u64, 16, 64] {
            let g = dpa(json!({"workload": "compute", "threads": t})).gops;
            assert!((g / one - t as f64).abs() < 0.01 * t as f64, "{t}: {g}");
        }
        let cap = c.dpa.cores as f64 * c.dpa.ipc * c.dpa.freq as f64 / 1e3;
        let all = dpa(json!({"workload": "compute", "threads": 190})).gops;
        assert!(all <= cap * 1.001 && all > 0.95 * cap, "{all} vs {cap}");
    }

    #[test]
    fn dpa_memory_network_buffers_are_capped_by_the_cache_port() {
        let c = cfg(json!({"workload": "net"}));
        let r =
            dpa(json!({"workload": "net", "net_mode": "receive", "threads": 64, "packets": 300}));
        let cap = c.bf3.cache_port_write_bw as f64 * 8.0 / 1e3;
        assert!(
            r.throughput_gbps <= cap * 1.01,
            "{} vs {cap}",
            r.throughput_gbps
        );
        let arm = dpa(
            json!({"workload": "net", "net_mode": "receive", "net_buf": "arm", "threads": 64, "packets": 300}),
        );
        assert!(arm.throughput_gbps > 2.0 * r.throughput_gbps);
    }

    #[test]
    fn reflector_round_trip_is_shortest_from_dpa_memory() {
        let rtt = |p: &str, m: &str| {
            dpa(json!({"workload": "latency", "proc": p, "net_buf": m, "packets": 50})).latency_ns
        };
        assert!(rtt("dpa", "dpa") < rtt("dpa", "arm"));
        assert!(rtt("dpa", "arm") < rtt("dpa", "host"));
        assert!(rtt("dpa", "dpa") < rtt("arm", "arm") && rtt("arm", "arm") < rtt("host", "host"));
    }

    #[test]
    fn the_newest_packets_sit_nearest() {
        // one L2 way (128 KiB) takes the newest packets; the L2 drops older
        // ones into the L3
        let r = dpa(json!({"workload": "recency", "pkt_size": 1024, "packets": 512}));
        let l2 = ns(&["dpa.l1_latency", "dpa.l2_latency"]);
        let newest = 128; // 128 KiB of 1 KiB packets
        assert!(r.recency_ns[512 - newest as usize..]
            .iter()
            .all(|&x| x == l2));
        assert!(r.recency_ns[0] > l2, "the oldest packet has left the L2");
    }

    #[test]
    fn clock_sync_bound_is_half_the_round_trip_plus_drift() {
        // 1 s between syncs at 10 us/s: the drift term averages 5 us over
        // the interval and reaches 10 us just before the next sync
        let s = json!({"workload": "clocksync", "proc": "dpa", "pkt_size": 64, "packets": 200,
                       "sync_interval": "1s", "drift_ppm": 10});
        let r = dpa(s.clone());
        let half_rtt = r.latency_ns / 2.0;
        assert!((r.epsilon_ns - (half_rtt + 5_000.0)).abs() < 1.0, "{} vs {half_rtt}", r.epsilon_ns);
        assert!(r.epsilon_p999_ns > half_rtt + 9_900.0 && r.epsilon_p999_ns < half_rtt + 10_500.0);
        // the round trip is the reflector's (same exchange, same hops)
        let mut l = s.clone();
        l["workload"] = json!("latency");
        assert!((dpa(l).latency_ns - r.latency_ns).abs() < 1e-9);
        // host reflector traffic through the links and PCIe cannot make the
        // host's exchange faster, and queues behind it lengthen the tail
        let host = json!({"workload": "clocksync", "proc": "host", "pkt_size": 64, "packets": 200});
        let mut loaded = host.clone();
        loaded["background"] = json!("50Gbps");
        let (idle, busy) = (dpa(host), dpa(loaded));
        assert!(busy.latency_ns >= idle.latency_ns, "{} < {}", busy.latency_ns, idle.latency_ns);
        assert!(busy.epsilon_p999_ns > idle.epsilon_p999_ns);
    }

    #[test]
    fn same_seed_same_report() {
        let s = json!({"workload": "net", "net_mode": "kv", "kv_dist": "zipf", "threads": 32, "packets": 50});
        let a = serde_json::to_string(&run(&cfg(s.clone())).unwrap()).unwrap();
        let b = serde_json::to_string(&run(&cfg(s)).unwrap()).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn bad_inputs_name_the_parameter() {
        let err = |b: Value| validate(&json!({ "sim": {"kind": "dpa"}, "dpa_bench": b })).unwrap_err();
        assert!(err(json!({"workload": "clocksync", "background": "400Gbps"}))
            .starts_with("dpa_bench.background = 400Gbps: at or above the"));
        assert!(err(json!({"workload": "compute", "threads": 200}))
            .starts_with("dpa_bench.threads = 200: more than the 190 usable dpa threads"));
        assert!(err(
            json!({"workload": "latency", "net_buf": "host", "mem": "arm", "random_reads": 4})
        )
        .contains("cannot use host and Arm memory together"));
        assert!(
            err(json!({"workload": "bandwidth", "mem": "dpa", "working_set": "2GiB"}))
                .starts_with("dpa_bench.working_set = 2147483648 B: larger than dpa memory")
        );
    }
}
