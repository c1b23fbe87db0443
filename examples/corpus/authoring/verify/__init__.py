"""Verifier answers, one module per language (see ../../README.md)."""
