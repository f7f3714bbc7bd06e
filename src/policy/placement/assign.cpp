// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/assign.hpp"

#include "policy/placement/assign_bound.hpp"
#include "util/cpu_clones.hpp"

#include <algorithm>
#include <array>
#include <optional>

namespace peergate::policy::placement {

namespace {

// Nodes are the budget's unit (about a microsecond each, as in the group-by-group search);
// a node here also pays for its partner scans, which grow with n, G and K.
constexpr std::uint64_t kScansPerNode = 256;

// Where the branching candidate may go, with its estimated gain (heaviest first).
struct Choice {
    int slot = -1;  // -1: left out
    Weight gain = 0;
};

class Assigner {
public:
    Assigner(const Problem& problem,
             Weight threshold,
             bool feasibility,
             std::uint64_t budget,
             const std::vector<int>& level_caps,
             const std::atomic<bool>* stop = nullptr)
        : p_(problem),
          feasibility_(feasibility),
          nb_(neighbours_at(problem, threshold)),
          bound_(problem, nb_, feasibility, level_caps),
          budget_(budget),
          stop_(stop) {
        s_.slots.resize(static_cast<std::size_t>(problem.g));
        s_.weights_to.assign(
            static_cast<std::size_t>(problem.n) * static_cast<std::size_t>(problem.g), 0);
    }

    void seed(const Groups& incumbent) {
        best_groups_ = incumbent;
        normalise(best_groups_);
        for (const auto& group : best_groups_) {
            best_ = best_ + score_of(group_stats(p_, group));
        }
        has_best_ = true;
    }

    SearchResult run() {
        s_.pool = p_.n >= 64 ? ~Mask{0} : bit(p_.n) - 1;
        s_.missing = p_.g * p_.k;
        if (place_required()) {
            search();
        }
        return SearchResult{.complete = !stopped_,
                            .found = has_best_,
                            .groups = best_groups_,
                            .score = best_,
                            .nodes = nodes_,
                            .upper = proven_upper()};
    }

private:
    // The required GPUs open the first group together.
    bool place_required() {
        for (int v = 0; v < p_.n; ++v) {
            if (p_.is_required(v)) {
                if ((s_.slots[0].size > 0 && (s_.slots[0].compatible & bit(v)) == 0) ||
                    s_.slots[0].size == p_.k) {
                    return false;
                }
                join(v, 0);
                s_.opened = 1;
            }
        }
        return true;
    }

    PEERGATE_WITH_POPCNT void search() {
        const std::uint64_t steps = bound_.steps();
        nodes_ += 1 + (steps - charged_steps_) / kScansPerNode;
        charged_steps_ = steps - (steps - charged_steps_) % kScansPerNode;
        if (done_ || stopped_ || nodes_ > budget_ || stop_requested(stop_)) {
            stopped_ = !done_;
            bound_unexplored();
            return;
        }
        if (s_.missing == 0) {
            offer();
            return;
        }
        const Bounded bounded = bound_.bound(s_, has_best_ ? &best_ : nullptr);
        if (bounded.branch_on < 0 || (!feasibility_ && prunes(bounded.upper))) {
            return;
        }
        const int v = bounded.branch_on;
        for (const Choice& choice : choices(v)) {
            if (choice.slot < 0) {
                s_.pool &= ~bit(v);
                search();
                s_.pool |= bit(v);
                continue;
            }
            const bool opens = choice.slot == s_.opened;
            const Slot saved = s_.slots[static_cast<std::size_t>(choice.slot)];
            s_.opened += opens ? 1 : 0;
            join(v, choice.slot);
            search();
            leave(v, choice.slot, saved);
            s_.opened -= opens ? 1 : 0;
        }
    }

    void join(int v, int g) {
        Slot& slot = s_.slots[static_cast<std::size_t>(g)];
        const Mask compatible = slot.compatible & at(nb_.mask, v);
        slot = joined(p_, slot, v);
        slot.compatible = compatible;
        s_.pool &= ~bit(v);
        --s_.missing;
        for (Mask m = s_.pool; m != 0; m &= m - 1) {
            s_.weight_to(lowest(m), g) += p_.w(v, lowest(m));
        }
    }

    void leave(int v, int g, const Slot& saved) {
        for (Mask m = s_.pool; m != 0; m &= m - 1) {
            s_.weight_to(lowest(m), g) -= p_.w(v, lowest(m));
        }
        ++s_.missing;
        s_.pool |= bit(v);
        s_.slots[static_cast<std::size_t>(g)] = saved;
    }

    // On the stack, and sorted by insertion (stable, and few: the open groups and two
    // more): a vector and std::stable_sort allocated at every node.
    struct Choices {
        std::array<Choice, 66> items;
        std::size_t size = 0;

        const Choice* begin() const { return items.data(); }

        const Choice* end() const { return items.data() + size; }

        void add(Choice choice) { items[size++] = choice; }
    };

    Choices choices(int v) const {
        Choices out;
        for (int g = 0; g < s_.opened; ++g) {
            const Slot& slot = s_.slots[static_cast<std::size_t>(g)];
            if (slot.size < p_.k && (slot.compatible & bit(v)) != 0) {
                Choice choice{g, s_.weight_to(v, g)};
                std::size_t at = out.size;
                for (; at > 0 && out.items[at - 1].gain < choice.gain; --at) {
                    out.items[at] = out.items[at - 1];
                }
                out.items[at] = choice;
                ++out.size;
            }
        }
        if (s_.opened < p_.g) {
            out.add({s_.opened, 0});
        }
        if (s_.spare() > 0) {
            out.add({-1, 0});
        }
        return out;
    }

    bool prunes(const Score& upper) const { return has_best_ && upper < best_; }

    // A branch the search stops before: its bound joins what the unfinished search proves
    // (SearchResult::upper). Once the search has stopped, every call left on the stack
    // lands here, one per branch not taken, so this costs a bound or two per level and
    // choice. The bound works out (3) and (4) only where (2) ties the score it is given,
    // so a branch whose (2) may beat the best's is asked again with its own (2).
    void bound_unexplored() {
        if (feasibility_ || !stopped_) {
            return;
        }
        if (s_.missing == 0) {
            offer();
            return;
        }
        const Bounded bounded = bound_.bound(s_, has_best_ ? &best_ : nullptr);
        if (bounded.branch_on < 0) {
            return;  // no placement below it
        }
        Score upper = bounded.upper;
        if (has_best_ && upper.sum_bottleneck < best_.sum_bottleneck) {
            return;  // nothing below it beats the best
        }
        if (!has_best_ || upper.sum_bottleneck != best_.sum_bottleneck) {
            const Score tie{.sum_bottleneck = upper.sum_bottleneck};
            upper = bound_.bound(s_, &tie).upper;
        }
        unexplored_ = unexplored_ ? std::max(*unexplored_, upper) : upper;
    }

    std::optional<Score> proven_upper() const {
        if (!stopped_ || !has_best_) {
            return std::nullopt;
        }
        return unexplored_ ? std::max(*unexplored_, best_) : best_;
    }

    void offer() {
        done_ = feasibility_;
        Score score;
        Groups groups;
        for (const Slot& slot : s_.slots) {
            score = score + Score{slot.bottleneck,
                                  2 * slot.weight_sum,
                                  -static_cast<Weight>(count(slot.classes))};
            auto& group = groups.emplace_back();
            for (Mask m = slot.members; m != 0; m &= m - 1) {
                group.push_back(lowest(m));
            }
        }
        normalise(groups);
        if (!has_best_ || preferred(score, groups, best_, best_groups_)) {
            best_ = score;
            best_groups_ = std::move(groups);
            has_best_ = true;
        }
    }

    const Problem& p_;
    bool feasibility_;  // any placement will do
    Neighbours nb_;
    AssignBound bound_;
    Assignment s_;
    std::uint64_t budget_;
    const std::atomic<bool>* stop_;  // as in the group-by-group search
    std::uint64_t nodes_ = 0;
    std::uint64_t charged_steps_ = 0;  // partner-scan steps already charged as nodes
    bool stopped_ = false;
    bool done_ = false;  // feasibility: a placement was found
    bool has_best_ = false;
    Score best_;
    Groups best_groups_;
    std::optional<Score> unexplored_;  // the best bound of a branch not explored
};

}  // namespace

SearchResult assign_packing(const Problem& problem,
                            Weight threshold,
                            const Groups& incumbent,
                            std::uint64_t node_budget,
                            const std::vector<int>& level_caps,
                            const std::atomic<bool>* stop) {
    Assigner assigner(problem, threshold, false, node_budget, level_caps, stop);
    assigner.seed(incumbent);
    return assigner.run();
}

SearchResult assign_feasible(const Problem& problem, Weight threshold, std::uint64_t node_budget) {
    Assigner assigner(problem, threshold, true, node_budget, {});
    return assigner.run();
}

}  // namespace peergate::policy::placement
