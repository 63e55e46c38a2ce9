"""Answers aggregated from datasets: statistics (Wilson intervals, z-scores) and
combination-frequency tables."""
