// SPDX-License-Identifier: Apache-2.0
// The docs list every finding code of the catalogue: scripts and alerting rules key on them, so
// a code added to model/finding_code.hpp without a line in its page fails here.
#include "model/finding_code.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace peergate::test {
namespace {

const std::string kSource = PEERGATE_SOURCE_DIR;

// The page that documents a code: nccl-log's in README.md (its section), watch's in
// docs/watch.md, every other in docs/doctor.md.
std::string page_of(std::string_view id) {
    if (id.starts_with("nccl_") && !id.starts_with("nccl_topo_file")) {
        return "/README.md";
    }
    return id.starts_with("watch_") ? "/docs/watch.md" : "/docs/doctor.md";
}

// Every code of the catalogue (model/finding_code.hpp) is documented where its command is.
TEST(DoctorDocs, EveryFindingCodeIsListed) {
    for (std::size_t i = 0; i < model::kFindingCodeCount; ++i) {
        const auto code = static_cast<model::FindingCode>(i);
        const std::string id(model::id(code));
        const bool numbered = code == model::FindingCode::xid || code == model::FindingCode::sxid;
        const auto page = util::read_file(kSource + page_of(id));
        ASSERT_TRUE(page.has_value()) << page_of(id);
        const std::string quoted = numbered ? "`" + id + "_" : "`" + id + "`";
        EXPECT_NE(page->find(quoted), std::string::npos) << id << " is not in " << page_of(id);
    }
}

}  // namespace
}  // namespace peergate::test
