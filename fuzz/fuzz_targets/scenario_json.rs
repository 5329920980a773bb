//! Arbitrary text as a scenario: a validated config or a one-line error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = packetpath_engine::api::validate_json(text) {
            assert!(!e.contains('\n'), "{e}");
        }
    }
});
