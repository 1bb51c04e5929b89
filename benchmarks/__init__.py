"""Benchmarks of enzc (run as modules from the repository root)."""
