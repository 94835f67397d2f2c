#ifndef RETCON_VERSION_HPP
#define RETCON_VERSION_HPP

// The single source of the project version; CMakeLists.txt parses these three lines.
#define RETCON_VERSION_MAJOR 0
#define RETCON_VERSION_MINOR 1
#define RETCON_VERSION_PATCH 0

namespace retcon {

/// @brief The library version as three integers.
struct version_info {
    int major;
    int minor;
    int patch;
};

/// @brief The version these headers belong to.
inline constexpr version_info version{RETCON_VERSION_MAJOR, RETCON_VERSION_MINOR, RETCON_VERSION_PATCH};

} // namespace retcon

#endif
