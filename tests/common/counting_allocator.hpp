#ifndef RETCON_TESTS_COUNTING_ALLOCATOR_HPP
#define RETCON_TESTS_COUNTING_ALLOCATOR_HPP

#include <cstddef>

namespace retcon::test {

/// @brief Counts calls to the global operator new made while an allocation_counter is alive
/// on this thread (global operator new/delete are replaced in counting_allocator.cpp).
class allocation_counter {
public:
    allocation_counter() noexcept;
    ~allocation_counter();
    allocation_counter(const allocation_counter &) = delete;
    allocation_counter &operator=(const allocation_counter &) = delete;
    /// @brief Allocations seen since construction.
    [[nodiscard]] std::size_t count() const noexcept;

private:
    std::size_t start_;
};

} // namespace retcon::test

#endif
