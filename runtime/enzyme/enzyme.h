/*
 * enzyme/enzyme.h -- the interface of enzc (Enzyme-compatible), for C and C++.
 *
 * Calls to the functions below are replaced at compile time by enzcc/enzc++: they
 * have no definition and are never called at run time. Before each argument of the
 * differentiated function a marker may say how it is treated:
 *
 *   __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
 *
 *   enzyme_const      x       inactive
 *   enzyme_dup        x, dx   active; reverse mode adds the derivative into *dx,
 *                             forward mode reads the tangent from dx (a float's by value)
 *   enzyme_dupnoneed  x, dx   like dup, the primal result through x is not needed
 *   enzyme_out        x       active scalar; its derivative is returned
 *   enzyme_width, N           (first) N directions at once: forward mode N tangents
 *                             per argument and N results; reverse mode N shadows per
 *                             pointer, every lane's result seeded with 1.0, and N
 *                             adjoints per enzyme_out argument ({double dx[N]; ...})
 *   enzyme_dupv, s, x, dx     with enzyme_width: one shadow buffer, lane k at dx + k*s bytes
 *   enzyme_primal_return      (first) also return f's result: reverse mode before
 *                             the derivatives, forward mode as {result, tangent}
 *   enzyme_runtime_activity   (anywhere) runtime activity: a shadow equal to its primal
 *                             (enzyme_dup x, x; a shadow struct holding the primal
 *                             pointer) marks inactive memory, checked at run time
 *
 * Without a marker: integers are const, floating values out (in forward mode dup:
 * the value, then its tangent), pointers dup.
 * The entry points are matched by name prefix, so a program may declare its own
 * variants with other return types (e.g. `Pair __enzyme_autodiff_pair(void *, ...)`);
 * define ENZC_NO_PROTOTYPES before including this header to get only the markers.
 * In C++, `__enzyme_autodiff<R>(fn, args...)` returns R and passes arguments
 * without C's default promotions (a float stays a float).
 */
#ifndef ENZYME_ENZYME_H
#define ENZYME_ENZYME_H

#ifdef __cplusplus
extern "C" {
#endif

/* Argument markers: only their addresses/values are used, never their definitions. */
extern int enzyme_dup, enzyme_dupnoneed, enzyme_const, enzyme_out, enzyme_width,
    enzyme_dupv, enzyme_dupnoneedv, enzyme_allocated, enzyme_tape, enzyme_nofree, enzyme_primal_return, enzyme_nocache,
    enzyme_vector, enzyme_scalar, enzyme_buffer, enzyme_runtime_activity;
/* __enzyme_batch (f for enzyme_width lanes; declare it with the result type you need,
 * e.g. `Four __enzyme_batch(void *, ...)`), __enzyme_iter(n, k) (a loop bound that
 * grows by k per derivative order; declare it with your integer type) and
 * __enzyme_todense(load, store, args...) (a pointer whose loads at byte offset off call
 * load(off, args...) and whose stores of v call store(v, off, args...); declare it
 * returning your element pointer, e.g. `double *__enzyme_todense(void *, void *, ...)`)
 * are not declared here: their types are the program's. */

#ifndef ENZC_NO_PROTOTYPES
/* Reverse mode: returns the derivative of the (single) `out` argument. */
double __enzyme_autodiff(void *fn, ...);
/* Forward mode: returns the tangent of fn's result. */
double __enzyme_fwddiff(void *fn, ...);
/* Forward error estimation: each floating argument followed by its error; returns the
 * estimated error of fn's result (docs/c-api.md, "Error estimation"). */
double __enzyme_error_estimate(void *fn, ...);
/* Split reverse mode: the forward pass, returning the tape ... */
void *__enzyme_augmentfwd(void *fn, ...);
/* ... and the reverse pass that consumes it. */
void __enzyme_reverse(void *fn, ...);
/* Forward split mode: the tangent of fn's result (and of memory, in the shadows) from
 * the tape of __enzyme_augmentfwd, given last, without running fn again; frees the tape. */
double __enzyme_fwdsplit(void *fn, ...);
/* The bytes a caller's tape buffer needs (enzyme_allocated, bytes, enzyme_tape, buffer). */
__SIZE_TYPE__ __enzyme_augmentsize(void *fn, ...);
/* The shadow of a function (its augmented forward and reverse pair). */
void *__enzyme_virtualreverse(void *fn);
#endif

#ifdef __cplusplus
}

#ifndef ENZC_NO_PROTOTYPES
/* Typed C++ forms: declared only; their mangled names contain the entry point's. */
template <typename Return, typename... Args> Return __enzyme_autodiff(void *fn, Args... args);
template <typename Return, typename... Args> Return __enzyme_fwddiff(void *fn, Args... args);
template <typename Return, typename... Args> Return __enzyme_error_estimate(void *fn, Args... args);
template <typename Return, typename... Args> Return __enzyme_augmentfwd(void *fn, Args... args);
template <typename Return, typename... Args> Return __enzyme_reverse(void *fn, Args... args);
template <typename Return, typename... Args> Return __enzyme_fwdsplit(void *fn, Args... args);
#endif
#endif

#endif /* ENZYME_ENZYME_H */
