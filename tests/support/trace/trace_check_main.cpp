// retcon_trace_check FILE...: checks each trace with the strict checker (common/trace_checker.hpp)
// for the shell tests; prints the problems and the slice counts, exits 1 if any file fails.
#include <common/trace_checker.hpp>

#include <cstdio>

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: retcon_trace_check FILE.json...\n");
        return 2;
    }
    int failed = 0;
    for (int i = 1; i < argc; ++i) {
        const auto r = retcon::test::check_trace_file(argv[i]);
        for (const auto &p : r.problems) std::fprintf(stderr, "%s: %s\n", argv[i], p.c_str());
        if (!r.ok()) {
            ++failed;
            continue;
        }
        std::printf("%s: ok, %zu events", argv[i], r.summary.events);
        for (const auto &[name, n] : r.summary.slices) std::printf(", %zu %s", n, name.c_str());
        std::printf("\n");
    }
    return failed ? 1 : 0;
}
