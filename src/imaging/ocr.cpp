// Text from pixels (include/adbwire/ocr.hpp): Tesseract's LSTM engine on a grey copy of the
// screen, in sparse-text mode (a game screen is scattered labels, not a page of paragraphs).
#include "adbwire/ocr.hpp"

#include <leptonica/allheaders.h>
#include <tesseract/baseapi.h>
#include <tesseract/ocrclass.h>
#include <tesseract/resultiterator.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <string>

#include "base/failure.hpp"

namespace adbwire {
namespace {

using detail::Failure;

constexpr float kMinConfidence = 50;
constexpr std::uint64_t kMaxPixels = 16'000'000;
// Words further apart than this many line heights are separate labels.
constexpr double kGroupGap = 1.2;

std::string printable_text(const char* utf8) {
  std::string out;
  for (const char* p = utf8; *p != '\0'; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c != 0x7f) out += static_cast<char>(c);
  }
  return out;
}

bool has_alnum(const std::string& text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x80 || (u >= '0' && u <= '9') || ((u | 0x20) >= 'a' && (u | 0x20) <= 'z');
  });
}

// Rows top to bottom (a box belongs to the row whose first box its vertical centre falls in),
// each row left to right.
void reading_order(std::vector<TextBox>& boxes) {
  std::stable_sort(boxes.begin(), boxes.end(),
                   [](const TextBox& a, const TextBox& b) { return a.bounds.top < b.bounds.top; });
  for (std::size_t start = 0; start < boxes.size();) {
    const ui::Bounds& first = boxes[start].bounds;
    std::size_t end = start + 1;
    while (end < boxes.size() && boxes[end].bounds.center().y < first.bottom) ++end;
    std::stable_sort(
        boxes.begin() + static_cast<std::ptrdiff_t>(start),
        boxes.begin() + static_cast<std::ptrdiff_t>(end),
        [](const TextBox& a, const TextBox& b) { return a.bounds.left < b.bounds.left; });
    start = end;
  }
}

}  // namespace

struct TextReader::Engine {
  tesseract::TessBaseAPI api;
  bool loaded = false;
};

namespace {

bool load(tesseract::TessBaseAPI& api, Failure& failure) {
  // Tesseract's progress and warnings go to its debug file, not our stderr.
  api.SetVariable("debug_file", "/dev/null");
  if (api.Init(nullptr, "eng", tesseract::OEM_LSTM_ONLY) != 0) {
    failure.set(errc::not_supported,
                "text recognition needs Tesseract's English model: install tesseract-ocr-eng "
                "(or set TESSDATA_PREFIX to a folder holding eng.traineddata)");
    return false;
  }
  api.SetPageSegMode(tesseract::PSM_SPARSE_TEXT);
  return true;
}

std::vector<TextBox> recognise(tesseract::TessBaseAPI& api, const RawImage& image,
                               Deadline deadline, Failure& failure) {
  std::error_code error;
  const RawImage rgba = to_rgba8888(image, error);
  if (error) {
    failure = detail::reported(error);
    return {};
  }
  // A phone or tablet screen is at most a few megapixels; a device claiming more would buy a
  // long, memory-hungry reading.
  if (std::uint64_t{image.width} * image.height > kMaxPixels) {
    failure.set(errc::invalid_argument, "a " + std::to_string(image.width) + "x" +
                                            std::to_string(image.height) +
                                            " image is too large to read text from (at most " +
                                            std::to_string(kMaxPixels / 1000000) + " megapixels)");
    return {};
  }
  std::vector<std::uint8_t> grey(std::size_t{image.width} * image.height);
  for (std::size_t i = 0; i < grey.size(); ++i) {
    const std::uint8_t* p = &rgba.pixels[i * 4];
    grey[i] = static_cast<std::uint8_t>((299U * p[0] + 587U * p[1] + 114U * p[2]) / 1000U);
  }
  const auto width = static_cast<int>(image.width);
  const auto height = static_cast<int>(image.height);
  api.SetImage(grey.data(), width, height, 1, width);
  api.SetSourceResolution(160);  // a phone's mdpi baseline; silences the resolution guess
  tesseract::ETEXT_DESC monitor;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (deadline != kNoDeadline) {
    monitor.set_deadline_msecs(
        static_cast<std::int32_t>(std::clamp<std::int64_t>(left.count(), 0, INT32_MAX)));
  }
  if (api.Recognize(&monitor) != 0 || (deadline != kNoDeadline && Clock::now() > deadline)) {
    api.Clear();
    failure.set(Clock::now() > deadline ? errc::timeout : errc::command_failed,
                Clock::now() > deadline ? "reading text from the screen passed its deadline"
                                        : "Tesseract could not read the screen");
    return {};
  }
  std::vector<TextBox> groups;
  std::unique_ptr<tesseract::ResultIterator> it(api.GetIterator());
  double confidence_sum = 0;
  int words = 0;
  bool new_line = true;
  const auto close_group = [&] {
    if (words > 0 && !groups.empty()) groups.back().confidence = float(confidence_sum / words);
    words = 0;
    confidence_sum = 0;
  };
  if (it) {
    do {
      if (it->IsAtBeginningOf(tesseract::RIL_TEXTLINE)) new_line = true;
      const std::unique_ptr<char[]> word(it->GetUTF8Text(tesseract::RIL_WORD));
      const float confidence = it->Confidence(tesseract::RIL_WORD);
      int l = 0, t = 0, r = 0, b = 0;
      if (!word || confidence < kMinConfidence ||
          !it->BoundingBox(tesseract::RIL_WORD, &l, &t, &r, &b))
        continue;
      std::string text = printable_text(word.get());
      if (text.empty()) continue;
      const ui::Bounds box{l, t, r, b};
      bool joins = false;
      if (!new_line && !groups.empty()) {
        const ui::Bounds& g = groups.back().bounds;
        const double line = std::max(g.height(), box.height());
        joins = box.left - g.right <= kGroupGap * line && box.top < g.bottom && g.top < box.bottom;
      }
      new_line = false;
      if (joins) {
        TextBox& g = groups.back();
        g.text += ' ' + text;
        g.bounds = {std::min(g.bounds.left, l), std::min(g.bounds.top, t),
                    std::max(g.bounds.right, r), std::max(g.bounds.bottom, b)};
      } else {
        close_group();
        groups.push_back({std::move(text), box, 0});
      }
      confidence_sum += confidence;
      ++words;
    } while (it->Next(tesseract::RIL_WORD));
  }
  close_group();
  api.Clear();
  std::erase_if(groups, [](const TextBox& g) { return !has_alnum(g.text); });
  reading_order(groups);
  return groups;
}

}  // namespace

TextReader::TextReader() = default;
TextReader::TextReader(TextReader&&) noexcept = default;
TextReader& TextReader::operator=(TextReader&&) noexcept = default;
TextReader::~TextReader() = default;

std::vector<TextBox> TextReader::read(const RawImage& image, Deadline deadline) {
  std::error_code error;
  std::vector<TextBox> boxes = read(image, deadline, error);
  if (error) detail::reported(error).throw_if_failed();
  return boxes;
}

std::vector<TextBox> TextReader::read(const RawImage& image, Deadline deadline,
                                      std::error_code& error) {
  return detail::or_code(error, [&](Failure& f) -> std::vector<TextBox> {
    if (!engine_) engine_ = std::make_unique<Engine>();
    if (!engine_->loaded) {
      if (!load(engine_->api, f)) return {};
      engine_->loaded = true;
    }
    return recognise(engine_->api, image, deadline, f);
  });
}

}  // namespace adbwire
