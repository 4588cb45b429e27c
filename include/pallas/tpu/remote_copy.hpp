// SPDX-License-Identifier: Apache-2.0
#pragma once
// Remote DMAs between the chips of a pl::shard_map launch (tpu/shard_map.hpp):
//
//   auto c = pltpu::make_async_remote_copy(src, dst, send_sem, recv_sem, {right}, pltpu::DeviceIdType::MESH);
//   c.start(); c.wait_send(); c.wait_recv();    // or c.wait(): both
//   pl::semaphore_signal(sem, 1, {{"x", right}}, pltpu::DeviceIdType::MESH);   // on another chip
//
// `src` is local; `dst` names a buffer of this kernel (an operand, scratch, or run_scoped
// buffer), and the copy writes the same buffer on the target chip, at the same offset:
// buffers are allocated identically on every chip. The target core is the sender's own
// core index on the target chip, unless the device id names the core axis. `send_sem` is
// signaled on the sender once the bytes have been read, `recv_sem` on the receiver once
// they have been written, each with the byte count; a chip that only receives waits with
// an identical descriptor's wait_recv().
//
// Device ids (DeviceIdType::MESH, the default in Pallas): a coordinate per mesh axis
// (`{i}`, `{i, j}`; a bare `i` on a 1-D mesh), or axis names with coordinates
// (`{{"x", i}}`; the axes not named keep the caller's coordinate; the core axis may be
// named). DeviceIdType::LOGICAL: the chip's index (row-major over the axes).
//
// When the bytes move follows the DMA order (pltpu::dma_schedule): eager at start();
// on_wait at the first wait on either semaphore, on either chip; random: at start or
// later, as the seed says. Checked mode: the receiving core reading or writing the
// destination between the start and its wait_recv is a pallas::race_error naming both
// chips; a copy neither chip waited for is a pallas::leak_error.

#include <cstdint>
#include <initializer_list>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <pallas/config.hpp>
#include <pallas/detail/checked/checked_access.hpp>
#include <pallas/detail/runtime/chip_set.hpp>
#include <pallas/detail/runtime/device.hpp>
#include <pallas/detail/runtime/dma_engine_ops.hpp>
#include <pallas/detail/runtime/dma_task.hpp>
#include <pallas/detail/runtime/random_order.hpp>
#include <pallas/detail/runtime/trace_hooks.hpp>
#include <pallas/error.hpp>
#include <pallas/ref.hpp>
#include <pallas/tpu/semaphore.hpp>
#include <pallas/tpu/sync_copy.hpp>

namespace pallas::tpu {

/// `pltpu.DeviceIdType`.
enum class DeviceIdType { MESH, LOGICAL };

/// A device id: one integer, a coordinate per mesh axis, or {axis name, coordinate} pairs.
class device_id {
 public:
  static constexpr int max_parts = 4;  ///< the most coordinates or named axes an id holds
  /// One integer: a LOGICAL id, or the coordinate on a 1-D mesh.
  device_id(index_t id) : form_(form::scalar), count_(1) { values_[0] = id; }  // NOLINT: as in Pallas
  /// One coordinate per mesh axis: `{i, j}`.
  device_id(std::initializer_list<index_t> coordinates) : form_(form::coordinates) {
    for (index_t v : coordinates) add({}, v);
  }
  /// Named axes, the others the caller's own: `{{"y", j}}`.
  device_id(std::initializer_list<std::pair<std::string_view, index_t>> axes) : form_(form::named) {
    for (auto const& [name, v] : axes) add(name, v);
  }

  /// How the id was written.
  enum class form { scalar, coordinates, named };
  form kind() const noexcept { return form_; }  ///< how the id was written
  int size() const noexcept { return count_; }  ///< its integers
  index_t value(int k) const noexcept { return values_[k]; }  ///< integer k
  std::string_view name(int k) const noexcept { return names_[k]; }  ///< the axis of integer k (named form)

  /// "3", "(1, 0)", "{x: 1}" (messages).
  std::string str() const {
    if (form_ == form::scalar) return std::to_string(values_[0]);
    std::string s = form_ == form::named ? "{" : "(";
    for (int k = 0; k < count_; ++k)
      s += (k ? ", " : "") + (form_ == form::named ? std::string(names_[k]) + ": " : "") + std::to_string(values_[k]);
    return s + (form_ == form::named ? "}" : ")");
  }

 private:
  void add(std::string_view name, index_t v) {
    if (count_ == max_parts) pallas::detail::fail("pallas::device_id: at most ", max_parts, " parts");
    names_[count_] = name;
    values_[count_++] = v;
  }
  form form_;
  int count_ = 0;
  index_t values_[max_parts]{};
  std::string_view names_[max_parts]{};
};

}  // namespace pallas::tpu

namespace pallas::detail {

/// The global index of the core that `id` names, seen from core `me`; a pallas::error
/// naming the chip, the core and the id when there is none.
inline int resolve_device(core_state const& me, tpu::device_id const& id, tpu::DeviceIdType type, char const* who,
                          place where) {
  launch_state const& launch = *me.launch;
  auto const at = [&] {
    return std::string(" (on ") + core_name(me) + (where.known() ? ", " + std::string(where.file_name()) + ':' +
                                                                       std::to_string(where.line)
                                                                 : std::string()) + ")";
  };
  chip_context const* chips = launch.chips;
  if (!chips)
    fail("pallas::", who, ": remote copies and signals need a launch on a device mesh (pl::shard_map)", at());
  int const chip = chip_index(me);
  int target_core = local_core_index(me);
  int target_chip = 0;
  auto const out_of_range = [&](auto const&... what) {
    fail<index_error>("pallas::", who, ": device id ", id.str(), " is out of range: ", what..., at());
  };
  if (type == tpu::DeviceIdType::LOGICAL) {
    if (id.kind() != tpu::device_id::form::scalar)
      fail("pallas::", who, ": a LOGICAL device id is one integer, not ", id.str(), at());
    if (id.value(0) < 0 || id.value(0) >= chips->num_chips)
      out_of_range("the mesh has ", chips->num_chips, " chips");
    target_chip = static_cast<int>(id.value(0));
  } else if (id.kind() == tpu::device_id::form::named) {
    int coords[chip_context::max_axes]{};
    for (int a = 0; a < chips->num_axes; ++a) coords[a] = chips->coordinate(chip, a);
    for (int k = 0; k < id.size(); ++k) {
      index_t const v = id.value(k);
      if (id.name(k) == launch.axis_name) {
        if (v < 0 || v >= launch.cores_per_chip) out_of_range("axis '", id.name(k), "' has ", launch.cores_per_chip, " cores");
        target_core = static_cast<int>(v);
        continue;
      }
      int const a = chips->axis_of(id.name(k));
      if (a < 0)
        fail("pallas::", who, ": device id ", id.str(), " names axis '", id.name(k), "', which is not an axis of the mesh (",
             chips->axes_list(), " and the core axis '", launch.axis_name, "')", at());
      if (v < 0 || v >= chips->axis_sizes[a]) out_of_range("axis '", id.name(k), "' has ", chips->axis_sizes[a], " chips");
      coords[a] = static_cast<int>(v);
    }
    for (int a = 0; a < chips->num_axes; ++a) target_chip = target_chip * chips->axis_sizes[a] + coords[a];
  } else {
    if (id.size() != chips->num_axes)
      fail("pallas::", who, ": a MESH device id needs one coordinate per mesh axis (", chips->axes_list(), "), got ",
           id.str(), at());
    for (int a = 0; a < chips->num_axes; ++a) {
      if (id.value(a) < 0 || id.value(a) >= chips->axis_sizes[a])
        out_of_range("axis '", chips->axis_names[a], "' has ", chips->axis_sizes[a], " chips");
      target_chip = target_chip * chips->axis_sizes[a] + static_cast<int>(id.value(a));
    }
  }
  return target_chip * launch.cores_per_chip + target_core;
}

}  // namespace pallas::detail

namespace pallas::tpu {

/// What `pltpu::make_async_remote_copy(src, dst, send_sem, recv_sem, device_id, type)`
/// returns: a copy from this chip's `src` into `dst` on the chip `device_id` names, to
/// `.start()`, then `.wait_send()` here and `.wait_recv()` on the receiver (or `.wait()`).
template <class Src, class Dst, class SendSem, class RecvSem>
class async_remote_copy_descriptor {
 public:
  /// Checks that the shapes agree (pallas::shape_error otherwise).
  async_remote_copy_descriptor(Src src, Dst dst, SendSem send, RecvSem recv, device_id id, DeviceIdType type)
      : src_(src), dst_(dst), send_(send), recv_(recv), id_(id), type_(type) {
    pallas::detail::check_copy_extents(src_, dst_, "make_async_remote_copy");
  }

  /// Issues the copy into `dst` on the target chip (`.start()`).
  void start(pallas::detail::place where = pallas::detail::place::here()) const {
    namespace d = pallas::detail;
    auto& core = d::this_core("async_remote_copy.start");
    d::launch_state& launch = *core.launch;
    launch.check_aborted();
    d::end_polling(core);
    int const target = d::resolve_device(core, id_, type_, "make_async_remote_copy", where);
    d::remote_task t;
    t.task = d::dma_task::make(src_, dst_);
    t.recv_offset = reinterpret_cast<std::byte const*>(&recv_.data()->count) - core.semaphores.base();
    if (t.recv_offset < 0 || t.recv_offset >= core.semaphores.capacity())
      d::fail("pallas::make_async_remote_copy: the receive semaphore must be a kernel's scratch or run_scoped "
              "semaphore (on ", d::core_name(core), ')');
    if (!launch.chips->transport->in_this_process(target)) {  // a chip of another process (MPI)
      if (trace::enabled())  // the sender's side only: the receiver's wait is another process's
        d::trace_remote_copy_start(core, &send_.data()->count, nullptr, nullptr, bytes(),
                                   "to mesh core " + std::to_string(target), {});
      return launch.chips->transport->start_elsewhere(core, t.task, &send_.data()->count, target, t.recv_offset,
                                                         where);
    }
    d::core_state& other = d::core_of_launch(launch, target);
    t.task.dst = d::translate_to_core(core, dst_.data(), other);
    if (!t.task.dst)
      d::fail("pallas::make_async_remote_copy: the destination is not a buffer of this kernel (an operand, a "
              "scratch buffer or a run_scoped buffer), so it has no counterpart on the target chip (on ",
              d::core_name(core), ", ", where.file_name(), ':', where.line, ')');
    t.recv = reinterpret_cast<std::atomic<std::int32_t>*>(other.semaphores.base() + t.recv_offset);
    t.send = &send_.data()->count;
    t.sender = core.index;
    t.target = target;
    if (trace::enabled())
      d::trace_remote_copy_start(core, t.send, &other, t.recv, bytes(), "to " + d::core_name(other),
                                 "from " + d::core_name(core));
    if constexpr (checked_mode) {
      // The receiver must not touch the destination before its wait_recv.
      other.checked.add_incoming(t.task.dst_region(), t.recv, t.task.bytes,
                                 "a remote copy (" + std::to_string(t.task.bytes) + " bytes) from " + d::core_name(core) +
                                     " started at " + std::string(where.file_name()) + ':' + std::to_string(where.line));
      if (core.checked.races) {
        core.checked.race_copy(t.task.src_region(), t.task.dst_region(), t.recv, "remote copy", where);
        core.checked.race_release(t.send);
      }
    }
    bool now = core.dma.order().order == d::dma_order::eager;
    if (core.dma.order().order == d::dma_order::random) {
      d::perturb(core);
      now = (d::next_random(core) & 1) == 0;
    }
    launch.chips->transport->start(launch, t, now);
  }

  /// Blocks until the send semaphore holds this copy's byte count (the sender's side).
  void wait_send(pallas::detail::place where = pallas::detail::place::here()) const {
    auto& core = pallas::detail::this_core("async_remote_copy.wait_send");
    pallas::detail::traced_wait traced(core, &send_.data()->count, bytes(), "async_remote_copy.wait_send", true);
    core.dma.wait(core, send_.data()->count, bytes(), "async_remote_copy.wait_send", where);
  }
  /// Blocks until the receive semaphore holds this copy's byte count (the receiver's side).
  void wait_recv(pallas::detail::place where = pallas::detail::place::here()) const {
    auto& core = pallas::detail::this_core("async_remote_copy.wait_recv");
    pallas::detail::traced_wait traced(core, &recv_.data()->count, bytes(), "async_remote_copy.wait_recv", true);
    core.dma.wait(core, recv_.data()->count, bytes(), "async_remote_copy.wait_recv", where);
  }
  /// wait_send() then wait_recv().
  void wait(pallas::detail::place where = pallas::detail::place::here()) const {
    wait_send(where);
    wait_recv(where);
  }

  /// The bytes each semaphore's wait consumes (prod(shape) x itemsize).
  std::int32_t bytes() const {
    index_t const total = dst_.size() * static_cast<index_t>(sizeof(typename Dst::value_type));
    if (total > INT32_MAX)
      pallas::detail::fail("pallas::make_async_remote_copy: a DMA moves at most 2^31-1 bytes, this one ", total);
    return static_cast<std::int32_t>(total);
  }

 private:
  Src src_;
  Dst dst_;
  SendSem send_;
  RecvSem recv_;
  device_id id_;
  DeviceIdType type_;
};

/// `pltpu.get_barrier_semaphore()`: the core's BARRIER semaphore in a pl::shard_map
/// launch, the same one on every chip, for neighbours to signal each other (remote
/// semaphore_signal) before their copies. Pallas needs a `collective_id` in the compiler
/// params for it; a shard_map launch always has one.
inline auto get_barrier_semaphore() {
  auto& core = pallas::detail::this_core("get_barrier_semaphore");
  std::int64_t const offset = core.launch->chips ? core.launch->chips->barrier_offset.load(std::memory_order_relaxed) : -1;
  if (offset < 0)
    pallas::detail::fail("pallas::get_barrier_semaphore: there is a barrier semaphore only in a launch on a device mesh "
                         "(pl::shard_map)");
  using ref_type = SemaphoreType::BARRIER<>::ref_type;
  return ref_type(std::launder(reinterpret_cast<semaphore<semaphore_kind::barrier>*>(core.semaphores.base() + offset)),
                  typename ref_type::shape_type{});
}

/// `pltpu.make_async_remote_copy(src, dst, send_sem, recv_sem, device_id, device_id_type)`.
template <AnyRef Src, AnyRef Dst, SemaphoreRef SendSem, SemaphoreRef RecvSem>
auto make_async_remote_copy(Src const& src, Dst const& dst, SendSem const& send_sem, RecvSem const& recv_sem,
                            device_id const& id, DeviceIdType type = DeviceIdType::MESH) {
  pallas::detail::check_copy_types<Src, Dst>("make_async_remote_copy");
  static_assert(SendSem::rank() == 0 && RecvSem::rank() == 0,
                "pallas::make_async_remote_copy: the semaphores must be ()-shaped; pick one with .at(i)");
  static_assert(std::is_same_v<typename SendSem::value_type, semaphore<semaphore_kind::dma>> &&
                    std::is_same_v<typename RecvSem::value_type, semaphore<semaphore_kind::dma>>,
                "pallas::make_async_remote_copy: the semaphores must be DMA semaphores (pltpu::SemaphoreType::DMA)");
  return async_remote_copy_descriptor<Src, Dst, SendSem, RecvSem>(src, dst, send_sem, recv_sem, id, type);
}

/// `pltpu.async_remote_copy(...)`: make_async_remote_copy(...).start(); returns the descriptor.
template <AnyRef Src, AnyRef Dst, SemaphoreRef SendSem, SemaphoreRef RecvSem>
auto async_remote_copy(Src const& src, Dst const& dst, SendSem const& send_sem, RecvSem const& recv_sem,
                       device_id const& id, DeviceIdType type = DeviceIdType::MESH,
                       pallas::detail::place where = pallas::detail::place::here()) {
  auto copy = make_async_remote_copy(src, dst, send_sem, recv_sem, id, type);
  copy.start(where);
  return copy;
}

}  // namespace pallas::tpu

namespace pallas {

/// `pl.semaphore_signal(sem, inc, device_id=..., device_id_type=...)`: adds `inc` to the
/// same semaphore on another chip (and core, when the id names the core axis).
template <SemaphoreRef S>
void semaphore_signal(S const& sem, index_t inc, tpu::device_id const& id, tpu::DeviceIdType type,
                      detail::place where = detail::place::here()) {
  static_assert(S::rank() == 0, "pallas::semaphore_signal: the semaphore must be ()-shaped; pick one with .at(i)");
  auto& core = detail::this_core("semaphore_signal");
  core.launch->check_aborted();
  detail::end_polling(core);
  detail::perturb(core);
  if (inc < 0 || inc > INT32_MAX)
    detail::fail("pallas::semaphore_signal: increment ", inc, " is not a non-negative int32 (", where.file_name(), ':',
                 where.line, ')');
  int const target_core = detail::resolve_device(core, id, type, "semaphore_signal", where);
  if (auto& transport = *core.launch->chips->transport; !transport.in_this_process(target_core)) {
    auto const offset = reinterpret_cast<std::byte const*>(sem.data()) - core.semaphores.base();
    if (offset < 0 || offset >= core.semaphores.capacity())
      detail::fail("pallas::semaphore_signal: only semaphores of a kernel's scratch or of run_scoped can be signaled on "
                   "another chip");
    return transport.signal_elsewhere(core, target_core, offset, static_cast<std::int32_t>(inc));
  }
  auto const [target, deferred] = detail::semaphore_on_core(core, sem.data(), target_core - core.launch->first_core,
                                                            static_cast<std::int32_t>(inc));
  if constexpr (checked_mode) core.checked.race_release(&target->count);
  if (deferred) return;
  target->count.fetch_add(static_cast<std::int32_t>(inc), std::memory_order_acq_rel);
}

}  // namespace pallas
