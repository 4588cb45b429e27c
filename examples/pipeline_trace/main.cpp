// Records the pipeline timeline of a pipelined add on two TensorCores and writes it as a
// Chrome trace (pipeline_trace.json: open it in Perfetto) and as an SVG picture
// (pipeline_trace.svg). Running any program with PALLAS_TRACE=file.json (or .svg) does the
// same without code.

#include <fstream>
#include <iostream>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

int main(int argc, char** argv) {
  std::string const stem = argc > 1 ? argv[1] : "pipeline_trace";
  auto x = pl::Array<float, 1024, 512>::full(1.0f);
  auto y = pl::Array<float, 1024, 512>::full(2.0f);
  auto add = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core">>)([](auto x_hbm, auto y_hbm, auto o_hbm) {
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
  int steps = 0, copies = 0;
  for (auto const& e : events) (e.dma ? copies : steps) += 1;
  std::cout << "recorded " << steps << " grid steps and " << copies << " copies; wrote " << stem << ".json and "
            << stem << ".svg\n";
  // 32 steps over 2 cores; per step two fetches (x, y) and one write-back.
  bool const ok = steps == 32 && copies == 96 && std::abs(o(5, 5) - 2.0f * std::exp(1.0f)) < 1e-5f;
  std::ifstream json(stem + ".json");
  std::string first_line;
  std::getline(json, first_line);
  bool const json_ok = first_line.rfind("{\"displayTimeUnit\"", 0) == 0;
  std::cout << (ok && json_ok ? "ok" : "WRONG") << '\n';
  return ok && json_ok ? 0 : 1;
}
