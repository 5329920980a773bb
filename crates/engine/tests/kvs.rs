//! The MICA-like server and nmKVS: PCIe bytes per response against the
//! response layouts, and the copies baseline MICA makes.

use serde_json::{json, Value};
use packetpath_engine::config::Cfg;
use packetpath_engine::report::PacketReport as Report;
use packetpath_engine::run::validated as validate;

/// A packet run's report.
fn run(c: &Cfg) -> Result<Report, String> {
    packetpath_engine::run::run(c).map(|r| r.into_packet().expect("a packet run"))
}


fn kvs(hot_area: &str, extra: Value) -> Report {
    let mut v = json!({
        "cpu": {"cores": 1},
        "app": {"nf": "kvs"},
        "kvs": {"hot_area": hot_area, "value_size": "1KiB"},
        "nic": {"nicmem_capacity": "64MiB"},
        "traffic": {"rate": "2Gbps", "size": 200, "flows": 1000, "flow_popularity": "hot", "hot_flows": 16, "hot_share": 1.0},
        "sim": {"warmup": "0.2ms", "duration": "0.5ms"},
    });
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    run(&validate(&v).unwrap()).unwrap()
}

#[test]
fn a_hot_get_sends_its_value_from_nicmem_not_over_pcie() {
    // One GET at a time: the response is 1094 B; baseline MICA's leaves
    // host memory over PCIe, nmKVS's value (1024 B) stays on the NIC.
    let base = kvs("0", json!({}));
    let nm = kvs("16KiB", json!({}));
    assert_eq!(base.packets.drop_rate, 0.0);
    let (b, n) = (base.packets.pcie_bytes_per_packet.downstream, nm.packets.pcie_bytes_per_packet.downstream);
    assert!((b - n - 1024.0).abs() < 8.0, "downstream B/response: MICA {b}, nmKVS {n}");
    // Same responses on the wire.
    assert!((base.packets.throughput_gbps - nm.packets.throughput_gbps).abs() < 0.05);
}

#[test]
fn sets_to_hot_items_keep_the_protocol_consistent_under_load() {
    // Half SETs, all at 16 hot items, at a load that queues responses: the
    // run's invariants (every stable-buffer reference is a queued zero-copy
    // response) hold, and the copy-pending fallback keeps GETs flowing.
    let r = kvs(
        "16KiB",
        json!({"traffic": {"rate": "60Gbps", "size_dist": "bimodal", "bimodal_small": 200, "bimodal_large": 1224,
                            "bimodal_small_share": 0.5, "flows": 1000, "flow_popularity": "hot", "hot_flows": 16, "hot_share": 1.0}}),
    );
    assert!(r.packets.throughput_gbps > 1.0);
}

#[test]
fn bad_kvs_inputs_name_the_key() {
    let e = validate(&json!({"app": {"nf": "kvs"}, "kvs": {"hot_area": "1MiB"}})).unwrap_err();
    assert!(e.starts_with("kvs.hot_area = 1048576 B: more than the NIC's nicmem"), "{e}");
    let e = validate(&json!({"traffic": {"flows": 10, "flow_popularity": "hot", "hot_flows": 20}})).unwrap_err();
    assert!(e.starts_with("traffic.hot_flows = 20: more hot items than traffic.flows = 10"), "{e}");
    let e = validate(&json!({"app": {"nf": "kvs"}, "traffic": {"flows": 10}, "nic": {"nicmem_capacity": "1MiB"}, "kvs": {"hot_area": "1MiB"}})).unwrap_err();
    assert!(e.starts_with("kvs.hot_area = 1048576 B: holds 1024 hot items, more than the 10 items"), "{e}");
}

#[test]
fn gets_aimed_at_cold_keys_miss_the_hot_area() {
    // All GETs (bimodal small frames), hot_share 1 for SETs only: every GET
    // misses nicmem, so nmKVS sends the same PCIe bytes as MICA (Fig 16's
    // "nohit"); without hot_share_small the GETs hit and save the value.
    let gets = |small: f64| {
        json!({"traffic": {"rate": "2Gbps", "size_dist": "bimodal", "bimodal_small": 200, "bimodal_large": 1224,
                           "bimodal_small_share": 1.0, "flows": 1000, "flow_popularity": "hot", "hot_flows": 16,
                           "hot_share": 1.0, "hot_share_small": small}})
    };
    let down = |r: Report| r.packets.pcie_bytes_per_packet.downstream;
    let (base, nohit, allhit) = (down(kvs("0", gets(0.0))), down(kvs("16KiB", gets(0.0))), down(kvs("16KiB", gets(-1.0))));
    assert!((base - nohit).abs() < 8.0, "MICA {base}, nmKVS nohit {nohit}");
    assert!((base - allhit - 1024.0).abs() < 8.0, "MICA {base}, nmKVS allhit {allhit}");
    let bad = validate(&json!({"traffic": {"hot_share_small": 0.5}})).unwrap_err();
    assert!(bad.starts_with("traffic.hot_share_small = 0.5: needs flow_popularity = hot and size_dist = bimodal"), "{bad}");
}

#[test]
fn a_closed_loop_client_keeps_its_window_of_requests_outstanding() {
    let closed = |window: u64| kvs("0", json!({"traffic": {"size": 200, "flows": 1000, "flow_popularity": "hot", "hot_flows": 16,
                                                          "hot_share": 1.0, "closed_loop": window, "client_turnaround": "2us"}}));
    // One outstanding request: each cycle is the request's wire time, the
    // server's latency (first bit in to last bit out) and the turnaround.
    let one = closed(1);
    let wire_ns = (200.0 + 20.0) * 8.0 / 100.0;
    let cycle_ns = one.packets.latency_ns.as_ref().unwrap().mean + 2000.0 + wire_ns;
    let pps = 1e9 / cycle_ns;
    assert!((one.packets.rx_pps / pps - 1.0).abs() < 0.02, "{} req/s vs {pps}", one.packets.rx_pps);
    assert_eq!(one.packets.drop_rate, 0.0);
    // Four outstanding: about four times the requests, at a higher latency
    // only from queueing behind each other.
    let four = closed(4);
    let ratio = four.packets.rx_pps / one.packets.rx_pps;
    assert!(ratio > 3.0 && ratio <= 4.05, "{ratio}");
    assert!(four.packets.latency_ns.as_ref().unwrap().mean >= one.packets.latency_ns.as_ref().unwrap().mean);
}
