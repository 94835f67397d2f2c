#include "counting_allocator.hpp"

#include <cstdlib>
#include <new>

namespace {
thread_local std::size_t allocations = 0;
thread_local int active = 0;

// RETCON_ALLOC_TRAP=1 aborts on the first counted allocation, so a debugger shows who made it.
const bool trap = std::getenv("RETCON_ALLOC_TRAP") != nullptr;

void *allocate(std::size_t n, std::size_t align) {
    if (active) {
        ++allocations;
        if (trap) std::abort();
    }
    if (n == 0) n = 1;
    void *p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (n + align - 1) / align * align) : std::malloc(n);
    if (!p) throw std::bad_alloc{};
    return p;
}
} // namespace

void *operator new(std::size_t n) { return allocate(n, alignof(std::max_align_t)); }
void *operator new[](std::size_t n) { return allocate(n, alignof(std::max_align_t)); }
void *operator new(std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a)); }
void *operator new[](std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a)); }
// The nothrow forms too: left to the runtime (or a sanitizer's) they would allocate with another
// allocator than the free() in the deletes below, and go uncounted.
void *operator new(std::size_t n, const std::nothrow_t &) noexcept {
    try {
        return allocate(n, alignof(std::max_align_t));
    } catch (...) {
        return nullptr;
    }
}
void *operator new[](std::size_t n, const std::nothrow_t &) noexcept {
    try {
        return allocate(n, alignof(std::max_align_t));
    } catch (...) {
        return nullptr;
    }
}
void *operator new(std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
    try {
        return allocate(n, static_cast<std::size_t>(a));
    } catch (...) {
        return nullptr;
    }
}
void *operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
    try {
        return allocate(n, static_cast<std::size_t>(a));
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
void operator delete(void *p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void *p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept { std::free(p); }

namespace retcon::test {
allocation_counter::allocation_counter() noexcept : start_{allocations} { ++active; }
allocation_counter::~allocation_counter() { --active; }
std::size_t allocation_counter::count() const noexcept { return allocations - start_; }
} // namespace retcon::test
