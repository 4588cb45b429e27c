// The trace (pl::trace, PALLAS_TRACE): the JSON it writes is parsed back (a small parser
// below) and checked for launch labels, one process per launch, copies started by hand
// with their hand-computed byte counts, semaphore waits, CPU time within wall time; the SVG
// draws the chosen launch; an unwritable path or an empty trace warns.
#include <pallas/pallas.hpp>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <variant>
#include <vector>

#include <catch2/catch.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

// ---- A JSON value and a recursive-descent parser for what the trace writes.
struct json;
using json_object = std::map<std::string, json>;
using json_array = std::vector<json>;
struct json {
  std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<json_array>, std::shared_ptr<json_object>> v;
  bool is_object() const { return std::holds_alternative<std::shared_ptr<json_object>>(v); }
  json_object const& object() const { return *std::get<std::shared_ptr<json_object>>(v); }
  json_array const& array() const { return *std::get<std::shared_ptr<json_array>>(v); }
  std::string const& str() const { return std::get<std::string>(v); }
  double num() const { return std::get<double>(v); }
  bool has(std::string const& k) const { return is_object() && object().count(k) != 0; }
  json const& operator[](std::string const& k) const { return object().at(k); }
};

class json_parser {
 public:
  explicit json_parser(std::string text) : s_(std::move(text)) {}
  json parse() {
    json j = value();
    skip();
    if (p_ != s_.size()) throw std::runtime_error("trailing text at " + std::to_string(p_));
    return j;
  }

 private:
  void skip() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\t' || s_[p_] == '\r')) ++p_;
  }
  void expect(char c) {
    skip();
    if (p_ >= s_.size() || s_[p_] != c)
      throw std::runtime_error(std::string("expected ") + c + " at " + std::to_string(p_));
    ++p_;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (p_ < s_.size() && s_[p_] != '"') {
      char c = s_[p_++];
      if (static_cast<unsigned char>(c) < 0x20) throw std::runtime_error("raw control character in a string");
      if (c == '\\') {
        char e = s_.at(p_++);
        if (e == 'u') {
          out += static_cast<char>(std::stoi(s_.substr(p_, 4), nullptr, 16));
          p_ += 4;
        } else {
          out += e == 'n' ? '\n' : e;
        }
      } else {
        out += c;
      }
    }
    expect('"');
    return out;
  }
  json value() {
    skip();
    char const c = s_.at(p_);
    if (c == '{') {
      auto obj = std::make_shared<json_object>();
      ++p_;
      skip();
      if (s_.at(p_) == '}') return ++p_, json{obj};
      for (;;) {
        std::string k = string();
        expect(':');
        (*obj)[k] = value();
        skip();
        if (s_.at(p_) == ',') { ++p_; continue; }
        expect('}');
        return json{obj};
      }
    }
    if (c == '[') {
      auto arr = std::make_shared<json_array>();
      ++p_;
      skip();
      if (s_.at(p_) == ']') return ++p_, json{arr};
      for (;;) {
        arr->push_back(value());
        skip();
        if (s_.at(p_) == ',') { ++p_; continue; }
        expect(']');
        return json{arr};
      }
    }
    if (c == '"') return json{string()};
    if (s_.compare(p_, 4, "true") == 0) return p_ += 4, json{true};
    if (s_.compare(p_, 5, "false") == 0) return p_ += 5, json{false};
    if (s_.compare(p_, 4, "null") == 0) return p_ += 4, json{nullptr};
    std::size_t used = 0;
    double const d = std::stod(s_.substr(p_, 40), &used);
    if (s_.substr(p_, used).find_first_of("eE") != std::string::npos) throw std::runtime_error("exponent notation");
    p_ += used;
    return json{d};
  }
  std::string s_;
  std::size_t p_ = 0;
};

std::string slurp(std::string const& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string temp_path(std::string const& stem) {
  return "/tmp/pallas_trace_test_" + std::to_string(::getpid()) + "_" + stem;
}

/// The trace written now, parsed: its traceEvents.
json_array written_trace() {
  std::string const path = temp_path("trace.json");
  REQUIRE(pl::trace::write_json(path));
  json const root = json_parser(slurp(path)).parse();
  std::remove(path.c_str());
  return root["traceEvents"].array();
}

/// Collects the trace's warnings while alive.
struct captured_warnings {
  std::vector<std::string> seen;
  std::function<void(std::string const&)> saved = pl::detail::warning_sink();
  captured_warnings() {
    pl::detail::warning_sink() = [this](std::string const& m) { seen.push_back(m); };
  }
  ~captured_warnings() { pl::detail::warning_sink() = saved; }
  bool any_contains(std::string const& s) const {
    for (auto const& m : seen)
      if (m.find(s) != std::string::npos) return true;
    return false;
  }
};

/// Tracing on for a scope, from a clear trace; off (what was recorded stays) after.
struct tracing {
  tracing() {
    pl::trace::clear();
    pl::trace::start();
  }
  ~tracing() { pl::trace::stop(); }
};

// Slack for comparing the CPU clock with the wall clock (their resolutions differ).
constexpr double clock_slack_us = 50.0;

}  // namespace

TEST_CASE("trace: every launch is a process named after its kernel, numbered", "[trace]") {
  auto const x = pl::Array<float, 16, 128>::full(1.0f);
  auto row_block = [](auto i) { return pl::idx(i, 0); };
  auto add_one = pl::pallas_call([](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + 1.0f; },
                                 pl::like(x), pl::grid<2>, pl::in_specs(pl::BlockSpec<8, 128>(row_block)),
                                 pl::out_specs(pl::BlockSpec<8, 128>(row_block)), pl::name("add_one"),
                                 pltpu::num_cores<1>);
  auto copy = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 2>>)([](auto x_hbm, auto o_hbm) {
    auto const half = pl::ds<8>(pl::axis_index<"core">() * 8);  // each core copies its half
    pltpu::sync_copy(x_hbm.at(half), o_hbm.at(half));
  });
  auto named_copy = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 1>>, pl::name("my_copy"))(
      [](auto x_hbm, auto o_hbm) { pltpu::sync_copy(x_hbm, o_hbm); });
  {
    // The DMA thread moves the pipeline's copies: its spans belong to their launch too.
    pltpu::scoped_dma_executor on_thread(pltpu::dma_executor::dma_thread);
    tracing on;
    CHECK(add_one(x)(3, 5) == 2.0f);
    CHECK(add_one(x)(3, 5) == 2.0f);
    CHECK(copy(x)(3, 5) == 1.0f);
    CHECK(named_copy(x)(3, 5) == 1.0f);
  }
  auto const launches = pl::trace::launches();
  REQUIRE(launches.size() == 4);
  // Numbered in launch order, one apart (nothing else launched in between).
  for (std::size_t k = 1; k < 4; ++k) CHECK(launches[k].id == launches[0].id + k);
  CHECK(launches[0].name == "add_one");
  CHECK(launches[0].who == "pl::pallas_call");
  CHECK(launches[2].name == "pl::kernel");
  CHECK(launches[2].num_cores == 2);
  CHECK(launches[3].name == "my_copy");
  std::uint64_t const first = launches[0].id;
  for (auto const& e : pl::trace::events()) {
    CHECK(e.launch >= first);
    CHECK(e.launch < first + 4);
  }

  auto const evs = written_trace();
  std::map<double, std::string> process_names;
  std::map<double, std::set<std::string>> categories_by_pid;
  std::map<double, std::set<double>> cores_by_pid;
  int launch_spans = 0;
  for (auto const& e : evs) {
    std::string const ph = e["ph"].str();
    double const pid = e["pid"].num();
    if (ph == "M" && e["name"].str() == "process_name") process_names[pid] = e["args"]["name"].str();
    if (ph == "X") {
      categories_by_pid[pid].insert(e["cat"].str());
      if (e["cat"].str() == "launch") {
        ++launch_spans;
        CHECK(e["tid"].num() == 0);
        CHECK(e["args"]["launch"].num() == pid);
      } else {
        CHECK(e["args"]["launch"].num() == pid);  // each span in its launch's process
        cores_by_pid[pid].insert(e["args"]["core"].num());
      }
    }
  }
  CHECK(launch_spans == 4);
  auto const pid = [&](std::uint64_t k) { return static_cast<double>(first + k); };
  CHECK(process_names[pid(0)] == "#" + std::to_string(first) + " add_one (pl::pallas_call, 1 core)");
  CHECK(process_names[pid(1)] == "#" + std::to_string(first + 1) + " add_one (pl::pallas_call, 1 core)");
  CHECK(process_names[pid(2)] == "#" + std::to_string(first + 2) + " pl::kernel (2 cores)");
  CHECK(process_names[pid(3)] == "#" + std::to_string(first + 3) + " my_copy (pl::kernel, 1 core)");
  CHECK(process_names.size() == 4);
  // The pallas_call: grid steps and pipeline copies; the kernels: a sync_copy per core;
  // every launch its cost report.
  // (and the DMA thread's moves, when it got a CPU before the waiting core moved the bytes).
  auto pipelined = categories_by_pid[pid(0)];
  pipelined.erase("dma_thread");
  CHECK(pipelined == std::set<std::string>{"launch", "step", "pipeline_copy", "cost"});
  CHECK(categories_by_pid[pid(2)] == std::set<std::string>{"launch", "sync_copy", "cost"});
  CHECK(cores_by_pid[pid(2)] == std::set<double>{0, 1});
  CHECK(cores_by_pid[pid(3)] == std::set<double>{0});
}

TEST_CASE("trace: copies started by hand are spans from start to wait, with bytes and operand", "[trace]") {
  auto const x = pl::Array<float, 16, 128>::generate([](auto i, auto j) { return static_cast<float>(i * 128 + j); });
  auto k = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                      pl::scratch_types<pltpu::VMEM<float, 16, 128>, pltpu::SemaphoreType::DMA<2>>)(
      [](auto x_hbm, auto o_hbm, auto vmem, auto sems) {
        // Two copies in flight at once on different semaphores: 8 x 128 x 4 = 4096 bytes and
        // 2 x 128 x 4 = 1024 bytes; then the rest (6 rows, 3072 bytes) waited by a
        // descriptor made only to wait.
        auto a = pltpu::async_copy(x_hbm.at(pl::ds<8>(0)), vmem.at(pl::ds<8>(0)), sems.at(0));
        auto b = pltpu::async_copy(x_hbm.at(pl::ds<2>(8)), vmem.at(pl::ds<2>(8)), sems.at(1));
        b.wait();
        a.wait();
        pltpu::async_copy(x_hbm.at(pl::ds<6>(10)), vmem.at(pl::ds<6>(10)), sems.at(0));
        pltpu::make_async_copy(x_hbm.at(pl::ds<6>(10)), vmem.at(pl::ds<6>(10)), sems.at(0)).wait();
        pltpu::sync_copy(vmem, o_hbm);  // 16 x 128 x 4 = 8192 bytes
      });
  pl::Array<float, 16, 128> o;
  {
    tracing on;
    o = k(x);
  }
  bool same = true;
  for (pl::index_t n = 0; n < x.size(); ++n) same &= o.data()[n] == x.data()[n];
  CHECK(same);

  std::vector<pl::trace::event> async, sync;
  for (auto const& e : pl::trace::events()) {
    if (e.category == "async_copy") async.push_back(e);
    if (e.category == "sync_copy") sync.push_back(e);
  }
  REQUIRE(async.size() == 3);
  REQUIRE(sync.size() == 1);
  // Recorded when waited: b, a, then the rest.
  CHECK(async[0].bytes == 1024);
  CHECK(async[1].bytes == 4096);
  CHECK(async[2].bytes == 3072);
  CHECK(sync[0].bytes == 8192);
  CHECK(async[1].operand.find("HBM float32(8, 128) -> VMEM at trace_test.cpp:") == 0);
  CHECK(sync[0].operand.find("VMEM float32(16, 128) -> HBM") == 0);
  // a spans b (started before it, waited after it); overlapping copies take separate lanes.
  CHECK(async[1].begin_ns <= async[0].begin_ns);
  CHECK(async[1].end_ns >= async[0].end_ns);
  CHECK(async[0].lane != async[1].lane);
  // Outside a grid there is no grid point.
  CHECK(async[0].point.empty());

  // The same in the JSON, in the event args.
  std::vector<double> json_bytes;
  for (auto const& e : written_trace())
    if (e["ph"].str() == "X" && e["cat"].str() == "async_copy") {
      json_bytes.push_back(e["args"]["bytes"].num());
      CHECK(e["args"]["operand"].str().find("-> VMEM") != std::string::npos);
      CHECK(e["name"].str().find("bytes)") != std::string::npos);
    }
  CHECK(json_bytes == std::vector<double>{1024, 4096, 3072});
}

TEST_CASE("trace: sync copies in a grid carry their grid point", "[trace]") {
  auto const x = pl::Array<float, 4 * 8, 128>::full(3.0f);
  auto call = pl::pallas_call(
      [](auto x_any, auto o_any, auto scratch) {
        auto const i = pl::program_id(0);
        pltpu::sync_copy(x_any.at(pl::ds<8>(i * 8)), scratch);
        pltpu::sync_copy(scratch, o_any.at(pl::ds<8>(i * 8)));
      },
      pl::like(x), pl::grid<4>, pl::in_specs(pl::BlockSpec<>(pl::in_memory<pl::ANY>)),
      pl::out_specs(pl::BlockSpec<>(pl::in_memory<pl::ANY>)), pl::scratch_shapes<pltpu::VMEM<float, 8, 128>>,
      pltpu::num_cores<1>);
  {
    tracing on;
    CHECK(call(x)(31, 127) == 3.0f);
  }
  std::multiset<std::string> points;
  for (auto const& e : pl::trace::events())
    if (e.category == "sync_copy") {
      CHECK(e.bytes == 8 * 128 * 4);
      points.insert(e.point);
    }
  CHECK(points == std::multiset<std::string>{"(0)", "(0)", "(1)", "(1)", "(2)", "(2)", "(3)", "(3)"});
  for (auto const& e : written_trace())
    if (e["ph"].str() == "X" && e["cat"].str() == "sync_copy") CHECK(e["args"].has("point"));
}

TEST_CASE("trace: semaphore waits and barriers are recorded on the waiting core", "[trace]") {
  for (int cores : {1, 2, 4}) {
    CAPTURE(cores);
    auto run = [&]<int N>(std::integral_constant<int, N>) {
      pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", N>>,
                 pl::scratch_types<pltpu::SemaphoreType::REGULAR<>, pltpu::SemaphoreType::REGULAR<>>)(
          [](auto sem, auto barrier) {
            pl::semaphore_signal(sem, 3);
            pl::semaphore_wait(sem, 3);
            pltpu::core_barrier<"core">(barrier);
          })();
    };
    {
      tracing on;
      if (cores == 1) run(std::integral_constant<int, 1>{});
      if (cores == 2) run(std::integral_constant<int, 2>{});
      if (cores == 4) run(std::integral_constant<int, 4>{});
    }
    std::multiset<int> waits, barriers;
    for (auto const& e : pl::trace::events()) {
      if (e.category != "semaphore_wait") continue;
      CHECK(e.lane_name == "semaphore waits");
      if (e.name == "semaphore_wait for 3") waits.insert(e.core);
      if (e.name == "core_barrier for " + std::to_string(cores - 1)) barriers.insert(e.core);
      CHECK(e.bytes == -1);  // a REGULAR semaphore counts signals, not bytes
    }
    std::multiset<int> each_core;
    for (int c = 0; c < cores; ++c) each_core.insert(c);
    CHECK(waits == each_core);
    CHECK(barriers == each_core);
    int in_json = 0;
    for (auto const& e : written_trace()) in_json += e["ph"].str() == "X" && e["cat"].str() == "semaphore_wait";
    CHECK(in_json == 2 * cores);
  }
}

TEST_CASE("trace: each span's CPU time is at most its wall time, a sleeping step shows as off the CPU", "[trace]") {
  auto const x = pl::Array<float, 16, 128>::full(1.0f);
  auto call = pl::pallas_call(
      [](auto x_ref, auto o_ref) {
        if (pl::program_id(0) == 1) std::this_thread::sleep_for(std::chrono::milliseconds(30));
        o_ref[pl::ellipsis] = x_ref[pl::ellipsis] * 2.0f;
      },
      pl::like(x), pl::grid<2>, pl::in_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })),
      pl::out_specs(pl::BlockSpec<8, 128>([](auto i) { return pl::idx(i, 0); })), pltpu::num_cores<1>,
      pl::name("sleepy"));
  {
    tracing on;
    CHECK(call(x)(9, 0) == 2.0f);
  }
  int spans = 0;
  for (auto const& e : written_trace()) {
    if (e["ph"].str() != "X") continue;
    ++spans;
    REQUIRE(e["args"].has("cpu_us"));
    double const cpu = e["args"]["cpu_us"].num(), wall = e["dur"].num();
    CHECK(cpu >= 0);
    CHECK(cpu <= wall + clock_slack_us);
    CHECK(e["args"]["wall_us"].num() == wall);
    if (e["cat"].str() == "step" && e["name"].str() == "step (1,)") {
      CHECK(wall >= 30000);
      CHECK(cpu < wall / 2);  // asleep: off the CPU
    }
  }
  CHECK(spans >= 1 + 2 + 4);  // the launch, two steps, two fetches and two write-backs
  std::string const svg = temp_path("sleepy.svg");
  REQUIRE(pl::trace::write_svg(svg));
  std::string const picture = slurp(svg);
  std::remove(svg.c_str());
  CHECK(picture.find(R"svg(fill="url(#off_cpu)")svg") != std::string::npos);  // the sleeping step is hatched
  CHECK(picture.find("CPU ") != std::string::npos);
}

TEST_CASE("trace: a launch's span says who moved its copies", "[trace]") {
  auto const x = pl::Array<float, 64, 256>::full(1.0f);  // 64 KiB blocks: the DMA thread's size
  auto call = pl::pallas_call([](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] + 1.0f; },
                              pl::like(x), pl::grid<1>, pltpu::num_cores<1>, pl::name("who_moves"));
  pltpu::scoped_dma_schedule order({pltpu::dma_execution_mode::on_wait});
  for (auto executor : {pltpu::dma_executor::dma_thread, pltpu::dma_executor::on_core}) {
    pltpu::scoped_dma_executor use(executor);
    {
      tracing on;
      CHECK(call(x)(63, 255) == 2.0f);
    }
    REQUIRE(pltpu::last_launch_dma_executor() == executor);
    std::string const expected = executor == pltpu::dma_executor::dma_thread ? "dma_thread" : "on_core";
    int launches = 0;
    for (auto const& e : written_trace())
      if (e["ph"].str() == "X" && e["cat"].str() == "launch") {
        ++launches;
        CHECK(e["args"]["dma_executor"].str() == expected);
      }
    CHECK(launches == 1);
  }
}

TEST_CASE("trace: nothing is recorded while tracing is off", "[trace]") {
  pl::trace::stop();
  pl::trace::clear();
  auto const x = pl::Array<float, 8, 128>::full(1.0f);
  auto copy = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                         pl::scratch_types<pltpu::VMEM<float, 8, 128>, pltpu::SemaphoreType::DMA<>>)(
      [](auto x_hbm, auto o_hbm, auto vmem, auto sem) {
        pltpu::async_copy(x_hbm, vmem, sem).wait();
        pltpu::sync_copy(vmem, o_hbm);
      });
  CHECK(copy(x)(7, 127) == 1.0f);
  CHECK(pl::trace::events().empty());
  CHECK(pl::trace::launches().empty());
}

TEST_CASE("trace: the SVG draws the last launch, a chosen one, or a row per launch", "[trace]") {
  auto const x = pl::Array<float, 8, 128>::full(1.0f);
  auto make = [&](pl::name_option n) {
    return pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 1>>, n)(
        [](auto x_hbm, auto o_hbm) { pltpu::sync_copy(x_hbm, o_hbm); });
  };
  auto first = make(pl::name("first_kernel"));
  auto second = make(pl::name("second_kernel"));
  {
    tracing on;
    first(x);
    second(x);
  }
  auto const launches = pl::trace::launches();
  REQUIRE(launches.size() == 2);
  std::string const path = temp_path("choice.svg");
  auto picture = [&](std::uint64_t which) {
    bool const ok = pl::trace::write_svg(path, which);
    std::string s = slurp(path);
    std::remove(path.c_str());
    return std::pair{ok, s};
  };
  auto const [last_ok, last] = picture(pl::trace::last_launch);
  CHECK(last_ok);
  CHECK(last.find("timeline of launch #" + std::to_string(launches[1].id) + " second_kernel") != std::string::npos);
  CHECK(last.find("first_kernel") == std::string::npos);
  auto const [chosen_ok, chosen] = picture(launches[0].id);
  CHECK(chosen_ok);
  CHECK(chosen.find("timeline of launch #" + std::to_string(launches[0].id) + " first_kernel") != std::string::npos);
  CHECK(chosen.find("second_kernel") == std::string::npos);
  auto const [all_ok, all] = picture(pl::trace::all_launches);
  CHECK(all_ok);
  CHECK(all.find("2 launches") != std::string::npos);
  CHECK(all.find(launches[0].label()) != std::string::npos);
  CHECK(all.find(launches[1].label()) != std::string::npos);
  captured_warnings w;
  auto const [missing_ok, missing] = picture(launches[1].id + 1000);
  CHECK_FALSE(missing_ok);
  CHECK(missing.find("was not recorded") != std::string::npos);
  CHECK(w.any_contains("was not recorded"));

  // PALLAS_TRACE=x.svg at exit: PALLAS_TRACE_LAUNCH chooses the launch.
  auto at_exit = [&](char const* choice) {
    ::setenv("PALLAS_TRACE_LAUNCH", choice, 1);
    bool const ok = pl::detail::recorder::instance().write_at_exit(path);
    ::unsetenv("PALLAS_TRACE_LAUNCH");
    std::string s = slurp(path);
    std::remove(path.c_str());
    return std::pair{ok, s};
  };
  std::string const first_id = std::to_string(launches[0].id);
  CHECK(at_exit(first_id.c_str()).second.find("launch #" + first_id + " first_kernel") != std::string::npos);
  CHECK(at_exit("all").second.find("2 launches") != std::string::npos);
  CHECK(at_exit("last").second.find("second_kernel") != std::string::npos);
  w.seen.clear();
  CHECK(at_exit("third").second.find("second_kernel") != std::string::npos);  // not a number: the last
  CHECK(w.any_contains("PALLAS_TRACE_LAUNCH=third is not a launch number"));
}

TEST_CASE("trace: an unwritable path or an empty trace warns instead of staying silent", "[trace]") {
  captured_warnings w;
  pl::trace::stop();
  pl::trace::clear();
  std::string const bad = "/nonexistent-pallas-dir/trace.json";
  CHECK_FALSE(pl::trace::write_json(bad));
  CHECK(w.any_contains("cannot write the trace to " + bad));
  // What the atexit handler of PALLAS_TRACE does: both warnings, and the file still written.
  w.seen.clear();
  CHECK_FALSE(pl::detail::recorder::instance().write_at_exit(bad));
  CHECK(w.any_contains("nothing was recorded"));
  CHECK(w.any_contains("cannot write"));
  w.seen.clear();
  std::string const empty = temp_path("empty.json");
  CHECK(pl::detail::recorder::instance().write_at_exit(empty));
  CHECK(w.seen.size() == 1);
  CHECK(w.any_contains("PALLAS_TRACE=" + empty + ": nothing was recorded"));
  json const root = json_parser(slurp(empty)).parse();
  CHECK(root["traceEvents"].array().empty());
  std::remove(empty.c_str());
}

TEST_CASE("trace: a pl::shard_map is one process per chip, with its cores and both sides of each remote copy",
          "[trace]") {
  // A right permute on 2 chips of 2 cores: core k of each chip sends row k to core k of the
  // other chip.
  auto permute = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 2, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                            pl::scratch_types<pltpu::SemaphoreType::DMA<>, pltpu::SemaphoreType::DMA<>>,
                            pl::name("permute"))([](auto in, auto out, auto send, auto recv) {
    pl::index_t const core = pl::axis_index<"core">();
    pl::index_t const right = (pl::axis_index<"x">() + 1) % 2;
    auto copy = pltpu::make_async_remote_copy(in.at(pl::ds<1>(core)), out.at(pl::ds<1>(core)), send, recv, {right},
                                              pltpu::DeviceIdType::MESH);
    copy.start();
    copy.wait();
  });
  std::vector<pl::Array<float, 2, 128>> xs{pl::Array<float, 2, 128>::full(1.0f), pl::Array<float, 2, 128>::full(2.0f)};
  {
    tracing on;
    auto const ys = pl::shard_map<pl::device_mesh<"x", 2>>(permute)(xs);
    CHECK(ys[0](1, 5) == 2.0f);
    CHECK(ys[1](0, 5) == 1.0f);
  }
  REQUIRE(pl::trace::launches().size() == 1);
  std::string const launch = "#" + std::to_string(pl::trace::launches()[0].id);

  std::map<double, std::string> process_names;
  std::map<double, std::set<std::string>> tracks;            // thread names by pid
  std::map<double, std::set<double>> cores;                  // span cores by pid
  std::map<double, std::multiset<std::string>> remote;       // remote copy span names by pid
  std::map<double, int> launch_spans, chip_of;
  for (auto const& e : written_trace()) {
    std::string const ph = e["ph"].str();
    double const pid = e["pid"].num();
    if (ph == "M" && e["name"].str() == "process_name") process_names[pid] = e["args"]["name"].str();
    if (ph == "M" && e["name"].str() == "thread_name") tracks[pid].insert(e["args"]["name"].str());
    if (ph != "X") continue;
    chip_of[pid] = static_cast<int>(e["args"]["chip"].num());
    if (e["cat"].str() == "launch") {
      ++launch_spans[pid];
      continue;
    }
    cores[pid].insert(e["args"]["core"].num());
    if (e["cat"].str() == "remote_copy") remote[pid].insert(e["name"].str());
  }
  REQUIRE(process_names.size() == 2);
  for (auto const& [pid, name] : process_names) {
    int const chip = chip_of[pid];
    int const other = 1 - chip;
    CHECK(name == launch + " permute (pl::shard_map) chip " + std::to_string(chip) + " (2 cores)");
    CHECK(launch_spans[pid] == 1);
    CHECK(cores[pid] == std::set<double>{0, 1});
    CHECK(tracks[pid].count("launch") == 1);
    for (int k = 0; k < 2; ++k) {
      bool found = false;
      for (auto const& t : tracks[pid]) found = found || t.rfind("core " + std::to_string(k) + " DMA", 0) == 0;
      CHECK(found);
      std::string const row = " core " + std::to_string(k) + " (512 bytes)";
      CHECK(remote[pid].count("remote copy to chip " + std::to_string(other) + row) == 1);    // sender
      CHECK(remote[pid].count("remote copy from chip " + std::to_string(other) + row) == 1);  // receiver
    }
    CHECK(remote[pid].size() == 4);
  }
}

TEST_CASE("trace: under an MPI job of several ranks each rank's PALLAS_TRACE file has the rank in its name", "[trace]") {
  struct restore {  // the test's own environment, put back whatever happens
    ~restore() {
      unsetenv("OMPI_COMM_WORLD_RANK");
      unsetenv("OMPI_COMM_WORLD_SIZE");
    }
  } put_back;
  REQUIRE(std::getenv("OMPI_COMM_WORLD_RANK") == nullptr);
  CHECK(pl::detail::trace_path_for_this_process("run.json") == "run.json");
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  CHECK(pl::detail::trace_path_for_this_process("run.json") == "run.rank3.json");
  CHECK(pl::detail::trace_path_for_this_process("out/run.svg") == "out/run.rank3.svg");
  CHECK(pl::detail::trace_path_for_this_process("out.d/run") == "out.d/run.rank3");
  setenv("OMPI_COMM_WORLD_SIZE", "1", 1);  // one rank: the name as given
  CHECK(pl::detail::trace_path_for_this_process("run.json") == "run.json");
}
