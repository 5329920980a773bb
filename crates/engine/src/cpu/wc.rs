//! A core's write-combining buffers: how its stores to write-combining
//! memory (NIC memory mapped WC) leave it. Intel SDM Vol. 3, 11.3.1
//! ("Buffering of Write Combining Memory Locations"): stores fill 64 B
//! buffers, a full buffer goes out as one 64 B write (a posted PCIe write
//! to the device), and with every buffer still draining the next store
//! waits. The buffers are the core's line fill buffers (`cpu.wc_buffers`).

use crate::units::Time;
use std::collections::VecDeque;

pub struct WcBuffers {
    /// When each buffer in use has drained, oldest first.
    draining: VecDeque<Time>,
    buffers: usize,
}

impl WcBuffers {
    pub fn new(buffers: usize) -> WcBuffers {
        WcBuffers {
            draining: VecDeque::with_capacity(buffers),
            buffers: buffers.max(1),
        }
    }

    /// Store one full line at `now`; `send(t)` puts its write on the way at
    /// `t` and returns when it has left the core's side (the buffer is
    /// free). Returns when the store itself completed: `now`, or later if it
    /// waited for a buffer.
    pub fn store_line(&mut self, now: Time, send: impl FnOnce(Time) -> Time) -> Time {
        let mut t = now;
        if self.draining.len() == self.buffers {
            t = t.max(self.draining.pop_front().unwrap_or(t));
        }
        self.draining.push_back(send(t));
        t
    }

    /// When the last write has left.
    pub fn drained(&self) -> Time {
        self.draining.back().copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With writes that take 10 to leave, back to back: the first `n`
    /// stores go at once, later ones wait for the oldest buffer.
    #[test]
    fn stores_wait_only_when_every_buffer_is_draining() {
        let mut wc = WcBuffers::new(4);
        let mut link_free = 0;
        let mut send = |t: Time| {
            link_free = link_free.max(t) + 10;
            link_free
        };
        let done: Vec<Time> = (0..8).map(|_| wc.store_line(0, &mut send)).collect();
        assert_eq!(done, [0, 0, 0, 0, 10, 20, 30, 40]);
        assert_eq!(wc.drained(), 80);
    }
}
