"""Derivative rules: the rule DSL and its table (libm, LLVM intrinsics), complex
arithmetic, user-supplied custom derivatives, reuse of forward math."""
