//! The host network under contention (Vuppalapati et al., "Understanding
//! the Host Network", SIGCOMM'24): cores streaming through memory (C2M)
//! beside a device streaming DMA (P2M), sharing the memory controllers
//! (`mem::dram::host`), each traffic bounded by its domain's credits (§4):
//!
//! - C2M-Read: a core's loads in flight are bounded by its line-fill
//!   buffers (`cpu.mlp`); a load reaches its controller half the idle path
//!   (`dram.latency` less the DRAM's idle read) after it leaves, and its
//!   data is back the other half after the last beat.
//! - C2M-Write (the C2M-ReadWrite loop): each line stored is first read for
//!   ownership, and the LLC, full of the loop's dirty lines, writes one
//!   back for it: the line an LLC share earlier. The write-back holds a
//!   fill buffer until the CHA takes it (`cha.write_latency` unloaded); the
//!   CHA holds `cha.write_buffer` of them per channel for the write queue,
//!   and a write-back finding them all taken waits in its fill buffer.
//! - P2M-Write: each DMA line holds an IIO write-buffer entry
//!   (`iio.write_buffer`) from allocation until its controller's write
//!   queue takes it, `iio.write_latency` later when the queue has room.
//! - P2M-Read: each line holds an IIO read entry (`iio.read_buffer`) until
//!   its data is back at the IIO: out by the P2M-Write path, back by the
//!   C2M path (the study could not measure this domain's latency).
//!
//! The device offers `hostnet.p2m_rate`. DDIO is off, as in the study's
//! microbenchmarks (§2.2), and the prefetchers too. Every latency is a mean
//! per request; the study's, by Little's law from occupancies, agree with
//! them in steady state.

use crate::config::{HostnetC2m, HostnetP2m, SimUntil};
use crate::sim::Guard;
use crate::config::Cfg;
use crate::mem::dram::controller::Config;
use crate::mem::dram::host::{Controllers, Event};
use crate::report::{Body, HostnetReport, Report, SimInfo};
use crate::units::Time;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Bytes of each core's buffer (the study's STREAM loops use 1 GiB).
const BUFFER: u64 = 1 << 30;

/// Physical memory the buffers' pages are spread over.
const PHYSICAL: u64 = 64 << 30;

/// The P2M device's buffer (the C2M cores' are 0, 1, ...).
const DEVICE_BUFFER: u64 = 0xFFFF;

/// The physical address of byte `offset` of buffer `buffer`: its 4 KiB
/// pages lie where the OS put them, frames scattered over memory (a
/// stateless hash of the seed, the buffer and the page stands for the page
/// table; two pages hashed to one frame are harmless here, where only the
/// lines' banks and rows matter).
fn physical(seed: u64, buffer: u64, offset: u64) -> u64 {
    let frame = mix(mix(seed) ^ buffer << 40 ^ offset >> 12);
    (frame % (PHYSICAL >> 12)) << 12 | offset & 0xFFF
}

/// SplitMix64's finaliser: every input bit moves every output bit.
fn mix(x: u64) -> u64 {
    let mut x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    /// A C2M load (or read for ownership).
    Load,
    /// A C2M write-back.
    WriteBack,
    DmaWrite,
    DmaRead,
}

/// A request in flight: who sent it (a core, or the device: `u32::MAX`),
/// when, where to and whether it has reached its controller.
#[derive(Clone, Copy)]
struct Flight {
    core: u32,
    op: Op,
    issued: Time,
    addr: u64,
    at_controller: bool,
}

struct Core {
    /// Fill buffers free.
    free: u64,
    /// Lines of its buffer read so far.
    lines: u64,
    /// Lines the LLC evicted for it, waiting for a fill buffer.
    write_backs: VecDeque<u64>,
}

/// Reads between two samples of the bank load (the study samples every
/// 1000 requests, §5.1).
const BANK_SAMPLE: u64 = 1000;

/// The banks sampled: the first 4 of the first channel's first rank (the
/// study looks at "4 banks within a single DRAM module").
const SAMPLED_BANKS: usize = 4;

/// Sums over the measured window.
#[derive(Default)]
struct Tally {
    c2m_reads: u64,
    c2m_read_ps: u64,
    /// Write-backs a write queue took.
    wpq_write_backs: u64,
    /// Write-backs the CHA took, and their time from the fill buffer.
    cha_write_backs: u64,
    c2m_write_ps: u64,
    p2m_lines: u64,
    p2m_ps: u64,
    /// Occupancy integrals (entries x ps): fill buffers, IIO entries, reads
    /// past the CHA (sent to a controller, data not yet back).
    lfb: u128,
    iio: u128,
    cha_reads: u128,
    /// Bank-load samples, and those whose busiest sampled bank served at
    /// least 1.5x (and 2x) the sampled banks' mean.
    bank_samples: u64,
    deviation_15: u64,
    deviation_2: u64,
}

/// What a hostnet scenario must satisfy beyond each parameter's range; the
/// channels' controller, checked.
pub fn check(c: &Cfg) -> Result<Config, String> {
    let cfg = Config::host(&c.dram)?;
    let h = &c.hostnet;
    let driver = (h.p2m != HostnetP2m::Off) as u64;
    if h.c2m_cores + driver > c.cpu.max_cores {
        return Err(format!(
            "hostnet.c2m_cores = {}: at most cpu.max_cores{} = {}{}",
            h.c2m_cores,
            if driver == 1 { " - 1" } else { "" },
            c.cpu.max_cores - driver,
            if driver == 1 { " (a core drives the P2M device)" } else { "" }
        ));
    }
    let link = crate::pcie::phy::raw_gbps(c.pcie.gen as u8, c.pcie.lanes as u8) / 8.0;
    if h.p2m != HostnetP2m::Off && h.p2m_rate as f64 / 1e3 > link {
        return Err(format!(
            "hostnet.p2m_rate = {} GB/s: above the device's PCIe Gen{} x{} link, {link:.2} GB/s after line coding; lower it or raise pcie.gen or pcie.lanes",
            h.p2m_rate as f64 / 1e3,
            c.pcie.gen,
            c.pcie.lanes
        ));
    }
    if c.sim.until != SimUntil::Duration {
        return Err(format!("sim.until = {}: a hostnet run measures sim.duration after sim.warmup; allowed: duration", c.sim.until));
    }
    if c.sim.sample_period > 0 {
        return Err(format!(
            "sim.sample_period = {} ns: hostnet runs keep no timeline; allowed: 0",
            c.sim.sample_period as f64 / 1e3
        ));
    }
    if c.llc.ddio_ways > 0 {
        return Err(format!(
            "llc.ddio_ways = {}: hostnet models DDIO off, as the study's microbenchmarks run (§2.2); set llc.ddio_ways = 0",
            c.llc.ddio_ways
        ));
    }
    Ok(cfg)
}

pub fn run_guarded(c: &Cfg, g: &mut Guard) -> Result<Report, String> {
    simulate(c, g, false)
}

/// The run; `every_cycle` steps through every DRAM cycle instead of
/// skipping to the next one anything happens in (the same answer, slower).
fn simulate(c: &Cfg, g: &mut Guard, every_cycle: bool) -> Result<Report, String> {
    let cfg = check(c)?;
    let h = &c.hostnet;
    let half = (c.dram.latency - cfg.idle_read()) / 2;
    let mut mem = Controllers::new(cfg, c.dram.channels as usize);
    let tck = mem.tck();
    let n = h.c2m_cores as usize;
    // An LLC share of lines behind the line read: the one written back.
    let lag = (c.llc.size / 64 / n.max(1) as u64).min(BUFFER / 64 - 1);
    let device = u32::MAX;
    let seed = c.sim.seed;
    let mut cores: Vec<Core> = (0..n).map(|_| Core { free: c.cpu.mlp, lines: 0, write_backs: VecDeque::new() }).collect();
    // The device: its next line, when it may issue it, its IIO entries free.
    let (p2m_write, p2m_read) = (h.p2m == HostnetP2m::Write, h.p2m == HostnetP2m::Read);
    let gap = (64_000_000 / h.p2m_rate.max(1)).max(1);
    let (mut dev_line, mut dev_next) = (0u64, 0 as Time);
    let credits = if p2m_read { c.iio.read_buffer } else { c.iio.write_buffer };
    let mut dev_free = credits;
    // Written-back lines at (or waiting to enter) each channel's CHA.
    let mut cha_held = vec![0usize; c.dram.channels as usize];
    let mut cha_door: Vec<VecDeque<u64>> = vec![VecDeque::new(); c.dram.channels as usize];
    let mut flights: Vec<Flight> = Vec::new();
    let mut spare: Vec<u64> = Vec::new();
    // Requests reaching their next stop: (time, id).
    let mut due: BinaryHeap<Reverse<(Time, u64)>> = BinaryHeap::new();
    let mut events: Vec<Event> = Vec::new();
    // Reads sent to a controller whose data is not back from it yet.
    let mut cha_reads = 0u64;
    let (warm, end) = (c.sim.warmup, c.sim.warmup + c.sim.duration);
    let mut t = Tally::default();
    let mut measuring = false;
    let mut cycle = 0u64;
    // The sampled banks' read counts at the last sample, and the channel's reads then.
    let mut bank_mark = (0u64, vec![0u64; SAMPLED_BANKS]);
    let new_flight = |flights: &mut Vec<Flight>, spare: &mut Vec<u64>, f: Flight| -> u64 {
        let id = spare.pop().unwrap_or(flights.len() as u64);
        if id as usize == flights.len() {
            flights.push(f);
        } else {
            flights[id as usize] = f;
        }
        id
    };
    loop {
        let now = cycle * tck;
        if now >= end {
            break;
        }
        g.tick(|| now as f64 / end as f64)?;
        if !measuring && now >= warm {
            // (the loop stops at warm's cycle: the window opens there)
            measuring = true;
            t = Tally::default();
            mem.reset_stats(cycle);
            bank_mark = (0, vec![0; SAMPLED_BANKS]);
        }
        // Requests reaching a controller, a CHA or their sender.
        while let Some(&Reverse((at, id))) = due.peek() {
            if at > now {
                break;
            }
            due.pop();
            let f = &mut flights[id as usize];
            if !f.at_controller {
                f.at_controller = true;
                if f.op == Op::WriteBack {
                    // At the CHA's door.
                    let ch = mem.channel(f.addr);
                    cha_door[ch].push_back(id);
                } else {
                    let write = f.op == Op::DmaWrite;
                    cha_reads += !write as u64;
                    mem.send(at, id, f.addr, write);
                }
                continue;
            }
            // Data back at the core or the IIO.
            let latency = at - f.issued;
            if f.core == device {
                dev_free += 1;
                if measuring {
                    t.p2m_lines += 1;
                    t.p2m_ps += latency;
                }
            } else {
                let core = &mut cores[f.core as usize];
                core.free += 1;
                if measuring {
                    t.c2m_reads += 1;
                    t.c2m_read_ps += latency;
                }
                if h.c2m == HostnetC2m::ReadWrite {
                    // (the line an LLC share back, in this pass or the last)
                    let line = (core.lines + BUFFER / 64 - lag) % (BUFFER / 64);
                    core.write_backs.push_back(physical(seed, f.core as u64, line * 64));
                }
            }
            spare.push(id);
        }
        // The CHAs take the write-backs at their doors while they hold fewer
        // than their buffer: the fill buffer is free.
        for (ch, door) in cha_door.iter_mut().enumerate() {
            while cha_held[ch] < c.cha.write_buffer as usize {
                let Some(id) = door.pop_front() else { break };
                cha_held[ch] += 1;
                let f = flights[id as usize];
                cores[f.core as usize].free += 1;
                if measuring {
                    t.cha_write_backs += 1;
                    t.c2m_write_ps += now - f.issued;
                }
                mem.send(now, id, f.addr, true);
            }
        }
        // Cores issue: write-backs first, then the next line.
        for (i, core) in cores.iter_mut().enumerate() {
            while core.free > 0 {
                core.free -= 1;
                let (op, addr, arrive) = match core.write_backs.pop_front() {
                    Some(addr) => (Op::WriteBack, addr, now + c.cha.write_latency),
                    None => {
                        let addr = physical(seed, i as u64, core.lines % (BUFFER / 64) * 64);
                        core.lines += 1;
                        (Op::Load, addr, now + half)
                    }
                };
                let id = new_flight(&mut flights, &mut spare, Flight { core: i as u32, op, issued: now, addr, at_controller: false });
                due.push(Reverse((arrive, id)));
            }
        }
        // The device issues at its rate while it has IIO entries.
        if p2m_write || p2m_read {
            while dev_free > 0 && dev_next <= now {
                dev_free -= 1;
                let addr = physical(seed, DEVICE_BUFFER, dev_line % (BUFFER / 64) * 64);
                dev_line += 1;
                let op = if p2m_write { Op::DmaWrite } else { Op::DmaRead };
                let id = new_flight(&mut flights, &mut spare, Flight { core: device, op, issued: now, addr, at_controller: false });
                due.push(Reverse((now + c.iio.write_latency, id)));
                dev_next = dev_next.max(now.saturating_sub(gap)) + gap;
            }
        }
        // The controllers run this cycle.
        let refused = mem.step(cycle, |e| events.push(e));
        for e in events.drain(..) {
            match e {
                Event::Returned { id, at } => {
                    cha_reads -= 1;
                    due.push(Reverse((at + half, id)));
                }
                Event::Admitted { id, write: true } => {
                    let f = flights[id as usize];
                    if f.core == device {
                        // The IIO entry is free once the write queue has it.
                        dev_free += 1;
                        if measuring {
                            t.p2m_lines += 1;
                            t.p2m_ps += now - f.issued;
                        }
                    } else {
                        cha_held[mem.channel(f.addr)] -= 1;
                        if measuring {
                            t.wpq_write_backs += 1;
                        }
                    }
                    spare.push(id);
                }
                // (no device on these channels)
                Event::Admitted { .. } | Event::FarSent { .. } => {}
            }
        }
        // A bank-load sample every BANK_SAMPLE reads of the first channel.
        let (cas_reads, per_bank) = mem.bank_reads(0);
        if measuring && cas_reads >= bank_mark.0 + BANK_SAMPLE {
            let now_counts = &per_bank[..SAMPLED_BANKS];
            let load: Vec<u64> = now_counts.iter().zip(&bank_mark.1).map(|(a, b)| a - b).collect();
            let mean = load.iter().sum::<u64>() as f64 / SAMPLED_BANKS as f64;
            if mean > 0.0 {
                let dev = *load.iter().max().unwrap_or(&0) as f64 / mean;
                t.bank_samples += 1;
                t.deviation_15 += (dev >= 1.5) as u64;
                t.deviation_2 += (dev >= 2.0) as u64;
            }
            bank_mark = (cas_reads, now_counts.to_vec());
        }
        // On to the next cycle anything can happen in.
        let at_cycle = |t: Time| t.div_ceil(tck);
        let mut next = mem.wake();
        if every_cycle || refused || cha_door.iter().zip(&cha_held).any(|(d, &h)| !d.is_empty() && h < c.cha.write_buffer as usize) {
            next = cycle + 1;
        }
        next = next.min(due.peek().map_or(u64::MAX, |d| at_cycle(d.0 .0)));
        if (p2m_write || p2m_read) && dev_free > 0 {
            next = next.min(at_cycle(dev_next));
        }
        if !measuring {
            next = next.min(at_cycle(warm));
        }
        next = next.min(at_cycle(end)).max(cycle + 1);
        if measuring {
            // (the last step counts up to the window's end only)
            let dt = ((next * tck).min(end) - now) as u128;
            let lfb: u64 = cores.iter().map(|c| c.free).sum();
            t.lfb += (n as u64 * c.cpu.mlp - lfb) as u128 * dt;
            t.iio += (credits - dev_free) as u128 * dt;
            t.cha_reads += cha_reads as u128 * dt;
        }
        cycle = next;
    }
    let window = c.sim.duration as f64;
    let gbs = |lines: u64| lines as f64 * 64.0 / window * 1e3;
    let mean = |ps: u64, k: u64| if k == 0 { f64::NAN } else { ps as f64 / k as f64 / 1e3 };
    mem.settle();
    Ok(Report {
        body: Body::Hostnet {
            hostnet: HostnetReport {
                c2m_gbytes_s: gbs(t.c2m_reads),
                c2m_write_gbytes_s: gbs(t.wpq_write_backs),
                p2m_gbytes_s: gbs(t.p2m_lines),
                memory_gbytes_s: gbs(t.c2m_reads + t.wpq_write_backs + t.p2m_lines),
                c2m_read_latency_ns: mean(t.c2m_read_ps, t.c2m_reads),
                c2m_write_latency_ns: mean(t.c2m_write_ps, t.cha_write_backs),
                p2m_latency_ns: mean(t.p2m_ps, t.p2m_lines),
                lfb_occupancy: t.lfb as f64 / window / n.max(1) as f64,
                iio_occupancy: t.iio as f64 / window,
                cha_read_occupancy: t.cha_reads as f64 / window,
                bank_deviation_15: t.deviation_15 as f64 / t.bank_samples as f64,
                bank_deviation_2: t.deviation_2 as f64 / t.bank_samples as f64,
                dram_read_latency_ns: mem.read_latency_ps() / 1e3,
                dram: mem.counters(),
            },
        },
        sim: SimInfo::new(c.sim.seed, cycle, 0, end),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::validated;
    use crate::sim::unguarded;
    use serde_json::json;

    fn scenario(cores: u64, c2m: &str, p2m: &str) -> Cfg {
        validated(&json!({"sim": {"kind": "hostnet", "duration": "20us", "warmup": "2us"}, "llc": {"ddio_ways": 0},
            "cpu": {"mlp": 10, "max_cores": 8}, "dram": {"channels": 2, "channel_bw": "23464MB/s", "speed": "DDR4-2933", "latency": "84ns"},
            "hostnet": {"c2m_cores": cores, "c2m": c2m, "p2m": p2m}}))
        .unwrap()
    }

    #[test]
    fn skipping_to_the_next_event_gives_the_same_report() {
        for (cores, c2m, p2m) in [(1, "read", "write"), (4, "read_write", "write"), (3, "read_write", "read"), (0, "read", "write")] {
            let c = scenario(cores, c2m, p2m);
            let skip = unguarded(|g| simulate(&c, g, false)).unwrap();
            let step = unguarded(|g| simulate(&c, g, true)).unwrap();
            assert_eq!(serde_json::to_string(&skip.body).unwrap(), serde_json::to_string(&step.body).unwrap(), "{cores} {c2m} {p2m}");
        }
    }

    #[test]
    fn every_seed_places_its_own_pages() {
        let a: Vec<u64> = (0..64).map(|s| physical(s, 0, 0) >> 12).collect();
        let b: Vec<u64> = (256..320).map(|s| physical(s, 0, 0) >> 12).collect();
        assert!(a.iter().zip(&b).all(|(x, y)| x != y));
        // a page's lines stay together
        assert_eq!(physical(7, 1, 4096 + 64) - physical(7, 1, 4096), 64);
    }
}
