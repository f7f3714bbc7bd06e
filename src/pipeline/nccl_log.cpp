// SPDX-License-Identifier: Apache-2.0
#include "pipeline/nccl_log.hpp"

#include "sources/documents/topology_file.hpp"
#include "sources/nccl/nccl_log_file.hpp"
#include "sources/nccl/nccl_log_parser.hpp"

namespace peergate::pipeline {

util::Expected<NcclLogRead> read_nccl_logs(const std::vector<std::string>& files,
                                           const std::string& topology_path,
                                           unsigned threads) {
    NcclLogRead read;
    if (!topology_path.empty()) {
        auto topology = sources::documents::read_topology(topology_path);
        if (!topology) {
            return util::unexpected(topology.error().code,
                                    "--topology " + topology.error().message);
        }
        read.topology = std::move(*topology);
    }
    sources::nccl::NcclLogParser parser;
    for (const auto& file : files) {
        const sources::nccl::NcclReadOptions options{.threads = threads};
        if (auto streamed = sources::nccl::stream_log_file(file, parser, options); !streamed) {
            return util::unexpected(streamed.error());
        }
    }
    read.log = parser.result();
    return read;
}

}  // namespace peergate::pipeline
