/* A C translation unit of the consuming game. `a * b + c` is what a compiler may contract into
 * one fused multiply-add (rounded once, not twice); with the determinism flags retcon's targets
 * pass on (-ffp-contract=off, docs/determinism.md#compiler-flags) it is never contracted. */
double consumer_fma_candidate(double a, double b, double c);

double consumer_fma_candidate(double a, double b, double c) { return a * b + c; }
