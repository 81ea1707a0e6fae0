// /ui/topology: every client's allocated CPU and memory and its
// allocations, with the cluster's totals.

import { api, enc } from '../lib/api.js';
import { esc, badge, stat, bar, nodeLink, allocLink } from '../lib/ui.js';
import { allocatedOn } from '../lib/resources.js';

export default function topologyPage(params, query, ctx) {
  return {
    title: 'Topology',
    topics: ['Node', 'Allocation'],
    render: async () => {
      const [nodes, allocs] = await Promise.all([api('/v1/nodes?resources=true'), api('/v1/allocations?namespace=*&resources=true')]);
      const perNode = new Map(nodes.map(n => [n.ID, []]));
      for (const a of allocs) if (perNode.has(a.NodeID)) perNode.get(a.NodeID).push(a);
      let totalCPU = 0, totalMem = 0, usedCPU = 0, usedMem = 0;
      const cards = nodes.map(n => {
        const res = n.NodeResources || { Cpu: {}, Memory: {} };
        const mine = perNode.get(n.ID);
        const used = allocatedOn(mine);
        totalCPU += res.Cpu.CpuShares || 0; totalMem += res.Memory.MemoryMB || 0;
        usedCPU += used.cpu; usedMem += used.mem;
        const live = mine.filter(a => a.DesiredStatus === 'run' && !['complete', 'failed', 'lost'].includes(a.ClientStatus));
        return `<div class="node-card topo-node"><b>${nodeLink(n.ID, n.Name)}</b> ${badge(n.Status)}
          <span class="muted">${esc(n.Datacenter)} · ${esc(n.NodePool)} · ${esc(live.length)} allocations</span>
          <div>CPU ${used.cpu} / ${res.Cpu.CpuShares || 0} MHz ${bar(used.cpu, res.Cpu.CpuShares)}</div>
          <div>Memory ${used.mem} / ${res.Memory.MemoryMB || 0} MiB ${bar(used.mem, res.Memory.MemoryMB, 'mem')}</div>
          <div>${live.map(a => `${allocLink(a.ID)} <span class="muted">${esc(a.JobID)}/${esc(a.TaskGroup)}</span>`).join(' · ')}</div></div>`;
      });
      return `<h1>Topology</h1><div class="grid">${stat('Clients', nodes.length)}
        ${stat('CPU allocated', `${usedCPU} / ${totalCPU} MHz`)}${stat('Memory allocated', `${usedMem} / ${totalMem} MiB`)}</div>` +
        (cards.join('') || '<p class="muted">No clients.</p>');
    },
  };
}
