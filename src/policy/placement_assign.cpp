// SPDX-License-Identifier: Apache-2.0
#include "util/cpu_clones.hpp"
#include "policy/placement_assign.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <functional>

#include "policy/placement_bits.hpp"
#include "policy/placement_bounds.hpp"
#include "policy/placement_gains.hpp"
#include "policy/placement_partners.hpp"

namespace peergate::policy::placement {

namespace {

// Nodes are the budget's unit (about a microsecond each, as in the group-by-group search);
// a node here also pays for its partner scans, which grow with n, G and K.
constexpr std::uint64_t kScansPerNode = 256;

// A group a candidate cannot join, in the two-group split bound: far below any real gain,
// far enough above the type's limit that sums of 64 of them do not overflow.
constexpr Weight kNowhere = -(Weight{1} << 48);

// A group being filled.
struct Slot {
    Mask members = 0;
    int size = 0;
    Weight bottleneck = kUnlimited;
    Weight weight_sum = 0;
    Mask classes = 0;          // NUMA classes, as bits
    Mask compatible = ~Mask{0};  // candidates whose pairs to every member reach the threshold
};

// Where the branching candidate may go, with its estimated gain (heaviest first).
struct Choice {
    int slot = -1;  // -1: left out
    Weight gain = 0;
};

// The upper bound of a node and the candidate to branch on (-1: some candidate has
// nowhere to go, or a group cannot be completed).
struct Bounded {
    Score upper;
    int branch_on = -1;
};

class Assigner {
public:
    Assigner(const Problem& problem, Weight threshold, bool feasibility, std::uint64_t budget,
             const std::vector<int>& level_caps, const std::atomic<bool>* stop = nullptr)
        : p_(problem),
          t_(threshold),
          feasibility_(feasibility),
          nb_(neighbours_at(problem, threshold)),
          counter_(problem, nb_),
          ceilings_(feasibility ? std::vector<Weight>(static_cast<std::size_t>(problem.n), kUnlimited)
                                : clique_ceilings(problem, threshold)),
          slots_(static_cast<std::size_t>(problem.g)),
          lin_(static_cast<std::size_t>(problem.n * problem.g), 0),
          budget_(budget),
          stop_(stop) {
        class_members_ = class_masks(p_);
        caps_ = caps_above(p_, t_, level_caps);
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
        pool_ = p_.n >= 64 ? ~Mask{0} : bit(p_.n) - 1;
        missing_ = p_.g * p_.k;
        if (place_required()) {
            search();
        }
        return SearchResult{.complete = !stopped_, .found = has_best_, .groups = best_groups_, .score = best_,
                            .nodes = nodes_};
    }

private:
    // The required GPUs open the first group together.
    bool place_required() {
        for (int v = 0; v < p_.n; ++v) {
            if (p_.is_required(v)) {
                if ((slots_[0].size > 0 && (slots_[0].compatible & bit(v)) == 0) || slots_[0].size == p_.k) {
                    return false;
                }
                join(v, 0);
                opened_ = 1;
            }
        }
        return true;
    }

    PEERGATE_WITH_POPCNT void search() {
        nodes_ += 1 + (counter_.steps() - charged_steps_) / kScansPerNode;
        charged_steps_ = counter_.steps() - (counter_.steps() - charged_steps_) % kScansPerNode;
        if (done_ || stopped_ || nodes_ > budget_ || stop_requested(stop_)) {
            stopped_ = !done_;
            return;
        }
        if (missing_ == 0) {
            offer();
            return;
        }
        const Bounded bounded = bound();
        if (bounded.branch_on < 0 || (!feasibility_ && prunes(bounded.upper))) {
            return;
        }
        const int v = bounded.branch_on;
        for (const Choice& choice : choices(v)) {
            if (choice.slot < 0) {
                pool_ &= ~bit(v);
                search();
                pool_ |= bit(v);
                continue;
            }
            const bool opens = choice.slot == opened_;
            const Slot saved = slots_[static_cast<std::size_t>(choice.slot)];
            opened_ += opens ? 1 : 0;
            join(v, choice.slot);
            search();
            leave(v, choice.slot, saved);
            opened_ -= opens ? 1 : 0;
        }
    }

    void join(int v, int g) {
        Slot& slot = slots_[static_cast<std::size_t>(g)];
        for (Mask m = slot.members; m != 0; m &= m - 1) {
            slot.bottleneck = std::min(slot.bottleneck, p_.w(v, lowest(m)));
        }
        slot.weight_sum += lin(v, g);
        slot.members |= bit(v);
        ++slot.size;
        slot.classes |= bit(at(p_.numa, v));
        slot.compatible &= at(nb_.mask, v);
        pool_ &= ~bit(v);
        --missing_;
        for (Mask m = pool_; m != 0; m &= m - 1) {
            lin(lowest(m), g) += p_.w(v, lowest(m));
        }
    }

    void leave(int v, int g, const Slot& saved) {
        for (Mask m = pool_; m != 0; m &= m - 1) {
            lin(lowest(m), g) -= p_.w(v, lowest(m));
        }
        ++missing_;
        pool_ |= bit(v);
        slots_[static_cast<std::size_t>(g)] = saved;
    }

    Weight& lin(int v, int g) { return lin_[static_cast<std::size_t>(v * p_.g + g)]; }

    int spare() const { return count(pool_) - missing_; }

    Bounded bound() {
        Bounded out;
        std::array<Weight, 64> bottlenecks{};
        Weight doubled = 0;
        for (int g = 0; g < p_.g; ++g) {
            const Slot& slot = slots_[static_cast<std::size_t>(g)];
            doubled += 2 * slot.weight_sum;
            at(bottlenecks, g) = g < opened_ ? slot_ceiling(slot) : t_;
            if (at(bottlenecks, g) < t_) {
                return out;  // an open group cannot be completed
            }
        }
        const bool may_leave = spare() > 0;
        const bool splits = p_.g == 2 && !may_leave;
        side_gains_[0].clear();
        side_gains_[1].clear();
        best_gains_.clear();
        int fewest = 1 << 30;
        Weight opening = t_;  // the best bottleneck a group not yet opened could reach
        for (Mask m = pool_; m != 0; m &= m - 1) {
            const Places places = places_of(lowest(m), may_leave);
            if (places.count == 0) {
                return out;  // it has nowhere to go
            }
            if (may_leave) {
                best_gains_.push_back(places.best_gain);  // not every one will be seated
            } else {
                doubled += places.best_gain;
            }
            opening = std::max(opening, places.opening);
            if (splits) {
                side_gains_[0].push_back(places.side[0]);
                side_gains_[1].push_back(places.side[1]);
            }
            if (places.count < fewest) {
                fewest = places.count;
                out.branch_on = lowest(m);
            }
        }
        for (int g = opened_; g < p_.g; ++g) {
            at(bottlenecks, g) = opening;
        }
        doubled += largest_sum(best_gains_, static_cast<std::size_t>(missing_));
        if (splits) {
            const auto wanted = static_cast<std::size_t>(p_.k - slots_[0].size);
            const Weight split = best_split(side_gains_[0], side_gains_[1], wanted);
            doubled = std::min(doubled, 2 * (slots_[0].weight_sum + slots_[1].weight_sum) + split);
        }
        out.upper = Score{capped_sum(bottlenecks), doubled, negative_spans()};
        return out;
    }

    // Where an undecided candidate may still go and what it can add there.
    struct Places {
        int count = 0;
        Weight best_gain = 0;                            // doubled pair weights, its best place
        std::array<Weight, 2> side{kNowhere, kNowhere};  // its gain in groups 0 and 1
        Weight opening = kNoGroup;                       // the best bottleneck of a new group it opens
    };

    Places places_of(int v, bool may_leave) {
        Places places{.count = may_leave ? 1 : 0};
        for (int g = 0; g < opened_; ++g) {
            const Slot& slot = slots_[static_cast<std::size_t>(g)];
            if (slot.size == p_.k || (slot.compatible & bit(v)) == 0) {
                continue;
            }
            const Partners rest = counter_.partners(v, slot.compatible & pool_ & ~bit(v), p_.k - slot.size - 1);
            if (rest.enough) {
                ++places.count;
                const Weight gain = 2 * lin(v, g) + rest.top;
                places.best_gain = std::max(places.best_gain, gain);
                places.side[static_cast<std::size_t>(g & 1)] = gain;
            }
        }
        if (opened_ < p_.g) {
            const Partners rest = counter_.partners(v, pool_ & ~bit(v), p_.k - 1);
            if (rest.enough) {
                ++places.count;
                places.best_gain = std::max(places.best_gain, rest.top);
                places.opening = std::min(rest.kth, at(ceilings_, v));
                for (int g = opened_; g < 2; ++g) {
                    places.side[static_cast<std::size_t>(g)] = rest.top;
                }
            }
        }
        return places;
    }

    // The best bottleneck an open group can still reach: each member needs the missing
    // partners among the compatible candidates left, and its clique ceiling holds.
    Weight slot_ceiling(const Slot& slot) const {
        const int missing = p_.k - slot.size;
        if (missing == 0) {
            return slot.bottleneck;
        }
        Weight ceiling = slot.bottleneck;
        for (Mask m = slot.members; m != 0; m &= m - 1) {
            const Partners rest = counter_.partners(lowest(m), slot.compatible & pool_, missing);
            if (!rest.enough) {
                return kNoGroup;
            }
            ceiling = std::min({ceiling, rest.kth, at(ceilings_, lowest(m))});
        }
        return ceiling;
    }

    // The i-th best group's bottleneck is at most the highest level at which i disjoint
    // groups fit in the whole problem.
    Weight capped_sum(std::array<Weight, 64>& bottlenecks) const {
        auto* end = bottlenecks.data() + p_.g;
        std::sort(bottlenecks.data(), end, std::greater<>());
        Weight sum = 0;
        for (int i = 0; i < p_.g; ++i) {
            Weight cap = t_;
            for (std::size_t l = 0; l < caps_.levels.size(); ++l) {
                if (caps_.groups[l] > i) {
                    cap = caps_.levels[l];
                }
            }
            sum += std::min(at(bottlenecks, i), cap);
        }
        return sum;
    }

    // An open group whose compatible candidates in its own classes cannot fill it must take
    // in as many more classes as it takes to seat the rest; the groups not opened yet span
    // what fewest_spans (placement_numa_bounds.hpp) counts among the undecided (members
    // counted, not cliques: those cost more per node than they gain here).
    Weight negative_spans() {
        offers_.clear();
        for (Mask members : class_members_) {
            offers_.push_back(count(pool_ & members));
        }
        Weight spans = fewest_spans(offers_, offers_, p_.k, p_.g - opened_, pieces_);
        for (int g = 0; g < opened_; ++g) {
            const Slot& slot = slots_[static_cast<std::size_t>(g)];
            spans += count(slot.classes) + classes_to_add(seats(), slot.classes,
                                                          slot.compatible & pool_, p_.k - slot.size, offers_);
        }
        return -spans;
    }

    ClassSeats seats() const { return {class_members_, nb_.mask, false}; }

    std::vector<Choice> choices(int v) {
        std::vector<Choice> out;
        for (int g = 0; g < opened_; ++g) {
            const Slot& slot = slots_[static_cast<std::size_t>(g)];
            if (slot.size < p_.k && (slot.compatible & bit(v)) != 0) {
                out.push_back({g, lin(v, g)});
            }
        }
        std::stable_sort(out.begin(), out.end(), [](const Choice& a, const Choice& b) { return a.gain > b.gain; });
        if (opened_ < p_.g) {
            out.push_back({opened_, 0});
        }
        if (spare() > 0) {
            out.push_back({-1, 0});
        }
        return out;
    }

    bool prunes(const Score& upper) const { return has_best_ && upper < best_; }

    void offer() {
        done_ = feasibility_;
        Score score;
        Groups groups;
        for (const Slot& slot : slots_) {
            score = score + Score{slot.bottleneck, 2 * slot.weight_sum, -static_cast<Weight>(count(slot.classes))};
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
    Weight t_;
    bool feasibility_;  // any placement will do
    Neighbours nb_;
    PartnerCounter counter_;
    std::vector<Weight> ceilings_;
    std::vector<Mask> class_members_;  // per NUMA class
    std::vector<int> offers_;          // negative_spans's
    std::vector<int> pieces_;
    LevelCaps caps_;
    std::vector<Slot> slots_;
    std::vector<Weight> lin_;  // per candidate and slot: its pair weights to the members
    std::array<std::vector<Weight>, 2> side_gains_;  // two groups: each undecided one's gain in each
    std::vector<Weight> best_gains_;                 // each undecided one's gain in its best place
    Mask pool_ = 0;
    int opened_ = 0;
    int missing_ = 0;  // places left in the G groups
    std::uint64_t budget_;
    const std::atomic<bool>* stop_;  // as in the group-by-group search
    std::uint64_t nodes_ = 0;
    std::uint64_t charged_steps_ = 0;  // partner-scan steps already charged as nodes
    bool stopped_ = false;
    bool done_ = false;  // feasibility: a placement was found
    bool has_best_ = false;
    Score best_;
    Groups best_groups_;
};

}  // namespace

SearchResult assign_packing(const Problem& problem, Weight threshold, const Groups& incumbent,
                            std::uint64_t node_budget, const std::vector<int>& level_caps,
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
