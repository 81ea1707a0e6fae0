// Allocation rows shared by the job, task group and client pages.

import { esc, badge, allocLink, nodeLink, evalLink, nsTime, table, jobLink } from './ui.js';

export function allocTable(allocs, { job = false } = {}) {
  const rows = allocs.slice().sort((a, b) => b.CreateIndex - a.CreateIndex).map(a => [allocLink(a.ID),
    ...(job ? [jobLink(a.JobID, a.Namespace)] : []), esc(a.TaskGroup), nodeLink(a.NodeID, a.NodeName), badge(a.ClientStatus),
    esc(a.DesiredStatus), esc(a.JobVersion), evalLink(a.EvalID), esc(nsTime(a.CreateTime))]);
  return table(['ID', ...(job ? ['Job'] : []), 'Group', 'Client', 'Status', 'Desired', 'Version', 'Eval', 'Created'], rows, 'No allocations.');
}
