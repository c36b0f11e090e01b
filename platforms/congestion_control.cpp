#include "platforms/congestion_control.h"

#include "models/core/units.h"

namespace sluice {

const std::vector<cc_scheme>& cc_schemes() {
  // A scheme joins this table when its policies are registered (qcn, ecm, timely, pcn, ... next).
  static const std::vector<cc_scheme> schemes = {
      {"none", "none", "none", "none", cc_fabric::any},
      {"dcqcn", "dcqcn", "dcqcn", "dcqcn"},
      {"qcn", "qcn", "none", "qcn"},  // QCN has no notification point: the CP sends CNMs to the source
      {"pcn", "pcn", "pcn", "pcn"},
      {"dcqcn+tcd", "tcd", "dcqcn-tcd", "dcqcn-tcd"},  // TCD's ternary detector under DCQCN
      {"timely", "none", "timely", "timely"},  // TIMELY needs no switch support: RTT from the receiver's ACKs
      {"ecm", "ecm", "none", "ecm"},  // like QCN: the CP sends BCN to the source
      {"ib-cca", "ib-cca", "ib-cca", "ib-cca", cc_fabric::infiniband},  // InfiniBand: FECN at switches, BECN from the destination
      {"ib-cca+tcd", "tcd", "ib-cca-tcd", "ib-cca-tcd", cc_fabric::infiniband},  // TCD's detector, UE/CE in the BTH, under IB CCA
  };
  return schemes;
}

std::string cc_scheme_names() {
  std::string names;
  for (const cc_scheme& s : cc_schemes()) names += std::string(names.empty() ? "" : ", ") + s.name;
  return names;
}

const cc_scheme& cc_scheme_named(const std::string& name, const std::string& key) {
  for (const cc_scheme& s : cc_schemes())
    if (name == s.name) return s;
  throw config_error(key + ": '" + name + "' is not one of {" + cc_scheme_names() + "}");
}

void check_cc_fabric(const cc_scheme& scheme, bool infiniband, const std::string& key) {
  const cc_fabric here = infiniband ? cc_fabric::infiniband : cc_fabric::ethernet;
  if (scheme.fabric == cc_fabric::any || scheme.fabric == here) return;
  std::string fits;
  for (const cc_scheme& s : cc_schemes())
    if (s.fabric == cc_fabric::any || s.fabric == here) fits += std::string(fits.empty() ? "" : ", ") + s.name;
  throw config_error(key + ": '" + scheme.name + "' is a scheme for " +
                     (infiniband ? "Ethernet (CEE) fabrics, and this one is InfiniBand (link_layer: ib)"
                                 : "InfiniBand fabrics, and this one is Ethernet (CEE)") +
                     ": one of {" + fits + "}");
}

}  // namespace sluice
