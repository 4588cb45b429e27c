// Records the pipeline timeline of a pipelined add on two TensorCores and writes it as a
// Chrome trace (pipeline_trace.json: open it in Perfetto; one process per launch, named
// after the kernel) and as an SVG picture (pipeline_trace.svg). Running any program with
// PALLAS_TRACE=file.json (or .svg) does the same without code. The README's picture is this
// program's SVG, run with PALLAS_DMA_ENGINE=thread (copies on the DMA thread, overlapping the
// cores' compute).

#include <fstream>
#include <iostream>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main(int argc, char** argv) {
  std::string const stem = argc > 1 ? argv[1] : "pipeline_trace";
  auto x = pl::Array<float, 1024, 512>::full(1.0f);
  auto y = pl::Array<float, 1024, 512>::full(2.0f);
  auto add = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core">>,
                        pl::name("exp_times"))([](auto x_hbm, auto y_hbm, auto o_hbm) {
    auto ij = [](auto i, auto j) { return pl::idx(i, j); };
    pltpu::emit_pipeline([](auto xv, auto yv, auto ov) { ov[pl::ellipsis] = pl::exp(xv[pl::ellipsis]) * yv[pl::ellipsis]; },
                         pl::grid<1024 / 128, 512 / 128>,
                         pl::in_specs(pl::BlockSpec<128, 128>(ij), pl::BlockSpec<128, 128>(ij)),
                         pl::out_specs(pl::BlockSpec<128, 128>(ij)), pltpu::core_axis_name<"core">,
                         pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>)(x_hbm, y_hbm, o_hbm);
  });
  add(x, y);  // warm up

  pl::trace::clear();
  pl::trace::start();
  auto o = add(x, y);
  pl::trace::stop();
  pl::trace::write_json(stem + ".json");
  pl::trace::write_svg(stem + ".svg");

  auto const events = pl::trace::events();
  auto const launches = pl::trace::launches();
  int steps = 0, copies = 0, timed = 0;
  for (auto const& e : events) {
    steps += e.category == "step";
    copies += e.category == "pipeline_copy";
    timed += e.cpu_ns >= 0 && e.launch == launches.back().id;
  }
  std::cout << "recorded launch " << launches.back().label() << ": " << steps << " grid steps and " << copies
            << " copies; wrote " << stem << ".json and " << stem << ".svg\n";
  // One launch; 32 steps over 2 cores; per step two fetches (x, y) and one write-back; every
  // span with its CPU time.
  bool const ok = launches.size() == 1 && launches[0].name == "exp_times" && steps == 32 && copies == 96 &&
                  timed == static_cast<int>(events.size()) && std::abs(o(5, 5) - 2.0f * std::exp(1.0f)) < 1e-5f;
  std::ifstream json(stem + ".json");
  std::string first_line;
  std::getline(json, first_line);
  bool const json_ok = first_line.rfind("{\"displayTimeUnit\"", 0) == 0;
  std::cout << (ok && json_ok ? "ok" : "WRONG") << '\n';
  return ok && json_ok ? 0 : 1;
}
