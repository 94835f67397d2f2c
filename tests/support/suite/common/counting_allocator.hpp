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

/// @brief Bytes of heap memory live through the global operator new, process-wide, and the
/// highest that figure has reached since the watermark was created (or reset): the memory
/// bound of a hostile-client test, measured instead of assumed.
class heap_watermark {
public:
    heap_watermark() noexcept;
    /// @brief Starts over from what is live now.
    void reset() noexcept;
    /// @brief Live bytes now, minus those live at the start (may be negative).
    [[nodiscard]] long long live() const noexcept;
    /// @brief The highest live() reached since the start.
    [[nodiscard]] long long peak() const noexcept;

private:
    long long start_;
};

} // namespace retcon::test

#endif
