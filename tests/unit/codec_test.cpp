// The frame codecs of models/protocol: exact byte layout against the standards, round trips,
// and each kind's size on the wire (Ethernet kinds padded to the 64-byte minimum).
#include <gtest/gtest.h>

#include <vector>

#include "models/protocol/cnm_frame.h"
#include "models/protocol/ib_frame.h"
#include "models/protocol/pfc_frame.h"
#include "models/protocol/roce_frame.h"

using namespace sluice;

namespace {
// The bytes [from, from + expected.size()) of an image.
std::vector<uint8_t> bytes(const uint8_t* b, std::size_t from, std::size_t n) {
  return std::vector<uint8_t>(b + from, b + from + n);
}

roce::headers data_headers() {
  roce::headers h;
  h.da = 0x020000010000ull;
  h.sa = 0x020000020000ull;
  h.pcp = 3;
  h.dscp = 26;
  h.ecn = 2;  // ECT(0)
  h.src_ip = roce::node_ip(2);
  h.dst_ip = roce::node_ip(1);
  h.udp_src = 0xC000;
  h.dest_qp = 0x123456;
  h.psn = 0xABCDEF;
  h.payload = 1000;
  return h;
}
}  // namespace

TEST(RoceCodec, FrameSizesCountEveryHeaderAndTrailer) {
  // Ethernet 14 + 802.1Q 4 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4.
  EXPECT_EQ(roce::data_overhead, 66u);
  EXPECT_EQ(roce::cnp_bytes, 66u + 16);  // 16 reserved bytes after the BTH
  EXPECT_EQ(roce::ack_bytes, 66u + 4);   // AETH
  EXPECT_GE(roce::cnp_bytes, eth::min_frame);
  EXPECT_EQ(eth::frame_bytes(40), 64u);  // shorter frames are padded
  EXPECT_EQ(eth::frame_bytes(1066), 1066u);
}

TEST(RoceCodec, DataFrameLayout) {
  frame_image img{};
  ASSERT_EQ(roce::encode(data_headers(), img.data()), 58u);
  const uint8_t* b = img.data();
  EXPECT_EQ(bytes(b, 0, 12), (std::vector<uint8_t>{2, 0, 0, 1, 0, 0, 2, 0, 0, 2, 0, 0}));  // DA, SA
  EXPECT_EQ(bytes(b, 12, 6), (std::vector<uint8_t>{0x81, 0x00, 0x60, 0x00, 0x08, 0x00}));  // 802.1Q PCP 3, IPv4
  // IPv4: version/IHL, DSCP 26 << 2 | ECN 2, total length 20 + 8 + 12 + 1000 + 4 = 1044, DF, TTL 64, UDP.
  EXPECT_EQ(bytes(b, 18, 10), (std::vector<uint8_t>{0x45, 0x6A, 0x04, 0x14, 0, 0, 0x40, 0, 64, 17}));
  EXPECT_EQ(bytes(b, 30, 8), (std::vector<uint8_t>{10, 0, 0, 2, 10, 0, 0, 1}));
  // UDP: source port, 4791, length 1044 - 20.
  EXPECT_EQ(bytes(b, 38, 6), (std::vector<uint8_t>{0xC0, 0x00, 0x12, 0xB7, 0x04, 0x00}));
  // BTH: opcode, flags, P_Key, FECN/BECN byte, destination QP, PSN.
  EXPECT_EQ(bytes(b, 46, 12),
            (std::vector<uint8_t>{0x04, 0, 0xFF, 0xFF, 0x00, 0x12, 0x34, 0x56, 0x00, 0xAB, 0xCD, 0xEF}));
}

TEST(RoceCodec, DataFrameRoundTrips) {
  frame_image img{};
  roce::headers in = data_headers(), out;
  in.fecn = true;
  roce::encode(in, img.data());
  ASSERT_TRUE(roce::decode(img.data(), out));
  EXPECT_EQ(out.da, in.da);
  EXPECT_EQ(out.sa, in.sa);
  EXPECT_EQ(out.pcp, 3);
  EXPECT_EQ(out.dscp, 26);
  EXPECT_EQ(out.ecn, 2);
  EXPECT_EQ(out.src_ip, in.src_ip);
  EXPECT_EQ(out.dst_ip, in.dst_ip);
  EXPECT_EQ(out.udp_src, 0xC000);
  EXPECT_EQ(out.opcode, roce::opcode_send_only);
  EXPECT_TRUE(out.fecn);
  EXPECT_FALSE(out.becn);
  EXPECT_EQ(out.dest_qp, 0x123456u);
  EXPECT_EQ(out.psn, 0xABCDEFu);
  EXPECT_EQ(out.payload, 1000u);
  img[41] = 0x00;  // UDP destination port no longer 4791
  EXPECT_FALSE(roce::decode(img.data(), out));
}

TEST(RoceCodec, CnpCarriesOpcode0x81AndNoPayload) {
  roce::headers in = data_headers(), out;
  in.opcode = roce::opcode_cnp;
  in.payload = 0;
  frame_image img{};
  roce::encode(in, img.data());
  EXPECT_EQ(img[46], 0x81);
  // IPv4 total length: 20 + 8 + 12 + 16 reserved + 4 ICRC = 60; frame 18 + 60 + 4 FCS = 82.
  EXPECT_EQ(bytes(img.data(), 20, 2), (std::vector<uint8_t>{0x00, 60}));
  EXPECT_EQ(18u + 60 + eth::fcs, roce::cnp_bytes);
  ASSERT_TRUE(roce::decode(img.data(), out));
  EXPECT_EQ(out.opcode, roce::opcode_cnp);
  EXPECT_EQ(out.payload, 0u);
  EXPECT_EQ(out.cnp_rate_mbps, 0u);
}

TEST(RoceCodec, PcnCnpCarriesTheRateInTheFirstReservedWordAndTheEcnFlag) {
  roce::headers in = data_headers(), out;
  in.opcode = roce::opcode_cnp;
  in.payload = 0;
  in.ecn = 3;
  in.cnp_rate_mbps = 39683;  // 39.683 Gb/s in 1 Mb/s units = 0x00009B03
  frame_image img;
  img.fill(0xEE);  // stale bytes from a previous use: the reserved bytes must be rewritten
  EXPECT_EQ(roce::encode(in, img.data()), 58u + 16);
  // The reserved segment follows the 12-byte BTH at 46: bytes 58..73, rate first, big-endian.
  EXPECT_EQ(bytes(img.data(), 58, 6), (std::vector<uint8_t>{0x00, 0x00, 0x9B, 0x03, 0x00, 0x00}));
  EXPECT_EQ(img[73], 0x00);
  EXPECT_EQ(img[74], 0xEE);  // beyond the CNP's header: untouched
  ASSERT_TRUE(roce::decode(img.data(), out));
  EXPECT_EQ(out.cnp_rate_mbps, 39683u);
  EXPECT_EQ(out.ecn, 3);
}

TEST(PfcCodec, AllEightTimersAndPaddingTo64Bytes) {
  pfc_request r;
  r.class_enable = 0xFF;
  for (int i = 0; i < pfc_priorities; ++i) r.quanta[i] = static_cast<uint16_t>(0x0101 * i);
  frame_image img;
  img.fill(0xEE);  // stale bytes from a previous use of the image
  encode_pfc(r, 0x02AABBCCDDEEull, img);
  EXPECT_EQ(pfc_frame_bytes, eth::min_frame);
  EXPECT_EQ(bytes(img.data(), 12, 6), (std::vector<uint8_t>{0x88, 0x08, 0x01, 0x01, 0x00, 0xFF}));
  for (int i = 0; i < pfc_priorities; ++i) {
    EXPECT_EQ(img[18 + 2 * i], i) << "timer " << i;
    EXPECT_EQ(img[19 + 2 * i], i) << "timer " << i;
  }
  for (std::size_t i = 34; i < pfc_frame_bytes; ++i) EXPECT_EQ(img[i], 0) << "pad byte " << i;
  pfc_request back;
  ASSERT_TRUE(decode_pfc(img, back));
  EXPECT_EQ(back.class_enable, 0xFF);
  EXPECT_EQ(back.quanta, r.quanta);
}

namespace {
cnm_pdu sample_cnm(uint16_t msdu_length) {
  cnm_pdu p;
  p.quantized_feedback = 0x3F;
  p.cpid = 0x0200000001000003ull;
  p.q_offset = -1200;
  p.q_delta = 300;
  p.encapsulated_priority = 3;
  p.encapsulated_da = 0x020000010000ull;
  p.msdu_length = msdu_length;
  for (std::size_t i = 0; i < cnm_max_msdu; ++i) p.msdu[i] = static_cast<uint8_t>(i + 1);
  return p;
}
}  // namespace

TEST(CnmCodec, The8021QauLayout) {
  frame_image img{};
  const uint32_t size = encode_cnm(sample_cnm(30), 0x020000020000ull, 0x020000030001ull, 6, img);
  const uint8_t* b = img.data();
  EXPECT_EQ(bytes(b, 0, 6), (std::vector<uint8_t>{2, 0, 0, 2, 0, 0}));  // to the sampled frame's source
  EXPECT_EQ(bytes(b, 12, 6), (std::vector<uint8_t>{0x81, 0x00, 0xC0, 0x00, 0x22, 0xE7}));
  // Version 0 (4 bits), ReservedV (6), quantized feedback (6).
  EXPECT_EQ(bytes(b, 18, 2), (std::vector<uint8_t>{0x00, 0x3F}));
  EXPECT_EQ(bytes(b, 20, 8), (std::vector<uint8_t>{2, 0, 0, 0, 1, 0, 0, 3}));  // CPID
  EXPECT_EQ(bytes(b, 28, 4), (std::vector<uint8_t>{0xFB, 0x50, 0x01, 0x2C}));  // qOffset -1200, qDelta 300
  EXPECT_EQ(bytes(b, 32, 2), (std::vector<uint8_t>{0x00, 0x03}));              // encapsulated priority
  EXPECT_EQ(bytes(b, 34, 6), (std::vector<uint8_t>{2, 0, 0, 1, 0, 0}));        // encapsulated DA
  EXPECT_EQ(bytes(b, 40, 2), (std::vector<uint8_t>{0x00, 30}));                // encapsulated MSDU length
  EXPECT_EQ(b[42], 1);
  EXPECT_EQ(b[42 + 29], 30);
  // 18 (Ethernet + 802.1Q) + 24 (PDU header) + 30 + 4 (FCS).
  EXPECT_EQ(size, 76u);
}

TEST(CnmCodec, SizesFromEmptyToSixtyFourBytesOfTheSampledFrame) {
  frame_image img{};
  EXPECT_EQ(encode_cnm(sample_cnm(0), 1, 2, 0, img), 64u);  // 46 bytes, padded
  EXPECT_EQ(encode_cnm(sample_cnm(64), 1, 2, 0, img), 110u);
  EXPECT_EQ(encode_cnm(sample_cnm(1500), 1, 2, 0, img), 110u);  // at most 64 bytes are carried
  EXPECT_LE(110u, max_image_bytes);
}

TEST(CnmCodec, RoundTripsAndCarriesWhatTheLengthSays) {
  frame_image img;
  img.fill(0xEE);  // stale bytes must not leak into the decoded MSDU
  cnm_pdu in = sample_cnm(1500), out;
  in.msdu_bytes = 0;  // the encoder derives what it carries from the MSDU length
  encode_cnm(in, 1, 2, 0, img);
  ASSERT_TRUE(decode_cnm(img, out));
  EXPECT_EQ(out.version, 0);
  EXPECT_EQ(out.quantized_feedback, 0x3F);
  EXPECT_EQ(out.cpid, in.cpid);
  EXPECT_EQ(out.q_offset, -1200);
  EXPECT_EQ(out.q_delta, 300);
  EXPECT_EQ(out.encapsulated_priority, 3);
  EXPECT_EQ(out.encapsulated_da, in.encapsulated_da);
  EXPECT_EQ(out.msdu_length, 1500);
  EXPECT_EQ(out.msdu_bytes, 64);
  EXPECT_EQ(out.msdu, in.msdu);

  img.fill(0xEE);
  encode_cnm(sample_cnm(10), 1, 2, 0, img);
  ASSERT_TRUE(decode_cnm(img, out));
  EXPECT_EQ(out.msdu_bytes, 10);
  for (std::size_t i = 52; i < 60; ++i) EXPECT_EQ(img[i], 0) << "pad byte " << i;
  img[17] = 0xE9;  // a CN-TAG EtherType, not a CNM
  EXPECT_FALSE(decode_cnm(img, out));
}

TEST(IbCodec, RouteHeadersWithFecnAndBecn) {
  ib::route_headers h;
  h.vl = 9;
  h.sl = 5;
  h.dlid = 0x0102;
  h.slid = 0x0304;
  h.packet_words = (ib::lrh + ib::bth + 256 + ib::icrc) / 4;  // 70
  h.fecn = true;
  h.dest_qp = 0xABCD;
  h.psn = 5;
  uint8_t b[20] = {};
  ASSERT_EQ(ib::encode(h, b), 20u);
  // LRH: VL 9 | LVer 0, SL 5 | LNH 2 (BTH follows), DLID, PktLen 70, SLID.
  EXPECT_EQ(bytes(b, 0, 8), (std::vector<uint8_t>{0x90, 0x52, 0x01, 0x02, 0x00, 70, 0x03, 0x04}));
  // BTH: opcode, SE/M/Pad/TVer, P_Key, FECN, QP, AckReq/PSN.
  EXPECT_EQ(bytes(b, 8, 12), (std::vector<uint8_t>{0x04, 0, 0xFF, 0xFF, 0x80, 0x00, 0xAB, 0xCD, 0, 0, 0, 5}));
  EXPECT_EQ(ib::data_overhead, 26u);
  ib::route_headers back;
  ib::decode(b, back);
  EXPECT_EQ(back.vl, 9);
  EXPECT_EQ(back.sl, 5);
  EXPECT_EQ(back.dlid, 0x0102);
  EXPECT_EQ(back.slid, 0x0304);
  EXPECT_EQ(back.packet_words, 70);
  EXPECT_TRUE(back.fecn);
  EXPECT_FALSE(back.becn);
  EXPECT_EQ(back.dest_qp, 0xABCDu);
  EXPECT_EQ(back.psn, 5u);
  h.fecn = false;
  h.becn = true;
  ib::encode(h, b);
  EXPECT_EQ(b[12], 0x40);
  ib::decode(b, back);
  EXPECT_FALSE(back.fecn);
  EXPECT_TRUE(back.becn);
  EXPECT_FALSE(back.ue);
}

// TCD's UE on IB: the first reserved bit after BECN (BTH byte 4, 0x20); the other five stay 0.
TEST(IbCodec, TcdUeBitBesideBecn) {
  ib::route_headers h;
  h.becn = true;
  h.ue = true;
  uint8_t b[20] = {};
  ib::encode(h, b);
  EXPECT_EQ(b[12], 0x40 | 0x20);
  ib::route_headers back;
  ib::decode(b, back);
  EXPECT_TRUE(back.ue);
  EXPECT_TRUE(back.becn);
  EXPECT_FALSE(back.fecn);
  h.becn = false;
  ib::encode(h, b);
  EXPECT_EQ(b[12], 0x20);
}

TEST(IbCodec, CreditPacketLayoutAndArithmetic) {
  frame_image img{};
  ib::encode_credit({0, 0x123, 9, 0xABC}, img);
  EXPECT_EQ(bytes(img.data(), 0, 6), (std::vector<uint8_t>{0x01, 0x23, 0x9A, 0xBC, 0, 0}));
  EXPECT_EQ(ib::credit_packet_bytes, 6u);  // not Ethernet: no 64-byte minimum
  ib::credit_packet c;
  ASSERT_TRUE(ib::decode_credit(img, c));
  EXPECT_EQ(c.op, 0);
  EXPECT_EQ(c.fctbs, 0x123);
  EXPECT_EQ(c.vl, 9);
  EXPECT_EQ(c.fccl, 0xABC);
  EXPECT_TRUE(ib::credit_allows(48, 32, 16));
  EXPECT_FALSE(ib::credit_allows(32, 32, 16));
  // Modulo 4096: a limit of 5 after 4090 blocks sent allows 11 more blocks, not 12.
  EXPECT_TRUE(ib::credit_allows(5, 4090, 11));
  EXPECT_FALSE(ib::credit_allows(5, 4090, 12));
}
