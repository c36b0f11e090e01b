// The scheme "ib-cca" (IBTA A10): FECN marking at the switches, a CNP with BECN from the
// destination, CCT-indexed injection delays at the source. InfiniBand fabrics only.
#include "models/cc/scheme.h"

namespace sluice {
namespace {
const cc_scheme_registrar ib_cca{
    "ib-cca",
    "InfiniBand CCA: FECN at switches, BECN from the destination, CCT at the source",
    {cc_fabric::infiniband,
     "FECN and BECN are InfiniBand BTH bits, which an Ethernet frame does not carry (the RoCEv2 counterpart is dcqcn)"},
    "ib-cca",
    "ib-cca",
    "ib-cca",
    {{frame_kind::cnp, "cnp", "CNP"}}};
}  // namespace
}  // namespace sluice
