// Big-endian field access on wire images: the one place byte order is written down.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sluice::wire {

inline void put8(uint8_t* b, std::size_t at, uint8_t v) { b[at] = v; }
inline void put16(uint8_t* b, std::size_t at, uint16_t v) {
  b[at] = static_cast<uint8_t>(v >> 8);
  b[at + 1] = static_cast<uint8_t>(v);
}
// Each byte by its own shift, no loop: GCC merges such stores into one byte swap and store
// (and such loads into one load and swap); a loop of six it ran as six rounds.
inline void put24(uint8_t* b, std::size_t at, uint32_t v) {
  b[at] = static_cast<uint8_t>(v >> 16);
  b[at + 1] = static_cast<uint8_t>(v >> 8);
  b[at + 2] = static_cast<uint8_t>(v);
}
inline void put32(uint8_t* b, std::size_t at, uint32_t v) {
  b[at] = static_cast<uint8_t>(v >> 24);
  b[at + 1] = static_cast<uint8_t>(v >> 16);
  b[at + 2] = static_cast<uint8_t>(v >> 8);
  b[at + 3] = static_cast<uint8_t>(v);
}
inline void put48(uint8_t* b, std::size_t at, uint64_t v) {
  if constexpr (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
    // One byte swap and a 4- and a 2-byte store: GCC merged put16's and put32's bytes into
    // neither a swap nor whole words here (~15 instructions a MAC address).
    const uint64_t swapped = __builtin_bswap64(v << 16);
    std::memcpy(b + at, &swapped, 6);
  } else {
    put16(b, at, static_cast<uint16_t>(v >> 32));
    put32(b, at + 2, static_cast<uint32_t>(v));
  }
}
inline void put64(uint8_t* b, std::size_t at, uint64_t v) {
  put32(b, at, static_cast<uint32_t>(v >> 32));
  put32(b, at + 4, static_cast<uint32_t>(v));
}
inline uint16_t get16(const uint8_t* b, std::size_t at) { return static_cast<uint16_t>(b[at] << 8 | b[at + 1]); }
inline uint32_t get24(const uint8_t* b, std::size_t at) {
  return static_cast<uint32_t>(b[at]) << 16 | static_cast<uint32_t>(b[at + 1]) << 8 | b[at + 2];
}
inline uint32_t get32(const uint8_t* b, std::size_t at) {
  return static_cast<uint32_t>(b[at]) << 24 | static_cast<uint32_t>(b[at + 1]) << 16 |
         static_cast<uint32_t>(b[at + 2]) << 8 | b[at + 3];
}
inline uint64_t get48(const uint8_t* b, std::size_t at) {
  return static_cast<uint64_t>(get16(b, at)) << 32 | get32(b, at + 2);
}
inline uint64_t get64(const uint8_t* b, std::size_t at) {
  return static_cast<uint64_t>(get32(b, at)) << 32 | get32(b, at + 4);
}

}  // namespace sluice::wire
