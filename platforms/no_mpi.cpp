// The transport of a build without MPI (SLUICE_WITH_MPI=OFF): a partitioned run is a one-line error.
#include "models/core/units.h"
#include "platforms/parallel_transport.h"

namespace sluice {

bool mpi_built() { return false; }

std::unique_ptr<parallel_transport> make_mpi_transport(const transport_options&) {
  throw config_error("this build has no MPI (SLUICE_WITH_MPI=OFF)");
}

}  // namespace sluice
