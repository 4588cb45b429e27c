// expect-error: pallas::pallas_call: at most one pl::CostEstimate
// cost_estimate= is one value: a second pl::CostEstimate among the options is a mistake.
#include <pallas/block_view.hpp>
#include <pallas/expr/elementwise.hpp>
#include <pallas/pallas_call.hpp>

namespace pl = pallas;

int main() {
  pl::Array<float, 8, 128> x;
  auto twice = [](auto x_ref, auto o_ref) { o_ref[pl::ellipsis] = x_ref[pl::ellipsis] * 2.0f; };
  pl::CostEstimate const estimate{.flops = 8 * 128, .transcendentals = 0, .bytes_accessed = 2 * 8 * 128 * 4};
#ifdef PALLAS_COMPILE_FAIL
  auto call = pl::pallas_call(twice, pl::like(x), estimate, estimate);
#else
  auto call = pl::pallas_call(twice, pl::like(x), estimate);
#endif
  auto const o = call(x);
  return o(0, 0) == x(0, 0) * 2.0f ? 0 : 1;
}
