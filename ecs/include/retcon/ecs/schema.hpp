#ifndef RETCON_ECS_SCHEMA_HPP
#define RETCON_ECS_SCHEMA_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "type_info.hpp"

namespace retcon {

/**
 * @brief The simulation-semantics number of this build: which order retcon visits entities and
 * lays out its dense arrays in, recorded in every schema (and so in its hash, every file and the
 * handshake).
 *
 * Any change to that order changes every order-dependent system (destroying during `each`,
 * drawing random numbers in visit order, building hit lists), so the same inputs give other
 * per-frame hashes. Such a change bumps this number on purpose: a replay or snapshot recorded
 * with another number is refused by name (`check_simulation`) instead of diverging at some
 * frame, and a peer of another number is refused at the handshake (docs/ecs.md, "Order";
 * docs/determinism.md, "Simulation semantics").
 *
 * History:
 * - 1: views, groups and range-for walk backward, in blocks of 64 positions (schema format 1,
 *   which had no field for the number).
 * - 2: forward blocks of 4096 positions, and views of a mutable world align their pools to the
 *   lead pool before walking them.
 */
inline constexpr std::uint16_t simulation_semantics = 2;

namespace internal {
/// @brief Process-local sequence number of a type, used only to find its pool quickly. It
/// depends on first use and never leaves the process: stable ids come from schema order.
std::uint32_t next_type_seq() noexcept;
template<class T>
std::uint32_t type_seq() noexcept {
    static const std::uint32_t seq = next_type_seq();
    return seq;
}
} // namespace internal

/**
 * @brief The ordered list of everything a world stores: component types, resource types and
 * owning groups, each declared up front.
 *
 * Stable identity: a component's id is its position in declaration order, so two separately
 * compiled programs that declare the same types in the same order agree on every id, whatever
 * order they first touch the types at run time. The schema has a canonical byte form
 * (`serialize`, specified in docs/file-format.md) that holds names, sizes, alignments, field
 * tables, resources, groups and the entity layout; `hash()` is the 64-bit FNV-1a of exactly
 * those bytes, the build's `simulation_semantics` included. Snapshots and the network handshake
 * carry the hash; files carry the bytes, so tools can name pools and fields without the game's
 * code (`parse`).
 *
 * @code
 * retcon::schema s;
 * s.component<Position>().component<Velocity>().component<Frozen>()
 *  .resource<GameClock>()
 *  .group<Position, Velocity>();
 * retcon::world w{s};
 * @endcode
 */
class schema {
public:
    /// @brief One field, with its name owned by the schema.
    struct field {
        std::string name{};
        std::uint32_t offset = 0;
        std::uint32_t size = 0;
        std::uint32_t count = 1;
        field_kind kind = field_kind::bytes;
    };
    /// @brief One declared type (component or resource), with owned names.
    struct type {
        std::string name{};
        std::uint32_t size = 0; ///< 0 for tags
        std::uint32_t align = 1;
        std::vector<field> fields{};
        std::uint32_t seq = ~std::uint32_t{0}; ///< process-local lookup key; none for parsed schemas
    };
    /// @brief Sentinel for "not declared".
    static constexpr std::uint32_t npos = ~std::uint32_t{0};
    /// @brief Upper bounds that keep a parsed (untrusted) schema small.
    static constexpr std::size_t max_types = 4096;
    static constexpr std::size_t max_fields = 256;
    static constexpr std::size_t max_name = 255;
    /// @brief Largest type (bytes) and alignment a schema holds; `parse` rejects more, so
    /// declaring such a type is misuse.
    static constexpr std::size_t max_type_size = std::size_t{1} << 20;
    static constexpr std::size_t max_align = 4096;

    schema() = default;
    schema(const schema &other);
    schema(schema &&other) noexcept;
    schema &operator=(const schema &other);
    schema &operator=(schema &&other) noexcept;
    ~schema() = default;

    /// @brief Declares component type T (its id is the number of components declared before).
    /// Declaring a type twice, a name already used by a component or resource, or a type
    /// larger than max_type_size (or aligned beyond max_align) is misuse.
    template<class T>
    schema &component() {
        static_assert(!std::is_const_v<T>, "retcon: declare the plain type, not a const one");
        add_type(components_, type_info_of<T>(), internal::type_seq<T>(), "component");
        return *this;
    }
    /// @brief Declares resource (singleton) type R.
    template<class R>
    schema &resource() {
        static_assert(!std::is_empty_v<R>, "retcon: a resource needs at least one field");
        add_type(resources_, type_info_of<R>(), internal::type_seq<R>(), "resource");
        return *this;
    }
    /// @brief Declares an owning group over already-declared component types (at least two,
    /// each owned by at most one group). The group keeps those pools packed in the same order.
    template<class... T>
    schema &group() {
        static_assert(sizeof...(T) >= 2, "retcon: a group owns at least two component types");
        add_group({internal::type_seq<std::remove_const_t<T>>()...}, {type_info_of<T>().name...});
        return *this;
    }

    /// @brief Declares a component from a run-time description (the C API, tools, bindings):
    /// @p info's name and fields are copied; typed calls (`get<T>`) cannot name it, the
    /// id-based ones (`world::get(e, id)`) can. Check the description with `check_type` first:
    /// what it refuses, this reports as misuse (like component<T>()), as it does a name taken.
    schema &component(const type_info &info) {
        add_type(components_, info, npos, "component");
        return *this;
    }
    /// @brief Declares a resource from a run-time description (see component(const type_info&)).
    schema &resource(const type_info &info) {
        add_type(resources_, info, npos, "resource");
        return *this;
    }
    /// @brief Declares an owning group over component ids (see group<T...>()).
    schema &group(std::span<const std::uint32_t> component_ids);

    /**
     * @brief Whether a run-time type description is one a schema can hold and one that lays
     * out the same on every CPU: a name of 1..max_name characters, size and field count within
     * the limits, known kinds, fields that tile the size exactly (no gap, no overlap), each
     * field's size a whole number of elements, each field's offset a multiple of its canonical
     * alignment and the type's alignment the canonical one (the largest field's, or more: a
     * power of two; docs/determinism.md, "One layout everywhere"). @p record_align gives the
     * canonical alignment of each `record` field's element, in field order (0 for other
     * fields); without it, records count as 1-aligned. A tag is size 0 with no fields.
     */
    [[nodiscard]] static result<void> check_type(const type_info &info,
                                                 std::span<const std::uint32_t> record_align = {});

    /// @brief Declared component types, in id order.
    [[nodiscard]] std::span<const type> components() const noexcept { return components_; }
    /// @brief Declared resource types, in id order.
    [[nodiscard]] std::span<const type> resources() const noexcept { return resources_; }
    /// @brief Declared groups, each a list of component ids.
    [[nodiscard]] std::span<const std::vector<std::uint16_t>> groups() const noexcept { return groups_; }
    /// @brief A component's registered view (name, sizes, fields), valid while the schema lives.
    [[nodiscard]] const type_info &component_info(std::size_t id) const noexcept { return component_views_[id]; }
    [[nodiscard]] const type_info &resource_info(std::size_t id) const noexcept { return resource_views_[id]; }
    /// @brief Id of a component by name, or npos.
    [[nodiscard]] std::uint32_t find_component(std::string_view name) const noexcept;
    /// @brief Id of a resource by name, or npos.
    [[nodiscard]] std::uint32_t find_resource(std::string_view name) const noexcept;

    /// @brief The canonical byte form (see docs/file-format.md, "Schema block").
    [[nodiscard]] std::vector<std::byte> serialize() const;
    /// @brief 64-bit FNV-1a of serialize().
    [[nodiscard]] std::uint64_t hash() const;
    /// @brief Reads a canonical byte form from untrusted bytes (docs/file-format.md, "Schema
    /// block"). On failure the error says what was wrong, and `err().offset` is the byte offset
    /// in @p bytes where it was found. Codes: errc::truncated (the block ends early),
    /// errc::bad_magic, errc::bad_version (another format version or entity layout),
    /// errc::too_large (a count or type size over the limits above), errc::corrupt (anything
    /// else inconsistent). `message()` starts with "schema". Any simulation semantics is read
    /// (tools inspect old files); whether this build can simulate it is `check_simulation`'s.
    [[nodiscard]] static result<schema> parse(std::span<const std::byte> bytes);

    /// @brief The simulation semantics the schema was recorded with: `simulation_semantics` for
    /// a declared schema; for a parsed one, what its bytes say (1 for format 1, which predates
    /// the field).
    [[nodiscard]] std::uint16_t semantics() const noexcept { return semantics_; }

    /// @brief Lines describing how two schemas differ (empty if they are equal).
    [[nodiscard]] static std::vector<std::string> differences(const schema &a, const schema &b);

    friend bool operator==(const schema &a, const schema &b) { return a.serialize() == b.serialize(); }

private:
    void add_type(std::vector<type> &list, const type_info &info, std::uint32_t seq, const char *what);
    void add_group(std::vector<std::uint32_t> seqs, std::vector<std::string_view> names);
    void refresh_views();

    std::vector<type> components_;
    std::vector<type> resources_;
    std::vector<std::vector<std::uint16_t>> groups_;
    std::uint16_t semantics_ = simulation_semantics;
    // string_view/span views into the owned data above; rebuilt on every copy or change.
    std::vector<std::vector<field_info>> field_views_;
    std::vector<type_info> component_views_;
    std::vector<type_info> resource_views_;
};

/**
 * @brief Whether this build can re-simulate, or restore and go on simulating, what was recorded
 * with schema @p recorded: ok when its `semantics()` is this build's `simulation_semantics`.
 * Otherwise errc::bad_version, with a message that names both numbers and what to do ("recorded
 * with simulation semantics 1 (...); this build simulates with semantics 2, so it cannot be
 * re-simulated: ..."). Call it before comparing schema hashes, which would differ too, only
 * without saying why.
 */
[[nodiscard]] result<void> check_simulation(const schema &recorded);

} // namespace retcon

#endif
