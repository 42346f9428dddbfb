// Set-of-marks screenshots: the refs of a snapshot drawn over the screen, each as a box where its
// element's bounds are and its number in a label, so a model that looks at the picture can name
// the ref the snapshot gave the element ("tap 7"). Drawn with Cairo and DejaVu Sans Bold
// (fonts-dejavu-core, loaded through FreeType; without it, whatever sans face fontconfig finds).
#pragma once

#include <cstdint>
#include <span>
#include <system_error>
#include <vector>

#include "adbwire/screencap.hpp"
#include "adbwire/ui.hpp"

namespace adbwire {

// A ref and where its element is, in screen pixels.
struct Mark {
  std::uint32_t ref = 0;
  ui::Bounds bounds;
};

// The refs of snapshot whose bounds show on a width x height screen, in ref order, their bounds
// clipped to the screen. Refs with empty bounds, or bounds wholly off the screen, are left out.
std::vector<Mark> marks_of(const ui::Snapshot& snapshot, std::uint32_t width, std::uint32_t height);

// Where draw_marks put a mark, in screen pixels.
struct PlacedMark {
  std::uint32_t ref = 0;
  ui::Bounds box;    // the mark's bounds (the box's stroke is centred on its edge)
  ui::Bounds label;  // the label with the number, wholly inside the screen
};

struct MarkedImage {
  RawImage image;  // rgba_8888, the screen's size
  std::vector<PlacedMark> placed;
};

// Draws every mark over screen: a box of two strokes (a dark one under a coloured one, so it
// shows on light and dark backgrounds alike) and a label with the ref's number (a coloured plate
// with a dark edge, its digits black or white, whichever contrasts with the plate). Labels sit
// inside the screen, at the first of the box's corners (inside, then outside) where they cover no
// earlier label, else where they cover the least. output_scale is the factor the image will be
// scaled by (0 < s <= 1): labels are sized so their font is about 16 pixels in the
// scaled image. Errors: invalid_argument (pixels that do not match the size and format, an
// output_scale outside (0, 1]), io_error (Cairo could not draw: out of memory).
MarkedImage draw_marks(const RawImage& screen, std::span<const Mark> marks,
                       double output_scale = 1.0);
MarkedImage draw_marks(const RawImage& screen, std::span<const Mark> marks, double output_scale,
                       std::error_code& error);

}  // namespace adbwire
