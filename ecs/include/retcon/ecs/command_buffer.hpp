#ifndef RETCON_ECS_COMMAND_BUFFER_HPP
#define RETCON_ECS_COMMAND_BUFFER_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "world.hpp"

namespace retcon {

/**
 * @brief Structural changes recorded during iteration and applied afterwards, in order.
 *
 * Inside a view or group loop, only the visited entity may lose components or be destroyed;
 * everything else (adding components, changing other entities) is recorded here and applied
 * once the loop is over. Creating entities is always safe (it touches no pool), so
 * `world::create` may be called directly and the new handle used in recorded commands.
 * Commands whose entity is no longer live when applied (two systems destroying the same bullet)
 * are skipped and counted. Buffers keep their capacity: steady-state use does not allocate.
 * The buffer must be empty whenever the world is snapshotted.
 */
class command_buffer {
public:
    /// @brief A buffer that records commands for @p w.
    explicit command_buffer(world &w) noexcept : world_{&w} {}

    /// @brief Records `emplace<T>(e, args...)`.
    template<class T, class... Args>
    void emplace(entity e, Args &&...args) {
        record<T>(kind::emplace, e, std::forward<Args>(args)...);
    }
    /// @brief Records `emplace_or_replace<T>(e, args...)`.
    template<class T, class... Args>
    void emplace_or_replace(entity e, Args &&...args) {
        record<T>(kind::emplace_or_replace, e, std::forward<Args>(args)...);
    }
    /// @brief Records `try_remove<T>(e)`.
    template<class T>
    void remove(entity e) {
        commands_.push_back(command{kind::remove, world_->pool_id<T>(), e, 0});
    }
    /// @brief Records `destroy(e)`.
    void destroy(entity e) { commands_.push_back(command{kind::destroy, 0, e, 0}); }

    /// @brief Applies every command in record order, then empties the buffer. A hook run by a
    /// command may record more commands into this buffer; they are applied in the same call,
    /// after the ones recorded before.
    ///
    /// Commands are consumed as they are applied: if a command is reported as misuse and the
    /// misuse handler throws, that command and the ones before it are gone from the buffer (none
    /// runs twice), and the ones after it stay for the next apply (or clear).
    void apply() {
        while (next_ < commands_.size()) { // by index: hooks may append
            const command c = commands_[next_++];
            if (!world_->valid(c.target)) {
                ++skipped_;
                continue;
            }
            switch (c.what) {
            case kind::emplace:
            case kind::emplace_or_replace:
                world_->emplace_bytes(c.pool, c.target, bytes_.data() + c.offset, c.what == kind::emplace_or_replace);
                break;
            case kind::remove: {
                const auto pos = world_->pools_[c.pool].index(c.target);
                if (pos != pool::npos) world_->erase_at(c.pool, pos);
                break;
            }
            case kind::destroy: world_->destroy(c.target); break;
            }
        }
        clear();
    }

    /// @brief Drops every recorded command.
    void clear() noexcept {
        commands_.clear();
        bytes_.clear();
        next_ = 0;
    }
    /// @brief True if no command is waiting to be applied.
    [[nodiscard]] bool empty() const noexcept { return next_ == commands_.size(); }
    /// @brief Number of commands waiting to be applied.
    [[nodiscard]] std::size_t size() const noexcept { return commands_.size() - next_; }
    /// @brief Commands skipped so far because their entity was gone when applied.
    [[nodiscard]] std::size_t skipped() const noexcept { return skipped_; }

private:
    enum class kind : std::uint8_t { emplace, emplace_or_replace, remove, destroy };
    struct command {
        kind what{};
        world::size_type pool{};
        entity target{};
        std::uint32_t offset;
    };

    template<class T, class... Args>
    void record(kind k, entity e, Args &&...args) {
        const auto id = world_->pool_id<T>();
        const auto offset = static_cast<std::uint32_t>(bytes_.size());
        if constexpr (!std::is_empty_v<T>) {
            const T value{std::forward<Args>(args)...};
            bytes_.resize(bytes_.size() + sizeof(T));
            std::memcpy(bytes_.data() + offset, &value, sizeof(T));
        }
        commands_.push_back(command{k, id, e, offset});
    }

    world *world_;
    std::vector<command> commands_;
    std::vector<std::byte> bytes_;
    std::size_t next_ = 0; // commands before next_ were applied (or reported); the rest wait
    std::size_t skipped_ = 0;
};

} // namespace retcon

#endif
