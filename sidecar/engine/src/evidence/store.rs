//! Where a graph keeps its artifacts: in fixed-size chunks, found by the number in their id.
//!
//! A trajectory's graph only grows (one artifact per handoff, response, tool result…), so one
//! `Vec` of them would be reallocated and copied whole each time it doubles, and a big one lands
//! on fresh huge pages the kernel must clear. Chunks of [`CHUNK`] are never copied once full; a
//! chunk grows like any `Vec` until then (4, 8, … 64), so a trajectory of a few artifacts does
//! not hold room for 64 of them (≈ 27 KB). The graph names its `n`-th artifact `ev-<n>`
//! (1-based), so an id is found by parsing its number and checking the artifact there carries
//! exactly that id: no index map, no hashing.

use blindfold_schemas::EvidenceArtifact;

/// Artifacts per chunk.
const CHUNK: usize = 64;

/// The id the graph gives its `n`-th artifact (1-based).
pub(super) fn id_of(n: usize) -> String {
    format!("ev-{n}")
}

/// The artifacts of one graph, in insertion order.
#[derive(Debug, Clone, Default)]
pub(super) struct ArtifactStore {
    chunks: Vec<Vec<EvidenceArtifact>>,
    len: usize,
}

impl ArtifactStore {
    /// Number of artifacts.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Appends an artifact whose id must be [`id_of`]`(len + 1)`.
    pub(super) fn push(&mut self, artifact: EvidenceArtifact) {
        debug_assert_eq!(artifact.evidence_id, id_of(self.len + 1));
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(artifact),
            _ => self.chunks.push(vec![artifact]),
        }
        self.len += 1;
    }

    /// The position of the artifact with id `id`, if there is one.
    fn position(&self, id: &str) -> Option<usize> {
        let digits = id.strip_prefix("ev-")?;
        // Only plain decimal digits (`usize::from_str` would also take a leading `+`); the id
        // comparison below rules out every other spelling of the number (leading zeros).
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: usize = digits.parse().ok()?;
        let i = n.checked_sub(1).filter(|&i| i < self.len)?;
        (self.at(i).evidence_id == id).then_some(i)
    }

    fn at(&self, i: usize) -> &EvidenceArtifact {
        &self.chunks[i / CHUNK][i % CHUNK]
    }

    /// The artifact with id `id`.
    pub(super) fn get(&self, id: &str) -> Option<&EvidenceArtifact> {
        self.position(id).map(|i| self.at(i))
    }

    /// The artifact with id `id`, to change it.
    pub(super) fn get_mut(&mut self, id: &str) -> Option<&mut EvidenceArtifact> {
        let i = self.position(id)?;
        Some(&mut self.chunks[i / CHUNK][i % CHUNK])
    }

    /// Every artifact, oldest first.
    pub(super) fn iter(&self) -> impl Iterator<Item = &EvidenceArtifact> {
        self.chunks.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// The store this one replaced, as the oracle: one `Vec` and a map from id to position.
    #[derive(Default)]
    struct Indexed {
        artifacts: Vec<EvidenceArtifact>,
        index: HashMap<String, usize>,
    }

    impl Indexed {
        fn push(&mut self, a: EvidenceArtifact) {
            self.index.insert(a.evidence_id.clone(), self.artifacts.len());
            self.artifacts.push(a);
        }
        fn get(&self, id: &str) -> Option<&EvidenceArtifact> {
            self.index.get(id).map(|&i| &self.artifacts[i])
        }
    }

    fn artifact(n: usize, producer: String) -> EvidenceArtifact {
        EvidenceArtifact {
            evidence_id: id_of(n),
            producer,
            producer_family: None,
            channel: blindfold_schemas::Channel::C4,
            provenance: blindfold_schemas::Provenance::default(),
            lifecycle_state: blindfold_schemas::Lifecycle::Candidate,
            needs_revalidation: false,
            claim_relations: Vec::new(),
            independence_group: String::new(),
            scope: blindfold_schemas::EvidenceScope::default(),
            transitions: Vec::new(),
        }
    }

    /// Ids to look up: real ones, near misses and other spellings of real numbers.
    fn query() -> impl Strategy<Value = String> {
        prop_oneof![
            (0usize..400).prop_map(id_of),
            (0usize..400).prop_map(|n| format!("ev-0{n}")),
            (0usize..400).prop_map(|n| format!("ev-+{n}")),
            (0usize..400).prop_map(|n| format!("ev-{n} ")),
            (0usize..400).prop_map(|n| format!("EV-{n}")),
            (0usize..400).prop_map(|n| n.to_string()),
            Just("ev-".to_owned()),
            Just("ev-18446744073709551616".to_owned()),
            Just(format!("ev-{}", usize::MAX)),
            "\\PC{0,12}",
        ]
    }

    #[test]
    fn a_chunk_holds_room_for_what_it_holds_and_never_more_than_a_chunk() {
        let mut store = ArtifactStore::default();
        for n in 1..=3 {
            store.push(artifact(n, String::new()));
        }
        assert!(
            store.chunks[0].capacity() < CHUNK,
            "a small graph holds {} slots",
            store.chunks[0].capacity()
        );
        for n in 4..=200 {
            store.push(artifact(n, String::new()));
        }
        assert_eq!(store.chunks.len(), 200usize.div_ceil(CHUNK));
        assert!(store.chunks.iter().all(|c| c.capacity() <= CHUNK && c.len() <= CHUNK));
        assert!(store.chunks[..3].iter().all(|c| c.len() == CHUNK), "full chunks before the last");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Lookups, changes and iteration agree with the map-indexed store.
        #[test]
        fn agrees_with_the_indexed_store(
            producers in proptest::collection::vec("[a-z]{0,4}", 0..300),
            queries in proptest::collection::vec(query(), 0..64),
            touched in proptest::collection::vec(0usize..320, 0..16),
        ) {
            let (mut store, mut oracle) = (ArtifactStore::default(), Indexed::default());
            for (i, p) in producers.iter().enumerate() {
                store.push(artifact(i + 1, p.clone()));
                oracle.push(artifact(i + 1, p.clone()));
            }
            for n in &touched {
                let id = id_of(*n);
                if let Some(a) = store.get_mut(&id) {
                    a.needs_revalidation = true;
                }
                if let Some(&i) = oracle.index.get(&id) {
                    oracle.artifacts[i].needs_revalidation = true;
                }
            }
            prop_assert_eq!(store.len(), oracle.artifacts.len());
            for q in &queries {
                prop_assert_eq!(store.get(q), oracle.get(q), "id {:?}", q);
            }
            prop_assert!(store.iter().eq(oracle.artifacts.iter()));
        }
    }
}
