// A 1-D 3-tap stencil (moving sum, o[k] = x[k-1] + x[k] + x[k+1]) with pl::Element block
// dims: each grid step reads an input window of 128 + 2 elements that overlaps its
// neighbours' by one element on each side (a halo). The index map returns the window's
// element offset in the array virtually padded by one element at each end,
// `pl::Element(130, {1, 1})`, so the first window starts at element -1 and the last ends
// at element 1024. Padding elements are unspecified (checked mode poisons them), so the
// kernel masks the taps that fall outside the array instead of reading them as 0.
// Checked against a naive loop.

#include <iostream>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

constexpr pl::index_t n = 1024;     // elements of x
constexpr pl::index_t block = 128;  // output elements per grid step

void moving_sum_kernel(auto x_ref, auto o_ref) {
  pl::index_t const first = pl::program_id(0) * block;  // o_ref(0) is o[first]
  for (pl::index_t c = 0; c < block; ++c) {
    // The window starts one element before o_ref's block: x_ref(c + 1) is x[first + c].
    float sum = x_ref(c + 1);
    if (first + c > 0) sum += x_ref(c);
    if (first + c < n - 1) sum += x_ref(c + 2);
    o_ref(c) = sum;
  }
}

}  // namespace

int main() {
  // Small integers: every sum is exact in f32, so the check can ask for equality.
  auto const x = pl::Array<float, n>::generate([](auto k) { return static_cast<float>((k * 37) % 101 - 50); });

  // The windows are 130 elements, not a multiple of 128: not a TPU tile, hence
  // pltpu::no_tiling_check (the unit tests' pl::Element examples do the same).
  auto const o = pl::pallas_call(
      [](auto x_ref, auto o_ref) { moving_sum_kernel(x_ref, o_ref); },
      pl::out_shape<pl::ShapeDtypeStruct<float, n>>, pl::grid<n / block>,
      pl::in_specs(pl::BlockSpec<pl::Element(block + 2, {1, 1})>([](auto i) { return pl::idx(i * block); })),
      pl::out_specs(pl::BlockSpec<block>([](auto i) { return pl::idx(i); })), pltpu::no_tiling_check)(x);

  bool ok = true;
  for (pl::index_t k = 0; k < n; ++k) {
    float expected = x(k);
    if (k > 0) expected += x(k - 1);
    if (k < n - 1) expected += x(k + 1);
    if (o(k) != expected) {
      std::cout << "WRONG at " << k << ": " << o(k) << ", expected " << expected << '\n';
      ok = false;
      break;
    }
  }
  std::cout << "x[0..3]   = " << x(0) << ' ' << x(1) << ' ' << x(2) << ' ' << x(3) << '\n'
            << "o[0..3]   = " << o(0) << ' ' << o(1) << ' ' << o(2) << ' ' << o(3) << '\n'
            << "o[127..129] (across a block edge) = " << o(127) << ' ' << o(128) << ' ' << o(129) << '\n'
            << "o[1023]   = " << o(n - 1) << " (x[1022] + x[1023])\n"
            << (ok ? "ok: the moving sum over padded Element windows matches the loop" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
