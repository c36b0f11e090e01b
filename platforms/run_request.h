// A run's options as text, as the command line and the Python module receive them, checked and
// parsed into run_options in one place so both give the same one-line errors. `prefix` names
// an option in those errors: "--" on the command line ("--until: ..."), "" in Python.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "platforms/simulation.h"

namespace sluice {

struct run_request {
  std::vector<std::pair<std::string, std::string>> sets;  // (pattern, value), in order
  std::optional<std::string> until, sample_period, seed, cc, profile;
  bool allow_inert = false;
  // Packet captures: the folder, the ports (globs), the frame kinds and the time window.
  std::optional<std::string> pcap, capture_kinds, capture_window;
  std::vector<std::string> capture;
  std::optional<std::string> trace_frames;  // a frame trace's filter
  // Waveforms: the VCD file, the signal patterns, the time window.
  std::optional<std::string> vcd, trace_window;
  std::vector<std::string> trace;
  // The results store: its file, whether the CSV series go in too, tags (a JSON object).
  std::optional<std::string> store, store_tags;
  bool store_series = false;
  // One process, the fabric in this many partitions run window by window (docs/parallel.md),
  // and how they are chosen (platforms/partition.h).
  std::optional<std::string> window_partitions, partition_method;
  // The threads that drain a window's partitions at once (partition p on thread p % threads).
  std::optional<std::string> window_threads;
};

run_options parse_run_request(const run_request& r, const std::string& prefix);

// "PATH=VALUE" (a --set argument) split at its first '='; `key` names the option in errors.
std::pair<std::string, std::string> split_set_argument(const std::string& text, const std::string& key);

}  // namespace sluice
