//! Shared receive rings (shRing): each mechanism against what it must do —
//! coherence pricing of shared lines, the NIC working set shrinking with
//! sharing, RxList defeating descriptor prefetch, and a slow core holding
//! back its peers' descriptors under RxArr.

use packetpath_engine::mem::Memory;
use serde_json::{json, Value};
use packetpath_engine::config::Cfg;
use packetpath_engine::report::PacketReport as Report;
use packetpath_engine::run::validated as validate;

/// A packet run's report.
fn run(c: &Cfg) -> Result<Report, String> {
    packetpath_engine::run::run(c).map(|r| r.into_packet().expect("a packet run"))
}


/// The shRing paper's server: 2 NICs x 8 cores, 200 Gbps of 1500 B frames,
/// WorkPackage reading a 40 MiB array once per packet (one dependent read,
/// ~250 cycles: light cores, so the rings and the NIC decide).
fn server(rings: Value, app: Value) -> Value {
    let mut v = json!({
        // CQE compression (the ConnectX-5 default) lets cores take bursts.
        "nic": {"count": 2, "rx_ring_size": 1024, "rx_cqe_comp": true},
        "cpu": {"cores": 8},
        "traffic": {"rate": "100Gbps", "size": 1500, "flows": 65536},
        "app": {"nf": "workpackage", "wp_reads": 1, "wp_size": "40MiB"},
        "rings": rings,
        "llc": {"size": "22MiB", "ways": 11, "slices": 16},
        "sim": {"warmup": "0.5ms", "duration": "0.5ms"},
    });
    for (k, x) in app.as_object().unwrap() {
        v["app"][k] = x.clone();
    }
    v
}

fn go(v: Value) -> Report {
    run(&validate(&v).unwrap()).unwrap()
}

#[test]
fn a_line_another_core_modified_costs_a_snoop() {
    let c = validate(&json!({"llc": {"latency": "20ns", "snoop_latency": "48ns"}, "l1d": {"latency": "2ns"}})).unwrap();
    let mut m = Memory::new(&c.mem, &c.llc, &c.l1d, &c.l2, &c.dram, c.sim.seed, vec![0x7ff, 0x7ff]);
    let a = 1 << 31;
    m.core_access(0, a, true, 0); // core 0 owns it modified
    assert_eq!(m.core_access(1, a, false, 0), 48_000, "load of a modified line: snoop");
    assert_eq!(m.core_access(1, a, false, 0), 2_000, "now in core 1's L1D");
    assert_eq!(m.core_access(0, a, true, 0), 48_000, "store to a shared line (no longer core 0's own): invalidate core 1");
    let b = a + 4096;
    m.core_access(0, b, false, 0);
    assert_eq!(m.core_access(1, b, false, 0), 20_000, "clean copy elsewhere: plain LLC hit");
}

#[test]
fn sharing_shrinks_the_nic_working_set() {
    let hit = |n: u64| {
        let r = go(server(json!({"sharing": n}), json!({})));
        (r.pcie_write_hit_rate, r.mem_bw_gbytes_s.read + r.mem_bw_gbytes_s.write)
    };
    let (h1, m1) = hit(1);
    let (h8, m8) = hit(8);
    // privRing: 16 x 1024 x 2 KiB buffers against 2 DDIO ways of 22 MiB;
    // shRing/8: 2 rings, 8x less.
    assert!(h8 > h1 + 0.3, "DDIO write hit rate {h1} -> {h8}");
    assert!(m8 < 0.8 * m1, "memory bandwidth {m1} -> {m8} GB/s");
}

#[test]
fn rings_report_only_for_shared_rings_and_list_defeats_prefetch() {
    assert!(go(server(json!({"sharing": 1}), json!({}))).rings.is_none());
    let arr = go(server(json!({"sharing": 8, "discipline": "arr"}), json!({})));
    let list = go(server(json!({"sharing": 8, "discipline": "list"}), json!({})));
    let (a, l) = (arr.rings.unwrap(), list.rings.unwrap());
    assert!(a.sync_cycles_per_packet > 0.0 && a.repost_wait_ns > 0.0);
    // Out-of-order list entries: the NIC's contiguous reads mostly miss.
    assert!(
        l.nic_rx_wait_ns > 10.0 * a.nic_rx_wait_ns.max(10.0),
        "NIC wait arr {a:?} list {l:?}"
    );
    assert!(list.packets.throughput_gbps < arr.packets.throughput_gbps);
    // A list ring reposts without waiting for other cores.
    assert_eq!(l.repost_wait_ns, 0.0);
}

#[test]
fn a_slow_core_holds_back_its_peers_only_on_a_shared_array() {
    let slow = json!({"slow_core_reads": 40});
    let private = go(server(json!({"sharing": 1}), slow.clone()));
    let shared = go(server(json!({"sharing": 8}), slow));
    let fast = go(server(json!({"sharing": 8}), json!({})));
    assert!(
        shared.rings.as_ref().unwrap().repost_wait_ns > 10.0 * fast.rings.as_ref().unwrap().repost_wait_ns,
        "repost wait fast {} slow {}",
        fast.rings.unwrap().repost_wait_ns,
        shared.rings.unwrap().repost_wait_ns
    );
    assert!(
        shared.packets.throughput_gbps < 0.9 * private.packets.throughput_gbps,
        "slow core: shared {} private {}",
        shared.packets.throughput_gbps,
        private.packets.throughput_gbps
    );
}

#[test]
fn shared_rings_are_deterministic_and_keep_their_invariants() {
    for disc in ["arr", "list"] {
        let v = server(json!({"sharing": 4, "discipline": disc}), json!({"wp_payload": "write"}));
        let a = serde_json::to_string(&go(v.clone())).unwrap();
        let b = serde_json::to_string(&go(v)).unwrap();
        assert_eq!(a, b, "{disc}");
    }
}

#[test]
fn frames_aimed_at_the_target_core_reach_only_it() {
    // 4 cores can take this load, one cannot: aiming every frame at the
    // first core overloads it.
    let load = |share: f64| {
        go(json!({"traffic": {"rate": "40Gbps", "size": 1500, "target_share": share, "target_size": 1500},
                  "cpu": {"cores": 4}, "app": {"nf": "workpackage", "wp_reads": 40, "wp_size": "64MiB"},
                  "sim": {"warmup": "0.2ms", "duration": "0.5ms"}}))
        .packets
        .drop_rate
    };
    assert_eq!(load(0.0), 0.0);
    assert!(load(1.0) > 0.2, "one core took it all: {}", load(1.0));
    let bad = validate(&json!({"cpu": {"cores": 6}, "rings": {"sharing": 4}})).unwrap_err();
    assert!(bad.starts_with("rings.sharing = 4: must divide cpu.cores = 6"), "{bad}");
}

#[test]
fn dshring_shares_under_load_and_backs_off_when_a_core_is_overloaded() {
    let dynamic = json!({"sharing": 8, "dynamic": true, "dshring_period": "50us"});
    let run = |app: Value| {
        let mut v = server(dynamic.clone(), app);
        v["sim"] = json!({"warmup": "2ms", "duration": "1ms"});
        go(v).rings.unwrap()
    };
    // 200 Gbps with private rings: high throughput and memory bandwidth,
    // balanced cores: the policy moves to the shared rings and stays.
    let busy = run(json!({}));
    assert!(busy.dshring_shared_share > 0.99, "{busy:?}");
    // One core far slower than the rest: never share.
    let skewed = run(json!({"slow_core_reads": 100}));
    assert_eq!(skewed.dshring_shared_share, 0.0, "{skewed:?}");
    let bad = validate(&json!({"rings": {"dynamic": true}})).unwrap_err();
    assert!(bad.starts_with("rings.dynamic = true: needs rings.sharing > 1"), "{bad}");
}

#[test]
fn timeline_follows_load_phases_and_dshring_switches_when_the_load_rises() {
    let mut v = server(json!({"sharing": 8, "dynamic": true, "dshring_period": "50us"}), json!({}));
    v["traffic"]["rate"] = json!("40Gbps");
    v["traffic"]["phase_at"] = json!(["1ms"]);
    v["traffic"]["phase_rate"] = json!(["100Gbps"]);
    v["sim"] = json!({"warmup": "0ms", "duration": "2ms", "sample_period": "100us"});
    let whole = packetpath_engine::run::run(&validate(&v).unwrap()).unwrap();
    let offered = whole.sim.packets;
    let r = whole.into_packet().unwrap();
    let t = &r.timeline;
    assert_eq!(t.len(), 20);
    // Every frame accepted in the run falls in exactly one sample.
    assert_eq!(t.iter().map(|s| s.arrived).sum::<u64>(), offered);
    // 2 NICs: ~80 Gbps of frames, then up to the PCIe-bound ~185.
    let gbps = |from: usize, to: usize| t[from..to].iter().map(|s| s.tx_gbps).sum::<f64>() / (to - from) as f64;
    assert!((gbps(2, 10) - 80.0 * 1500.0 / 1520.0).abs() < 2.0, "{t:?}");
    assert!(gbps(14, 20) > 150.0, "{t:?}");
    // Light load: private rings; high balanced load: shared rings.
    assert!(t[..10].iter().all(|s| s.ring_set == 0), "{t:?}");
    assert_eq!(t[19].ring_set, 1, "{t:?}");
    // No sampling period, no timeline.
    assert!(go(server(json!({}), json!({}))).timeline.is_empty());
    let bad = validate(&json!({"traffic": {"phase_at": ["1ms", "2ms"], "phase_rate": ["50Gbps"]}})).unwrap_err();
    assert!(bad.starts_with("traffic.phase_rate: 1 entries for the 2 phases"), "{bad}");
    let bad = validate(&json!({"traffic": {"phase_at": ["2ms", "1ms"]}})).unwrap_err();
    assert!(bad.contains("phase start times must increase"), "{bad}");
}
