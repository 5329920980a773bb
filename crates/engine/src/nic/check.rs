//! What the NIC's section must satisfy with the traffic it carries: PAUSE
//! headroom, header split, nicmem and inlining, what its descriptors hold.

use crate::config::{AppNf, Cfg, NicPayloadMem};

/// The NIC's checks; `max_frame`: the traffic's largest frame.
pub fn check(c: &Cfg, max_frame: u64) -> Result<(), String> {
    nicmem(c, max_frame)?;
    flow_control(c, max_frame)
}

/// PAUSE needs an open-loop source and room above the XOFF threshold.
fn flow_control(c: &Cfg, max_frame: u64) -> Result<(), String> {
    if !c.nic.flow_control {
        return Ok(());
    }
    if c.traffic.closed_loop > 0 {
        return Err("nic.flow_control = true: not supported with traffic.closed_loop (the client's window already paces it)".into());
    }
    let headroom =
        crate::wire::pause::mlx5_headroom(c.nic.line_rate / 1000, c.nic.cable_len);
    let need = headroom + crate::wire::pause::XON_GAP + max_frame;
    if c.nic.rx_buffer < need {
        return Err(format!(
            "nic.rx_buffer = {} B: with nic.flow_control it must hold the PAUSE headroom ({headroom} B for this line rate and cable) plus XON hysteresis and a frame, at least {need} B",
            c.nic.rx_buffer
        ));
    }
    Ok(())
}

/// Header split, nicmem and inlining: what the NIC and its descriptors can hold.
fn nicmem(c: &Cfg, max_frame: u64) -> Result<(), String> {
    let split = c.nic.header_split;
    let off = c.nic.split_offset;
    if split && off > max_frame {
        return Err(format!(
            "nic.split_offset = {off} B: beyond the largest frame of the traffic ({max_frame} B)"
        ));
    }
    let nicmem = c.nic.payload_mem == NicPayloadMem::Nicmem;
    if nicmem && !split {
        return Err("nic.payload_mem = nicmem: needs nic.header_split = true (the header must reach the cores in host memory)".into());
    }
    if c.nic.tx_inline && !split {
        return Err(
            "nic.tx_inline = true: needs nic.header_split = true (only a split header is inlined)"
                .into(),
        );
    }
    if c.nic.rx_inline {
        if !split {
            return Err("nic.rx_inline = true: needs nic.header_split = true (only a split header is inlined)".into());
        }
        if off > crate::wire::RX_INLINE_MAX {
            return Err(format!(
                "nic.rx_inline = true: nic.split_offset = {off} B is more than the {} B a 128 B CQE holds",
                crate::wire::RX_INLINE_MAX
            ));
        }
        if c.nic.rx_cqe_comp {
            return Err("nic.rx_inline = true: needs nic.rx_cqe_comp = false (compressed mini-CQEs carry no data)".into());
        }
    }
    let wqe = super::tx_wqe_bytes(&c.nic);
    if wqe > c.nic.max_wqe_size {
        return Err(format!(
            "nic.split_offset = {off} B: inlining it makes a {wqe} B Tx WQE, more than nic.max_wqe_size = {} B",
            c.nic.max_wqe_size
        ));
    }
    if c.nic.accel && (c.app.nf != AppNf::Flowcount || split) {
        return Err(format!(
            "nic.accel = true: the NIC runs the per-flow counter on its hairpin path; needs app.nf = flowcount (got {}) and no header split",
            c.app.nf
        ));
    }
    if c.nic.nicmem_size > c.nic.nicmem_capacity {
        return Err(format!(
            "nic.nicmem_size = {} B: more than the NIC exposes (nic.nicmem_capacity = {} B)",
            c.nic.nicmem_size,
            c.nic.nicmem_capacity
        ));
    }
    let (cores, host_q) = (c.cpu.cores, c.nic.host_queues);
    if host_q > cores {
        return Err(format!(
            "nic.host_queues = {host_q}: more than the {cores} queues of a NIC (cpu.cores)"
        ));
    }
    if nicmem && host_q < cores {
        let buf = c.nic.nicmem_buf_size;
        if max_frame.saturating_sub(off) > buf {
            return Err(format!(
                "nic.nicmem_buf_size = {buf} B: a {max_frame} B frame split at {off} B needs {} B",
                max_frame - off
            ));
        }
        let per_queue = c.nic.nicmem_size / buf / (cores - host_q);
        if per_queue == 0 {
            return Err(format!(
                "nic.nicmem_size = {} B: not one {buf} B buffer for each of the {} nicmem queues",
                c.nic.nicmem_size,
                cores - host_q
            ));
        }
    }
    Ok(())
}
