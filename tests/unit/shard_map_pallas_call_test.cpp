// A pl::pallas_call as the per-chip function of pl::shard_map (a pallas_call inside
// jax.shard_map): each chip's cores run the call's grid, BlockSpecs pipelined through the
// chip's VMEM, on that chip's shards; against a naive reference on 2 and 4 chips, in the
// plain form and with PartitionSpecs.
#include <pallas/pallas.hpp>

#include <vector>

#include <catch2/catch.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

/// (16, 256) shards in (8, 128) blocks: o = 2 * x + y, plus 0.5 on the block at grid (1, 1),
/// with a VMEM scratch in between; the grid split among each chip's `Cores` cores.
template <int Cores = 1>
auto axpy_call() {
  auto ij = [](auto i, auto j) { return pl::idx(i, j); };
  return pl::pallas_call(
      [](auto x, auto y, auto o, auto tmp) {
        tmp[pl::ellipsis] = x[pl::ellipsis] * 2.0f;
        o[pl::ellipsis] = tmp[pl::ellipsis] + y[pl::ellipsis];
        pl::when(pl::program_id(0) == 1 && pl::program_id(1) == 1, [&] { o[pl::ellipsis] += 0.5f; });
      },
      pl::out_shape<pl::ShapeDtypeStruct<float, 16, 256>>, pl::grid<2, 2>,
      pl::in_specs(pl::BlockSpec<8, 128>(ij), pl::BlockSpec<8, 128>(ij)), pl::out_specs(pl::BlockSpec<8, 128>(ij)),
      pl::scratch_shapes<pltpu::VMEM<float, 8, 128>>, pltpu::num_cores<Cores>,
      pltpu::dimension_semantics<pltpu::PARALLEL, pltpu::ARBITRARY>);
}

float expected(float x, float y, pl::index_t i, pl::index_t j) {
  return 2.0f * x + y + ((i % 16) >= 8 && j >= 128 ? 0.5f : 0.0f);
}

template <int N, int Cores = 1>
void check_plain() {
  std::vector<pl::Array<float, 16, 256>> xs(N), ys(N);
  for (std::size_t c = 0; c < N; ++c)
    for (pl::index_t k = 0; k < xs[c].size(); ++k) {
      xs[c].data()[k] = static_cast<float>((k * 13 + static_cast<pl::index_t>(c) * 101) % 97);
      ys[c].data()[k] = static_cast<float>(c) - 1.0f;
    }
  auto const os = pl::shard_map<pl::device_mesh<"x", N>>(axpy_call<Cores>())(xs, ys);
  REQUIRE(os.size() == N);
  for (std::size_t c = 0; c < N; ++c)
    for (pl::index_t i = 0; i < 16; ++i)
      for (pl::index_t j = 0; j < 256; ++j) REQUIRE(os[c](i, j) == expected(xs[c](i, j), ys[c](i, j), i, j));
}

}  // namespace

TEST_CASE("shard_map: a pallas_call runs its grid on every chip's shards, 2 and 4 chips", "[device_mesh]") {
  check_plain<2>();
  check_plain<4>();
  check_plain<2, 2>();  // two cores per chip share each chip's grid
}

TEST_CASE("shard_map: a pallas_call per chip with PartitionSpecs", "[device_mesh]") {
  pl::Array<float, 64, 256> x, y;
  for (pl::index_t k = 0; k < x.size(); ++k) {
    x.data()[k] = static_cast<float>((k * 7) % 89);
    y.data()[k] = static_cast<float>(k % 5);
  }
  using spec = pl::P<"x">;
  auto const o = pl::shard_map<pl::device_mesh<"x", 4>>(axpy_call(), pl::shard_in_specs<spec, spec>,
                                                        pl::shard_out_specs<spec>)(x, y);
  for (pl::index_t i = 0; i < 64; ++i)
    for (pl::index_t j = 0; j < 256; ++j) REQUIRE(o(i, j) == expected(x(i, j), y(i, j), i, j));
}
