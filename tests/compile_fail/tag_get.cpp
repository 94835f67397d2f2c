// Must not compile: get on a tag (tags have no payload).
#include <retcon/ecs.hpp>

#include <cstdint>
#include <string>

struct frozen {};
RETCON_TAG(frozen);
void f(retcon::world &w, retcon::entity e) { (void)w.get<frozen>(e); }
