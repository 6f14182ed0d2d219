"""Benchmark commands (``kahuna bench …``): figures printed, never asserted by tests."""
