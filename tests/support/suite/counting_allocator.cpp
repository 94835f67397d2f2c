#include "common/counting_allocator.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#include <malloc.h>

namespace {
thread_local std::size_t allocations = 0;
thread_local int active = 0;

// RETCON_ALLOC_TRAP=1 aborts on the first counted allocation, so a debugger shows who made it.
const bool trap = std::getenv("RETCON_ALLOC_TRAP") != nullptr;

// Process-wide live bytes (malloc_usable_size: the deletes need no size) and their high mark.
std::atomic<long long> live_bytes{0};
std::atomic<long long> high_mark{0};

void note_alloc(void *p) noexcept {
    const auto now = live_bytes.fetch_add(static_cast<long long>(malloc_usable_size(p))) +
                     static_cast<long long>(malloc_usable_size(p));
    long long seen = high_mark.load();
    while (now > seen && !high_mark.compare_exchange_weak(seen, now)) {}
}

void release(void *p) noexcept {
    if (!p) return;
    live_bytes.fetch_sub(static_cast<long long>(malloc_usable_size(p)));
    std::free(p);
}

void *allocate(std::size_t n, std::size_t align) {
    if (active) {
        ++allocations;
        if (trap) std::abort();
    }
    if (n == 0) n = 1;
    void *p =
        align > alignof(std::max_align_t) ? std::aligned_alloc(align, (n + align - 1) / align * align) : std::malloc(n);
    if (!p) throw std::bad_alloc{};
    note_alloc(p);
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
void operator delete(void *p) noexcept { release(p); }
void operator delete[](void *p) noexcept { release(p); }
void operator delete(void *p, std::size_t) noexcept { release(p); }
void operator delete[](void *p, std::size_t) noexcept { release(p); }
void operator delete(void *p, std::align_val_t) noexcept { release(p); }
void operator delete[](void *p, std::align_val_t) noexcept { release(p); }
void operator delete(void *p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void *p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { release(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { release(p); }
void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept { release(p); }
void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept { release(p); }

namespace retcon::test {
allocation_counter::allocation_counter() noexcept : start_{allocations} { ++active; }
allocation_counter::~allocation_counter() { --active; }
std::size_t allocation_counter::count() const noexcept { return allocations - start_; }

heap_watermark::heap_watermark() noexcept : start_{0} { reset(); }
void heap_watermark::reset() noexcept {
    start_ = live_bytes.load();
    high_mark.store(start_);
}
long long heap_watermark::live() const noexcept { return live_bytes.load() - start_; }
long long heap_watermark::peak() const noexcept { return high_mark.load() - start_; }
} // namespace retcon::test
