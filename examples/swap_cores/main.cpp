// The core_map guide's per-core kernel (docs/pallas/tpu/core_map.md, "A simple per-core
// kernel": swap_cores_kernel, and "Save the boilerplate"): every core copies its own slice of
// the input into VMEM, the cores meet at a barrier, each sends its slice to the next core,
// and each writes twice what it received into its own slice of the output.
//
//   def swap_cores_kernel(in_hbm, out_hbm, in_vmem, scratch_vmem, out_vmem, sem, send_sem, recv_sem):
//     core_index = jax.lax.axis_index('core')
//     num_cores = jax.lax.axis_size('core')
//     slc_size = in_hbm.shape[-1] // num_cores
//     slc = pl.ds(core_index * slc_size, slc_size)
//     pltpu.async_copy(in_hbm.at[:, slc], in_vmem, sem).wait()
//     dst_core = (core_index + 1) % num_cores
//     sem0 = pltpu.get_barrier_semaphore()
//     pl.semaphore_signal(sem0, 1, device_id={'core': dst_core})
//     pl.semaphore_wait(sem0, 1)
//     the_copy = pltpu.make_async_remote_copy(in_vmem, scratch_vmem, send_sem, recv_sem,
//                                             device_id={'core': dst_core})
//     the_copy.start()
//     the_copy.wait()
//     out_vmem[...] = scratch_vmem[...] * 2
//     pltpu.async_copy(out_vmem, out_hbm.at[:, slc], sem).wait()
//
// Where this port differs, and why:
// - pallas-cpp has no make_async_remote_copy (no DMA into another core's VMEM) and no
//   get_barrier_semaphore (no collective_id). The cores of a device share HBM, so the
//   message travels through it: the sender copies its slice into the receiver's slice of the
//   output (the receiver's mailbox, which it overwrites only after reading it) and signals the
//   receiver's recv semaphore (a REGULAR semaphore); the receiver waits on it, then copies its
//   mailbox into scratch_vmem. The barrier semaphore is a REGULAR semaphore of the scratch
//   (or of run_scoped), which has the same id on every core, as Pallas' barrier semaphore.
// - jax.shard_map over 4 devices is not modelled: this is one device, whose shard of the
//   guide's (32, 256) input is (8, 128 * cores).
//
// Run on 1, 2 and 4 cores, with pl::run_scoped allocating the scratch (the guide's core_map
// form) and with pl::kernel's scratch_types (its "save the boilerplate" form); compared with a
// loop: out[:, slice c] == 2 * x[:, slice c - 1]. In checked mode it also shows why the
// receiver must wait: without the wait the race detector reports the mailbox read racing the
// sender's write (pl::race_error).

#include <iostream>
#include <string>

#include <pallas/pallas.hpp>

namespace pl = pallas;
namespace pltpu = pallas::tpu;

constexpr pl::index_t rows = 32 / 4;  // the guide's rows on one of its 4 devices
constexpr pl::index_t slc_size = 128;

// Runs on every core. With WaitForMessage false, the receiver reads its mailbox without
// waiting for the sender's signal: the bug the recv semaphore prevents.
template <bool WaitForMessage = true>
auto swap_cores_kernel = [](auto in_hbm, auto out_hbm, auto in_vmem, auto scratch_vmem, auto out_vmem, auto sem,
                            auto barrier_sem, auto recv_sem) {
  auto const core_index = pl::axis_index<"core">();
  auto const num_cores = pl::axis_size<"core">();
  auto const slc = pl::ds<slc_size>(core_index * slc_size);

  // Copy in a core-dependent slice of the input.
  pltpu::async_copy(in_hbm.at(pl::full_extent, slc), in_vmem, sem).wait();

  // A barrier: every core has entered the kernel (and allocated its scratch).
  auto const dst_core = (core_index + 1) % num_cores;
  pl::semaphore_signal(barrier_sem, 1, dst_core);
  pl::semaphore_wait(barrier_sem, 1);

  // Send in_vmem to dst_core (the remote copy's start): into its mailbox, then signal it.
  pltpu::sync_copy(in_vmem, out_hbm.at(pl::full_extent, pl::ds<slc_size>(dst_core * slc_size)));
  pl::semaphore_signal(recv_sem, 1, dst_core);
  // Receive (the remote copy's wait): the previous core's slice is in our mailbox.
  if constexpr (WaitForMessage) pl::semaphore_wait(recv_sem, 1);
  pltpu::sync_copy(out_hbm.at(pl::full_extent, slc), scratch_vmem);

  // Core-local compute.
  out_vmem[pl::ellipsis] = scratch_vmem[pl::ellipsis] * 2;

  // Copy out the output.
  pltpu::async_copy(out_vmem, out_hbm.at(pl::full_extent, slc), sem).wait();
  if constexpr (!WaitForMessage) pl::semaphore_wait(recv_sem, 1);  // semaphores end at zero
};

using local_vmem = pltpu::VMEM<float, rows, slc_size>;

// The guide's core_map + run_scoped form: the kernel allocates its per-core scratch.
template <int Cores, bool WaitForMessage = true, class X>
X swap_cores_run_scoped(X const& x) {
  auto kernel = pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>)([](auto x_hbm, auto o_hbm) {
    pl::run_scoped(
        [&](auto in_vmem, auto scratch_vmem, auto out_vmem, auto sem, auto barrier_sem, auto recv_sem) {
          swap_cores_kernel<WaitForMessage>(x_hbm, o_hbm, in_vmem, scratch_vmem, out_vmem, sem, barrier_sem,
                                            recv_sem);
        },
        local_vmem{}, local_vmem{}, local_vmem{}, pltpu::SemaphoreType::DMA<>{}, pltpu::SemaphoreType::REGULAR<>{},
        pltpu::SemaphoreType::REGULAR<>{});
  });
  return kernel(x);
}

// The guide's "save the boilerplate" form: pl::kernel allocates the scratch.
template <int Cores, class X>
X swap_cores_scratch(X const& x) {
  return pl::kernel(pl::like(x), pl::mesh<pltpu::TensorCoreMesh<"core", Cores>>,
                    pl::scratch_types<local_vmem, local_vmem, local_vmem, pltpu::SemaphoreType::DMA<>,
                                      pltpu::SemaphoreType::REGULAR<>, pltpu::SemaphoreType::REGULAR<>>)(
      swap_cores_kernel<true>)(x);
}

template <int Cores>
bool check(std::string const& form) {
  using X = pl::Array<float, rows, slc_size * Cores>;
  auto const x = X::generate([](auto i, auto j) { return static_cast<float>(i * 1000 + j) * 0.5f - 7.0f; });
  auto const y = form == "run_scoped" ? swap_cores_run_scoped<Cores>(x) : swap_cores_scratch<Cores>(x);
  for (pl::index_t i = 0; i < rows; ++i)
    for (pl::index_t j = 0; j < slc_size * Cores; ++j) {
      pl::index_t const core = j / slc_size, from = (core + Cores - 1) % Cores;
      float const expected = 2 * x(i, from * slc_size + j % slc_size);
      if (y(i, j) != expected) {
        std::cerr << "swap_cores (" << Cores << " cores, " << form << "): y[" << i << ", " << j << "] is " << y(i, j)
                  << ", expected " << expected << '\n';
        return false;
      }
    }
  std::cout << "swap_cores (" << Cores << " cores, " << form << "): ok, y[:, slice c] == 2 * x[:, slice c - 1]\n";
  return true;
}

int main() {
  bool ok = true;
  for (std::string form : {"run_scoped", "scratch_types"}) {
    ok &= check<1>(form);
    ok &= check<2>(form);
    ok &= check<4>(form);
  }

#if PALLAS_CHECKED
  // Without the receive's wait, the mailbox read races the sender's write.
  {
    pltpu::scoped_interpret_params throwing({.detect_races = pltpu::race_detection::throw_error});
    auto const x = pl::Array<float, rows, slc_size * 2>::full(1.0f);
    try {
      (void)swap_cores_run_scoped<2, false>(x);
      std::cerr << "swap_cores: reading the mailbox without waiting was not reported as a race\n";
      ok = false;
    } catch (pl::race_error const& e) {
      std::cout << "swap_cores without the wait: the race detector reports\n  " << e.what() << '\n';
    }
  }
#endif
  return ok ? 0 : 1;
}
