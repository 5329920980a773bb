//! End-to-end behaviour of the whole engine, each test against something
//! known: conservation, analytic capacity bounds, determinism, and the DDIO
//! mechanism's direction of effect.

use packetpath_engine::api::run_json;
use packetpath_engine::pcie::{mrd_request_wire_bytes, mwr_wire_bytes, tlp_layer_gbps, PcieConfig};
use serde_json::{json, Value};
use packetpath_engine::config::Cfg;
use packetpath_engine::report::PacketReport as Report;
use packetpath_engine::run::validated as validate;

/// A packet run's report.
fn run(c: &Cfg) -> Result<Report, String> {
    packetpath_engine::run::run(c).map(|r| r.into_packet().expect("a packet run"))
}


fn go(v: Value) -> Report {
    run(&validate(&v).unwrap()).unwrap()
}

fn short(mut v: Value) -> Value {
    v.as_object_mut()
        .unwrap()
        .entry("sim")
        .or_insert(json!({"warmup": "1ms", "duration": "2ms"}));
    v
}

#[test]
fn same_seed_same_bytes_different_seed_different_run() {
    let s = json!({"cpu": {"cores": 2}, "traffic": {"arrival": "poisson", "rate": "60Gbps"}, "sim": {"warmup": "0.5ms", "duration": "1ms"}});
    let a = run_json(&s.to_string()).unwrap();
    let b = run_json(&s.to_string()).unwrap();
    assert_eq!(a, b);
    let mut s2 = s.clone();
    s2["sim"]["seed"] = json!(2);
    assert_ne!(a, run_json(&s2.to_string()).unwrap());
}

#[test]
fn under_capacity_everything_offered_is_forwarded() {
    let r = go(short(
        json!({"traffic": {"rate": "20Gbps", "size": 1500}, "cpu": {"cores": 1}}),
    ));
    assert_eq!(r.packets.drop_rate, 0.0);
    // 20 Gbps on the wire = 20 * 1500/1520 Gbps of frames.
    let frames = 20.0 * 1500.0 / 1520.0;
    assert!(
        (r.packets.throughput_gbps - frames).abs() / frames < 0.01,
        "{}",
        r.packets.throughput_gbps
    );
    assert!((r.packets.offered_gbps - frames).abs() / frames < 0.01);
}

#[test]
fn many_configurations_keep_their_invariants() {
    // run() checks packet conservation, ring index order and LLC capacity at
    // the end of every run and fails if any is broken.
    for (i, (cores, ring, size, nf, ways, remote, pause)) in [
        (1, 64, 64, "l2fwd", 2, false, false),
        (2, 512, 1500, "l3fwd", 0, false, false),
        (3, 128, 800, "workpackage", 4, true, false),
        (4, 2048, 64, "l2fwd", 11, false, false),
        (1, 64, 64, "l2fwd", 2, false, true),
        (2, 512, 1500, "workpackage", 2, false, true),
    ]
    .into_iter()
    .enumerate()
    {
        let r = go(json!({
            "cpu": {"cores": cores}, "nic": {"rx_ring_size": ring, "remote_socket": [remote], "flow_control": pause},
            "traffic": {"size": size, "arrival": if i % 2 == 0 { "bursty" } else { "poisson" }, "rate": "90Gbps"},
            "app": {"nf": nf, "wp_reads": 2}, "llc": {"ddio_ways": ways}, "sim": {"warmup": "0.2ms", "duration": "0.5ms"}
        }));
        assert!(r.packets.throughput_gbps > 0.0 && r.packets.drop_rate < 1.0);
    }
}

#[test]
fn pcie_bounds_forwarding_throughput_at_line_rate() {
    // Upstream bytes per forwarded 1500 B frame: the frame's MWr TLPs (its
    // 1496 B without the FCS), an eighth of a compressed CQE line, the Tx
    // data MRds, and the amortised descriptor fetches and Tx completions.
    let p = PcieConfig::default();
    let per_pkt = mwr_wire_bytes(&p, 1496) as f64
        + mwr_wire_bytes(&p, 64) as f64 / 8.0
        + mrd_request_wire_bytes(&p, 1496) as f64
        + mrd_request_wire_bytes(&p, 32 * 16) as f64 / 32.0
        + mrd_request_wire_bytes(&p, 32 * 64) as f64 / 32.0
        + mwr_wire_bytes(&p, 64) as f64 / 32.0;
    let pcie_pps = tlp_layer_gbps(3, 16, 256) * 1e9 / 8.0 / per_pkt;
    let line_pps = 100e9 / 8.0 / 1520.0;
    let bound = pcie_pps.min(line_pps) * 1500.0 * 8.0 / 1e9;
    let r = go(short(
        json!({"cpu": {"cores": 2}, "nic": {"rx_cqe_comp": true}}),
    ));
    assert!(
        r.packets.pcie_util.upstream > 0.97,
        "{:?}",
        r.packets.pcie_util
    );
    assert!(
        (r.packets.throughput_gbps - bound).abs() / bound < 0.03,
        "{} vs bound {bound}",
        r.packets.throughput_gbps
    );
}

#[test]
fn core_bound_throughput_follows_cycle_budget() {
    // 3000 cycles of NF work per packet at 2.3 GHz: one core forwards at
    // most 2.3e9/3000 = 0.77 Mpps, a little less with the driver's cycles.
    let r = go(short(
        json!({"cpu": {"cores": 1}, "app": {"nf_cycles": 3000}, "traffic": {"size": 64}}),
    ));
    let mpps = r.packets.rx_pps / 1e6;
    let upper = 2300.0 / 3000.0;
    assert!(mpps < upper && mpps > 0.85 * upper, "{mpps} Mpps");
    assert!(
        r.packets.drops.no_descriptor > 0,
        "a core-bound NIC runs out of descriptors"
    );
    assert!(
        r.packets.ring_occupancy_mean > 0.9 * 1024.0,
        "the ring stays full: {}",
        r.packets.ring_occupancy_mean
    );
}

#[test]
fn ddio_off_and_remote_socket_send_every_dma_write_to_dram() {
    for extra in [
        json!({"llc": {"ddio_ways": 0}}),
        json!({"nic": {"remote_socket": [true]}}),
    ] {
        let mut s = json!({"traffic": {"rate": "40Gbps"}});
        for (k, v) in extra.as_object().unwrap() {
            s[k] = v.clone();
        }
        let r = go(short(s));
        assert_eq!(r.pcie_write_hit_rate, 0.0);
        // Every received byte is written to DRAM (plus completion lines).
        let rx_gbytes = r.packets.throughput_gbps / 8.0;
        assert!(
            r.mem_bw_gbytes_s.write >= rx_gbytes,
            "{} vs {rx_gbytes}",
            r.mem_bw_gbytes_s.write
        );
    }
}

#[test]
fn leaky_dma_grows_with_the_ring() {
    // Reuse distance of a buffer is one trip around the ring: 256 x 24 lines
    // fit the 2 DDIO ways (~73 K lines), 4096 x 24 lines do not. (Under
    // the non-inclusive LLC the lines the core and its L2 prefetchers read
    // wait in its L2, and the next write to them allocates again: the small
    // ring misses those.)
    let small = go(short(json!({"nic": {"rx_ring_size": 256}})));
    let large = go(short(json!({"nic": {"rx_ring_size": 4096}})));
    assert!(
        small.pcie_write_hit_rate > 0.8,
        "{}",
        small.pcie_write_hit_rate
    );
    assert!(
        large.pcie_write_hit_rate < 0.6,
        "{}",
        large.pcie_write_hit_rate
    );
    let more_ways = go(short(
        json!({"nic": {"rx_ring_size": 4096}, "llc": {"ddio_ways": 6}}),
    ));
    assert!(more_ways.pcie_write_hit_rate > large.pcie_write_hit_rate + 0.3);
}

#[test]
fn unloaded_latency_is_the_sum_of_the_path() {
    // At 1 Gbps nothing queues: wire in, PCIe write + completion, poll,
    // doorbell, WQE and data reads, wire out -- a few microseconds.
    let r = go(short(json!({"traffic": {"rate": "1Gbps", "size": 64}})));
    let p50 = r.packets.latency_ns.as_ref().unwrap().p50;
    assert!(p50 > 1000.0 && p50 < 5000.0, "p50 {p50} ns");
}

#[test]
fn bad_scenarios_are_refused_with_the_key() {
    let e = run_json(r#"{"llc": {"ddio_ways": 20}}"#).unwrap_err();
    assert!(e.starts_with("llc.ddio_ways = 20"), "{e}");
    let e = run_json(r#"{"nic": {"count": 1, "ddio": [true, false]}}"#).unwrap_err();
    assert!(e.starts_with("nic.ddio"), "{e}");
    let e = run_json(r#"{"nic": {"flow_control": true, "rx_buffer": "32KiB"}}"#).unwrap_err();
    assert!(e.starts_with("nic.rx_buffer = 32768 B"), "{e}");
    let e =
        run_json(r#"{"nic": {"flow_control": true}, "traffic": {"closed_loop": 8}}"#).unwrap_err();
    assert!(e.starts_with("nic.flow_control"), "{e}");
}

#[test]
fn flow_control_turns_drops_into_backpressure() {
    // One bottleneck after the port (a core at 64 B) and one before the
    // Rx rings (PCIe upstream at 1500 B): with PAUSE nothing is dropped,
    // the source sends what the bottleneck takes, and that is as much as
    // without PAUSE.
    for v in [
        json!({"cpu": {"cores": 1}, "traffic": {"size": 64}}),
        json!({"cpu": {"cores": 2}, "traffic": {"size": 1500}}),
    ] {
        let off = go(short(v.clone()));
        let mut on = v.clone();
        on["nic"] = json!({"flow_control": true});
        let on = go(short(on));
        let (a, b) = (&off.packets, &on.packets);
        assert!(a.drop_rate > 0.005 && a.pause_frames == 0, "{v}: {a:?}");
        assert_eq!(b.drop_rate, 0.0, "{v}");
        assert!(b.pause_frames > 0, "{v}");
        assert!(
            (b.throughput_gbps - a.throughput_gbps).abs() < 0.01 * a.throughput_gbps,
            "{v}: {} vs {}",
            b.throughput_gbps,
            a.throughput_gbps
        );
        assert!(
            (b.offered_gbps - b.throughput_gbps).abs() < 0.01 * b.throughput_gbps,
            "{v}: {b:?}"
        );
    }
    // Core-bound, the source's queue of 1024 frames fills at once: every
    // frame waits at least 1024 of the core's packet times before its
    // first bit goes out.
    let r = go(short(
        json!({"cpu": {"cores": 1}, "traffic": {"size": 64}, "nic": {"flow_control": true}}),
    ));
    let queue_ns = 1024.0 / r.packets.rx_pps * 1e9;
    assert!(
        r.packets.latency_ns.as_ref().unwrap().p50 > queue_ns,
        "{} <= {queue_ns}",
        r.packets.latency_ns.as_ref().unwrap().p50
    );
}

#[test]
fn nat_state_costs_more_with_more_flows() {
    // Few flows: the per-core cuckoo tables stay cached. A million flows:
    // new flows every packet, two inserts each, and tables far beyond the LLC.
    let run_nat = |flows: u32| {
        go(
            json!({"cpu": {"cores": 2}, "app": {"nf": "nat"}, "traffic": {"flows": flows, "rate": "40Gbps"}, "sim": {"warmup": "0.5ms", "duration": "1ms"}}),
        )
    };
    let few = run_nat(64);
    let many = run_nat(1_000_000);
    let (f, m) = (
        few.packets.llc_misses_per_packet,
        many.packets.llc_misses_per_packet,
    );
    assert!(
        m > f + 1.0,
        "misses per packet: {f} with 64 flows, {m} with 1 M"
    );
    assert!(many.cycles_per_packet > few.cycles_per_packet);
}

/// `app.nat_cycles` and `app.lb_cycles` are the NFs' own compute: each
/// packet costs that many more cycles, for the NF that runs it only (both
/// for the NAT + LB chain). Memory stalls differ a little between runs
/// (the slower cores see the caches at other times), hence 3 %.
#[test]
fn nat_and_lb_cycles_add_to_their_own_nfs() {
    let cpp = |nf: &str, nat: u64, lb: u64| {
        go(json!({"cpu": {"cores": 2}, "app": {"nf": nf, "nat_cycles": nat, "lb_cycles": lb}, "traffic": {"flows": 1000, "rate": "10Gbps"},
                  "sim": {"warmup": "0.5ms", "duration": "1ms"}}))
        .cycles_per_packet
    };
    for (nf, nat, lb, extra) in [("nat", 1000, 0, 1000.0), ("lb", 0, 700, 700.0), ("nat_lb", 1000, 700, 1700.0), ("l2fwd", 1000, 700, 0.0)] {
        let (base, more) = (cpp(nf, 0, 0), cpp(nf, nat, lb));
        assert!((more - base - extra).abs() <= 0.03 * extra.max(base), "{nf}: {base} -> {more}, expected +{extra}");
    }
}

#[test]
fn a_window_without_completed_packets_reports_no_latency() {
    // 200 ns: no frame gets from the wire through PCIe and a core and back out.
    let r = go(json!({"traffic": {"rate": "10Gbps", "size": 1500}, "sim": {"warmup": "0ms", "duration": "200ns"}}));
    assert!(r.packets.latency_ns.is_none(), "{:?}", r.packets.latency_ns);
    let text = run_json(&json!({"traffic": {"rate": "10Gbps", "size": 1500}, "sim": {"warmup": "0ms", "duration": "200ns"}}).to_string()).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert!(v["latency_ns"].is_null(), "absent, never zeros: {}", v["latency_ns"]);
    // a window with packets has its percentiles
    assert!(go(short(json!({"traffic": {"rate": "10Gbps"}}))).packets.latency_ns.is_some());
}

#[test]
fn poisson_at_line_rate_is_the_constant_schedule_whatever_the_seed() {
    // At 100% load a Poisson source has no idle time to draw: the seed
    // cannot change the arrivals, and one flow to one core leaves nothing else to it
    // (flat pages: the seed also draws the hugepages' physical frames).
    let at = |rate: &str, arrival: &str, seed: u64| {
        run_json(&json!({"traffic": {"arrival": arrival, "rate": rate}, "mem": {"hugepage": "flat"}, "sim": {"seed": seed, "warmup": "0.2ms", "duration": "0.5ms"}}).to_string()).unwrap()
    };
    let strip = |s: String| { let mut v: Value = serde_json::from_str(&s).unwrap(); v["sim"]["seed"] = json!(0); v };
    assert_eq!(strip(at("100Gbps", "poisson", 1)), strip(at("100Gbps", "poisson", 2)));
    assert_eq!(strip(at("100Gbps", "poisson", 1)), strip(at("100Gbps", "constant", 1)));
    assert_ne!(strip(at("90Gbps", "poisson", 1)), strip(at("90Gbps", "poisson", 2)), "below line rate the seed draws the gaps");
}

/// Back-pressure from memory to PCIe: with DDIO off every Rx line goes to
/// DRAM and every Tx read comes from it; one channel of 6.4 GB/s cannot
/// move 100 Gb/s of frames in and out. Either way the channel bounds what is
/// forwarded (half its bytes are writes, half reads: 25.6 Gb/s). With the
/// root port's write buffer bounded, posted credits come back only as the
/// channel takes lines, so the link waits and the backlog stays in the NIC,
/// where it is dropped; unbounded (the old model) the link runs on and an
/// ever longer write backlog in memory starves the NIC's reads.
#[test]
fn a_slow_memory_slows_the_link_through_posted_credits() {
    let slow = |buffer: &str| {
        go(short(json!({
            "traffic": {"rate": "100Gbps", "size": 1500},
            "cpu": {"cores": 2},
            "llc": {"ddio_ways": 0},
            "dram": {"channels": 1, "channel_bw": "6400MB/s"},
            "pcie": {"write_buffer": buffer},
        })))
    };
    let free = slow("0B");
    let held = slow("8KiB");
    for r in [&free, &held] {
        assert!(r.packets.throughput_gbps < 25.6, "{}", r.packets.throughput_gbps);
        assert!(r.packets.throughput_gbps > 15.0, "{}", r.packets.throughput_gbps);
    }
    assert_eq!(free.pcie_flow.credit_stall_share, 0.0);
    assert!(held.pcie_flow.credit_stall_share > 0.3, "{:?}", held.pcie_flow);
    assert!((128..=130).contains(&held.pcie_flow.write_buffer_lines_max), "{:?}", held.pcie_flow);
    // Unbounded, the reads wait behind the memory's write backlog: every
    // tag is held and latency runs away.
    assert_eq!(free.pcie_flow.read_tags_max, 256);
    assert!(held.pcie_flow.read_tags_mean * 4.0 < free.pcie_flow.read_tags_mean, "{:?} {:?}", held.pcie_flow, free.pcie_flow);
    let p50 = |r: &Report| r.packets.latency_ns.as_ref().expect("packets completed").p50;
    assert!(p50(&held) * 3.0 < p50(&free));
}

/// With DDIO and an idle memory, the same buffer does not bind: a DDIO
/// write's credit loop is short.
#[test]
fn posted_credits_do_not_bind_a_fast_memory() {
    let r = |buffer: &str| {
        go(short(json!({"traffic": {"rate": "100Gbps", "size": 1500}, "cpu": {"cores": 2}, "pcie": {"write_buffer": buffer}})))
    };
    let (free, held) = (r("0B"), r("8KiB"));
    assert!(held.pcie_flow.credit_stall_share < 0.01, "{:?}", held.pcie_flow);
    let (a, b) = (free.packets.throughput_gbps, held.packets.throughput_gbps);
    assert!((a - b).abs() / a < 0.01, "{a} vs {b}");
    assert!(held.pcie_flow.read_tags_max > 0 && held.pcie_flow.dma_requests_per_s > 1e6);
}

/// The progress hook sees the run's share of simulated time grow, changes
/// nothing, and stops the run when it says so.
#[test]
fn progress_is_told_and_can_stop_a_run() {
    let c = validate(&json!({"sim": {"warmup": "1ms", "duration": "9ms"}})).unwrap();
    let mut seen = vec![];
    let with = packetpath_engine::run::run_with(&c, &mut |done| {
        seen.push(done);
        true
    })
    .unwrap();
    assert!(seen.len() >= 3 && seen.windows(2).all(|w| w[0] <= w[1]) && seen[0] > 0.0 && *seen.last().unwrap() <= 1.0, "{seen:?}");
    let plain = packetpath_engine::run::run(&c).unwrap();
    assert_eq!(serde_json::to_string(&with).unwrap(), serde_json::to_string(&plain).unwrap());
    let stopped = packetpath_engine::run::run_with(&c, &mut |_| false).unwrap_err();
    assert!(stopped.starts_with("interrupted"), "{stopped}");
}
