// The empty congestion, notification and reaction points (each role's "none"); the others
// register in their scheme's folder.
#include "models/cc/congestion_point.h"
#include "models/cc/notification_point.h"
#include "models/cc/reaction_point.h"

namespace sluice {

namespace {
const policy_registrar<cp_policies> no_cp{
    "none", "no congestion point",
    [](const sc_core::sc_object&, int, frame_injector_if&) { return std::unique_ptr<congestion_point_if>(); }};
const policy_registrar<np_policies> no_np{"none", "no notification point",
                                          [](const sc_core::sc_object&, control_sender_if&, const flow_table&) {
                                            return std::unique_ptr<notification_point_if>();
                                          }};
const policy_registrar<rp_policies> no_rp{
    "none", "no reaction point: flows keep their configured rate",
    [](const sc_core::sc_object&, const mac_port&) { return std::unique_ptr<reaction_point_maker>(); }};
}  // namespace

namespace probes {
probe_kind cp_sample{"sample", "a sampling congestion point (QCN, ECM) computed Fb at a sampled frame",
                     "Fb, bytes, signed (two's complement; negative: congestion)"};
}  // namespace probes

void check_within_buffer(const param<byte_count>& depth, int cls, uint64_t buffer_bytes) {
  if (depth().bytes > buffer_bytes)
    throw config_error(depth.name() + ": '" + format_bytes(depth()) + "' is above the switch buffer of class " +
                       std::to_string(cls) + " (" + format_bytes(byte_count{buffer_bytes}) +
                       ": shared pool, reserves and headroom)");
}

}  // namespace sluice
