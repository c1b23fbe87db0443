//! A listener's connection slots (`[limits] max_connections`): a connection holds one while it
//! is open. Connections that have not yet sent their first request's headers are also queued by
//! age; when every slot is taken, the oldest of them is closed and its slot handed to the new
//! connection, so a flood of connections that never finish their headers cannot lock out
//! clients that do (the health endpoint keeps answering). Connections past their headers are
//! never evicted: when all slots are theirs, a new connection is refused.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// The slots of one listener.
#[derive(Debug)]
pub struct Slots {
    max: usize,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    open: usize,
    next_id: u64,
    /// Connections still waiting for their first headers, oldest (lowest id) first.
    waiting: BTreeMap<u64, Waiting>,
}

#[derive(Debug)]
struct Waiting {
    evict: CancellationToken,
    /// Cleared when the slot is handed to another connection.
    holds_slot: Arc<AtomicBool>,
}

/// One connection's slot: released when dropped (unless it was handed on at an eviction).
#[derive(Debug)]
pub struct Slot {
    slots: Arc<Slots>,
    id: u64,
    holds_slot: Arc<AtomicBool>,
    /// Cancelled when this connection is evicted to admit a newer one.
    pub evicted: CancellationToken,
}

impl Slots {
    /// `max` slots (at least one).
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(Self { max: max.max(1), state: Mutex::new(State::default()) })
    }

    /// A slot for a new connection: a free one, else the slot of the oldest connection still
    /// waiting for its headers (that connection is told to close); `None` when every slot is
    /// held by a connection past its headers.
    pub fn admit(self: &Arc<Self>) -> Option<Slot> {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if state.open < self.max {
            state.open += 1;
        } else {
            let (_, victim) = state.waiting.pop_first()?;
            victim.holds_slot.store(false, Ordering::Release);
            victim.evict.cancel();
        }
        state.next_id += 1;
        let id = state.next_id;
        let holds_slot = Arc::new(AtomicBool::new(true));
        let evicted = CancellationToken::new();
        state.waiting.insert(id, Waiting { evict: evicted.clone(), holds_slot: holds_slot.clone() });
        Some(Slot { slots: self.clone(), id, holds_slot, evicted })
    }

    /// Slots in use.
    pub fn open(&self) -> usize {
        self.state.lock().map(|s| s.open).unwrap_or(self.max)
    }
}

impl Slot {
    /// The connection has sent its first complete headers: it is no longer evictable.
    pub fn headers_done(&self) {
        if let Ok(mut state) = self.slots.state.lock() {
            state.waiting.remove(&self.id);
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut state = self.slots.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        state.waiting.remove(&self.id);
        if self.holds_slot.load(Ordering::Acquire) {
            state.open = state.open.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_pool_evicts_the_oldest_connection_still_sending_headers() {
        let slots = Slots::new(3);
        let first = slots.admit().expect("1");
        let second = slots.admit().expect("2");
        let third = slots.admit().expect("3");
        second.headers_done();
        let fourth = slots.admit().expect("evicts the first");
        assert!(first.evicted.is_cancelled());
        assert!(!second.evicted.is_cancelled() && !third.evicted.is_cancelled());
        assert_eq!(slots.open(), 3);
        // The evicted connection closing does not free the slot it handed on.
        drop(first);
        assert_eq!(slots.open(), 3);
        let fifth = slots.admit().expect("evicts the third");
        assert!(third.evicted.is_cancelled());
        drop((third, fourth, fifth));
        assert_eq!(slots.open(), 1, "only the second, past its headers, still holds a slot");
        drop(second);
        assert_eq!(slots.open(), 0);
    }

    #[test]
    fn connections_past_their_headers_are_never_evicted() {
        let slots = Slots::new(2);
        let a = slots.admit().expect("a");
        let b = slots.admit().expect("b");
        a.headers_done();
        b.headers_done();
        assert!(slots.admit().is_none(), "refused: nobody is waiting for headers");
        drop(a);
        assert!(slots.admit().is_some(), "a released slot is reused");
    }
}
