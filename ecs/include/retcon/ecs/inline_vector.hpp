#ifndef RETCON_ECS_INLINE_VECTOR_HPP
#define RETCON_ECS_INLINE_VECTOR_HPP

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "type_info.hpp"

namespace retcon {

namespace internal {
template<std::size_t Bytes>
struct uint_of_size;
template<>
struct uint_of_size<1> {
    using type = std::uint8_t;
};
template<>
struct uint_of_size<2> {
    using type = std::uint16_t;
};
template<>
struct uint_of_size<4> {
    using type = std::uint32_t;
};
template<>
struct uint_of_size<8> {
    using type = std::uint64_t;
};

constexpr std::size_t count_bytes(std::size_t n, std::size_t align) {
    std::size_t need = n < 0x100u ? 1u : n < 0x10000u ? 2u : 4u;
    std::size_t b = need > align ? need : align;
    return b > 8 ? 8 : b;
}
} // namespace internal

/**
 * @brief Up to N values of T stored inline: the component-safe `std::vector`.
 *
 * Trivially copyable and padding-free: the count comes first and is as wide as T's canonical
 * alignment (type_info.hpp: the same on every CPU), so elements start aligned, and slots past `size()` are kept zero (pop_back and erase clear
 * them), so equal vectors are equal byte for byte. T must itself be a declared or scalar type.
 * If a combination of T and N would need padding, compilation fails with a message.
 */
template<class T, std::size_t N>
class inline_vector {
    static_assert(N > 0, "retcon: inline_vector<T, 0> holds nothing");
    static_assert(std::is_trivially_copyable_v<T>, "retcon: inline_vector elements must be trivially copyable");

public:
    using value_type = T;
    using size_type =
        typename internal::uint_of_size<internal::count_bytes(N, internal::canonical_align_of<T>())>::type;

    [[nodiscard]] constexpr std::size_t size() const noexcept { return count; }
    [[nodiscard]] constexpr bool empty() const noexcept { return count == 0; }
    [[nodiscard]] constexpr bool full() const noexcept { return count == N; }
    [[nodiscard]] static constexpr std::size_t capacity() noexcept { return N; }

    /// @brief Appends @p value; pushing onto a full vector is API misuse (reported).
    constexpr void push_back(const T &value) {
        if (!try_push_back(value)) internal::misuse("inline_vector: push_back on a full vector (capacity %zu)", N);
    }
    /// @brief Appends @p value if there is room; returns false otherwise.
    constexpr bool try_push_back(const T &value) noexcept {
        if (count == N) return false;
        items[count++] = value;
        return true;
    }
    /// @brief Removes the last element (zeroing its slot); misuse on an empty vector.
    constexpr void pop_back() {
        if (count == 0) internal::misuse("inline_vector: pop_back on an empty vector");
        const std::size_t last = last_index();
        items[last] = T{};
        count = static_cast<size_type>(last);
    }
    /// @brief Removes element @p i by moving the last one into its place (order not kept).
    constexpr void swap_erase(std::size_t i) {
        if (i >= count || i >= N)
            internal::misuse("inline_vector: swap_erase(%zu) out of range (size %zu)", i, std::size_t{count});
        const std::size_t last = last_index();
        items[i] = items[last];
        items[last] = T{};
        count = static_cast<size_type>(last);
    }
    constexpr void clear() noexcept {
        for (std::size_t i = 0; i < count; ++i) items[i] = T{};
        count = 0;
    }
    /// @brief Element @p i; an index past size() is misuse (checked in every build).
    [[nodiscard]] constexpr T &operator[](std::size_t i) {
        if (i >= count || i >= N)
            internal::misuse("inline_vector: index %zu out of range (size %zu)", i, std::size_t{count});
        return items[i];
    }
    [[nodiscard]] constexpr const T &operator[](std::size_t i) const {
        if (i >= count || i >= N)
            internal::misuse("inline_vector: index %zu out of range (size %zu)", i, std::size_t{count});
        return items[i];
    }
    [[nodiscard]] constexpr T *begin() noexcept { return items; }
    [[nodiscard]] constexpr T *end() noexcept { return items + count; }
    [[nodiscard]] constexpr const T *begin() const noexcept { return items; }
    [[nodiscard]] constexpr const T *end() const noexcept { return items + count; }

    friend constexpr bool operator==(const inline_vector &a, const inline_vector &b) noexcept {
        if (a.count != b.count) return false;
        for (std::size_t i = 0; i < a.count; ++i)
            if (!(a.items[i] == b.items[i])) return false;
        return true;
    }

    /// @brief count - 1, clamped to N - 1: count never exceeds N, but saying so lets the
    /// optimiser prove every access in bounds (GCC's -Warray-bounds otherwise misfires).
    [[nodiscard]] constexpr std::size_t last_index() const noexcept {
        const std::size_t last = std::size_t{count} - 1u;
        return last < N ? last : N - 1u;
    }

    /// @brief Number of live elements (public so the type stays standard layout).
    size_type count{};
    /// @brief Storage; slots at and past `count` are zero.
    T items[N]{};
};

/// Registration of inline_vector for use as a field (found by argument-dependent lookup).
template<class T, std::size_t N>
consteval auto retcon_describe(internal::type_tag<inline_vector<T, N>>) {
    using V = inline_vector<T, N>;
    constexpr auto d = internal::describe<V>("inline_vector", internal::make_field<typename V::size_type>("count", 0),
                                             internal::make_field<T[N]>("items", sizeof(typename V::size_type)));
    static_assert(internal::fields_tile(d), "retcon: inline_vector<T, N> would contain padding for this T and N; "
                                            "choose N so that the count and N elements fill whole alignment units");
    return d;
}

} // namespace retcon

#endif
