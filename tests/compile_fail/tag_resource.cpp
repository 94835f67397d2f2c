// Must not compile: an empty type declared as a resource.
#include <retcon/ecs.hpp>

#include <cstdint>
#include <string>

struct frozen {};
RETCON_TAG(frozen);
void f(retcon::schema &s) { s.resource<frozen>(); }
