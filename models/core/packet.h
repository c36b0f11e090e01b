// Packets: pooled tlm_generic_payloads carrying a packet_header extension.
//
// Each pooled payload owns its header extension for life; acquiring a packet resets the header
// instead of allocating. Ownership moves with the payload: whoever holds it calls release()
// when done (the payload's reference count returns it to the pool).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <tlm>
#include <vector>

namespace sluice {

enum class frame_kind : uint8_t { data = 0, pfc = 1 };
constexpr int num_priorities = 8;

struct packet_header : tlm::tlm_extension<packet_header> {
  frame_kind kind = frame_kind::data;
  uint8_t priority = 0;  // 802.1p priority (IB: SL)
  uint8_t ecn = 0;       // 2-bit ECN code point
  uint32_t flow_id = 0;
  uint32_t src = 0, dst = 0;  // NIC node ids
  uint32_t size = 0;          // bytes on the wire
  uint32_t payload = 0;       // application bytes carried (0 for control frames)
  uint64_t seq = 0;           // byte offset of the first payload byte within its flow
  uint64_t created_ps = 0;    // when the NIC built the frame
  uint16_t ingress_port = 0;  // switch-local: the port the frame came in on
  uint64_t ready_ps = 0;      // switch-local: when the frame clears the forwarding pipeline
  uint16_t hops = 0;
  std::array<uint8_t, 64> bytes{};  // wire image of control frames (PFC); unused for data

  // Everything but the wire image (control frames write all of it): 64 bytes less to clear.
  void reset() {
    auto wire = bytes;
    *this = packet_header{};
    bytes = wire;
  }
  tlm::tlm_extension_base* clone() const override { return new packet_header(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const packet_header&>(other); }
};

// Every payload in flight comes from packet_pool, which allocates this subclass: the header is
// reached without the extension lookup (it is also attached as an extension for generic tools).
struct pooled_payload : tlm::tlm_generic_payload {
  explicit pooled_payload(tlm::tlm_mm_interface* mm) : tlm::tlm_generic_payload(mm) {}
  packet_header* hdr = nullptr;
};

inline packet_header& header(tlm::tlm_generic_payload& p) { return *static_cast<pooled_payload&>(p).hdr; }

class packet_pool : public tlm::tlm_mm_interface {
 public:
  static packet_pool& instance();
  // Returns a payload with reference count 1 and a reset header.
  tlm::tlm_generic_payload* acquire();
  void free(tlm::tlm_generic_payload* p) override;
  std::size_t allocated() const { return all_.size(); }
  std::size_t in_use() const { return all_.size() - free_.size(); }

 private:
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> all_;
  std::vector<tlm::tlm_generic_payload*> free_;
};

}  // namespace sluice
