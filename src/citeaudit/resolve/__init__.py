"""Identifier resolution: registries behind one cache."""
