#include "canvas.hpp"

#include <SDL.h>
#include <SDL_ttf.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace retcon::demo {

namespace {

constexpr const char *default_font = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf";
int open_canvases = 0; // SDL and SDL_ttf are initialised while one is open

SDL_FPoint sdl(point p) noexcept { return {p.x, p.y}; }

void set_colour(SDL_Renderer *r, rgba c) {
    SDL_SetRenderDrawBlendMode(r, c.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(r, c.r, c.g, c.b, c.a);
}

} // namespace

rgba picture::at(int x, int y) const noexcept {
    if (x < 0 || y < 0 || x >= width || y >= height) return {0, 0, 0, 0};
    return pixels[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)];
}

bool picture::save_bmp(const std::string &path) const {
    if (width <= 0 || height <= 0) return false;
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, width, height, 24, SDL_PIXELFORMAT_RGB24);
    if (!s) return false;
    for (int y = 0; y < height; ++y) {
        auto *row = static_cast<std::uint8_t *>(s->pixels) + static_cast<std::ptrdiff_t>(y) * s->pitch;
        for (int x = 0; x < width; ++x) {
            const rgba c = at(x, y);
            row[3 * x] = c.r;
            row[3 * x + 1] = c.g;
            row[3 * x + 2] = c.b;
        }
    }
    const bool ok = SDL_SaveBMP(s, path.c_str()) == 0;
    SDL_FreeSurface(s);
    return ok;
}

std::unique_ptr<canvas> canvas::open(const canvas_options &o, std::string &error) {
    std::string font = default_font;
    if (const char *f = std::getenv("RETCON_FONT"); f && *f) font = f;
    if (std::error_code ec; !std::filesystem::is_regular_file(font, ec)) {
        error = "no font at " + font + " (scripts/setup.sh installs fonts-dejavu-core; RETCON_FONT names another)";
        return nullptr;
    }
    if (open_canvases == 0) {
        // Only what the demo uses: no audio, no haptics (a server-side Xvfb has neither).
        if (SDL_InitSubSystem(SDL_INIT_VIDEO | SDL_INIT_GAMECONTROLLER) != 0) {
            error = std::string("cannot start SDL video: ") + SDL_GetError();
            return nullptr;
        }
        if (TTF_Init() != 0) {
            error = std::string("cannot start SDL_ttf: ") + TTF_GetError();
            SDL_QuitSubSystem(SDL_INIT_VIDEO | SDL_INIT_GAMECONTROLLER);
            return nullptr;
        }
    }
    ++open_canvases;
    std::unique_ptr<canvas> c{new canvas};
    c->font_path_ = font;
    Uint32 flags = SDL_WINDOW_ALLOW_HIGHDPI | (o.hidden ? SDL_WINDOW_HIDDEN : SDL_WINDOW_SHOWN);
    if (o.resizable) flags |= SDL_WINDOW_RESIZABLE;
    c->window_ =
        SDL_CreateWindow(o.title.c_str(), SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, o.width, o.height, flags);
    if (!c->window_) {
        error = std::string("cannot open a window: ") + SDL_GetError();
        return nullptr; // the destructor shuts SDL down again
    }
    Uint32 rflags = o.software ? SDL_RENDERER_SOFTWARE : SDL_RENDERER_ACCELERATED;
    if (o.vsync && !o.software) rflags |= SDL_RENDERER_PRESENTVSYNC;
    c->renderer_ = SDL_CreateRenderer(c->window_, -1, rflags);
    if (!c->renderer_ && !o.software) c->renderer_ = SDL_CreateRenderer(c->window_, -1, SDL_RENDERER_SOFTWARE);
    if (!c->renderer_) {
        error = std::string("cannot create a renderer: ") + SDL_GetError();
        return nullptr;
    }
    if (!c->font(13)) {
        error = "cannot load the font " + font + ": " + TTF_GetError();
        return nullptr;
    }
    return c;
}

canvas::~canvas() {
    for (auto &[size, f] : fonts_) TTF_CloseFont(f);
    if (renderer_) SDL_DestroyRenderer(renderer_);
    if (window_) SDL_DestroyWindow(window_);
    if (--open_canvases == 0) {
        TTF_Quit();
        SDL_QuitSubSystem(SDL_INIT_VIDEO | SDL_INIT_GAMECONTROLLER);
    }
}

int canvas::width() const noexcept {
    int w = 0, h = 0;
    SDL_GetRendererOutputSize(renderer_, &w, &h);
    return w;
}

int canvas::height() const noexcept {
    int w = 0, h = 0;
    SDL_GetRendererOutputSize(renderer_, &w, &h);
    return h;
}

float canvas::pixel_scale() const noexcept {
    int points = 0, h = 0;
    SDL_GetWindowSize(window_, &points, &h);
    return points > 0 ? static_cast<float>(width()) / static_cast<float>(points) : 1.0f;
}

int canvas::refresh_hz() const noexcept {
    SDL_DisplayMode mode{};
    const int display = SDL_GetWindowDisplayIndex(window_);
    if (display < 0 || SDL_GetCurrentDisplayMode(display, &mode) != 0 || mode.refresh_rate <= 0) return 60;
    return mode.refresh_rate;
}

void canvas::clear(rgba c) {
    set_colour(renderer_, c);
    SDL_RenderClear(renderer_);
}

void canvas::line(point from, point to, rgba c) {
    set_colour(renderer_, c);
    SDL_RenderDrawLineF(renderer_, from.x, from.y, to.x, to.y);
}

void canvas::polyline(std::span<const point> points, rgba c, bool closed) {
    if (points.size() < 2) return;
    set_colour(renderer_, c);
    for (std::size_t i = 0; i + 1 < points.size(); ++i)
        SDL_RenderDrawLineF(renderer_, points[i].x, points[i].y, points[i + 1].x, points[i + 1].y);
    if (closed) SDL_RenderDrawLineF(renderer_, points.back().x, points.back().y, points.front().x, points.front().y);
}

void canvas::triangle(point a, point b, point c, rgba colour) {
    const SDL_Color col{colour.r, colour.g, colour.b, colour.a};
    const SDL_Vertex v[3] = {{sdl(a), col, {0, 0}}, {sdl(b), col, {0, 0}}, {sdl(c), col, {0, 0}}};
    SDL_RenderGeometry(renderer_, nullptr, v, 3, nullptr, 0);
}

void canvas::rect(float x, float y, float w, float h, rgba c) {
    set_colour(renderer_, c);
    const SDL_FRect r{x, y, w, h};
    SDL_RenderDrawRectF(renderer_, &r);
}

void canvas::fill_rect(float x, float y, float w, float h, rgba c) {
    set_colour(renderer_, c);
    const SDL_FRect r{x, y, w, h};
    SDL_RenderFillRectF(renderer_, &r);
}

_TTF_Font *canvas::font(int pixels) {
    if (auto it = fonts_.find(pixels); it != fonts_.end()) return it->second;
    TTF_Font *f = TTF_OpenFont(font_path_.c_str(), pixels);
    if (f) fonts_.emplace(pixels, f);
    return f;
}

float canvas::line_height(int size) {
    TTF_Font *f = font(static_cast<int>(std::lround(static_cast<float>(size) * pixel_scale())));
    return f ? static_cast<float>(TTF_FontLineSkip(f)) : static_cast<float>(size);
}

float canvas::text(float x, float y, std::string_view text, rgba c, int size) {
    if (text.empty()) return 0;
    TTF_Font *f = font(static_cast<int>(std::lround(static_cast<float>(size) * pixel_scale())));
    if (!f) return 0;
    const std::string s(text);
    SDL_Surface *surface = TTF_RenderUTF8_Blended(f, s.c_str(), SDL_Color{c.r, c.g, c.b, c.a});
    if (!surface) return 0;
    SDL_Texture *t = SDL_CreateTextureFromSurface(renderer_, surface);
    const SDL_FRect at{x, y, static_cast<float>(surface->w), static_cast<float>(surface->h)};
    SDL_FreeSurface(surface);
    if (!t) return 0;
    SDL_RenderCopyF(renderer_, t, nullptr, &at);
    SDL_DestroyTexture(t);
    return at.w;
}

void canvas::clip(float x, float y, float w, float h) {
    const SDL_Rect r{static_cast<int>(x), static_cast<int>(y), static_cast<int>(std::ceil(w)),
                     static_cast<int>(std::ceil(h))};
    SDL_RenderSetClipRect(renderer_, &r);
}

void canvas::clip_off() { SDL_RenderSetClipRect(renderer_, nullptr); }

picture canvas::read_pixels() const {
    picture p;
    p.width = width();
    p.height = height();
    std::vector<std::uint32_t> raw(static_cast<std::size_t>(p.width) * static_cast<std::size_t>(p.height));
    if (raw.empty() ||
        SDL_RenderReadPixels(renderer_, nullptr, SDL_PIXELFORMAT_ARGB8888, raw.data(), p.width * 4) != 0) {
        p.width = p.height = 0;
        return p;
    }
    p.pixels.resize(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i)
        p.pixels[i] = {static_cast<std::uint8_t>(raw[i] >> 16), static_cast<std::uint8_t>(raw[i] >> 8),
                       static_cast<std::uint8_t>(raw[i]), static_cast<std::uint8_t>(raw[i] >> 24)};
    return p;
}

void canvas::present() { SDL_RenderPresent(renderer_); }

} // namespace retcon::demo
