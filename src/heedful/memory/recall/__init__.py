"""Recall: six routes fused with weighted RRF into a token budget, explainable per item."""
