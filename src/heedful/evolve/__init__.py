"""heedful evolve: the outer loop that improves the memory harness offline.

Traces, proposal, critic, a fixed evaluator and an append-only log; see loop.py.
"""
