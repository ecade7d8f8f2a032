"""Deterministic checks, each a pure function returning findings."""
