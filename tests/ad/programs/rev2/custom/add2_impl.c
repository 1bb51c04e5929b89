// Helper for add2_metadata.ll: the body of add2, built by plain clang (no bitcode).
double add2(double x) { return x + 2.0; }
