// The MPI transport of a partitioned run (docs/parallel.md): OpenMPI's nonblocking collectives,
// each waited on with a watchdog, and the failure paths (docs/parallel.md#when-a-rank-fails).
// Built only with SLUICE_WITH_MPI; other code holds it as a parallel_transport.
#pragma once
// The C API only: OpenMPI's mpi.h would otherwise pull in the deprecated C++ bindings (libmpi_cxx).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "platforms/parallel_transport.h"

namespace sluice {

class mpi_session final : public parallel_transport {
 public:
  explicit mpi_session(const transport_options& options);
  ~mpi_session() override;
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::vector<char>> exchange(const std::vector<std::vector<char>>& out) override;
  uint64_t allreduce(uint64_t value, reduce_op op) override;
  std::vector<uint8_t> allreduce_bits(const std::vector<uint8_t>& bits, bits_op op) override;
  std::vector<std::string> gather_strings(const std::string& text) override;
  void barrier() override;
  [[noreturn]] void abort_run(const std::string& one_line) override;
  void finalize() override;

 private:
  // Waits for one collective of this rank's step_ (named `what` in errors), answering the
  // watchdog's queries after a long wait; past the watchdog, rank 0 names the ranks missing.
  void wait(MPI_Request& request, const char* what);
  // Rank 0, past the watchdog: asks every rank where it waits and ends the run naming those that
  // do not answer; returns only if the collective completes meanwhile.
  void name_missing_ranks(MPI_Request& request, const char* what);
  void answer_queries();
  void check(int status, const char* call);

  transport_options options_;
  int rank_ = 0, size_ = 1;
  MPI_Comm world_ = MPI_COMM_NULL;  // the collectives (a duplicate of MPI_COMM_WORLD)
  MPI_Comm watch_ = MPI_COMM_NULL;  // the watchdog's queries and answers
  uint64_t step_ = 0;               // collectives begun: the watchdog names the one that hangs
  uint64_t query_step_ = 0;         // rank 0: the step its watchdog asks about (a send buffer)
  bool finalized_ = false;
};

}  // namespace sluice
