// SPDX-License-Identifier: Apache-2.0
#include "model/nccl_diag.hpp"

namespace peergate::model {

std::string_view to_string(NcclDiagKind kind) {
    switch (kind) {
        case NcclDiagKind::tested:
            return "tested";
        case NcclDiagKind::skipped:
            return "skipped";
        case NcclDiagKind::failed:
            return "failed";
        case NcclDiagKind::report:
            return "report";
    }
    return "report";
}

std::string_view to_string(NcclRasKind kind) {
    switch (kind) {
        case NcclRasKind::dead:
            return "dead";
        case NcclRasKind::unresponsive:
            return "unresponsive";
        case NcclRasKind::missing:
            return "missing";
        case NcclRasKind::timeout:
            return "timeout";
        case NcclRasKind::mismatch:
            return "mismatch";
        case NcclRasKind::check_ok:
            return "check_ok";
        case NcclRasKind::check_issue:
            return "check_issue";
    }
    return "check_issue";
}

bool is_problem(NcclRasKind kind) {
    return kind == NcclRasKind::dead || kind == NcclRasKind::unresponsive ||
           kind == NcclRasKind::missing || kind == NcclRasKind::check_issue;
}

}  // namespace peergate::model
