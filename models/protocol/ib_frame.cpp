#include "models/protocol/ib_frame.h"

#include "models/protocol/wire_format.h"

namespace sluice::ib {

std::size_t encode(const route_headers& h, uint8_t* b) {
  wire::put8(b, 0, static_cast<uint8_t>((h.vl & 0xF) << 4));        // LVer 0
  wire::put8(b, 1, static_cast<uint8_t>((h.sl & 0xF) << 4 | 0x2));  // LNH: IBA local (BTH follows)
  wire::put16(b, 2, h.dlid);
  wire::put16(b, 4, static_cast<uint16_t>(h.packet_words & 0x7FF));
  wire::put16(b, 6, h.slid);
  wire::put8(b, 8, h.opcode);
  wire::put8(b, 9, 0);
  wire::put16(b, 10, 0xFFFF);
  wire::put8(b, 12, static_cast<uint8_t>((h.fecn ? 0x80 : 0) | (h.becn ? 0x40 : 0) | (h.ue ? 0x20 : 0)));
  wire::put24(b, 13, h.dest_qp);
  wire::put32(b, 16, h.psn & 0xFFFFFF);
  return lrh + bth;
}

void decode(const uint8_t* b, route_headers& h) {
  h.vl = b[0] >> 4;
  h.sl = b[1] >> 4;
  h.dlid = wire::get16(b, 2);
  h.packet_words = wire::get16(b, 4) & 0x7FF;
  h.slid = wire::get16(b, 6);
  h.opcode = b[8];
  h.fecn = b[12] & 0x80;
  h.becn = b[12] & 0x40;
  h.ue = b[12] & 0x20;
  h.dest_qp = wire::get24(b, 13);
  h.psn = wire::get32(b, 16) & 0xFFFFFF;
}

void encode_credit(const credit_packet& c, frame_image& out) {
  uint8_t* b = out.data();
  wire::put16(b, 0, static_cast<uint16_t>((c.op & 0xF) << 12 | (c.fctbs & 0xFFF)));
  wire::put16(b, 2, static_cast<uint16_t>((c.vl & 0xF) << 12 | (c.fccl & 0xFFF)));
  wire::put16(b, 4, 0);  // LPCRC not modelled
}

bool decode_credit(const frame_image& in, credit_packet& c) {
  const uint8_t* b = in.data();
  c.op = b[0] >> 4;
  c.fctbs = wire::get16(b, 0) & 0xFFF;
  c.vl = b[2] >> 4;
  c.fccl = wire::get16(b, 2) & 0xFFF;
  return c.op <= 1;
}

}  // namespace sluice::ib
