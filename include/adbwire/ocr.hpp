// Text read from a screen's pixels, for screens whose accessibility tree holds nothing to act on
// (games, custom-drawn apps, some Flutter and Unity screens): Tesseract through its C++ API with
// the English model (Debian tesseract-ocr-eng).
#pragma once

#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "adbwire/deadline.hpp"
#include "adbwire/screencap.hpp"
#include "adbwire/ui_node.hpp"

namespace adbwire {

// A group of words on one line, close enough to read as one label ("PLAY NOW", "$4.99").
struct TextBox {
  std::string text;      // UTF-8, words joined by one space; printable text only
  ui::Bounds bounds;     // screen pixels
  float confidence = 0;  // Tesseract's mean word confidence, 0..100
};

// A loaded Tesseract engine. Loading the model costs about a tenth of a second, so one reader
// serves many reads. Not thread safe: one caller at a time.
class TextReader {
 public:
  // Loads nothing yet: the model is loaded on the first read.
  TextReader();
  TextReader(TextReader&&) noexcept;
  TextReader& operator=(TextReader&&) noexcept;
  ~TextReader();

  // The word groups of image in reading order (rows top to bottom, each left to right). Words
  // Tesseract is unsure of (confidence under 50) and groups with no letter or digit (icons read
  // as punctuation) are left out. Errors: not_supported (the English model is missing: the
  // message says to install tesseract-ocr-eng), invalid_argument (pixels that do not match the
  // size and format, an image over 16 megapixels), timeout (reading passed deadline). A lone
  // character (an "X" button, a single digit) is not read: Tesseract's layout analysis takes a
  // single glyph for noise.
  std::vector<TextBox> read(const RawImage& image, Deadline deadline = kNoDeadline);
  std::vector<TextBox> read(const RawImage& image, Deadline deadline, std::error_code& error);

 private:
  struct Engine;
  std::unique_ptr<Engine> engine_;
};

}  // namespace adbwire
