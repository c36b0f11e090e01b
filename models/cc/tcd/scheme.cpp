// The schemes with TCD's ternary detector (SIGCOMM'21) as congestion point: under DCQCN
// ("dcqcn+tcd", UE and CE code points in the IP header) and under IB CCA ("ib-cca+tcd", UE in a
// reserved BTH bit, CE as FECN).
#include "models/cc/scheme.h"

namespace sluice {
namespace {
const cc_scheme_registrar dcqcn_tcd{"dcqcn+tcd",
                                    "TCD's ternary detector under DCQCN (CE and UE code points)",
                                    cc_fabric::ethernet,
                                    "tcd",
                                    "dcqcn-tcd",
                                    "dcqcn-tcd",
                                    {{frame_kind::cnp, "cnp", "CNP"}}};
const cc_scheme_registrar ib_cca_tcd{"ib-cca+tcd",
                                     "TCD's ternary detector under IB CCA (UE in the BTH)",
                                     cc_fabric::infiniband,
                                     "tcd",
                                     "ib-cca-tcd",
                                     "ib-cca-tcd",
                                     {{frame_kind::cnp, "cnp", "CNP"}}};
}  // namespace
}  // namespace sluice
