"""The generated CPython extension that calls the library's functions.

One METH_FASTCALL function per C function: it checks the argument count, takes each
array through the buffer protocol (dtype, C-contiguity and, where C writes, that it
is writable, each error naming the argument), converts scalars, releases the GIL
for the call and converts the result. No ctypes marshalling: a call with two small
arrays costs well under a microsecond more than the C function itself.
"""

from __future__ import annotations

from enzc.python.ctype import Pointer, Scalar, describe
from enzc.python.signature import Signature

_HELPERS = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    const char *fn, *arg, *formats, *dtype, *ctype;
    Py_ssize_t itemsize;
    int writable;
} enzc_array_arg;

static int enzc_array(PyObject *obj, Py_buffer *view, const enzc_array_arg *a)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_RECORDS_RO) != 0) {
        view->obj = NULL;
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a C-contiguous %s array "
                     "(%s), not %.200s", a->fn, a->arg, a->dtype, a->ctype, Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *f = view->format ? view->format : "B";
    while (*f == '@' || *f == '=' || *f == '<')
        f++;
    if (f[0] == 0 || f[1] != 0 || !strchr(a->formats, f[0]) || view->itemsize != a->itemsize) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a %s array (%s), "
                     "got elements of format '%s' (%zd bytes)", a->fn, a->arg, a->dtype,
                     a->ctype, view->format ? view->format : "B", view->itemsize);
        return -1;
    }
    if (!PyBuffer_IsContiguous(view, 'C')) {
        PyErr_Format(PyExc_ValueError, "%s(): argument '%s' must be C-contiguous "
                     "(numpy.ascontiguousarray makes a contiguous copy)", a->fn, a->arg);
        return -1;
    }
    if (a->writable && view->readonly) {
        PyErr_Format(PyExc_ValueError, "%s(): argument '%s' is read-only, but the C code "
                     "writes through it (%s is not const)", a->fn, a->arg, a->ctype);
        return -1;
    }
    return 0;
}

static int enzc_real(PyObject *obj, double *out, const char *fn, const char *arg)
{
    if (!PyFloat_Check(obj) && !PyLong_Check(obj) && !PyNumber_Check(obj))
        goto bad;
    *out = PyFloat_AsDouble(obj);
    if (*out == -1.0 && PyErr_Occurred())
        goto bad;
    return 0;
bad:
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a real number, not %.200s",
                 fn, arg, Py_TYPE(obj)->tp_name);
    return -1;
}

static int enzc_integer(PyObject *obj, long long *out, long long lo, long long hi,
                        const char *fn, const char *arg)
{
    int overflow = 0;
    PyObject *index = PyNumber_Index(obj);
    if (index == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be an integer, not %.200s",
                     fn, arg, Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (overflow || *out < lo || *out > hi) {
        PyErr_Format(PyExc_OverflowError, "%s(): argument '%s' is out of range for its C type",
                     fn, arg);
        return -1;
    }
    return 0;
}

static int enzc_unsigned(PyObject *obj, unsigned long long *out, unsigned long long hi,
                         const char *fn, const char *arg)
{
    PyObject *index = PyNumber_Index(obj);
    if (index == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be an integer, not %.200s",
                     fn, arg, Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if ((*out == (unsigned long long)-1 && PyErr_Occurred()) || *out > hi) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError, "%s(): argument '%s' is out of range for its C type",
                     fn, arg);
        return -1;
    }
    return 0;
}
"""

_INT_RANGE = {1: ("-128LL", "127LL", "255ULL"), 2: ("-32768LL", "32767LL", "65535ULL"),
              4: ("-2147483648LL", "2147483647LL", "4294967295ULL"),
              8: ("(-9223372036854775807LL - 1)", "9223372036854775807LL",
                  "18446744073709551615ULL")}


def shim_source(module_name: str, functions: list[tuple[str, Signature]]) -> str:
    """C source of the extension module `module_name`: (Python-visible name, signature)
    pairs, each calling the C function `signature.name`."""
    out = [_HELPERS]
    for display, sig in functions:
        out.append(_function(display, sig))
    table = "\n".join(f'    {{"{sig.name}", (PyCFunction)(void (*)(void))enzc_py_{sig.name}, '
                      f'METH_FASTCALL, NULL}},' for _, sig in functions)
    out.append(f"""
static PyMethodDef enzc_methods[] = {{
{table}
    {{NULL, NULL, 0, NULL}}
}};

static struct PyModuleDef enzc_module = {{
    PyModuleDef_HEAD_INIT, "{module_name}", "C functions loaded by enzc.load", -1, enzc_methods
}};

PyMODINIT_FUNC PyInit_{module_name}(void) {{ return PyModule_Create(&enzc_module); }}
""")
    return "\n".join(out)


def _function(display: str, sig: Signature) -> str:
    n = len(sig.params)
    names = ", ".join(p.name for p in sig.params)
    decls, converts, call_args, releases = [], [], [], []
    statics = []
    for i, p in enumerate(sig.params):
        ctype = p.ctype
        if isinstance(ctype, Pointer):
            e = ctype.element
            statics.append(f'static const enzc_array_arg enzc_arg_{sig.name}_{i} = {{"{display}", '
                           f'"{p.name}", "{e.formats}", "{e.dtype.name}", '
                           f'"{_c_string(describe(ctype))}{p.name}", {e.size}, {int(p.written)}}};')
            decls.append(f"Py_buffer b{i}; b{i}.obj = NULL;")
            converts.append(f"if (enzc_array(args[{i}], &b{i}, &enzc_arg_{sig.name}_{i}) < 0) "
                            "goto done;")
            call_args.append(f"b{i}.buf")
            releases.append(f"if (b{i}.obj) PyBuffer_Release(&b{i});")
        elif isinstance(ctype, Scalar):
            decls.append(_scalar_decl(ctype, i))
            converts.append(_scalar_convert(ctype, i, display, p.name))
            call_args.append(f"({ctype.c_decl})a{i}")
    proto_params = ", ".join("void *" if isinstance(p.ctype, Pointer) else
                             p.ctype.c_decl for p in sig.params if
                             isinstance(p.ctype, (Pointer, Scalar))) or "void"
    result = sig.result if isinstance(sig.result, Scalar) else None
    ret_decl = result.c_decl if result else "void"
    call = f"{sig.name}({', '.join(call_args)})"
    if result is None:
        run, box = f"{call};", "Py_INCREF(Py_None); result = Py_None;"
    else:
        decls.append(f"{result.c_decl} r;")
        run, box = f"r = {call};", f"result = {_box(result)};"
    lines = "\n    ".join([*decls, "PyObject *result = NULL;", *converts])
    return f"""
{ret_decl} {sig.name}({proto_params});
{chr(10).join(statics)}
static PyObject *enzc_py_{sig.name}(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{{
    (void)self;
    if (nargs != {n}) {{
        PyErr_Format(PyExc_TypeError, "{display}() takes {n} argument{'s' if n != 1 else ''} "
                     "({_c_string(names)}), %zd given", nargs);
        return NULL;
    }}
    {lines}
    Py_BEGIN_ALLOW_THREADS
    {run}
    Py_END_ALLOW_THREADS
    {box}
    goto done;
done:
    {' '.join(releases)}
    return result;
}}
"""


def _scalar_decl(ctype: Scalar, i: int) -> str:
    if ctype.kind == "f":
        return f"double a{i};"
    if ctype.kind == "u":
        return f"unsigned long long a{i};"
    return f"long long a{i};"


def _scalar_convert(ctype: Scalar, i: int, display: str, name: str) -> str:
    where = f'"{display}", "{name}"'
    if ctype.kind == "f":
        return f"if (enzc_real(args[{i}], &a{i}, {where}) < 0) goto done;"
    lo, hi, uhi = _INT_RANGE[ctype.size]
    if ctype.kind == "b":
        lo, hi = "0LL", "1LL"
    if ctype.kind == "u":
        return f"if (enzc_unsigned(args[{i}], &a{i}, {uhi}, {where}) < 0) goto done;"
    return f"if (enzc_integer(args[{i}], &a{i}, {lo}, {hi}, {where}) < 0) goto done;"


def _box(ctype: Scalar) -> str:
    if ctype.kind == "f":
        return "PyFloat_FromDouble((double)r)"
    if ctype.kind == "b":
        return "PyBool_FromLong((long)r)"
    if ctype.kind == "u":
        return "PyLong_FromUnsignedLongLong((unsigned long long)r)"
    return "PyLong_FromLongLong((long long)r)"


def _c_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
