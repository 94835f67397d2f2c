// Probe A: touches the component types in declaration order before building the schema.
#include <common/components.hpp>

#include "schema_probe.hpp"

int main() {
    using namespace retcon::test;
    (void)retcon::internal::type_seq<position>();
    (void)retcon::internal::type_seq<velocity>();
    (void)retcon::internal::type_seq<health>();
    return run_schema_probe();
}
