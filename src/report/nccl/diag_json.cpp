// SPDX-License-Identifier: Apache-2.0
#include "report/nccl/diag_json.hpp"

namespace peergate::report::nccl {

namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json value_or_null(const std::optional<T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json text_or_null_json(const std::string& text) {
    return text.empty() ? Json(nullptr) : Json(text);
}

Json edge_to_json(const policy::nccl::NcclDiagEdge& e) {
    return Json{{"src_rank", e.src_rank},
                {"dst_rank", e.dst_rank},
                {"host", text_or_null_json(e.host)},
                {"src_cuda_dev", value_or_null(e.src_cuda_dev)},
                {"dst_cuda_dev", value_or_null(e.dst_cuda_dev)},
                {"src_nvml_dev", value_or_null(e.src_nvml_dev)},
                {"dst_nvml_dev", value_or_null(e.dst_nvml_dev)},
                {"path", text_or_null_json(e.path)},
                {"handle", text_or_null_json(e.handle)},
                {"result", std::string(policy::nccl::to_string(e.result))},
                {"check", text_or_null_json(e.check)},
                {"text", e.text}};
}

}  // namespace

Json diagnostics_to_json(const policy::nccl::NcclAnalysis& analysis) {
    Json out = Json::array();
    for (const auto& edge : analysis.diagnostics) {
        out.push_back(edge_to_json(edge));
    }
    return out;
}

Json diagnostics_reports_to_json(const model::NcclLog& log) {
    Json out = Json::array();
    for (const auto& line : log.diagnostics) {
        if (line.kind != model::NcclDiagKind::report) {
            continue;
        }
        out.push_back(Json{{"host", text_or_null_json(line.host)},
                           {"problem", line.problem},
                           {"passed", value_or_null(line.passed)},
                           {"tested", value_or_null(line.tested)},
                           {"text", line.text},
                           {"count", line.count}});
    }
    return out;
}

Json ras_to_json(const model::NcclLog& log) {
    Json out = Json::array();
    for (const auto& line : log.ras) {
        out.push_back(Json{{"host", text_or_null_json(line.host)},
                           {"kind", std::string(model::to_string(line.kind))},
                           {"problem", model::is_problem(line.kind)},
                           {"node", text_or_null_json(line.node)},
                           {"pid", value_or_null(line.pid)},
                           {"gpu", value_or_null(line.gpu)},
                           {"rank", value_or_null(line.rank)},
                           {"text", line.text},
                           {"count", line.count}});
    }
    return out;
}

}  // namespace peergate::report::nccl
