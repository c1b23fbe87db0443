//! Property tests: random insertions of lexicon words never survive a rewrite.
