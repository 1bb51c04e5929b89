"""Checks of metadata that LLVM's parser makes and enzc's text-keeping model does not.

enzc keeps debug-info nodes as `!DIKind(key: value, ...)` with the values as text
(metadata.py), so a node with an unknown or repeated field, a missing required
field, a value of the wrong kind (`line: !3`, `tag: DW_ATE_float`) or a reference
to a node that is not defined would be printed back as IR that LLVM rejects.
`metadata_problems(module)` finds those. The field table below lists, per node
kind, each field LLVM 22 accepts, the kind of value it takes and whether it is
required (LLVM's LLParser is the reference).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from enzc.ir.metadata import MDRef, MDSpecialized, MDString, MDTuple, MDValue, Metadata
from enzc.ir.values import Constant, GlobalValue
from enzc.ir.verify_constants import constant_problems

# Value kinds: "md" any metadata (or null), "md!" metadata but not null, "str" a plain
# string, "bool", "u<N>" unsigned of N bits, "s<N>" signed of N bits, "int" any
# integer, "u|md"/"s|md" a number or metadata, "list" {md, ...}, and the named ones
# below (DWARF constants and LLVM's enumerations).
_ENUMS: dict[str, re.Pattern[str]] = {name: re.compile(pattern) for name, pattern in {
    "tag": r"DW_TAG_[a-zA-Z0-9_]+|\d+",
    "flags": r"(?:DIFlag[a-zA-Z0-9]+|\d+)(?:\s*\|\s*(?:DIFlag[a-zA-Z0-9]+|\d+))*",
    "spflags": r"(?:DISPFlag[a-zA-Z0-9]+|\d+)(?:\s*\|\s*(?:DISPFlag[a-zA-Z0-9]+|\d+))*",
    "lang": r"DW_LANG_[a-zA-Z0-9_]+|\d+",
    "lname": r"DW_LNAME_[a-zA-Z0-9_]+|\d+",
    "ate": r"DW_ATE_[a-zA-Z0-9_]+|\d+",
    "cc": r"DW_CC_[a-zA-Z0-9_]+|\d+",
    "virtuality": r"DW_VIRTUALITY_[a-zA-Z0-9_]+|\d+",
    "macinfo": r"DW_MACINFO_[a-zA-Z0-9_]+|\d+",
    "checksum": r"CSK_(?:MD5|SHA1|SHA256)",
    "emission": r"NoDebug|FullDebug|LineTablesOnly|DebugDirectivesOnly|\d+",
    "nametable": r"Default|GNU|None|Apple|\d+",
    "dialect": r"DW_LLVM_LANG_DIALECT_[a-zA-Z0-9_]+|\d+",
    "enumkind": r"DW_APPLE_ENUM_KIND_[a-zA-Z0-9_]+|\d+",
    "fixedkind": r"Binary|Decimal|Rational",
}.items()}

_R, _O = True, False
_COMMON_TYPE = {"name": ("str", _O), "file": ("md", _O), "line": ("u32", _O),
                "scope": ("md", _O), "size": ("u|md", _O), "align": ("u32", _O)}
FIELDS: dict[str, dict[str, tuple[str, bool]]] = {
    "DILocation": {"line": ("u32", _O), "column": ("u16", _O), "scope": ("md!", _R),
                   "inlinedAt": ("md", _O), "isImplicitCode": ("bool", _O),
                   "atomGroup": ("u64", _O), "atomRank": ("u8", _O)},
    "GenericDINode": {"tag": ("tag", _R), "header": ("str", _O), "operands": ("list", _O)},
    "DISubrangeType": {**_COMMON_TYPE, "baseType": ("md", _O), "flags": ("flags", _O),
                       "lowerBound": ("s|md", _O), "upperBound": ("s|md", _O),
                       "stride": ("s|md", _O), "bias": ("s|md", _O)},
    "DISubrange": {"count": ("s|md", _O), "lowerBound": ("s|md", _O),
                   "upperBound": ("s|md", _O), "stride": ("s|md", _O)},
    "DIGenericSubrange": {"count": ("s|md", _O), "lowerBound": ("s|md", _O),
                          "upperBound": ("s|md", _O), "stride": ("s|md", _O)},
    "DIEnumerator": {"name": ("str", _R), "value": ("int", _R), "isUnsigned": ("bool", _O)},
    "DIBasicType": {"tag": ("tag", _O), **_COMMON_TYPE, "dataSize": ("u32", _O),
                    "encoding": ("ate", _O), "num_extra_inhabitants": ("u32", _O),
                    "flags": ("flags", _O)},
    "DIFixedPointType": {"tag": ("tag", _O), **_COMMON_TYPE, "encoding": ("ate", _O),
                         "flags": ("flags", _O), "kind": ("fixedkind", _O),
                         "factor": ("s32", _O), "numerator": ("int", _O),
                         "denominator": ("int", _O)},
    "DIStringType": {"tag": ("tag", _O), "name": ("str", _O), "stringLength": ("md", _O),
                     "stringLengthExpression": ("md", _O),
                     "stringLocationExpression": ("md", _O), "size": ("u|md", _O),
                     "align": ("u32", _O), "encoding": ("ate", _O)},
    "DIDerivedType": {"tag": ("tag", _R), **_COMMON_TYPE, "baseType": ("md", _R),
                      "offset": ("u|md", _O), "flags": ("flags", _O),
                      "extraData": ("md", _O), "dwarfAddressSpace": ("u32", _O),
                      "annotations": ("md", _O), "ptrAuthKey": ("u3", _O),
                      "ptrAuthIsAddressDiscriminated": ("bool", _O),
                      "ptrAuthExtraDiscriminator": ("u16", _O),
                      "ptrAuthIsaPointer": ("bool", _O),
                      "ptrAuthAuthenticatesNullValues": ("bool", _O)},
    "DICompositeType": {"tag": ("tag", _R), **_COMMON_TYPE, "baseType": ("md", _O),
                        "offset": ("u|md", _O), "flags": ("flags", _O),
                        "elements": ("md", _O), "runtimeLang": ("lang", _O),
                        "enumKind": ("enumkind", _O), "vtableHolder": ("md", _O),
                        "templateParams": ("md", _O), "identifier": ("str", _O),
                        "discriminator": ("md", _O), "dataLocation": ("md", _O),
                        "associated": ("md", _O), "allocated": ("md", _O),
                        "rank": ("s|md", _O), "annotations": ("md", _O),
                        "num_extra_inhabitants": ("u32", _O), "specification": ("md", _O),
                        "bitStride": ("md", _O)},
    "DISubroutineType": {"flags": ("flags", _O), "cc": ("cc", _O), "types": ("md", _R)},
    "DIFile": {"filename": ("str", _R), "directory": ("str", _R),
               "checksumkind": ("checksum", _O), "checksum": ("str", _O),
               "source": ("str", _O)},
    "DICompileUnit": {"file": ("md!", _R), "language": ("lang", _O),
                      "sourceLanguageName": ("lname", _O),
                      "sourceLanguageVersion": ("u32", _O), "producer": ("str", _O),
                      "isOptimized": ("bool", _O), "flags": ("str", _O),
                      "runtimeVersion": ("u32", _O), "splitDebugFilename": ("str", _O),
                      "emissionKind": ("emission", _O), "enums": ("md", _O),
                      "retainedTypes": ("md", _O), "globals": ("md", _O),
                      "imports": ("md", _O), "macros": ("md", _O), "dwoId": ("u64", _O),
                      "splitDebugInlining": ("bool", _O),
                      "debugInfoForProfiling": ("bool", _O),
                      "nameTableKind": ("nametable", _O), "rangesBaseAddress": ("bool", _O),
                      "sysroot": ("str", _O), "sdk": ("str", _O), "dialect": ("dialect", _O)},
    "DISubprogram": {"scope": ("md", _O), "name": ("str", _O), "linkageName": ("str", _O),
                     "file": ("md", _O), "line": ("u32", _O), "type": ("md", _O),
                     "isLocal": ("bool", _O), "isDefinition": ("bool", _O),
                     "scopeLine": ("u32", _O), "containingType": ("md", _O),
                     "virtuality": ("virtuality", _O), "virtualIndex": ("u32", _O),
                     "thisAdjustment": ("s32", _O), "flags": ("flags", _O),
                     "spFlags": ("spflags", _O), "isOptimized": ("bool", _O),
                     "unit": ("md", _O), "templateParams": ("md", _O),
                     "declaration": ("md", _O), "retainedNodes": ("md", _O),
                     "thrownTypes": ("md", _O), "annotations": ("md", _O),
                     "targetFuncName": ("str", _O), "keyInstructions": ("bool", _O)},
    "DILexicalBlock": {"scope": ("md!", _R), "file": ("md", _O), "line": ("u32", _O),
                       "column": ("u16", _O)},
    "DILexicalBlockFile": {"scope": ("md!", _R), "file": ("md", _O),
                           "discriminator": ("u32", _R)},
    "DICommonBlock": {"scope": ("md", _R), "declaration": ("md", _O), "name": ("str", _O),
                      "file": ("md", _O), "line": ("u32", _O)},
    "DINamespace": {"scope": ("md", _R), "name": ("str", _O), "exportSymbols": ("bool", _O)},
    "DIMacro": {"type": ("macinfo", _R), "line": ("u32", _O), "name": ("str", _R),
                "value": ("str", _O)},
    "DIMacroFile": {"type": ("macinfo", _O), "line": ("u32", _O), "file": ("md", _R),
                    "nodes": ("md", _O)},
    "DIModule": {"scope": ("md", _R), "name": ("str", _R), "configMacros": ("str", _O),
                 "includePath": ("str", _O), "apinotes": ("str", _O), "file": ("md", _O),
                 "line": ("u32", _O), "isDecl": ("bool", _O)},
    "DITemplateTypeParameter": {"name": ("str", _O), "type": ("md", _R),
                                "defaulted": ("bool", _O)},
    "DITemplateValueParameter": {"tag": ("tag", _O), "name": ("str", _O), "type": ("md", _O),
                                 "defaulted": ("bool", _O), "value": ("md", _R)},
    "DIGlobalVariable": {"name": ("str", _O), "scope": ("md", _O), "linkageName": ("str", _O),
                         "file": ("md", _O), "line": ("u32", _O), "type": ("md", _O),
                         "isLocal": ("bool", _O), "isDefinition": ("bool", _O),
                         "templateParams": ("md", _O), "declaration": ("md", _O),
                         "align": ("u32", _O), "annotations": ("md", _O)},
    "DILocalVariable": {"scope": ("md!", _R), "name": ("str", _O), "arg": ("u16", _O),
                        "file": ("md", _O), "line": ("u32", _O), "type": ("md", _O),
                        "flags": ("flags", _O), "align": ("u32", _O),
                        "annotations": ("md", _O)},
    "DILabel": {"scope": ("md!", _R), "name": ("str", _R), "file": ("md", _R),
                "line": ("u32", _R), "column": ("u16", _O), "isArtificial": ("bool", _O),
                "coroSuspendIdx": ("u64", _O)},
    "DIGlobalVariableExpression": {"var": ("md", _R), "expr": ("md", _R)},
    "DIObjCProperty": {"name": ("str", _O), "file": ("md", _O), "line": ("u32", _O),
                       "setter": ("str", _O), "getter": ("str", _O),
                       "attributes": ("u32", _O), "type": ("md", _O)},
    "DIImportedEntity": {"tag": ("tag", _R), "scope": ("md", _R), "entity": ("md", _O),
                         "file": ("md", _O), "line": ("u32", _O), "name": ("str", _O),
                         "elements": ("md", _O)},
}
"""Node kind -> field -> (value kind, required). DIExpression, DIArgList and
DIAssignID take no `key:` fields and are checked separately."""

_STRING = re.compile(r'"[^"]*"\Z')
_DECIMAL = re.compile(r"-?\d+\Z")
_TYPED_VALUE = re.compile(r"(?:i\d+|ptr(?: addrspace\(\d+\))?|half|bfloat|float|double|fp128"
                          r"|x86_fp80|ppc_fp128)\s+\S")
_REFERENCE = re.compile(r'"[^"]*"|!(\d+)\b')
_EXPRESSION_ITEM = re.compile(r"(?:DW_OP_[a-zA-Z0-9_]+|DW_ATE_[a-zA-Z0-9_]+|\d+)\Z")


def metadata_problems(module) -> list[str]:  # type: ignore[no-untyped-def]  # Module
    """Malformed nodes and references to undefined nodes, one message each."""
    problems: list[str] = []
    defined = module.metadata
    for key, node in defined.items():
        for message in node_problems(node) + _location_problems(node, defined):
            problems.append(f"metadata !{key}: {message}")
        for ref in references(node):
            if ref not in defined:
                problems.append(f"metadata !{key}: use of undefined metadata '!{ref}'")
    for name, ids in module.named_metadata.items():
        for ref in ids:
            if ref not in defined:
                problems.append(f"named metadata !{name}: use of undefined metadata '!{ref}'")
    return problems


_LOCAL_SCOPES = ("DISubprogram", "DILexicalBlock", "DILexicalBlockFile")


def _location_problems(node: Metadata | None, defined: dict[str, Metadata]) -> list[str]:
    """LLVM's verifier on a `!DILocation`: its scope is a local scope (a subprogram or
    lexical block) and its `inlinedAt`, if any, another location. llvm-as drops such
    broken debug info with a warning, or aborts (an `inlinedAt` naming a global
    variable expression, ll:3301917); enzc.ir rejects it either way."""
    if not isinstance(node, MDSpecialized) or node.kind != "DILocation":
        return []
    fields = dict(node.fields)
    problems = []
    scope = _referenced_kind(fields.get("scope"), defined)
    if scope is not None and scope not in _LOCAL_SCOPES:
        problems.append(f"!DILocation: the scope must be a subprogram or lexical block, not !{scope}")
    inlined_at = _referenced_kind(fields.get("inlinedAt"), defined)
    if inlined_at is not None and inlined_at != "DILocation":
        problems.append(f"!DILocation: inlinedAt must be a location, not !{inlined_at}")
    return problems


def _referenced_kind(value: str | None, defined: dict[str, Metadata]) -> str | None:
    """The kind (`DISubprogram`, `tuple`, ...) of the node a field names by `!N`
    (None: no field, `null`, an undefined node or one written inline)."""
    if value is None or not value.startswith("!") or not value[1:].isdigit():
        return None
    node = defined.get(value[1:])
    if isinstance(node, MDSpecialized):
        return node.kind
    return "tuple" if isinstance(node, MDTuple) else None


def undefined_references(node: Metadata, defined: dict[str, Metadata]) -> list[str]:
    """The `!N` that `node` mentions and the module does not define."""
    return [ref for ref in references(node) if ref not in defined]


def references(node: Metadata | None) -> Iterator[str]:
    """Every numbered node id `node` refers to, nested nodes included."""
    match node:
        case MDRef(id=ref):
            yield ref
        case MDTuple():
            for operand in node.operands:
                yield from references(operand)
        case MDSpecialized():
            for _, value in node.fields:
                for m in _REFERENCE.finditer(value):
                    if m.group(1) is not None:
                        yield m.group(1)
        case MDValue() | MDString() | None:
            return
        case _:
            for m in _REFERENCE.finditer(str(node)):
                if m.group(1) is not None:
                    yield m.group(1)


def node_problems(node: Metadata | None) -> list[str]:
    """What LLVM's parser would reject in `node` (and the nodes written inside it)."""
    match node:
        case MDTuple():
            return [p for operand in node.operands for p in node_problems(operand)]
        case MDSpecialized():
            return _specialized_problems(node)
        case MDValue(value=Constant() as value) if not isinstance(value, GlobalValue):
            return constant_problems(value)  # `metadata <2 x double> <...>`: checked as anywhere
    return []


def _specialized_problems(node: MDSpecialized) -> list[str]:
    kind = node.kind
    if kind == "DIExpression":
        return [f"!DIExpression: invalid element '{value}'" for key, value in node.fields
                if key or not _EXPRESSION_ITEM.match(value)]
    if kind == "DIAssignID":
        problems = [] if node.distinct else ["missing 'distinct', required for !DIAssignID()"]
        return problems + (["!DIAssignID() takes no fields"] if node.fields else [])
    if kind == "DIArgList":
        return []
    table = FIELDS.get(kind)
    if table is None:
        return [f"unknown metadata kind '!{kind}'"]
    problems: list[str] = []
    seen: dict[str, str] = {}
    for key, value in node.fields:
        if not key:
            problems.append(f"!{kind}: expected field label before '{value[:30]}'")
        elif key not in table:
            problems.append(f"!{kind}: invalid field '{key}'")
        elif key in seen:
            problems.append(f"!{kind}: field '{key}' cannot be specified more than once")
        else:
            seen[key] = value
            message = _value_problem(table[key][0], value)
            if message:
                problems.append(f"!{kind}: field '{key}': {message}")
    problems += [f"!{kind}: missing required field '{key}'"
                 for key, (_, required) in table.items() if required and key not in seen]
    return problems + _node_rules(node, seen)


def _node_rules(node: MDSpecialized, seen: dict[str, str]) -> list[str]:
    """The few cross-field rules LLVM's parser enforces."""
    kind = node.kind
    if kind == "DICompileUnit":
        problems = [] if node.distinct else ["missing 'distinct', required for !DICompileUnit"]
        if ("language" in seen) == ("sourceLanguageName" in seen):
            problems.append("!DICompileUnit needs exactly one of 'language' and "
                            "'sourceLanguageName'")
        if "sourceLanguageVersion" in seen and "sourceLanguageName" not in seen:
            problems.append("'sourceLanguageVersion' requires 'sourceLanguageName'")
        return problems
    if kind == "DIFile" and ("checksumkind" in seen) != ("checksum" in seen):
        return ["'checksumkind' and 'checksum' must be provided together"]
    if kind == "DISubprogram" and not node.distinct:
        flags = seen.get("spFlags")
        definition = ("DISPFlagDefinition" in flags) if flags is not None \
            else seen.get("isDefinition", "true") == "true"
        if definition or (flags is not None and _decimal_has_bit(flags, 8)):
            return ["missing 'distinct', required for !DISubprogram that is a Definition"]
    if kind == "DIEnumerator" and seen.get("isUnsigned") == "true" and \
            seen.get("value", "").startswith("-"):
        return ["unsigned enumerator with negative value"]
    if kind == "DIGlobalVariable" and seen.get("name") == '""':
        return ["'name' cannot be empty"]
    return []


def _decimal_has_bit(flags: str, bit: int) -> bool:
    return any(part.strip().isdigit() and int(part) & bit for part in flags.split("|"))


def _value_problem(kind: str, value: str) -> str | None:
    """Why `value` is not a `kind` value, or None."""
    if kind in ("md", "md!"):
        return _metadata_problem(value, allow_null=kind == "md")
    if kind == "str":
        return None if _STRING.match(value) else "expected a string"
    if kind == "bool":
        return None if value in ("true", "false") else "expected 'true' or 'false'"
    if kind == "list":
        if not (value.startswith("{") and value.endswith("}")):
            return "expected '{' here"
        return None
    if kind in ("u|md", "s|md"):
        if value.startswith("!") or value == "null":
            return _metadata_problem(value, allow_null=True)
        return _integer_problem("u64" if kind == "u|md" else "s64", value)
    if kind[0] in "us" and kind[1:].isdigit() or kind == "int":
        return _integer_problem(kind, value)
    pattern = _ENUMS[kind]
    return None if pattern.fullmatch(value) else f"'{value[:30]}' is not a valid {kind} value"


def _integer_problem(kind: str, value: str) -> str | None:
    if not _DECIMAL.match(value):
        return "expected an integer"
    if kind == "int":
        return None
    number, bits = int(value), int(kind[1:])
    if kind[0] == "u":
        if number < 0:
            return "expected unsigned integer"
        return None if number < (1 << bits) else f"value for field exceeds limit ({(1 << bits) - 1})"
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return None if low <= number <= high else "value for field out of range"


def _metadata_problem(value: str, allow_null: bool) -> str | None:
    if value == "null":
        return None if allow_null else "'null' is not allowed here"
    if re.fullmatch(r"!\d+", value) or (value.startswith('!"') and _STRING.match(value[1:])):
        return None
    if value.startswith(("!{", "!DI", "!Generic")) and value.endswith(("}", ")")):
        from enzc.ir.parser_metadata import MDSyntax, parse_node

        try:
            nested = parse_node(value)
        except MDSyntax as err:
            return err.message
        problems = node_problems(nested)
        return problems[0] if problems else None
    if _TYPED_VALUE.match(value):
        return None
    return f"expected metadata, found '{value[:30]}'"
