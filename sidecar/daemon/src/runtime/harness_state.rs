//! State the harness integrations keep for the life of the daemon, held by the runtime without
//! knowing its types: the harnesses are a tier above the runtime, so [`App`] holds no harness;
//! each harness asks for its own state, by type, and creates it on first use.
//!
//! [`App`]: crate::runtime::app::App

use dashmap::DashMap;
use std::any::{Any, TypeId};
use std::sync::Arc;

/// One value per type, created on first use and shared by every clone of the `App`.
#[derive(Default)]
pub struct HarnessState {
    by_type: DashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl HarnessState {
    /// The `T` kept here, made by `init` if there is none yet (once: a racing second `init` is
    /// not run).
    pub fn get_or_init<T: Any + Send + Sync>(&self, init: impl FnOnce() -> T) -> Arc<T> {
        let key = TypeId::of::<T>();
        let held = match self.by_type.get(&key) {
            Some(held) => held.clone(),
            None => self.by_type.entry(key).or_insert_with(|| Arc::new(init())).clone(),
        };
        match held.downcast::<T>() {
            Ok(state) => state,
            // Keyed by the type's id: what is stored under it is a `T`.
            Err(_) => unreachable!("harness state stored under another type's id"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::HarnessState;

    #[test]
    fn each_type_gets_one_value_made_once_and_shared() {
        let state = HarnessState::default();
        let first = state.get_or_init(|| 7u32);
        let again = state.get_or_init::<u32>(|| panic!("made twice"));
        assert!(std::sync::Arc::ptr_eq(&first, &again));
        assert_eq!(*state.get_or_init(|| String::from("other type")), "other type");
        assert_eq!(*again, 7);
    }
}
