//! The packet run's report: the NICs' counters of the measured window
//! turned into the metrics researchers compare with hardware counters.

use super::{bottleneck, World};
use crate::mem::MemStats;
use crate::report::{
    hit_rate, ratio, AntagonistReport, Body, DomainLatency, Bottleneck, Bw, CorunnerReport, Dir, DramCounters, LatencyBreakdown, NicCounters, PacketReport,
    PcieFlowReport, Report, RingsReport, SimInfo,
};
use crate::units::Time;
use hdrhistogram::Histogram;

impl World {
    pub(crate) fn report(&self) -> Report {
        let secs = (self.host.end - self.host.cfg.sim.warmup) as f64 / 1e12;
        let dur = (self.host.end - self.host.cfg.sim.warmup) as f64;
        let m = self.host.mem.stats.since(&self.host.mem_base);
        let core_misses =
            |c: usize| self.host.mem.core_misses[c] - self.host.core_miss_base.get(c).copied().unwrap_or(0);
        let mut total = NicCounters::default();
        let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).expect("bounds");
        let (mut util, mut occ, mut misses, mut data) = (Dir::default(), 0.0, 0, [0; 2]);
        let share = 1.0 / self.nics.len() as f64;
        let mut per_nic = vec![];
        let mut flow = PcieFlowReport::default();
        let mut peak = Peaks::default();
        let line_bps = self.host.cfg.nic.line_rate as f64 * 1e6;
        for (i, n) in self.nics.iter().enumerate() {
            total.add(&n.c);
            hist.add(&n.hist).expect("same bounds");
            let base = self.host.pcie_base.get(i).copied().unwrap_or_default();
            // Busy time is booked when a transfer is sent, so a transfer
            // straddling the window's end can push the sum a hair past 1.
            let u = Dir {
                upstream: ((n.rp.link.up.busy_ps() - base[0]) as f64 / dur).min(1.0),
                downstream: ((n.rp.link.down.busy_ps() - base[1]) as f64 / dur).min(1.0),
            };
            let d = [n.rp.link.data_up - base[2], n.rp.link.data_down - base[3]];
            data = [data[0] + d[0], data[1] + d[1]];
            let o = n.cqs.iter().map(|r| r.occ_area as f64 / dur).sum::<f64>() / n.txq.len() as f64;
            let nm: u64 = (n.first_core..n.first_core + n.txq.len())
                .map(core_misses)
                .sum();
            util.upstream += u.upstream * share;
            util.downstream += u.downstream * share;
            occ += o * share;
            misses += nm;
            let (mean, max, stall) = n.rp.credits.clone().stats(self.host.end);
            flow.write_buffer_lines_mean += mean * share;
            flow.write_buffer_lines_max = flow.write_buffer_lines_max.max(max);
            flow.credit_stall_share += stall * share;
            flow.read_tags_mean += n.c.tag_ps as f64 / dur * share;
            flow.dma_requests_per_s += (n.rp.link.writes + n.rp.link.reads - base[4]) as f64 / secs;
            // The busiest NIC's share of each of its resources. The Tx port
            // (the Rx wire carries what is offered, whatever the server
            // does): frame bits plus preamble and inter-frame gap.
            let tx_bits = (n.c.tx_bytes + 20 * n.c.tx_pkts) as f64 * 8.0 / secs;
            peak.wire = peak.wire.max(tx_bits / line_bps);
            peak.up = peak.up.max(u.upstream);
            peak.down = peak.down.max(u.downstream);
            peak.tags = peak.tags.max(n.c.tag_ps as f64 / dur / n.rp.tags.capacity() as f64);
            if n.rp.credits.bounded() {
                // Sending, or held up by credits: a link the credits idle
                // ranks below them.
                let held = if stall > 0.0 { u.upstream + stall } else { 0.0 };
                peak.credits = Some(peak.credits.unwrap_or(0.0).max(held));
            }
            peak.rings = peak.rings.max(o / self.host.cfg.nic.rx_ring_size as f64);
            per_nic.push(n.c.metrics(&n.hist, (u, d), o, nm, secs));
        }
        flow.read_tags_max = total.tags_max;
        let busy: Time = self.host.cores.iter().map(|c| c.busy_ps).sum();
        let core_util = busy as f64 / (dur * self.host.cores.len() as f64);
        let imc = self.host.mem.mc.as_ref().map(|mc| mc.ctl.counters());
        let bottleneck = self.bottleneck(&total, &m, secs, &flow, &peak, core_util, imc.as_ref());
        let busy_cycles = busy as f64 * self.host.cfg.cpu.freq as f64 / 1e6;
        let corunner = self.host.corunner.as_ref().map(|cr| {
            let (mean_latency_ns, gbytes_s) = cr.figures(secs);
            CorunnerReport { mean_latency_ns, gbytes_s }
        });
        let antagonist = (!self.host.antagonists.is_empty()).then(|| {
            let figures: Vec<(f64, f64)> = self.host.antagonists.iter().map(|a| a.figures(secs)).collect();
            let lines: u64 = self.host.antagonists.iter().map(|a| a.done_lines).sum();
            let lat: u64 = self.host.antagonists.iter().map(|a| a.lat_sum).sum();
            AntagonistReport {
                cores: figures.len() as u64,
                gbytes_s: figures.iter().map(|f| f.1).sum(),
                mean_latency_ns: if lines == 0 { 0.0 } else { lat as f64 / lines as f64 / 1e3 },
            }
        });
        let mut sim = SimInfo::new(
            self.host.cfg.sim.seed,
            self.host.q.events(),
            self.nics.iter().map(|n| n.total_in).sum(),
            self.host.end,
        );
        sim.convergence = self.host.batches.as_ref().map(|b| b.report(self.host.end - self.host.cfg.sim.warmup));
        let body = PacketReport {
            packets: total.metrics(&hist, (util, data), occ, misses, secs),
            pcie_write_hit_rate: hit_rate(m.dma_write_hits, m.dma_write_hits + m.dma_write_misses),
            pcie_read_hit_rate: hit_rate(m.dma_read_hits, m.dma_read_hits + m.dma_read_misses),
            pcie_write_hit_rate_llc: hit_rate(m.dma_write_llc_hits, m.dma_write_hits + m.dma_write_misses),
            pcie_read_hit_rate_llc: hit_rate(m.dma_read_llc_hits, m.dma_read_hits + m.dma_read_misses),
            l1d_hit_rate: if !self.host.mem.has_l1d() {
                f64::NAN
            } else {
                hit_rate(m.core_l1_hits, m.core_l1_hits + m.core_l2_hits + m.core_llc_hits + m.core_llc_misses)
            },
            llc_hit_rate_cpu: hit_rate(m.core_llc_hits, m.core_llc_hits + m.core_llc_misses),
            l2_prefetches_per_packet: ratio(m.l2_prefetches, total.rx_pkts),
            l2_prefetch_refused_share: hit_rate(m.l2_prefetches_refused, m.l2_prefetches + m.l2_prefetches_refused),
            sf_back_invalidations_per_packet: ratio(m.sf_back_invalidations, total.rx_pkts),
            dma_rfo_reads_per_packet: ratio(m.dma_rfo_reads, total.rx_pkts),
            mem_bw_gbytes_s: Bw {
                read: m.dram_read_bytes as f64 / secs / 1e9,
                write: m.dram_write_bytes as f64 / secs / 1e9,
            },
            domain_latency_ns: {
                let mean = |ps: u64, n: u64| (n > 0).then(|| ps as f64 / n as f64 / 1e3);
                DomainLatency {
                    c2m_read: mean(m.c2m_read_ps, m.c2m_reads),
                    p2m_write: mean(m.p2m_write_ps, m.p2m_writes),
                    p2m_read: mean(m.p2m_read_ps, m.p2m_reads),
                }
            },
            cycles_per_packet: if total.rx_pkts == 0 {
                0.0
            } else {
                busy_cycles / total.rx_pkts as f64
            },
            core_util,
            per_nic,
            corunner,
            antagonist,
            imc,
            pcie_flow: flow,
            bottleneck,
            latency_breakdown_ns: LatencyBreakdown::new(&total.stage_ps, hist.len()),
            rings: (self.host.cfg.rings.sharing > 1).then(|| {
                let (n, wait) = self.nics.iter().flat_map(|n| &n.rxq).fold((0, 0u128), |(a, b), r| {
                    (a + r.reposted, b + r.repost_wait)
                });
                let sync: Time = self.host.cores.iter().map(|c| c.sync_ps).sum();
                let (switches, shared_share) = match &self.host.dshring {
                    Some(d) => {
                        let mut shared = d.shared_ps;
                        if self.nics[0].set == 1 {
                            shared += self.host.end - d.since.max(self.host.cfg.sim.warmup);
                        }
                        (d.switches, shared as f64 / dur)
                    }
                    None => (0, 1.0),
                };
                RingsReport {
                    dshring_switches: switches,
                    dshring_shared_share: shared_share,
                    sync_cycles_per_packet: if total.rx_pkts == 0 {
                        0.0
                    } else {
                        sync as f64 * self.host.cfg.cpu.freq as f64 / 1e6 / total.rx_pkts as f64
                    },
                    repost_wait_ns: if n == 0 { 0.0 } else { wait as f64 / n as f64 / 1000.0 },
                    nic_rx_wait_ns: if total.rx_desc_given == 0 {
                        0.0
                    } else {
                        total.rx_desc_wait_ps as f64 / total.rx_desc_given as f64 / 1000.0
                    },
                }
            }),
            timeline: self.host.timeline.as_ref().map(|t| t.samples.clone()).unwrap_or_default(),
        };
        Report { body: Body::Packet(Box::new(body)), sim }
    }

    /// Each resource's utilisation over the measured window (per-NIC
    /// resources at their busiest NIC, `peak`), and what bounds the run.
    /// `imc`: the memory controllers' counters, when they serve the run.
    #[allow(clippy::too_many_arguments)]
    fn bottleneck(&self, total: &NicCounters, m: &MemStats, secs: f64, flow: &PcieFlowReport, peak: &Peaks, core_util: f64, imc: Option<&DramCounters>) -> Bottleneck {
        let Peaks { wire, up, down, tags, credits, rings } = *peak;
        let dram_bytes = (m.dram_read_bytes + m.dram_write_bytes) as f64 / secs;
        let dram = dram_bytes / self.host.mem.dram.peak_bytes_per_s();
        let (wire, cores) = (wire.min(1.0), core_util.min(1.0));
        let mut resources = vec![
            ("wire", wire),
            ("PCIe upstream", up),
            ("PCIe downstream", down),
            ("read tags", tags),
            ("DRAM", dram),
            ("cores", cores),
            ("Rx descriptors", rings),
        ];
        if let Some(c) = credits {
            resources.push(("posted credits", c));
        }
        // (the controllers refuse requests while a queue is full)
        if let Some(n) = imc {
            resources.push(("memory controller", n.read_queue_full.max(n.write_queue_full)));
        }
        let drops = total.drop_rx_buffer + total.drop_no_desc + total.drop_core;
        let drop_rate = ratio(drops, total.arrived);
        let dropped = if drops == 0 {
            String::new()
        } else {
            format!(
                "; dropped {:.2} % (Rx buffer {}, no descriptor {}, software {})",
                drop_rate * 100.0,
                total.drop_rx_buffer,
                total.drop_no_desc,
                total.drop_core
            )
        };
        let paused = if total.pause_frames > 0 { format!("; {} PAUSE frames sent", total.pause_frames) } else { String::new() };
        let drop_rate = if total.pause_frames > 0 { drop_rate.max(f64::MIN_POSITIVE) } else { drop_rate };
        let evidence = |r: &str| {
            let what = match r {
                "wire" => format!("Tx port sending {:.1} % of the time at {} Gbps", wire * 100.0, self.host.cfg.nic.line_rate as f64 / 1e3),
                "PCIe upstream" | "PCIe downstream" => format!("link busy {:.1} % of the time", if r == "PCIe upstream" { up } else { down } * 100.0),
                "read tags" => format!("{:.0} of {} read tags held on average", flow.read_tags_mean, self.nics[0].rp.tags.capacity()),
                "DRAM" => format!("{:.1} of {:.1} GB/s", dram_bytes / 1e9, self.host.mem.dram.peak_bytes_per_s() / 1e9),
                "cores" => format!("cores busy {:.1} % of the time", cores * 100.0),
                "Rx descriptors" => format!("completion rings {:.0} % full on average", rings * 100.0),
                "memory controller" => {
                    let n = imc.expect("controllers");
                    format!(
                        "read queues full {:.1} %, write queues full {:.1} % of cycles; {:.0} % row hits",
                        n.read_queue_full * 100.0,
                        n.write_queue_full * 100.0,
                        n.row_hit_rate * 100.0
                    )
                }
                _ => format!("Rx DMA waited for posted credits {:.1} % of the time", flow.credit_stall_share * 100.0),
            };
            format!("{what}{dropped}{paused}")
        };
        bottleneck::attribute(resources, drop_rate, evidence)
    }
}

/// Per-NIC resources' utilisation at the busiest NIC.
#[derive(Default, Clone, Copy)]
struct Peaks {
    wire: f64,
    up: f64,
    down: f64,
    tags: f64,
    /// Only with a bounded write buffer.
    credits: Option<f64>,
    rings: f64,
}
