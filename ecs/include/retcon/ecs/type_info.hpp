#ifndef RETCON_ECS_TYPE_INFO_HPP
#define RETCON_ECS_TYPE_INFO_HPP

/**
 * @file type_info.hpp
 * @brief Mandatory field registration: what a component or resource type looks like in bytes.
 *
 * Every component and resource type is declared once, next to its definition, with
 * `RETCON_COMPONENT(Type, field, ...)` (or `RETCON_TAG(Type)` for an empty marker type). The
 * declaration is checked at compile time: the type must be trivially copyable and standard
 * layout, no field may be a pointer, nested structs must be declared too, and the registered
 * fields must tile `sizeof(Type)` with no gap. That last rule is how retcon rejects padding
 * (padding bytes would put garbage into snapshots and hashes) and why registration is
 * mandatory: `std::has_unique_object_representations` is false for any struct with a float,
 * so it cannot be the check. The same field table feeds the schema hash, diffs and dumps.
 *
 * Layouts are the same on every CPU (docs/determinism.md#one-layout-everywhere): a type's
 * alignment is its *canonical* alignment, computed from its field kinds (8 for 64-bit scalars,
 * the largest field's for records, more only where the type says `alignas(N)` with a number
 * that is the same everywhere), never the ABI's
 * natural `alignof` (a struct holding a `uint64_t` is 4-aligned on i686). Each field must sit at a multiple of its canonical alignment and the
 * size must be a multiple of the type's, so no target inserts padding another does not.
 * Types whose width depends on the platform (`wchar_t`; `long` where it is not the
 * platform's `int64_t`) are refused.
 */

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include "entity.hpp"
#include "internal_pp.hpp"

namespace retcon {

// One line per family of kinds, one line per size: kept by hand.
// clang-format off
/// @brief How a field's bytes are interpreted by dumps and diffs (part of the schema hash).
enum class field_kind : std::uint8_t {
    boolean = 1,
    i8, i16, i32, i64,
    u8, u16, u32, u64,
    f32, f64,
    entity,  ///< a retcon::entity handle
    text,    ///< fixed_string<N> or plain char (arrays): zero-filled characters
    record,  ///< a nested declared type: RETCON_COMPONENT types and inline_vector<T, N> (which the
             ///< library declares); its own field table describes it
    bytes,   ///< an allowed field no other kind describes (a floating type other than float and
             ///< double); parsed schemas may hold it too: shown as hex
};

/// @brief Bytes of one element of a scalar kind, which is also its canonical alignment; 0 for
/// text, record and bytes, whose element size comes from the field.
[[nodiscard]] constexpr std::uint32_t scalar_width(field_kind k) noexcept {
    switch (k) {
    case field_kind::boolean: case field_kind::i8: case field_kind::u8: return 1;
    case field_kind::i16: case field_kind::u16: return 2;
    case field_kind::i32: case field_kind::u32: case field_kind::f32: return 4;
    case field_kind::i64: case field_kind::u64: case field_kind::f64: return 8;
    case field_kind::entity: return sizeof(entity); // 4, or 8 with RETCON_ENTITY_64
    default: return 0;
    }
}
// clang-format on

/// @brief One registered field: its name, where it lives and how to read it.
struct field_info {
    std::string_view name{};
    std::uint32_t offset = 0; ///< byte offset inside the type
    std::uint32_t size = 0;   ///< total bytes, count * element size
    std::uint32_t count = 1;  ///< array extent (1 for scalars)
    field_kind kind = field_kind::bytes;
};

/// @brief The registered description of a component or resource type.
struct type_info {
    std::string_view name{};
    std::uint32_t size = 0;  ///< 0 for tags (empty types keep no payload)
    std::uint32_t align = 1; ///< canonical alignment (from the field kinds, the same on every CPU)
    std::span<const field_info> fields{};
    [[nodiscard]] bool is_tag() const noexcept { return size == 0; }
};

namespace internal {

/// @brief Tag used to find a type's registration by argument-dependent lookup.
template<class T>
struct type_tag {};

template<class T, std::size_t N>
struct type_description {
    std::string_view name{};
    std::array<field_info, N> fields{};
    std::array<std::uint32_t, N> field_align; ///< canonical alignment of each field's element
    std::uint32_t align = 1;                  ///< canonical alignment of T: the largest field_align
};

/// @brief A field as a declaration produces it: its table entry and its canonical alignment.
struct declared_field {
    field_info info{};
    std::uint32_t align = 1;
};

template<class T>
concept registered = requires {
    retcon_describe(type_tag<T>{});
};

template<class T>
struct is_fixed_text : std::false_type {};

template<class T>
struct element_of {
    using type = T;
    static constexpr std::uint32_t count = 1;
};
template<class T, std::size_t N>
struct element_of<T[N]> {
    using type = typename element_of<T>::type;
    static constexpr std::uint32_t count = static_cast<std::uint32_t>(N) * element_of<T>::count;
};
template<class T, std::size_t N>
struct element_of<std::array<T, N>> {
    using type = typename element_of<T>::type;
    static constexpr std::uint32_t count = static_cast<std::uint32_t>(N) * element_of<T>::count;
};

template<class E>
consteval field_kind kind_of() {
    using U = std::remove_cv_t<E>;
    if constexpr (std::is_same_v<U, bool>) return field_kind::boolean;
    // Plain char is text: its signedness differs between platforms (signed on x86, unsigned on
    // ARM), and i8/u8 would make the schema hash differ between them.
    else if constexpr (std::is_same_v<U, char>)
        return field_kind::text;
    else if constexpr (std::is_same_v<U, entity>)
        return field_kind::entity;
    else if constexpr (std::is_enum_v<U>)
        return kind_of<std::underlying_type_t<U>>();
    else if constexpr (std::is_same_v<U, float>)
        return field_kind::f32;
    else if constexpr (std::is_same_v<U, double>)
        return field_kind::f64;
    else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
        if constexpr (sizeof(U) == 1) return field_kind::i8;
        else if constexpr (sizeof(U) == 2)
            return field_kind::i16;
        else if constexpr (sizeof(U) == 4)
            return field_kind::i32;
        else
            return field_kind::i64;
    } else if constexpr (std::is_integral_v<U>) {
        if constexpr (sizeof(U) == 1) return field_kind::u8;
        else if constexpr (sizeof(U) == 2)
            return field_kind::u16;
        else if constexpr (sizeof(U) == 4)
            return field_kind::u32;
        else
            return field_kind::u64;
    } else if constexpr (is_fixed_text<U>::value)
        return field_kind::text;
    else if constexpr (registered<U>)
        return field_kind::record;
    else
        return field_kind::bytes;
}

/// @brief True for integer types whose width differs between platforms: `wchar_t` (4 bytes on
/// Linux, 2 on Windows) and `long` / `unsigned long` (8 bytes on LP64 Linux and macOS, 4 on
/// i686 and Windows). Where `long` *is* the platform's `int64_t` (LP64 Linux) the compiler cannot
/// tell the two apart, so it is accepted there and refused everywhere else.
template<class E>
inline constexpr bool platform_sized_integer_v =
    std::is_same_v<E, wchar_t> ||
    ((std::is_same_v<E, long> || std::is_same_v<E, unsigned long>)&&!std::is_same_v<E, std::int64_t> &&
     !std::is_same_v<E, std::uint64_t>);

template<class E, bool = std::is_enum_v<E>>
struct platform_sized : std::bool_constant<platform_sized_integer_v<E>> {};
template<class E> // an enum is as wide as its underlying type (`enum class E : long`)
struct platform_sized<E, true> : std::bool_constant<platform_sized_integer_v<std::underlying_type_t<E>>> {};

template<class E>
inline constexpr bool platform_sized_v = platform_sized<E>::value;

template<class T>
struct described;

/// @brief Canonical alignment of one element: its width for scalars, the largest field's for a
/// declared record. Independent of the ABI's alignof (docs/determinism.md#one-layout-everywhere).
template<class E>
consteval std::uint32_t canonical_align_of() {
    using U = std::remove_cv_t<E>;
    if constexpr (std::is_array_v<U>) return canonical_align_of<std::remove_all_extents_t<U>>();
    else if constexpr (std::is_arithmetic_v<U> || std::is_enum_v<U> || std::is_same_v<U, entity>)
        return static_cast<std::uint32_t>(sizeof(U));
    else if constexpr (registered<U>) { // its widest field's, or more where the type says alignas(N)
        constexpr std::uint32_t fields = described<U>::value.align;
        return alignof(U) > fields ? static_cast<std::uint32_t>(alignof(U)) : fields;
    } else
        return static_cast<std::uint32_t>(alignof(U)); // not a field type (refused where it is declared as one)
}

/// @brief Types a field may have: arithmetic, enums, entity handles, arrays of those, and
/// nested declared types (fixed_string and inline_vector are declared types too).
template<class E>
inline constexpr bool allowed_field_element_v =
    std::is_arithmetic_v<E> || std::is_enum_v<E> || std::is_same_v<E, entity> || registered<E>;

template<class F>
consteval declared_field make_field(std::string_view name, std::size_t offset) {
    using element = std::remove_cv_t<typename element_of<F>::type>;
    static_assert(!std::is_pointer_v<element> && !std::is_member_pointer_v<element>,
                  "retcon: a component field is a pointer; pointers do not survive a snapshot or the network: "
                  "store a retcon::entity handle or an index instead");
    static_assert(!std::is_same_v<element, long double>,
                  "retcon: a component field is a long double, whose in-memory size includes padding bytes "
                  "(6 of 16 on x86-64) and whose format differs between platforms: use double or fixed-point");
    static_assert(!platform_sized_v<element>,
                  "retcon: a component field is a wchar_t, long or unsigned long, whose width differs between "
                  "platforms (the schema and the bytes would differ between peers): use char16_t, char32_t or a "
                  "<cstdint> type such as std::int32_t or std::int64_t");
    static_assert(allowed_field_element_v<element>,
                  "retcon: a component field has a type retcon does not know; declare that nested type with "
                  "RETCON_COMPONENT(Type, fields...) too (or use fixed_string<N> / inline_vector<T, N>)");
    field_info f{};
    f.name = name;
    f.offset = static_cast<std::uint32_t>(offset);
    f.size = static_cast<std::uint32_t>(sizeof(F));
    f.count = element_of<F>::count;
    f.kind = kind_of<element>();
    return declared_field{f, canonical_align_of<element>()};
}

template<class T, class... Fields>
consteval auto describe(std::string_view name, Fields... fields) {
    std::uint32_t align = 1;
    ((align = fields.align > align ? fields.align : align), ...);
    return type_description<T, sizeof...(Fields)>{name, {fields.info...}, {fields.align...}, align};
}

/// @brief True when the registered fields cover every byte of T exactly once.
template<class T, std::size_t N>
consteval bool fields_tile(const type_description<T, N> &d) {
    std::array<field_info, N> f = d.fields;
    for (std::size_t i = 1; i < N; ++i) // insertion sort by offset (consteval, tiny N)
        for (std::size_t j = i; j > 0 && f[j - 1].offset > f[j].offset; --j) std::swap(f[j - 1], f[j]);
    std::size_t end = 0;
    for (const auto &x : f) {
        if (x.offset != end) return false;
        end += x.size;
    }
    return end == sizeof(T);
}

/// @brief True when every field sits at a multiple of its canonical alignment and the size is a
/// multiple of the type's: the layout then has no padding on any target, so it is one layout.
template<class T, std::size_t N>
consteval bool fields_canonically_aligned(const type_description<T, N> &d) {
    for (std::size_t i = 0; i < N; ++i)
        if (d.fields[i].offset % d.field_align[i] != 0) return false;
    return sizeof(T) % d.align == 0 || std::is_empty_v<T>;
}

template<class T>
struct described {
    static constexpr auto value = retcon_describe(type_tag<T>{});
};

} // namespace internal

/// @brief True if T was declared with RETCON_COMPONENT or RETCON_TAG.
template<class T>
inline constexpr bool is_registered_v = internal::registered<std::remove_cv_t<T>>;

/// @brief True if T is a tag: an empty declared type, stored without payload.
template<class T>
inline constexpr bool is_tag_v = std::is_empty_v<std::remove_cv_t<T>>;

/// @brief The registered description of T (name, size, alignment, fields).
template<class T>
[[nodiscard]] constexpr type_info type_info_of() noexcept {
    using U = std::remove_cv_t<T>;
    static_assert(is_registered_v<U>,
                  "retcon: this type is not declared; add RETCON_COMPONENT(Type, field, ...) or RETCON_TAG(Type) "
                  "after its definition, in the same namespace");
    const auto &d = internal::described<U>::value;
    return type_info{d.name, is_tag_v<U> ? 0u : static_cast<std::uint32_t>(sizeof(U)),
                     internal::canonical_align_of<U>(), std::span<const field_info>(d.fields)};
}

} // namespace retcon

#define RETCON_INTERNAL_FIELD(Type, field)                                                                             \
    ::retcon::internal::make_field<decltype(std::declval<Type &>().field)>(#field, offsetof(Type, field))

#define RETCON_INTERNAL_CHECKS(Type)                                                                                   \
    static_assert(std::is_trivially_copyable_v<Type>,                                                                  \
                  "retcon: " #Type " must be trivially copyable (no std::string, std::vector, virtual functions "      \
                  "or user-defined copy): use retcon::fixed_string<N> or retcon::inline_vector<T, N>");                \
    static_assert(std::is_standard_layout_v<Type>,                                                                     \
                  "retcon: " #Type " must be standard layout (plain struct: no virtual, no mixed access)")

/**
 * @brief Declares a component or resource type and its fields (in any order).
 *
 * Place it right after the struct, in the same namespace. Compile errors explain what to fix:
 * a non-trivially-copyable member, a pointer, an undeclared nested type, or padding (add an
 * explicit field such as `std::uint8_t pad[3]`, or reorder members, so the fields cover every
 * byte). Up to 32 fields.
 */
#define RETCON_COMPONENT(Type, ...)                                                                                    \
    RETCON_INTERNAL_CHECKS(Type);                                                                                      \
    [[maybe_unused]] consteval auto retcon_describe(::retcon::internal::type_tag<Type>) {                              \
        return ::retcon::internal::describe<Type>(#Type, RETCON_PP_MAP(RETCON_INTERNAL_FIELD, Type, __VA_ARGS__));     \
    }                                                                                                                  \
    static_assert(::retcon::internal::fields_tile(retcon_describe(::retcon::internal::type_tag<Type>{})),              \
                  "retcon: the fields declared for " #Type " do not cover every byte of it: either a field is "        \
                  "missing from RETCON_COMPONENT or the struct has padding (add explicit padding fields such as "      \
                  "std::uint8_t pad[N], or reorder members)");                                                         \
    static_assert(                                                                                                     \
        ::retcon::internal::fields_canonically_aligned(retcon_describe(::retcon::internal::type_tag<Type>{})),         \
        "retcon: a field of " #Type " is not at a multiple of its width (8 for 64-bit fields), or its "                \
        "size is not a multiple of its widest field: other CPUs (i686 aligns 64-bit fields to 4) "                     \
        "would lay it out differently; add explicit padding fields (docs/determinism.md)")

/// @brief Declares an empty marker type (a tag): stored in a pool without payload.
#define RETCON_TAG(Type)                                                                                               \
    static_assert(std::is_empty_v<Type>, "retcon: RETCON_TAG(" #Type ") needs an empty struct; "                       \
                                         "use RETCON_COMPONENT for types with fields");                                \
    [[maybe_unused]] consteval auto retcon_describe(::retcon::internal::type_tag<Type>) {                              \
        return ::retcon::internal::describe<Type>(#Type);                                                              \
    }

/// @brief Same as RETCON_COMPONENT; reads better next to a resource type.
#define RETCON_RESOURCE(Type, ...) RETCON_COMPONENT(Type, __VA_ARGS__)

#endif
