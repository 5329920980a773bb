//! A scenario's parameters: the one table ([`table`]), and parsing scenario
//! JSON into its typed sections ([`parse`], [`typed`]). Checks that need a
//! component's knowledge (a flow table's footprint, a ring's layout) are the
//! run layer's (`run::check`).

pub mod parse;
pub mod table;
pub mod value;

pub use value::{Val, Values};
pub use table::*;

use serde_json::Value;

/// Parameters only one run kind reads (key or `section.` prefix, kind):
/// giving one for another kind is a mistake, not a no-op.
const KIND_KEYS: &[(&str, &str)] = &[
    ("pcie_bench.", "pcie_bench"),
    ("copy_bench.", "copy_bench"),
    ("dpa_bench.", "dpa"),
    ("netdimm.nic", "netdimm"),
    ("netdimm.traffic", "netdimm"),
    ("netdimm.size", "netdimm"),
    ("netdimm.messages", "netdimm"),
    ("netdimm.segmentation", "netdimm"),
    ("netdimm.app_buffers", "netdimm"),
    ("netdimm.load", "netdimm"),
    ("netdimm.nf", "netdimm"),
];

/// The run kind that alone reads `key`, if one does.
pub fn kind_of(key: &str) -> Option<&'static str> {
    KIND_KEYS
        .iter()
        .find(|(k, _)| if k.ends_with('.') { key.starts_with(k) } else { key == *k })
        .map(|(_, kind)| *kind)
}

/// Parse a scenario into its flat values and typed sections; a parameter of
/// another run kind than `sim.kind` is an error naming both.
pub fn typed(scenario: &Value) -> Result<(Values, Cfg), String> {
    let (values, given) = parse::parse(scenario)?;
    let cfg = Cfg::from_values(&values);
    for key in given {
        match kind_of(key) {
            Some(kind) if kind != cfg.sim.kind => {
                return Err(format!(
                    "{key}: a parameter of sim.kind = {kind}, but sim.kind = {}; set sim.kind = {kind} or drop {key}",
                    cfg.sim.kind
                ))
            }
            _ => {}
        }
    }
    Ok((values, cfg))
}
