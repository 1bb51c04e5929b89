"""Synthesis of derived functions: set-up of the private copy, per-derivative state, the
reverse and forward visitors, split mode, caches and tapes."""
