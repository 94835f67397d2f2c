#ifndef RETCON_NET_PROTOCOL_HPP
#define RETCON_NET_PROTOCOL_HPP

/**
 * @file protocol.hpp
 * @brief retcon's wire messages, encoded explicitly (fixed-width little-endian fields, bounds
 * checked), never by casting structs onto packets. The byte-level specification is
 * docs/protocol.md; this header is its executable form. Every decoder treats its input as
 * hostile: on any inconsistency it returns an `error{errc, static text, byte offset}` — built
 * without allocating, so a flood of bad packets costs no memory — and leaves its output
 * untouched. Only an accepted message is written to the output (which may then allocate).
 */

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <retcon/ecs/error.hpp>
#include <retcon/ecs/entity.hpp>
#include <retcon/ecs/frame.hpp>
#include <retcon/ecs/schema.hpp>
#include <retcon/snapshot/fwd.hpp>

#include "reconnect_token.hpp"

namespace retcon::wire {

/// @brief Protocol version carried in the handshake; a mismatch is refused. Version 7: `hello`
/// carries the client's simulation semantics and entity handle size, so a peer that would
/// simulate differently is refused by name (docs/protocol.md, "Changes in version 7").
inline constexpr std::uint16_t protocol_version = 7;

/// @brief Bits in this build's entity handles (index and version), as `hello` carries them.
inline constexpr std::uint8_t entity_handle_bits =
    static_cast<std::uint8_t>(entity_traits::index_bits + entity_traits::version_bits);

/// @brief ENet channels (and the simulated transport's): reliability is per channel.
enum class channel : std::uint8_t {
    inputs = 0,    ///< unreliable, sequenced: inputs and confirmed inputs, sent redundantly
    control = 1,   ///< reliable: handshake, desync notices, goodbye
    snapshots = 2, ///< reliable: snapshot transfers in application-level chunks
};
inline constexpr std::uint8_t channel_count = 3;

/// @brief Limits that keep every message small and every decoder bounded.
struct limits {
    static constexpr std::size_t max_players = 32;
    static constexpr std::size_t max_input_size = 64; ///< bytes per player per frame
    static constexpr std::size_t max_frames_per_packet = 64;
    static constexpr std::size_t max_packet = 1200;        ///< stay under a typical MTU
    static constexpr std::size_t snapshot_chunk = 1000;    ///< payload bytes per snapshot chunk
    static constexpr std::size_t max_snapshot = 64u << 20; ///< largest snapshot transfer accepted
    static constexpr std::size_t max_name = 32;
    static constexpr std::size_t max_text = 512;
    static constexpr std::size_t max_input_delay = 60; ///< frames; bound of both welcome delays
    static constexpr std::size_t max_join_token = 512; ///< bytes of `hello.join_token`
    static constexpr std::size_t max_stages = 128;     ///< stages of one frame in a stage list
};

/// @brief First byte of every message.
enum class message_kind : std::uint8_t {
    hello = 1,
    welcome = 2,
    reject = 3,
    input = 4,
    confirmed = 5,
    snapshot_chunk = 6,
    desync = 7,
    bye = 8,
    stage_report = 9,
};

/// @brief Why the server refused a client. Values 5 and 8 (tick rate, player slots) were
/// version 1 reasons: those settings are now the server's, adopted from the welcome; neither
/// is reused. `none` never travels: it is what an event that is no rejection carries.
/// Adding a reason is one enumerator here and one row of `reject_reasons` (the decoder, the
/// names, the C enum and docs/protocol.md are checked against that table by the tests).
enum class reject_reason : std::uint8_t {
    none = 0,        ///< not a rejection (never on the wire)
    protocol = 1,    ///< protocol version differs, or the client is big-endian
    schema = 2,      ///< world schema hash differs
    input = 3,       ///< input size or layout differs
    content = 4,     ///< game content version differs
    full = 6,        ///< no free player slot
    token = 7,       ///< reconnect token unknown
    spectators = 9,  ///< no free spectator place (server_options::max_spectators)
    join_token = 10, ///< join token missing, malformed, forged, expired, reused or for another fleet
    match = 11,      ///< the token's match has ended or differs, or no match has room
    draining = 12,   ///< the server is shutting down and admits nobody
};

/// @brief One reject reason as the protocol defines it.
struct reject_reason_info {
    reject_reason reason{};
    const char *name;      ///< as docs/protocol.md spells it ("full", "join_token", ...)
    const char *meaning{}; ///< one line for docs and logs
};

/// @brief Every reason a reject message may carry, in value order: the one table the decoder,
/// `to_string` and the C API's `rc_reject_reason` follow.
inline constexpr reject_reason_info reject_reasons[] = {
    {reject_reason::protocol, "protocol", "protocol version differs, or the client is big-endian"},
    {reject_reason::schema, "schema", "world schema hash differs"},
    {reject_reason::input, "input", "input size or layout differs"},
    {reject_reason::content, "content", "game content version differs"},
    {reject_reason::full, "full", "no free player slot"},
    {reject_reason::token, "token", "reconnect token unknown"},
    {reject_reason::spectators, "spectators", "no free spectator place"},
    {reject_reason::join_token, "join_token",
     "join token missing, malformed, forged, expired, reused or for another fleet"},
    {reject_reason::match, "match", "the token's match has ended or differs, or no match has room"},
    {reject_reason::draining, "draining", "the server is shutting down and admits nobody"},
};

/// @brief The table's row for @p r (`describe(reason)->meaning`); null for `none` and for values no decoder accepts.
[[nodiscard]] constexpr const reject_reason_info *describe(reject_reason r) noexcept {
    for (const auto &row : reject_reasons)
        if (row.reason == r) return &row;
    return nullptr;
}

/// @brief The text of a `protocol` rejection for a hello of another protocol version:
/// "protocol version 3, server speaks 4" (the server session and the match host send the same).
[[nodiscard]] std::string version_refusal(std::uint32_t client_version);

/// @brief The reason's name as docs/protocol.md spells it ("full", "join_token", ...); "none"
/// for `none`; "unknown" for a value no decoder accepts.
[[nodiscard]] const char *to_string(reject_reason r) noexcept;

/// @brief Client → server, reliable: who I am and what I run. Everything here is compiled
/// into the client and must equal the server's; the match settings come back in the welcome.
struct hello_msg {
    std::uint16_t version = protocol_version;
    std::uint64_t schema_hash = 0;
    /// This build's simulation semantics (ecs/schema.hpp) and entity handle size: the schema
    /// hash covers both, the server compares them first so its refusal can say which differs.
    std::uint16_t semantics = simulation_semantics;
    std::uint8_t entity_bits = wire::entity_handle_bits; ///< 32 or 64
    std::uint64_t input_layout_hash = 0;
    std::uint64_t content_version = 0;
    std::uint16_t input_size = 0;
    bool spectator = false;
    /// Flags bit 1: the sender is big-endian. Retcon peers are little-endian only (input
    /// records travel as raw bytes), so a server refuses such a client. The encoder sets the bit
    /// on a big-endian host whatever this says; setting it elsewhere is for tests.
    bool big_endian = false;
    retcon::reconnect_token reconnect_token{}; ///< empty: a new player
    std::string name{};
    /// Admission proof from a matchmaker, opaque to the protocol (a match host verifies it:
    /// docs/join-tokens.md); empty where the server admits anyone. At most
    /// limits::max_join_token bytes.
    std::vector<std::byte> join_token{};
};

/// @brief Server → client, reliable: accepted, and the match settings the client adopts; a
/// snapshot transfer follows on channel::snapshots.
struct welcome_msg {
    std::uint8_t slot = 0xff;         ///< 0xff: spectator
    std::uint8_t max_players = 0;     ///< player slots (1..limits::max_players)
    std::uint16_t tick_hz = 60;       ///< simulation rate (> 0)
    std::uint8_t input_delay = 2;     ///< the client's input delay (the lowest when adaptive)
    std::uint8_t max_input_delay = 2; ///< the highest it may adapt to (≥ input_delay; equal: fixed)
    frame_t server_frame = 0;         ///< the server's next frame when it sent this
    /// Flags bit 0: report world hashes of confirmed frames (players always; spectators only
    /// when the server verifies them, server_options::verify_spectators).
    bool report_checksums = true;
    reconnect_token token; ///< reconnect token for this slot (empty for a spectator)
};

/// @brief Server → client, reliable: refused, with a reason the client shows.
struct reject_msg {
    reject_reason reason = reject_reason::protocol;
    std::string text{};
};

/// @brief Client → server, unreliable, every tick: the client's inputs for frames
/// [first_frame, first_frame + count), all those the server has not acknowledged yet.
struct input_msg {
    std::uint8_t slot = 0;
    frame_t ack_confirmed = 0; ///< client holds every confirmed frame below this
    frame_t first_frame = 0;
    std::uint8_t count = 0;
    std::uint32_t client_time_ms = 0; ///< echoed back for round-trip time
    frame_t checksum_frame = no_frame;
    hash64 checksum = 0;           ///< world hash after checksum_frame (confirmed)
    std::vector<std::byte> inputs; ///< count × input_size bytes (decoded form)
};

/// @brief Server → client, unreliable, every tick: confirmed frames [first_frame, +count),
/// each with every slot's flags and input, plus timing feedback.
struct confirmed_msg {
    frame_t ack_input = 0;          ///< server holds this client's inputs below this frame
    std::int16_t margin_ms = 0;     ///< low percentile of how early this client's inputs arrive
    std::uint32_t echo_time_ms = 0; ///< last client_time_ms received
    std::uint16_t hold_ms = 0;      ///< time between receiving it and sending this
    frame_t server_frame = 0;       ///< the server's next frame
    frame_t first_frame = 0;
    std::uint8_t count = 0;
    std::uint8_t players = 0;
    std::uint8_t base = 0;         ///< 1: deltas start from the record of first_frame - 1
    std::vector<std::byte> frames; ///< count × (players flags + players × input_size) (decoded)
};

/// @brief One piece of a snapshot transfer (a whole snapshot file's bytes).
struct snapshot_chunk_msg {
    std::uint32_t transfer = 0;
    frame_t frame = 0;
    std::uint32_t total = 0;
    std::uint32_t offset = 0;
    std::vector<std::byte> bytes{};
};

/// @brief The hashes of one frame re-run stage by stage (docs/net.md, "Desync forensics"):
/// what desync bisection compares. Empty (`after` empty) when there are none.
struct stage_hashes {
    std::uint64_t names = 0;            ///< the stage count and names: another schedule differs here
    std::uint64_t start = 0;            ///< the world at the start of the frame
    std::vector<std::uint64_t> after{}; ///< the world after each stage (1..max_stages)
};

/// @brief `desync_msg::stage` and `stage_report_msg::upload_point` values that are no stage.
inline constexpr std::uint8_t stage_none = 0xFF;  ///< no stage named / the image after the frame
inline constexpr std::uint8_t stage_start = 0xFE; ///< the start of the frame, before any stage

/// @brief Server → client, reliable: your checksum for a frame differed from mine. The first
/// notice (empty `diverging`) asks for an upload and carries the server's stage hashes when it
/// could re-run the frame; the second carries the verdict.
struct desync_msg {
    frame_t frame = 0;
    std::string diverging{}; ///< comma-separated section names
    /// @brief The verdict's first diverging stage: an index below `stage_count`, `stage_start`,
    /// or `stage_none` (not bisected; always in a first notice).
    std::uint8_t stage = stage_none;
    std::uint8_t stage_count = 0; ///< stages of the frame (0 with `stage_none`)
    stage_hashes server{};        ///< first notice: the server's stage hashes (empty: none)
};

/// @brief Client → server on the snapshots channel, just before the chunks of a requested
/// upload: the client's own stage hashes of the frame and where its upload's image stands.
struct stage_report_msg {
    frame_t frame = 0;
    /// @brief The uploaded image: after stage k (k below the stage count), `stage_start`, or
    /// `stage_none` (after the frame, as without a report).
    std::uint8_t upload_point = stage_none;
    stage_hashes client{}; ///< 1..max_stages stages
};

/// @brief Why a bye is sent (bye_msg::reason; docs/protocol.md).
enum class bye_reason : std::uint8_t {
    leaving = 0,      ///< client → server: the player leaves the match
    match_ended = 1,  ///< server → client: the server ended the match
    acknowledged = 2, ///< client → server: the server's match_ended bye arrived
    violation = 3,    ///< server → client: the server ends this connection for breaking the protocol or a limit
};

/// @brief Either way, reliable: leaving, ending the match, or acknowledging its end.
struct bye_msg {
    std::uint8_t reason = 0; ///< a bye_reason
};

/// @brief XORs each input against the previous one (@p base for the first) and encodes zero
/// runs compactly, so an idle player's inputs cost a couple of bytes.
void encode_inputs(std::span<const std::byte> inputs, std::span<const std::byte> base, std::size_t input_size,
                   std::vector<std::byte> &out);
/// @brief Inverse of encode_inputs: fails unless @p encoded decodes to exactly @p count ×
/// @p input_size bytes (error offsets count from the start of @p encoded). @p out is written
/// only on success.
[[nodiscard]] result<void> decode_inputs(std::span<const std::byte> encoded, std::span<const std::byte> base,
                                         std::size_t input_size, std::size_t count, std::vector<std::byte> &out);

/// @brief Kind of a message (first byte), or 0 for an empty packet.
[[nodiscard]] std::uint8_t peek_kind(std::span<const std::byte> packet) noexcept;
/// @brief The protocol version a hello claims (bytes 1-2 in every version), or 0 if the
/// packet is too short: lets a server name the version of a hello it cannot decode.
[[nodiscard]] std::uint16_t peek_hello_version(std::span<const std::byte> packet) noexcept;

/// @name Encoders: replace @p out with the message's bytes.
/// @{
void encode(const hello_msg &m, std::vector<std::byte> &out);
void encode(const welcome_msg &m, std::vector<std::byte> &out);
void encode(const reject_msg &m, std::vector<std::byte> &out);
/// @brief @p base is the input before first_frame (pass an empty span: zeros).
void encode(const input_msg &m, std::size_t input_size, std::span<const std::byte> base, std::vector<std::byte> &out);
/// @brief @p base is the frame record before first_frame when m.base is 1 (ignored otherwise).
void encode(const confirmed_msg &m, std::size_t input_size, std::span<const std::byte> base,
            std::vector<std::byte> &out);
void encode(const snapshot_chunk_msg &m, std::vector<std::byte> &out);
void encode(const desync_msg &m, std::vector<std::byte> &out);
void encode(const bye_msg &m, std::vector<std::byte> &out);
void encode(const stage_report_msg &m, std::vector<std::byte> &out);
/// @}

/// @name Decoders: fill @p m from exactly one message, or return why not (@p m untouched).
/// A hello of another protocol version fails with errc::bad_version.
/// @{
[[nodiscard]] result<void> decode(std::span<const std::byte> in, hello_msg &m);
[[nodiscard]] result<void> decode(std::span<const std::byte> in, welcome_msg &m);
[[nodiscard]] result<void> decode(std::span<const std::byte> in, reject_msg &m);
/// @brief Decodes the header only (slot, frames, count; `inputs` untouched) so the receiver
/// can choose the base; the payload's length is checked, not its content.
[[nodiscard]] result<void> decode_header(std::span<const std::byte> in, input_msg &m);
[[nodiscard]] result<void> decode(std::span<const std::byte> in, std::size_t input_size,
                                  std::span<const std::byte> base, input_msg &m);
/// @brief Decodes the header only (`frames` untouched); see decode_header(in, input_msg&).
[[nodiscard]] result<void> decode_header(std::span<const std::byte> in, confirmed_msg &m);
[[nodiscard]] result<void> decode(std::span<const std::byte> in, std::size_t input_size,
                                  std::span<const std::byte> base, confirmed_msg &m);
[[nodiscard]] result<void> decode(std::span<const std::byte> in, snapshot_chunk_msg &m);
[[nodiscard]] result<void> decode(std::span<const std::byte> in, desync_msg &m);
[[nodiscard]] result<void> decode(std::span<const std::byte> in, bye_msg &m);
[[nodiscard]] result<void> decode(std::span<const std::byte> in, stage_report_msg &m);
/// @}

} // namespace retcon::wire

#endif
