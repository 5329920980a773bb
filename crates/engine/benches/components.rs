//! Criterion micro-benchmarks of the hot components: the event queue, the
//! LLC model (DMA-style line bursts and random core accesses), DRAM channels
//! and the PCIe link serialiser. `cargo bench -p packetpath-engine`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use packetpath_engine::mem::cache::{Cache, Indexing, Policy};
use packetpath_engine::mem::dram::Dram;
use packetpath_engine::pcie::{PcieConfig, PcieLink};
use packetpath_engine::sim::{rng, EventQueue};
use rand::Rng;

fn llc() -> Cache {
    // The DDIO testbed's LLC: 18 slices x 2048 sets x 11 ways.
    Cache::new(18 * 2048 * 11 * 64, 11, Indexing::SliceHash { slices: 18, sets_per_slice: 2048 }, Policy::Lru, rng(1, 0, 0))
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
    g.bench_function("random_core_access", |b| b.iter(|| access(&mut c, (1 << 24) + r.gen_range(0..1u64 << 22), 0x1ff)));
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

criterion_group!(benches, bench_cache, bench_dram, bench_queue, bench_pcie);
criterion_main!(benches);
