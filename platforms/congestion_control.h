// Congestion-control schemes by name (`sluice run --cc NAME`, a traffic group's `cc:`): each
// names the congestion point put on every switch egress queue of the traffic's classes, the
// notification point of the receiving NICs and the reaction point of the sending NICs, all
// policies chosen by name from their registries (docs/architecture.md, "Policies by name").
#pragma once
#include <string>
#include <vector>

namespace sluice {

// Which fabric a scheme's feedback belongs to: RoCEv2 CNPs/ACKs, ECN bits and 802.1Qau CNMs are
// Ethernet frames; FECN/BECN are InfiniBand BTH bits.
enum class cc_fabric { any, ethernet, infiniband };

struct cc_scheme {
  const char* name;
  const char* cp;  // <sw>.port<i>.prio<k>.cp
  const char* np;  // <receiver>.np
  const char* rp;  // <sender>.rp
  cc_fabric fabric = cc_fabric::ethernet;
};

// The schemes, in the order errors list them.
const std::vector<cc_scheme>& cc_schemes();
// "none, dcqcn, qcn, ...": the names in table order, for errors and --help.
std::string cc_scheme_names();
// The scheme called `name`; else config_error "<key>: 'x' is not one of {none, dcqcn, qcn, ...}".
const cc_scheme& cc_scheme_named(const std::string& name, const std::string& key);
// `scheme` on a fabric that is (or is not) InfiniBand; else config_error "<key>: 'dcqcn' is a
// scheme for Ethernet (CEE) fabrics, and this one is InfiniBand (link_layer: ib): one of {...}".
void check_cc_fabric(const cc_scheme& scheme, bool infiniband, const std::string& key);

}  // namespace sluice
