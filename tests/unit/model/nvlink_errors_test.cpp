// SPDX-License-Identifier: Apache-2.0
// One link's NVLink error counters (model/nvlink_errors.hpp): a GPU answers the DL counters
// or NVLink5's, so a counter it does not keep says nothing; a link none of whose counters
// answered is not "clean".
#include "model/nvlink_errors.hpp"

#include <gtest/gtest.h>

namespace peergate::model {
namespace {

NvlinkErrorCounts with(NvlinkCounter counter, std::optional<std::uint64_t> n) {
    NvlinkErrorCounts counts;
    counts.value[static_cast<std::size_t>(counter)] = n;
    return counts;
}

TEST(NvlinkErrorCounts, ZerosOnOneGenerationsCountersCountNothing) {
    NvlinkErrorCounts dl;
    dl.value = {0, 0, 0, 0};  // NVLink5's unanswered, as before Blackwell
    EXPECT_TRUE(dl.none_counted());
    EXPECT_TRUE(with(NvlinkCounter::effective_errors, 0).none_counted());
    EXPECT_TRUE(NvlinkErrorCounts::clean(NvlinkCounterSet::dl).none_counted());
    EXPECT_TRUE(NvlinkErrorCounts::clean(NvlinkCounterSet::nvlink5).none_counted());
}

TEST(NvlinkErrorCounts, AnyCountOrNoAnswerIsNotClean) {
    EXPECT_FALSE(with(NvlinkCounter::link_recovery_events, 1).none_counted());
    EXPECT_FALSE(with(NvlinkCounter::crc_data, 3).none_counted());
    EXPECT_FALSE(NvlinkErrorCounts{}.none_counted());
}

TEST(NvlinkErrorCounts, TheSetALinkAnswersFrom) {
    const auto nvlink5 = NvlinkErrorCounts::clean(NvlinkCounterSet::nvlink5);
    EXPECT_EQ(nvlink5.answered_set(), NvlinkCounterSet::nvlink5);
    EXPECT_FALSE(nvlink5[NvlinkCounter::replay].has_value());
    EXPECT_EQ(nvlink5[NvlinkCounter::effective_errors], 0U);
    EXPECT_EQ(NvlinkErrorCounts::clean(NvlinkCounterSet::dl).answered_set(), NvlinkCounterSet::dl);
    EXPECT_EQ(NvlinkErrorCounts{}.answered_set(), NvlinkCounterSet::dl);  // nothing: the default
    auto both = NvlinkErrorCounts::clean(NvlinkCounterSet::dl);
    both.value[static_cast<std::size_t>(NvlinkCounter::effective_errors)] = 0;
    EXPECT_EQ(both.answered_set(), NvlinkCounterSet::dl);
}

TEST(NvlinkErrorCounts, BothRecoveryCountersMeanARetrain) {
    EXPECT_TRUE(counts_retraining(NvlinkCounter::recovery));
    EXPECT_TRUE(counts_retraining(NvlinkCounter::link_recovery_events));
    EXPECT_FALSE(counts_retraining(NvlinkCounter::replay));
    EXPECT_FALSE(counts_retraining(NvlinkCounter::effective_errors));
}

}  // namespace
}  // namespace peergate::model
