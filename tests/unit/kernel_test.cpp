// pl::kernel on the device: the quickstart's fill_42 and iota (on 1, 2, 4 cores and on
// every chip), inputs, several outputs, per-core scratch (VMEM and SMEM, poisoned in
// checked mode), errors inside kernels (rethrown, the device stays usable and keeps its
// threads), axis names, program_id without a grid, sync_copy extent checks. References are
// naive loops over the expected values.
#include <pallas/pallas.hpp>

#include <catch2/catch.hpp>

#include "../support/error_of.hpp"

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

namespace {

using pallas_test::error_of;

int device_threads() { return pl::detail::device::instance().num_threads(); }

/// The quickstart's fill_42: every core fills its VMEM buffer with 42 and copies it out.
auto make_fill_42() {
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>,
                    pl::mesh<pltpu::TensorCoreMesh<"core">>,
                    pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto o_ref, auto o_vmem) {
    o_vmem[pl::ellipsis] = pl::full_like(o_vmem, 42.0f);
    pltpu::sync_copy(o_vmem, o_ref);
  });
}

/// The quickstart's iota on Mesh: core i writes i * 128 + [0, 128) to its slice.
template <class Mesh>
pl::Array<float, 128 * Mesh::num_cores> iota() {
  return pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128 * Mesh::num_cores>>, pl::mesh<Mesh>,
                    pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto o_ref, auto o_vmem) {
    auto const i = pl::axis_index<"core">();
    o_vmem[pl::ellipsis] = pl::arange<float, 128>() + i * 128;
    pltpu::sync_copy(o_vmem, o_ref.at(pl::ds<128>(i * 128)));
  })();
}

template <class A>
bool is_iota(A const& a) {
  for (pl::index_t k = 0; k < a.size(); ++k)
    if (a.data()[k] != static_cast<float>(k)) return false;
  return true;
}

/// A kernel on N cores whose core `bad` throws std::runtime_error; the others copy 1s out.
template <int N>
void launch_throwing_on(int bad) {
  pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128 * N>>, pl::mesh<pltpu::TensorCoreMesh<"core", N>>,
             pl::scratch_types<pltpu::VMEM<float, 128>>)([bad](auto o_ref, auto v) {
    auto const i = pl::axis_index<"core">();
    if (i == bad) throw std::runtime_error("boom on core " + std::to_string(i));
    v[pl::ellipsis] = pl::ones_like(v);
    pltpu::sync_copy(v, o_ref.at(pl::ds<128>(i * 128)));
  })();
}

}  // namespace

TEST_CASE("kernel: fill_42 returns 128 x 42.0", "[kernel]") {
  auto const fill_42 = make_fill_42();
  pl::Array<float, 128> const result = fill_42();
  CHECK(result.size() == 128);
  for (float x : result) CHECK(x == 42.0f);
  // Again, on the same callable: launches are repeatable.
  CHECK(fill_42() == pl::Array<float, 128>::full(42.0f));
}

TEST_CASE("kernel: iota on 1, 2 and 4 cores", "[kernel]") {
  auto const one = iota<pltpu::TensorCoreMesh<"core", 1>>();
  STATIC_REQUIRE(std::is_same_v<decltype(one), pl::Array<float, 128> const>);
  CHECK(is_iota(one));
  auto const two = iota<pltpu::TensorCoreMesh<"core", 2>>();
  CHECK(two.size() == 256);
  CHECK(is_iota(two));
  auto const four = iota<pltpu::TensorCoreMesh<"core", 4>>();
  CHECK(four.size() == 512);
  CHECK(is_iota(four));
  // The default mesh uses get_tpu_info().num_cores, as the quickstart does.
  constexpr auto info = pltpu::get_tpu_info();
  auto const by_info = iota<pltpu::TensorCoreMesh<"core">>();
  CHECK(by_info.size() == 128 * info.num_cores);
  CHECK(is_iota(by_info));
}

TEST_CASE("kernel: iota on every chip, with the chip's core count", "[kernel]") {
  auto const v4 = iota<pltpu::TensorCoreMesh<"core", 0, pltpu::ChipVersion::TPU_V4>>();
  auto const v5e = iota<pltpu::TensorCoreMesh<"core", 0, pltpu::ChipVersion::TPU_V5E>>();
  auto const v5p = iota<pltpu::TensorCoreMesh<"core", 0, pltpu::ChipVersion::TPU_V5P>>();
  auto const v6e = iota<pltpu::TensorCoreMesh<"core", 0, pltpu::ChipVersion::TPU_V6E>>();
  auto const v7x = iota<pltpu::TensorCoreMesh<"core", 0, pltpu::ChipVersion::TPU_7X>>();
  CHECK(v4.size() == 128 * pltpu::get_tpu_info_for_chip(pltpu::ChipVersion::TPU_V4).num_cores);
  CHECK(v5e.size() == 128 * pltpu::get_tpu_info_for_chip(pltpu::ChipVersion::TPU_V5E).num_cores);
  CHECK(v5p.size() == 128 * pltpu::get_tpu_info_for_chip(pltpu::ChipVersion::TPU_V5P).num_cores);
  CHECK(v6e.size() == 128 * pltpu::get_tpu_info_for_chip(pltpu::ChipVersion::TPU_V6E).num_cores);
  CHECK(v7x.size() == 128 * pltpu::get_tpu_info_for_chip(pltpu::ChipVersion::TPU_7X).num_cores);
  CHECK(is_iota(v4));
  CHECK(is_iota(v5e));
  CHECK(is_iota(v5p));
  CHECK(is_iota(v6e));
  CHECK(is_iota(v7x));
}

TEST_CASE("kernel: a chip's VMEM capacity is enforced per launch", "[kernel]") {
  // v4 has 16 MiB of VMEM per core: 12 MiB of scratch fits; on v5p 48 MiB fits.
  auto const v4 = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8>>,
                             pl::mesh<pltpu::TensorCoreMesh<"core", 1, pltpu::ChipVersion::TPU_V4>>,
                             pl::scratch_types<pltpu::VMEM<float, 3 * 1024 * 1024>, pltpu::VMEM<float, 8>>)(
      [](auto o_ref, auto big, auto small) {
        big(3 * 1024 * 1024 - 1) = 5.0f;  // the last element is usable
        for (pl::index_t k = 0; k < 8; ++k) small(k) = big(3 * 1024 * 1024 - 1);
        pltpu::sync_copy(small, o_ref);
      })();
  CHECK(v4 == pl::Array<float, 8>::full(5.0f));
  auto const v5p = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 2 * 8>>,
                              pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                              pl::scratch_types<pltpu::VMEM<float, 12 * 1024 * 1024>>)([](auto o_ref, auto big) {
    auto const tail = big.at(pl::ds<8>(12 * 1024 * 1024 - 8));
    tail[pl::ellipsis] = pl::full_like(tail, 6.0f);
    pltpu::sync_copy(tail, o_ref.at(pl::ds<8>(pl::axis_index<"core">() * 8)));
  })();
  CHECK(v5p == pl::Array<float, 16>::full(6.0f));
}

TEST_CASE("kernel: inputs are passed as HBM refs, before the outputs", "[kernel]") {
  auto const x = pl::Array<float, 256>::generate([](pl::index_t k) { return static_cast<float>(k); });
  auto const y = pl::Array<float, 256>::generate([](pl::index_t k) { return 1000.0f - 2.0f * static_cast<float>(k); });
  auto const add = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                              pl::scratch_types<pltpu::VMEM<float, 128>, pltpu::VMEM<float, 128>>)(
      [](auto x_ref, auto y_ref, auto o_ref, auto x_vmem, auto y_vmem) {
        static_assert(decltype(x_ref)::space == pl::memory_space::hbm);
        auto const i = pl::axis_index<"core">();
        pltpu::sync_copy(x_ref.at(pl::ds<128>(i * 128)), x_vmem);
        pltpu::sync_copy(y_ref.at(pl::ds<128>(i * 128)), y_vmem);
        x_vmem[pl::ellipsis] = x_vmem[pl::ellipsis] + y_vmem[pl::ellipsis];
        pltpu::sync_copy(x_vmem, o_ref.at(pl::ds<128>(i * 128)));
      });
  auto const out = add(x, y);
  for (pl::index_t k = 0; k < 256; ++k) CHECK(out(k) == x(k) + y(k));
  // The inputs are unchanged.
  CHECK(x(255) == 255.0f);
}

TEST_CASE("kernel: inputs and outputs with run-time extents", "[kernel]") {
  pl::index_t const n = 4 * 128;
  auto const x = pl::Array<float, pl::dyn>::generate([](pl::index_t k) { return static_cast<float>(k % 7); }, n);
  auto const twice = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", 4>>,
                                pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto x_ref, auto o_ref, auto v) {
    auto const i = pl::axis_index<"core">();
    pltpu::sync_copy(x_ref.at(pl::ds<128>(i * 128)), v);
    v[pl::ellipsis] = v[pl::ellipsis] * 2.0f;
    pltpu::sync_copy(v, o_ref.at(pl::ds<128>(i * 128)));
  })(x);
  STATIC_REQUIRE(std::is_same_v<decltype(twice), pl::Array<float, pl::dyn> const>);
  REQUIRE(twice.size() == n);
  for (pl::index_t k = 0; k < n; ++k) CHECK(twice(k) == 2.0f * static_cast<float>(k % 7));
}

TEST_CASE("kernel: several outputs come back as a tuple", "[kernel]") {
  auto const k = pl::kernel(pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,  // options in any order
                            pl::scratch_types<pltpu::VMEM<float, 128>, pltpu::SMEM<std::int32_t, 4>>,
                            pl::out_type<pl::ShapeDtypeStruct<float, 256>, pl::ShapeDtypeStruct<std::int32_t, 8>>)(
      [](auto f_ref, auto i_ref, auto v, auto s) {
        auto const i = pl::axis_index<"core">();
        v[pl::ellipsis] = pl::full_like(v, 0.5f) + static_cast<float>(i);
        pltpu::sync_copy(v, f_ref.at(pl::ds<128>(i * 128)));
        for (pl::index_t j = 0; j < 4; ++j) s[j] = static_cast<std::int32_t>(10 * i + j);
        pltpu::sync_copy(s, i_ref.at(pl::ds<4>(i * 4)));
      });
  auto [floats, ints] = k();
  STATIC_REQUIRE(std::is_same_v<decltype(floats), pl::Array<float, 256>>);
  STATIC_REQUIRE(std::is_same_v<decltype(ints), pl::Array<std::int32_t, 8>>);
  for (pl::index_t j = 0; j < 256; ++j) CHECK(floats(j) == (j < 128 ? 0.5f : 1.5f));
  for (pl::index_t j = 0; j < 8; ++j) CHECK(ints(j) == 10 * (j / 4) + j % 4);

  // ShapeDtypeStruct values as options, as pl::kernel(out_type=(a, b)) with .like.
  pl::Array<float, 2, 128> const like_me;
  auto const t = pl::kernel(pl::like(like_me), pl::ShapeDtypeStruct<std::int32_t, pl::dyn>(3),
                            pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                            pl::scratch_types<pltpu::VMEM<float, 2, 128>, pltpu::SMEM<std::int32_t, 3>>)(
      [](auto a_ref, auto b_ref, auto v, auto s) {
        v[pl::ellipsis] = pl::zeros_like(v);
        pltpu::sync_copy(v, a_ref);
        for (pl::index_t j = 0; j < 3; ++j) s[j] = 7;
        pltpu::sync_copy(s, b_ref);
      })();
  STATIC_REQUIRE(std::tuple_size_v<std::remove_cvref_t<decltype(t)>> == 2);
  CHECK(std::get<0>(t) == pl::Array<float, 2, 128>{});
  CHECK(std::get<1>(t) == pl::Array<std::int32_t, pl::dyn>::full(7, 3));
}

TEST_CASE("kernel: a body with explicit parameter types", "[kernel]") {
  using out_ref = pl::Ref<float, pl::shape<128>, pl::memory_space::hbm>;
  using vmem_ref = pl::Ref<float, pl::shape<128>, pl::memory_space::vmem>;
  auto const out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>,
                              pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                              pl::scratch_types<pltpu::VMEM<float, 128>>)([](out_ref o, vmem_ref v) {
    for (pl::index_t k = 0; k < 128; ++k) v(k) = static_cast<float>(3 * k);
    pltpu::sync_copy(v, o);
  })();
  for (pl::index_t k = 0; k < 128; ++k) CHECK(out(k) == static_cast<float>(3 * k));
}

TEST_CASE("kernel: an exception on one core reaches the caller, the device stays usable", "[kernel]") {
  (void)iota<pltpu::TensorCoreMesh<"core", 4>>();  // the device has at least 4 threads now
  int const threads = device_threads();
  REQUIRE(threads >= 4);

  auto once = [&]<int N>(std::integral_constant<int, N>, int bad) {
    INFO(N << " cores, core " << bad << " throws");
    auto const msg = error_of<std::runtime_error>([&] { launch_throwing_on<N>(bad); });
    CHECK(msg == "boom on core " + std::to_string(bad));
    // The next launch on the same cores works.
    CHECK(is_iota(iota<pltpu::TensorCoreMesh<"core", N>>()));
    CHECK(device_threads() == threads);
  };
  once(std::integral_constant<int, 1>{}, 0);
  once(std::integral_constant<int, 2>{}, 0);
  once(std::integral_constant<int, 2>{}, 1);
  once(std::integral_constant<int, 4>{}, 3);
  once(std::integral_constant<int, 4>{}, 1);
  for (int round = 0; round < 20; ++round) once(std::integral_constant<int, 4>{}, round % 4);
  CHECK(device_threads() == threads);
}

TEST_CASE("kernel: when every core throws, one exception arrives", "[kernel]") {
  int const threads = device_threads();
  for (int round = 0; round < 10; ++round) {
    CHECK_THROWS_AS(pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8>>, pl::mesh<pltpu::TensorCoreMesh<"core", 4>>)(
                        [](auto) { throw std::logic_error("every core"); })(),
                    std::logic_error);
  }
  CHECK(is_iota(iota<pltpu::TensorCoreMesh<"core", 4>>()));
  CHECK(device_threads() == std::max(threads, 4));
}

TEST_CASE("kernel: library errors inside a kernel name the core", "[kernel]") {
  auto const msg = error_of<pl::index_error>([] {
    pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 256>>, pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
               pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto o_ref, auto v) {
      auto const i = pl::axis_index<"core">();
      v[pl::ellipsis] = pl::zeros_like(v);
      // Core 1 gets the offset wrong: [256, 384) leaves the output.
      pltpu::sync_copy(v, o_ref.at(pl::ds<128>(i * 256)));
    })();
  });
  CHECK_THAT(msg, Catch::Contains("offset 256"));
  CHECK_THAT(msg, Catch::Contains("extent 256"));
  CHECK_THAT(msg, Catch::Contains("core 1"));
}

TEST_CASE("kernel: an axis name the mesh lacks is an error naming it", "[kernel]") {
  auto const msg = error_of<pl::error>([] {
    pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8>>, pl::mesh<pltpu::TensorCoreMesh<"core", 2>>)(
        [](auto) { (void)pl::axis_index<"x">(); })();
  });
  CHECK_THAT(msg, Catch::Contains("'x'"));
  CHECK_THAT(msg, Catch::Contains("'core'"));
  CHECK_THROWS_AS(pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8>>, pl::mesh<pltpu::TensorCoreMesh<"x", 1>>)(
                      [](auto) { (void)pl::axis_size<"core">(); })(),
                  pl::error);
  CHECK(is_iota(iota<pltpu::TensorCoreMesh<"core", 2>>()));
}

TEST_CASE("kernel: scratch buffers are per core", "[kernel]") {
  constexpr int n = 4;
  std::atomic<int> written{0};
  std::array<std::atomic<std::uintptr_t>, n> where{};
  auto const out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<std::int32_t, 128 * n>>,
                              pl::mesh<pltpu::TensorCoreMesh<"core", n>>,
                              pl::scratch_types<pltpu::VMEM<std::int32_t, 128>>)([&](auto o_ref, auto mine) {
    auto const i = pl::axis_index<"core">();
    where[static_cast<std::size_t>(i)] = reinterpret_cast<std::uintptr_t>(mine.data());
    mine[pl::ellipsis] = pl::full_like(mine, static_cast<std::int32_t>(i));
    // Wait until every core has written its own buffer, then copy it out: a shared buffer
    // would now hold one core's id everywhere.
    written.fetch_add(1);
    while (written.load() < n) std::this_thread::yield();
    pltpu::sync_copy(mine, o_ref.at(pl::ds<128>(i * 128)));
  })();
  for (pl::index_t k = 0; k < 128 * n; ++k) CHECK(out(k) == k / 128);
  // Four different buffers, none overlapping another.
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b) {
      std::uintptr_t const pa = where[a], pb = where[b];
      CHECK((pa + 128 * sizeof(std::int32_t) <= pb || pb + 128 * sizeof(std::int32_t) <= pa));
    }
}

TEST_CASE("kernel: SMEM scratch takes scalar loads and stores", "[kernel]") {
  auto const out = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<std::int32_t, 2 * 8>>,
                              pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                              pl::scratch_types<pltpu::SMEM<std::int32_t, 8>, pltpu::SMEM<float, 2, 4>>)(
      [](auto o_ref, auto s, auto t) {
        auto const i = pl::axis_index<"core">();
        for (pl::index_t k = 0; k < 8; ++k) s[k] = static_cast<std::int32_t>(k * (i + 1));
        t(1, 2) = 2.5f;
        // Read back through both spellings and combine.
        std::int32_t sum = 0;
        for (pl::index_t k = 0; k < 8; ++k) sum += s(k);
        s[7] = sum + static_cast<std::int32_t>(t(1, 2) * 2.0f);
        pltpu::sync_copy(s, o_ref.at(pl::ds<8>(i * 8)));
      })();
  for (pl::index_t c = 0; c < 2; ++c) {
    for (pl::index_t k = 0; k < 7; ++k) CHECK(out(c * 8 + k) == k * (c + 1));
    CHECK(out(c * 8 + 7) == 28 * (c + 1) + 5);
  }
}

TEST_CASE("kernel: scratch and outputs start poisoned in checked mode", "[kernel]") {
  STATIC_REQUIRE(pl::checked_mode);
  // Launch 1 writes 7s into its scratch; launch 2 copies its scratch out unwritten: it is
  // poisoned again, not left over.
  auto const seven = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                                pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto o_ref, auto v) {
    v[pl::ellipsis] = pl::full_like(v, 7.0f);
    pltpu::sync_copy(v, o_ref);
  })();
  CHECK(seven == pl::Array<float, 128>::full(7.0f));
  auto const [vmem, smem] =
      pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>, pl::ShapeDtypeStruct<std::int32_t, 8>>,
                 pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                 pl::scratch_types<pltpu::VMEM<float, 128>, pltpu::SMEM<std::int32_t, 8>>)(
          [](auto f_ref, auto i_ref, auto v, auto s) {
            pltpu::sync_copy(v, f_ref);
            pltpu::sync_copy(s, i_ref);
          })();
  for (float x : vmem) CHECK(std::isnan(x));
  for (std::int32_t x : smem) CHECK(x == std::numeric_limits<std::int32_t>::min());

  // Output elements no core writes are poisoned too.
  auto const half = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 256>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                               pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto o_ref, auto v) {
    v[pl::ellipsis] = pl::zeros_like(v);
    pltpu::sync_copy(v, o_ref.at(pl::ds<128>(pl::c<0>)));
  })();
  for (pl::index_t k = 0; k < 256; ++k) CHECK((k < 128 ? half(k) == 0.0f : std::isnan(half(k))));
}

TEST_CASE("program_id and axis_index outside their context are errors", "[kernel]") {
  auto const in_kernel = error_of<pl::error>([] {
    pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8>>, pl::mesh<pltpu::TensorCoreMesh<"core", 2>>)(
        [](auto) { (void)pl::program_id(0); })();
  });
  CHECK_THAT(in_kernel, Catch::Contains("program_id"));
  CHECK_THAT(in_kernel, Catch::Contains("no grid"));
  CHECK_THROWS_AS(pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)(
                      [](auto) { (void)pl::num_programs(0); })(),
                  pl::error);

  auto const outside = error_of<pl::error>([] { (void)pl::program_id(0); });
  CHECK_THAT(outside, Catch::Contains("outside a kernel"));
  CHECK_THROWS_AS(pl::axis_index<"core">(), pl::error);
  CHECK_THROWS_AS(pl::axis_size<"core">(), pl::error);
}

TEST_CASE("sync_copy: run-time extents that differ are a shape_error", "[kernel]") {
  pl::Array<float, pl::dyn> const x(100);
  auto const msg = error_of<pl::shape_error>([&] {
    pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
               pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto x_ref, auto o_ref, auto v) {
      pltpu::sync_copy(x_ref, v);  // (100,) into (128,)
      pltpu::sync_copy(v, o_ref);
    })(x);
  });
  CHECK_THAT(msg, Catch::Contains("(100,)"));
  CHECK_THAT(msg, Catch::Contains("(128,)"));
  CHECK_THAT(msg, Catch::Contains("dimension 0"));

  // Run-time slices of static refs: 2-D, the second dimension differs.
  CHECK_THROWS_AS(pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 2>>,
                             pl::scratch_types<pltpu::VMEM<float, 8, 128>>)([](auto o_ref, auto v) {
                    pltpu::sync_copy(v.at(pl::full_extent, pl::ds(0, 64)), o_ref.at(pl::full_extent, pl::ds(0, 32)));
                  })(),
                  pl::shape_error);
  // Matching run-time extents copy.
  auto const ok = pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 128>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>,
                             pl::scratch_types<pltpu::VMEM<float, 128>>)([](auto o_ref, auto v) {
    v[pl::ellipsis] = pl::full_like(v, 3.0f);
    pltpu::sync_copy(v.at(pl::ds(0, 100)), o_ref.at(pl::ds(28, 100)));
    pltpu::sync_copy(v.at(pl::ds<28>(0)), o_ref.at(pl::ds<28>(0)));
  })();
  CHECK(ok == pl::Array<float, 128>::full(3.0f));
}

TEST_CASE("kernel: launching from inside a kernel is an error", "[kernel]") {
  auto const msg = error_of<pl::error>([] {
    pl::kernel(pl::out_type<pl::ShapeDtypeStruct<float, 8>>, pl::mesh<pltpu::TensorCoreMesh<"core", 1>>)([](auto) {
      (void)make_fill_42()();
    })();
  });
  CHECK_THAT(msg, Catch::Contains("inside a kernel"));
}

TEST_CASE("kernel: many launches back to back, and from several host threads", "[kernel]") {
  int const threads = device_threads();
  int const spares = pl::detail::device::instance().num_spare_sets();
  for (int k = 0; k < 200; ++k) REQUIRE(is_iota(iota<pltpu::TensorCoreMesh<"core", 2>>()));
  // Launches from two host threads are serialized by the device.
  std::atomic<int> wrong{0};
  auto caller = [&] {
    for (int k = 0; k < 50; ++k) {
      if (!is_iota(iota<pltpu::TensorCoreMesh<"core", 2>>())) ++wrong;
      if (!is_iota(iota<pltpu::TensorCoreMesh<"core", 1>>())) ++wrong;
    }
  };
  {
    std::jthread a(caller);
    std::jthread b(caller);
  }
  CHECK(wrong == 0);
  // The threads persist: the primary set has 2 cores now; a launch that waited more than
  // device::spill_after for it (on a loaded machine) ran on a spare set, of which two
  // callers need at most one more, with at most 2 cores each.
  int const spares_now = pl::detail::device::instance().num_spare_sets();
  CHECK(spares_now <= spares + 1);
  CHECK(device_threads() <= std::max(threads, 2) + 2 * spares_now);
  CHECK(device_threads() >= 2);
}
