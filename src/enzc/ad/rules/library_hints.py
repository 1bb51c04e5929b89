"""What to tell the user when active data flows into a library enzc cannot differentiate.

The generic hint (register a custom derivative, or mark the function inactive)
is wrong advice for runtimes that call back into the user's code or run it in
parallel: a custom derivative of `__kmpc_fork_call` is not something a user can
write. These families get a hint about what to change in the program instead.
"""

from __future__ import annotations

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
    (("qsort", "bsearch", "lfind", "lsearch"),
     "this library function calls back into your code (a comparator): write the sort or search "
     "in the differentiated code, or do it outside and pass the result in as constant data"),
    (("setjmp", "longjmp", "_setjmp", "__longjmp", "sigsetjmp", "siglongjmp"),
     "non-local jumps are not differentiated: return error codes instead"),
)


def library_hint(name: str) -> str | None:
    """A specific hint for a call to `name`, when it belongs to a family above."""
    for prefixes, hint in _FAMILIES:
        if name.startswith(prefixes):
            return hint
    return None
