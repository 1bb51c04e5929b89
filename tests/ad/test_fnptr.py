"""Which functions an indirect call may reach: those used as values somewhere in the
module (`indirect_targets.address_taken`), read from the operands of the IR, not from its text."""

from __future__ import annotations

from enzc.ad.analysis.indirect_targets import address_taken
from enzc.ir import parse_module

# Names that extend other names: a direct call of the longer one is no use of the
# shorter one as a value.
PREFIX_PAIRS = [
    ("cos", "cosh"), ("sin", "sinh"), ("tan", "tanh"), ("atan", "atan2"), ("atan", "atanh"),
    ("log", "log1p"), ("log", "log2"), ("log", "log10"), ("exp", "exp2"), ("exp", "expm1"),
    ("asin", "asinh"), ("acos", "acosh"), ("erf", "erfc"), ("sin", "sinf"), ("cos", "cosf"),
    ("sinf", "sinhf"), ("cosf", "coshf"), ("expf", "expm1f"), ("logf", "log1pf"), ("atanf", "atan2f"),
    ("sqrt", "sqrtf"), ("pow", "powf"),
]
NAMES = sorted({n for pair in PREFIX_PAIRS for n in pair})


def _module(body: str) -> str:
    decls = "\n".join(f"declare double @{n}(double)" for n in NAMES)
    return f"""{decls}
define internal double @user_a(double %x) {{
  ret double %x
}}
define internal double @user_b(double %x) {{
  %y = fmul double %x, %x
  ret double %y
}}
{body}
"""


def test_direct_calls_of_longer_names_take_no_address() -> None:
    calls = "\n".join(f"  %c{i} = call double @{long}(double %x)" for i, (_, long) in enumerate(PREFIX_PAIRS))
    body = f"""
@table = internal constant [2 x ptr] [ptr @user_a, ptr @user_b]
define double @f(double %x, i64 %k) {{
{calls}
  %p = getelementptr [2 x ptr], ptr @table, i64 0, i64 %k
  %fp = load ptr, ptr %p
  %r = call double %fp(double %x)
  ret double %r
}}
"""
    assert address_taken(parse_module(_module(body))) == {"user_a", "user_b"}


def test_uses_as_values_are_found_wherever_they_are() -> None:
    """In an initializer's nested aggregate, a constant expression, a call argument,
    a stored operand, a select and a phi; and in a body that was never parsed."""
    body = """
@ops = internal constant { i32, [1 x { ptr, double }] } { i32 1, [1 x { ptr, double }] [{ ptr, double } { ptr @cosh, double 1.0 }] }
@addr = internal constant i64 ptrtoint (ptr @log1p to i64)
declare void @register(ptr)
define void @g(ptr %slot, i1 %c) {
entry:
  call void @register(ptr @exp2)
  store ptr @sinh, ptr %slot
  %s = select i1 %c, ptr @atan2, ptr @user_a
  store ptr %s, ptr %slot
  br label %next
next:
  %q = phi ptr [ @erfc, %entry ]
  store ptr %q, ptr %slot
  ret void
}
define double @h(double %x) {
  %y = call double @cos(double %x)
  ret double %y
}
"""
    module = parse_module(_module(body))
    assert address_taken(module) == {"cosh", "log1p", "exp2", "sinh", "atan2", "user_a", "erfc"}
    assert not module.functions["h"].is_materialized  # only direct calls: its text is enough
