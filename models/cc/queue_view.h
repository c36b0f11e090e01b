// One egress queue as a congestion point sees it, after the change being reported.
#pragma once
#include <cstdint>

#include "models/link/flow_control.h"

namespace sluice {

struct queue_view {
  int port = 0, cls = 0;
  uint64_t bytes = 0;  // queue depth (frames in the pipeline included)
  uint32_t frames = 0;
  uint64_t port_mac = 0;                  // the egress port's MAC address (a CPID source)
  const flow_control_if* gate = nullptr;  // the port's flow control: its ON-OFF pattern (NP-ECN, TCD)
  // Bytes that have cleared the switch pipeline and wait in the queue: frames still in the
  // pipeline (ready_ps in the future) have not reached the queue yet (TCD's queue). Counted up
  // to the first frame still in the pipeline (a queue leaves in order).
  uint64_t waiting_bytes = 0;
};

}  // namespace sluice
