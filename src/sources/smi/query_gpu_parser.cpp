// SPDX-License-Identifier: Apache-2.0
#include "sources/smi/query_gpu_parser.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

namespace peergate::sources::smi {

using util::ErrorCode;

util::Expected<std::vector<model::Gpu>> parse_query_gpu(std::string_view text) {
    std::vector<model::Gpu> gpus;
    int line_number = 0;
    for (std::string_view line : util::split_lines(text)) {
        ++line_number;
        if (util::trim(line).empty()) {
            continue;
        }
        const auto fields = util::split(line, ',');
        const auto where = [&] { return fmt::format("--query-gpu output line {}", line_number); };
        if (fields.size() != 4) {
            return util::unexpected(
                ErrorCode::invalid_input,
                fmt::format(
                    "{}: {} fields, expected index,name,pci.bus_id,uuid", where(), fields.size()));
        }
        const auto index = util::parse_int<int>(util::trim(fields[0]));
        auto pci = model::PciAddress::parse(util::trim(fields[2]));
        if (!index || *index < 0) {
            return util::unexpected(ErrorCode::invalid_input, where() + ": bad index");
        }
        if (!pci) {
            return util::unexpected(ErrorCode::invalid_input, where() + ": " + pci.error().message);
        }
        gpus.push_back(model::Gpu{.index = *index,
                                  .name = std::string(util::trim(fields[1])),
                                  .pci = *pci,
                                  .uuid = std::string(util::trim(fields[3]))});
    }
    if (gpus.empty()) {
        return util::unexpected(ErrorCode::invalid_input, "--query-gpu output lists no GPU");
    }
    return gpus;
}

}  // namespace peergate::sources::smi
