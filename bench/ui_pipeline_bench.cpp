// UI pipeline throughput: parse + prune + refs (parse_dump) and formatting, per real dump of
// ../shared/corpus/xml, over the whole corpus, and on a synthetic 20 MB screen. Memory is the
// peak of live heap bytes while one dump is parsed and formatted, counted by a replaced
// global operator new, on top of the input string the caller already holds.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <string>
#include <vector>

#include "adbwire/ui.hpp"

namespace {

std::atomic<std::int64_t> g_live{0};
std::atomic<std::int64_t> g_peak{0};

void note_alloc(void* p) {
  const auto now = g_live.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p))) +
                   static_cast<std::int64_t>(malloc_usable_size(p));
  std::int64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}

// Out of line so GCC does not pair the free() with the replaced operator new at call sites.
[[gnu::noinline]] void release(void* p) noexcept {
  g_live.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)));
  std::free(p);
}

}  // namespace

void* operator new(std::size_t size) {
  void* p = std::malloc(size ? size : 1);
  if (!p) throw std::bad_alloc();
  note_alloc(p);
  return p;
}
void operator delete(void* p) noexcept {
  if (p) release(p);
}
void operator delete(void* p, std::size_t) noexcept {
  if (p) release(p);
}

namespace {

namespace fs = std::filesystem;
using adbwire::ui::parse_dump;
using adbwire::ui::Snapshot;

struct Dump {
  std::string name;
  std::string xml;
};

std::vector<Dump> load_corpus() {
  std::vector<Dump> dumps;
  const fs::path dir = fs::path(ADBWIRE_SOURCE_DIR) / ".." / "shared" / "corpus" / "xml";
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".xml") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    dumps.push_back({entry.path().stem().string(),
                     {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()}});
  }
  std::sort(dumps.begin(), dumps.end(),
            [](const Dump& a, const Dump& b) { return a.name < b.name; });
  return dumps;
}

// A list screen of about `bytes` of XML shaped like a real uiautomator dump.
std::string synthetic_dump(std::size_t bytes) {
  std::string xml =
      "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
      "<node index=\"0\" text=\"\" resource-id=\"com.x:id/list\" "
      "class=\"androidx.recyclerview.widget.RecyclerView\" "
      "package=\"com.x\" content-desc=\"\" checkable=\"false\" checked=\"false\" "
      "clickable=\"false\" enabled=\"true\" "
      "focusable=\"true\" focused=\"false\" scrollable=\"true\" long-clickable=\"false\" "
      "password=\"false\" "
      "selected=\"false\" bounds=\"[0,0][1080,2400]\">";
  for (std::size_t row = 0; xml.size() < bytes; ++row) {
    const std::string n = std::to_string(row);
    xml += "<node index=\"" + n +
           "\" text=\"\" resource-id=\"com.x:id/row\" class=\"android.widget.LinearLayout\" "
           "package=\"com.x\" content-desc=\"\" checkable=\"false\" checked=\"false\" "
           "clickable=\"true\" enabled=\"true\" "
           "focusable=\"true\" focused=\"false\" scrollable=\"false\" long-clickable=\"true\" "
           "password=\"false\" "
           "selected=\"false\" bounds=\"[0," +
           n + "][1080,200]\"><node index=\"0\" text=\"Contact " + n +
           "\" resource-id=\"com.x:id/name\" class=\"android.widget.TextView\" package=\"com.x\" "
           "content-desc=\"\" "
           "checkable=\"false\" checked=\"false\" clickable=\"false\" enabled=\"true\" "
           "focusable=\"false\" "
           "focused=\"false\" scrollable=\"false\" long-clickable=\"false\" password=\"false\" "
           "selected=\"false\" "
           "bounds=\"[40,20][800,100]\" /><node index=\"1\" text=\"Last message &amp; more\" "
           "resource-id=\"com.x:id/msg\" "
           "class=\"android.widget.TextView\" package=\"com.x\" content-desc=\"\" "
           "checkable=\"false\" checked=\"false\" "
           "clickable=\"false\" enabled=\"true\" focusable=\"false\" focused=\"false\" "
           "scrollable=\"false\" "
           "long-clickable=\"false\" password=\"false\" selected=\"false\" "
           "bounds=\"[40,100][800,180]\" /></node>";
  }
  xml += "</node></hierarchy>";
  return xml;
}

// One dump: copy (not timed), parse_dump, to_text. Reports bytes/s and peak heap.
void run_pipeline(benchmark::State& state, const std::string& xml) {
  std::int64_t peak = 0;
  std::size_t out_bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::string copy = xml;
    const std::int64_t base = g_live.load();
    g_peak.store(base);
    state.ResumeTiming();
    const Snapshot s = parse_dump(std::move(copy));
    const std::string text = s.to_text();
    benchmark::DoNotOptimize(text.data());
    out_bytes = text.size();
    peak = std::max(peak, g_peak.load() - base);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * xml.size()));
  state.counters["xml_bytes"] = static_cast<double>(xml.size());
  state.counters["text_bytes"] = static_cast<double>(out_bytes);
  state.counters["peak_heap_bytes"] = static_cast<double>(peak);
  state.counters["heap_per_xml_byte"] = static_cast<double>(peak) / static_cast<double>(xml.size());
}

void BM_WholeCorpus(benchmark::State& state, const std::vector<Dump>* dumps) {
  std::size_t total = 0;
  for (const Dump& d : *dumps) total += d.xml.size();
  for (auto _ : state) {
    for (const Dump& d : *dumps) {
      const Snapshot s = parse_dump(d.xml);
      benchmark::DoNotOptimize(s.to_text().size());
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * total));
  state.counters["dumps"] = static_cast<double>(dumps->size());
}

void BM_ToJson(benchmark::State& state, const std::string* xml) {
  const Snapshot s = parse_dump(*xml);
  for (auto _ : state) benchmark::DoNotOptimize(s.to_json().size());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * xml->size()));
}

void BM_Resolve(benchmark::State& state, const std::string* xml) {
  const Snapshot before = parse_dump(*xml);
  const Snapshot after = parse_dump(*xml);
  for (auto _ : state) {
    for (const auto& r : before.refs()) {
      std::error_code error;
      benchmark::DoNotOptimize(adbwire::ui::resolve(r, after, error));
    }
  }
  state.counters["refs"] = static_cast<double>(before.refs().size());
}

}  // namespace

int main(int argc, char** argv) {
  static const std::vector<Dump> dumps = load_corpus();
  if (dumps.empty()) {
    std::fprintf(stderr, "no dumps under ../shared/corpus/xml next to %s\n", ADBWIRE_SOURCE_DIR);
    return 1;
  }
  static const std::string big = synthetic_dump(20u * 1024 * 1024);
  const auto largest =
      std::max_element(dumps.begin(), dumps.end(),
                       [](const Dump& a, const Dump& b) { return a.xml.size() < b.xml.size(); });
  for (const Dump& d : dumps) {
    benchmark::RegisterBenchmark(("Pipeline/" + d.name).c_str(), [&d](benchmark::State& s) {
      run_pipeline(s, d.xml);
    })->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("WholeCorpus", BM_WholeCorpus, &dumps)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("Pipeline/synthetic-20MB", [](benchmark::State& s) {
    run_pipeline(s, big);
  })->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("ToJson/" + largest->name).c_str(), BM_ToJson, &largest->xml)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark(("ResolveAllRefs/" + largest->name).c_str(), BM_Resolve,
                               &largest->xml)
      ->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
