// Set-of-marks drawing (include/adbwire/marks.hpp) with Cairo's image surfaces and toy text API.
#include "adbwire/marks.hpp"

#include <cairo-ft.h>
#include <cairo.h>
#include <ft2build.h>
#include FT_FREETYPE_H

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "base/failure.hpp"

namespace adbwire {
namespace {

using detail::Failure;

// Label digits' height in the scaled image; a model reads numbers of this size reliably.
constexpr double kLabelPixels = 16;
// Hues far apart, so neighbouring boxes are told apart; each with the digit colour that
// contrasts with it.
struct Colour {
  double r, g, b;
  bool dark_text;
};
constexpr std::array<Colour, 8> kPalette{{
    {0.90, 0.10, 0.10, false},  // red
    {0.05, 0.45, 0.95, false},  // blue
    {0.10, 0.75, 0.20, true},   // green
    {1.00, 0.60, 0.00, true},   // orange
    {0.65, 0.20, 0.85, false},  // purple
    {0.00, 0.80, 0.80, true},   // cyan
    {0.95, 0.20, 0.65, false},  // pink
    {0.95, 0.90, 0.10, true},   // yellow
}};

// fonts-dejavu-core's bold face.
constexpr const char* kFontFile = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";

// The label font, loaded once through FreeType and kept for the process (Cairo's toy API would
// go through fontconfig, whose caches outlive the process as leaks); nullptr when the file is
// missing.
cairo_font_face_t* label_face() {
  static cairo_font_face_t* const face = []() -> cairo_font_face_t* {
    FT_Library library = nullptr;
    FT_Face ft_face = nullptr;
    if (FT_Init_FreeType(&library) != 0) return nullptr;
    if (FT_New_Face(library, kFontFile, 0, &ft_face) != 0) {
      FT_Done_FreeType(library);
      return nullptr;
    }
    return cairo_ft_font_face_create_for_ft_face(ft_face, 0);
  }();
  return face;
}

using Surface = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;
using Context = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;

std::int64_t overlap(const ui::Bounds& a, const ui::Bounds& b) {
  const std::int64_t w = std::min(a.right, b.right) - std::max(a.left, b.left);
  const std::int64_t h = std::min(a.bottom, b.bottom) - std::max(a.top, b.top);
  return w > 0 && h > 0 ? w * h : 0;
}

// A w x h label at (x, y) moved wholly inside the screen.
ui::Bounds inside(std::int32_t x, std::int32_t y, std::int32_t w, std::int32_t h,
                  std::int32_t width, std::int32_t height) {
  x = std::clamp(x, 0, std::max(0, width - w));
  y = std::clamp(y, 0, std::max(0, height - h));
  return {x, y, x + w, y + h};
}

// The first corner spot that covers no earlier label, else the one covering least.
ui::Bounds place(const ui::Bounds& box, std::int32_t w, std::int32_t h, std::int32_t width,
                 std::int32_t height, const std::vector<PlacedMark>& placed) {
  const std::array<std::pair<std::int32_t, std::int32_t>, 7> spots{{
      {box.left, box.top},         // inside, top left
      {box.left, box.top - h},     // above, left
      {box.right - w, box.top},    // inside, top right
      {box.left, box.bottom},      // below, left
      {box.left, box.bottom - h},  // inside, bottom left
      {box.left - w, box.top},     // left of it
      {box.right, box.top},        // right of it
  }};
  ui::Bounds best;
  std::int64_t least = -1;
  for (const auto& [x, y] : spots) {
    const ui::Bounds spot = inside(x, y, w, h, width, height);
    std::int64_t covered = 0;
    for (const PlacedMark& p : placed) covered += overlap(spot, p.label);
    if (covered == 0) return spot;
    if (least < 0 || covered < least) {
      least = covered;
      best = spot;
    }
  }
  return best;
}

bool valid(const RawImage& screen, double output_scale, Failure& failure) {
  const std::size_t bpp = bytes_per_pixel(screen.format);
  if (bpp == 0 || screen.width == 0 || screen.height == 0 ||
      screen.pixels.size() != std::size_t{screen.width} * screen.height * bpp) {
    failure.set(errc::invalid_argument, "image " + std::to_string(screen.width) + "x" +
                                            std::to_string(screen.height) + " does not match its " +
                                            std::to_string(screen.pixels.size()) + " pixel bytes");
    return false;
  }
  if (!(output_scale > 0 && output_scale <= 1)) {
    failure.set(errc::invalid_argument, "output_scale must lie in (0, 1]");
    return false;
  }
  if (screen.width > 32767 || screen.height > 32767) {
    failure.set(errc::invalid_argument, "an image over 32767 pixels a side cannot be drawn on");
    return false;
  }
  return true;
}

MarkedImage draw(const RawImage& screen, std::span<const Mark> marks, double output_scale,
                 Failure& failure) {
  if (!valid(screen, output_scale, failure)) return {};
  std::error_code error;
  RawImage rgba = to_rgba8888(screen, error);
  if (error) {
    failure = detail::reported(error);
    return {};
  }
  const auto width = static_cast<std::int32_t>(screen.width);
  const auto height = static_cast<std::int32_t>(screen.height);
  Surface surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height),
                  cairo_surface_destroy);
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS) {
    failure.set(errc::io_error, "cannot draw marks: Cairo could not make a " +
                                    std::to_string(width) + "x" + std::to_string(height) +
                                    " image (out of memory)");
    return {};
  }
  // Cairo's ARGB32 is one native-endian word per pixel; the screen is drawn opaque.
  const int stride = cairo_image_surface_get_stride(surface.get());
  unsigned char* data = cairo_image_surface_get_data(surface.get());
  for (std::int32_t y = 0; y < height; ++y) {
    const std::uint8_t* in = rgba.pixels.data() + std::size_t(y) * screen.width * 4;
    auto* row = reinterpret_cast<std::uint32_t*>(data + std::size_t(y) * stride);
    for (std::int32_t x = 0; x < width; ++x, in += 4)
      row[x] = 0xff000000U | std::uint32_t{in[0]} << 16 | std::uint32_t{in[1]} << 8 | in[2];
  }
  cairo_surface_mark_dirty(surface.get());

  Context cr(cairo_create(surface.get()), cairo_destroy);
  const double shorter = std::min(width, height);
  // Sizes in screen pixels that come out at the wanted size once scaled, bounded by the screen.
  const double font = std::clamp(kLabelPixels / output_scale, 10.0, shorter / 12);
  const double line = std::max(2.0, font / 6);
  if (cairo_font_face_t* face = label_face()) {
    cairo_set_font_face(cr.get(), face);
    // Crisp digits: hinted outlines snapped to the pixel grid, grey antialiasing.
    std::unique_ptr<cairo_font_options_t, decltype(&cairo_font_options_destroy)> crisp(
        cairo_font_options_create(), cairo_font_options_destroy);
    cairo_font_options_set_antialias(crisp.get(), CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(crisp.get(), CAIRO_HINT_STYLE_FULL);
    cairo_font_options_set_hint_metrics(crisp.get(), CAIRO_HINT_METRICS_ON);
    cairo_set_font_options(cr.get(), crisp.get());
  } else {
    cairo_select_font_face(cr.get(), "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  }
  cairo_set_font_size(cr.get(), font);
  cairo_font_extents_t font_extents{};
  cairo_font_extents(cr.get(), &font_extents);

  MarkedImage out;
  out.placed.reserve(marks.size());
  for (std::size_t i = 0; i < marks.size(); ++i) {
    const Mark& m = marks[i];
    const Colour& c = kPalette[m.ref % kPalette.size()];
    cairo_rectangle(cr.get(), m.bounds.left, m.bounds.top, m.bounds.width(), m.bounds.height());
    cairo_set_source_rgb(cr.get(), 0, 0, 0);
    cairo_set_line_width(cr.get(), line * 2);
    cairo_stroke_preserve(cr.get());
    cairo_set_source_rgb(cr.get(), c.r, c.g, c.b);
    cairo_set_line_width(cr.get(), line);
    cairo_stroke(cr.get());
  }
  // Labels after every box, so no box crosses a label.
  for (const Mark& m : marks) {
    const std::string digits = std::to_string(m.ref);
    cairo_text_extents_t text{};
    cairo_text_extents(cr.get(), digits.c_str(), &text);
    const double pad = font / 4;
    const auto w = static_cast<std::int32_t>(std::ceil(text.x_advance + 2 * pad));
    const auto h = static_cast<std::int32_t>(std::ceil(font_extents.ascent + 2 * pad));
    const ui::Bounds spot = place(m.bounds, w, h, width, height, out.placed);
    const Colour& c = kPalette[m.ref % kPalette.size()];
    cairo_rectangle(cr.get(), spot.left + 0.5, spot.top + 0.5, spot.width() - 1, spot.height() - 1);
    cairo_set_source_rgb(cr.get(), c.r, c.g, c.b);
    cairo_fill_preserve(cr.get());
    cairo_set_source_rgb(cr.get(), 0, 0, 0);
    cairo_set_line_width(cr.get(), 1);
    cairo_stroke(cr.get());
    const double shade = c.dark_text ? 0 : 1;
    cairo_set_source_rgb(cr.get(), shade, shade, shade);
    cairo_move_to(cr.get(), spot.left + pad - text.x_bearing, spot.top + pad + font_extents.ascent);
    cairo_show_text(cr.get(), digits.c_str());
    out.placed.push_back({m.ref, m.bounds, spot});
  }
  cairo_surface_flush(surface.get());
  if (cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS) {
    failure.set(errc::io_error, std::string("cannot draw marks: ") +
                                    cairo_status_to_string(cairo_status(cr.get())));
    return {};
  }
  for (std::int32_t y = 0; y < height; ++y) {
    std::uint8_t* o = rgba.pixels.data() + std::size_t(y) * screen.width * 4;
    const auto* row = reinterpret_cast<const std::uint32_t*>(data + std::size_t(y) * stride);
    for (std::int32_t x = 0; x < width; ++x, o += 4) {
      o[0] = static_cast<std::uint8_t>(row[x] >> 16);
      o[1] = static_cast<std::uint8_t>(row[x] >> 8);
      o[2] = static_cast<std::uint8_t>(row[x]);
      o[3] = 255;
    }
  }
  out.image = std::move(rgba);
  return out;
}

}  // namespace

std::vector<Mark> marks_of(const ui::Snapshot& snapshot, std::uint32_t width,
                           std::uint32_t height) {
  const ui::Bounds screen{0, 0, static_cast<std::int32_t>(std::min<std::uint32_t>(width, 1 << 30)),
                          static_cast<std::int32_t>(std::min<std::uint32_t>(height, 1 << 30))};
  std::vector<Mark> marks;
  for (const ui::RefInfo& r : snapshot.refs()) {
    if (!r.bounds.intersects(screen)) continue;
    marks.push_back(
        {r.ref,
         {std::max(r.bounds.left, 0), std::max(r.bounds.top, 0),
          std::min(r.bounds.right, screen.right), std::min(r.bounds.bottom, screen.bottom)}});
  }
  return marks;
}

MarkedImage draw_marks(const RawImage& screen, std::span<const Mark> marks, double output_scale) {
  return detail::or_throw([&](Failure& f) { return draw(screen, marks, output_scale, f); });
}

MarkedImage draw_marks(const RawImage& screen, std::span<const Mark> marks, double output_scale,
                       std::error_code& error) {
  return detail::or_code(error, [&](Failure& f) { return draw(screen, marks, output_scale, f); });
}

}  // namespace adbwire
