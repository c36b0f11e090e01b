// A rate limiter a test steers by hand: it lets a frame go at `next` (which the test, or a
// subclass's on_send, moves) and counts the frames it was told of. It has no rate of its own.
#pragma once
#include <cstdint>

#include "models/cc/rate_limiter.h"

namespace sluice::test {

struct scripted_limiter : rate_limiter_if {
  uint64_t next = 0;
  int sends = 0;
  void set_rate(data_rate) override {}
  data_rate rate() const override { return data_rate{0}; }
  uint64_t next_send_ps() const override { return next; }
  void on_send(uint64_t, uint64_t, data_rate) override { ++sends; }
};

}  // namespace sluice::test
