"""Prints one line; the job only matters for how long its package takes to install."""
print("slow_setup ran")
