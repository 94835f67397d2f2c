#ifndef RETCON_TESTS_TRACE_CHECKER_HPP
#define RETCON_TESTS_TRACE_CHECKER_HPP

// A strict checker of Trace Event Format JSON, written from the format's documentation (the
// "Trace Event Format" document that chrome://tracing and Perfetto read), not from retcon's
// writer: the tests judge the writer with it (docs/net.md, "Reading a trace").
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace retcon::test {

/// @brief What a valid trace holds, for tests to compare with a session's own figures.
struct trace_summary {
    std::size_t events = 0;                                ///< every event, metadata included
    std::map<std::string, std::size_t> slices;             ///< `X` events per name
    std::map<std::string, std::size_t> counters;           ///< `C` events per name
    std::map<std::string, std::size_t> instants;           ///< `i`/`I` events per name
    std::map<std::string, double> arg_sums;                ///< "name.arg": sum over the `X` events
    std::map<std::string, std::vector<std::string>> texts; ///< `i` events' args.text per name
    std::map<std::string, std::size_t> nested_in;          ///< "child<parent": `X` directly inside another
};

/// @brief The verdict: problems (empty when the trace is valid) and the summary.
struct trace_check {
    std::vector<std::string> problems;
    trace_summary summary;
    [[nodiscard]] bool ok() const noexcept { return problems.empty(); }
};

/**
 * @brief Checks @p json against the format's rules:
 * - strict JSON (no NaN, Infinity, comments or trailing commas), an object with a `traceEvents`
 *   array (the object form), `displayTimeUnit` "ms" or "ns" when present;
 * - every event an object with a string `name`, a string `ph` this checker knows (X, C, i, I, M),
 *   integer `pid` and `tid`, a finite numeric `ts` in µs (not on M), `args` an object when present;
 * - `X` has a finite `dur` >= 0; `C` has non-empty `args` whose values are all numbers; `i`/`I`
 *   has `s` in g, p, t; `M` is a known metadata name with its argument (`name` or `sort_index`);
 * - on each (pid, tid), `X` slices nest: one that starts inside another ends inside it.
 */
[[nodiscard]] trace_check check_trace(std::string_view json);
/// @brief check_trace on the contents of @p path (a problem when it cannot be read).
[[nodiscard]] trace_check check_trace_file(const std::filesystem::path &path);

} // namespace retcon::test

#endif
