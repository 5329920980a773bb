//! Checks that involve more than one parameter, or a component's own
//! knowledge (a flow table's footprint, a WQE's layout, PAUSE headroom).
//! They run after parsing and before any component is built. A device's or
//! an NF's checks of its own section live beside it (`mem::check`, `nic::check`,
//! `traffic::check`,
//! `devices::dpa::check`, `devices::netdimm::check`, `nf::kvs::check`) and
//! are called from here.

use crate::config::{AppNf, DpaBenchWorkload, NicPayloadMem, SimKind, SimUntil, TrafficSizeDist};
use crate::config::Cfg;

fn pow2(key: &str, v: u64) -> Result<(), String> {
    if v.is_power_of_two() {
        Ok(())
    } else {
        Err(format!(
            "{key} = {v}: must be a power of two (e.g. {} or {})",
            v.next_power_of_two() / 2,
            v.next_power_of_two()
        ))
    }
}

/// Checks that involve more than one parameter.
pub fn cross_check(c: &Cfg) -> Result<(), String> {
    if c.sim.kind == SimKind::Hostnet {
        super::hostnet::check(c)?;
    }
    if c.sim.kind == SimKind::MemBench {
        super::mem_bench::check(c)?;
    }
    for (k, v) in [
        ("nic.rx_ring_size", c.nic.rx_ring_size),
        ("nic.tx_ring_size", c.nic.tx_ring_size),
        ("pcie.mps", c.pcie.mps),
        ("pcie.mrrs", c.pcie.mrrs),
    ] {
        pow2(k, v)?;
    }
    crate::mem::check::check(c)?;
    let batches = crate::run::packet::converge::MIN_BATCHES as u64;
    if c.sim.until == SimUntil::Converged && c.sim.duration / c.sim.batch < batches {
        return Err(format!(
            "sim.batch = {}us: sim.until = converged needs at least {batches} batches in sim.duration = {}us; shorten the batch or lengthen the duration",
            c.sim.batch as f64 / 1e6, c.sim.duration as f64 / 1e6
        ));
    }
    if c.traffic.rate > c.nic.line_rate {
        return Err(format!(
            "traffic.rate = {}Gbps: above nic.line_rate = {}Gbps",
            c.traffic.rate as f64 / 1e3,
            c.nic.line_rate as f64 / 1e3
        ));
    }
    let nics = c.nic.count;
    let cores = c.cpu.cores * nics + c.corunner.enabled as u64 + c.antagonist.cores;
    if cores > c.cpu.max_cores {
        let corunner = if c.corunner.enabled { " + 1 co-runner" } else { "" };
        let antagonists = match c.antagonist.cores {
            0 => String::new(),
            a => format!(" + {a} antagonist(s)"),
        };
        return Err(format!(
            "cpu.cores = {}: cores per NIC; {} NIC(s) x {} cores{corunner}{antagonists} = {cores} exceeds the socket's cpu.max_cores = {} (at most {} per NIC here)",
            c.cpu.cores,
            nics,
            c.cpu.cores,
            c.cpu.max_cores,
            c.cpu.max_cores.saturating_sub(c.corunner.enabled as u64 + c.antagonist.cores) / nics.max(1)
        ));
    }
    for (key, list) in [("nic.remote_socket", &c.nic.remote_socket), ("nic.ddio", &c.nic.ddio)] {
        if list.len() as u64 > nics {
            return Err(format!("{key}: {} entries for nic.count = {nics}", list.len()));
        }
    }
    if c.llc.cat_masks.as_slice().len() as u64 > nics {
        return Err(format!(
            "llc.cat_masks: {} entries for nic.count = {nics}",
            c.llc.cat_masks.as_slice().len()
        ));
    }
    let max_frame = crate::traffic::check::check(c)?;
    let data_room = c.mempool.mbuf_size
        .saturating_sub(crate::cpu::mempool::DATA_OFFSET);
    if max_frame > data_room && c.traffic.size_dist != TrafficSizeDist::Pcap {
        return Err(format!(
            "mempool.mbuf_size = {}: a {max_frame} B frame needs at least {} B (320 B of headers and headroom + the frame)",
            c.mempool.mbuf_size,
            max_frame + crate::cpu::mempool::DATA_OFFSET
        ));
    }
    crate::nic::check::check(c, max_frame)?;
    check_rings(c)?;
    crate::nf::kvs::check(c)?;
    let mut rings = c.cpu.cores / c.rings.sharing;
    if c.rings.dynamic {
        rings += c.cpu.cores; // the private set too
    }
    let per_nic_bufs = rings * c.nic.rx_ring_size
        + c.cpu.cores * c.mempool.cache
        + c.app.tx_burst;
    if c.mempool.size < per_nic_bufs {
        return Err(format!(
            "mempool.size = {}: the Rx rings and per-core caches of one NIC hold {per_nic_bufs} buffers; give at least that",
            c.mempool.size
        ));
    }
    // The model's physical address space is 64 GiB (cache tags are 30-bit).
    // A split frame's payload pool is a second pool of the same size.
    let pools = c.nic.count
        * c.mempool.size
        * c.mempool.mbuf_size
        * if c.nic.header_split { 2 } else { 1 };
    let tables = {
        let (b, k) = crate::nf::flowtable::FlowTable::footprint(c.app.flow_table_size);
        flow_tables_per_core(c) * c.nic.count * c.cpu.cores * (b + k)
    };
    if c.antagonist.buffer % 64 != 0 {
        return Err(format!(
            "antagonist.buffer = {} B: a whole number of 64 B lines (a loop touches lines), e.g. {} B",
            c.antagonist.buffer,
            c.antagonist.buffer.div_ceil(64) * 64
        ));
    }
    let antagonists = c.antagonist.cores * c.antagonist.buffer;
    let host = pools + tables + c.app.wp_size + c.corunner.buffer + antagonists + (64 << 20);
    if host > 60 << 30 {
        // name the largest part: that is what to change
        let parts = [
            ("mempool.size", c.mempool.size, "packet pools", pools),
            ("app.flow_table_size", c.app.flow_table_size, "flow tables", tables),
            ("app.wp_size", c.app.wp_size, "the WorkPackage array", c.app.wp_size),
            ("corunner.buffer", c.corunner.buffer, "the co-runner's buffer", c.corunner.buffer),
            ("antagonist.buffer", c.antagonist.buffer, "the antagonists' buffers", antagonists),
        ];
        let (key, value, what, bytes) = parts.iter().max_by_key(|p| p.3).expect("parts");
        return Err(format!(
            "{key} = {value}: {what} ({:.1} GiB) with the rest of host memory ({:.1} GiB in all) exceed the 60 GiB of host memory the model addresses",
            crate::units::gib(*bytes),
            crate::units::gib(host)
        ));
    }
    crate::devices::netdimm::check::check(c)?;
    check_preload(c)?;
    if c.sim.warmup + c.sim.duration > 100 * crate::units::S {
        return Err("sim.duration + sim.warmup: at most 100 s of simulated time".into());
    }
    crate::devices::dpa::check::check(c)
}

/// Flow tables each core's NF keeps.
fn flow_tables_per_core(c: &Cfg) -> u64 {
    crate::nf::flow_tables_per_core(c.app.nf)
}

/// One big part of the simulator's own memory: the parameter that sizes
/// it (and its value), what it is, and its bytes.
pub struct MemoryPart {
    pub key: &'static str,
    pub value: u64,
    pub what: &'static str,
    pub bytes: u64,
}

/// The simulator's own memory for a run of any kind, by its big parts: a
/// packet run's flow tables, cache tags, flow records, route table and
/// timeline; a microbenchmark's cache tags and per-packet or per-access
/// records (DPA round trips and completions).
pub fn memory_estimate(c: &Cfg) -> Vec<MemoryPart> {
    let part = |key, value, what, bytes| MemoryPart { key, value, what, bytes };
    match c.sim.kind {
        SimKind::Packet => packet_memory(c),
        SimKind::Dpa => {
            let (b, threads) = (&c.dpa_bench, c.dpa_bench.threads as u64);
            // round trips and recency probes keep one record per packet;
            // bandwidth, each access's completion time (its warm-up: at most 600 K)
            let per_packet = matches!(b.workload, DpaBenchWorkload::Latency | DpaBenchWorkload::Clocksync | DpaBenchWorkload::Recency) as u64 * b.packets.saturating_mul(16);
            let per_access =
                (b.workload == DpaBenchWorkload::Bandwidth) as u64 * threads.saturating_mul(b.accesses).max(600_000).saturating_mul(8);
            vec![
                part("llc.size", c.llc.size, "cache tags", tag_bytes(c, 1)),
                part("dpa_bench.packets", b.packets, "per-packet records", per_packet),
                part("dpa_bench.accesses", b.accesses, "per-access completions", per_access),
            ]
        }
        SimKind::PcieBench | SimKind::CopyBench | SimKind::Netdimm | SimKind::MemBench | SimKind::Hostnet => {
            vec![part("llc.size", c.llc.size, "cache tags", tag_bytes(c, 2))]
        }
    }
}

/// The cache model's tag arrays for `cores` cores (their L2s and the LLC): per
/// cached line its tag, rank and sharer bits, ~16 B with padding.
fn tag_bytes(c: &Cfg, cores: u64) -> u64 {
    (c.llc.size / 64 + (cores + 1) * c.l2.size / 64) * 16
}

fn packet_memory(c: &Cfg) -> Vec<MemoryPart> {
    let nics = c.nic.count;
    let cores = nics * c.cpu.cores;
    let tables = flow_tables_per_core(c) * cores * crate::nf::flowtable::FlowTable::host_bytes(c.app.flow_table_size);
    let period = c.sim.sample_period;
    let samples = if period == 0 { 0 } else { (c.sim.warmup + c.sim.duration) / period + 1 };
    let part = |key, value, what, bytes| MemoryPart { key, value, what, bytes };
    // l3fwd's LPM: a /24 is one tbl24 entry, a shorter prefix up to 256, a
    // longer one a 256-entry tbl8 group: ~512 B a route, rounded up.
    let routes = if c.app.nf == AppNf::L3fwd { c.app.l3fwd_routes * 512 } else { 0 };
    vec![
        part("app.flow_table_size", c.app.flow_table_size, "flow tables", tables),
        part("llc.size", c.llc.size, "cache tags", tag_bytes(c, cores)),
        part("traffic.flows", c.traffic.flows, "flow records", nics * c.traffic.flows * 16),
        part(
            "sim.sample_period",
            period,
            "timeline samples",
            samples.saturating_mul(std::mem::size_of::<crate::report::Sample>() as u64),
        ),
        part("app.l3fwd_routes", c.app.l3fwd_routes, "route table", routes),
    ]
}

/// Preloaded flow tables must hold their flows: an overfull cuckoo table
/// makes every preloaded insert run out its kicks (minutes of build for a
/// table no long-running NF would have).
fn check_preload(c: &Cfg) -> Result<(), String> {
    let per_flow = crate::nf::entries_per_flow(c.app.nf);
    if !c.app.preload_flows || per_flow == 0 {
        return Ok(());
    }
    let (flows, cores, size) = (c.traffic.flows, c.cpu.cores, c.app.flow_table_size);
    let need = (flows * per_flow).div_ceil(cores);
    if need > size {
        return Err(format!(
            "app.flow_table_size = {size}: too small to preload traffic.flows = {flows} (about {need} entries per core: \
             {per_flow} per flow over the {cores} cores of a NIC); give at least {need}, fewer flows, or app.preload_flows = false"
        ));
    }
    Ok(())
}

/// Shared rings: whole groups of cores, and a driver that can share.
fn check_rings(c: &Cfg) -> Result<(), String> {
    let (n, cores) = (c.rings.sharing, c.cpu.cores);
    if cores % n != 0 {
        return Err(format!(
            "rings.sharing = {n}: must divide cpu.cores = {cores} (each ring is shared by a whole group of cores)"
        ));
    }
    if c.rings.dynamic {
        if n == 1 {
            return Err("rings.dynamic = true: needs rings.sharing > 1 (the shared rings to switch to)".into());
        }
        if c.nic.payload_mem == NicPayloadMem::Nicmem {
            return Err("rings.dynamic = true: not supported with nic.payload_mem = nicmem".into());
        }
    }
    Ok(())
}


#[cfg(test)]
mod tests {
    use crate::run::validated as validate;
    use serde_json::json;

    #[test]
    fn wqe_sizes_follow_the_mlx5_layout() {
        let wqe = |v: serde_json::Value| crate::nic::tx_wqe_bytes(&validate(&v).unwrap().nic);
        assert_eq!(wqe(json!({})), 64);
        assert_eq!(wqe(json!({"nic.header_split": true})), 64);
        assert_eq!(
            wqe(json!({"nic.header_split": true, "nic.tx_inline": true})),
            128
        );
        assert_eq!(
            wqe(json!({"nic.header_split": true, "nic.tx_inline": true, "nic.split_offset": 200})),
            256
        );
    }

    #[test]
    fn nicmem_bad_inputs_name_the_key() {
        let err = |v: serde_json::Value| validate(&v).unwrap_err();
        assert!(err(json!({"nic.payload_mem": "nicmem"})).starts_with("nic.payload_mem"));
        assert!(
            err(json!({"nic.header_split": true, "nic.split_offset": 2000}))
                .starts_with("nic.split_offset = 2000")
        );
        assert!(err(json!({"nic.header_split": true, "nic.tx_inline": true, "nic.split_offset": 1400, "nic.max_wqe_size": 1024})).contains("max_wqe_size"));
        assert!(
            err(json!({"nic.host_queues": 3, "cpu.cores": 2})).starts_with("nic.host_queues = 3")
        );
        assert!(err(json!({"nic.accel": true, "app.nf": "nat"})).starts_with("nic.accel"));
        assert!(err(json!({"traffic.target_size": 40})).starts_with("traffic.target_size = 40 B"));
        assert!(err(json!({"nic.nicmem_size": "1MiB"}))
            .starts_with("nic.nicmem_size = 1048576 B: more than"));
        assert!(err(
            json!({"nic.header_split": true, "nic.payload_mem": "nicmem", "nic.nicmem_size": 1024})
        )
        .starts_with("nic.nicmem_size"));
    }

    #[test]
    fn defaults_validate() {
        let c = validate(&json!({})).unwrap();
        assert_eq!(c.llc.ways, 11);
        assert_eq!(c.traffic.rate, 100_000);
        assert_eq!(c.sim.duration, 5 * crate::units::MS);
    }

    #[test]
    fn nested_and_flat_keys_agree() {
        let a = validate(&json!({"llc": {"ddio_ways": 4}})).unwrap();
        let b = validate(&json!({"llc.ddio_ways": 4})).unwrap();
        assert_eq!(a.llc.ddio_ways, 4);
        assert_eq!(b.llc.ddio_ways, 4);
    }

    #[test]
    fn unknown_key_suggests() {
        let e = validate(&json!({"nic": {"rx_ring_sz": 64}})).unwrap_err();
        assert!(
            e.contains("unknown parameter 'nic.rx_ring_sz'")
                && e.contains("did you mean 'nic.rx_ring_size'"),
            "{e}"
        );
    }

    #[test]
    fn errors_stay_one_line_and_list_each_section_once() {
        // Found by the scenario_json fuzzer: a key with a newline.
        let e = validate(&json!({"8e\ng_si": "nat", "x": 1})).unwrap_err();
        assert!(!e.contains('\n') && e.contains("unknown parameter '8e\\ng_si'"), "{e}");
        let sections: Vec<&str> = e.split("sections are ").nth(1).unwrap().split(", ").collect();
        let mut unique = sections.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), sections.len(), "{e}");
        let e = validate(&json!({"traffic": {"size_dist": "a\nb"}})).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
    }

    #[test]
    fn impossible_values_are_named() {
        let e = validate(&json!({"llc": {"ddio_ways": 12}})).unwrap_err();
        assert!(e.starts_with("llc.ddio_ways = 12"), "{e}");
        let e = validate(&json!({"nic": {"rx_ring_size": 1000}})).unwrap_err();
        assert!(e.contains("power of two"), "{e}");
        let e = validate(&json!({"traffic": {"rate": "200Gbps"}})).unwrap_err();
        assert!(e.contains("above nic.line_rate"), "{e}");
        let e = validate(&json!({"traffic": {"rate": "fastGbps"}})).unwrap_err();
        assert!(e.starts_with("traffic.rate = "), "{e}");
        let e = validate(&json!({"traffic": {"rate": 100}})).unwrap_err();
        assert!(e.contains("give a unit"), "{e}");
    }

    #[test]
    fn host_memory_beyond_the_model_is_refused() {
        let e = validate(&json!({"mempool": {"size": 40_000_000}})).unwrap_err();
        assert!(
            e.starts_with("mempool.size = 40000000") && e.contains("60 GiB"),
            "{e}"
        );
        // the largest part is named, not the pools that did not overflow
        let e = validate(&json!({"app": {"nf": "workpackage", "wp_size": "100GB"}})).unwrap_err();
        assert!(e.starts_with("app.wp_size = 100000000000: the WorkPackage array"), "{e}");
    }

    #[test]
    fn preloaded_flow_tables_must_hold_their_flows() {
        // 4 M flows x 2 entries over 7 cores: 1.14 M entries in tables of 1 Mi
        let nat = json!({"app": {"nf": "nat"}, "traffic": {"flows": 4_000_000}, "cpu": {"cores": 7}, "nic": {"count": 2}});
        let e = validate(&nat).unwrap_err();
        assert!(e.starts_with("app.flow_table_size = 1048576: too small to preload traffic.flows = 4000000 (about 1142858 entries"), "{e}");
        let mut lb = nat.clone();
        lb["app"]["nf"] = json!("lb");
        assert!(validate(&lb).is_ok(), "LB keeps one entry per flow: 571 k per core fits");
        let mut lazy = nat.clone();
        lazy["app"]["preload_flows"] = json!(false);
        assert!(validate(&lazy).is_ok(), "tables that fill during the run may overflow");
    }

    #[test]
    fn a_pcap_without_pcap_sizes_is_refused() {
        let e = validate(&json!({"traffic": {"pcap": "trace.pcap"}})).unwrap_err();
        assert!(e.starts_with("traffic.pcap = trace.pcap: only read with traffic.size_dist = pcap (now fixed)"), "{e}");
    }

    #[test]
    fn whole_bytes_and_phases_within_the_run() {
        let e = validate(&json!({"traffic": {"size": 64.5}})).unwrap_err();
        assert!(e.starts_with("traffic.size = 64.5: must be a whole number of bytes"), "{e}");
        assert!(validate(&json!({"traffic": {"size": "1.5KiB"}})).is_ok(), "1536 B is whole");
        let e = validate(&json!({"traffic": {"phase_at": ["8ms"], "phase_rate": ["10Gbps"]}})).unwrap_err();
        assert!(e.starts_with("traffic.phase_at = 8000000000ps: at or after the run's end"), "{e}");
        assert!(validate(&json!({"traffic": {"phase_at": ["6ms"], "phase_rate": ["10Gbps"]}})).is_ok());
    }

    #[test]
    fn lists_parse_from_text_and_arrays() {
        let c = validate(&json!({"nic": {"count": 2, "remote_socket": "false,true"}, "llc": {"cat_masks": ["0x0ff", 3]}, "corunner": {"cat_mask": "0x030"}})).unwrap();
        assert_eq!(c.corunner.cat_mask, 0x30);
        assert_eq!(c.nic.remote_socket.as_slice(), &[false, true]);
        assert_eq!(c.llc.cat_masks.as_slice(), &[0xff, 3]);
    }

}
