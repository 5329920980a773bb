//! nmKVS's protocol for a hot item served from NIC memory (nicmem paper,
//! Sec. 4.2.2), as pure state without timing.
//!
//! A hot item has a *stable* buffer in nicmem, which the NIC may be reading
//! for queued zero-copy responses, and a *pending* buffer in host memory,
//! which sets overwrite. A set writes the pending buffer and clears the
//! stable buffer's valid bit. A get sends the stable buffer zero-copy if it
//! is valid (taking a reference the Tx completion returns); if it is not
//! and no response still references it, the get first copies pending into
//! stable; otherwise the get sends a copy of the pending buffer.

/// What a get does, and so what it costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Get {
    /// Zero-copy response from the valid stable buffer.
    ZeroCopy,
    /// Copy pending into the (unreferenced) stable buffer over PCIe, then
    /// send it zero-copy.
    RefreshThenZeroCopy,
    /// The stable buffer is stale and still referenced: send a copy of the
    /// pending buffer from host memory.
    CopyPending,
}

/// One hot item's buffers. `V` is the value (the model uses a version
/// number; the property tests check which version each response carries).
#[derive(Clone, Debug, Default)]
pub struct HotItem<V> {
    pub stable: V,
    pub pending: V,
    pub valid: bool,
    /// Queued zero-copy responses referencing the stable buffer.
    pub refs: u32,
}

impl<V: Copy> HotItem<V> {
    /// A hot item whose stable and pending buffers hold `v`.
    pub fn new(v: V) -> HotItem<V> {
        HotItem {
            stable: v,
            pending: v,
            valid: true,
            refs: 0,
        }
    }

    /// A set: overwrite the pending buffer, invalidate the stable one.
    pub fn set(&mut self, v: V) {
        self.pending = v;
        self.valid = false;
    }

    /// A get: what to do, and the value the response carries.
    pub fn get(&mut self) -> (Get, V) {
        if self.valid {
            self.refs += 1;
            (Get::ZeroCopy, self.stable)
        } else if self.refs == 0 {
            self.stable = self.pending;
            self.valid = true;
            self.refs += 1;
            (Get::RefreshThenZeroCopy, self.stable)
        } else {
            (Get::CopyPending, self.pending)
        }
    }

    /// The Tx completion of a zero-copy response: drop its reference.
    pub fn tx_complete(&mut self) {
        debug_assert!(self.refs > 0, "Tx completion without a reference");
        self.refs -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Copy, Debug)]
    enum Op {
        Get,
        Set,
        /// The NIC transmits the oldest queued zero-copy response.
        Transmit,
    }

    fn ops() -> impl Strategy<Value = Vec<Op>> {
        proptest::collection::vec(prop_oneof![Just(Op::Get), Just(Op::Set), Just(Op::Transmit)], 1..300)
    }

    proptest! {
        /// Any interleaving of gets, sets and Tx completions: every get
        /// answers the latest set, and a queued zero-copy response is sent
        /// with exactly the bytes it was queued with (the stable buffer is
        /// never overwritten under the NIC).
        #[test]
        fn gets_see_the_latest_set_and_the_nic_never_reads_a_torn_buffer(ops in ops()) {
            let mut item = HotItem::new(0u64);
            let mut latest = 0u64;
            let mut queued: std::collections::VecDeque<u64> = Default::default();
            for op in ops {
                match op {
                    Op::Set => {
                        latest += 1;
                        item.set(latest);
                    }
                    Op::Get => {
                        let (how, v) = item.get();
                        prop_assert_eq!(v, latest);
                        if how != Get::CopyPending {
                            queued.push_back(v);
                        }
                        prop_assert_eq!(item.refs as usize, queued.len());
                    }
                    Op::Transmit => {
                        if let Some(v) = queued.pop_front() {
                            // The NIC reads the stable buffer now.
                            prop_assert_eq!(item.stable, v);
                            item.tx_complete();
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_referenced_stale_buffer_is_copied_not_refreshed() {
        let mut item = HotItem::new(1);
        assert_eq!(item.get(), (Get::ZeroCopy, 1));
        item.set(2);
        assert_eq!(item.get(), (Get::CopyPending, 2), "the NIC may still read version 1");
        item.tx_complete();
        assert_eq!(item.get(), (Get::RefreshThenZeroCopy, 2));
        assert_eq!(item.get(), (Get::ZeroCopy, 2));
    }
}
