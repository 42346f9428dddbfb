// Pictures for the imaging tests, drawn with Cairo: a flat screen, and words on it.
#pragma once

#include <cairo-ft.h>
#include <cairo.h>
#include <ft2build.h>
#include FT_FREETYPE_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "adbwire/screencap.hpp"
#include "adbwire/ui_node.hpp"

namespace adbwire::test {

struct Word {
  std::string text;
  double x, y;  // baseline start
  double size;  // font size in pixels
};

// DejaVu Sans Bold straight from its file (fontconfig's caches would show as leaks under ASan),
// kept for the process.
inline cairo_font_face_t* test_font() {
  static cairo_font_face_t* const font = [] {
    FT_Library freetype = nullptr;
    FT_Face face = nullptr;
    const bool loaded =
        FT_Init_FreeType(&freetype) == 0 &&
        FT_New_Face(freetype, "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", 0, &face) ==
            0;
    if (!loaded) throw std::runtime_error("DejaVu Sans Bold missing: install fonts-dejavu-core");
    return cairo_ft_font_face_create_for_ft_face(face, 0);
  }();
  return font;
}

// A width x height rgba_8888 screen of one colour, with words drawn in white (DejaVu Sans Bold),
// their ink boxes returned in the same order.
inline RawImage render_screen(std::uint32_t width, std::uint32_t height, std::uint8_t grey,
                              const std::vector<Word>& words = {},
                              std::vector<ui::Bounds>* boxes = nullptr) {
  cairo_surface_t* surface =
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, int(width), int(height));
  cairo_t* cr = cairo_create(surface);
  cairo_set_source_rgb(cr, grey / 255.0, grey / 255.0, grey / 255.0);
  cairo_paint(cr);
  cairo_set_font_face(cr, test_font());
  cairo_set_source_rgb(cr, 1, 1, 1);
  for (const Word& w : words) {
    cairo_set_font_size(cr, w.size);
    cairo_text_extents_t e{};
    cairo_text_extents(cr, w.text.c_str(), &e);
    cairo_move_to(cr, w.x, w.y);
    cairo_show_text(cr, w.text.c_str());
    if (boxes != nullptr) {
      boxes->push_back({int(w.x + e.x_bearing), int(w.y + e.y_bearing),
                        int(w.x + e.x_bearing + e.width + 1),
                        int(w.y + e.y_bearing + e.height + 1)});
    }
  }
  cairo_surface_flush(surface);
  RawImage image{width, height, PixelFormat::rgba_8888, 0, {}};
  image.pixels.resize(std::size_t{width} * height * 4);
  const unsigned char* data = cairo_image_surface_get_data(surface);
  const int stride = cairo_image_surface_get_stride(surface);
  for (std::uint32_t y = 0; y < height; ++y) {
    const auto* row = reinterpret_cast<const std::uint32_t*>(data + std::size_t(y) * stride);
    for (std::uint32_t x = 0; x < width; ++x) {
      std::uint8_t* o = &image.pixels[(std::size_t{y} * width + x) * 4];
      o[0] = std::uint8_t(row[x] >> 16);
      o[1] = std::uint8_t(row[x] >> 8);
      o[2] = std::uint8_t(row[x]);
      o[3] = 255;
    }
  }
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  return image;
}

}  // namespace adbwire::test
