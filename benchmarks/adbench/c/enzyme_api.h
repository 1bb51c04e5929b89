/* The Enzyme C interface as a program written for Enzyme declares it: the
 * same declarations build with enzcc and with clang + the Enzyme plugin.
 * The marker globals are never defined; the compiler removes their uses. */
#ifndef ENZYME_API_H
#define ENZYME_API_H

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);

#endif
