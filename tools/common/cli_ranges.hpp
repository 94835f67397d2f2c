#ifndef RETCON_TOOLS_COMMON_CLI_RANGES_HPP
#define RETCON_TOOLS_COMMON_CLI_RANGES_HPP

// Range checks for the command-line programs' numeric options (docs/cli.md). CLI11's own
// CLI::Range lets "nan" through (every comparison with NaN is false), and a NaN or an
// out-of-range double converted to an integer type is undefined behaviour; an int option
// without a check wraps when narrowed (a port of 70000 became 4464).
#include <CLI/CLI.hpp>

#include <cmath>
#include <sstream>
#include <string>

namespace retcon::tools {

/// @brief Accepts a finite number from @p min to @p max; refuses NaN, infinities and anything
/// outside, naming the range.
inline CLI::Validator finite_range(double min, double max) {
    std::ostringstream range;
    range << min << " to " << max;
    const std::string text = range.str();
    return CLI::Validator(
        [min, max, text](std::string &input) -> std::string {
            double v = 0;
            if (!CLI::detail::lexical_cast(input, v) || !std::isfinite(v) || v < min || v > max)
                return "Value " + input + " is not a number from " + text;
            return {};
        },
        "NUMBER in [" + text + "]");
}

} // namespace retcon::tools

#endif
