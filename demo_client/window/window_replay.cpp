#include <cstdio>

#include "window_app.hpp"

namespace retcon::demo {

int run_window_replay(const client_settings &) {
    std::fprintf(stderr, "demo_client: the replay viewer is not built yet\n");
    return 2;
}

} // namespace retcon::demo
