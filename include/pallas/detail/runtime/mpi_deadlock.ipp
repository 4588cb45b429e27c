// SPDX-License-Identifier: Apache-2.0
#pragma once
// The cross-rank deadlock proof's window accesses, questions and report, compiled once per
// program under separate compilation (config.hpp) and inline in every translation unit
// otherwise.

#include <pallas/detail/runtime/mpi_deadlock.hpp>

#ifdef PALLAS_USE_MPI

namespace pallas::detail {

PALLAS_DECL void mpi_deadlock_proof::begin(MPI_Win win, std::int64_t seq) {
  win_ = win;
  seq_ = seq;
  write(rank_, 0, seq);
  for (int q = 0; q < ranks_; ++q) {
    write(rank_, request_word(q), 0);
    write(rank_, token_word(q), 0);
  }
  round_ = 0;
}

PALLAS_DECL void mpi_deadlock_proof::write(int rank, std::int64_t word, std::int64_t value) {
  MPI_Put(&value, 1, MPI_INT64_T, rank, static_cast<MPI_Aint>(word * 8), 1, MPI_INT64_T, win_);
  MPI_Win_flush(rank, win_);
}

PALLAS_DECL std::int64_t mpi_deadlock_proof::read(int rank, std::int64_t word) {
  std::int64_t value = 0;
  MPI_Get(&value, 1, MPI_INT64_T, rank, static_cast<MPI_Aint>(word * 8), 1, MPI_INT64_T, win_);
  MPI_Win_flush(rank, win_);
  return value;
}

PALLAS_DECL void mpi_deadlock_proof::ask() {
  auto const now = std::chrono::steady_clock::now();
  if (now - polled_ < poll_every) return;
  polled_ = now;
  if (round_ == 0 || now - posted_ > round_limit) return post(1);
  std::vector<std::int64_t> answers(static_cast<std::size_t>(ranks_), 0);
  for (int r = 0; r < ranks_; ++r) {
    if (read(r, 0) > seq_ || read(r, 1) == seq_) {  // finished this launch
      answers[static_cast<std::size_t>(r)] = -1;
      continue;
    }
    if (read(r, token_word(rank_)) != token_) return;  // not answered yet
    std::int64_t const g = read(r, generation_word(rank_));
    if (g == not_stuck) return post(1);  // a rank computes: ask again later
    answers[static_cast<std::size_t>(r)] = g;
  }
  if (round_ == 1) {
    first_ = answers;
    return post(2);
  }
  if (answers != first_) return post(1);  // something moved between the rounds
  report(answers);
}

PALLAS_DECL void mpi_deadlock_proof::post(int round) {
  round_ = round;
  token_ = (seq_ << 24) + ++asked_;
  posted_ = std::chrono::steady_clock::now();
  for (int r = 0; r < ranks_; ++r) write(r, request_word(rank_), token_);
}

PALLAS_DECL void mpi_deadlock_proof::report(std::vector<std::int64_t> const& answers) {
  std::string message = "pallas::deadlock (MPI, " + std::to_string(ranks_) +
                        " chips): every chip's cores wait on semaphores (or poll them) that no chip can signal any "
                        "more: ";
  std::vector<char> text(static_cast<std::size_t>(text_bytes));
  for (int r = 0; r < ranks_; ++r) {
    if (r) message += "; ";
    if (answers[static_cast<std::size_t>(r)] < 0) {
      message += "chip " + std::to_string(r) + " has finished";
      continue;
    }
    for (int c = 0; c < cores_; ++c) {
      MPI_Get(text.data(), static_cast<int>(text_bytes), MPI_CHAR, r, text_at(c), static_cast<int>(text_bytes), MPI_CHAR,
              win_);
      MPI_Win_flush(r, win_);
      text.back() = '\0';
      message += (c ? "; " : "") + std::string(text.data());
    }
  }
  fail<deadlock_error>(message);
}

}  // namespace pallas::detail

#endif  // PALLAS_USE_MPI
