//! What the traffic section must satisfy: a size distribution it can draw
//! from, phases inside the run, rates within the line.

use crate::config::{Cfg, TrafficSizeDist};

/// The traffic's checks; returns its largest frame (bytes).
pub fn check(c: &Cfg) -> Result<u64, String> {
    let max_frame = match c.traffic.size_dist {
        TrafficSizeDist::Fixed => c.traffic.size,
        TrafficSizeDist::Bimodal => c.traffic.bimodal_large
            .max(c.traffic.bimodal_small),
        TrafficSizeDist::Empirical => {
            let (s, w) = (c.traffic.sizes.as_slice(), c.traffic.weights.as_slice());
            if s.is_empty() || s.len() != w.len() || w.iter().sum::<f64>() <= 0.0 {
                return Err(format!(
                    "traffic.sizes / traffic.weights: size_dist = empirical needs two lists of equal, non-zero length with a positive weight (got {} sizes, {} weights)",
                    s.len(),
                    w.len()
                ));
            }
            *s.iter().max().unwrap()
        }
        TrafficSizeDist::Pcap => {
            if c.traffic.pcap.as_str().is_empty() {
                return Err("traffic.pcap: size_dist = pcap needs a file path".into());
            }
            9216
        }
        TrafficSizeDist::Imix => 1518,
    };
    if !c.traffic.pcap.as_str().is_empty() && c.traffic.size_dist != TrafficSizeDist::Pcap {
        return Err(format!(
            "traffic.pcap = {}: only read with traffic.size_dist = pcap (now {}); set both, or drop traffic.pcap",
            c.traffic.pcap.as_str().escape_debug(),
            c.traffic.size_dist
        ));
    }
    let phases = c.traffic.phase_at.as_slice();
    for (key, n) in [
        ("traffic.phase_rate", c.traffic.phase_rate.as_slice().len()),
        ("traffic.phase_target_share", c.traffic.phase_target_share.as_slice().len()),
    ] {
        if n != 0 && n != phases.len() {
            return Err(format!(
                "{key}: {n} entries for the {} phases of traffic.phase_at (give one per phase, or none)",
                phases.len()
            ));
        }
    }
    let end = c.sim.warmup + c.sim.duration;
    if let Some(&late) = phases.iter().find(|&&t| t >= end) {
        return Err(format!(
            "traffic.phase_at = {late}ps: at or after the run's end (sim.warmup + sim.duration = {end}ps); the phase would never start"
        ));
    }
    if let Some(w) = phases.windows(2).find(|w| w[0] >= w[1]) {
        return Err(format!(
            "traffic.phase_at = [.., {}ps, {}ps, ..]: phase start times must increase",
            w[0], w[1]
        ));
    }
    if let Some(r) = c.traffic.phase_rate.as_slice().iter().find(|&&r| r > c.nic.line_rate) {
        return Err(format!(
            "traffic.phase_rate = {}Gbps: above nic.line_rate = {}Gbps",
            *r as f64 / 1e3,
            c.nic.line_rate as f64 / 1e3
        ));
    }
    if !c.traffic.phase_rate.as_slice().is_empty() && c.traffic.size_dist == TrafficSizeDist::Pcap {
        return Err("traffic.phase_rate: a pcap replay keeps the trace's own rate; leave phase_rate empty".into());
    }
    let targeted = c.traffic.target_share > 0.0
        || c.traffic.phase_target_share.as_slice().iter().any(|&s| s > 0.0);
    if (1..64).contains(&c.traffic.target_size) {
        return Err(format!(
            "traffic.target_size = {} B: give 0 (frames keep their size) or a frame of 64 .. 9216 B",
            c.traffic.target_size
        ));
    }
    Ok(if targeted { max_frame.max(c.traffic.target_size) } else { max_frame })
}
