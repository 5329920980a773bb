//! nicmem datapath (header split, nicmem payloads, split rings, Tx header
//! inlining) against hand-computed PCIe byte counts and the split rings'
//! spilling rule.

use serde_json::{json, Value};
use packetpath_engine::config::Cfg;
use packetpath_engine::report::PacketReport as Report;
use packetpath_engine::run::validated as validate;

/// A packet run's report.
fn run(c: &Cfg) -> Result<Report, String> {
    packetpath_engine::run::run(c).map(|r| r.into_packet().expect("a packet run"))
}


fn go(mut v: Value) -> Report {
    v["sim"] = json!({"warmup": "0.5ms", "duration": "1ms"});
    run(&validate(&v).unwrap()).unwrap()
}

/// The four configurations of the nicmem paper (Sec. 6.1).
fn config(name: &str) -> Value {
    match name {
        "host" => json!({}),
        "split" => json!({"header_split": true}),
        "nmnfv-" => {
            json!({"header_split": true, "payload_mem": "nicmem", "nicmem_capacity": "64MiB", "nicmem_size": "64MiB"})
        }
        _ => {
            json!({"header_split": true, "payload_mem": "nicmem", "tx_inline": true, "nicmem_capacity": "64MiB", "nicmem_size": "64MiB"})
        }
    }
}

#[test]
fn pcie_payload_bytes_per_packet_match_the_descriptor_layouts() {
    // One 1500 B frame at a time (10 Gbps, one core): every frame has its
    // own Rx CQE (64 B), Tx CQE (64 B), Rx doorbell (4 B), Tx doorbell (8 B).
    // Rx descriptor: 16 B per scatter entry. Tx WQE: 32 B + 16 B per
    // buffer + inlined bytes, in 64 B blocks. nicmem buffers are reposted
    // to the primary ring with one 16 B descriptor each. The frames cross
    // PCIe without their 4 B FCS (stripped on Rx, appended on Tx).
    let s = 1496.0;
    let expect = [
        ("host", s + 128.0, 16.0 + 64.0 + 12.0 + s),
        ("split", s + 128.0, 32.0 + 64.0 + 12.0 + s),
        ("nmnfv-", 64.0 + 128.0, 32.0 + 64.0 + 12.0 + 64.0 + 16.0),
        ("nmnfv", 64.0 + 128.0, 32.0 + 128.0 + 12.0 + 16.0),
    ];
    for (name, up, down) in expect {
        let r = go(json!({"traffic": {"rate": "10Gbps", "size": 1500}, "nic": config(name)}));
        assert_eq!(r.packets.drop_rate, 0.0, "{name}");
        let b = &r.packets.pcie_bytes_per_packet;
        assert!(
            (b.upstream - up).abs() / up < 0.01,
            "{name}: upstream {} B/packet, expected {up}",
            b.upstream
        );
        assert!(
            (b.downstream - down).abs() / down < 0.01,
            "{name}: downstream {} B/packet, expected {down}",
            b.downstream
        );
    }
}

#[test]
fn frames_no_longer_than_the_split_offset_are_not_split() {
    let mut nic = config("nmnfv");
    nic["split_offset"] = json!(128);
    let r = go(json!({"traffic": {"rate": "1Gbps", "size": 128}, "nic": nic}));
    // Nothing goes to nicmem: the whole frame (124 B without its FCS) is
    // the header, inlined on Tx.
    assert_eq!(r.packets.nicmem_rx_share, 0.0);
    let up = 124.0 + 128.0;
    assert!(
        (r.packets.pcie_bytes_per_packet.upstream - up).abs() / up < 0.01,
        "{}",
        r.packets.pcie_bytes_per_packet.upstream
    );
}

#[test]
fn split_rings_spill_to_host_buffers_only_when_nicmem_runs_out() {
    let load = |nicmem: &str| {
        let mut nic = config("nmnfv");
        nic["nicmem_size"] = json!(nicmem);
        go(
            json!({"traffic": {"rate": "100Gbps", "size": 1500, "arrival": "bursty", "burst_len": 256}, "nic": nic, "cpu": {"cores": 1}}),
        )
    };
    let ample = load("16MiB");
    assert_eq!(ample.packets.nicmem_rx_share, 1.0);
    // 16 buffers cannot cover the frames in flight between Rx and the Tx
    // completion that frees them: the rest land in host buffers.
    let scarce = load("32KiB");
    assert!(
        scarce.packets.nicmem_rx_share > 0.0 && scarce.packets.nicmem_rx_share < 0.5,
        "{}",
        scarce.packets.nicmem_rx_share
    );
    assert!(
        scarce.packets.pcie_bytes_per_packet.upstream
            > ample.packets.pcie_bytes_per_packet.upstream + 500.0
    );
    assert!(scarce.packets.drop_rate <= ample.packets.drop_rate + 0.01);
}

#[test]
fn host_queues_take_no_nicmem() {
    let mut nic = config("nmnfv");
    nic["host_queues"] = json!(1);
    let r =
        go(json!({"traffic": {"rate": "40Gbps", "size": 1500}, "nic": nic, "cpu": {"cores": 2}}));
    // RSS spreads flows evenly over the two queues; one of them spills all.
    assert!(
        (r.packets.nicmem_rx_share - 0.5).abs() < 0.05,
        "{}",
        r.packets.nicmem_rx_share
    );
}

#[test]
fn nicmem_relieves_pcie_and_memory_at_200g() {
    let nat = |name: &str| {
        let mut nic = config(name);
        nic["count"] = json!(2);
        go(
            json!({"traffic": {"rate": "100Gbps", "size": 1500, "flows": 100000}, "nic": nic, "cpu": {"cores": 4}, "app": {"nf": "nat", "flow_table_size": 131072}}),
        )
    };
    let (host, nm) = (nat("host"), nat("nmnfv"));
    assert!(nm.packets.pcie_util.upstream < host.packets.pcie_util.upstream / 3.0);
    assert!(nm.mem_bw_gbytes_s.write < host.mem_bw_gbytes_s.write);
}

#[test]
fn a_descheduled_tx_queue_idles_the_wire_unless_other_queues_have_work() {
    // Gen4 PCIe reads run ahead of the 100 G wire and fill a small Tx
    // buffer; descheduling the queue for a read round trip leaves the wire
    // idle with one queue, less so with four (nicmem paper Sec. 3.3).
    let lat = |desched: bool, cores: u64| {
        let r = go(
            json!({"traffic": {"rate": "100Gbps", "size": 1500}, "pcie": {"gen": 4}, "nic": {"tx_desched": desched, "tx_buffer": "16KiB"}, "cpu": {"cores": cores}}),
        );
        r.packets.latency_ns.as_ref().unwrap().mean
    };
    let (off1, on1, on4) = (lat(false, 1), lat(true, 1), lat(true, 4));
    assert!(on1 > 1.5 * off1, "desched {on1} ns vs {off1} ns");
    assert!(on4 < on1, "four queues {on4} ns vs one {on1} ns");
}

#[test]
fn a_queue_that_fills_its_tx_share_is_descheduled_while_others_keep_the_wire_busy() {
    // nic.tx_queue_buffer: the port buffer is large, but one queue may hold
    // only 12 KiB of frames. Alone it idles the wire while descheduled;
    // four queues cover for each other; with payloads in nicmem the share
    // holds only headers, so one queue is not held back (nicmem Sec. 3.3).
    let thr = |share: &str, cores: u64, nicmem: bool| {
        let mut nic = json!({"tx_desched": true, "tx_buffer": "128KiB", "tx_queue_buffer": share});
        if nicmem {
            nic["header_split"] = json!(true);
            nic["payload_mem"] = json!("nicmem");
            nic["tx_inline"] = json!(true);
        }
        go(json!({"traffic": {"rate": "100Gbps", "size": 1500}, "nic": nic, "cpu": {"cores": cores}}))
            .packets
            .throughput_gbps
    };
    let (free1, held1, held4) = (thr("0B", 1, false), thr("12KiB", 1, false), thr("12KiB", 4, false));
    assert!(held1 < 0.8 * free1, "one queue: {held1} Gbps with a 12 KiB share vs {free1} without");
    assert!(held4 > 0.95 * free1, "four queues: {held4} Gbps vs {free1}");
    let nm1 = thr("12KiB", 1, true);
    assert!(nm1 > 0.95 * free1, "one queue, nicmem payloads: {nm1} Gbps vs {free1}");
}

#[test]
fn accel_nfv_is_bounded_by_context_misses_and_leaves_the_cores_idle() {
    let run = |flows: u64, accel: bool| {
        go(
            json!({"traffic": {"rate": "100Gbps", "size": 1500, "flows": flows}, "nic": {"accel": accel, "ctx_cache_size": "1MiB"}, "cpu": {"cores": 2}, "app": {"nf": "flowcount"}}),
        )
    };
    let few = run(1000, true);
    assert_eq!(few.packets.drop_rate, 0.0);
    assert_eq!(few.core_util, 0.0);
    assert_eq!(
        few.packets.pcie_util.upstream, 0.0,
        "every context cached: no PCIe traffic"
    );
    // 16 Ki contexts fit; with 1 M flows nearly every frame misses and the
    // in-order engine waits a PCIe round trip for each.
    let many = run(1_000_000, true);
    assert!(
        many.packets.throughput_gbps < 0.5 * few.packets.throughput_gbps,
        "{}",
        many.packets.throughput_gbps
    );
    assert!(run(1_000_000, false).core_util > 0.0);
}

#[test]
fn rx_inlining_moves_the_header_into_a_128_byte_cqe() {
    // nmNFV with the header in the CQE: upstream the 64 B header and 64 B
    // CQE become one 128 B CQE (+ the 64 B Tx CQE), one TLP fewer per
    // frame; downstream the Rx descriptor loses its header scatter entry
    // (16 B instead of 32 B).
    let mut inl = config("nmnfv");
    inl["rx_inline"] = json!(true);
    let mut plain = config("nmnfv");
    for nic in [&mut inl, &mut plain] {
        nic["rx_cqe_comp"] = json!(false);
    }
    let slow = json!({"rate": "10Gbps", "size": 1500});
    let r = go(json!({"traffic": slow, "nic": inl.clone()}));
    let b = &r.packets.pcie_bytes_per_packet;
    assert!((b.upstream - 192.0).abs() < 2.0, "upstream {}", b.upstream);
    let down = 16.0 + 128.0 + 12.0 + 16.0;
    assert!((b.downstream - down).abs() < 2.0, "downstream {}", b.downstream);
    // At 100 Gbps of 256 B frames the saved TLP headers show in link use.
    let busy = json!({"rate": "100Gbps", "size": 256});
    let (ri, rp) = (go(json!({"traffic": busy, "nic": inl})), go(json!({"traffic": busy, "nic": plain})));
    assert!(ri.packets.pcie_util.upstream < rp.packets.pcie_util.upstream - 0.02,
            "upstream link use {} (inlined) vs {}", ri.packets.pcie_util.upstream, rp.packets.pcie_util.upstream);
    let bad = validate(&json!({"nic": {"rx_inline": true, "header_split": true, "split_offset": 128, "rx_cqe_comp": false}})).unwrap_err();
    assert!(bad.contains("more than the 64 B a 128 B CQE holds"), "{bad}");
    let bad = validate(&json!({"nic": {"rx_inline": true, "header_split": true, "rx_cqe_comp": true}})).unwrap_err();
    assert!(bad.starts_with("nic.rx_inline = true: needs nic.rx_cqe_comp = false"), "{bad}");
}
