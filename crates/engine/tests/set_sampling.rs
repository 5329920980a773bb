//! LLC set sampling against the full model on whole runs: sampling 1 in 1
//! is the full model, byte for byte; sampling 1 in 8 stays within the
//! error bounds the parameter documents (hit rates within 2 percentage
//! points, throughput within 5 %, p99 latency within 10 %).

use packetpath_engine::api::run_json;
use serde_json::{json, Value};

fn run(v: &Value) -> Value {
    serde_json::from_str(&run_json(&v.to_string()).unwrap()).unwrap()
}

fn with_sample(mut v: Value, n: u64) -> Value {
    v["llc"]["set_sample"] = json!(n);
    v
}

#[test]
fn sampling_one_in_one_is_the_full_model() {
    let s = json!({"traffic": {"size": 1500, "rate": "100Gbps"}, "cpu": {"cores": 2}, "llc": {},
                   "sim": {"warmup": "0.5ms", "duration": "1ms"}});
    assert_eq!(
        run_json(&s.to_string()).unwrap(),
        run_json(&with_sample(s, 1).to_string()).unwrap()
    );
}

#[test]
fn sampled_runs_stay_within_the_stated_error() {
    // Leaky DMA (a 4096-entry ring overflows the 2 DDIO ways: write hit
    // rate well inside (0, 1)) and a NAT whose flow tables miss the LLC.
    for s in [
        json!({"traffic": {"size": 1500, "rate": "100Gbps"}, "cpu": {"cores": 1}, "nic": {"rx_ring_size": 4096},
               "llc": {}, "sim": {"warmup": "1ms", "duration": "2ms"}}),
        json!({"traffic": {"size": 1500, "rate": "100Gbps", "flows": 100000}, "cpu": {"cores": 4},
               "app": {"nf": "nat"}, "llc": {}, "sim": {"warmup": "1ms", "duration": "2ms"}}),
    ] {
        let full = run(&s);
        let part = run(&with_sample(s.clone(), 8));
        for key in ["pcie_write_hit_rate", "pcie_read_hit_rate"] {
            let (a, b) = (full[key].as_f64().unwrap(), part[key].as_f64().unwrap());
            assert!((a - b).abs() <= 0.02, "{key}: full {a}, sampled {b} ({s})");
        }
        let (a, b) = (
            full["throughput_gbps"].as_f64().unwrap(),
            part["throughput_gbps"].as_f64().unwrap(),
        );
        assert!(
            (a - b).abs() <= 0.05 * a,
            "throughput: full {a}, sampled {b}"
        );
        let (a, b) = (
            full["latency_ns"]["p99"].as_f64().unwrap(),
            part["latency_ns"]["p99"].as_f64().unwrap(),
        );
        assert!((a - b).abs() <= 0.10 * a, "p99: full {a}, sampled {b}");
        println!(
            "write hit {:.4} vs {:.4}, read hit {:.4} vs {:.4}, misses/pkt {:.3} vs {:.3}",
            full["pcie_write_hit_rate"],
            part["pcie_write_hit_rate"],
            full["pcie_read_hit_rate"],
            part["pcie_read_hit_rate"],
            full["llc_misses_per_packet"],
            part["llc_misses_per_packet"]
        );
    }
}
