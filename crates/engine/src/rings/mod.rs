//! Rx ring disciplines as pure data structures (no timing, no memory
//! model): the shared array ring of shRing (RxArr, §4.3 of the shRing
//! paper) and the shared linked free list (RxList, §4.4). The world prices
//! their cache lines and the NIC's descriptor prefetch separately.

pub mod rxarr;
pub mod rxlist;
