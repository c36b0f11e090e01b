// Congestion-control schemes: one object per scheme, registered from the scheme's own folder
// (models/cc/<scheme>/scheme.cpp) with one cc_scheme_registrar. A scheme names
//   - its name, chosen by `sluice run --cc NAME` or a traffic group's `cc:`;
//   - the fabrics it runs on (its feedback is Ethernet frames, or InfiniBand BTH bits);
//   - its roles: the congestion point put on every switch queue of the traffic's classes, the
//     notification point of the receiving NICs and the reaction point of the sending NICs, each a
//     policy of its role's registry (cp_policies, np_policies, rp_policies), and optionally a
//     switch-side observer (one per switch, for what needs to watch a whole switch: adaptive
//     routing);
//   - its scheme-wide parameters, declared once (declare): `qcn.path_ba` is one setting that
//     both the congestion point and the reaction point read;
//   - the feedback frame kinds it adds (registered in frame_kind_registry).
// The platform only asks this registry; a new scheme is one folder and one registration (see
// docs/architecture.md, "How to add a scheme").
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/core/packet.h"

namespace sc_core {
class sc_object;
}

namespace sluice {

// Which fabric a scheme's feedback belongs to: RoCEv2 CNPs/ACKs, ECN bits and 802.1Qau CNMs are
// Ethernet frames; FECN/BECN are InfiniBand BTH bits.
enum class cc_fabric { any, ethernet, infiniband };

// Where a scheme runs, and in the scheme's own words why not on the other fabric (appended to
// the error of a run that asks for it there). Converts from a bare cc_fabric.
struct cc_fabric_fit {
  cc_fabric fabric = cc_fabric::ethernet;
  std::string why_not_elsewhere;
  cc_fabric_fit(cc_fabric f, std::string why = {}) : fabric(f), why_not_elsewhere(std::move(why)) {}  // NOLINT
};

// A scheme's optional switch-side part: one per switch of a fabric that runs the scheme.
class cc_observer_if {
 public:
  virtual ~cc_observer_if() = default;
};

struct cc_scheme {
  std::string name;
  std::string description;
  cc_fabric fabric = cc_fabric::ethernet;
  std::string fabric_reason;  // why not on the other fabric, in the scheme's words ("" : none given)
  std::string cp = "none", np = "none", rp = "none";  // the role policies, by registered name
  struct feedback_kind {
    frame_kind kind;
    std::string name, label;  // "cnm", "CNM": the NIC statistics cnm_received and cnm_sent
  };
  std::vector<feedback_kind> feedback;  // the feedback kinds it adds (registered with the scheme)
  // Declares the scheme-wide parameters (once per run; the roles also declare them when made).
  std::function<void()> declare;
  // The switch-side observer of one switch (null: none).
  std::function<std::unique_ptr<cc_observer_if>(const sc_core::sc_object& sw)> observer;
};

class cc_scheme_registry {
 public:
  static cc_scheme_registry& instance();
  void add(cc_scheme s);  // a name registered twice is a model error
  const cc_scheme* find(const std::string& name) const;
  const std::vector<std::unique_ptr<cc_scheme>>& all() const { return schemes_; }  // registration order
  // "none, dcqcn, qcn, ...": the names in registration order, for errors and --help.
  std::string names() const;
  // The scheme called `name`; else config_error "<key>: 'x' is not one of {none, dcqcn, ...}".
  const cc_scheme& named(const std::string& name, const std::string& key) const;
  // The names of the schemes that run on an InfiniBand (or an Ethernet) fabric, in registration
  // order ("none, ib-cca, ib-cca+tcd").
  std::string names_for(bool infiniband) const;
  // `scheme` on a fabric that is (or is not) InfiniBand; else config_error "<key>: 'dcqcn' is a
  // scheme for Ethernet (CEE) fabrics, and this one is InfiniBand (link_layer: ib): <the scheme's
  // reason>; one of {...}".
  void check_fabric(const cc_scheme& scheme, bool infiniband, const std::string& key) const;

 private:
  std::vector<std::unique_ptr<cc_scheme>> schemes_;
};

// One line at namespace scope in the scheme's folder registers it (and its feedback kinds) at
// static initialisation.
struct cc_scheme_registrar {
  cc_scheme_registrar(std::string name, std::string description, cc_fabric_fit fabric, std::string cp, std::string np,
                      std::string rp, std::vector<cc_scheme::feedback_kind> feedback = {},
                      std::function<void()> declare = {}, decltype(cc_scheme::observer) observer = {});
};

}  // namespace sluice
