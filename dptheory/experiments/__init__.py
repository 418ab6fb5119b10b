"""Paper experiments reproduced from the trained models (deterministic given the seed)."""
