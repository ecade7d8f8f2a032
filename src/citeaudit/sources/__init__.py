"""Text of cited sources."""
