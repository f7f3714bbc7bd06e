// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/assign_bound.hpp"

#include "policy/placement/gains.hpp"
#include "util/cpu_clones.hpp"

#include <algorithm>
#include <functional>

namespace peergate::policy::placement {

namespace {

// Per rank i (best first): the highest level at which i + 1 disjoint groups fit.
std::vector<Weight> rank_caps(const Problem& problem,
                              Weight threshold,
                              const std::vector<int>& level_caps) {
    const LevelCaps caps = caps_above(problem, threshold, level_caps);
    std::vector<Weight> out(static_cast<std::size_t>(problem.g), threshold);
    for (int i = 0; i < problem.g; ++i) {
        for (std::size_t l = 0; l < caps.levels.size(); ++l) {
            if (caps.groups[l] > i) {
                at(out, i) = caps.levels[l];
            }
        }
    }
    return out;
}

}  // namespace

AssignBound::AssignBound(const Problem& problem,
                         const Neighbours& neighbours,
                         bool feasibility,
                         const std::vector<int>& level_caps)
    : p_(problem),
      nb_(neighbours),
      feasibility_(feasibility),
      counter_(problem, neighbours),
      ceilings_(feasibility ? std::vector<Weight>(static_cast<std::size_t>(problem.n), kUnlimited)
                            : clique_ceilings(problem, neighbours.threshold)),
      class_members_(class_masks(problem)),
      rank_caps_(rank_caps(problem, neighbours.threshold, level_caps)) {}

// Inlined into bound(), so that its counts use POPCNT too. What opening a group adds is
// kept for doubled_weight(). The open groups are counted only up to `enough`: past it the
// count neither prunes nor picks the candidate to branch on.
[[gnu::always_inline]] inline AssignBound::Reach AssignBound::reach_of(const Assignment& s,
                                                                       int v,
                                                                       bool may_leave,
                                                                       int enough) {
    Reach reach{.count = may_leave ? 1 : 0};
    at(opening_gain_, v) = kNowhere;
    if (s.opened < p_.g) {
        const Partners rest = counter_.partners(v, s.pool & ~bit(v), p_.k - 1);
        if (rest.enough) {
            ++reach.count;
            reach.opening = std::min(rest.kth, at(ceilings_, v));
            at(opening_gain_, v) = rest.top;
        }
    }
    // Locals, and the scan steps charged once: a count written per slot would alias them.
    const std::size_t open = open_count_;
    const Mask partners = at(nb_.mask, v);
    std::size_t i = 0;
    for (; i < open && reach.count < enough; ++i) {
        const OpenSlot& slot = open_[i];
        if ((slot.among & bit(v)) != 0 && count(partners & slot.among & ~bit(v)) >= slot.need) {
            ++reach.count;
        }
    }
    counter_.charge(i);
    return reach;
}

// The groups still taking members, with the candidates each could take.
void AssignBound::list_open_slots(const Assignment& s) {
    open_count_ = 0;
    for (int g = 0; g < s.opened; ++g) {
        const Slot& slot = s.slots[static_cast<std::size_t>(g)];
        if (slot.size < p_.k) {
            open_[open_count_++] =
                OpenSlot{.among = slot.compatible & s.pool, .need = p_.k - slot.size - 1, .g = g};
        }
    }
}

// The bound on (3), doubled: each undecided candidate adds at most its gain in its best
// place (only the largest gains, when some will be left out).
PEERGATE_WITH_POPCNT Weight AssignBound::doubled_weight(const Assignment& s, bool may_leave) {
    const bool splits = p_.g == 2 && !may_leave;
    Weight doubled = 0;
    for (const Slot& slot : s.slots) {
        doubled += 2 * slot.weight_sum;
    }
    side_gains_[0].clear();
    side_gains_[1].clear();
    best_gains_.clear();
    for (Mask m = s.pool; m != 0; m &= m - 1) {
        const Gains gains = gains_of(s, lowest(m), splits);
        if (may_leave) {
            best_gains_.push_back(gains.best);  // not every one will be seated
        } else {
            doubled += gains.best;
        }
        if (splits) {
            side_gains_[0].push_back(gains.side[0]);
            side_gains_[1].push_back(gains.side[1]);
        }
    }
    doubled += largest_sum(best_gains_, static_cast<std::size_t>(s.missing));
    if (splits) {
        const auto wanted = static_cast<std::size_t>(p_.k - s.slots[0].size);
        const Weight split = best_split(side_gains_[0], side_gains_[1], wanted);
        doubled = std::min(doubled, 2 * (s.slots[0].weight_sum + s.slots[1].weight_sum) + split);
    }
    return doubled;
}

// A group that cannot beat the best gain found so far, even with the candidate's heaviest
// partners, is skipped (unless the two-group split needs each side's gain).
[[gnu::always_inline]] inline AssignBound::Gains AssignBound::gains_of(const Assignment& s,
                                                                       int v,
                                                                       bool sides) {
    Gains gains;
    if (at(opening_gain_, v) != kNowhere) {
        gains.best = at(opening_gain_, v);
        for (int g = s.opened; g < 2; ++g) {
            gains.side[static_cast<std::size_t>(g)] = gains.best;
        }
    }
    const Weight heaviest = counter_.heaviest(v);
    for (std::size_t i = 0; i < open_count_; ++i) {
        const OpenSlot& slot = open_[i];
        if ((slot.among & bit(v)) == 0) {
            continue;
        }
        const Weight known = 2 * s.weight_to(v, slot.g);
        if (!sides && known + slot.need * heaviest <= gains.best) {
            continue;
        }
        const Partners rest = counter_.partners(v, slot.among & ~bit(v), slot.need);
        if (rest.enough) {
            gains.best = std::max(gains.best, known + rest.top);
            gains.side[static_cast<std::size_t>(slot.g & 1)] = known + rest.top;
        }
    }
    return gains;
}

// The best bottleneck an open group can still reach: each member needs the missing
// partners among the compatible candidates left, and its clique ceiling holds.
[[gnu::always_inline]] inline Weight AssignBound::slot_ceiling(const Assignment& s,
                                                               const Slot& slot) const {
    const int missing = p_.k - slot.size;
    if (missing == 0) {
        return slot.bottleneck;
    }
    Weight ceiling = slot.bottleneck;
    for (Mask m = slot.members; m != 0; m &= m - 1) {
        const Partners rest = counter_.partners(lowest(m), slot.compatible & s.pool, missing);
        if (!rest.enough) {
            return kNoGroup;
        }
        ceiling = std::min({ceiling, rest.kth, at(ceilings_, lowest(m))});
    }
    return ceiling;
}

PEERGATE_WITH_POPCNT Bounded AssignBound::bound(const Assignment& s, const Score* best) {
    Bounded out;
    std::array<Weight, 64> bottlenecks{};
    for (int g = 0; g < p_.g; ++g) {
        at(bottlenecks, g) =
            g < s.opened ? slot_ceiling(s, s.slots[static_cast<std::size_t>(g)]) : nb_.threshold;
        if (at(bottlenecks, g) < nb_.threshold) {
            return out;  // an open group cannot be completed
        }
    }
    list_open_slots(s);
    const bool may_leave = s.spare() > 0;
    int fewest = 1 << 30;
    Weight opening = nb_.threshold;  // the best bottleneck a group not yet opened could reach
    for (Mask m = s.pool; m != 0; m &= m - 1) {
        const Reach reach = reach_of(s, lowest(m), may_leave, fewest);
        if (reach.count == 0) {
            return out;  // it has nowhere to go
        }
        opening = std::max(opening, reach.opening);
        if (reach.count < fewest) {
            fewest = reach.count;
            out.branch_on = lowest(m);
        }
    }
    for (int g = s.opened; g < p_.g; ++g) {
        at(bottlenecks, g) = opening;
    }
    out.upper = Score{capped_sum(bottlenecks), 0, 0};
    if (!feasibility_ && best != nullptr && out.upper.sum_bottleneck == best->sum_bottleneck) {
        out.upper.doubled_weight = doubled_weight(s, may_leave);
        out.upper.negative_spans = negative_spans(s);
    }
    return out;
}

// The i-th best group's bottleneck is at most the highest level at which i disjoint groups
// fit in the whole problem.
Weight AssignBound::capped_sum(std::array<Weight, 64>& bottlenecks) const {
    auto* end = bottlenecks.data() + p_.g;
    std::sort(bottlenecks.data(), end, std::greater<>());
    Weight sum = 0;
    for (int i = 0; i < p_.g; ++i) {
        sum += std::min(at(bottlenecks, i), at(rank_caps_, i));
    }
    return sum;
}

// An open group whose compatible candidates in its own classes cannot fill it must take in
// as many more classes as it takes to seat the rest; the groups not opened yet span what
// fewest_spans (numa_bounds.hpp) counts among the undecided (members counted, not
// cliques: those cost more per node than they gain here).
PEERGATE_WITH_POPCNT Weight AssignBound::negative_spans(const Assignment& s) {
    offers_.clear();
    for (Mask members : class_members_) {
        offers_.push_back(count(s.pool & members));
    }
    Weight spans = fewest_spans(offers_, offers_, p_.k, p_.g - s.opened, pieces_);
    const ClassSeats seats{class_members_, nb_.mask, false};
    for (int g = 0; g < s.opened; ++g) {
        const Slot& slot = s.slots[static_cast<std::size_t>(g)];
        spans += count(slot.classes) +
                 classes_to_add(
                     seats, slot.classes, slot.compatible & s.pool, p_.k - slot.size, offers_);
    }
    return -spans;
}

}  // namespace peergate::policy::placement
