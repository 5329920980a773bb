//! The memory controller against DRAMsim3 (`tests/data/memory/`): the same
//! stock DDR4-2666 and DDR4-2933 channels driven by open-loop Poisson
//! traces of the same four patterns, one request offered per cycle in
//! trace order as DRAMsim3's trace CPU does, at the reference's loads.

use packetpath_engine::mem::dram::controller::{Channel, Config, Done};
use packetpath_engine::mem::dram::map::{Geometry, Map};
use packetpath_engine::mem::dram::timing::{self, Timing};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp};

const LINE: u64 = 64;
const REGION: u64 = 4 << 30;
const DMA_BASE: u64 = 4 << 30;
const DMA_RING: u64 = 64 << 20;

struct Point {
    pattern: String,
    config: String,
    load: f64,
    n: usize,
    achieved: f64,
    saturated: bool,
    avg_lat: f64,
    p50: f64,
    row_hit: f64,
}

fn reference() -> Vec<Point> {
    let text = include_str!("data/memory/dramsim3_loaded_latency.csv");
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (pa, co, lo, n, ach, sat, avg, p50, rh) = (
        col("pattern"),
        col("config"),
        col("offered_frac_of_peak"),
        col("n_requests"),
        col("achieved_GBps"),
        col("saturated"),
        col("avg_read_lat_ns"),
        col("p50_read_lat_ns"),
        col("row_hit_rate"),
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let num = |i: usize| f[i].parse::<f64>().unwrap_or(f64::NAN);
            Point {
                pattern: f[pa].into(),
                config: f[co].into(),
                load: num(lo),
                n: num(n) as usize,
                achieved: num(ach),
                saturated: f[sat] == "1",
                avg_lat: num(avg),
                p50: num(p50),
                row_hit: num(rh),
            }
        })
        .collect()
}

fn timing_of(config: &str) -> Timing {
    match config {
        "DDR4_8Gb_x8_2666" => timing::DDR4_2666,
        "DDR4_8Gb_x8_2933" => timing::DDR4_2933,
        c => panic!("{c}"),
    }
}

/// (address, write, arrival cycle) of one open-loop Poisson trace.
fn trace(pattern: &str, gbps: f64, tck_ns: f64, n: usize, seed: u64) -> Vec<(u64, bool, u64)> {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let gap = Exp::new(gbps / LINE as f64).unwrap();
    let mut t = 0.0;
    let mut dma = 0;
    (0..n as u64)
        .map(|i| {
            t += gap.sample(&mut rng);
            let cycle = (t / tck_ns).floor() as u64;
            let ra = rng.gen_range(0..REGION / LINE) * LINE;
            let u: f64 = rng.gen();
            let (a, w) = match pattern {
                "rand_read" => (ra, false),
                "rand_rw21" => (ra, u < 1.0 / 3.0),
                "seq_read" => (i * LINE, false),
                "nic_mix" if u < 0.5 => {
                    dma += 1;
                    (DMA_BASE + ((dma - 1) * LINE) % DMA_RING, true)
                }
                "nic_mix" => (ra, false),
                p => panic!("{p}"),
            };
            (a, w, cycle)
        })
        .collect()
}

struct Measured {
    achieved: f64,
    avg_lat: f64,
    p50: f64,
    row_hit: f64,
}

/// Drive one channel with a trace as DRAMsim3's trace CPU does: each
/// cycle, after the controller's tick, offer the next request once its
/// arrival cycle has come; a refused request holds up the trace.
fn drive(t: Timing, tr: &[(u64, bool, u64)]) -> Measured {
    let mut ch = Channel::new(Config::dramsim3(t, Map::dramsim3(Geometry::ddr4_8gb_x8(2))));
    let reads = tr.iter().filter(|r| !r.1).count();
    let mut done: Vec<Done> = Vec::with_capacity(reads);
    let (mut next, mut last) = (0, 0u64);
    while next < tr.len() || done.len() < reads {
        if !ch.busy() && next < tr.len() && tr[next].2 > ch.cycle() {
            ch.run_to(tr[next].2, &mut done);
        }
        ch.run_to(ch.cycle() + 1, &mut done);
        if next < tr.len() && tr[next].2 < ch.cycle() {
            let (a, w, _) = tr[next];
            if ch.offer(next as u64, a, w) {
                if w {
                    last = last.max(ch.cycle() + 1);
                }
                next += 1;
            }
        }
    }
    let end = done.iter().map(|d| d.at / t.tck_ps).max().unwrap_or(0).max(last);
    let span_ns = (end - tr[0].2 + 1) as f64 * t.tck_ps as f64 / 1e3;
    let mut lat: Vec<u64> = done.iter().map(|d| d.latency).collect();
    lat.sort_unstable();
    Measured {
        achieved: tr.len() as f64 * LINE as f64 / span_ns,
        avg_lat: lat.iter().sum::<u64>() as f64 / lat.len().max(1) as f64 / 1e3,
        p50: lat.get(lat.len().div_ceil(2).saturating_sub(1)).map_or(f64::NAN, |&l| l as f64 / 1e3),
        row_hit: ch.stats().row_hit_rate(),
    }
}

fn simulate(p: &Point, n: usize) -> Measured {
    let t = timing_of(&p.config);
    let peak = t.peak_bytes_per_s() / 1e9;
    drive(t, &trace(&p.pattern, p.load * peak, t.tck_ps as f64 / 1e3, n, 1 + (p.load * 1000.0) as u64))
}

/// Every point side by side (`cargo test --test dram_reference -- --ignored --nocapture table`).
#[test]
#[ignore]
fn table() {
    for p in reference() {
        let m = simulate(&p, p.n / 2);
        println!(
            "{:9} {:16} {:4.2}  GB/s {:6.2} {:6.2}  avg {:7.1} {:7.1} ({:+5.1}%)  p50 {:6.1} {:6.1}  hit {:.3} {:.3}{}",
            p.pattern, p.config, p.load, p.achieved, m.achieved, p.avg_lat, m.avg_lat,
            100.0 * (m.avg_lat / p.avg_lat - 1.0), p.p50, m.p50, p.row_hit, m.row_hit,
            if p.saturated { "  sat" } else { "" }
        );
    }
}

/// The bounds: idle latency within 5 %, mean read latency within
/// 15 % at every unsaturated load up to 80 % of peak, saturation
/// bandwidth within 5 %, row-hit rate within 5 points. (Half of each
/// point's requests, other seeds: the figures printed by `table` are
/// within 5 % but two near-saturation points, -11 % and -8 %.)
#[test]
fn matches_dramsim3() {
    let mut bad = Vec::new();
    for p in reference() {
        let m = simulate(&p, p.n / 2);
        let rel = |a: f64, b: f64| (a / b - 1.0).abs();
        let what = format!("{} {} {:.2}", p.pattern, p.config, p.load);
        if p.load <= 0.05 && rel(m.avg_lat, p.avg_lat) > 0.05 {
            bad.push(format!("{what}: idle latency {:.1} ns, DRAMsim3 {:.1}", m.avg_lat, p.avg_lat));
        }
        if !p.saturated && p.load <= 0.8 && rel(m.avg_lat, p.avg_lat) > 0.15 {
            bad.push(format!("{what}: mean read latency {:.1} ns, DRAMsim3 {:.1}", m.avg_lat, p.avg_lat));
        }
        if p.saturated && rel(m.achieved, p.achieved) > 0.05 {
            bad.push(format!("{what}: saturated at {:.2} GB/s, DRAMsim3 {:.2}", m.achieved, p.achieved));
        }
        if (m.row_hit - p.row_hit).abs() > 0.05 {
            bad.push(format!("{what}: row hits {:.3}, DRAMsim3 {:.3}", m.row_hit, p.row_hit));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
