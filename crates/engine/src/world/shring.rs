//! Handing re-armed Rx descriptors back to the NIC, for each ring
//! discipline (shRing paper, Sec. 4). A private ring just advances its
//! producer index. A shared ring synchronises its cores through cache
//! lines at real addresses — the bitmap words, the lock, the consumer index
//! and the list tail — so what sharing costs is what the memory model
//! charges for those lines bouncing between cores, plus the locked
//! instructions and the time spent spinning while another core holds the lock.

use super::Knobs;
use crate::cpu::Stall;
use crate::mem::Memory;
use crate::nic::{Discipline, RxQueue};
use crate::units::{cycles_to_ps, Time};

/// Hand back the descriptors `re_armed` (Rx indices) core `c` has just
/// refilled. Returns the driver cycles that overlap with the poll's other
/// work, and the serial time of the critical section (spinning included).
pub(super) fn hand_back(
    mem: &mut Memory,
    c: usize,
    rq: &mut RxQueue,
    re_armed: &[u64],
    k: &Knobs,
    now: Time,
    measuring: bool,
    stall: &mut Stall,
) -> (u64, Time) {
    let atomic = cycles_to_ps(k.atomic_cycles, k.freq_mhz);
    let (size, lock, ring_addr) = (rq.size, rq.sync_addr, rq.ring_addr);
    let bitmap = lock + 64;
    match &mut rq.disc {
        Discipline::Private => {
            rq.driver_pi += re_armed.len() as u64;
            (0, 0)
        }
        Discipline::Arr { arr, marked_at } => {
            // Listing 1, lines 16-26: set the batch's bits, one atomic OR
            // per bitmap word.
            let words = &mut rq.words;
            arr.mark(re_armed, words);
            for &w in words.iter() {
                stall.add(mem.core_access(c, bitmap + 8 * w as u64, true, now));
            }
            let cycles = words.len() as u64 * k.atomic_cycles;
            for &i in re_armed {
                marked_at[(i % size) as usize] = now;
            }
            // Lines 29-37, under the lock: each step waits for the last.
            let start = now.max(rq.lock_free);
            let mut cs = mem.core_access(c, lock, true, now) + atomic;
            let before = arr.ci();
            let handed = arr.advance(words);
            for &w in words.iter() {
                // find-first-set on the word, then an atomic clear
                cs += mem.core_access(c, bitmap + 8 * w as u64, true, now) + atomic;
            }
            if measuring {
                for i in before..before + handed {
                    rq.repost_wait += (now - marked_at[(i % size) as usize]) as u128;
                }
                rq.reposted += handed;
            }
            // The consumer index sits in the lock's line; unlock is a store to it.
            cs += mem.core_access(c, lock, true, now);
            rq.lock_free = start + cs;
            rq.driver_pi = arr.ci() + size;
            (cycles, start - now + cs)
        }
        Discipline::List { list, .. } => {
            // Listing 2: the batch is linked through its descriptors' next
            // fields (written with the refill); under the lock it is
            // appended after the tail, whose descriptor another core
            // probably wrote last.
            let start = now.max(rq.lock_free);
            let mut cs = mem.core_access(c, lock, true, now) + atomic;
            if let Some(t) = list.tail() {
                cs += mem.core_access(c, ring_addr + t as u64 * k.rx_desc, true, now);
            }
            for &i in re_armed {
                list.append(&[i as u32]);
            }
            cs += mem.core_access(c, lock, true, now);
            rq.lock_free = start + cs;
            rq.driver_pi += re_armed.len() as u64;
            if measuring {
                rq.reposted += re_armed.len() as u64;
            }
            (0, start - now + cs)
        }
    }
}
