//! The packet run's report: the NICs' counters of the measured window
//! turned into the metrics researchers compare with hardware counters.

use super::World;
use crate::report::{
    ratio, Body, Bw, CorunnerReport, Dir, NicCounters, PacketReport, PcieFlowReport, Report,
    RingsReport, SimInfo,
};
use crate::units::Time;
use hdrhistogram::Histogram;

impl World {
    pub(crate) fn report(&self) -> Report {
        let secs = (self.end - self.cfg.sim.warmup) as f64 / 1e12;
        let dur = (self.end - self.cfg.sim.warmup) as f64;
        let m = self.mem.stats.since(&self.mem_base);
        let core_misses =
            |c: usize| self.mem.core_misses[c] - self.core_miss_base.get(c).copied().unwrap_or(0);
        let mut total = NicCounters::default();
        let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).expect("bounds");
        let (mut util, mut occ, mut misses, mut data) = (Dir::default(), 0.0, 0, [0; 2]);
        let share = 1.0 / self.nics.len() as f64;
        let mut per_nic = vec![];
        for (i, n) in self.nics.iter().enumerate() {
            total.add(&n.c);
            hist.add(&n.hist).expect("same bounds");
            let base = self.pcie_base.get(i).copied().unwrap_or_default();
            // Busy time is booked when a transfer is sent, so a transfer
            // straddling the window's end can push the sum a hair past 1.
            let u = Dir {
                upstream: ((n.pcie.up.busy_ps() - base[0]) as f64 / dur).min(1.0),
                downstream: ((n.pcie.down.busy_ps() - base[1]) as f64 / dur).min(1.0),
            };
            let d = [n.pcie.data_up - base[2], n.pcie.data_down - base[3]];
            data = [data[0] + d[0], data[1] + d[1]];
            let o = n.cqs.iter().map(|r| r.occ_area as f64 / dur).sum::<f64>() / n.txq.len() as f64;
            let nm: u64 = (n.first_core..n.first_core + n.txq.len())
                .map(core_misses)
                .sum();
            util.upstream += u.upstream * share;
            util.downstream += u.downstream * share;
            occ += o * share;
            misses += nm;
            per_nic.push(n.c.metrics(&n.hist, (u, d), o, nm, secs));
        }
        let mut flow = PcieFlowReport::default();
        for (i, n) in self.nics.iter().enumerate() {
            let base = self.pcie_base.get(i).copied().unwrap_or_default();
            let (mean, max, stall) = n.credits.clone().stats(self.end);
            flow.write_buffer_lines_mean += mean * share;
            flow.write_buffer_lines_max = flow.write_buffer_lines_max.max(max);
            flow.credit_stall_share += stall * share;
            flow.read_tags_mean += n.c.tag_ps as f64 / dur * share;
            flow.dma_requests_per_s += (n.pcie.writes + n.pcie.reads - base[4]) as f64 / secs;
        }
        flow.read_tags_max = total.tags_max;
        let busy: Time = self.cores.iter().map(|c| c.busy_ps).sum();
        let busy_cycles = busy as f64 * self.cfg.cpu.freq as f64 / 1e6;
        let corunner = self.corunner.as_ref().map(|cr| CorunnerReport {
            mean_latency_ns: if cr.done_lines == 0 {
                0.0
            } else {
                cr.lat_sum as f64 / cr.done_lines as f64 / 1000.0
            },
            gbytes_s: cr.done_lines as f64 * 64.0 / secs / 1e9,
        });
        let sim = SimInfo::new(
            self.cfg.sim.seed,
            self.q.events(),
            self.nics.iter().map(|n| n.total_in).sum(),
            self.end,
        );
        let body = PacketReport {
            packets: total.metrics(&hist, (util, data), occ, misses, secs),
            pcie_write_hit_rate: ratio(m.dma_write_hits, m.dma_write_hits + m.dma_write_misses),
            pcie_read_hit_rate: ratio(m.dma_read_hits, m.dma_read_hits + m.dma_read_misses),
            llc_hit_rate_cpu: ratio(m.core_llc_hits, m.core_llc_hits + m.core_llc_misses),
            l2_prefetches_per_packet: ratio(m.l2_prefetches, total.rx_pkts),
            sf_back_invalidations_per_packet: ratio(m.sf_back_invalidations, total.rx_pkts),
            dma_rfo_reads_per_packet: ratio(m.dma_rfo_reads, total.rx_pkts),
            mem_bw_gbytes_s: Bw {
                read: m.dram_read_bytes as f64 / secs / 1e9,
                write: m.dram_write_bytes as f64 / secs / 1e9,
            },
            cycles_per_packet: if total.rx_pkts == 0 {
                0.0
            } else {
                busy_cycles / total.rx_pkts as f64
            },
            core_util: busy as f64 / (dur * self.cores.len() as f64),
            per_nic,
            corunner,
            pcie_flow: flow,
            rings: (self.cfg.rings.sharing > 1).then(|| {
                let (n, wait) = self.nics.iter().flat_map(|n| &n.rxq).fold((0, 0u128), |(a, b), r| {
                    (a + r.reposted, b + r.repost_wait)
                });
                let sync: Time = self.cores.iter().map(|c| c.sync_ps).sum();
                let (switches, shared_share) = match &self.dshring {
                    Some(d) => {
                        let mut shared = d.shared_ps;
                        if self.nics[0].set == 1 {
                            shared += self.end - d.since.max(self.cfg.sim.warmup);
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
                        sync as f64 * self.cfg.cpu.freq as f64 / 1e6 / total.rx_pkts as f64
                    },
                    repost_wait_ns: if n == 0 { 0.0 } else { wait as f64 / n as f64 / 1000.0 },
                    nic_rx_wait_ns: if total.rx_desc_given == 0 {
                        0.0
                    } else {
                        total.rx_desc_wait_ps as f64 / total.rx_desc_given as f64 / 1000.0
                    },
                }
            }),
            timeline: self.timeline.as_ref().map(|t| t.samples.clone()).unwrap_or_default(),
        };
        Report { body: Body::Packet(Box::new(body)), sim }
    }
}
