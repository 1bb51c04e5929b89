#include "vec.h"

double symbol_nobody_defines(double);

double never_used(double x) { return symbol_nobody_defines(x); }
