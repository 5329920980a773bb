//! The BlueField-3 section's own checks (`dpa.*`, `arm.*`, `dpa_bench.*`):
//! cache geometries, thread counts, the memories a workload may combine.

use crate::config::{Cfg, DpaBenchMem2, DpaBenchNetMode, DpaBenchProc, DpaBenchWorkload, SimKind};
use crate::devices::dpa::{Mem, Proc};

/// Checks of the BlueField-3 parameters and workloads (issue 7).
pub fn check(c: &Cfg) -> Result<(), String> {
    for (p, bytes, ways) in [
        ("dpa.l1", c.dpa.l1_size, c.dpa.l1_ways),
        ("dpa.l2", c.dpa.l2_size, c.dpa.l2_ways),
        ("dpa.l3", c.dpa.l3_size, c.dpa.l3_ways),
        ("arm.l1", c.arm.l1_size, c.arm.l1_ways),
        ("arm.l2", c.arm.l2_size, c.arm.l2_ways),
        ("arm.l3", c.arm.l3_size, c.arm.l3_ways),
        ("host.l1", c.host.l1_size, c.host.l1_ways),
    ] {
        let size = format!("{p}_size");
        if bytes % (64 * ways) != 0 || !(bytes / 64 / ways).is_power_of_two() {
            return Err(format!(
                "{size} = {bytes} B: must be {p}_ways x 64 B x a power of two sets"
            ));
        }
    }
    if c.bf3.nic_l2_ways > c.dpa.l2_ways {
        return Err(format!(
            "bf3.nic_l2_ways = {}: must be <= dpa.l2_ways = {}",
            c.bf3.nic_l2_ways,
            c.dpa.l2_ways
        ));
    }
    let hw = c.dpa.cores * c.dpa.threads_per_core;
    if c.dpa.usable_threads > hw {
        return Err(format!(
            "dpa.usable_threads = {}: more than dpa.cores x dpa.threads_per_core = {hw}",
            c.dpa.usable_threads
        ));
    }
    let workload = c.dpa_bench.workload;
    if c.sim.kind != SimKind::Dpa {
        return Ok(());
    }
    let proc = c.dpa_bench.proc;
    let threads = c.dpa_bench.threads;
    let (max, what) = match proc {
        DpaBenchProc::Dpa => (
            c.dpa.usable_threads,
            "dpa.usable_threads".to_string(),
        ),
        DpaBenchProc::Arm => (c.arm.cores, "arm.cores".to_string()),
        DpaBenchProc::Host => (
            c.cpu.max_cores * c.host.threads_per_core,
            format!(
                "cpu.max_cores x host.threads_per_core = {}",
                c.cpu.max_cores * c.host.threads_per_core
            ),
        ),
    };
    if threads > max {
        return Err(format!(
            "dpa_bench.threads = {threads}: more than the {max} usable {proc} threads ({what})"
        ));
    }
    let bg = c.dpa_bench.background;
    let ports = c.nic.line_rate * c.nic.count;
    if workload == DpaBenchWorkload::Clocksync && bg >= ports {
        return Err(format!(
            "dpa_bench.background = {}Gbps: at or above the {}Gbps of the ports (nic.line_rate x nic.count); queues would grow without bound",
            bg as f64 / 1e3,
            ports as f64 / 1e3
        ));
    }
    let mem2 = c.dpa_bench.mem2;
    let n2 = c.dpa_bench.mem2_threads;
    if workload == DpaBenchWorkload::Bandwidth && mem2 != DpaBenchMem2::Off && (n2 == 0 || n2 >= threads) {
        return Err(format!("dpa_bench.mem2_threads = {n2}: with dpa_bench.mem2 = {mem2} give 1..{} threads (the rest use dpa_bench.mem)", threads.saturating_sub(1)));
    }
    if proc == DpaBenchProc::Dpa {
        // The memories the workload touches.
        let mut used = vec![];
        if workload != DpaBenchWorkload::Compute
            && !(workload == DpaBenchWorkload::Net && c.dpa_bench.net_mode != DpaBenchNetMode::Kv)
            && !(matches!(workload, DpaBenchWorkload::Latency | DpaBenchWorkload::Clocksync) && c.dpa_bench.random_reads == 0)
        {
            used.push(("dpa_bench.mem", Mem::from(c.dpa_bench.mem)));
        }
        if workload == DpaBenchWorkload::Bandwidth && mem2 != DpaBenchMem2::Off {
            used.push(("dpa_bench.mem2", Mem::second(mem2).expect("mem2 is set")));
        }
        if matches!(workload, DpaBenchWorkload::Latency | DpaBenchWorkload::Clocksync | DpaBenchWorkload::Net) {
            used.push(("dpa_bench.net_buf", Mem::from(c.dpa_bench.net_buf)));
        }
        let host = used.iter().find(|u| u.1 == Mem::Host);
        let arm = used.iter().find(|u| u.1 == Mem::Arm);
        if let (Some(h), Some(a)) = (host, arm) {
            return Err(format!("{} = host with {} = arm: DPA threads cannot use host and Arm memory together (DOCA 2.5)", h.0, a.0));
        }
    }
    let mem = Mem::of_buffer(Proc::from(proc), c.dpa_bench.mem.into());
    let (cap, key) = match mem {
        Mem::Dpa => (c.dpa.memory_size, "dpa.memory_size"),
        Mem::Arm => (c.arm.memory_size, "arm.memory_size"),
        Mem::Host => (
            8u64 << 30,
            "the 8 GiB of host memory the model gives buffers",
        ),
    };
    let ws = if workload == DpaBenchWorkload::Net && c.dpa_bench.net_mode == DpaBenchNetMode::Kv {
        c.dpa_bench.kv_keys * 16
    } else {
        c.dpa_bench.working_set
    };
    let which = if workload == DpaBenchWorkload::Net {
        "dpa_bench.kv_keys x 16 B"
    } else {
        "dpa_bench.working_set"
    };
    if matches!(workload, DpaBenchWorkload::Chase | DpaBenchWorkload::Bandwidth) || which != "dpa_bench.working_set" {
        if ws > cap {
            return Err(format!(
                "{which} = {ws} B: larger than {mem} memory ({key} = {cap} B)"
            ));
        }
    }
    if workload == DpaBenchWorkload::Chase && c.dpa_bench.working_set < c.dpa_bench.stride {
        return Err(format!(
            "dpa_bench.working_set = {} B: smaller than dpa_bench.stride = {} B",
            c.dpa_bench.working_set,
            c.dpa_bench.stride
        ));
    }
    Ok(())
}
