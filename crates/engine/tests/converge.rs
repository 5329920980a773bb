//! `sim.until = converged` only shortens a run: its report is the report
//! of the run with `sim.duration` set to where it stopped (all but the
//! event count, which counts the batch boundaries, and the stop itself).

use packetpath_engine::api::run_json;
use serde_json::{json, Value};

fn run(v: &Value) -> Value {
    serde_json::from_str(&run_json(&v.to_string()).unwrap()).unwrap()
}

/// The report without what only the stopped run has.
fn body(mut r: Value) -> Value {
    let sim = r["sim"].as_object_mut().unwrap();
    sim.remove("events");
    sim.remove("convergence");
    r
}

#[test]
fn a_converged_run_reports_what_the_shorter_run_reports() {
    // Within 2 %, NAT at 200 Gbps converges before the cap; within
    // 0.01 %, l2fwd does not and runs to the cap.
    for (nf, rel, converges) in [("nat", 0.02, true), ("l2fwd", 0.0001, false)] {
        let base = json!({
            "nic": {"count": 2}, "cpu": {"cores": 4}, "app": {"nf": nf, "flow_table_size": 65536},
            "traffic": {"flows": 4096, "size": 1500},
            "sim": {"warmup": "0.5ms", "duration": "3ms"}
        });
        let mut stop = base.clone();
        stop["sim"]["until"] = json!("converged");
        stop["sim"]["batch"] = json!("100us");
        stop["sim"]["rel_error"] = json!(rel);
        let r = run(&stop);
        let c = r["sim"]["convergence"].clone();
        assert_eq!(c["converged"], json!(converges), "{nf}: {c}");
        let measured = c["measured_ps"].as_u64().unwrap();
        assert_eq!(measured % 100_000_000, 0, "stops at a batch boundary");
        if converges {
            assert!(measured < 3_000_000_000, "{nf} stopped early: {c}");
            assert!(c["throughput_rel_error"].as_f64().unwrap() <= rel);
            assert!(c["latency_rel_error"].as_f64().unwrap() <= rel);
        }
        let mut fixed = base.clone();
        fixed["sim"]["duration"] = json!(format!("{measured}ps"));
        assert_eq!(body(r), body(run(&fixed)), "{nf}");
    }
}

#[test]
fn a_run_without_the_stop_reports_no_convergence() {
    let r = run(&json!({"sim": {"warmup": "0.2ms", "duration": "0.5ms"}}));
    assert!(r["sim"].get("convergence").is_none());
}
