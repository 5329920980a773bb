//! A fuzzer's scenario: (parameter, value) pairs over the engine's
//! parameter table, so inputs reach the cross-field checks and the engine
//! rather than stopping at JSON syntax. Shared by the `scenario_run` target
//! and the corpus replay test.

use arbitrary::Arbitrary;
use packetpath_engine::api::{run_json, validate_json};
use packetpath_engine::config::PARAMS;
use serde_json::{json, Map, Value};

#[derive(Arbitrary, Debug)]
pub struct Input {
    pub pairs: Vec<(u16, Val)>,
}

#[derive(Arbitrary, Debug)]
pub enum Val {
    Int(i64),
    Small(u8),
    Float(f64),
    Bool(bool),
    /// A number with one of the units the table uses.
    WithUnit(u32, u8),
    Text(String),
    List(Vec<u16>),
    /// The parameter's own default or limits.
    Default,
    Min,
    Max,
}

const UNITS: &[&str] = &["", "B", "KiB", "MiB", "ns", "us", "ms", "s", "Gbps", "Mbps", "GHz", "MB/s", "x"];

fn value(i: usize, v: &Val) -> Value {
    let p = &PARAMS[i];
    match v {
        Val::Int(n) => json!(n),
        Val::Small(n) => json!(n),
        Val::Float(x) if x.is_finite() => json!(x),
        Val::Float(_) => json!("NaN"),
        Val::Bool(b) => json!(b),
        Val::WithUnit(n, u) => json!(format!("{n}{}", UNITS[*u as usize % UNITS.len()])),
        Val::Text(s) => json!(s),
        Val::List(l) => json!(l),
        Val::Default => json!(p.default),
        Val::Min => json!(p.min),
        Val::Max => json!(p.max),
    }
}

/// The scenario the input describes, kept short and small so every run
/// takes milliseconds: a few microseconds simulated, few flows.
pub fn scenario(input: &Input) -> Value {
    let mut m = Map::new();
    for (k, v) in &input.pairs {
        let i = *k as usize % PARAMS.len();
        m.insert(PARAMS[i].key.to_string(), value(i, v));
    }
    for (k, v) in [("sim.warmup", json!("2us")), ("sim.duration", json!("5us"))] {
        m.insert(k.into(), v);
    }
    if m.get("traffic.flows").and_then(Value::as_u64).is_some_and(|f| f > 4096) {
        m.insert("traffic.flows".into(), json!(4096));
    }
    // Benchmarks loop on their own counts, not simulated time: keep them small.
    for (k, v) in [
        ("pcie_bench.transfers", json!(16)),
        ("copy_bench.iterations", json!(2)),
        ("copy_bench.size", json!("4KiB")),
        ("netdimm.messages", json!(8)),
        ("dpa_bench.accesses", json!(64)),
        ("dpa_bench.compute_ops", json!(64)),
        ("dpa_bench.packets", json!(16)),
        ("dpa_bench.working_set", json!("64KiB")),
        ("dpa_bench.kv_keys", json!(1024)),
    ] {
        m.insert(k.into(), v);
    }
    Value::Object(m)
}

pub fn check(input: &Input) {
    let text = scenario(input).to_string();
    match validate_json(&text) {
        Err(e) => assert!(!e.contains('\n'), "{e}"),
        Ok(_) => {
            if let Err(e) = run_json(&text) {
                // Only a config the validator let through but the engine
                // refuses is acceptable here, and it must be one line.
                assert!(!e.contains('\n') && !e.contains("invariant"), "{text}: {e}");
            }
        }
    }
}
