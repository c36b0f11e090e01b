// Big-endian field access on wire images: the one place byte order is written down.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::wire {

inline void put8(uint8_t* b, std::size_t at, uint8_t v) { b[at] = v; }
inline void put16(uint8_t* b, std::size_t at, uint16_t v) {
  b[at] = static_cast<uint8_t>(v >> 8);
  b[at + 1] = static_cast<uint8_t>(v);
}
inline void put24(uint8_t* b, std::size_t at, uint32_t v) {
  for (int i = 0; i < 3; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * (2 - i)));
}
inline void put32(uint8_t* b, std::size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * (3 - i)));
}
inline void put48(uint8_t* b, std::size_t at, uint64_t v) {
  for (int i = 0; i < 6; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * (5 - i)));
}
inline void put64(uint8_t* b, std::size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * (7 - i)));
}
inline uint16_t get16(const uint8_t* b, std::size_t at) { return static_cast<uint16_t>(b[at] << 8 | b[at + 1]); }
inline uint32_t get24(const uint8_t* b, std::size_t at) {
  return static_cast<uint32_t>(b[at]) << 16 | static_cast<uint32_t>(b[at + 1]) << 8 | b[at + 2];
}
inline uint32_t get32(const uint8_t* b, std::size_t at) {
  return static_cast<uint32_t>(get16(b, at)) << 16 | get16(b, at + 2);
}
inline uint64_t get48(const uint8_t* b, std::size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 6; ++i) v = v << 8 | b[at + i];
  return v;
}
inline uint64_t get64(const uint8_t* b, std::size_t at) {
  return static_cast<uint64_t>(get32(b, at)) << 32 | get32(b, at + 4);
}

}  // namespace sluice::wire
