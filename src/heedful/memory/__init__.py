"""The memory kernel: an append-only, bitemporal record per user, and recall over it."""
