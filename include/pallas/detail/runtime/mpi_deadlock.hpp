// SPDX-License-Identifier: Apache-2.0
#pragma once
// The cross-rank deadlock proof of the MPI backend (mpi_transport.hpp). No rank sees
// another's cores, so a rank whose waits have been short for `mpi_deadlock_grace` asks
// every rank, through a status window, to confirm that it is stuck:
//
//   - A rank answers a request from a core that is itself stalled, after checking, under
//     the mailbox lock, that every local core is blocked on a semaphore that is still short
//     (or has finished) and that no other chip's signal waits in a local mailbox slot. It
//     answers with its deadlock generation (launch_state::generation, bumped whenever a
//     local core blocks, unblocks or finishes), or 0 when it is not stuck, and writes what
//     its cores wait for into the window.
//   - The asking rank posts two rounds. When every rank has finished the launch or
//     confirmed both, with the same generation, every rank was stuck at the moment the
//     second round was posted, with nothing in flight (a remote copy's bytes and signal
//     land before its sender goes on): nothing can signal any chip any more. The asking
//     rank then throws a pallas::deadlock_error naming every chip's cores, and the job ends.
//
// A rank that is computing never confirms, so it never takes part in a false report; a rank
// whose cores stopped waiting in pallas (a body that never returns) leaves the question to
// the wait timeout (PALLAS_MPI_WAIT_TIMEOUT).
//
// The window of each rank holds int64 words: [0] the launch it is in, [1] the last launch
// whose cores all finished, [2 + q] rank q's request, [2 + ranks + q] the token answered
// for q, [2 + 2 ranks + q] the generation answered (0: not stuck), then `text_bytes` per
// core of what it waits for.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <pallas/detail/runtime/core.hpp>
#include <pallas/detail/runtime/deadlock.hpp>
#include <pallas/detail/runtime/launch.hpp>
#include <pallas/config.hpp>
#include <pallas/detail/runtime/mpi_api.hpp>
#include <pallas/error.hpp>

#ifdef PALLAS_USE_MPI

namespace pallas::detail {

/// How long a rank's wait stays short before it asks the other ranks whether all are stuck.
inline constexpr std::chrono::milliseconds mpi_deadlock_grace{100};

class mpi_deadlock_proof {
 public:
  static constexpr std::int64_t text_bytes = 480;  ///< per core: what it waits for

  /// The window's size in int64 words for `ranks` ranks of `cores` cores.
  static std::size_t words(int ranks, int cores) {
    return static_cast<std::size_t>(2 + 3 * ranks) +
           static_cast<std::size_t>(cores * text_bytes) / sizeof(std::int64_t);
  }

  mpi_deadlock_proof(int rank, int ranks, int cores_per_chip) : rank_(rank), ranks_(ranks), cores_(cores_per_chip) {}

  /// At the launch's start, before its first collective: this rank is in launch `seq` and
  /// has answered nobody. `win` is the status window (recreated with the other windows).
  void begin(MPI_Win win, std::int64_t seq);

  /// Every local core has finished the launch's body.
  void finished() { write(rank_, 1, seq_); }

  /// Called by a stalled core between its polls, `stalled_for` after its wait began
  /// blocking. `stuck()` checks (under the mailbox lock) that this rank is stuck; `describe()`
  /// says what its cores wait for. Throws pallas::deadlock_error once the proof holds.
  template <class Stuck, class Describe>
  void on_stalled(launch_state& launch, std::chrono::steady_clock::duration stalled_for, Stuck&& stuck,
                  Describe&& describe) {
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock) return;  // another local core answers and asks for this rank
    answer(launch, stuck, describe);
    if (stalled_for >= mpi_deadlock_grace) ask();
  }

 private:
  static constexpr std::int64_t not_stuck = 0;
  static constexpr std::chrono::milliseconds poll_every{2}, round_limit{400};

  std::int64_t request_word(int q) const { return 2 + q; }
  std::int64_t token_word(int q) const { return 2 + ranks_ + q; }
  std::int64_t generation_word(int q) const { return 2 + 2 * ranks_ + q; }
  MPI_Aint text_at(int core) const {
    return static_cast<MPI_Aint>((2 + 3 * ranks_) * static_cast<std::int64_t>(sizeof(std::int64_t)) +
                                 core * text_bytes);
  }

  // Plain puts and gets, no MPI atomics: Open MPI's one-sided atomics need the target rank
  // to progress MPI, and a rank that computes does not (a question would wait for it).
  // Every word has one writer, and an answer is written before the token it answers.
  void write(int rank, std::int64_t word, std::int64_t value);
  std::int64_t read(int rank, std::int64_t word);

  /// Answers every request not answered yet: this rank's generation if it is stuck, else 0.
  template <class Stuck, class Describe>
  void answer(launch_state& launch, Stuck& stuck, Describe& describe) {
    for (int q = 0; q < ranks_; ++q) {
      std::int64_t const request = read(rank_, request_word(q));
      if (request == 0 || request == read(rank_, token_word(q))) continue;
      std::int64_t generation = not_stuck;
      if (stuck()) {
        generation = static_cast<std::int64_t>(launch.generation.load(std::memory_order_seq_cst));
        for (int c = 0; c < cores_; ++c) {  // before the answer, which the asker reads first
          std::string text = describe(c);
          text.resize(static_cast<std::size_t>(text_bytes - 1));
          text.push_back('\0');
          MPI_Put(text.data(), static_cast<int>(text_bytes), MPI_CHAR, rank_, text_at(c), static_cast<int>(text_bytes),
                  MPI_CHAR, win_);
        }
        MPI_Win_flush(rank_, win_);
      }
      write(rank_, generation_word(q), generation);
      write(rank_, token_word(q), request);
    }
  }

  /// One step of this rank's two rounds of questions; throws when both came back stuck.
  void ask();

  void post(int round);

  [[noreturn]] void report(std::vector<std::int64_t> const& answers);

  MPI_Win win_ = MPI_WIN_NULL;
  int rank_, ranks_, cores_;
  std::int64_t seq_ = 0;
  std::mutex mutex_;  ///< one local core at a time answers and asks
  int round_ = 0;     ///< 0: not asking; 1, 2: the round posted
  std::int64_t token_ = 0, asked_ = 0;
  std::vector<std::int64_t> first_;  ///< the first round's answers
  std::chrono::steady_clock::time_point posted_{}, polled_{};
};

}  // namespace pallas::detail

#endif  // PALLAS_USE_MPI

#if PALLAS_DEFINE_RUNTIME
#  include <pallas/detail/runtime/mpi_deadlock.ipp>
#endif
