// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/numa_start.hpp"

#include "policy/placement/bits.hpp"
#include "policy/placement/bounds.hpp"
#include "policy/placement/packing.hpp"
#include "policy/placement/search_goals.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

namespace peergate::policy::placement {

namespace {

// As in the group-by-group search: a packing step costs about 1/64 of a node.
constexpr std::uint64_t kPackingStepsPerNode = 64;

// Which packing of a class the search finds first depends on the order of its members;
// when the rest cannot be completed, other orders (rotations) are tried.
constexpr int kOrders = 16;

// The candidates in `members` as a problem of their own wanting `groups` groups, their
// order rotated by `rotation`; `ids` keeps, for each new position, the position it had.
// (No GPU is required where this start runs.)
Problem restricted(
    const Problem& p, Mask members, int groups, int rotation, std::vector<int>& ids) {
    ids.clear();
    for (Mask m = members; m != 0; m &= m - 1) {
        ids.push_back(std::countr_zero(m));
    }
    if (!ids.empty()) {
        std::rotate(ids.begin(), ids.begin() + rotation % static_cast<int>(ids.size()), ids.end());
    }
    return sub_problem(p, ids, groups);
}

class NumaFirst {
public:
    NumaFirst(const Problem& problem, Weight threshold, std::uint64_t budget)
        : p_(problem), t_(threshold), budget_(budget), class_members_(class_masks(problem)) {
        const Neighbours nb = neighbours_at(p_, t_);
        GroupPacker packer;
        for (Mask members : class_members_) {
            pure_.push_back(std::min(p_.g, packer.most(nb.mask, members, p_.k)));
        }
        nodes_ += 1 + packer.spent() / kPackingStepsPerNode;
    }

    // As many pure groups as the classes hold (G at most), each class's packing tried in
    // kOrders orders; one fewer pure group, from the class holding most, each time none
    // of them can be completed, down to one.
    NumaStart run() {
        std::vector<int> wanted = pure_;
        trim(wanted, std::accumulate(wanted.begin(), wanted.end(), 0) - p_.g);
        for (int total = std::accumulate(wanted.begin(), wanted.end(), 0);
             total > 0 && nodes_ < budget_;
             --total) {
            for (int order = 0; order < kOrders && nodes_ < budget_; ++order) {
                if (auto groups = attempt(wanted, order)) {
                    return NumaStart{.groups = std::move(groups), .nodes = nodes_};
                }
            }
            trim(wanted, 1);
        }
        return NumaStart{.nodes = nodes_};
    }

private:
    // Drops `excess` pure groups, each from the class wanting the most.
    static void trim(std::vector<int>& wanted, int excess) {
        for (; excess > 0; --excess) {
            --*std::max_element(wanted.begin(), wanted.end());
        }
    }

    std::optional<Groups> attempt(const std::vector<int>& wanted, int order) {
        Groups groups;
        Mask used = 0;
        for (std::size_t c = 0; c < wanted.size(); ++c) {
            if (wanted[c] > 0 && !place(class_members_[c], wanted[c], order, groups, used)) {
                return std::nullopt;
            }
        }
        const int mixed = p_.g - static_cast<int>(groups.size());
        const Mask all = p_.n >= 64 ? ~Mask{0} : (Mask{1} << p_.n) - 1;
        if (mixed > 0 && !place(all & ~used, mixed, order, groups, used)) {
            return std::nullopt;
        }
        normalise(groups);
        return groups;
    }

    // Any `count` groups at the threshold among `members` not used yet.
    bool place(Mask members, int count, int order, Groups& groups, Mask& used) {
        std::vector<int> ids;
        const Problem sub = restricted(p_, members & ~used, count, order, ids);
        if (sub.n < count * p_.k || nodes_ >= budget_) {
            return false;
        }
        const SearchResult found = find_packing(sub, t_, budget_ - nodes_);
        nodes_ += found.nodes;
        if (!found.found) {
            return false;
        }
        for (const auto& group : found.groups) {
            auto& placed = groups.emplace_back();
            for (int v : group) {
                placed.push_back(at(ids, v));
                used |= bit(at(ids, v));
            }
        }
        return true;
    }

    const Problem& p_;
    Weight t_;
    std::uint64_t budget_;
    std::uint64_t nodes_ = 0;
    std::vector<Mask> class_members_;
    std::vector<int> pure_;  // the most groups each class holds alone
};

}  // namespace

NumaStart numa_first_start(const Problem& problem, Weight threshold, std::uint64_t node_budget) {
    if (problem.required_count > 0 || problem.numa_classes < 2 || problem.n > 64) {
        return {};
    }
    return NumaFirst(problem, threshold, node_budget).run();
}

}  // namespace peergate::policy::placement
