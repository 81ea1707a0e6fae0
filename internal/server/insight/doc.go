// Package insight answers the questions operators ask of a scheduler, with
// the production scheduler itself on a state snapshot, writing nothing:
//
//   - Why not placed (ExplainJob; Job.Explain, Eval.Explain, `drover job
//     why`): the job's scheduler is run once to learn what stays unplaced,
//     then scheduler.DiagnoseGroup runs the scheduler's own checks
//     (candidate filter, feasibility chain, resource fit, ports,
//     distinct_hosts/property) for one more alloc on every node and
//     records every failure with its numbers (asked and free per
//     dimension, the constraint with the node's value, the missing driver,
//     the alloc holding a port or a distinct host). The node's first
//     failure is its reason (grouped, with the nodes' operator-set
//     classes); the fixes are derived from all failures: a failure that is
//     a node's only one says what would open that node, so each fix
//     carries how many nodes it opens and the cheapest (most nodes) comes
//     first. Preemption is judged by what evicting every alloc of a job at
//     least scheduler.PreemptionPriorityDelta lower would free.
//   - What-if (WhatIf; Operator.WhatIf, `drover operator what-if`): the
//     change is applied to an overlay of the snapshot (overlay.go: nodes,
//     jobs and allocs replaced or added on top of a scheduler.State), then
//     the cluster is played until quiet: the real drainer step
//     (server/drainer: max_parallel budgets, system allocs last, the
//     deadline), the real schedulers for every eval (plans committed into
//     the overlay), and clients that report placements running and healthy
//     at once. The report compares the changed nodes' allocs before and
//     after. TestWhatIf_DrainPredictsTheRealDrain (package sim) checks
//     that the predicted moves are what the real drain then does.
//   - Headroom (Headroom, HeadroomShape; Job.Headroom, Operator.Headroom):
//     the group's count is raised by an upper bound (what the nodes' free
//     resources divide into) and the job's scheduler places it one alloc
//     after the other; the placements beyond the current count are the
//     answer, so the group scaled by it places and one more blocks
//     (TestHeadroom_MatchesWhereTheSchedulerBlocks). N+1: the loss of each
//     node that holds the most of the group (every node on clusters of at
//     most 16) is played as a what-if first, then the headroom is asked
//     again on the result.
//
// IDs of the hypothetical evals and allocs come from a seeded stream
// (Deps.Seed), so the same state and question give the same answer.
// Benchmarks (bench_test.go) measure each answer on 5,000 nodes.
package insight
