// SPDX-License-Identifier: Apache-2.0
#include "policy/watch/watch_report.hpp"

namespace peergate::policy::watch {

void judge_watch(WatchReport& report,
                 const std::vector<model::CounterRound>& rounds,
                 const WatchFacts& facts) {
    report.totals = total_traffic(report.gpus, rounds);
    report.verdicts = judge_pairs(report.gpus, report.totals);
    report.findings = watch_findings(report.totals, report.verdicts, facts);
}

}  // namespace peergate::policy::watch
