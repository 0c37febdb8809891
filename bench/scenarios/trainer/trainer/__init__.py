"""trainyard benchmark trainer (bench/scenarios)."""
