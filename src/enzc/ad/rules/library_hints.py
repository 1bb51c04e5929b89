"""What to tell the user when active data flows into a library enzc cannot differentiate.

The generic hint (register a custom derivative, or mark the function inactive)
is wrong advice for runtimes that call back into the user's code or run it in
parallel: a custom derivative of `__kmpc_fork_call` is not something a user can
write. These families get a hint about what to change in the program instead.
"""

from __future__ import annotations

import re

_FAMILIES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("__kmpc_", "omp_", "GOMP_"),
     "this OpenMP runtime call is not differentiated: use '#pragma omp parallel for' with reduction(+), "
     "critical or atomic (docs/parallel.md lists what is supported), or move it out of the differentiated code"),
    (("MPI_", "PMPI_"),
     "differentiated MPI code may use MPI_Send/MPI_Recv, MPI_Isend/MPI_Irecv with MPI_Wait/MPI_Waitall, "
     "MPI_Bcast, MPI_Reduce with MPI_SUM and MPI_Allreduce with MPI_SUM, MPI_MAX or MPI_MIN on MPI_DOUBLE or "
     "MPI_FLOAT buffers (docs/parallel.md)"),
    (("pthread_", "thrd_", "__cxa_thread"),
     "threads are not differentiated: run the differentiated code on one thread"),
    (("lfind", "lsearch", "tsearch", "tfind"),
     "this library function calls back into your code (a comparator): write the search in the "
     "differentiated code (qsort and bsearch are differentiated), or do it outside and pass the result "
     "in as constant data"),
    (("setjmp", "longjmp", "_setjmp", "__longjmp", "sigsetjmp", "siglongjmp"),
     "non-local jumps are not differentiated: return error codes instead"),
)


_BLAS_WITHOUT_RULE = re.compile(
    r"^(cblas_)?(i?[sdcz](gbmv|sbmv|spmv|tbmv|tbsv|tpmv|tpsv|hemv|hemm|herk|her2k|her2?|"
    r"syr2?k?|symm|spr2?|rotm?g?|swap|amax|amin)|[cz](dot[uc]?|nrm2|asum|axpy|scal|copy|gemv|gemm|ger[uc]?|"
    r"trsm|trmm|trmv|trsv)"
    r"|dz(nrm2|asum)|scnrm2|scasum)(_sub|_|_64_)?$")
_BLAS_WITH_RULE = re.compile(r"^[sd](dot|nrm2|asum|axpy|scal|copy|gemv|symv|ger|gemm|syrk|trmv|trsv|trmm|trsm)"
                             r"(_|_64_)$")
_LAPACK = re.compile(r"^(LAPACKE_[sdcz][a-z0-9]+(_work)?|[sdcz][a-z]{4,5}(_|_64_))$")

BLAS_HINT = ("enzc has derivative rules for the BLAS routines dot, nrm2, asum, axpy, scal, copy, gemv, symv, "
             "ger, gemm and syrk (s and d, CBLAS, Fortran and cuBLAS) and trmv, trsv, trmm and trsm (s and d, "
             "CBLAS and Fortran), not this one: register a custom derivative "
             "(__enzyme_register_gradient_{name}) or call a supported routine")
LAPACK_HINT = ("of LAPACK, enzc differentiates lascl, and potrf and lacpy in forward mode only: register a custom "
               "derivative (__enzyme_register_gradient_{name}), written with LAPACK itself, or mark the call "
               "inactive if no derivative flows through it")


def library_hint(name: str) -> str | None:
    """A specific hint for a call to `name`, when it belongs to a family above, or is a
    BLAS routine without a rule, or a LAPACK routine."""
    for prefixes, hint in _FAMILIES:
        if name.startswith(prefixes):
            return hint
    if _BLAS_WITHOUT_RULE.match(name):
        return BLAS_HINT.format(name=name)
    if _LAPACK.match(name) and not _BLAS_WITH_RULE.match(name):
        return LAPACK_HINT.format(name=name)
    return None
