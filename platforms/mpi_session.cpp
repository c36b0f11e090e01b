#include "platforms/mpi_session.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include "models/core/units.h"

namespace sluice {
namespace {

using clock_type = std::chrono::steady_clock;
using seconds = std::chrono::duration<double>;

constexpr int tag_query = 1, tag_answer = 2;
// After this long in one collective a rank answers the watchdog's queries (polling costs a
// little; a collective of a healthy run completes well within it).
constexpr seconds answer_after{1.0};
// Spinning on MPI_Test this long before yielding the core: most collectives of a window complete
// within it, and a yield costs a system call. A window's exchange and allreduce (64 B to each
// rank, tests/mpi/mpi_checks latency) took 2.0 us on 2 ranks and 13.7 us on 4 ranks on 2 cores
// (yielding at once: 5.6 and 43 us; spinning 100 us: 1.9 and 12.0; blocking MPI calls: 1.3 and 16.8).
constexpr seconds spin_for{20e-6};
constexpr std::chrono::milliseconds other_ranks_print_after{200};
// How long rank 0 collects answers before it names the ranks that gave none.
constexpr seconds answer_grace{3.0};

// A fatal signal's line, written from the handler with write(2) (async-signal-safe): the texts
// are made when the handlers are installed.
constexpr int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
char death_line[NSIG][96];

void on_fatal_signal(int sig) {
  const ssize_t written = write(STDERR_FILENO, death_line[sig], std::strlen(death_line[sig]));
  (void)written;
  raise(sig);  // SA_RESETHAND: the default action now; mpirun sees the signal and ends the job
}

// Replaces OpenMPI's handlers (a multi-line backtrace per rank) by one line naming the rank.
void name_rank_on_fatal_signals(int rank) {
  for (int sig : fatal_signals) {
    std::snprintf(death_line[sig], sizeof death_line[sig], "sluice: rank %d: died (signal %d, %s)\n", rank, sig,
                  strsignal(sig));
    struct sigaction action {};
    action.sa_handler = on_fatal_signal;
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, nullptr);
  }
}

int sessions_open = 0;  // MPI is initialised once per process and finalized with the last session

// A rank that calls exit() while its session is open (a library's exit, a forgotten return path)
// would leave the others waiting until mpirun notices; it ends the run at once, naming itself.
int exiting_rank = -1;
std::atomic<bool> aborting{false};  // abort_run has begun: an exit() inside MPI_Abort is not early
void on_early_exit() {
  if (sessions_open == 0 || aborting.exchange(true)) return;
  std::fflush(stdout);
  std::fprintf(stderr, "sluice: rank %d: exited before the end of the run\n", exiting_rank);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text;
}

}  // namespace

bool mpi_built() { return true; }

std::unique_ptr<parallel_transport> make_mpi_transport(const transport_options& options) {
  return std::make_unique<mpi_session>(options);
}

mpi_session::mpi_session(const transport_options& options) : options_(options) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  ++sessions_open;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  name_rank_on_fatal_signals(rank_);
  if (exiting_rank < 0) std::atexit(on_early_exit);
  exiting_rank = rank_;
  MPI_Comm_dup(MPI_COMM_WORLD, &world_);
  MPI_Comm_dup(MPI_COMM_WORLD, &watch_);
  // An MPI error becomes this rank's one line (abort_run), not OpenMPI's multi-line report.
  MPI_Comm_set_errhandler(world_, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(watch_, MPI_ERRORS_RETURN);
}

mpi_session::~mpi_session() { finalize(); }

void mpi_session::finalize() {
  if (finalized_) return;
  finalized_ = true;
  MPI_Comm_free(&watch_);
  MPI_Comm_free(&world_);
  if (--sessions_open == 0) MPI_Finalize();
}

void mpi_session::abort_run(const std::string& one_line) {
  if (!aborting.exchange(true)) {
    // An error every rank meets (a scenario's bad key) is printed once, by rank 0: its abort
    // stops the other ranks within this delay. A failure of this rank alone is 0.2 s later.
    if (rank_ != 0) std::this_thread::sleep_for(other_ranks_print_after);
    std::fflush(stdout);
    std::fprintf(stderr, "sluice: rank %d: %s\n", rank_, one_line.c_str());
    std::fflush(stderr);
  }
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);  // MPI_Abort does not return; this is for the compiler
}

void mpi_session::check(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  abort_run(std::string(call) + " failed: " + std::string(text, length));
}

void mpi_session::wait(MPI_Request& request, const char* what) {
  ++step_;
  const clock_type::time_point start = clock_type::now();
  const seconds watchdog{options_.watchdog_seconds};
  // Rank 0 names the missing ranks after one watchdog period; another rank waits two (rank 0
  // may have come up to one period later), then blames rank 0, which did not come to ask.
  const seconds give_up = rank_ == 0 ? watchdog : 2 * watchdog + answer_grace;
  for (;;) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    const seconds waited = clock_type::now() - start;
    if (waited < spin_for) continue;
    if (waited < answer_after) {
      std::this_thread::yield();  // an oversubscribed core goes to the ranks still working
      continue;
    }
    if (rank_ != 0) answer_queries();
    if (waited > give_up) {
      if (rank_ == 0) {
        name_missing_ranks(request, what);
        return;
      }
      abort_run("no progress for " + std::to_string(static_cast<long>(waited.count())) + " s in " + what +
                " (collective " + std::to_string(step_) +
                "), and rank 0 did not come to name the missing "
                "ranks: rank 0 is stuck or dead");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void mpi_session::answer_queries() {
  for (;;) {
    int pending = 0;
    check(MPI_Iprobe(0, tag_query, watch_, &pending, MPI_STATUS_IGNORE), "MPI_Iprobe");
    if (!pending) return;
    uint64_t asked = 0;
    check(MPI_Recv(&asked, 1, MPI_UINT64_T, 0, tag_query, watch_, MPI_STATUS_IGNORE), "MPI_Recv");
    const uint64_t answer[2] = {asked, step_};
    check(MPI_Send(answer, 2, MPI_UINT64_T, 0, tag_answer, watch_), "MPI_Send");
  }
}

void mpi_session::name_missing_ranks(MPI_Request& request, const char* what) {
  // The query's buffer outlives this call (the sends are freed, not waited on: a stuck rank
  // never receives). A rank that cannot even be asked is named with the silent ones.
  query_step_ = step_;
  const uint64_t asked = step_;
  for (int r = 1; r < size_; ++r) {
    MPI_Request query;
    if (MPI_Isend(&query_step_, 1, MPI_UINT64_T, r, tag_query, watch_, &query) == MPI_SUCCESS) MPI_Request_free(&query);
  }
  std::map<int, uint64_t> step_of{{0, step_}};  // the ranks that answered: the collective each waits in
  const clock_type::time_point until =
      clock_type::now() + std::chrono::duration_cast<clock_type::duration>(answer_grace);
  while (clock_type::now() < until && static_cast<int>(step_of.size()) < size_) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;  // everyone came after all: a slow rank, not a lost one
    int pending = 0;
    MPI_Status status;
    check(MPI_Iprobe(MPI_ANY_SOURCE, tag_answer, watch_, &pending, &status), "MPI_Iprobe");
    if (!pending) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    uint64_t answer[2] = {0, 0};
    check(MPI_Recv(answer, 2, MPI_UINT64_T, status.MPI_SOURCE, tag_answer, watch_, MPI_STATUS_IGNORE), "MPI_Recv");
    if (answer[0] == asked) step_of[status.MPI_SOURCE] = answer[1];
  }
  std::vector<int> silent, elsewhere;
  for (int r = 0; r < size_; ++r) {
    const auto it = step_of.find(r);
    if (it == step_of.end())
      silent.push_back(r);
    else if (it->second != step_)
      elsewhere.push_back(r);
  }
  const std::string waited = std::to_string(static_cast<long>(options_.watchdog_seconds));
  if (silent.empty() && elsewhere.empty())
    abort_run("every rank waits in " + std::string(what) + " (collective " + std::to_string(step_) +
              "), which did not complete within " + waited + " s");
  std::string line;
  if (!silent.empty())
    line = rank_list(silent) + " did not reach " + what + " (collective " + std::to_string(step_) + ") within " +
           waited + " s: stuck, or dead without mpirun noticing";
  if (!elsewhere.empty())
    line += (line.empty() ? "" : "; ") + rank_list(elsewhere) + " wait in another collective than " + what;
  abort_run(line);
}

std::vector<std::vector<char>> mpi_session::exchange(const std::vector<std::vector<char>>& out) {
  if (static_cast<int>(out.size()) != size_)
    abort_run("exchange: " + std::to_string(out.size()) + " buffers for " + std::to_string(size_) + " ranks");
  // Each rank learns what every rank sends it, and the largest buffer anyone sends (the rounds).
  uint64_t largest = 0;
  for (const std::vector<char>& b : out) largest = std::max<uint64_t>(largest, b.size());
  std::vector<uint64_t> sent(2 * size_), told(2 * size_);
  for (int r = 0; r < size_; ++r) {
    sent[2 * r] = out[r].size();
    sent[2 * r + 1] = largest;
  }
  MPI_Request request;
  check(MPI_Ialltoall(sent.data(), 2, MPI_UINT64_T, told.data(), 2, MPI_UINT64_T, world_, &request), "MPI_Ialltoall");
  wait(request, "exchange");
  for (int r = 0; r < size_; ++r) largest = std::max(largest, told[2 * r + 1]);
  // MPI counts and displacements are int: a round moves at most chunk bytes to each rank.
  const uint64_t most = static_cast<uint64_t>(INT_MAX / size_);
  const uint64_t chunk = options_.chunk_bytes ? std::min(options_.chunk_bytes, most) : most;
  const uint64_t rounds = std::max<uint64_t>(1, (largest + chunk - 1) / chunk);
  std::vector<std::vector<char>> in(size_);
  for (int r = 0; r < size_; ++r) in[r].resize(told[2 * r]);
  std::vector<int> send_count(size_), send_at(size_), receive_count(size_), receive_at(size_);
  std::vector<char> send_buffer, receive_buffer;
  auto piece = [&](uint64_t total, uint64_t round) {
    const uint64_t from = round * chunk;
    return static_cast<int>(total > from ? std::min(chunk, total - from) : 0);
  };
  for (uint64_t round = 0; round < rounds; ++round) {
    int send_total = 0, receive_total = 0;
    for (int r = 0; r < size_; ++r) {
      send_count[r] = piece(out[r].size(), round);
      send_at[r] = send_total;
      send_total += send_count[r];
      receive_count[r] = piece(in[r].size(), round);
      receive_at[r] = receive_total;
      receive_total += receive_count[r];
    }
    send_buffer.resize(send_total);
    receive_buffer.resize(receive_total);
    for (int r = 0; r < size_; ++r)
      if (send_count[r]) std::copy_n(out[r].data() + round * chunk, send_count[r], send_buffer.data() + send_at[r]);
    check(MPI_Ialltoallv(send_buffer.data(), send_count.data(), send_at.data(), MPI_BYTE, receive_buffer.data(),
                         receive_count.data(), receive_at.data(), MPI_BYTE, world_, &request),
          "MPI_Ialltoallv");
    wait(request, "exchange");
    for (int r = 0; r < size_; ++r)
      if (receive_count[r])
        std::copy_n(receive_buffer.data() + receive_at[r], receive_count[r], in[r].data() + round * chunk);
  }
  return in;
}

uint64_t mpi_session::allreduce(uint64_t value, reduce_op op) {
  const MPI_Op mpi_op = op == reduce_op::min ? MPI_MIN : op == reduce_op::max ? MPI_MAX : MPI_SUM;
  uint64_t result = 0;
  MPI_Request request;
  check(MPI_Iallreduce(&value, &result, 1, MPI_UINT64_T, mpi_op, world_, &request), "MPI_Iallreduce");
  wait(request, "allreduce");
  return result;
}

std::vector<uint8_t> mpi_session::allreduce_bits(const std::vector<uint8_t>& bits, bits_op op) {
  if (bits.size() > static_cast<std::size_t>(INT_MAX))
    abort_run("allreduce_bits: " + std::to_string(bits.size()) + " bytes; at most " + std::to_string(INT_MAX));
  std::vector<uint8_t> result(bits.size());
  MPI_Request request;
  check(MPI_Iallreduce(bits.data(), result.data(), static_cast<int>(bits.size()), MPI_UINT8_T,
                       op == bits_op::all ? MPI_BAND : MPI_BOR, world_, &request),
        "MPI_Iallreduce");
  wait(request, "allreduce_bits");
  return result;
}

std::vector<std::string> mpi_session::gather_strings(const std::string& text) {
  // An exchange with rank 0 as the only receiver: texts of any size, in rounds if need be.
  std::vector<std::vector<char>> out(size_);
  out[0].assign(text.begin(), text.end());
  std::vector<std::vector<char>> in = exchange(out);
  std::vector<std::string> texts;
  if (rank_ == 0)
    for (const std::vector<char>& b : in) texts.emplace_back(b.begin(), b.end());
  return texts;
}

void mpi_session::barrier() {
  MPI_Request request;
  check(MPI_Ibarrier(world_, &request), "MPI_Ibarrier");
  wait(request, "barrier");
}

}  // namespace sluice
