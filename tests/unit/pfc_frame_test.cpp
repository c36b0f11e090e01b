#include "models/protocol/pfc_frame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace sluice;

TEST(PfcFrame, EncodesThe8021QbbLayout) {
  pfc_request r;
  r.class_enable = 0b00001000;
  r.quanta[3] = 0xFFFF;
  frame_image b;
  encode_pfc(r, 0x0200000000ABull, b);
  const uint8_t da[] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(b[i], da[i]);
  EXPECT_EQ(b[11], 0xAB);  // source MAC, last byte
  EXPECT_EQ(b[12], 0x88);  // EtherType 0x8808
  EXPECT_EQ(b[13], 0x08);
  EXPECT_EQ(b[14], 0x01);  // opcode 0x0101
  EXPECT_EQ(b[15], 0x01);
  EXPECT_EQ(b[16], 0x00);  // class-enable vector
  EXPECT_EQ(b[17], 0x08);
  EXPECT_EQ(b[18 + 2 * 3], 0xFF);  // timer of priority 3
  EXPECT_EQ(b[19 + 2 * 3], 0xFF);
  EXPECT_EQ(b[18], 0x00);
}

TEST(PfcFrame, DecodesWhatItEncodesAndRejectsOtherFrames) {
  pfc_request r, back;
  r.class_enable = 0b10100001;
  r.quanta[0] = 1;
  r.quanta[5] = 0;
  r.quanta[7] = 1234;
  frame_image b;
  encode_pfc(r, 1, b);
  ASSERT_TRUE(decode_pfc(b, back));
  EXPECT_EQ(back.class_enable, r.class_enable);
  EXPECT_EQ(back.quanta, r.quanta);
  b[15] = 0x02;  // not opcode 0x0101
  EXPECT_FALSE(decode_pfc(b, back));
}

TEST(PfcFrame, QuantumIs512BitTimes) {
  // 0xFFFF quanta at 40 Gb/s: 65535 x 512 / 40e9 s = 838.848 us.
  EXPECT_EQ(pause_duration(0xFFFF, data_rate{40e9}), sc_core::sc_time(838848, sc_core::SC_NS));
  EXPECT_EQ(pause_duration(1, data_rate{10e9}), sc_core::sc_time(51.2, sc_core::SC_NS));
}

TEST(PfcFrame, RandomRequestsAreWrittenAndReadByteByByteAsTheStandardLaysThemOut) {
  // The quanta are swapped four lanes a word: against each field written and read a byte at a
  // time, big-endian, at its offset (random timers, enable vectors and source addresses).
  std::mt19937_64 rng(23);
  for (int n = 0; n < 20000; ++n) {
    pfc_request r;
    r.class_enable = static_cast<uint8_t>(rng());
    for (auto& q : r.quanta) q = static_cast<uint16_t>(rng() % 3 == 0 ? 0 : rng());
    const uint64_t source = rng() & 0xFFFFFFFFFFFFull;
    frame_image b;
    b.fill(0xA5);
    encode_pfc(r, source, b);
    frame_image want;
    want.fill(0xA5);
    std::fill(want.begin(), want.begin() + pfc_frame_bytes, 0);
    const uint8_t head[] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
    for (int i = 0; i < 6; ++i) want[i] = head[i];
    for (int i = 0; i < 6; ++i) want[6 + i] = static_cast<uint8_t>(source >> (40 - 8 * i));
    want[12] = 0x88, want[13] = 0x08, want[14] = 0x01, want[15] = 0x01, want[17] = r.class_enable;
    for (int i = 0; i < pfc_priorities; ++i) {
      want[18 + 2 * i] = static_cast<uint8_t>(r.quanta[i] >> 8);
      want[19 + 2 * i] = static_cast<uint8_t>(r.quanta[i]);
    }
    ASSERT_EQ(b, want) << n;
    pfc_request back;
    ASSERT_TRUE(decode_pfc(b, back));
    EXPECT_EQ(back.class_enable, r.class_enable);
    ASSERT_EQ(back.quanta, r.quanta) << n;
  }
}

TEST(PfcFrame, PausePicosecondsAreThePauseDurations) {
  for (double bps : {1e9, 10e9, 25e9, 40e9, 56e9, 100e9, 400e9, 3e9 + 7})
    for (uint16_t q : {0, 1, 2, 3, 255, 1000, 0x7FFF, 0xFFFF})
      EXPECT_EQ(pause_ps(q, data_rate{bps}), to_ps(data_rate{bps}.serialization(static_cast<uint64_t>(q) * 64)))
          << bps << " " << q;
}

TEST(PfcFrame, TheHeaderIsCheckedAsAByteByByteReadOfEachFieldChecksIt) {
  // decode_pfc checks the DA, EtherType and opcode as two words: against each field read a byte
  // at a time, on encoded frames with one header byte changed (or none) and on random images.
  std::mt19937_64 rng(41);
  auto field = [](const frame_image& b, int at, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = v << 8 | b[at + i];
    return v;
  };
  int accepted = 0;
  for (int n = 0; n < 30000; ++n) {
    frame_image b;
    if (n % 3 == 2) {
      for (auto& x : b) x = static_cast<uint8_t>(rng());
    } else {
      pfc_request r;
      r.class_enable = static_cast<uint8_t>(rng());
      for (auto& q : r.quanta) q = static_cast<uint16_t>(rng());
      encode_pfc(r, rng() & 0xFFFFFFFFFFFFull, b);
      if (n % 3 == 1) b[rng() % 18] ^= static_cast<uint8_t>(1u << (rng() % 8));  // the header or the enable vector
    }
    const bool is_pfc =
        field(b, 0, 6) == 0x0180C2000001ull && field(b, 12, 2) == pfc_ethertype && field(b, 14, 2) == pfc_opcode;
    pfc_request back;
    back.class_enable = 0x5A;
    ASSERT_EQ(decode_pfc(b, back), is_pfc) << n;
    if (!is_pfc) {
      EXPECT_EQ(back.class_enable, 0x5A) << n;  // nothing written
      continue;
    }
    ++accepted;
    EXPECT_EQ(back.class_enable, b[17]) << n;
    for (int i = 0; i < pfc_priorities; ++i) ASSERT_EQ(back.quanta[i], field(b, 18 + 2 * i, 2)) << n << " " << i;
  }
  EXPECT_GT(accepted, 10000);
}
