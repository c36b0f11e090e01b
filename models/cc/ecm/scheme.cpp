// The scheme "ecm" (BCN): like QCN, the congestion point sends its feedback (negative and
// positive BCN, as version-1 CNMs) straight to the source; no notification point. The weight
// ecm.w is one setting of the scheme, read by both ends.
#include "models/cc/scheme.h"

#include "models/cc/ecm/ecm_settings.h"

namespace sluice {
namespace {
const cc_scheme_registrar ecm{"ecm",
                              "ECM (BCN): BCN messages from the switch queue to the source's rate limiter",
                              {cc_fabric::ethernet,
                               "its BCN messages are Ethernet frames (802.1Qau CNMs, EtherType 0x22E7) addressed to "
                               "the source's MAC, which InfiniBand has no frame for"},
                              "ecm",
                              "none",
                              "ecm",
                              {{frame_kind::cnm, "cnm", "CNM"}},
                              [] { ecm_settings::get(); }};
}  // namespace
}  // namespace sluice
