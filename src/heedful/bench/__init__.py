"""Benchmarks behind `heedful bench ...`: each module has `run(...) -> dict` and a `cli` command."""
