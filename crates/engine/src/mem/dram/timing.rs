//! DDR4 speed bins: the JEDEC timings a memory controller obeys, in DRAM
//! clock cycles (tCK), and the command-to-command gaps they imply.
//!
//! Sources, per bin (8 Gb x8 devices, 1 KiB page, 2 ranks):
//! - DDR4-2400: Micron MT40A1G8 data sheet, speed bin -083E (CL 16-16-16),
//!   tRAS 32 ns, tFAW 21 ns (1 KiB page), tWR 15 ns, tRTP 7.5 ns, tRRD_S
//!   3.3 ns, tRRD_L 4.9 ns, tRFC 350 ns (8 Gb), tREFI 7.8 us.
//! - DDR4-2666 and DDR4-2933: DRAMsim3's stock `DDR4_8Gb_x8_2666.ini` and
//!   `DDR4_8Gb_x8_2933.ini` (umd-memsys/DRAMsim3 @29817593), which carry
//!   the same JEDEC values in cycles. Its 2933 clock is 0.68 ns.
//!
//! - DDR4-3200: Micron data sheet speed bin -062E (CL 22-22-22), with the
//!   same nanosecond limits as DDR4-2400 in cycles of 0.625 ns (tCCD_L
//!   5 ns, tWTR_L 7.5 ns, tRRD_L 4.9 ns).
//!
//! A one-cycle rank-to-rank switch (tRTRS) is DRAMsim3's; JEDEC leaves it
//! to the controller.

use crate::units::Time;

/// One speed bin's timings, in clock cycles (`tck_ps` each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    pub name: &'static str,
    /// Nominal data rate (MT/s): the bin's name.
    pub mts: u64,
    /// Clock period in ps; data moves on both edges.
    pub tck_ps: Time,
    /// Burst length (beats); a burst holds the data bus `bl / 2` cycles.
    pub bl: u64,
    /// READ to first data (CAS latency) and WRITE to first data.
    pub cl: u64,
    pub cwl: u64,
    /// ACT to READ/WRITE, PRE to ACT, ACT to PRE.
    pub rcd: u64,
    pub rp: u64,
    pub ras: u64,
    /// Column command to column command: other / same bank group.
    pub ccd_s: u64,
    pub ccd_l: u64,
    /// ACT to ACT in one rank: other / same bank group; four ACTs per tFAW.
    pub rrd_s: u64,
    pub rrd_l: u64,
    pub faw: u64,
    /// End of write data to READ: other / same bank group.
    pub wtr_s: u64,
    pub wtr_l: u64,
    /// Write recovery (end of write data to PRE), READ to PRE.
    pub wr: u64,
    pub rtp: u64,
    /// Turning the data bus from one rank to another.
    pub rtrs: u64,
    /// Refresh: a rank is busy tRFC once every tREFI.
    pub rfc: u64,
    pub refi: u64,
}

/// The speed bins a profile may name (`dram.speed`).
pub const BINS: &[Timing] = &[DDR4_2400, DDR4_2666, DDR4_2933, DDR4_3200];

pub const DDR4_2400: Timing = Timing {
    name: "DDR4-2400",
    mts: 2400,
    tck_ps: 833,
    bl: 8,
    cl: 16,
    cwl: 12,
    rcd: 16,
    rp: 16,
    ras: 39,
    ccd_s: 4,
    ccd_l: 6,
    rrd_s: 4,
    rrd_l: 6,
    faw: 26,
    wtr_s: 3,
    wtr_l: 9,
    wr: 18,
    rtp: 9,
    rtrs: 1,
    rfc: 420,
    refi: 9364,
};

pub const DDR4_2666: Timing = Timing {
    name: "DDR4-2666",
    mts: 2666,
    tck_ps: 750,
    bl: 8,
    cl: 19,
    cwl: 14,
    rcd: 19,
    rp: 19,
    ras: 43,
    ccd_s: 4,
    ccd_l: 7,
    rrd_s: 4,
    rrd_l: 7,
    faw: 28,
    wtr_s: 4,
    wtr_l: 10,
    wr: 20,
    rtp: 10,
    rtrs: 1,
    rfc: 467,
    refi: 10398,
};

pub const DDR4_2933: Timing = Timing {
    name: "DDR4-2933",
    mts: 2933,
    tck_ps: 680,
    bl: 8,
    cl: 21,
    cwl: 16,
    rcd: 21,
    rp: 21,
    ras: 47,
    ccd_s: 4,
    ccd_l: 8,
    rrd_s: 4,
    rrd_l: 8,
    faw: 31,
    wtr_s: 4,
    wtr_l: 11,
    wr: 22,
    rtp: 11,
    rtrs: 1,
    rfc: 514,
    refi: 11439,
};

pub const DDR4_3200: Timing = Timing {
    name: "DDR4-3200",
    mts: 3200,
    tck_ps: 625,
    bl: 8,
    cl: 22,
    cwl: 16,
    rcd: 22,
    rp: 22,
    ras: 52,
    ccd_s: 4,
    ccd_l: 8,
    rrd_s: 4,
    rrd_l: 8,
    faw: 34,
    wtr_s: 4,
    wtr_l: 12,
    wr: 24,
    rtp: 12,
    rtrs: 1,
    rfc: 560,
    refi: 12480,
};

/// The bin named `name` (`"DDR4-2666"`).
pub fn bin(name: &str) -> Option<Timing> {
    BINS.iter().copied().find(|b| b.name == name)
}

/// The timings a model in picoseconds reads (NetDIMM's local DRAM).
#[derive(Clone, Copy, Debug)]
pub struct DdrTiming {
    /// ACTIVATE to READ/WRITE.
    pub t_rcd: Time,
    /// READ to first data (CAS latency).
    pub t_cl: Time,
    /// WRITE to first data (CAS write latency).
    pub t_cwl: Time,
    /// PRECHARGE to ACTIVATE.
    pub t_rp: Time,
    /// ACTIVATE to PRECHARGE (a full row restore).
    pub t_ras: Time,
    /// One 64 B burst on the data bus (BL8).
    pub t_burst: Time,
}

/// The gaps between commands, in cycles, as the timings imply them
/// (JEDEC JESD79-4 §4; the same arithmetic as DRAMsim3's `timing.cc`).
#[derive(Clone, Copy, Debug)]
pub struct Gaps {
    /// Cycles a burst holds the data bus.
    pub burst: u64,
    pub rd_rd_s: u64,
    pub rd_rd_l: u64,
    /// READ to READ in another rank: the burst plus the bus switch.
    pub rd_rd_r: u64,
    /// READ to WRITE, any bank of any rank (DRAMsim3's other-rank formula,
    /// read_delay + burst + tRTRS - write_delay, comes to the same).
    pub rd_wr: u64,
    pub wr_wr_s: u64,
    pub wr_wr_l: u64,
    pub wr_wr_r: u64,
    pub wr_rd_s: u64,
    pub wr_rd_l: u64,
    pub wr_rd_r: u64,
    pub rd_pre: u64,
    pub wr_pre: u64,
    /// ACT to ACT in one bank: tRAS + tRP.
    pub rc: u64,
}

impl Timing {
    pub fn gaps(&self) -> Gaps {
        let burst = self.bl / 2;
        let (rl, wl) = (self.cl, self.cwl);
        Gaps {
            burst,
            rd_rd_s: burst.max(self.ccd_s),
            rd_rd_l: burst.max(self.ccd_l),
            rd_rd_r: burst + self.rtrs,
            rd_wr: rl + burst + self.rtrs - wl,
            wr_wr_s: burst.max(self.ccd_s),
            wr_wr_l: burst.max(self.ccd_l),
            wr_wr_r: burst,
            wr_rd_s: wl + burst + self.wtr_s,
            wr_rd_l: wl + burst + self.wtr_l,
            wr_rd_r: (wl + burst + self.rtrs).saturating_sub(rl),
            rd_pre: self.rtp,
            wr_pre: wl + burst + self.wr,
            rc: self.ras + self.rp,
        }
    }

    /// The bin's timings in picoseconds.
    pub fn in_ps(&self) -> DdrTiming {
        DdrTiming {
            t_rcd: self.ps(self.rcd),
            t_cl: self.ps(self.cl),
            t_cwl: self.ps(self.cwl),
            t_rp: self.ps(self.rp),
            t_ras: self.ps(self.ras),
            t_burst: self.ps(self.bl / 2),
        }
    }

    /// Peak bytes per second of one 64-bit channel.
    pub fn peak_bytes_per_s(&self) -> f64 {
        8.0 * 2.0 * 1e12 / self.tck_ps as f64
    }

    /// ps of `cycles` clocks.
    pub fn ps(&self, cycles: u64) -> Time {
        cycles * self.tck_ps
    }
}
