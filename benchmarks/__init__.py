"""arena benchmarks: `make bench` runs them all (`python -m benchmarks`)."""
