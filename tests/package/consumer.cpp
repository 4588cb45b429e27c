// The program of the package consumer projects (find_package, add_subdirectory,
// FetchContent, pkg-config): includes the umbrella header, launches a kernel on every
// core (threads) that computes a pl::dot, and checks the result (and that no race was
// reported on the way: the output is written by one core).
// -DPALLAS_CONSUMER_EXPECT_BLIS=0|1, -DPALLAS_CONSUMER_EXPECT_EIGEN=0|1: the build flags
// must (not) have made BLIS pl::dot's matrix unit, or (not) put Eigen on the include path.
#include <pallas/pallas.hpp>

#include <cstdio>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

#ifdef PALLAS_CONSUMER_EXPECT_EIGEN
static_assert(PALLAS_USE_EIGEN == PALLAS_CONSUMER_EXPECT_EIGEN,
              "consumer: the package's flags did not give the expected Eigen setting");
#endif
#ifdef PALLAS_CONSUMER_EXPECT_BLIS
static_assert(PALLAS_USE_BLIS == PALLAS_CONSUMER_EXPECT_BLIS,
              "consumer: the package's flags did not give the expected BLIS setting");
#endif

int main() {
  auto ones_dot_twos = pl::kernel(
      pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core">>,
      pl::scratch_types<pltpu::VMEM<float, 8, 128>>)([](auto o_ref, auto o_vmem) {
    o_vmem[pl::ellipsis] =
        pl::dot(pl::ones<float, pl::shape<8, 16>>(), pl::full<float, pl::shape<16, 128>>(2.0f));
    // Every core computes; one writes (two cores writing the same bytes would be a race).
    pl::when(pl::axis_index<"core">() == 0, [&] { pltpu::sync_copy(o_vmem, o_ref); });
  });
  pl::Array<float, 8, 128> const o = ones_dot_twos();
  for (float x : o)
    if (x != 32.0f) {  // 16 products of 1 x 2
      std::fprintf(stderr, "consumer: expected 32 everywhere, got %g\n", static_cast<double>(x));
      return 1;
    }
  if (pltpu::races_found()) {
    std::fprintf(stderr, "consumer: the race detector reported a race\n");
    return 1;
  }
  std::printf("consumer: ok (pl::dot on %s)\n",
              PALLAS_USE_BLIS ? "BLIS" : PALLAS_USE_EIGEN ? "Eigen" : "the plain loop");
  return 0;
}
