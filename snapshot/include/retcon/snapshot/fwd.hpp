#ifndef RETCON_SNAPSHOT_FWD_HPP
#define RETCON_SNAPSHOT_FWD_HPP

#include <cstdint>

namespace retcon {

using hash64 = std::uint64_t;
enum class errc : std::uint8_t;
struct error;
template<class T>
class result;
struct image_header;
struct image_view;
class world_image;
struct world_hashes;
class snapshot_ring;
struct read_limits;
struct snapshot_file;
struct replay_settings;
class replay_writer;
class replay_reader;
struct replay_keyframe;
struct verify_report;
struct snapshot_diff;
struct diff_options;

} // namespace retcon

#endif
