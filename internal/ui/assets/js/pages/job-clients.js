// /ui/jobs/<id>@<ns>/clients: for system and sysbatch jobs, each client
// and the state of the job's allocation there.

import { api } from '../lib/api.js';
import { esc, badge, table, nodeLink, allocLink } from '../lib/ui.js';
import { jobRef, jobHeader, jobActions, jobTopics, wantsJob } from '../lib/job.js';

export default function jobClientsPage(params, query, ctx) {
  const ref = jobRef(params.job);
  return {
    title: `Job ${ref.id} clients`,
    topics: [...jobTopics, 'Node'],
    render: async () => {
      const [job, allocs, nodes, c] = await Promise.all([api(`${ref.base}?${ref.q}`), api(`${ref.base}/allocations?${ref.q}`), api('/v1/nodes'), ctx.caps()]);
      const byNode = new Map();
      for (const a of allocs) { if (!byNode.has(a.NodeID)) byNode.set(a.NodeID, []); byNode.get(a.NodeID).push(a); }
      const rows = nodes.map(n => {
        const as = byNode.get(n.ID) || [];
        const st = as.length ? as.map(a => `${allocLink(a.ID)} ${badge(a.ClientStatus)}`).join(' ') : '<span class="muted">not scheduled</span>';
        return [nodeLink(n.ID, n.Name), esc(n.Datacenter), esc(n.NodePool), badge(n.Status), st];
      });
      return `${jobHeader(job, ref, c, `${ref.path}/clients`)}${table(['Client', 'Datacenter', 'Pool', 'Status', 'Allocations'], rows, 'No clients.')}`;
    },
    actions: jobActions(ref, ctx),
  };
}
