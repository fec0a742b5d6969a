"""heedful evolve: the outer loop that improves the memory harness offline (traces, proposal, critic, fixed evaluator, log)."""
