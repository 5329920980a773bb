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

/// The run kinds with the memory controller (a packet run's, and NetDIMM's
/// Fig 12b co-runner's, with `dram.model = controller`).
const CONTROLLER: &[SimKind] = &[SimKind::MemBench, SimKind::Hostnet, SimKind::Packet, SimKind::Netdimm];

/// Of them, the kinds whose `dram.model` chooses the controllers (the
/// others are built on them).
pub const MODEL_CHOOSES: &[SimKind] = &[SimKind::Packet, SimKind::Netdimm];

/// Parameters only one run kind reads (key or `section.` prefix, kind):
/// giving one for another kind is a mistake, not a no-op.
const KIND_KEYS: &[(&str, &[SimKind])] = &[
    ("pcie_bench.", &[SimKind::PcieBench]),
    ("copy_bench.", &[SimKind::CopyBench]),
    ("mem_bench.", &[SimKind::MemBench]),
    ("hostnet.", &[SimKind::Hostnet]),
    ("iio.", &[SimKind::Hostnet]),
    ("cha.", &[SimKind::Hostnet]),
    ("antagonist.", &[SimKind::Packet]),
    // (the memory controller runs under mem_bench, hostnet, and packet and
    // netdimm runs with dram.model = controller; dram.speed stays free:
    // profiles name their DIMMs for every kind)
    ("dram.ranks", CONTROLLER),
    ("dram.page_policy", CONTROLLER),
    ("dram.read_queue", CONTROLLER),
    ("dram.write_queue", CONTROLLER),
    ("dram.bank_queue", CONTROLLER),
    ("dram.write_high", CONTROLLER),
    ("dram.write_low", CONTROLLER),
    ("dram.write_idle", CONTROLLER),
    ("dpa_bench.", &[SimKind::Dpa]),
    ("netdimm.nic", &[SimKind::Netdimm]),
    ("netdimm.traffic", &[SimKind::Netdimm]),
    ("netdimm.size", &[SimKind::Netdimm]),
    ("netdimm.messages", &[SimKind::Netdimm]),
    ("netdimm.segmentation", &[SimKind::Netdimm]),
    ("netdimm.app_buffers", &[SimKind::Netdimm]),
    ("netdimm.load", &[SimKind::Netdimm]),
    ("netdimm.nf", &[SimKind::Netdimm]),
];

/// The run kinds that alone read `key`, if any do.
pub fn kind_of(key: &str) -> Option<&'static [SimKind]> {
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
            Some(kinds) if !kinds.contains(&cfg.sim.kind) => {
                let names: Vec<&str> = kinds.iter().map(|k| k.word()).collect();
                return Err(format!(
                    "{key}: a parameter of sim.kind = {}, but sim.kind = {}; set sim.kind = {} or drop {key}",
                    names.join(" or "),
                    cfg.sim.kind,
                    kinds[0]
                ));
            }
            Some(kinds) if kinds == CONTROLLER && MODEL_CHOOSES.contains(&cfg.sim.kind) && cfg.dram.model != DramModel::Controller => {
                return Err(format!(
                    "{key}: a parameter of the memory controller, but dram.model = {}; set dram.model = controller or drop {key}",
                    cfg.dram.model
                ));
            }
            _ => {}
        }
    }
    Ok((values, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_parameter_of_another_run_kind_is_an_error_naming_both() {
        // The review's example: three kinds' selectors at once used to run
        // pcie_bench alone and report zeros for the rest.
        let e = typed(&json!({"pcie_bench": {"mode": "read"}, "netdimm": {"nic": "dnic"}, "dpa_bench": {"workload": "compute"}}))
            .unwrap_err();
        assert!(e.contains("a parameter of sim.kind = ") && e.contains("but sim.kind = packet"), "{e}");
        let e = typed(&json!({"sim": {"kind": "pcie_bench"}, "pcie_bench": {"mode": "read"}, "netdimm": {"nic": "dnic"}})).unwrap_err();
        assert_eq!(e, "netdimm.nic: a parameter of sim.kind = netdimm, but sim.kind = pcie_bench; set sim.kind = netdimm or drop netdimm.nic");
        let (_, cfg) = typed(&json!({"sim": {"kind": "pcie_bench"}, "pcie_bench": {"mode": "write"}})).unwrap();
        assert_eq!((cfg.sim.kind, cfg.pcie_bench.mode), (SimKind::PcieBench, PcieBenchMode::Write));
        // hardware shared by every kind may be set for any of them
        assert!(typed(&json!({"sim": {"kind": "netdimm"}, "netdimm": {"ranks": 4}, "llc": {"ways": 11}})).is_ok());
        let e = typed(&json!({"sim": {"kind": "world"}})).unwrap_err();
        assert!(e.starts_with("sim.kind = world: expected one of packet, pcie_bench, copy_bench, dpa, netdimm"), "{e}");
    }

    #[test]
    fn every_kind_key_names_a_parameter() {
        for (key, _) in KIND_KEYS {
            assert!(PARAMS.iter().any(|p| p.key.starts_with(key)), "{key}");
        }
    }
}
