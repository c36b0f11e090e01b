// The scheme "qcn" (IEEE 802.1Qau): the congestion point sends CNMs straight to the source's
// reaction point; QCN has no notification point. qcn.path_ba and qcn.sonar are settings of the
// scheme, read by both ends.
#include "models/cc/scheme.h"

#include "models/cc/qcn/qcn_settings.h"

namespace sluice {
namespace {
const cc_scheme_registrar qcn{"qcn",
                              "IEEE 802.1Qau QCN: CNMs from the switch queue to the source's rate limiter",
                              {cc_fabric::ethernet,
                               "its CNMs are 802.1Qau Ethernet frames (EtherType 0x22E7) addressed to the source's "
                               "MAC, which InfiniBand has no frame for (its counterpart there is ib-cca)"},
                              "qcn",
                              "none",
                              "qcn",
                              {{frame_kind::cnm, "cnm", "CNM"}},
                              [] { qcn_settings::get(); }};
}  // namespace
}  // namespace sluice
