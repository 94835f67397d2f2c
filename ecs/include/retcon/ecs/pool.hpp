#ifndef RETCON_ECS_POOL_HPP
#define RETCON_ECS_POOL_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "sparse_set.hpp"
#include "type_info.hpp"

namespace retcon {

namespace internal {

/// @brief A growable, aligned byte array; new capacity is zero-filled, so every byte that can
/// reach a snapshot has been written before it is read.
class byte_buffer {
public:
    explicit byte_buffer(std::size_t align = alignof(std::max_align_t)) noexcept : align_{align} {}
    byte_buffer(byte_buffer &&o) noexcept
        : data_{std::exchange(o.data_, nullptr)}, size_{std::exchange(o.size_, 0)}, cap_{std::exchange(o.cap_, 0)},
          align_{o.align_} {}
    byte_buffer &operator=(byte_buffer &&o) noexcept {
        if (this != &o) {
            release();
            data_ = std::exchange(o.data_, nullptr);
            size_ = std::exchange(o.size_, 0);
            cap_ = std::exchange(o.cap_, 0);
            align_ = o.align_;
        }
        return *this;
    }
    byte_buffer(const byte_buffer &) = delete;
    byte_buffer &operator=(const byte_buffer &) = delete;
    ~byte_buffer() { release(); }

    [[nodiscard]] std::byte *data() noexcept { return data_; }
    [[nodiscard]] const std::byte *data() const noexcept { return data_; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] std::size_t capacity() const noexcept { return cap_; }

    /// @brief Grows by @p n bytes and returns the start of the new bytes.
    std::byte *extend(std::size_t n) {
        if (size_ + n > cap_) grow(size_ + n);
        std::byte *p = data_ + size_;
        size_ += n;
        return p;
    }
    void shrink_by(std::size_t n) noexcept { size_ -= n; }
    /// @brief Sets the size to @p n; bytes past the old size keep whatever the buffer held
    /// (zero if never written): callers overwrite them.
    void resize(std::size_t n) {
        if (n > cap_) grow(n);
        size_ = n;
    }
    void reserve(std::size_t n) {
        if (n > cap_) grow(n);
    }
    void clear() noexcept { size_ = 0; }
    /// @brief Replaces the contents with the @p n bytes at @p src (restore). When it must grow,
    /// the old bytes are dropped rather than carried over, and only the capacity past @p n is
    /// zero-filled: a fresh buffer is written once, not zeroed and then overwritten. A first
    /// allocation is exact (rounded up to 64 bytes); later ones still at least double.
    void assign(const std::byte *src, std::size_t n) {
        if (n > cap_) {
            const std::size_t exact = (n + 63u) & ~std::size_t{63};
            const std::size_t cap = cap_ * 2u > exact ? cap_ * 2u : exact;
            auto *fresh = static_cast<std::byte *>(::operator new (cap, std::align_val_t{align_}));
            release();
            data_ = fresh;
            cap_ = cap;
            std::memset(data_ + n, 0, cap - n);
        }
        if (n) std::memcpy(data_, src, n);
        size_ = n;
    }

private:
    void grow(std::size_t min_cap) {
        std::size_t cap = cap_ ? cap_ * 2u : 64u;
        while (cap < min_cap) cap *= 2u;
        auto *fresh = static_cast<std::byte *>(::operator new (cap, std::align_val_t{align_}));
        if (size_) std::memcpy(fresh, data_, size_);
        std::memset(fresh + size_, 0, cap - size_);
        release();
        data_ = fresh;
        cap_ = cap;
    }
    void release() noexcept {
        if (data_) ::operator delete (data_, std::align_val_t{align_});
        data_ = nullptr;
    }

    std::byte *data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t cap_ = 0;
    std::size_t align_;
};

} // namespace internal

/**
 * @brief One component type's storage: a sparse set of owners plus the payload array in the
 * same order.
 *
 * The pool is type-erased (components are trivially copyable, so moving one is a memcpy of
 * `element_size()` bytes); typed access goes through `data_as<T>()`. Tags (empty types) keep
 * no payload. Removal is swap-and-pop. Games use pools through `world`; the snapshot layer
 * reads and writes them directly.
 */
class pool {
public:
    using size_type = sparse_set::size_type;
    static constexpr size_type npos = sparse_set::npos;

    /// @brief An empty pool for the type described by @p info.
    explicit pool(const type_info &info)
        : info_{info}, payload_{info.align > alignof(std::max_align_t) ? info.align : alignof(std::max_align_t)} {}

    [[nodiscard]] const type_info &info() const noexcept { return info_; }
    /// @brief Bytes of payload per entity (0 for tags).
    [[nodiscard]] std::size_t element_size() const noexcept { return info_.size; }
    [[nodiscard]] size_type size() const noexcept { return owners_.size(); }
    [[nodiscard]] bool empty() const noexcept { return owners_.empty(); }
    /// @brief The owners, in iteration order.
    [[nodiscard]] const sparse_set &owners() const noexcept { return owners_; }
    [[nodiscard]] size_type index(entity e) const noexcept { return owners_.index(e); }
    [[nodiscard]] bool contains(entity e) const noexcept { return owners_.contains(e); }

    /// @brief The payload bytes (size() * element_size()).
    [[nodiscard]] const std::byte *payload() const noexcept { return payload_.data(); }
    [[nodiscard]] std::byte *payload() noexcept { return payload_.data(); }
    [[nodiscard]] std::size_t payload_bytes() const noexcept { return payload_.size(); }

    /// @brief Typed view of the payload; T must be the pool's type.
    template<class T>
    [[nodiscard]] T *data_as() noexcept {
        return std::launder(reinterpret_cast<T *>(payload_.data()));
    }
    template<class T>
    [[nodiscard]] const T *data_as() const noexcept {
        return std::launder(reinterpret_cast<const T *>(payload_.data()));
    }

    /// @brief Appends @p e with an element constructed from @p args; returns its position.
    /// @p args may refer into this pool (copying one entity's component to another): the
    /// element is built before the payload grows, then copied in.
    template<class T, class... Args>
    size_type emplace_back(entity e, Args &&...args) {
        if constexpr (!std::is_empty_v<T>) {
            const T value{std::forward<Args>(args)...};
            std::memcpy(payload_.extend(sizeof(T)), &value, sizeof(T));
        }
        ++epoch_;
        return owners_.push_back(e);
    }
    /// @brief Appends @p e with an element copied from @p bytes (element_size() bytes; may be
    /// null only for tags).
    size_type push_bytes(entity e, const void *bytes) {
        if (info_.size) {
            if (!bytes) internal::misuse("push_bytes: no bytes for a %u-byte component", info_.size);
            // @p bytes may be another element of this pool (copying one entity's component to
            // another): growing may move the payload, so find the value again after it.
            const auto *src = static_cast<const std::byte *>(bytes);
            const std::byte *first = payload_.data();
            const bool inside = first && src >= first && src < first + payload_.size();
            const std::size_t at = inside ? static_cast<std::size_t>(src - first) : 0;
            std::byte *dst = payload_.extend(info_.size);
            std::memcpy(dst, inside ? payload_.data() + at : src, info_.size);
        }
        ++epoch_;
        return owners_.push_back(e);
    }
    /// @brief Removes the element at @p pos (swap-and-pop).
    void erase_at(size_type pos) noexcept {
        const std::size_t es = info_.size;
        if (es) {
            const std::size_t last = (static_cast<std::size_t>(owners_.size()) - 1u) * es;
            if (pos * es != last) copy_element(payload_.data() + pos * es, payload_.data() + last, es);
            payload_.shrink_by(es);
        }
        owners_.swap_and_pop(pos);
        ++epoch_;
    }
    /// @brief Exchanges the elements at two positions.
    void swap_at(size_type a, size_type b) noexcept {
        if (a == b) return;
        const std::size_t es = info_.size;
        if (es) {
            std::byte *pa = payload_.data() + std::size_t{a} * es;
            std::byte *pb = payload_.data() + std::size_t{b} * es;
            alignas(16) std::byte tmp[256];
            for (std::size_t off = 0; off < es; off += sizeof tmp) { // chunked: large types need no heap
                const std::size_t n = es - off < sizeof tmp ? es - off : sizeof tmp;
                std::memcpy(tmp, pa + off, n);
                std::memcpy(pa + off, pb + off, n);
                std::memcpy(pb + off, tmp, n);
            }
        }
        owners_.swap_positions(a, b);
        ++epoch_;
    }
    /// @brief Removes every element.
    void clear() noexcept {
        owners_.clear();
        payload_.clear();
        ++epoch_;
    }
    /// @brief Replaces the contents with @p count owners and their payload bytes (restore).
    void assign(const entity *owners, const std::byte *payload, size_type count) {
        owners_.assign(owners, count);
        payload_.assign(payload, std::size_t{count} * info_.size);
        ++epoch_;
    }
    void reserve(size_type n) {
        owners_.reserve(n);
        payload_.reserve(std::size_t{n} * info_.size);
    }
    /// @brief Bytes of derived data (the sparse index) held by this pool.
    [[nodiscard]] std::size_t sparse_bytes() const noexcept { return owners_.sparse_bytes(); }

    /// @brief Counts the changes to the owners' order: every method that adds, removes or moves
    /// an element bumps it. Derived data for speed: never saved, hashed or compared.
    [[nodiscard]] std::uint64_t epoch() const noexcept { return epoch_; }
    /// @brief True if an owning group packs this pool (views never reorder it; docs/ecs.md,
    /// "Order"). Set once by the world from its schema.
    [[nodiscard]] bool group_owned() const noexcept { return group_length_ != nullptr; }
    /// @brief The packed length of the owning group (0 if none).
    [[nodiscard]] size_type group_length() const noexcept { return group_length_ ? *group_length_ : 0u; }
    /// @brief Marks the pool as owned by the group whose packed length lives at @p length (in
    /// the world, which outlives the pool).
    void set_group(const size_type *length) noexcept { group_length_ = length; }
    /// @brief True if this pool held @p lead's entities at the same positions over [0, |lead|)
    /// when the note was written, and neither pool has changed since (note_alignment).
    [[nodiscard]] bool noted_aligned_to(const pool &lead) const noexcept {
        return noted_settled(lead) && note_.aligned;
    }
    /// @brief True if an alignment pass to @p lead finished and neither pool has changed since,
    /// so another pass would change nothing.
    [[nodiscard]] bool noted_settled(const pool &lead) const noexcept {
        return note_.lead == &lead && note_.lead_epoch == lead.epoch_ && note_.own_epoch == epoch_;
    }
    /// @brief Records that an alignment pass to @p lead finished, and whether this pool now holds
    /// @p lead's entities at the same positions over [0, |lead|). Speed only: a stale or missing
    /// note costs a comparison or a pass that swaps nothing, never a different order.
    void note_alignment(const pool &lead, bool aligned) noexcept { note_ = {&lead, lead.epoch_, epoch_, aligned}; }

private:
    /// @brief memcpy of one element; common sizes get an inline fixed-size copy, not a call.
    static void copy_element(std::byte *dst, const std::byte *src, std::size_t n) noexcept {
        switch (n) {
        case 4: std::memcpy(dst, src, 4); return;
        case 8: std::memcpy(dst, src, 8); return;
        case 12: std::memcpy(dst, src, 12); return;
        case 16: std::memcpy(dst, src, 16); return;
        default: std::memcpy(dst, src, n); return;
        }
    }

    /// @brief What note_aligned_to recorded (derived; see noted_aligned_to).
    struct alignment_note {
        const pool *lead = nullptr;
        std::uint64_t lead_epoch = 0;
        std::uint64_t own_epoch = 0;
        bool aligned = false;
    };

    type_info info_;
    sparse_set owners_;
    internal::byte_buffer payload_;
    std::uint64_t epoch_ = 0;
    alignment_note note_{};
    const size_type *group_length_ = nullptr;
};

} // namespace retcon

#endif
