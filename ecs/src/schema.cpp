#include <retcon/ecs/schema.hpp>
#include <retcon/internal/byte_io.hpp>
#include <retcon/internal/field_kinds.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

namespace retcon {

namespace internal {
std::uint32_t next_type_seq() noexcept {
    static std::atomic<std::uint32_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed);
}
} // namespace internal

namespace {

constexpr std::uint32_t schema_magic = 0x48534352u; // "RCSH" little-endian
// Format 2 added the simulation-semantics field. A schema of semantics 1 is still written as
// format 1, the bytes (and hash) it always had; format 2 holds semantics 2 and later.
constexpr std::uint16_t schema_format = 2;
constexpr std::uint16_t first_semantics_field = 2; // the first semantics format 2 records

using writer = internal::byte_writer;

/// The shared reader plus what the schema parser reports: the first problem, with its offset.
class reader {
public:
    explicit reader(std::span<const std::byte> in) : r_{in} {}
    [[nodiscard]] bool ok() const { return ok_; }
    [[nodiscard]] std::size_t offset() const { return r_.offset(); }
    [[nodiscard]] bool at_end() const { return r_.remaining() == 0; }
    std::uint8_t u8() { return checked(r_.u8()); }
    std::uint16_t u16() { return checked(r_.u16()); }
    std::uint32_t u32() { return checked(r_.u32()); }
    /// @p empty_what: the (static) complaint when the name is empty.
    std::string name(const char *empty_what) {
        const std::size_t n = u8();
        std::string s = r_.text(n, schema::max_name);
        checked(0);
        if (ok_ && s.empty()) fail(errc::corrupt, empty_what);
        return s;
    }
    /// A fixed text ("schema: ..."): message() is "schema: ... at byte N".
    void fail(errc code, const char *static_what) {
        if (ok_) error_ = error{code, static_what, r_.offset()};
        ok_ = false;
    }
    /// A text with names or numbers in it: message() is "schema at byte N: ...".
    void fail(errc code, std::string text) {
        if (ok_) {
            error_ = error{code, "schema", r_.offset()};
            error_.context = std::move(text);
        }
        ok_ = false;
    }
    /// The first problem. @warning Only when !ok().
    [[nodiscard]] const error &err() const { return error_; }

private:
    template<class T>
    T checked(T v) {
        if (!r_.ok())
            fail(errc::truncated,
                 "truncated: the block ends before this field (" + std::to_string(r_.remaining()) + " bytes left)");
        return v;
    }
    internal::byte_reader r_;
    error error_;
    bool ok_ = true;
};

void write_type(writer &w, const schema::type &t) {
    w.text8(t.name);
    w.u32(t.size);
    w.u32(t.align);
    w.u16(static_cast<std::uint16_t>(t.fields.size()));
    for (const auto &f : t.fields) {
        w.text8(f.name);
        w.u32(f.offset);
        w.u32(f.size);
        w.u32(f.count);
        w.u8(static_cast<std::uint8_t>(f.kind));
    }
}

bool read_type(reader &r, schema::type &t) {
    t.name = r.name("schema: empty type name");
    t.size = r.u32();
    t.align = r.u32();
    const std::size_t nfields = r.u16();
    if (!r.ok()) return false;
    if (t.align == 0 || (t.align & (t.align - 1)) != 0 || t.align > schema::max_align) {
        r.fail(errc::corrupt, "type '" + t.name + "' has alignment " + std::to_string(t.align) +
                                  ", not a power of two <= " + std::to_string(schema::max_align));
        return false;
    }
    if (t.size > schema::max_type_size || t.size % t.align != 0) {
        r.fail(t.size > schema::max_type_size ? errc::too_large : errc::corrupt,
               "type '" + t.name + "' has an impossible size " + std::to_string(t.size) + " (limit " +
                   std::to_string(schema::max_type_size) + " bytes, a multiple of its alignment)");
        return false;
    }
    if (nfields > schema::max_fields) {
        r.fail(errc::too_large, "type '" + t.name + "' declares " + std::to_string(nfields) + " fields");
        return false;
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> spans; // (offset, size) of each field
    for (std::size_t i = 0; i < nfields && r.ok(); ++i) {
        schema::field f;
        f.name = r.name("schema: empty field name");
        f.offset = r.u32();
        f.size = r.u32();
        f.count = r.u32();
        const auto kind = r.u8();
        if (!r.ok()) return false;
        if (!internal::find_field_kind(kind)) {
            r.fail(errc::corrupt, "field '" + t.name + "." + f.name + "' has unknown kind " + std::to_string(kind));
            return false;
        }
        f.kind = static_cast<field_kind>(kind);
        if (std::uint64_t{f.offset} + f.size > t.size || f.count == 0 || f.size % f.count != 0) {
            r.fail(errc::corrupt, "field '" + t.name + "." + f.name + "' lies outside its type or has a bad count");
            return false;
        }
        spans.emplace_back(f.offset, f.size);
        t.fields.push_back(std::move(f));
    }
    if (!r.ok()) return false;
    // The fields must tile the type exactly, as RETCON_COMPONENT guarantees for compiled types:
    // a sum of sizes is not enough (overlapping fields can add up to the size around a gap).
    std::sort(spans.begin(), spans.end());
    std::uint64_t end = 0;
    for (const auto &[offset, size] : spans) {
        if (offset != end) {
            r.fail(errc::corrupt,
                   "fields of '" + t.name + "' " +
                       (offset < end ? "overlap at byte " + std::to_string(offset)
                                     : "do not cover bytes " + std::to_string(end) + ".." + std::to_string(offset)));
            return false;
        }
        end = std::uint64_t{offset} + size;
    }
    if (end != t.size) {
        r.fail(errc::corrupt,
               "fields of '" + t.name + "' do not cover bytes " + std::to_string(end) + ".." + std::to_string(t.size));
        return false;
    }
    return true;
}

/// Reads a list of types into @p out; names must be unique within it and must not appear in
/// @p others (components and resources share one name space, as schema::component/resource
/// require).
bool read_types(reader &r, std::vector<schema::type> &out, const char *what, std::span<const schema::type> others = {},
                const char *others_what = "") {
    const std::size_t n = r.u32();
    if (!r.ok()) return false;
    if (n > schema::max_types) {
        r.fail(errc::too_large, std::string("declares ") + std::to_string(n) + " " + what + " types (limit " +
                                    std::to_string(schema::max_types) + ")");
        return false;
    }
    for (std::size_t i = 0; i < n; ++i) {
        schema::type t;
        if (!read_type(r, t)) return false;
        for (const auto &other : out)
            if (other.name == t.name) {
                r.fail(errc::corrupt, std::string("duplicate ") + what + " '" + t.name + "'");
                return false;
            }
        for (const auto &other : others)
            if (other.name == t.name) {
                r.fail(errc::corrupt, std::string(what) + " '" + t.name + "' has the same name as a " + others_what);
                return false;
            }
        out.push_back(std::move(t));
    }
    return true;
}

} // namespace

schema::schema(const schema &other)
    : components_{other.components_}, resources_{other.resources_}, groups_{other.groups_}, semantics_{
                                                                                                other.semantics_} {
    refresh_views();
}
schema::schema(schema &&other) noexcept
    : components_{std::move(other.components_)},
      resources_{std::move(other.resources_)}, groups_{std::move(other.groups_)}, semantics_{other.semantics_} {
    refresh_views();
    other.refresh_views();
}
schema &schema::operator=(const schema &other) {
    if (this != &other) {
        components_ = other.components_;
        resources_ = other.resources_;
        groups_ = other.groups_;
        semantics_ = other.semantics_;
        refresh_views();
    }
    return *this;
}
schema &schema::operator=(schema &&other) noexcept {
    if (this != &other) {
        components_ = std::move(other.components_);
        resources_ = std::move(other.resources_);
        groups_ = std::move(other.groups_);
        semantics_ = other.semantics_;
        refresh_views();
        other.refresh_views();
    }
    return *this;
}

void schema::refresh_views() {
    field_views_.clear();
    component_views_.clear();
    resource_views_.clear();
    field_views_.reserve(components_.size() + resources_.size());
    auto view_of = [this](const type &t) {
        auto &fields = field_views_.emplace_back();
        for (const auto &f : t.fields) fields.push_back(field_info{f.name, f.offset, f.size, f.count, f.kind});
        return type_info{t.name, t.size, t.align, std::span<const field_info>(fields)};
    };
    for (const auto &t : components_) component_views_.push_back(view_of(t));
    for (const auto &t : resources_) resource_views_.push_back(view_of(t));
}

void schema::add_type(std::vector<type> &list, const type_info &info, std::uint32_t seq, const char *what) {
    // Run-time types have no seq (npos): only their names can collide.
    for (const auto &t : components_)
        if ((seq != npos && t.seq == seq) || t.name == info.name)
            internal::misuse("schema: %.*s is already declared as a component", static_cast<int>(info.name.size()),
                             info.name.data());
    for (const auto &t : resources_)
        if ((seq != npos && t.seq == seq) || t.name == info.name)
            internal::misuse("schema: %.*s is already declared as a resource", static_cast<int>(info.name.size()),
                             info.name.data());
    if (list.size() >= max_types) internal::misuse("schema: more than %zu %s types", max_types, what);
    // parse (files, the network) accepts no larger type: refuse it here, not in a peer.
    if (info.size > max_type_size)
        internal::misuse("schema: %s %.*s is %u bytes, larger than the %zu-byte limit (keep big data out of the "
                         "world, or split the type)",
                         what, static_cast<int>(info.name.size()), info.name.data(), info.size, max_type_size);
    if (info.align > max_align)
        internal::misuse("schema: %s %.*s has alignment %u, more than the limit of %zu", what,
                         static_cast<int>(info.name.size()), info.name.data(), info.align, max_align);
    // Names are stored with a one-byte length in the canonical form.
    if (info.name.size() > max_name)
        internal::misuse("schema: %s name '%.40s...' is longer than %zu characters", what, info.name.data(), max_name);
    for (const auto &f : info.fields)
        if (f.name.size() > max_name)
            internal::misuse("schema: field name '%.40s...' of %.*s is longer than %zu characters", f.name.data(),
                             static_cast<int>(info.name.size()), info.name.data(), max_name);
    type t;
    t.name = std::string(info.name);
    t.size = info.size;
    t.align = info.align;
    t.seq = seq;
    for (const auto &f : info.fields) t.fields.push_back(field{std::string(f.name), f.offset, f.size, f.count, f.kind});
    list.push_back(std::move(t));
    refresh_views();
}

void schema::add_group(std::vector<std::uint32_t> seqs, std::vector<std::string_view> names) {
    std::vector<std::uint16_t> ids;
    for (std::size_t i = 0; i < seqs.size(); ++i) {
        const auto it =
            std::find_if(components_.begin(), components_.end(), [&](const type &t) { return t.seq == seqs[i]; });
        if (it == components_.end())
            internal::misuse("schema: group over %.*s, which is not a declared component (declare it first)",
                             static_cast<int>(names[i].size()), names[i].data());
        const auto id = static_cast<std::uint16_t>(it - components_.begin());
        for (const auto &g : groups_)
            if (std::find(g.begin(), g.end(), id) != g.end())
                internal::misuse("schema: %.*s is already owned by another group", static_cast<int>(names[i].size()),
                                 names[i].data());
        if (std::find(ids.begin(), ids.end(), id) != ids.end())
            internal::misuse("schema: %.*s appears twice in one group", static_cast<int>(names[i].size()),
                             names[i].data());
        ids.push_back(id);
    }
    groups_.push_back(std::move(ids));
}

std::uint32_t schema::find_component(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < components_.size(); ++i)
        if (components_[i].name == name) return static_cast<std::uint32_t>(i);
    return npos;
}

std::uint32_t schema::find_resource(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < resources_.size(); ++i)
        if (resources_[i].name == name) return static_cast<std::uint32_t>(i);
    return npos;
}

schema &schema::group(std::span<const std::uint32_t> component_ids) {
    if (component_ids.size() < 2) internal::misuse("schema: a group owns at least two component types");
    std::vector<std::uint16_t> ids;
    for (const auto id : component_ids) {
        if (id >= components_.size())
            internal::misuse("schema: group over component id %u, but only %zu components are declared", id,
                             components_.size());
        for (const auto &g : groups_)
            if (std::find(g.begin(), g.end(), id) != g.end())
                internal::misuse("schema: %s is already owned by another group", components_[id].name.c_str());
        if (std::find(ids.begin(), ids.end(), id) != ids.end())
            internal::misuse("schema: %s appears twice in one group", components_[id].name.c_str());
        ids.push_back(static_cast<std::uint16_t>(id));
    }
    groups_.push_back(std::move(ids));
    return *this;
}

result<void> schema::check_type(const type_info &info, std::span<const std::uint32_t> record_align) {
    auto fail = [&info](std::string what) {
        return error{errc::invalid_argument, "schema: type '" + std::string(info.name) + "': " + std::move(what)};
    };
    if (info.name.empty() || info.name.size() > max_name)
        return error{errc::invalid_argument, "schema: a type name must have 1 to 255 characters"};
    if (info.size > max_type_size) return fail("larger than the " + std::to_string(max_type_size) + "-byte limit");
    if (info.fields.size() > max_fields) return fail("more than " + std::to_string(max_fields) + " fields");
    if (!record_align.empty() && record_align.size() != info.fields.size())
        return fail("record alignments given for " + std::to_string(record_align.size()) + " of " +
                    std::to_string(info.fields.size()) + " fields");
    if (info.size == 0) {
        if (!info.fields.empty()) return fail("size 0 (a tag) but fields declared");
        return {};
    }
    if (info.fields.empty()) return fail("no fields");
    std::uint32_t align = 1;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> spans; // offset, size
    for (std::size_t i = 0; i < info.fields.size(); ++i) {
        const field_info &f = info.fields[i];
        const std::string field = "field '" + std::string(f.name) + "'";
        if (f.name.empty() || f.name.size() > max_name) return fail("a field name must have 1 to 255 characters");
        for (std::size_t j = 0; j < i; ++j)
            if (info.fields[j].name == f.name) return fail(field + " is declared twice");
        const auto k = static_cast<std::uint8_t>(f.kind);
        if (!internal::find_field_kind(k)) return fail(field + " has unknown kind " + std::to_string(k));
        if (f.count == 0 || f.size == 0 || f.size % f.count != 0)
            return fail(field + ": size " + std::to_string(f.size) + " is not a whole number of " +
                        std::to_string(f.count) + " elements");
        const std::uint32_t element = f.size / f.count;
        std::uint32_t a = 1;
        if (const auto w = scalar_width(f.kind)) {
            if (element != w)
                return fail(field + ": a " + std::to_string(w) + "-byte kind, but elements of " +
                            std::to_string(element) + " bytes");
            a = w;
        } else if (f.kind == field_kind::record && !record_align.empty()) {
            a = record_align[i] ? record_align[i] : 1;
            if ((a & (a - 1)) != 0 || element % a != 0)
                return fail(field + ": record alignment " + std::to_string(a) + " does not divide its element size");
        }
        if (f.offset % a != 0)
            return fail(field + " at offset " + std::to_string(f.offset) + " is not at a multiple of its alignment " +
                        std::to_string(a) +
                        " (other CPUs would lay it out differently: add explicit padding; "
                        "docs/determinism.md)");
        if (std::uint64_t{f.offset} + f.size > info.size)
            return fail(field + " ends past the type's " + std::to_string(info.size) + " bytes");
        align = a > align ? a : align;
        spans.emplace_back(f.offset, f.size);
    }
    std::sort(spans.begin(), spans.end());
    std::uint64_t end = 0;
    for (const auto &[offset, size] : spans) {
        if (offset != end)
            return fail(offset > end ? "a gap (padding) at offset " + std::to_string(end) + ": declare it as a field"
                                     : "fields overlap at offset " + std::to_string(offset));
        end += size;
    }
    if (end != info.size)
        return fail("fields cover " + std::to_string(end) + " of " + std::to_string(info.size) + " bytes");
    if (info.align < align || info.align > max_align || (info.align & (info.align - 1)) != 0)
        return fail("alignment " + std::to_string(info.align) + ", but its fields need " + std::to_string(align) +
                    " (a power of two, at least the widest field's)");
    if (info.size % info.align != 0)
        return fail("size " + std::to_string(info.size) + " is not a multiple of its alignment " +
                    std::to_string(info.align) + ": add trailing padding as a field");
    return {};
}

std::vector<std::byte> schema::serialize() const {
    std::vector<std::byte> out;
    writer w{out};
    w.u32(schema_magic);
    const bool has_field = semantics_ >= first_semantics_field;
    w.u16(has_field ? schema_format : std::uint16_t{1});
    w.u8(static_cast<std::uint8_t>(entity_traits::index_bits));
    w.u8(static_cast<std::uint8_t>(entity_traits::version_bits));
    if (has_field) w.u16(semantics_);
    w.u32(static_cast<std::uint32_t>(components_.size()));
    for (const auto &t : components_) write_type(w, t);
    w.u32(static_cast<std::uint32_t>(resources_.size()));
    for (const auto &t : resources_) write_type(w, t);
    w.u32(static_cast<std::uint32_t>(groups_.size()));
    for (const auto &g : groups_) {
        w.u16(static_cast<std::uint16_t>(g.size()));
        for (auto id : g) w.u16(id);
    }
    return out;
}

std::uint64_t schema::hash() const {
    std::uint64_t h = 0xcbf29ce484222325ull; // FNV-1a 64
    for (std::byte b : serialize()) {
        h ^= static_cast<std::uint8_t>(b);
        h *= 0x100000001b3ull;
    }
    return h;
}

result<schema> schema::parse(std::span<const std::byte> bytes) {
    reader r{bytes};
    if (const auto magic = r.u32(); magic != schema_magic) {
        if (r.ok() && magic == internal::byte_swapped(schema_magic))
            r.fail(errc::bad_magic, "schema: written by a big-endian host (magic byte-swapped); retcon schema blocks "
                                    "are little-endian only (docs/determinism.md)");
        else if (r.ok())
            r.fail(errc::bad_magic, "schema: bad magic (not a retcon schema block)");
        return r.err();
    }
    const auto format = r.u16();
    if (r.ok() && (format < 1 || format > schema_format)) {
        r.fail(errc::bad_version, "format version " + std::to_string(format) +
                                      " is not supported (this build reads 1 to " + std::to_string(schema_format) +
                                      ")");
        return r.err();
    }
    const auto ib = r.u8();
    const auto vb = r.u8();
    if (r.ok() && (ib != entity_traits::index_bits || vb != entity_traits::version_bits)) {
        r.fail(errc::bad_version, "entity layout " + std::to_string(ib) + "+" + std::to_string(vb) +
                                      " bits differs from this build's " + std::to_string(entity_traits::index_bits) +
                                      "+" + std::to_string(entity_traits::version_bits));
        return r.err();
    }
    schema s;
    s.semantics_ = 1; // format 1 predates the field: recorded with semantics 1
    if (format >= 2) {
        s.semantics_ = r.u16();
        // Semantics 1 is written as format 1 only, so every schema has one canonical form.
        if (r.ok() && s.semantics_ < first_semantics_field) {
            r.fail(errc::corrupt, "simulation semantics " + std::to_string(s.semantics_) + " in format " +
                                      std::to_string(format) + " (which records semantics " +
                                      std::to_string(first_semantics_field) + " or later)");
            return r.err();
        }
    }
    if (!read_types(r, s.components_, "component") ||
        !read_types(r, s.resources_, "resource", s.components_, "component"))
        return r.err();
    const std::size_t ngroups = r.u32();
    if (r.ok() && ngroups > s.components_.size() / 2) {
        r.fail(errc::corrupt,
               std::to_string(ngroups) + " groups for " + std::to_string(s.components_.size()) + " components");
        return r.err();
    }
    std::vector<bool> owned(s.components_.size(), false);
    for (std::size_t g = 0; g < ngroups && r.ok(); ++g) {
        const std::size_t n = r.u16();
        if (r.ok() && (n < 2 || n > s.components_.size())) {
            r.fail(errc::corrupt, "group " + std::to_string(g) + " has " + std::to_string(n) + " types");
            return r.err();
        }
        std::vector<std::uint16_t> ids;
        for (std::size_t i = 0; i < n && r.ok(); ++i) {
            const auto id = r.u16();
            if (r.ok() && (id >= s.components_.size() || owned[id])) {
                r.fail(errc::corrupt, "group " + std::to_string(g) + " names component id " + std::to_string(id) +
                                          " that is out of range or already owned");
                return r.err();
            }
            if (r.ok()) owned[id] = true;
            ids.push_back(id);
        }
        s.groups_.push_back(std::move(ids));
    }
    if (r.ok() && !r.at_end()) r.fail(errc::corrupt, "schema: trailing bytes after the schema");
    if (!r.ok()) return r.err();
    s.refresh_views();
    return s;
}

std::vector<std::string> schema::differences(const schema &a, const schema &b) {
    std::vector<std::string> out;
    auto compare = [&out](std::span<const type> x, std::span<const type> y, const char *what) {
        const std::size_t n = std::max(x.size(), y.size());
        for (std::size_t i = 0; i < n; ++i) {
            const std::string id = std::string(what) + " " + std::to_string(i);
            if (i >= x.size()) {
                out.push_back(id + ": only in the second schema ('" + y[i].name + "')");
                continue;
            }
            if (i >= y.size()) {
                out.push_back(id + ": only in the first schema ('" + x[i].name + "')");
                continue;
            }
            const auto &p = x[i];
            const auto &q = y[i];
            if (p.name != q.name) out.push_back(id + ": '" + p.name + "' vs '" + q.name + "'");
            else if (p.size != q.size || p.align != q.align)
                out.push_back(id + " '" + p.name + "': size/align " + std::to_string(p.size) + "/" +
                              std::to_string(p.align) + " vs " + std::to_string(q.size) + "/" +
                              std::to_string(q.align));
            else if (p.fields.size() != q.fields.size()) {
                out.push_back(id + " '" + p.name + "': " + std::to_string(p.fields.size()) + " fields vs " +
                              std::to_string(q.fields.size()));
            } else {
                for (std::size_t f = 0; f < p.fields.size(); ++f) { // name the first field that differs
                    const auto &g = p.fields[f];
                    const auto &h = q.fields[f];
                    auto shape = [](const field &fd) {
                        return "kind " + std::to_string(static_cast<int>(fd.kind)) + " x" + std::to_string(fd.count) +
                               " at " + std::to_string(fd.offset) + " (" + std::to_string(fd.size) + " bytes)";
                    };
                    if (g.name != h.name) {
                        out.push_back(id + " '" + p.name + "': field " + std::to_string(f) + " '" + g.name + "' vs '" +
                                      h.name + "'");
                        break;
                    }
                    if (g.offset != h.offset || g.size != h.size || g.kind != h.kind || g.count != h.count) {
                        out.push_back(id + " '" + p.name + "': field '" + g.name + "' " + shape(g) + " vs " + shape(h));
                        break;
                    }
                }
            }
        }
    };
    if (a.semantics_ != b.semantics_)
        out.push_back("simulation semantics " + std::to_string(a.semantics_) + " vs " + std::to_string(b.semantics_));
    compare(a.components_, b.components_, "component");
    compare(a.resources_, b.resources_, "resource");
    if (a.groups_ != b.groups_) out.push_back("groups differ");
    return out;
}

namespace {

/// What a simulation-semantics number stands for, for messages (history: schema.hpp).
std::string describe_semantics(std::uint16_t semantics) {
    switch (semantics) {
    case 1: return "retcon's iteration order before forward blocks of 4096";
    case 2: return "forward blocks of 4096, views aligning their pools";
    default: return semantics > simulation_semantics ? "newer than this build" : "not a number retcon ever used";
    }
}

} // namespace

result<void> check_simulation(const schema &recorded) {
    const std::uint16_t s = recorded.semantics();
    if (s == simulation_semantics) return {};
    return error{errc::bad_version, "recorded with simulation semantics " + std::to_string(s) + " (" +
                                        describe_semantics(s) + "); this build simulates with semantics " +
                                        std::to_string(simulation_semantics) +
                                        ", so it cannot be re-simulated: verify it with a semantics-" +
                                        std::to_string(s) + " build or record it again"};
}

} // namespace retcon
