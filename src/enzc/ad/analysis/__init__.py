"""Analyses the engine runs before synthesizing code: activity, which memory may change,
loop iteration counts, call classification, where pointers come from."""
