//! Criterion micro-benchmarks of the hot components: the event queue, the
//! LLC model (DMA-style line bursts and random core accesses), DRAM channels
//! (bookings in time order and late ones), a DPA hop's pipe and the PCIe
//! link serialiser. `cargo bench -p packetpath-engine`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use packetpath_engine::devices::dpa::hop::Pipe;
use packetpath_engine::mem::cache::{Cache, Indexing, Policy};
use packetpath_engine::mem::dram::Dram;
use packetpath_engine::mem::slice::SliceFn;
use packetpath_engine::pcie::{PcieConfig, PcieLink};
use packetpath_engine::sim::{rng, EventQueue};
use rand::Rng;

fn llc() -> Cache {
    // The DDIO testbed's LLC: 18 slices x 2048 sets x 11 ways.
    Cache::new(
        18 * 2048 * 11 * 64,
        11,
        Indexing::Sliced {
            slices: 18,
            sets_per_slice: 2048,
            hash: SliceFn::measured(18).expect("a measured 18-slice mapping"),
        },
        Policy::Lru,
        rng(1, 0, 0),
    )
}

fn access(c: &mut Cache, line: u64, mask: u64) {
    match c.find(line) {
        Some(s) => c.touch(s),
        None => {
            c.insert(line, mask, false);
        }
    }
}

fn bench_cache(cr: &mut Criterion) {
    let mut g = cr.benchmark_group("llc");
    g.throughput(Throughput::Elements(24));
    let mut c = llc();
    let mut buf = 0u64;
    g.bench_function("dma_burst_24_lines", |b| {
        b.iter(|| {
            // A 1500 B frame into the next of 4096 buffers, as DDIO allocates it.
            let base = (1 << 24) + (buf % 4096) * 37;
            for l in base..base + 24 {
                c.prefetch(l);
            }
            for l in base..base + 24 {
                access(&mut c, l, 0x600);
            }
            buf += 1;
        })
    });
    g.throughput(Throughput::Elements(1));
    let mut r = rng(2, 0, 0);
    g.bench_function("random_core_access", |b| {
        b.iter(|| access(&mut c, (1 << 24) + r.gen_range(0..1u64 << 22), 0x1ff))
    });
    g.finish();
}

fn bench_dram(cr: &mut Criterion) {
    let mut d = Dram::new(6, 21333, 90_000);
    let mut t = 0;
    cr.bench_function("dram_read", |b| {
        b.iter(|| {
            t += 3000;
            black_box(d.read(t / 7, t))
        })
    });
}

/// Late bookings, as a core pricing ahead of the clock leaves them: every
/// other read is dated 2 us before the newest booking.
fn bench_dram_late(cr: &mut Criterion) {
    let mut d = Dram::new(4, 19_200, 90_000);
    let mut t: u64 = 0;
    let mut i = 0u64;
    cr.bench_function("dram_read_late", |b| {
        b.iter(|| {
            t += 3000;
            i += 1;
            let at = if i % 2 == 0 { t } else { t.saturating_sub(2_000_000) };
            black_box(d.read(i, at))
        })
    });
}

/// A DPA hop's pipe saturated (requests arrive faster than it serves
/// them, the backlog grows to its window) and idle (one request per
/// microsecond, as a pointer chase issues them).
fn bench_dpa_pipe(cr: &mut Criterion) {
    let mut p = Pipe::new(6_250);
    let mut t = 0;
    cr.bench_function("dpa_pipe_saturated_1KiB", |b| {
        b.iter(|| {
            t += 100_000;
            black_box(p.pass(t, 1024))
        })
    });
    let mut p = Pipe::new(6_250);
    let mut t = 0;
    cr.bench_function("dpa_pipe_idle_64B", |b| {
        b.iter(|| {
            t += 1_000_000;
            black_box(p.pass(t, 64))
        })
    });
}

fn bench_queue(cr: &mut Criterion) {
    let mut q = EventQueue::new();
    for i in 0..1000u64 {
        q.push(i * 100, i);
    }
    cr.bench_function("event_queue_pop_push_1000_pending", |b| {
        b.iter(|| {
            let (t, e) = q.pop().unwrap();
            q.push(t + 100_000, e);
        })
    });
}

fn bench_pcie(cr: &mut Criterion) {
    let mut l = PcieLink::new(PcieConfig::default());
    let mut t = 0;
    cr.bench_function("pcie_dma_write_1500B", |b| {
        b.iter(|| {
            t += 120_000;
            black_box(l.dma_write(t, 0x1000, 1500))
        })
    });
}

criterion_group!(benches, bench_cache, bench_dram, bench_dram_late, bench_dpa_pipe, bench_queue, bench_pcie);
criterion_main!(benches);
