#include "models/core/units.h"

#include <gtest/gtest.h>

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

TEST(Units, ParsesRates) {
  EXPECT_DOUBLE_EQ(parse_rate("40Gbps").bps, 40e9);
  EXPECT_DOUBLE_EQ(parse_rate("2.5 Gb/s").bps, 2.5e9);
  EXPECT_DOUBLE_EQ(parse_rate("100Mbps").bps, 100e6);
  EXPECT_DOUBLE_EQ(parse_rate("1Tbps").bps, 1e12);
}

TEST(Units, ParsesSizes) {
  EXPECT_EQ(parse_bytes("96KiB").bytes, 96u * 1024);
  EXPECT_EQ(parse_bytes("64KB").bytes, 64000u);
  EXPECT_EQ(parse_bytes("1500B").bytes, 1500u);
  EXPECT_EQ(parse_bytes("12MiB").bytes, 12u << 20);
  EXPECT_EQ(parse_bytes("1000").bytes, 1000u);
}

TEST(Units, ParsesTimes) {
  EXPECT_EQ(parse_time("5us"), sc_time(5, SC_US));
  EXPECT_EQ(parse_time("300ns"), sc_time(300, SC_NS));
  EXPECT_EQ(parse_time("1.5ms"), sc_time(1500, SC_US));
  EXPECT_EQ(parse_time("0"), sc_core::SC_ZERO_TIME);
  EXPECT_EQ(parse_time("2\u00b5s"), sc_time(2, SC_US));
}

TEST(Units, KernelResolutionIsOnePicosecond) {
  EXPECT_EQ(sc_core::sc_get_time_resolution(), sc_time(1, sc_core::SC_PS));
}

// from_ps() writes an sc_time's bits directly (not sc_time::from_value): it must agree with the
// kernel's own construction everywhere, up to the largest value.
TEST(Units, FromPsIsTheKernelsTimeOfThatManyPicoseconds) {
  for (uint64_t ps : {uint64_t{0}, uint64_t{1}, uint64_t{999}, uint64_t{123456789012}, uint64_t{1} << 53})
    EXPECT_EQ(from_ps(ps), sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS)) << ps;
  EXPECT_EQ(from_ps(~uint64_t{0}).value(), ~uint64_t{0});
  EXPECT_EQ(to_ps(from_ps(987654321)), 987654321u);
}

TEST(Units, SerializationIsExactAtPicosecondResolution) {
  // 1500 B at 40 Gb/s = 12000 bits / 40e9 = 300 ns; 64 B at 400 Gb/s = 1.28 ns.
  EXPECT_EQ(parse_rate("40Gbps").serialization(1500), sc_time(300, SC_NS));
  EXPECT_EQ(to_ps(parse_rate("400Gbps").serialization(64)), 1280u);
}

TEST(Units, SerializationInPicosecondsRoundsToNearest) {
  // 1500 B at 40 Gb/s = 300000 ps. 1 B at 3 Gb/s = 8e12 / 3e9 = 2666.67 ps -> 2667;
  // 1 B at 6 Gb/s = 1333.33 ps -> 1333 (nearest, not up). The sc_time form says the same.
  EXPECT_EQ(parse_rate("40Gbps").serialization_ps(1500), 300000u);
  EXPECT_EQ(parse_rate("3Gbps").serialization_ps(1), 2667u);
  EXPECT_EQ(parse_rate("6Gbps").serialization_ps(1), 1333u);
  EXPECT_EQ(to_ps(parse_rate("3Gbps").serialization(1)), 2667u);
}

TEST(Units, ErrorsNameTheKeyAndValue) {
  try {
    parse_rate("40GBq", "sw0-r0.rate");
    FAIL();
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("sw0-r0.rate"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("40GBq"), std::string::npos);
  }
  EXPECT_THROW(parse_rate("fast"), config_error);
  EXPECT_THROW(parse_rate("-1Gbps"), config_error);
  EXPECT_THROW(parse_rate("0Gbps"), config_error);
  EXPECT_THROW(parse_rate("40"), config_error);  // a rate needs a unit
  EXPECT_THROW(parse_bytes("10 parsecs"), config_error);
  EXPECT_THROW(parse_bytes("-5KB"), config_error);
  EXPECT_THROW(parse_bytes("1.5B"), config_error);
  EXPECT_THROW(parse_time("5"), config_error);  // a non-zero time needs a unit
  EXPECT_THROW(parse_time("-3us"), config_error);
  EXPECT_THROW(parse_time("nan us"), config_error);
  EXPECT_THROW(parse_count("2.5"), config_error);
  EXPECT_THROW(parse_bool("maybe"), config_error);
  EXPECT_THROW(parse_time("1e30s"), config_error);  // beyond what sc_time holds
  EXPECT_THROW(parse_bytes("99999999999999999999B"), config_error);
}

TEST(Units, FormatsRoundTrip) {
  EXPECT_EQ(format_rate(parse_rate("40Gbps")), "40Gbps");
  EXPECT_EQ(format_bytes(parse_bytes("96KiB")), "96KiB");
  EXPECT_EQ(format_time(parse_time("5us")), "5us");
  EXPECT_EQ(format_time(parse_time("1300ns")), "1300ns");
  EXPECT_EQ(format_time(parse_time("1.5ms")), "1500us");
}

TEST(Units, OnlyDecimalNumbersAreAccepted) {
  // strtod and yaml-cpp read hexadecimal, inf and nan; a scenario value must be decimal.
  for (const char* text : {"0x10", "0X1p4", "inf", "-inf", "infinity", "nan", "NAN(1)"}) {
    const std::string t = text;
    EXPECT_THROW(parse_count(t), config_error) << t;
    EXPECT_THROW(parse_number(t), config_error) << t;
    EXPECT_THROW(parse_bytes(t + "B"), config_error) << t;
    EXPECT_THROW(parse_bytes(t), config_error) << t;
    EXPECT_THROW(parse_time(t + "us"), config_error) << t;
    EXPECT_THROW(parse_rate(t + "Gbps"), config_error) << t;
    EXPECT_THROW(parse_link_rate(t + "Gbps", "rate"), config_error) << t;
  }
  try {
    parse_bytes("0x10KB", "h0.mtu");
    FAIL();
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("h0.mtu: '0x10KB' is not a decimal number"), std::string::npos) << e.what();
  }
  // Spaces and tabs may surround the number and the unit; other whitespace may not.
  EXPECT_EQ(parse_time(" \t5 us\t"), sc_time(5, SC_US));
  for (const char* text : {"5\nus", "\n5us", "5us\r", "5\vus"}) EXPECT_THROW(parse_time(text), config_error) << text;
  // Decimal forms stay accepted.
  EXPECT_DOUBLE_EQ(parse_number("-1.5e-3"), -1.5e-3);
  EXPECT_DOUBLE_EQ(parse_number("+.25"), 0.25);
  EXPECT_EQ(parse_bytes("1e3B").bytes, 1000u);
  EXPECT_EQ(parse_time("0"), sc_core::SC_ZERO_TIME);
}

TEST(Units, ErrorMessagesStayOnePrintableLine) {
  EXPECT_EQ(printable("a\nb\tc\rd\x1b[31m\x7f"), "a\\nb\\tc\\rd\\x1B[31m\\x7F");
  EXPECT_EQ(printable("2\u00b5s caf\u00e9"), "2\u00b5s caf\u00e9");  // valid UTF-8 is kept
  EXPECT_EQ(printable("a\xff\xc0\xafz"), "a\\xFF\\xC0\\xAFz");       // invalid and overlong bytes
  EXPECT_TRUE(valid_utf8("h0 \u00b5 \u20ac \U0001F600"));
  EXPECT_FALSE(valid_utf8("a\xff"));
  EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));  // a surrogate
  EXPECT_FALSE(valid_utf8("\xe2\x82"));      // truncated
  try {
    parse_rate("40\nGbq", "h0-sw0.rate");
    FAIL();
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'40\\nGbq'"), std::string::npos) << e.what();
  }
}
