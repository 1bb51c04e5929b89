"""LLVM's rules for the types atomic accesses may move (LLParser's and the verifier's):

- `load atomic` / `store atomic`: an integer, pointer, floating-point or vector type;
- `atomicrmw xchg`: integer, floating point or pointer; the floating-point operations
  (fadd, fsub, fmax, fmin, fmaximum, fminimum) a float or vector of floats; the others
  an integer;
- `cmpxchg`: an integer or a pointer;
- and every one of them at least a byte and a power of two bits wide (`i1`, `i24`,
  `x86_fp80` are not).
"""

from __future__ import annotations

from enzc.ir.datalayout import DataLayout, DataLayoutError
from enzc.ir.instructions import AtomicRMW, CmpXchg, Instruction, Load, Store
from enzc.ir.types import FloatType, IntType, PointerType, Type, VectorType

_FLOAT_OPERATIONS = frozenset(("fadd", "fsub", "fmax", "fmin", "fmaximum", "fminimum"))


def atomic_problem(inst: Instruction, layout: DataLayout) -> str | None:
    """Why LLVM rejects the type `inst` accesses atomically, or None (also for
    instructions that are not atomic accesses)."""
    match inst:
        case Load(ordering=str()) | Store(ordering=str()):
            accessed = inst.type if isinstance(inst, Load) else inst.value.type
            scalar = accessed.element if isinstance(accessed, VectorType) else accessed
            if not isinstance(scalar, (IntType, PointerType, FloatType)):
                return (f"atomic {inst.opcode} operand must have integer, pointer, floating "
                        f"point, or vector type, not {accessed}")
        case AtomicRMW():
            accessed = inst.value.type
            if problem := _rmw_type_problem(inst.operation, accessed):
                return problem
        case CmpXchg():
            accessed = inst.operand(1).type
            if not isinstance(accessed, (IntType, PointerType)):
                return f"cmpxchg operand must have integer or pointer type, not {accessed}"
        case _:
            return None
    return _size_problem(accessed, layout)


def _rmw_type_problem(operation: str, t: Type) -> str | None:
    if operation == "xchg":
        ok = isinstance(t, (IntType, FloatType, PointerType))
        wanted = "an integer, floating point, or pointer type"
    elif operation in _FLOAT_OPERATIONS:
        ok = isinstance(t.element if isinstance(t, VectorType) else t, FloatType)
        wanted = "a floating point type"
    else:
        ok = isinstance(t, IntType)
        wanted = "an integer"
    return None if ok else f"atomicrmw {operation} operand must be {wanted}, not {t}"


def _size_problem(t: Type, layout: DataLayout) -> str | None:
    try:
        bits = layout.size_in_bits(t)
    except DataLayoutError:
        return None  # a type without a size is reported by the type checks
    if bits < 8:
        return f"atomic memory access' size must be byte-sized ({t})"
    if bits & (bits - 1):
        return f"atomic memory access' operand must have a power-of-two size ({t})"
    return None
