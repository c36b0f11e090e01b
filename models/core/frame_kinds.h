// The registry of frame kinds: what a receiver does with each kind, and the per-kind statistics
// of a NIC. The kinds the fabric itself needs (data, PFC, IB credits) are registered here; a
// congestion-control scheme registers the feedback kinds it adds (CNM, CNP, ACK) from its own
// folder (models/cc/<scheme>/), and a new scheme may register a new kind, which takes the next
// free number. The numbers of the shipped kinds are fixed (frame_kind in packet.h).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/core/packet.h"
#include "models/core/stats.h"

namespace sluice {

// What a NIC does with a frame of the kind when it arrives.
enum class frame_role : uint8_t {
  unknown,     // not registered: counted as misdelivered
  data,        // a flow's payload: counted per flow, shown to the notification point
  link_local,  // consumed by the receiving port's flow control (PFC, credits); never reaches a NIC
  feedback,    // about a flow this NIC sends: delivered to the flow's reaction point
};

struct frame_kind_info {
  frame_kind kind;
  std::string name;   // "cnm": the NIC statistics <nic>.<name>_received and <name>_sent
  std::string label;  // "CNM", in descriptions
  frame_role role;
  stat_desc received, sent;  // feedback kinds: the NIC's per-kind statistics (reading a uint64_t)
  std::string leaf_received, leaf_sent, text_received, text_sent;  // what received and sent point at
};

class frame_kind_registry {
 public:
  static frame_kind_registry& instance();
  // Registers `kind` under `name`; the same kind registered again with the same name and role
  // (two schemes sharing a feedback kind) is a no-op, a conflicting one a model error.
  frame_kind add(frame_kind kind, const std::string& name, const std::string& label, frame_role role);
  // Registers a new kind with the next free number from shipped_frame_kinds on.
  frame_kind add(const std::string& name, const std::string& label, frame_role role);
  frame_role role(frame_kind k) const {
    const auto i = static_cast<uint8_t>(k);
    return i < max_frame_kinds ? role_[i] : frame_role::unknown;
  }
  const frame_kind_info* find(frame_kind k) const;
  const frame_kind_info* find(const std::string& name) const;
  // Every registered kind, by number.
  std::vector<const frame_kind_info*> kinds() const;

 private:
  frame_kind_registry();
  std::array<frame_role, max_frame_kinds> role_{};
  std::vector<std::unique_ptr<frame_kind_info>> infos_;
};

// One line at namespace scope registers a kind: `const frame_kind_registrar cnm{frame_kind::cnm,
// "cnm", "CNM", frame_role::feedback};` (a kind without a fixed number: omit the first argument;
// its number is then `kind`).
struct frame_kind_registrar {
  frame_kind_registrar(frame_kind k, const char* name, const char* label, frame_role role)
      : kind(frame_kind_registry::instance().add(k, name, label, role)) {}
  frame_kind_registrar(const char* name, const char* label, frame_role role)
      : kind(frame_kind_registry::instance().add(name, label, role)) {}
  frame_kind kind;
};

}  // namespace sluice
