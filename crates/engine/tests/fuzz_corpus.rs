//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`, found by
//! cargo-fuzz runs) and the inputs of fixed findings (`fuzz/regressions/`)
//! through the fuzz targets' entry points on stable Rust, so `make test`
//! keeps what the fuzzers learnt: every input is refused with a one-line
//! error or accepted, and none panics.

use std::path::PathBuf;

use arbitrary::{Arbitrary, Unstructured};
use packetpath_engine::api::validate_json;
use packetpath_engine::traffic::read_pcap;

#[path = "../../../fuzz/common/scenario_input.rs"]
mod scenario_input;

/// Every file of a target's corpus and regressions.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut out = vec![];
    for dir in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else { continue };
        for e in entries {
            let path = e.unwrap().path();
            out.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn pcap_corpus() {
    let all = inputs("pcap");
    assert!(all.len() >= 10, "the pcap corpus is committed ({} files)", all.len());
    let mut ok = 0;
    for (path, bytes) in &all {
        match read_pcap(bytes, 40_000, 100_000) {
            Ok((frames, flows)) => {
                assert!(frames > 0 && flows > 0 && flows <= frames, "{path:?}");
                ok += 1;
            }
            Err(e) => assert!(!e.contains('\n'), "{path:?}: {e}"),
        }
    }
    assert!(ok > 0, "some corpus traces are valid");
}

#[test]
fn scenario_json_corpus() {
    let all = inputs("scenario_json");
    assert!(all.len() >= 10, "the scenario_json corpus is committed ({} files)", all.len());
    for (path, bytes) in &all {
        if let Ok(text) = std::str::from_utf8(bytes) {
            if let Err(e) = validate_json(text) {
                assert!(!e.contains('\n'), "{path:?}: {e}");
            }
        }
    }
}

#[test]
fn scenario_run_corpus() {
    let all = inputs("scenario_run");
    assert!(all.len() >= 10, "the scenario_run corpus is committed ({} files)", all.len());
    for (_, bytes) in &all {
        // As libfuzzer-sys decodes a typed input.
        if let Ok(input) = scenario_input::Input::arbitrary_take_rest(Unstructured::new(bytes)) {
            scenario_input::check(&input);
        }
    }
}
