// The schemes with TCD's ternary detector (SIGCOMM'21) as congestion point: under DCQCN
// ("dcqcn+tcd", UE and CE code points in the IP header) and under IB CCA ("ib-cca+tcd", UE in a
// reserved BTH bit, CE as FECN).
#include "models/cc/scheme.h"

namespace sluice {
namespace {
const cc_scheme_registrar dcqcn_tcd{
    "dcqcn+tcd",
    "TCD's ternary detector under DCQCN (CE and UE code points)",
    {cc_fabric::ethernet, "its UE and CE code points live in the IP header's ECN field (on InfiniBand use ib-cca+tcd)"},
    "tcd",
    "dcqcn-tcd",
    "dcqcn-tcd",
    {{frame_kind::cnp, "cnp", "CNP"}}};
const cc_scheme_registrar ib_cca_tcd{"ib-cca+tcd",
                                     "TCD's ternary detector under IB CCA (UE in the BTH)",
                                     {cc_fabric::infiniband,
                                      "its UE mark is a reserved BTH bit and its CE is FECN, which an Ethernet frame "
                                      "does not carry (on CEE use dcqcn+tcd)"},
                                     "tcd",
                                     "ib-cca-tcd",
                                     "ib-cca-tcd",
                                     {{frame_kind::cnp, "cnp", "CNP"}}};
}  // namespace
}  // namespace sluice
