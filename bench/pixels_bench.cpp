// Screens for eyes, on a 1080x2400 screen: marks for 60 refs drawn and encoded as the screenshot
// verb does (beside the plain encode of the same screen), OCR of a game screen (model loaded
// once, as a Page keeps it; the first load timed apart), and Page::snapshot on a screen with
// accessible elements with OCR automatic and off (the automatic mode must cost nothing there).
#include <benchmark/benchmark.h>

#include "adbwire/marks.hpp"
#include "adbwire/ocr.hpp"
#include "adbwire/page.hpp"
#include "adbwire/testing/vdevice.hpp"
#include "unit/imaging/render.hpp"

namespace adbwire {
namespace {

// A 1080x2400 game screen: a title, buttons, a price and a score, white on dark.
RawImage game_screen(bool with_words) {
  std::vector<test::Word> words;
  if (with_words) {
    words = {{"Star Quest", 260, 400, 96},
             {"Level 12", 380, 700, 64},
             {"PLAY", 420, 1200, 96},
             {"SETTINGS", 360, 1450, 64},
             {"SHOP", 120, 1900, 56},
             {"Free coins 4.99", 500, 1900, 48},
             {"Best score 18250", 280, 2250, 48}};
  }
  return test::render_screen(1080, 2400, 30, words);
}

// 60 refs: a list of 12 rows of 5 elements, as a busy settings or shop screen has.
std::vector<Mark> sixty_marks() {
  std::vector<Mark> marks;
  for (int row = 0; row < 12; ++row) {
    for (int col = 0; col < 5; ++col) {
      marks.push_back({std::uint32_t(marks.size() + 1),
                       {20 + col * 212, 200 + row * 180, 212 + col * 212, 360 + row * 180}});
    }
  }
  return marks;
}

ScreenshotOptions verb_options() {
  ScreenshotOptions o;
  o.max_side = 2000;
  o.max_bytes = 768 * 1024;
  return o;
}

void BM_PlainEncode(benchmark::State& state) {
  const RawImage screen = game_screen(true);
  for (auto _ : state) benchmark::DoNotOptimize(encode(screen, verb_options()));
}
BENCHMARK(BM_PlainEncode)->Unit(benchmark::kMillisecond)->MinTime(2);

void BM_Marks60DrawAndEncode(benchmark::State& state) {
  const RawImage screen = game_screen(true);
  const std::vector<Mark> marks = sixty_marks();
  for (auto _ : state) {
    const MarkedImage marked = draw_marks(screen, marks, 2000.0 / 2400);
    benchmark::DoNotOptimize(encode(marked.image, verb_options()));
  }
}
BENCHMARK(BM_Marks60DrawAndEncode)->Unit(benchmark::kMillisecond)->MinTime(2);

void BM_Marks60DrawOnly(benchmark::State& state) {
  const RawImage screen = game_screen(true);
  const std::vector<Mark> marks = sixty_marks();
  for (auto _ : state) benchmark::DoNotOptimize(draw_marks(screen, marks, 2000.0 / 2400));
}
BENCHMARK(BM_Marks60DrawOnly)->Unit(benchmark::kMillisecond)->MinTime(2);

void BM_OcrModelLoadAndFirstRead(benchmark::State& state) {
  const RawImage screen = game_screen(false);
  for (auto _ : state) {
    TextReader reader;
    benchmark::DoNotOptimize(reader.read(screen));
  }
}
BENCHMARK(BM_OcrModelLoadAndFirstRead)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_OcrGameScreen(benchmark::State& state) {
  const RawImage screen = game_screen(true);
  TextReader reader;
  std::size_t texts = reader.read(screen).size();
  for (auto _ : state) texts = reader.read(screen).size();
  state.counters["texts"] = double(texts);
}
BENCHMARK(BM_OcrGameScreen)->Unit(benchmark::kMillisecond)->Iterations(5);

void snapshot_bench(benchmark::State& state, PageOptions::Ocr mode) {
  VirtualDevice device;
  device.start();
  PageOptions options;
  options.ocr = mode;
  Page page = Page::connect(device.target(), options);
  for (auto _ : state) benchmark::DoNotOptimize(page.snapshot().refs().size());
  state.counters["ocr_ran"] = page.ocr_status().ran ? 1 : 0;
}
void BM_SnapshotAccessibleOcrAutomatic(benchmark::State& state) {
  snapshot_bench(state, PageOptions::Ocr::automatic);
}
void BM_SnapshotAccessibleOcrOff(benchmark::State& state) {
  snapshot_bench(state, PageOptions::Ocr::off);
}
BENCHMARK(BM_SnapshotAccessibleOcrAutomatic)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK(BM_SnapshotAccessibleOcrOff)->Unit(benchmark::kMillisecond)->MinTime(2);

}  // namespace
}  // namespace adbwire

BENCHMARK_MAIN();
