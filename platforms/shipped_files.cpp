#include "platforms/shipped_files.h"

#include <filesystem>
#include <system_error>

namespace sluice {

std::string shipped_file(const std::string& relative, const std::string& source_path) {
  static const std::filesystem::path share = [] {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : exe.parent_path().parent_path() / "share" / "sluice";
  }();
  std::error_code ec;
  if (!share.empty() && std::filesystem::is_regular_file(share / relative, ec)) return (share / relative).string();
  return source_path;
}

}  // namespace sluice
