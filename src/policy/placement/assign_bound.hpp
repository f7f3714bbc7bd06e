// SPDX-License-Identifier: Apache-2.0
// The all-groups search's state (assign.hpp) and its bound: where each undecided
// candidate may still go and what it can add there.
#pragma once

#include "policy/placement/bits.hpp"
#include "policy/placement/bounds.hpp"
#include "policy/placement/partners.hpp"
#include "policy/placement/slot.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace peergate::policy::placement {

// The G groups being filled and the candidates not yet decided.
struct Assignment {
    std::vector<Slot> slots;
    std::vector<Weight> weights_to;  // per candidate and slot: its pair weights to the members
    Mask pool = 0;
    int opened = 0;
    int missing = 0;  // places left in the G groups

    Weight& weight_to(int v, int g) {
        return weights_to[static_cast<std::size_t>(v) * slots.size() + static_cast<std::size_t>(g)];
    }

    Weight weight_to(int v, int g) const {
        return weights_to[static_cast<std::size_t>(v) * slots.size() + static_cast<std::size_t>(g)];
    }

    int spare() const { return count(pool) - missing; }
};

// The upper bound of a node and the candidate to branch on (-1: some candidate has
// nowhere to go, or a group cannot be completed).
struct Bounded {
    Score upper;
    int branch_on = -1;
};

class AssignBound {
public:
    // `neighbours` (at the search's threshold) must outlive the bound. With `feasibility`
    // only the candidate to branch on is wanted.
    AssignBound(const Problem& problem,
                const Neighbours& neighbours,
                bool feasibility,
                const std::vector<int>& level_caps);

    // `best`: the score to beat (null while there is none). (2) first: where its bound is
    // not the best's, it alone decides the node, and the gains that bound (3) are not
    // worked out (on `pcie` and `sparse_nvlink`, K = 6, for 40-65 % of the nodes).
    Bounded bound(const Assignment& state, const Score* best);

    // Partner-scan steps so far: the search charges them to its budget.
    std::uint64_t steps() const { return counter_.steps(); }

private:
    struct Reach {
        int count = 0;
        Weight opening = kNoGroup;  // the best bottleneck of a new group it opens
    };

    struct Gains {
        Weight best = 0;                                 // doubled pair weights, its best place
        std::array<Weight, 2> side{kNowhere, kNowhere};  // its gain in groups 0 and 1
    };

    void list_open_slots(const Assignment& s);
    Reach reach_of(const Assignment& s, int v, bool may_leave, int enough);
    Weight doubled_weight(const Assignment& s, bool may_leave);
    Gains gains_of(const Assignment& s, int v, bool sides);
    Weight slot_ceiling(const Assignment& s, const Slot& slot) const;
    Weight capped_sum(std::array<Weight, 64>& bottlenecks) const;
    Weight negative_spans(const Assignment& s);

    // A group a candidate cannot join, in the two-group split bound: far below any real
    // gain, far enough above the type's limit that sums of 64 of them do not overflow.
    static constexpr Weight kNowhere = -(Weight{1} << 48);

    const Problem& p_;
    const Neighbours& nb_;
    bool feasibility_;
    PartnerCounter counter_;
    std::vector<Weight> ceilings_;
    std::vector<Mask> class_members_;  // per NUMA class
    std::vector<Weight> rank_caps_;    // per rank of group, best first: its bottleneck's cap
    std::vector<int> offers_;          // negative_spans's
    std::vector<int> pieces_;
    std::array<std::vector<Weight>, 2>
        side_gains_;                         // two groups: each undecided one's gain in each
    std::vector<Weight> best_gains_;         // each undecided one's gain in its best place
    std::array<Weight, 64> opening_gain_{};  // per candidate: what opening a group adds

    struct OpenSlot {
        Mask among = 0;  // the undecided candidates whose pairs to every member reach the threshold
        int need = 0;    // members it lacks besides the one asking
        int g = 0;
    };

    std::array<OpenSlot, 64> open_{};  // this node's groups still taking members (list_open_slots)
    std::size_t open_count_ = 0;
};

}  // namespace peergate::policy::placement
