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
//     the count at which the job's scheduler starts to block. fits.go
//     sums what each node takes of the group (DiagnoseGroup's free
//     resources divided by the ask, its free dynamic ports, one with
//     distinct_hosts or a static port, none on a failing node): the
//     scheduler visits every node before it blocks, so one-by-one
//     placement reaches exactly that sum while placements on one node do
//     not change another's. Where they may (distinct_property,
//     preemption, cores, devices, host_network, per-alloc volumes, allocs
//     to replace or update, another group short), the count is raised and
//     the scheduler places it one by one (headroomBySchedule).
//     TestHeadroom_MatchesWhereTheSchedulerBlocks checks both agree and
//     that one more blocks. N+1 covers every ready node: the sum over the
//     others less the group's allocs on the lost node; losses that move
//     other jobs' allocs too are played as what-ifs (all of them on
//     clusters of at most 16 nodes, the 3 lowest on larger ones; the
//     rest are marked upper bounds).
//
// IDs of the hypothetical evals and allocs come from a seeded stream
// (Deps.Seed), so the same state and question give the same answer.
// Benchmarks (bench_test.go) measure each answer on 5,000 nodes.
package insight
