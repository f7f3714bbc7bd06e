// SPDX-License-Identifier: Apache-2.0
#include "pipeline/bandwidth_input.hpp"

namespace peergate::pipeline {

util::Expected<sources::documents::BenchFile> read_bandwidth_file(const std::string& path,
                                                                  const model::Topology* topology) {
    auto file = sources::documents::read_bench_file(path);
    auto matches = file && topology != nullptr
                       ? sources::documents::check_bench_matches(*file, path, topology->gpus)
                       : util::Expected<void>{};
    if (!file || !matches) {
        return util::unexpected(
            util::ErrorCode::invalid_input,
            "--bandwidth " + (file ? matches.error().message : file.error().message));
    }
    return file;
}

}  // namespace peergate::pipeline
