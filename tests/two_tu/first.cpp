// Two translation units that both include the whole library link into one program:
// everything in the headers is inline or a template (DESIGN.md §10), or, under separate
// compilation (link.two_translation_units.separate), defined once in the runtime's TU; the
// process-wide device is one object, whichever TU launches a kernel.
#include <pallas/pallas.hpp>

#include <cstdio>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

pl::index_t size_from_second_tu();
pl::detail::device* device_from_second_tu();
float launch_from_second_tu();  // runs a 2-core kernel there; returns its sum

namespace {
float launch_here() {
  auto const out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 256>>,
                              pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                              pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto o_ref, auto v) {
    auto const i = pl::axis_index<"core">();
    v[pl::ellipsis] = pl::full_like(v, 1.0f) + static_cast<float>(i);
    pltpu::sync_copy(v, o_ref.at(pl::ds<128>(i * 128)));
  })();
  float sum = 0;
  for (float x : out) sum += x;
  return sum;
}
}  // namespace

int main() {
  int status = 0;
  pl::index_t const here = pl::shape<pl::dyn, 4>(3).size();
  pl::index_t const there = size_from_second_tu();
  if (here != 12 || there != 12) {
    std::fprintf(stderr, "two_tu: expected 12 and 12, got %lld and %lld\n",
                 static_cast<long long>(here), static_cast<long long>(there));
    status = 1;
  }
  // Kernels from both TUs, alternating, on the same device and its threads.
  float const expected_here = 128 * 1.0f + 128 * 2.0f;
  float const expected_there = 128 * 42.0f * 2;
  for (int round = 0; round < 3; ++round) {
    float const a = launch_here();
    float const b = launch_from_second_tu();
    if (a != expected_here || b != expected_there) {
      std::fprintf(stderr, "two_tu: kernel sums %g and %g, expected %g and %g\n", a, b, expected_here,
                   expected_there);
      status = 1;
    }
  }
  if (&pl::detail::device::instance() != device_from_second_tu()) {
    std::fprintf(stderr, "two_tu: each translation unit has its own device\n");
    status = 1;
  }
  if (pl::detail::device::instance().num_threads() != 2) {
    std::fprintf(stderr, "two_tu: the device has %d threads, expected 2\n",
                 pl::detail::device::instance().num_threads());
    status = 1;
  }
  if (status == 0) std::puts("two_tu: ok");
  return status;
}
