// The messages between the processes of a partitioned run (docs/parallel.md), as an interface that
// code compiled with or without MPI can hold. The MPI implementation is platforms/mpi_session.*;
// a build without MPI (SLUICE_WITH_MPI=OFF) has only make_mpi_transport's one-line error.
// Every operation but rank(), size() and abort_run is collective: all ranks call it, in the same order.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sluice {

enum class reduce_op { min, max, sum };  // over uint64 values
enum class bits_op { all, any };         // bitwise AND, OR over byte vectors

struct transport_options {
  // A collective that has not completed after this long ends the run, naming the ranks that did
  // not arrive (stuck, or dead without mpirun noticing). Generous: a rank may build a large fabric
  // or write its outputs between two collectives.
  double watchdog_seconds = 600;
  // The largest bytes one rank sends in one round of exchange(); larger messages go in rounds
  // (MPI counts are int). 0, or above INT_MAX / size(): INT_MAX / size(). Tests set it small.
  uint64_t chunk_bytes = 0;
};

class parallel_transport {
 public:
  virtual ~parallel_transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // out[r] goes to rank r (size() entries; out[rank()] comes back to this rank); returns in[r],
  // what rank r sent this one. Buffers of any size (sent in rounds above chunk_bytes).
  virtual std::vector<std::vector<char>> exchange(const std::vector<std::vector<char>>& out) = 0;
  virtual uint64_t allreduce(uint64_t value, reduce_op op) = 0;
  // Byte by byte over equally long vectors: AND (all) or OR (any) of every rank's bits.
  virtual std::vector<uint8_t> allreduce_bits(const std::vector<uint8_t>& bits, bits_op op) = 0;
  // Every rank's text at rank 0, by rank; an empty vector on the other ranks.
  virtual std::vector<std::string> gather_strings(const std::string& text) = 0;
  virtual void barrier() = 0;
  // Ends every rank of the run: prints "sluice: rank R: <one_line>" once on stderr, then aborts
  // the job (mpirun stops the other ranks at once). Not collective. A rank other than 0 prints
  // 0.2 s late, so that an error every rank meets is printed once, by rank 0.
  [[noreturn]] virtual void abort_run(const std::string& one_line) = 0;
  // Collective; the destructor calls it if it was not called.
  virtual void finalize() = 0;
};

// True when this build has MPI (SLUICE_WITH_MPI).
bool mpi_built();
// Initialises MPI (once per process), installs the handlers that name this rank when it dies of
// a signal, and returns the transport over MPI_COMM_WORLD. Without MPI: config_error
// "this build has no MPI (SLUICE_WITH_MPI=OFF)".
std::unique_ptr<parallel_transport> make_mpi_transport(const transport_options& options = {});

// Runs a rank's work and returns its exit code; an exception escaping it (a config_error, a
// SystemC report, any std::exception) ends every rank at once with one line naming this rank.
int run_rank(parallel_transport& transport, const std::function<int()>& body);

}  // namespace sluice
