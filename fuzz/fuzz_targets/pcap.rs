//! Arbitrary bytes as a pcap trace: a trace or a one-line error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = packetpath_engine::traffic::read_pcap(data, 40_000, 100_000) {
        assert!(!e.contains('\n'), "{e}");
    }
});
