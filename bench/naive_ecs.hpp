#ifndef RETCON_BENCH_NAIVE_ECS_HPP
#define RETCON_BENCH_NAIVE_ECS_HPP

// Baselines for bench/ecs_bench.cpp, measured in the same run as retcon:
//  - naive::registry: one std::unordered_map<std::uint32_t, T> per component type. Small and
//    obviously correct; what a game would write without an ECS library.
//  - minimal::registry: one hand-written sparse set per component type (dense entity vector,
//    payload vector in the same order, a flat sparse vector; no pages, no versions, no misuse
//    checks). The floor a sparse-set ECS can hope for (docs/benchmarks.md).
// Entities are plain std::uint32_t indices; freed indices are reused (LIFO).

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace naive {

template<class... C>
class registry {
public:
    std::uint32_t create() {
        if (!free_.empty()) {
            const auto e = free_.back();
            free_.pop_back();
            return e;
        }
        return next_++;
    }
    void destroy(std::uint32_t e) {
        (map<C>().erase(e), ...);
        free_.push_back(e);
    }
    template<class T, class... A>
    void emplace(std::uint32_t e, A &&...a) {
        map<T>().try_emplace(e, T{std::forward<A>(a)...});
    }
    template<class T>
    void remove(std::uint32_t e) {
        map<T>().erase(e);
    }
    template<class T>
    T *try_get(std::uint32_t e) {
        auto &m = map<T>();
        const auto it = m.find(e);
        return it == m.end() ? nullptr : &it->second;
    }
    /// Calls f(First&, Rest&...) for every entity that has all of them (walks First's map).
    template<class First, class... Rest, class F>
    void each(F &&f) {
        for (auto &[e, first] : map<First>()) {
            std::tuple<Rest *...> rest{try_get<Rest>(e)...};
            if (((std::get<Rest *>(rest) != nullptr) && ...)) f(first, *std::get<Rest *>(rest)...);
        }
    }
    template<class T>
    std::size_t size() {
        return map<T>().size();
    }

private:
    template<class T>
    std::unordered_map<std::uint32_t, T> &map() {
        return std::get<std::unordered_map<std::uint32_t, T>>(maps_);
    }

    std::uint32_t next_ = 0;
    std::vector<std::uint32_t> free_;
    std::tuple<std::unordered_map<std::uint32_t, C>...> maps_;
};

} // namespace naive

namespace minimal {

inline constexpr std::uint32_t npos = ~std::uint32_t{0};

/// One component type: dense owners + payload in the same order + flat sparse index.
template<class T>
class storage {
public:
    bool contains(std::uint32_t e) const { return e < sparse_.size() && sparse_[e] != npos; }
    void emplace(std::uint32_t e, const T &value) {
        if (e >= sparse_.size()) sparse_.resize(std::size_t{e} + 1u, npos);
        sparse_[e] = static_cast<std::uint32_t>(dense_.size());
        dense_.push_back(e);
        if constexpr (!std::is_empty_v<T>) data_.push_back(value);
    }
    void remove(std::uint32_t e) {
        const auto pos = sparse_[e];
        const auto last = dense_.back();
        dense_[pos] = last;
        sparse_[last] = pos;
        sparse_[e] = npos;
        dense_.pop_back();
        if constexpr (!std::is_empty_v<T>) {
            data_[pos] = data_.back();
            data_.pop_back();
        }
    }
    T &get(std::uint32_t e) { return data_[sparse_[e]]; }
    std::size_t size() const { return dense_.size(); }
    const std::vector<std::uint32_t> &dense() const { return dense_; }
    std::vector<T> &data() { return data_; }

private:
    std::vector<std::uint32_t> sparse_;
    std::vector<std::uint32_t> dense_;
    std::vector<T> data_;
};

template<class... C>
class registry {
public:
    std::uint32_t create() {
        if (!free_.empty()) {
            const auto e = free_.back();
            free_.pop_back();
            return e;
        }
        return next_++;
    }
    void destroy(std::uint32_t e) {
        ((store<C>().contains(e) ? store<C>().remove(e) : void()), ...);
        free_.push_back(e);
    }
    template<class T, class... A>
    void emplace(std::uint32_t e, A &&...a) {
        store<T>().emplace(e, T{std::forward<A>(a)...});
    }
    template<class T>
    void remove(std::uint32_t e) {
        store<T>().remove(e);
    }
    /// Calls f(First&, Rest&...) for every entity that has all of them (walks First's dense array).
    template<class First, class... Rest, class F>
    void each(F &&f) {
        auto &first = store<First>();
        const auto &owners = first.dense();
        for (std::size_t i = 0; i < owners.size(); ++i) {
            const auto e = owners[i];
            if ((store<Rest>().contains(e) && ...)) f(first.data()[i], store<Rest>().get(e)...);
        }
    }
    template<class T>
    storage<T> &store() {
        return std::get<storage<T>>(stores_);
    }

private:
    std::uint32_t next_ = 0;
    std::vector<std::uint32_t> free_;
    std::tuple<storage<C>...> stores_;
};

} // namespace minimal

#endif
