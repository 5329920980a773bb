//! Handing re-armed Rx descriptors back to the NIC, for each ring
//! discipline (shRing paper, Sec. 4). A private ring just advances its
//! producer index. A shared ring synchronises its cores through cache
//! lines at real addresses — the bitmap words, the lock, the consumer index
//! and the list tail — so what sharing costs is what the memory model
//! charges for those lines bouncing between cores, plus the locked
//! instructions and the time spent spinning while another core holds the lock.

use crate::cpu::Stall;
use crate::mem::Memory;
use crate::nic::{Discipline, RxQueue};
use crate::units::{cycles_to_ps, Time};

/// Hand back the descriptors `re_armed` (Rx indices) core `c` has just
/// refilled. Returns the driver cycles that overlap with the poll's other
/// work, and the serial time of the critical section (spinning included).
pub(super) fn hand_back(
    mem: &mut Memory,
    c: usize,
    rq: &mut RxQueue,
    re_armed: &[u64],
    (k, cpu): (&super::Layout, &crate::config::CpuCfg),
    now: Time,
    measuring: bool,
    stall: &mut Stall,
) -> (u64, Time) {
    let atomic = cycles_to_ps(cpu.atomic_cycles, cpu.freq);
    let (size, lock, ring_addr) = (rq.size, rq.sync_addr, rq.ring_addr);
    let bitmap = lock + 64;
    match &mut rq.disc {
        Discipline::Private => {
            rq.driver_pi += re_armed.len() as u64;
            (0, 0)
        }
        Discipline::Arr { arr, marked_at } => {
            // Listing 1, lines 16-26: set the batch's bits, one atomic OR
            // per bitmap word.
            let words = &mut rq.words;
            arr.mark(re_armed, words);
            for &w in words.iter() {
                stall.add(mem.core_access(c, bitmap + 8 * w as u64, true, now));
            }
            let cycles = words.len() as u64 * cpu.atomic_cycles;
            for &i in re_armed {
                marked_at[(i % size) as usize] = now;
            }
            // Lines 29-37, under the lock: each step waits for the last
            // (priced at once: the lock is held across them).
            let start = now.max(rq.lock_free);
            let mut cs = mem.core_access_at_once(c, lock, true, now) + atomic;
            let before = arr.ci();
            let handed = arr.advance(words);
            for &w in words.iter() {
                // find-first-set on the word, then an atomic clear
                cs += mem.core_access_at_once(c, bitmap + 8 * w as u64, true, now) + atomic;
            }
            if measuring {
                for i in before..before + handed {
                    rq.repost_wait += (now - marked_at[(i % size) as usize]) as u128;
                }
                rq.reposted += handed;
            }
            // The consumer index sits in the lock's line; unlock is a store to it.
            cs += mem.core_access_at_once(c, lock, true, now);
            rq.lock_free = start + cs;
            rq.driver_pi = arr.ci() + size;
            (cycles, start - now + cs)
        }
        Discipline::List { list, .. } => {
            // Listing 2: the batch is linked through its descriptors' next
            // fields (written with the refill); under the lock it is
            // appended after the tail, whose descriptor another core
            // probably wrote last.
            let start = now.max(rq.lock_free);
            let mut cs = mem.core_access_at_once(c, lock, true, now) + atomic;
            if let Some(t) = list.tail() {
                cs += mem.core_access_at_once(c, ring_addr + t as u64 * k.rx_desc, true, now);
            }
            for &i in re_armed {
                list.append(&[i as u32]);
            }
            cs += mem.core_access_at_once(c, lock, true, now);
            rq.lock_free = start + cs;
            rq.driver_pi += re_armed.len() as u64;
            if measuring {
                rq.reposted += re_armed.len() as u64;
            }
            (0, start - now + cs)
        }
    }
}

/// Dynamic shRing (Sec. 4.5): every period, sample the throughput of all
/// NICs, the memory bandwidth and each core's interval between Rx calls
/// into a sliding window; share rings when more than half of the samples
/// see high throughput and high memory bandwidth and no core is
/// overloaded; go back to private rings when 7/8 of them see throughput
/// below the threshold or a core is overloaded. A switch repoints RSS at
/// the other ring set; the cores drain the old rings before polling the new.
pub(crate) struct Dshring {
    pub period: Time,
    window: usize,
    gbps: f64,
    mem_bytes_s: f64,
    skew: f64,
    /// (throughput Gbps, memory bytes/s) per sample, newest last.
    samples: std::collections::VecDeque<(f64, f64)>,
    last_out: u64,
    last_dram: u64,
    last_calls: Vec<u64>,
    pub switches: u64,
    /// Measured time spent on the shared rings, and when the last switch
    /// (or the window's start) was.
    pub shared_ps: Time,
    pub since: Time,
}

impl Dshring {
    pub fn new(rings: &crate::config::RingsCfg) -> Dshring {
        Dshring {
            period: rings.dshring_period,
            window: (rings.dshring_window as usize),
            gbps: rings.dshring_gbps as f64 / 1e3,
            mem_bytes_s: rings.dshring_mem_bw as f64 * 1e6,
            skew: rings.dshring_skew,
            samples: Default::default(),
            last_out: 0,
            last_dram: 0,
            last_calls: vec![],
            switches: 0,
            shared_ps: 0,
            since: 0,
        }
    }

    /// Whether some core calls Rx far less often than the others: the
    /// spread of the cores' Rx-call intervals against their median. A
    /// core's interval is its mean over the period, or the time since its
    /// last call if that is longer (a core deep in a long burst).
    fn overloaded(&self, calls: &[u64], since_last: &[Time]) -> bool {
        let period = self.period as f64;
        let mut iv: Vec<f64> = calls
            .iter()
            .zip(since_last)
            .map(|(&n, &gap)| {
                let mean = if n == 0 { period } else { period / n as f64 };
                mean.max(gap as f64)
            })
            .collect();
        iv.sort_by(f64::total_cmp);
        let median = iv[iv.len() / 2];
        let mean = iv.iter().sum::<f64>() / iv.len() as f64;
        let std = (iv.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / iv.len() as f64).sqrt();
        std > self.skew * median
    }
}

impl super::World {
    pub(super) fn on_dshring(&mut self, now: Time) {
        let Some(d) = &mut self.host.dshring else { return };
        let out: u64 = self.nics.iter().map(|n| n.out_bytes).sum();
        let dram = self.host.mem.stats.dram_read_bytes + self.host.mem.stats.dram_write_bytes;
        let calls: Vec<u64> = self.host.cores.iter().map(|c| c.rx_calls).collect();
        let secs = d.period as f64 / 1e12;
        let gbps = (out - d.last_out) as f64 * 8.0 / secs / 1e9;
        let mem = (dram - d.last_dram) as f64 / secs;
        let delta: Vec<u64> = if d.last_calls.is_empty() {
            calls.clone()
        } else {
            calls.iter().zip(&d.last_calls).map(|(a, b)| a - b).collect()
        };
        (d.last_out, d.last_dram, d.last_calls) = (out, dram, calls);
        d.samples.push_back((gbps, mem));
        if d.samples.len() > d.window {
            d.samples.pop_front();
        }
        let since_last: Vec<Time> = self.host.cores.iter().map(|c| now - c.last_rx_at).collect();
        let overloaded = d.overloaded(&delta, &since_last);
        let n = d.samples.len();
        let shared = self.nics[0].set == 1;
        let switch = if shared {
            let low = d.samples.iter().filter(|s| s.0 < d.gbps).count();
            overloaded || (n == d.window && low * 8 >= n * 7)
        } else {
            let high = d.samples.iter().filter(|s| s.0 > d.gbps && s.1 > d.mem_bytes_s).count();
            !overloaded && n == d.window && high * 2 > n
        };
        if switch {
            if self.host.measuring {
                d.switches += 1;
                if shared {
                    d.shared_ps += now - d.since.max(self.host.cfg.sim.warmup);
                }
            }
            d.since = now;
            for nic in &mut self.nics {
                nic.set = 1 - nic.set;
            }
            // Fresh evidence for the new rings.
            d.samples.clear();
        }
        let next = now + d.period;
        self.host.q.push(next, super::Ev::Dshring);
    }
}
