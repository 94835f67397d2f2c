// Probe B: touches the component types in reverse order (and a type A never sees), so its
// process-local type sequence differs; stable ids must not.
#include <common/components.hpp>

#include "schema_probe.hpp"

namespace {
struct only_in_b {
    int v;
};
RETCON_COMPONENT(only_in_b, v);
} // namespace

int main() {
    using namespace retcon::test;
    (void)retcon::internal::type_seq<only_in_b>();
    (void)retcon::internal::type_seq<rng_state>();
    (void)retcon::internal::type_seq<marked>();
    (void)retcon::internal::type_seq<health>();
    (void)retcon::internal::type_seq<velocity>();
    (void)retcon::internal::type_seq<position>();
    return run_schema_probe();
}
