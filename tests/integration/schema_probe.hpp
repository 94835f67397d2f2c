#ifndef RETCON_TESTS_SCHEMA_PROBE_HPP
#define RETCON_TESTS_SCHEMA_PROBE_HPP

// Runs a fixed script of world operations and prints the schema, ids and every byte of the
// resulting state. Compiled into two separate programs that first touch the component types
// in different orders (and at different optimisation levels); their outputs must be equal.
int run_schema_probe();

#endif
