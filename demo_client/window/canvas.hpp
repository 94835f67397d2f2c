#ifndef RETCON_DEMO_CANVAS_HPP
#define RETCON_DEMO_CANVAS_HPP
// The window the demo draws in: an SDL2 window and renderer, lines, rectangles and text in
// pixels of the drawable (HiDPI: a point of the window may be several pixels), and a read-back
// of what was drawn for tests and screenshots. The scene painter, the net graph and the replay
// viewer all draw through it; only this file and its .cpp call SDL's drawing functions.

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct SDL_Window;
struct SDL_Renderer;
struct _TTF_Font;

namespace retcon::demo {

/// @brief A colour, 8 bits a channel; alpha 255 is opaque.
struct rgba {
    std::uint8_t r = 0, g = 0, b = 0, a = 255;
    friend bool operator==(const rgba &, const rgba &) = default;
};

/// @brief A point in drawable pixels.
struct point {
    float x = 0, y = 0;
};

/// @brief What was drawn, read back: the drawable's pixels, row by row.
struct picture {
    int width = 0, height = 0;
    std::vector<rgba> pixels;
    /// @brief The pixel at (@p x, @p y); transparent black outside the picture.
    [[nodiscard]] rgba at(int x, int y) const noexcept;
    /// @brief Writes the picture as a 24-bit BMP (ImageMagick's `convert` makes it a PNG).
    [[nodiscard]] bool save_bmp(const std::string &path) const;
};

/// @brief How to open the window.
struct canvas_options {
    std::string title = "retcon";
    int width = 1000, height = 640; ///< window size in points (the drawable may have more pixels)
    bool resizable = true;
    bool hidden = false;   ///< never shown (tests that only read pixels back)
    bool software = false; ///< SDL's software renderer: the same pixels on every machine (tests)
    bool vsync = true;     ///< present at the display's refresh (the demo's loop never waits on it)
};

/**
 * @brief An SDL2 window with a renderer and a monospace font (DejaVu Sans Mono from Debian's
 * fonts-dejavu-core; RETCON_FONT names another). Initialises only SDL's video and game
 * controller subsystems; closing the last canvas shuts them down.
 */
class canvas {
public:
    /// @brief Opens the window, or returns null and says why in @p error (no display, no font...).
    static std::unique_ptr<canvas> open(const canvas_options &options, std::string &error);
    ~canvas();
    canvas(const canvas &) = delete;
    canvas &operator=(const canvas &) = delete;

    /// @brief The drawable's size in pixels (changes when the window is resized).
    [[nodiscard]] int width() const noexcept;
    [[nodiscard]] int height() const noexcept;
    /// @brief Pixels per window point (1 on a normal display, 2 on most HiDPI ones): scales text.
    [[nodiscard]] float pixel_scale() const noexcept;
    /// @brief The display's refresh rate in Hz; 60 when SDL reports none (Xvfb says 0).
    [[nodiscard]] int refresh_hz() const noexcept;

    void clear(rgba colour);
    void line(point from, point to, rgba colour);
    /// @brief Connected lines through @p points (closed: back to the first).
    void polyline(std::span<const point> points, rgba colour, bool closed = false);
    /// @brief A filled triangle.
    void triangle(point a, point b, point c, rgba colour);
    void rect(float x, float y, float w, float h, rgba colour);
    void fill_rect(float x, float y, float w, float h, rgba colour);
    /// @brief Draws @p text with its top-left corner at (@p x, @p y), @p size points tall;
    /// returns its width in pixels. Text that cannot be drawn is skipped (returns 0).
    float text(float x, float y, std::string_view text, rgba colour, int size = 13);
    /// @brief The height of a line of text of @p size points, in pixels.
    [[nodiscard]] float line_height(int size = 13);
    /// @brief Restricts drawing to a rectangle (pixels); clip_off() lifts it.
    void clip(float x, float y, float w, float h);
    void clip_off();
    /// @brief What has been drawn since clear() (call before present()).
    [[nodiscard]] picture read_pixels() const;
    /// @brief Shows what was drawn (waits for the display's refresh when vsync is on).
    void present();

    [[nodiscard]] SDL_Window *window() const noexcept { return window_; }
    [[nodiscard]] SDL_Renderer *renderer() const noexcept { return renderer_; }

private:
    canvas() = default;
    _TTF_Font *font(int pixels);

    SDL_Window *window_ = nullptr;
    SDL_Renderer *renderer_ = nullptr;
    std::string font_path_;
    std::map<int, _TTF_Font *> fonts_; // by pixel size
};

} // namespace retcon::demo

#endif
