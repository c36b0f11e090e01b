// Splitting a fabric into P partitions for a run across P processes (docs/parallel.md#partitioning):
// which process owns each node, the links that cross partitions and the lookahead they leave.
// Units of work are switches: every NIC goes with the switch its one link reaches, so host links
// never cross. No MPI here: the plan is the same on every rank and in the plain build.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "platforms/topology.h"

namespace sluice {

// Above this max/mean part weight a plan carries a warning ("unbalanced partition").
constexpr double unbalanced_above = 1.25;

struct partition_plan {
  int parts = 1;
  std::string method;             // the method that made it (auto: the one it chose)
  std::vector<uint32_t> owner;    // by node id (position in topology_spec::nodes): its part
  std::vector<uint64_t> weights;  // per part: its switches and NICs (1 each, a proxy for work)
  double imbalance = 1.0;         // heaviest part's weight / mean weight
  std::vector<uint32_t> cut;      // indices into topology_spec::links whose ends are in two parts
  // The smallest cut link's delay plus the serialization of the smallest frame the fabric sends
  // (64 B on CEE, a 6 B credit packet on InfiniBand) at its rate: no frame sent in one part at t
  // reaches another before t + lookahead_ps. No cut link: the largest value.
  uint64_t lookahead_ps = std::numeric_limits<uint64_t>::max();
  uint32_t lookahead_link = 0;  // the cut link that sets it (when cut is not empty)
  std::string warning;          // one line when imbalance > unbalanced_above, else empty
};

// The partitioning methods, for errors and help: "auto", "metis", "pod", "blocks".
const std::vector<std::string>& partition_methods();
// True when this build has METIS (SLUICE_WITH_METIS); without it "metis" is a one-line error.
bool have_metis();

// metis: METIS's balanced k-way cut over the switch graph (vertex weight 1 + attached NICs, edge
//        weight the link rate in Gb/s), with a fixed seed: the same plan on every run and rank.
// pod:   the switches below the top tier in connected groups (a fat tree's pods, a leaf-spine's
//        leaves) split in node order into contiguous runs, the heaviest as light as such a split
//        allows; then each top-tier switch to the lightest part so far. A fabric without tiers,
//        or with fewer pods than parts, splits as `blocks`.
// blocks: the switches in node order, split into contiguous runs the same way.
// auto:  each of these; among the plans within 0.05 of the best balance, the largest lookahead,
//        then the fewest cut links, then pod before metis before blocks. Errors only if all fail.
// Errors (config_error, one line): parts < 1 or above the switch count, an unknown method, a
// cut link of zero delay (naming it: it leaves no lookahead). `option` names the count in them.
partition_plan plan_partitions(const topology_spec& t, int parts, const std::string& method,
                               const std::string& option = "--partitions");

}  // namespace sluice
