"""BMv2's STF tests: their syntax and a runner against any target."""
