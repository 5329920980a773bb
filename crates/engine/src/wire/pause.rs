//! IEEE 802.3x flow control (802.3 Annex 31B, MAC Control PAUSE) between a
//! NIC port and its link partner, the traffic source.
//!
//! Modelled, at the port: when its Rx buffer fills past the XOFF threshold
//! it sends a PAUSE frame with the largest quanta (65535 x 512 bit times,
//! 335.5 us at 100 Gb/s); when the buffer drains below the XON threshold it
//! sends a PAUSE with quanta 0 (XON). The thresholds are mlx5's
//! (`calculate_xoff` and `update_xoff_threshold` in the Linux driver's
//! `en/port_buffer.c`): the headroom above XOFF holds what is still on the
//! way when the partner stops, (301 + 2.16 x cable metres) x Gb/s bytes plus
//! 2.72 MTUs; XON is the driver's maximum MTU (at least 9216 B) below XOFF.
//!
//! At the source: a frame whose first bit would go out while a PAUSE is in
//! force waits until it ends (the frame on the wire when the PAUSE arrives
//! is finished, as 802.3 requires). Frames the source makes meanwhile queue
//! in front of its port; when `queue` frames wait, it blocks (a software
//! generator's full Tx ring) and its schedule slips, so the rate it offers
//! falls to what the port accepts. A frame's latency counts from the time
//! the source made it, as a generator time-stamping its own frames sees it.
//!
//! Left out: priority flow control (PFC, per-class PAUSE), the partner's
//! own reaction delay beyond the cable, and PAUSE frames the port receives.

use std::collections::VecDeque;

use super::{wire_bytes, MIN_FRAME};
use crate::units::{ser_time, Time};

/// Quanta of an XOFF PAUSE frame (the largest), each 512 bit times.
pub const XOFF_QUANTA: u64 = 0xFFFF;
/// Signal propagation in a copper or fibre cable, about 5 ns per metre.
const PS_PER_METRE: u64 = 5_000;
/// mlx5's MTU term uses the standard 1500 B MTU.
const MTU: u64 = 1500;
/// XON hysteresis: mlx5 puts XON `max_mtu` below XOFF, the netdev's
/// maximum MTU but at least `MINIMUM_MAX_MTU` = 9216 B.
pub const XON_GAP: u64 = 9216;

/// Bytes of headroom mlx5 keeps above the XOFF threshold for a port of
/// `gbps` Gb/s (at least 40, as the driver assumes) and a cable of `metres`.
pub fn mlx5_headroom(gbps: u64, metres: u64) -> u64 {
    let gbps = gbps.max(40);
    (30_100 + 216 * metres) * gbps / 100 + 272 * MTU / 100
}

/// What a port decided about PAUSE when its Rx buffer changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    Xoff,
    Xon,
}

/// Flow control state of one port and its source.
#[derive(Clone, Debug)]
pub struct FlowControl {
    /// Rx buffer fill (bytes) at or above which the port sends XOFF.
    pub xoff: u64,
    /// Fill below which a paused port sends XON.
    pub xon: u64,
    /// PAUSE frame serialisation plus the cable: from sending to effect.
    reaction: Time,
    /// Duration of an XOFF's quanta.
    quanta: Time,
    /// Port side: the last XOFF holds the source until then (0 = none).
    pub xoff_until: Time,
    /// A check for the XON crossing is queued.
    pub check_pending: bool,
    /// Source side: no frame may start in [pause_from, resume_at).
    pause_from: Time,
    resume_at: Time,
    /// Source side: start times of the last `queue` frames (blocking).
    starts: VecDeque<Time>,
    queue: usize,
    /// How far the source's schedule has slipped by blocking.
    slip: Time,
    /// Last bit of the frame before the pending one.
    prev_end: Time,
    /// The pending frame: when the source made it, its wire time, and the
    /// time its last bit reaches the port (its `Arrive` event).
    pub created: Time,
    wire: Time,
    pub due: Time,
    /// Bumped whenever the pending frame's `Arrive` event is replaced, so
    /// the superseded event can be told apart and ignored.
    pub epoch: u32,
}

impl FlowControl {
    /// A port with an Rx buffer of `rx_buffer` bytes at `rate_mbps` behind
    /// a cable of `metres`; its source queues up to `queue` frames.
    pub fn new(rx_buffer: u64, rate_mbps: u64, metres: u64, queue: usize) -> FlowControl {
        let headroom = mlx5_headroom(rate_mbps / 1000, metres);
        let xoff = rx_buffer.saturating_sub(headroom);
        FlowControl {
            xoff,
            xon: xoff.saturating_sub(XON_GAP),
            reaction: ser_time(wire_bytes(MIN_FRAME), rate_mbps) + metres * PS_PER_METRE,
            quanta: ser_time(XOFF_QUANTA * 512 / 8, rate_mbps),
            xoff_until: 0,
            check_pending: false,
            pause_from: 0,
            resume_at: 0,
            starts: VecDeque::with_capacity(queue.max(1)),
            queue: queue.max(1),
            slip: 0,
            prev_end: 0,
            created: 0,
            wire: 0,
            due: 0,
            epoch: 0,
        }
    }

    /// The port's Rx buffer holds `fill` bytes at `now`: whether it sends
    /// a PAUSE frame. An XOFF is repeated once the last one has run out.
    pub fn on_fill(&self, fill: u64, now: Time) -> Option<Signal> {
        let paused = now < self.xoff_until;
        if fill >= self.xoff && !paused {
            Some(Signal::Xoff)
        } else if fill < self.xon && paused {
            Some(Signal::Xon)
        } else {
            None
        }
    }

    /// The port sends `s` at `now`; true if that moved the pending frame
    /// (an XON released it early: its arrival is now at `self.due`).
    pub fn send(&mut self, s: Signal, now: Time) -> bool {
        let effect = now + self.reaction;
        match s {
            Signal::Xoff => {
                self.xoff_until = effect + self.quanta;
                self.pause_from = effect;
                self.resume_at = self.xoff_until;
                false
            }
            Signal::Xon => {
                self.xoff_until = 0;
                self.resume_at = self.resume_at.min(effect.max(self.pause_from));
                self.reschedule()
            }
        }
    }

    /// The source makes its next frame, scheduled (first bit) at `sched`
    /// and `wire` long: returns when its last bit reaches the port.
    pub fn next_frame(&mut self, sched: Time, wire: Time) -> Time {
        self.prev_end = self.due;
        let mut created = sched + self.slip;
        if self.starts.len() == self.queue {
            // Blocked until the frame `queue` places ahead has left.
            created = created.max(self.starts.pop_front().unwrap_or(0));
        }
        self.slip = created - sched;
        self.created = created;
        self.wire = wire;
        let start = self.start();
        self.starts.push_back(start);
        self.due = start + wire;
        self.due
    }

    /// The pending frame's last bit reached the port at `now`: false if a
    /// PAUSE that arrived since holds it (it was moved to `self.due`).
    pub fn arrived(&mut self, now: Time) -> bool {
        debug_assert_eq!(now, self.due);
        !self.reschedule()
    }

    /// Recompute the pending frame's start under the PAUSE now in force;
    /// true if it moved.
    fn reschedule(&mut self) -> bool {
        let start = self.start();
        if start + self.wire == self.due {
            return false;
        }
        self.due = start + self.wire;
        if let Some(s) = self.starts.back_mut() {
            *s = start;
        }
        true
    }

    /// Earliest first bit of the pending frame: after it was made and the
    /// previous frame, and outside the PAUSE in force.
    fn start(&self) -> Time {
        let t = self.created.max(self.prev_end);
        if t >= self.pause_from && t < self.resume_at {
            self.resume_at
        } else {
            t
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G100: u64 = 100_000; // Mb/s

    #[test]
    fn headroom_is_mlx5s_formula() {
        // (301 + 2.16 * 7) * 100 + 2.72 * 1500 = 31612 + 4080
        assert_eq!(mlx5_headroom(100, 7), 35_692);
        // below 40 Gb/s the driver assumes 40
        assert_eq!(mlx5_headroom(25, 0), mlx5_headroom(40, 0));
        let fc = FlowControl::new(262_016, G100, 7, 16);
        assert_eq!(fc.xoff, 262_016 - 35_692);
        assert_eq!(fc.xon, fc.xoff - 9216);
        // 65535 quanta of 512 bit times at 100 Gb/s: 335.5 us
        assert_eq!(fc.quanta, 335_539_200);
    }

    #[test]
    fn xoff_then_xon_with_hysteresis() {
        let mut fc = FlowControl::new(100_000, G100, 0, 16);
        assert_eq!(fc.on_fill(fc.xoff - 1, 0), None);
        assert_eq!(fc.on_fill(fc.xoff, 0), Some(Signal::Xoff));
        fc.send(Signal::Xoff, 0);
        // paused: no second XOFF, no XON until below the XON threshold
        assert_eq!(fc.on_fill(fc.xoff + 5000, 10), None);
        assert_eq!(fc.on_fill(fc.xon, 10), None);
        assert_eq!(fc.on_fill(fc.xon - 1, 10), Some(Signal::Xon));
        fc.send(Signal::Xon, 10);
        assert_eq!(fc.on_fill(fc.xon - 1, 20), None);
        // an XOFF that ran out is sent again if the buffer is still full
        fc.send(Signal::Xoff, 100);
        let after = fc.xoff_until;
        assert_eq!(fc.on_fill(fc.xoff, after - 1), None);
        assert_eq!(fc.on_fill(fc.xoff, after), Some(Signal::Xoff));
    }

    #[test]
    fn a_paused_source_holds_frames_until_xon() {
        let wire = 10_000;
        let mut fc = FlowControl::new(100_000, G100, 0, 16);
        let reaction = fc.reaction;
        // back-to-back frames of 10 ns
        assert_eq!(fc.next_frame(0, wire), 10_000);
        assert!(fc.arrived(10_000));
        assert_eq!(fc.next_frame(10_000, wire), 20_000);
        // XOFF sent at 12 ns takes effect after the frame that started at
        // 10 ns: that frame goes on, the next one is held.
        fc.send(Signal::Xoff, 12_000);
        assert!(fc.arrived(20_000));
        let due = fc.next_frame(20_000, wire);
        assert_eq!(due, 12_000 + reaction + fc.quanta + wire);
        // XON at 1 us: the held frame starts when it takes effect.
        assert!(fc.send(Signal::Xon, 1_000_000));
        assert_eq!(fc.due, 1_000_000 + reaction + wire);
        assert!(fc.arrived(1_000_000 + reaction + wire));
        // it was made at 20 ns: latency counts from there
        assert_eq!(fc.created, 20_000);
    }

    #[test]
    fn a_pause_arriving_after_scheduling_moves_the_frame() {
        let wire = 10_000;
        let mut fc = FlowControl::new(100_000, G100, 0, 16);
        assert_eq!(fc.next_frame(100_000, wire), 110_000);
        fc.send(Signal::Xoff, 0);
        // the event at 110 ns is stale: the frame now waits for the pause to end
        assert!(!fc.arrived(110_000));
        assert_eq!(fc.due, fc.reaction + fc.quanta + wire);
        assert!(fc.arrived(fc.due));
    }

    #[test]
    fn a_full_source_queue_blocks_and_slips_the_schedule() {
        let wire = 10_000;
        let mut fc = FlowControl::new(100_000, G100, 0, 2);
        fc.send(Signal::Xoff, 0);
        let resume = fc.resume_at;
        // frames scheduled every 10 ns all wait for the pause to end
        let d0 = fc.next_frame(100_000, wire);
        assert_eq!(d0, resume + wire);
        let d1 = fc.next_frame(110_000, wire);
        assert_eq!(d1, resume + 2 * wire);
        // the third finds two frames queued: made only when the first left
        let d2 = fc.next_frame(120_000, wire);
        assert_eq!(fc.created, resume);
        assert_eq!(d2, resume + 3 * wire);
        // and the schedule stays slipped
        fc.next_frame(130_000, wire);
        assert_eq!(fc.created, 130_000 + (resume - 120_000));
    }
}
