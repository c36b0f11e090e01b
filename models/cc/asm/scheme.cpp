// The scheme "asm" (Adaptive Sliding Mode): like QCN and ECM, the congestion point sends its
// feedback (an ASM CNM, version 2, carrying Qoff and Qdelta in 8 bits each) straight to the
// source; no notification point. Ethernet only: on a credit-controlled InfiniBand VL the queue
// drains at the credit rate, not the capacity, so Qdelta does not measure R - C, and IB has no
// frame for the two fields (docs/models/asm.md, "InfiniBand"). The weight asm.w and the two
// field quanta are settings of the scheme, read by both ends.
#include "models/cc/scheme.h"

#include "models/cc/asm/asm_settings.h"

namespace sluice {
namespace {
const cc_scheme_registrar asm_scheme{
    "asm",
    "ASM (adaptive sliding mode): Qoff and Qdelta from the switch queue to the "
    "source's variable-structure rate law",
    {cc_fabric::ethernet,
     "on a credit-controlled VL the queue drains at the credit rate, not the link's, so Qdelta does not measure R - C, "
     "and InfiniBand has no frame for the Qoff and Qdelta fields"},
    "asm",
    "none",
    "asm",
    {{frame_kind::cnm, "cnm", "CNM"}},
    [] { asm_settings::get(); }};
}  // namespace
}  // namespace sluice
