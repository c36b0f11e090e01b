// One egress queue as a congestion point sees it, after the change being reported.
#pragma once
#include <cstdint>

#include "models/link/flow_control.h"

namespace sluice {

struct queue_view {
  int port = 0, cls = 0;
  // The queue a congestion point measures: the frames that have cleared the switch pipeline.
  // A real switch's egress queue (the one its ECN/RED, QCN or IB CCA logic reads) holds only
  // those; frames still in the forwarding pipeline have not reached it. On enqueue the arriving
  // frame is counted (the queue it joins), on dequeue the departing one is not (the queue it
  // leaves behind). docs/models/switch.md, "Congestion points".
  uint64_t bytes = 0;
  uint32_t frames = 0;
  uint64_t port_mac = 0;                  // the egress port's MAC address (a CPID source)
  const flow_control_if* gate = nullptr;  // the port's flow control: its ON-OFF pattern (NP-ECN, TCD)
  // The bytes this queue holds in the switch's buffer: `bytes` and the frames still in the
  // pipeline (the depth queue_depth.csv and the queue_bytes statistic report).
  uint64_t held_bytes = 0;
};

}  // namespace sluice
