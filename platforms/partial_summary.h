// Gathering a partitioned run's outputs (docs/parallel.md, "Gathering the outputs"): each
// partition emits a partial summary and partial CSV series holding only what its own nodes
// measured, plus the raw material of what is global; rank 0 merges the P partials into the
// summary.json and the CSVs the single-process run writes, byte for byte.
//
// A partial is a plain JSON document (send it with to_partial_bytes: CBOR, which keeps every
// double exactly, NaN and infinities too). A partial summary is summary.json's document with the
// owned entries only and a hidden member "_partial" (the raw material), stripped on merge.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "platforms/sampler.h"

namespace sluice {

class simulation;

// What summary.json's global members are made of: sums over the nodes a process owns (and, for
// the process-level ones, over the process), added up across partitions.
struct summary_raw {
  uint64_t drops = 0, lossless_drops = 0, pause_frames = 0, credit_packets = 0;
  uint64_t cnp_frames = 0, cnm_frames = 0, ack_frames = 0;
  std::map<std::string, uint64_t> other_feedback;  // "<kind>_frames" of a scheme's own kinds
  double fecn_marks = 0;                           // IB: the switches' .cca.fecn_marks counters
  uint64_t unroutable = 0, misdelivered = 0;
  uint64_t paused_port_ps = 0;
  uint64_t packet_hops = 0, trace_dropped_rows = 0;  // process-level
  double wall_s = 0, elaboration_s = 0;              // the slowest partition's
  uint64_t now_ps = 0, flows = 0;                    // the same in every partition
  bool ib = false;

  summary_raw& operator+=(const summary_raw& o);
  nlohmann::json to_json() const;
  static summary_raw from_json(const nlohmann::json& j);
};

// summary.json's "totals": from the raw sums and the FCTs of the completed flows in flow order.
nlohmann::json summary_totals(const summary_raw& raw, const std::vector<double>& fcts, uint64_t completed);
// The warnings that follow the per-port ones (frames with no route, misdelivered, trace overflow).
void append_tail_warnings(const summary_raw& raw, nlohmann::json& warnings);

// A partial's per-sample counts of the (port, class) pairs held (paused; on InfiniBand, starved
// for credit) among its own columns, and the congestion tree they give: what the sampler finds
// over the whole fabric, found again from the summed counts.
nlohmann::json held_per_sample(const sampler& s, const fabric& f);
nlohmann::json congestion_tree(const nlohmann::json& held, const summary_raw& raw);

// This process's partial summary: what its owned nodes measured (fabric::owns). With
// process_level false it leaves out what the process as a whole measured (packet hops, the
// "sluice.*" and other ownerless counters, the frame trace's overflow): for emulating P
// partitions in one process, where only one of the P partials may carry them.
nlohmann::json partial_summary(const simulation& sim, bool process_level = true);
// The single-process summary document, from the P partials in any order (rank order keeps
// the deadlocks of equal detection time in rank order).
nlohmann::json merge_summaries(const std::vector<nlohmann::json>& partials);

// This process's partial CSV series: the owned columns of every series, with their order keys,
// and the raw material of the derived "all workload flows" column. With the sampler keeping
// the workload bytes by receiver, the raw material follows the ownership set now (emulation).
nlohmann::json partial_series(const simulation& sim);
// The single-process CSV series, by file name without ".csv", in the order written.
std::vector<std::pair<std::string, series>> merge_series(const std::vector<nlohmann::json>& partials);

// A partial as bytes to send between processes, and back.
std::string to_partial_bytes(const nlohmann::json& partial);
nlohmann::json from_partial_bytes(const std::string& bytes);

// The text table of a summary document (simulation::table; a merged summary's).
std::string summary_table(const nlohmann::json& summary);

// Writes a merged summary and merged series into `dir` as simulation::write_outputs writes
// the single-process run's (the same bytes).
void write_merged_outputs(const std::string& dir, const nlohmann::json& summary,
                          const std::vector<std::pair<std::string, series>>& csvs);

}  // namespace sluice
