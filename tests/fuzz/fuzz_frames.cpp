// Fuzzes the frame decoders of models/protocol on arbitrary bytes: 802.1Qbb PFC, 802.1Qau CNM,
// RoCEv2 (data, CNP, ACK), InfiniBand LRH/BTH and credit packets. The first byte picks the
// decoder, the rest is the wire image (zero-padded to a frame_image, as the models carry it).
// A frame a decoder accepts must encode and decode back to the same fields.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "models/protocol/cnm_frame.h"
#include "models/protocol/ib_frame.h"
#include "models/protocol/pfc_frame.h"
#include "models/protocol/roce_frame.h"
#include "models/protocol/wire_format.h"

using namespace sluice;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void pfc(const frame_image& in) {
  pfc_request r;
  if (!decode_pfc(in, r)) return;
  frame_image out{};
  encode_pfc(r, wire::get48(in.data(), 6), out);
  pfc_request again;
  check(decode_pfc(out, again) && again.class_enable == r.class_enable && again.quanta == r.quanta);
}

void cnm(const frame_image& in) {
  cnm_pdu p;
  if (!decode_cnm(in, p)) return;
  check(p.msdu_bytes <= cnm_max_msdu);
  frame_image out{};
  const uint32_t size = encode_cnm(p, wire::get48(in.data(), 0), wire::get48(in.data(), 6),
                                   static_cast<uint8_t>(wire::get16(in.data(), 14) >> 13), out);
  check(size >= 64 && size <= max_image_bytes);
  cnm_pdu q;
  check(decode_cnm(out, q));
  check(q.version == p.version && q.quantized_feedback == p.quantized_feedback && q.cpid == p.cpid &&
        q.q_offset == p.q_offset && q.q_delta == p.q_delta && q.encapsulated_priority == p.encapsulated_priority &&
        q.encapsulated_da == p.encapsulated_da && q.msdu_length == p.msdu_length && q.msdu_bytes == p.msdu_bytes &&
        std::memcmp(q.msdu.data(), p.msdu.data(), p.msdu_bytes) == 0);
}

void roce_frame(const frame_image& in) {
  roce::headers h;
  if (!roce::decode(in.data(), h)) return;
  frame_image out{};
  check(roce::encode(h, out.data()) <= max_image_bytes);
  roce::headers g;
  check(roce::decode(out.data(), g));
  check(g.da == h.da && g.sa == h.sa && g.pcp == h.pcp && g.ecn == h.ecn && g.dscp == h.dscp && g.src_ip == h.src_ip &&
        g.dst_ip == h.dst_ip && g.udp_src == h.udp_src && g.opcode == h.opcode && g.fecn == h.fecn &&
        g.becn == h.becn && g.dest_qp == h.dest_qp && g.psn == h.psn && g.payload == h.payload &&
        g.cnp_rate_mbps == h.cnp_rate_mbps);
}

void ib_route(const frame_image& in) {
  ib::route_headers h;
  ib::decode(in.data(), h);
  frame_image out{};
  check(ib::encode(h, out.data()) == ib::lrh + ib::bth);
  ib::route_headers g;
  ib::decode(out.data(), g);
  check(g.vl == h.vl && g.sl == h.sl && g.dlid == h.dlid && g.slid == h.slid && g.packet_words == h.packet_words &&
        g.opcode == h.opcode && g.fecn == h.fecn && g.becn == h.becn && g.ue == h.ue && g.dest_qp == h.dest_qp &&
        g.psn == h.psn);
}

void ib_credit(const frame_image& in) {
  ib::credit_packet c;
  if (!ib::decode_credit(in, c)) return;
  frame_image out{};
  ib::encode_credit(c, out);
  ib::credit_packet d;
  check(ib::decode_credit(out, d) && d.op == c.op && d.fctbs == c.fctbs && d.vl == c.vl && d.fccl == c.fccl);
  // The 12-bit arithmetic: a credit limit FCTBS + n allows exactly up to n blocks (n <= 2048).
  check(ib::credit_allows(static_cast<uint16_t>((c.fctbs + c.fccl % 2049) & 0xFFF), c.fctbs, c.fccl % 2049));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  frame_image in{};
  std::memcpy(in.data(), data + 1, std::min(size - 1, in.size()));
  switch (data[0] % 5) {
    case 0:
      pfc(in);
      break;
    case 1:
      cnm(in);
      break;
    case 2:
      roce_frame(in);
      break;
    case 3:
      ib_route(in);
      break;
    default:
      ib_credit(in);
  }
  return 0;
}

// SLUICE_FUZZ_WRITE_SEEDS=DIR: write one encoded frame of each kind into DIR (the committed
// corpus tests/fuzz/corpus/frames, made by the encoders themselves) and exit.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* dir = std::getenv("SLUICE_FUZZ_WRITE_SEEDS");
  if (!dir) return 0;
  auto write = [&](const char* name, uint8_t selector, const frame_image& f, std::size_t bytes) {
    const std::string path = std::string(dir) + "/" + name;
    std::FILE* out = std::fopen(path.c_str(), "wb");
    check(out != nullptr);
    std::fputc(selector, out);
    std::fwrite(f.data(), 1, bytes, out);
    std::fclose(out);
  };
  const uint64_t sa = eth::mac_address(3, 1), da = eth::mac_address(7, 0);
  frame_image f{};
  pfc_request xoff;
  xoff.class_enable = 0x08;
  xoff.quanta[3] = 0xFFFF;
  encode_pfc(xoff, sa, f);
  write("pfc-xoff", 0, f, pfc_frame_bytes);
  f = {};
  encode_pfc(pfc_request{0x08, {}}, sa, f);
  write("pfc-xon", 0, f, pfc_frame_bytes);
  cnm_pdu p;
  p.quantized_feedback = 17;
  p.cpid = 0x0123456789ABCDEFull;
  p.q_offset = -12;
  p.q_delta = 5;
  p.encapsulated_priority = 3;
  p.encapsulated_da = da;
  p.msdu_length = 1500;
  for (std::size_t i = 0; i < cnm_max_msdu; ++i) p.msdu[i] = static_cast<uint8_t>(i);
  f = {};
  write("cnm-qcn", 1, f, encode_cnm(p, sa, da, 3, f));
  p.version = 1;
  p.msdu_length = 20;
  f = {};
  write("cnm-bcn-short", 1, f, encode_cnm(p, sa, da, 3, f));
  roce::headers h;
  h.da = da;
  h.sa = sa;
  h.pcp = 3;
  h.ecn = 3;
  h.dscp = 26;
  h.src_ip = roce::node_ip(3);
  h.dst_ip = roce::node_ip(7);
  h.udp_src = 49152;
  h.dest_qp = 42;
  h.psn = 0xFFFFFF;
  h.payload = 1024;
  f = {};
  write("roce-data", 2, f, roce::encode(h, f.data()));
  h.opcode = roce::opcode_cnp;
  h.payload = 0;
  h.cnp_rate_mbps = 25000;
  f = {};
  write("roce-cnp", 2, f, roce::encode(h, f.data()));
  h.opcode = roce::opcode_acknowledge;
  f = {};
  write("roce-ack", 2, f, roce::encode(h, f.data()));
  ib::route_headers r;
  r.vl = 2;
  r.sl = 5;
  r.dlid = ib::lid_of(7);
  r.slid = ib::lid_of(3);
  r.packet_words = 262;
  r.fecn = true;
  r.dest_qp = 42;
  r.psn = 77;
  f = {};
  write("ib-data-fecn", 3, f, ib::encode(r, f.data()));
  r.opcode = ib::opcode_cnp;
  r.fecn = false;
  r.becn = true;
  f = {};
  write("ib-cnp-becn", 3, f, ib::encode(r, f.data()));
  f = {};
  ib::encode_credit(ib::credit_packet{1, 0, 0, 128}, f);
  write("ib-credit-init", 4, f, ib::credit_packet_bytes);
  f = {};
  ib::encode_credit(ib::credit_packet{0, 4000, 15, 96}, f);
  write("ib-credit-wrap", 4, f, ib::credit_packet_bytes);
  std::exit(0);
}
