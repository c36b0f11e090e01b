// The MPI transport under mpirun (tests/mpi/run_mpi_check.sh runs it; docs/parallel.md): the
// collectives, and each way a rank can fail, which must end the whole run naming the rank.
// usage: mpirun -np P mpi_checks MODE   (MODE: collectives, throw, throw-all, segv, kill, exit, hang; latency
// measures a window's collectives)
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "models/core/units.h"
#include "platforms/parallel_transport.h"

using namespace sluice;

namespace {

void expect(parallel_transport& t, bool ok, const std::string& what) {
  if (!ok) t.abort_run("check failed: " + what);
}

// What rank `from` sends rank `to`: a length that differs per pair (0 for some) and bytes that
// name both ends.
std::vector<char> payload(int from, int to, std::size_t scale) {
  std::vector<char> b((from * 3 + to * 5) % 4 * scale);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<char>(from * 31 + to * 7 + i);
  return b;
}

void check_exchange(parallel_transport& t, std::size_t scale) {
  std::vector<std::vector<char>> out(t.size());
  for (int r = 0; r < t.size(); ++r) out[r] = payload(t.rank(), r, scale);
  const std::vector<std::vector<char>> in = t.exchange(out);
  expect(t, static_cast<int>(in.size()) == t.size(), "exchange returns one buffer per rank");
  for (int r = 0; r < t.size(); ++r)
    expect(t, in[r] == payload(r, t.rank(), scale), "exchange delivers rank " + std::to_string(r) + "'s bytes");
}

void check_collectives(parallel_transport& t) {
  for (std::size_t scale : {1, 10000}) check_exchange(t, scale);
  const uint64_t r = t.rank(), p = t.size();
  expect(t, t.allreduce(10 + r, reduce_op::min) == 10, "allreduce min");
  expect(t, t.allreduce(10 + r, reduce_op::max) == 9 + p, "allreduce max");
  expect(t, t.allreduce(r, reduce_op::sum) == p * (p - 1) / 2, "allreduce sum");
  // Byte 0: each rank's own bit; byte 1: all ones; byte 2: only rank 0's top bit.
  const std::vector<uint8_t> bits{static_cast<uint8_t>(1u << r), 0xff, static_cast<uint8_t>(r == 0 ? 0x80 : 0)};
  const uint8_t every = static_cast<uint8_t>((1u << p) - 1), alone = p == 1 ? 0x80 : 0;
  expect(t, t.allreduce_bits(bits, bits_op::any) == std::vector<uint8_t>{every, 0xff, 0x80}, "allreduce any");
  expect(t, t.allreduce_bits(bits, bits_op::all) == std::vector<uint8_t>{p == 1 ? every : uint8_t{0}, 0xff, alone},
         "allreduce all");
  const std::vector<std::string> texts = t.gather_strings(std::string(r * 3, 'x') + std::to_string(r));
  if (r == 0) {
    expect(t, texts.size() == p, "gather has every rank's text at rank 0");
    for (uint64_t i = 0; i < p; ++i)
      expect(t, texts[i] == std::string(i * 3, 'x') + std::to_string(i), "gather keeps rank order");
  } else {
    expect(t, texts.empty(), "gather gives other ranks nothing");
  }
  t.barrier();
}

// Two transports at once: one with the default chunk, one with 7 bytes, which sends the
// 30 000-byte buffers in rounds as a buffer above 2 GiB would go.
int collectives() {
  transport_options small_chunks;
  small_chunks.chunk_bytes = 7;
  std::unique_ptr<parallel_transport> whole = make_mpi_transport(), chunked = make_mpi_transport(small_chunks);
  check_collectives(*whole);
  check_collectives(*chunked);
  if (whole->rank() == 0) std::printf("collectives: ok on %d ranks\n", whole->size());
  chunked->finalize();
  whole->finalize();
  return 0;
}

// Not a test: the cost of one synchronisation window's collectives (an exchange of 64 bytes to
// every rank and a min-allreduce of the next event time), averaged over many windows.
int latency() {
  std::unique_ptr<parallel_transport> t = make_mpi_transport();
  std::vector<std::vector<char>> out(t->size(), std::vector<char>(64, 'x'));
  const int windows = 20000;
  t->barrier();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < windows; ++i) {
    t->exchange(out);
    t->allreduce(static_cast<uint64_t>(i + t->rank()), reduce_op::min);
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  if (t->rank() == 0)
    std::printf("latency: %.1f us per window (exchange + allreduce) on %d ranks\n", us / windows, t->size());
  t->finalize();
  return 0;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "collectives") return collectives();
  if (mode == "latency") return latency();
  transport_options o;
  if (mode == "hang") o.watchdog_seconds = 2;
  std::unique_ptr<parallel_transport> t = make_mpi_transport(o);
  const int code = run_rank(*t, [&] {
    if (mode == "throw-all") throw config_error("traffic[3].rate: 'fast' is not a rate");
    if (t->rank() == 1) {
      if (mode == "throw") throw config_error("traffic[3].rate: 'fast' is not a rate");
      if (mode == "segv") raise(SIGSEGV);
      if (mode == "kill") raise(SIGKILL);
      if (mode == "exit") std::exit(0);  // without finalize
      if (mode == "hang")
        for (;;) pause();
    }
    t->barrier();
    t->allreduce(1, reduce_op::sum);
    return 0;
  });
  t->finalize();
  return code;
}
