//! Scenarios built from the engine's own keys with values near and past
//! their limits: validated, and when valid run for a few microseconds. A
//! refusal is one line; a run either reports or names a broken invariant
//! (which is a finding too: the assertion below fails on it).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../common/scenario_input.rs"]
mod scenario_input;

fuzz_target!(|input: scenario_input::Input| {
    scenario_input::check(&input);
});
