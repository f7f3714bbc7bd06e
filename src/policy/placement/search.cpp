// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/search.hpp"

#include "policy/placement/bits.hpp"
#include "policy/placement/bounds.hpp"
#include "policy/placement/gains.hpp"
#include "policy/placement/search_memo.hpp"
#include "policy/placement/slot.hpp"
#include "policy/placement/twins.hpp"
#include "util/cpu_clones.hpp"

#include <algorithm>
#include <bit>

namespace peergate::policy::placement {

namespace {

constexpr std::uint64_t kScanStepsPerNode = 256;
// A step of the packing and clique searches inside the bounds costs about four scan steps.
constexpr std::uint64_t kScanStepsPerInnerStep = 4;
// A span count for one split of a group about to be filled (spans_after_open_group).
constexpr std::uint64_t kScanStepsPerSpanCount = 16;

class Searcher {
public:
    Searcher(const Problem& problem,
             Weight threshold,
             Goal goal,
             std::uint64_t budget,
             const std::vector<int>& level_caps,
             const std::atomic<bool>* stop = nullptr)
        : p_(problem),
          nb_(neighbours_at(problem, threshold)),
          levels_(level_adjacency(problem, threshold)),
          ceilings_(
              clique_ceilings(problem, levels_, problem.n >= 64 ? ~Mask{0} : bit(problem.n) - 1)),
          feasibility_(goal == Goal::feasible),
          any_order_(goal == Goal::feasible || goal == Goal::score),
          first_ends_(goal == Goal::feasible || goal == Goal::smallest),
          budget_(budget),
          stop_(stop) {
        for (int v = 0; v < p_.n; ++v) {
            required_ |= p_.is_required(v) ? bit(v) : 0;
            usable_ |= at(ceilings_, v) != kNoGroup ? bit(v) : 0;
        }
        previous_twin_ = previous_twins(p_);
        class_members_ = class_masks(p_);
        caps_ = caps_above(p_, threshold, level_caps);
    }

    void seed(const Groups& incumbent) {
        best_groups_ = incumbent;
        best_ = Score{};
        for (const auto& group : incumbent) {
            best_ = best_ + score_of(group_stats(p_, group));
        }
        has_best_ = true;
    }

    SearchResult run() {
        // Candidates in no group of K at this threshold can only be left out.
        if ((required_ & ~usable_) == 0) {
            left_out_ = (p_.n >= 64 ? ~Mask{0} : bit(p_.n) - 1) & ~usable_;
            boundary(usable_, p_.g, Score{}, ceilings_);
        }
        return SearchResult{.complete = !stopped_ || done_,
                            .found = has_best_,
                            .groups = best_groups_,
                            .score = best_,
                            .nodes = nodes_};
    }

private:
    bool tick() {
        if (stopped_ || done_) {
            return false;
        }
        // Bounds cost more with larger K and pools: their scans, the NUMA bound's packing
        // searches and the clique ceilings' searches are paid for in nodes too, so the
        // budget stays about a second.
        const std::uint64_t spent =
            (scratch_.packer.spent() + clique_steps_) * kScanStepsPerInnerStep + scratch_.steps +
            steps_;
        nodes_ += 1 + (spent - charged_) / kScanStepsPerNode;
        charged_ = spent - (spent - charged_) % kScanStepsPerNode;
        if (nodes_ > budget_ || stop_requested(stop_)) {
            stopped_ = true;
            return false;
        }
        return true;
    }

    // Nothing in a subtree whose upper bound is `upper` can replace the best: lower, or
    // equal and either later in the tie-break order than a best this search found itself
    // or not wanted at all (the score goal keeps strict improvements only).
    bool prunes(const Score& upper) const {
        return has_best_ &&
               (upper < best_ || (upper == best_ && (best_from_search_ || any_order_)));
    }

    void offer(const Score& score) {
        if (first_ends_) {  // any placement, or the first in list order with the proven score
            if (feasibility_ || score == best_) {
                best_groups_ = stack_;
                has_best_ = best_from_search_ = done_ = true;
            }
            return;
        }
        if (!has_best_ || score > best_ || (score == best_ && !best_from_search_)) {
            best_ = score;
            best_groups_ = stack_;
            has_best_ = best_from_search_ = true;
        }
    }

    bool known_hopeless(const SearchKey& key, const Score& prefix) const {
        if (feasibility_) {
            return memo_.failed(key);
        }
        const Score* ceiling = memo_.ceiling(key);
        return ceiling != nullptr && prunes(prefix + *ceiling);
    }

    void remember(const SearchKey& key, const Score& prefix) {
        if (stopped_ || done_) {
            return;  // an unfinished subtree proves nothing
        }
        if (feasibility_) {
            memo_.record_failure(key);
        } else {  // everything below was explored or pruned against best_
            memo_.record_ceiling(key, best_ - prefix);
        }
    }

    // `above`: the clique ceilings of the pool this one was cut from.
    PEERGATE_WITH_POPCNT void boundary(Mask pool,
                                       int groups,
                                       const Score& prefix,
                                       const std::vector<Weight>& above) {
        if (!tick()) {
            return;
        }
        if (groups == 0) {
            if ((pool & required_) == 0) {  // the required GPUs all sit in a group
                offer(prefix);
            }
            return;
        }
        const SearchKey key{pool, left_out_, groups};
        if (count(pool) < groups * p_.k || known_hopeless(key, prefix)) {
            return;
        }
        RestBound rest = rest_bound(p_, nb_, above, caps_, pool, groups, scratch_);
        if (!rest.feasible || (!feasibility_ && prunes(prefix + rest.groups))) {
            return;
        }
        // Tighter for the optimiser: ceilings from the groups still possible in this pool.
        const std::vector<Weight> here =
            feasibility_ ? above : clique_ceilings(p_, levels_, pool, &above, &clique_steps_);
        if (!feasibility_) {
            if (here != above) {  // the same ceilings would give the same bound
                rest = rest_bound(p_, nb_, here, caps_, pool, groups, scratch_);
                if (!rest.feasible || prunes(prefix + rest.groups)) {
                    return;
                }
            }
            if (p_.numa_classes == 2) {
                spans_after_open_group(scratch_.per_class,
                                       scratch_.pure,
                                       scratch_.largest,
                                       p_.k,
                                       groups - 1,
                                       span_scratch_,
                                       rest.after_open);
                steps_ += kScanStepsPerSpanCount * static_cast<std::uint64_t>(p_.k + 1);
            }
        }
        const int u = any_order_ ? most_constrained(pool) : lowest(pool);
        steps_ +=
            any_order_ ? static_cast<std::uint64_t>(count(pool)) : 0;  // most_constrained's scan
        if (twin_allows(u, pool)) {
            const Slot open = joined(p_, Slot{}, u);
            extend(
                pool & ~bit(u), groups, prefix, open, at(nb_.mask, u) & pool & ~bit(u), rest, here);
        }
        const bool spare = count(pool) - 1 >= groups * p_.k;
        if (spare && (bit(u) & required_) == 0) {
            left_out_ |= bit(u);
            boundary(pool & ~bit(u), groups, prefix, here);
            left_out_ &= ~bit(u);
        }
        remember(key, prefix);
    }

    // Twins (twins.hpp) can swap places without changing the score. So a group takes the
    // smallest undecided members of each twin class: whatever a larger twin does, the smaller can
    // do. The search for the smallest list, whose groups come in list order, also keeps a twin out
    // of every group once a smaller one was left out, since the smallest list puts the
    // smaller twin in the earlier group.
    bool twin_allows(int v, Mask undecided) const {
        const int twin = at(previous_twin_, v);
        const Mask blocked = any_order_ ? undecided : undecided | left_out_;
        return twin < 0 || (blocked & bit(twin)) == 0;
    }

    // Any undecided candidate may branch first when the order of the list does not matter:
    // the one with the fewest usable partners fails soonest. The search for the smallest
    // list keeps the smallest first, which is what makes its first find the smallest list.
    int most_constrained(Mask pool) const {
        int best = lowest(pool);
        int fewest = p_.n;
        for (Mask m = pool; m != 0; m &= m - 1) {
            const int v = lowest(m);
            const int partners = count(at(nb_.mask, v) & pool);
            if (partners < fewest) {
                best = v;
                fewest = partners;
            }
        }
        return best;
    }

    PEERGATE_WITH_POPCNT void extend(Mask pool,
                                     int groups,
                                     const Score& prefix,
                                     const Slot& open,
                                     Mask cand,
                                     const RestBound& rest,
                                     const std::vector<Weight>& ceilings) {
        if (!tick()) {
            return;
        }
        // A group holding one required GPU must take all of them.
        const bool holds_required = (open.members & required_) != 0;
        const Mask required_missing = holds_required ? required_ & ~open.members : 0;
        if ((required_missing & ~cand) != 0 || count(required_missing) > p_.k - open.size) {
            return;
        }
        if (open.size == p_.k) {
            close(pool, groups, prefix, open, ceilings);
            return;
        }
        if (open.size + count(cand) < p_.k) {
            return;
        }
        if (!feasibility_ && open_hopeless(prefix, open, cand, rest, ceilings)) {
            return;
        }
        const int v = lowest(cand);
        if (twin_allows(v, pool)) {
            extend(pool & ~bit(v),
                   groups,
                   prefix,
                   joined(p_, open, v),
                   cand & at(nb_.mask, v) & ~bit(v),
                   rest,
                   ceilings);
        }
        if (!holds_required || (bit(v) & required_) == 0) {
            extend(pool, groups, prefix, open, cand & ~bit(v), rest, ceilings);
        }
    }

    void close(Mask pool,
               int groups,
               const Score& prefix,
               const Slot& open,
               const std::vector<Weight>& ceilings) {
        std::vector<int> group;
        for (Mask m = open.members; m != 0; m &= m - 1) {
            group.push_back(lowest(m));
        }
        const Score own{
            open.bottleneck, 2 * open.weight_sum, -static_cast<Weight>(count(open.classes))};
        stack_.push_back(std::move(group));
        count_closed(open.bottleneck, -1);
        boundary(pool, groups - 1, prefix + own, ceilings);
        count_closed(open.bottleneck, +1);
        stack_.pop_back();
    }

    // A closed group whose bottleneck reaches a level uses up one of that level's groups.
    void count_closed(Weight bottleneck, int change) {
        for (std::size_t i = 0; i < caps_.levels.size() && caps_.levels[i] <= bottleneck; ++i) {
            caps_.groups[i] += change;
        }
    }

    // Bounds the open group's completion from `cand`: its bottleneck first, and its pair
    // weights only when the bottleneck sums tie, since (3) cannot decide otherwise.
    PEERGATE_WITH_POPCNT bool open_hopeless(const Score& prefix,
                                            const Slot& open,
                                            Mask cand,
                                            const RestBound& rest,
                                            const std::vector<Weight>& ceilings) {
        const int missing = p_.k - open.size;
        Weight bottleneck = open.bottleneck;
        for (Mask m = open.members; m != 0; m &= m - 1) {
            const auto kth = kth_partner(lowest(m), cand, missing);
            if (!kth) {
                return true;  // a member has too few usable partners left
            }
            bottleneck = std::min({bottleneck, *kth, at(ceilings, lowest(m))});
        }
        const Weight sum = prefix.sum_bottleneck + bottleneck + rest.all_but_one.sum_bottleneck;
        if (!has_best_ || sum != best_.sum_bottleneck) {
            return has_best_ && sum < best_.sum_bottleneck;
        }
        shares_.clear();
        for (Mask c = cand; c != 0; c &= c - 1) {
            shares_.push_back(doubled_share(lowest(c), open, cand, missing));
        }
        const Weight doubled =
            2 * open.weight_sum + largest_sum(shares_, static_cast<std::size_t>(missing));
        const int spans =
            count(open.classes) + classes_to_add(seats(), open.classes, cand, missing, offers_);
        Score upper =
            prefix + Score{bottleneck, doubled, -static_cast<Weight>(spans)} + rest.all_but_one;
        if (p_.numa_classes == 2 && upper.doubled_weight == best_.doubled_weight) {
            const int around = fewest_spans_around_open_group(
                rest.after_open, class_members_, open.members, cand, p_.k);
            upper.negative_spans = std::min(upper.negative_spans, prefix.negative_spans - around);
        }
        return prunes(upper);
    }

    ClassSeats seats() const { return {class_members_, nb_.mask}; }

    std::optional<Weight> kth_partner(int v, Mask cand, int kth) const {
        const Partners found = heaviest_partners(p_, nb_, v, cand, kth, steps_);
        return found.enough ? std::optional<Weight>(found.kth) : std::nullopt;
    }

    // Twice what joining adds through `v`: its pairs to the members, doubled, plus its
    // heaviest pairs to the others still to come (each such pair is counted from both ends).
    Weight doubled_share(int v, const Slot& open, Mask cand, int missing) const {
        Weight share = 0;
        for (Mask m = open.members; m != 0; m &= m - 1) {
            share += 2 * p_.w(lowest(m), v);
        }
        return share + heaviest_partners(p_, nb_, v, cand, missing - 1, steps_).top;
    }

    const Problem& p_;
    Neighbours nb_;
    LevelAdjacency levels_;
    std::vector<Weight> ceilings_;
    LevelCaps caps_;
    BoundScratch scratch_;
    std::vector<Weight> shares_;
    bool feasibility_;
    bool any_order_;   // branch on the most constrained candidate; twins are one
    bool first_ends_;  // the first placement offered ends the search
    std::uint64_t budget_;
    const std::atomic<bool>* stop_;  // set by whoever no longer needs the answer
    std::uint64_t nodes_ = 0;
    bool stopped_ = false;
    bool done_ = false;
    bool has_best_ = false;
    bool best_from_search_ = false;
    Score best_;
    Groups best_groups_;
    Groups stack_;
    Mask required_ = 0;
    Mask usable_ = 0;  // candidates in some group of K at the threshold
    Mask left_out_ = 0;
    std::uint64_t charged_ = 0;        // steps already counted as nodes
    mutable std::uint64_t steps_ = 0;  // partner-scan steps of the open-group bound
    std::uint64_t clique_steps_ = 0;   // of the clique ceilings at each boundary
    std::vector<int> previous_twin_;   // per candidate: its next smaller twin, or -1
    std::vector<Mask> class_members_;  // per NUMA class
    std::vector<int> offers_;          // classes_to_add's
    SpanScratch span_scratch_;
    SearchMemo memo_;
};

}  // namespace

SearchResult run_search(const Problem& problem,
                        Weight threshold,
                        Goal goal,
                        std::uint64_t node_budget,
                        const std::vector<int>& level_caps,
                        const Groups* incumbent,
                        const std::atomic<bool>* stop) {
    Searcher searcher(problem, threshold, goal, node_budget, level_caps, stop);
    if (incumbent != nullptr) {
        searcher.seed(*incumbent);
    }
    return searcher.run();
}

}  // namespace peergate::policy::placement
