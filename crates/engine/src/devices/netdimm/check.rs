//! The NetDIMM section's own checks (`netdimm.*`).

use crate::config::{Cfg, NetdimmNf, NetdimmNic, NetdimmTraffic, SimKind};

/// The NetDIMM scenario's bad inputs (issue 6): a channel that does not
/// exist, interleaving over NetDIMM space, a frame beyond the MTU.
pub fn check(c: &Cfg) -> Result<(), String> {
    let ch = c.netdimm.channel;
    if ch >= c.dram.channels {
        return Err(format!(
            "netdimm.channel = {ch}: the host has dram.channels = {} (channels 0..={})",
            c.dram.channels,
            c.dram.channels - 1
        ));
    }
    if c.netdimm.nf != NetdimmNf::Off && !matches!(c.netdimm.nic, NetdimmNic::Inic | NetdimmNic::Netdimm) {
        return Err(format!("netdimm.nf = {}: the co-runner experiment (Fig 12b) runs with netdimm.nic = inic or netdimm, not {}", c.netdimm.nf, c.netdimm.nic));
    }
    if c.netdimm.interleave {
        return Err("netdimm.interleave = true: the NetDIMM address range must stay on one channel (flex mode, paper Sec. 4.2.1); set it to false".into());
    }
    if c.sim.kind == SimKind::Netdimm
        && c.netdimm.traffic == NetdimmTraffic::Fixed
        && !c.netdimm.segmentation
    {
        let frame = c.netdimm.size + crate::wire::UDP_HEADERS;
        if frame > c.netdimm.mtu {
            return Err(format!(
                "netdimm.size = {}: a {frame} B frame ({} B of headers) exceeds netdimm.mtu = {} B; set netdimm.segmentation = true or a size <= {} B",
                c.netdimm.size,
                crate::wire::UDP_HEADERS,
                c.netdimm.mtu,
                c.netdimm.mtu.saturating_sub(crate::wire::UDP_HEADERS)
            ));
        }
    }
    if c.sim.kind == SimKind::Netdimm
        && c.netdimm.traffic != NetdimmTraffic::Fixed
        && c.netdimm.mtu < 1514
    {
        return Err(format!(
            "netdimm.mtu = {}: the Facebook size distributions reach 1514 B frames",
            c.netdimm.mtu
        ));
    }
    Ok(())
}
