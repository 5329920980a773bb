//! RxList: the shared ring as a linked free list. Cores append re-armed
//! descriptors to the tail (under a lock) in whatever order they finish;
//! the NIC takes descriptors from the head. No bitmap, no waiting for
//! slower cores -- but the list's order is no longer the array's order, so
//! the NIC's contiguous descriptor prefetch fetches short runs.

const NIL: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct RxList {
    next: Vec<u32>,
    head: u32,
    tail: u32,
    len: u64,
}

impl RxList {
    /// All `size` descriptors free, linked in array order.
    pub fn new(size: u32) -> RxList {
        let mut next: Vec<u32> = (1..=size).collect();
        next[size as usize - 1] = NIL;
        RxList {
            next,
            head: 0,
            tail: size - 1,
            len: size as u64,
        }
    }

    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The descriptor the NIC takes next.
    pub fn head(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    /// The last free descriptor (where cores append).
    pub fn tail(&self) -> Option<u32> {
        (self.tail != NIL).then_some(self.tail)
    }

    /// Whether descriptor `d` is free (on the list).
    pub fn contains(&self, d: u32) -> bool {
        self.next[d as usize] != NIL || self.tail == d
    }

    /// The first `k` free descriptors in list order.
    pub fn ahead(&self, k: usize) -> impl Iterator<Item = u32> + '_ {
        let mut d = self.head;
        std::iter::from_fn(move || {
            (d != NIL).then(|| {
                let cur = d;
                d = self.next[d as usize];
                cur
            })
        })
        .take(k)
    }

    /// The NIC takes the descriptor at the head.
    pub fn take(&mut self) -> Option<u32> {
        if self.head == NIL {
            return None;
        }
        let d = self.head;
        self.head = self.next[d as usize];
        if self.head == NIL {
            self.tail = NIL;
        }
        self.next[d as usize] = NIL;
        self.len -= 1;
        Some(d)
    }

    /// A core appends the descriptors it re-armed, in its order.
    pub fn append(&mut self, batch: &[u32]) {
        for &d in batch {
            debug_assert!(
                self.next[d as usize] == NIL && self.tail != d,
                "descriptor {d} appended twice"
            );
            if self.tail == NIL {
                self.head = d;
            } else {
                self.next[self.tail as usize] = d;
            }
            self.tail = d;
            self.len += 1;
        }
    }

    /// How many contiguous runs (d, d+1, ...) the next `k` descriptors form:
    /// the number of descriptor reads a contiguous-prefetching NIC needs.
    pub fn runs_ahead(&self, k: usize) -> usize {
        let mut runs = 0;
        let (mut d, mut prev) = (self.head, NIL);
        for _ in 0..k {
            if d == NIL {
                break;
            }
            if prev == NIL || d != prev + 1 {
                runs += 1;
            }
            prev = d;
            d = self.next[d as usize];
        }
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[test]
    fn in_order_list_is_one_run_shuffled_is_many() {
        let l = RxList::new(64);
        assert_eq!(l.runs_ahead(32), 1);
        let mut l = RxList::new(8);
        let all: Vec<u32> = std::iter::from_fn(|| l.take()).collect();
        l.append(&[all[0], all[1], all[3], all[2]]);
        assert_eq!(l.runs_ahead(4), 3);
        assert_eq!(l.ahead(8).collect::<Vec<_>>(), [all[0], all[1], all[3], all[2]]);
        assert!(l.contains(all[2]) && !l.contains(all[4]));
        assert_eq!(l.head(), Some(all[0]));
    }

    proptest! {
        /// Against a FIFO queue: every appended descriptor is taken once,
        /// in append order, and lengths agree.
        #[test]
        fn behaves_as_a_fifo(ops in proptest::collection::vec((any::<bool>(), 0usize..8), 1..500)) {
            let mut l = RxList::new(32);
            let mut model: VecDeque<u32> = (0..32).collect();
            let mut held: Vec<u32> = vec![];
            for (take, k) in ops {
                if take {
                    for _ in 0..k {
                        let got = l.take();
                        prop_assert_eq!(got, model.pop_front());
                        if let Some(d) = got { held.push(d); }
                    }
                } else {
                    // A core hands back up to k held descriptors, newest first.
                    let n = k.min(held.len());
                    let batch: Vec<u32> = held.drain(held.len() - n..).rev().collect();
                    l.append(&batch);
                    model.extend(batch.iter().copied());
                }
                prop_assert_eq!(l.len(), model.len() as u64);
            }
        }
    }
}
