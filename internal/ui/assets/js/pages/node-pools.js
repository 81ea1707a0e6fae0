// /ui/node-pools[/<name>]: node pools with their clients and jobs (a
// Drover page: Nomad's UI shows pools only as a client attribute).

import { api, enc } from '../lib/api.js';
import { esc, table, nodeLink, badge, jobLink } from '../lib/ui.js';

export default function nodePoolsPage(params, query, ctx) {
  const name = params.pool;
  return {
    title: name ? `Node pool ${name}` : 'Node pools',
    topics: ['Node', 'NodePool'],
    render: async () => {
      if (!name) {
        const [pools, nodes] = await Promise.all([api('/v1/node/pools'), api('/v1/nodes')]);
        const rows = pools.map(p => [`<a href="/ui/node-pools/${enc(p.Name)}">${esc(p.Name)}</a>`, esc(p.Description),
          esc(nodes.filter(n => n.NodePool === p.Name).length), esc((p.SchedulerConfiguration && p.SchedulerConfiguration.SchedulerAlgorithm) || '')]);
        return `<h1>Node pools</h1>${table(['Name', 'Description', 'Clients', 'Scheduler algorithm'], rows, 'No node pools.')}`;
      }
      const [nodes, jobs] = await Promise.all([api(`/v1/node/pool/${enc(name)}/nodes`), api(`/v1/node/pool/${enc(name)}/jobs?namespace=*`)]);
      return `<h1>Node pool ${esc(name)}</h1><p><a href="/ui/node-pools">All pools</a></p>
        <h2>Clients</h2>${table(['Client', 'Datacenter', 'Status', 'Eligibility'], nodes.map(n => [nodeLink(n.ID, n.Name), esc(n.Datacenter), badge(n.Status), badge(n.SchedulingEligibility)]), 'No clients.')}
        <h2>Jobs</h2>${table(['Job', 'Namespace', 'Type', 'Status'], jobs.map(j => [jobLink(j.ID, j.Namespace), esc(j.Namespace), esc(j.Type), badge(j.Status)]), 'No jobs.')}`;
    },
  };
}
