"""Best routes: the provably optimal run of a company's trains (18Rhl and 1893).

:func:`best_routes` (a game position) and :func:`search_routes` (a
:class:`RouteContext`) return a :class:`RouteSet`: one route per train that
runs, maximising the total revenue under the title's rules, with the proof
data of the search (:class:`SearchProof`).

Algorithm
---------
1. **Candidates per train type.**  A depth-first search over the segment
   graph (:mod:`rhineland.routes.graph`) from every node lists each *node
   sequence* once (kept in the orientation whose first node id is the smaller),
   with the parallel segments still open per step: the track is chosen last (a
   realisation, :meth:`Candidate.realisations`), so parallel track does not
   multiply the walk.
   A branch is cut as soon as the path breaks a rule that no extension can
   repair (each cut is a check of :func:`rhineland.routes.engine.check_route`
   or of the title hook that raises on every extension too):

   * a node visited twice, or track (a unit bitmask) used twice;
   * passing through a terminal node (offboard / terminal track) or a city
     blocked by other companies' tokens -- such nodes only end a branch;
   * a node kind no distance rule of the train names, or more counted visits
     of a rule than its ``visit`` limit (towns cost nothing where the rule
     says 99; a visit the 18Rhl ferry rule drops costs 0, so counting is exact,
     but for a dropped pair of two kinds -- the gray 949's town and city --
     where the direction decides which kind counts: there neither counts, a
     necessary condition of both directions);
   * two nodes of one exclusivity group (offboard ``groups``; 18Rhl's Eastern
     Ruhr, Nimwegen/Arnheim and Basel/Frankfurt pairs);
   * 18Rhl: a red hex other than the RGE hexes for the Rheingold-Express; a
     green Rhine metropolis re-entered other than by its ferry.

   A path is kept when it also meets the end conditions: two stops that
   count, a token city of the entity, legal ends (towns, out-tokened
   offboards, an RGE end for the 8-train).  A train with such an end rule
   walks from those ends only (a path with one RGE end is found from it).  A walk
   from start ``s`` keeps paths ending at a node of larger id only; once a walk is
   big (``END_CUT_AFTER`` nodes) it leaves a path that can no longer reach such an
   end within its visits left (as the token reach, :func:`token_distance`).

   Each candidate gets an **optimistic value** ``ub``
   (:meth:`~rhineland.routes.search_model.TrainModel.bound`): per distance
   rule the best ``pay + free`` positive stop values on it (the stop values
   are the rules' own :meth:`~rhineland.routes.rules.RevenueRules.stop_value`),
   plus an upper bound of every bonus
   (:class:`~rhineland.routes.search_model.RhlProfile`).  It is admissible:
   the paying stops the rules pick are the zero-cost visits plus at most
   ``pay`` counted visits per rule, hence worth at most the best ``pay +
   free``; every bonus is bounded separately (Montan by per-node coal/steel
   counts, which never undercount the per-hex count and Montan only grows
   with them; Eastern Ruhr, Eisern Rhein and Ratingen at full value when
   their nodes are on the path; the Rheingold doubling by the sum of the
   metropolis values whenever both ends are RGE hexes; penalties as 0), and
   bonuses are additive per route, so the sum bounds the route's revenue in
   either direction.  18Rhl tightens it
   (:meth:`~rhineland.titles.g18rhl.search_profile.RhlProfile.route_bound`: a
   dropped visit never pays, so ``pay`` instead of ``pay + free``; a ferried run
   pays once; the Rheingold doubling inside the 8 best).

   **Value pruning.**  A walk has a threshold: it keeps only candidates with
   ``ub`` above it and leaves a branch as soon as the branch's *completion
   bound* (:func:`completion_bound`: the path's values, the best values any
   extension can still add -- the best unvisited values per rule and the walk
   table :func:`_walk_table` -- and the title's bonus cap
   :meth:`~rhineland.routes.search_model.TitleProfile.bonus_cap`) is at most
   the threshold.  The first walk of a train type raises its threshold with
   the best ``ub`` seen (``top - margin``, :func:`_margin`); it yields the
   type's best ``ub`` (``top``) and the candidates near it.  Why each bound is
   admissible with every bonus of both titles: ``docs/best-routes.md``.

2. **Exact value, lazily.**  A candidate's exact revenue is the rules' own
   verdict: :func:`~rhineland.routes.engine.check_route` and
   :meth:`~rhineland.routes.rules.RevenueRules.evaluate` on the route.  Both
   directions are tried when the path takes an 18Rhl ferry (the second visit
   of the pair is dropped and the first pays the fee, so the directions may
   pay differently: the town and city of the gray Duisburg tile 949 do);
   otherwise every check and every payout rule is symmetric in the
   direction (ends, revisits, pairs, best-``pay`` stops with the token
   substitution, bonuses), so one direction decides.  A candidate is priced
   only when the branch and bound below completes an assignment holding it
   whose optimistic total beats the incumbent; its exact value then
   replaces ``ub`` for the rest of the search (an illegal one is dropped).
   For a rules class the profiles were not written for (a subclass: see
   :func:`~rhineland.routes.search_model.profile_for`) every candidate is priced, in both
   directions, up front and ``ub`` is the exact value.

3. **Branch and bound over the trains.**  First, trains of a type with an end rule
   beyond the number of disjoint segments leaving its end nodes are dropped (they can
   never all run: :func:`end_room`).  Trains are taken one after another
   (the train type with the highest ``top`` first); each level tries its
   candidates by decreasing ``ub`` (ties: node ids, then hexes), then "no
   route" (0 M).  Every candidate list is indexed as bitsets (:class:`CandidateIndex`):
   per set of units some step surely uses, the candidates using it, so the
   candidates of a train that may still run beside the routes picked so far
   (their ``must`` units miss the picks') are one big-integer expression, and
   the first of them carries the best ``ub`` that train can still add; a pick is
   kept only when the picks have realisations sharing no unit (:func:`joint`).
   The bound at a node is ``current + sum over the trains left of that best
   ub`` (at least 0 each; for the next trains of the same type at most the
   ``ub`` of this level's pick, since they take the same or later candidates).
   It only ignores the no-reuse rule *among* the remaining trains, and each
   ``ub`` is admissible, so it never underestimates the best completion.  Where two
   or more trains are left, :func:`crowd_bound` tightens it: at most one of them
   takes a candidate surely using a given unit set.  The last train's bound looks
   only at the window of its sorted list that could beat the incumbent.
   A level stops at the first candidate with ``current + ub + rest <= best``
   (the candidates are sorted, so no later one can beat the incumbent);
   a candidate is skipped when ``current + value + bound of the trains left
   beside it <= best``; trains of one type take candidates in
   non-decreasing index order only (symmetry; one node sequence may serve two
   trains on disjoint realisations).  The incumbent changes only on a
   strict improvement of an exactly priced assignment.

   **Completeness.**  The first branch and bound runs on the candidates near
   each type's ``top``; it yields an incumbent of ``best`` M.  A run beating it
   gives train ``j`` a route worth more than ``best - sum of the other trains'
   top`` (each other train earns at most its ``top``), so every train type whose
   first walk stopped above that threshold is walked again down to it (or, for a
   walk without a completion bound, its kept candidates filtered: the walk is not
   repeated; with one, the candidates it met filtered and only the branches it left
   by the completion bound walked again, from where it left them) and the branch and
   bound repeats on the full lists, searching only runs with at least one candidate
   the first lists lacked (the first pass was exhaustive over those; see ``fresh`` of
   :func:`branch_and_bound`): the answer is then exact.
   Memory: the candidate lists (only those above the thresholds), one bitset
   per surely used unit set, a clash memo capped at 64 MB per list
   (:data:`MEMO_BITS`), and per train type the first walk's spare candidates and
   left branches (at most 20,000 and 5,000, :class:`WalkLog`).

   **Anytime.**  With ``budget_nodes`` the walks and the branch and bound are
   charged per node; when the budget is spent the search stops and returns the
   best run found (by the branch and bound, or greedily from the candidates
   walked so far), with ``proof.bound`` = the sum of each train's ``top``
   (an admissible bound of the walk that completed, or the completion bound of
   the empty path, :func:`crude_bound`, for a type whose walk did not).

4. **Judge.**  The winning routes go through
   :func:`~rhineland.routes.engine.run_revenue` (resolution of the export
   chains, every check, every bonus); its revenue must equal the search's
   or ``RuntimeError`` is raised (a bug, never a rule outcome).

Proof data: ``proof.bound`` is the largest bound of any pruned subtree or
the incumbent, whichever is larger -- equal to ``revenue`` when the search
is complete, which is the optimality certificate (``RouteSet.gap`` is 0);
after a spent budget it is the sum of the trains' bounds (``gap`` > 0 unless
the incumbent reaches it); ``proof.root_bound`` the sum of the trains'
``top``; ``proof.nodes`` the walk nodes plus the branch-and-bound nodes
explored (independent of the machine's load: the budget counts them).

Units: revenue in M (Mark).

Modules
-------
:mod:`~rhineland.routes.search.result` what a search answers (:class:`RouteSet`);
:mod:`~rhineland.routes.search.candidate` a candidate route and its realisations;
:mod:`~rhineland.routes.search.budget` the node budget of the anytime mode;
:mod:`~rhineland.routes.search.bounds` the admissible bounds of the walks (completion
bound, walk table, token reach, end room); :mod:`~rhineland.routes.search.walk` the
stop-sequence walk (step 1); :mod:`~rhineland.routes.search.lists` one search's state and
candidate lists (first walk, second pass, exact pricing);
:mod:`~rhineland.routes.search.index` candidate lists as bitsets;
:mod:`~rhineland.routes.search.level_bounds` the bounds of a branch-and-bound level;
:mod:`~rhineland.routes.search.branch_and_bound` the branch and bound (step 3);
:mod:`~rhineland.routes.search.run` the entry points, the answer memo and the phases of
one search (steps 1-4).  This package re-exports their public names.
"""

from __future__ import annotations

from rhineland.routes.search.bounds import WalkRow
from rhineland.routes.search.budget import Budget, OutOfBudget
from rhineland.routes.search.candidate import Candidate, UnitSets
from rhineland.routes.search.index import MEMO_BITS
from rhineland.routes.search.level_bounds import CROWD_IDS, PAIR_NODES
from rhineland.routes.search.lists import SPARE_MAX
from rhineland.routes.search.result import RouteSet, SearchProof, TrainRoute
from rhineland.routes.search.run import best_routes, search_routes
from rhineland.routes.search.walk import (
    BRANCHES_MAX,
    END_CUT_AFTER,
    RECORD_AFTER,
    CutBranch,
    WalkLog,
    enumerate_candidates,
)

__all__ = [
    "BRANCHES_MAX",
    "CROWD_IDS",
    "END_CUT_AFTER",
    "MEMO_BITS",
    "PAIR_NODES",
    "RECORD_AFTER",
    "SPARE_MAX",
    "Budget",
    "Candidate",
    "CutBranch",
    "OutOfBudget",
    "RouteSet",
    "SearchProof",
    "TrainRoute",
    "UnitSets",
    "WalkLog",
    "WalkRow",
    "best_routes",
    "enumerate_candidates",
    "search_routes",
]
