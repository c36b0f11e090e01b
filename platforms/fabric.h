// A fabric: the SystemC modules of a scenario's topology, wired and routed.
// Constructing it elaborates; one fabric per process (SystemC elaborates once).
// Routing lives in routing.*; the platform kinds that produce topologies in builders.*.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/cc/scheme.h"
#include "models/link/link.h"
#include "models/nic/nic.h"
#include "models/switch/switch_model.h"
#include "platforms/routing.h"
#include "platforms/scenario.h"

namespace sluice {

// One side of a link: which node (id) and which of its ports.
struct port_ref {
  uint32_t node = 0;
  int port = 0;
  mac_port* mac = nullptr;
  pfc* flow_control = nullptr;
  credit_flow_control* credits = nullptr;  // InfiniBand
};

struct link_entry {
  std::unique_ptr<link> model;
  port_ref a, b;       // in a partitioned run, an end in another partition has no mac
  uint32_t index = 0;  // in the topology's links
};

class fabric {
 public:
  // With an owner per node (docs/parallel.md), only the nodes of partition `rank` are built, and
  // the links that reach one of them; a link direction between partitions ships its frames
  // through set_shipper(). Without: the whole fabric.
  explicit fabric(const scenario& s, const std::vector<uint32_t>& owner = {}, uint32_t rank = 0);
  ~fabric();

  const scenario& spec() const { return scenario_; }
  // Which nodes this process simulates (docs/parallel.md): all of them unless the run is split
  // into partitions. A partitioned run elaborates only its own nodes; reports emit only what a
  // node this process owns measured (a link direction belongs to its transmitting node), so the
  // partial reports of all partitions merge into the single-process one.
  bool owns(uint32_t node) const { return owner_.empty() || owner_[node] == rank_; }
  // owner[node] = partition of each node, this process being `rank`; an empty owner: all nodes.
  void set_ownership(std::vector<uint32_t> owner, uint32_t rank) {
    owner_ = std::move(owner);
    rank_ = rank;
  }
  uint32_t node_id(const std::string& name) const { return node_ids_.at(name); }
  bool partitioned() const { return !owner_.empty(); }
  // A partitioned run: the link directions whose receiver is in another partition ship their
  // frames to `s`; link_channel_at(n) is direction n (2 x link index, + 1 for b->a) if this
  // process holds that link, else null.
  void set_shipper(frame_shipper* s);
  // A windowed run (docs/parallel.md, windows): the whole fabric, and the link directions whose
  // two ends are in different partitions by `owner` ship their frames to `s`.
  void ship_cut_links(frame_shipper* s, const std::vector<uint32_t>& owner);
  link_channel* link_channel_at(uint32_t n);
  flow_table flows;
  std::vector<std::unique_ptr<switch_model>> switches;
  std::vector<std::unique_ptr<nic>> nics;
  std::vector<link_entry> links;

  link& link_named(const std::string& name);
  bool holds_link(const std::string& name) const;         // this process has the link (a "a-b" name)
  bool topology_has_link(const std::string& name) const;  // some partition has it
  const nic& nic_at(uint32_t node_id) const { return *nic_of_node_.at(node_id); }  // a NIC's node id
  const switch_model* switch_named(const std::string& name) const;                 // nullptr if not a switch
  // Recomputes defaults that depend on other parameters (PFC headroom from the link rate and
  // delay, the peer's pause response and the largest NIC frame); call after overrides.
  // A partitioned run gives the largest frame over all partitions (max_over_parts of this one's)
  // and the pause response of each cut link's far port (set_far_responses) first.
  void derive_defaults(const std::function<uint64_t(uint64_t)>& max_over_parts = {});
  // The pause response (ps) of each link end this process holds, at 2 x link index + side (0: a,
  // 1: b), 0 elsewhere; and those of the ends other partitions hold, gathered the same way.
  std::vector<uint64_t> near_responses() const;
  void set_far_responses(std::vector<uint64_t> responses) { far_response_ps_ = std::move(responses); }
  // Makes the policies chosen by name that declare parameters of their own (congestion,
  // notification and reaction points); between the two passes of the overrides.
  void make_policies();
  // Chooses each flow's congestion-control scheme (cc_scheme): `all` if not empty (--cc),
  // else the flow's own (`cc:` in its traffic group), else none is chosen. For each flow with a
  // scheme: <src>.rp, <dst>.np, and <sw>.port<i>.prio<k>.cp on every switch port at the flow's
  // class. Before the overrides, which may change any of these afterwards.
  void choose_congestion_control(const std::string& all);
  // Cross-parameter checks of the chosen policies (Kmin <= Kmax, Qeq within the buffer, ...)
  // and that every flow's scheme keeps its congestion point on its paths; after the overrides
  // and derive_defaults.
  void check_policies() const;
  // Receivers resequence where a switch may reorder a flow (an adaptive or random forwarding
  // policy, or NICs that spread flows over paths), and switches honour path ids where a NIC chooses them.
  // A partitioned run decides both over all partitions (any_over_parts: true if any part says so).
  void arm_resequencing(const std::function<bool(bool)>& any_over_parts = {});
  // Name of the node on the far side of a node's port.
  const std::string& peer_of(const std::string& node, int port) const;
  // Settings that quietly limit the run, found by derive_defaults (one line each): the CLI and
  // Python print them on stderr and the summary lists them under warnings[].
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The schemes some flow runs (choose_congestion_control), in flow order.
  const std::vector<const cc_scheme*>& schemes_in_use() const { return chosen_; }

 private:
  void check_topology() const;
  void check_credits() const;  // InfiniBand: every used SL has a VL with credit on every link
  void check_congestion_points() const;

  scenario scenario_;
  std::vector<uint32_t> owner_;  // partition of each node; empty: one partition
  uint32_t rank_ = 0;
  std::vector<std::unique_ptr<class remote_end>> remote_ends_;  // the other side of cut links
  std::vector<int32_t> link_slot_;                              // topology link -> links index, -1
  std::vector<uint64_t> far_response_ps_;                       // see set_far_responses
  name_index node_ids_;                                         // topology order
  std::vector<switch_model*> switch_of_node_;                   // by node id; nullptr for NICs
  std::vector<nic*> nic_of_node_;                               // by node id; nullptr for switches
  std::unique_ptr<port_graph> graph_;
  path_plan paths_;                           // the path ids the switches' trees offer (R3C2)
  std::vector<const cc_scheme*> cc_of_flow_;  // by flow id; nullptr: no scheme chosen
  std::vector<std::string> warnings_;
  std::vector<const cc_scheme*> chosen_;                    // the schemes some flow runs, in flow order
  std::vector<std::unique_ptr<cc_observer_if>> observers_;  // the chosen schemes' switch-side parts
};

// Applies the scenario's `params:` then the command line's `--set` overrides, in order.
// require_match false: a pattern that matches nothing is skipped (the first pass, before the
// policies chosen by name have declared their own parameters) and its position returned.
std::vector<std::size_t> apply_overrides(const std::vector<std::pair<std::string, std::string>>& overrides,
                                         const std::string& origin, bool require_match = true);

}  // namespace sluice
