"""Type analysis: a type tree (byte offset -> Integer/Float/Pointer/...) for every value,
interprocedural and context sensitive, so the engine can pick adjoints where the IR
type does not say (an `i64` that moves a double, a memcpy of untyped bytes)."""
