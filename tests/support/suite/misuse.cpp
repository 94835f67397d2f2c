#include "common/misuse.hpp"

namespace retcon::test {
namespace {
void throw_misuse(const char *message) { throw misuse_error(message); }
} // namespace
throwing_misuse_handler::throwing_misuse_handler() noexcept : previous_{set_misuse_handler(&throw_misuse)} {}
throwing_misuse_handler::~throwing_misuse_handler() { set_misuse_handler(previous_); }
} // namespace retcon::test
