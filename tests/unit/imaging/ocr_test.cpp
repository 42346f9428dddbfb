// Text read from pictures rendered here with Cairo: words come back with their boxes, grouped
// into labels and in reading order; a picture with no text gives none.
#include "adbwire/ocr.hpp"

#include <gtest/gtest.h>

#include "adbwire/error.hpp"
#include "adbwire/error_detail.hpp"
#include "unit/imaging/render.hpp"

namespace adbwire {
namespace {

bool inside(const ui::Bounds& outer, const ui::Bounds& inner, int slack) {
  return inner.left >= outer.left - slack && inner.top >= outer.top - slack &&
         inner.right <= outer.right + slack && inner.bottom <= outer.bottom + slack;
}

TEST(Ocr, ReadsAGameScreensLabelsInReadingOrderWithTheirBoxes) {
  std::vector<ui::Bounds> boxes;
  // Two labels on one row (far apart), one above, one below; drawn out of order.
  const RawImage screen = test::render_screen(1080, 2400, 30,
                                              {{"SETTINGS", 620, 1500, 64},
                                               {"PLAY", 120, 1500, 64},
                                               {"Level 12", 380, 600, 72},
                                               {"Free coins 4.99", 240, 2100, 56}},
                                              &boxes);
  TextReader reader;
  const std::vector<TextBox> read = reader.read(screen);
  ASSERT_EQ(read.size(), 4U);
  EXPECT_EQ(read[0].text, "Level 12");
  EXPECT_EQ(read[1].text, "PLAY");
  EXPECT_EQ(read[2].text, "SETTINGS");
  EXPECT_EQ(read[3].text, "Free coins 4.99");
  const ui::Bounds expected[] = {boxes[2], boxes[1], boxes[0], boxes[3]};
  for (std::size_t i = 0; i < read.size(); ++i) {
    EXPECT_TRUE(inside(read[i].bounds, expected[i], 4)) << read[i].text;
    EXPECT_TRUE(inside(expected[i], read[i].bounds, 12)) << read[i].text;
    EXPECT_GE(read[i].confidence, 50);
  }
}

TEST(Ocr, AScreenWithoutTextGivesNothing) {
  TextReader reader;
  EXPECT_TRUE(reader.read(test::render_screen(1080, 2400, 30)).empty());
}

TEST(Ocr, AMissingModelIsNotSupportedWithAnInstallHint) {
  const char* old = std::getenv("TESSDATA_PREFIX");
  const std::string kept = old != nullptr ? old : "";
  ::setenv("TESSDATA_PREFIX", "/nonexistent", 1);
  TextReader reader;
  std::error_code error;
  reader.read(test::render_screen(64, 64, 30), kNoDeadline, error);
  if (old != nullptr) {
    ::setenv("TESSDATA_PREFIX", kept.c_str(), 1);
  } else {
    ::unsetenv("TESSDATA_PREFIX");
  }
  EXPECT_EQ(error, errc::not_supported);
  EXPECT_NE(last_error_detail().find("tesseract-ocr-eng"), std::string::npos);
}

TEST(Ocr, RefusesPixelsThatDoNotMatchTheSize) {
  TextReader reader;
  std::error_code error;
  reader.read(RawImage{10, 10, PixelFormat::rgba_8888, 0, {}}, kNoDeadline, error);
  EXPECT_EQ(error, errc::invalid_argument);
}

}  // namespace
}  // namespace adbwire
