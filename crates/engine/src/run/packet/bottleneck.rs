//! What bounds a packet run: every resource on the packet's path as a
//! utilisation, the busiest named the bottleneck and the next the
//! runner-up. A run that drops nothing while every resource has headroom is
//! bound by the load offered to it.

use crate::report::{Bottleneck, Resource, SATURATED};

/// Rank `resources` (name, utilisation) and say what bounds the run;
/// `drop_rate` (above 0 also when PAUSE held the source back) and
/// `evidence` (per resource, what shows it) tell a saturated resource from
/// an offered load that simply fits.
pub fn attribute(mut resources: Vec<(&'static str, f64)>, drop_rate: f64, evidence: impl Fn(&str) -> String) -> Bottleneck {
    resources.retain(|(_, u)| u.is_finite());
    // (work straddling the window's end can push a share a hair past 1)
    for r in &mut resources {
        r.1 = r.1.min(1.0);
    }
    // Busiest first; equal utilisations keep the listed order.
    resources.sort_by(|a, b| b.1.total_cmp(&a.1));
    let list: Vec<Resource> = resources
        .iter()
        .map(|&(name, utilisation)| Resource { name: name.to_string(), utilisation })
        .collect();
    let (first, second) = (list.first().cloned().unwrap_or_default(), list.get(1).cloned().unwrap_or_default());
    if first.utilisation < SATURATED && drop_rate == 0.0 {
        return Bottleneck {
            resource: "offered load".into(),
            utilisation: first.utilisation,
            evidence: format!("nothing dropped and no resource {:.0} % busy", SATURATED * 100.0),
            next: first.name,
            next_utilisation: first.utilisation,
            resources: list,
        };
    }
    Bottleneck {
        evidence: evidence(&first.name),
        resource: first.name,
        utilisation: first.utilisation,
        next: second.name,
        next_utilisation: second.utilisation,
        resources: list,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busiest_resource_bounds_a_saturated_run() {
        let b = attribute(vec![("cores", 0.3), ("PCIe upstream", 0.996), ("DRAM", 0.41)], 0.01, |r| format!("{r}!"));
        assert_eq!((b.resource.as_str(), b.next.as_str()), ("PCIe upstream", "DRAM"));
        assert_eq!(b.evidence, "PCIe upstream!");
        assert!((b.utilisation - 0.996).abs() < 1e-12);
        assert_eq!(b.resources.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["PCIe upstream", "DRAM", "cores"]);
    }

    #[test]
    fn a_run_with_headroom_is_bound_by_its_load() {
        let b = attribute(vec![("cores", 0.3), ("wire", 0.5)], 0.0, |_| unreachable!());
        assert_eq!((b.resource.as_str(), b.next.as_str()), ("offered load", "wire"));
        // Drops with headroom everywhere: the busiest is still named.
        let b = attribute(vec![("cores", 0.3), ("wire", 0.5)], 0.02, |r| r.to_string());
        assert_eq!(b.resource, "wire");
    }
}
