// /ui/clients: every client, filtered by status, eligibility, drain,
// node pool, class and datacenter (kept in the query string).

import { api } from '../lib/api.js';
import { esc, badge, table, nodeLink, short, select } from '../lib/ui.js';

export default function clientsPage(params, query, ctx) {
  const q = Object.fromEntries(query);
  return {
    title: 'Clients',
    topics: ['Node'],
    render: async () => {
      const nodes = await api('/v1/nodes?resources=true');
      const uniq = f => [...new Set(nodes.map(f))].filter(Boolean).sort();
      const shown = nodes.filter(n => (!q.status || n.Status === q.status) && (!q.eligibility || n.SchedulingEligibility === q.eligibility)
        && (!q.drain || String(!!n.Drain) === q.drain) && (!q.pool || n.NodePool === q.pool) && (!q.class || n.NodeClass === q.class)
        && (!q.dc || n.Datacenter === q.dc));
      const rows = shown.map(n => [nodeLink(n.ID, n.Name), `<span class="mono">${esc(short(n.ID))}</span>`, esc(n.Datacenter), esc(n.NodePool),
        esc(n.NodeClass), badge(n.Status), badge(n.SchedulingEligibility), n.Drain ? badge('draining') : '',
        esc(n.NodeResources ? `${n.NodeResources.Cpu.CpuShares} MHz, ${n.NodeResources.Memory.MemoryMB} MiB` : '')]);
      return `<h1>Clients</h1><div class="filters">
        ${select('Status', 'status', [['', 'any'], 'initializing', 'ready', 'down', 'disconnected'], q.status || '')}
        ${select('Eligibility', 'eligibility', [['', 'any'], 'eligible', 'ineligible'], q.eligibility || '')}
        ${select('Drain', 'drain', [['', 'any'], ['true', 'draining'], ['false', 'not draining']], q.drain || '')}
        ${select('Node pool', 'pool', [['', 'any'], ...uniq(n => n.NodePool)], q.pool || '')}
        ${select('Class', 'class', [['', 'any'], ...uniq(n => n.NodeClass)], q.class || '')}
        ${select('Datacenter', 'dc', [['', 'any'], ...uniq(n => n.Datacenter)], q.dc || '')}</div>
        ${table(['Name', 'ID', 'Datacenter', 'Pool', 'Class', 'Status', 'Eligibility', 'Drain', 'Resources'], rows, nodes.length ? 'No client matches the filters.' : 'No clients.')}`;
    },
    after: el => {
      for (const sel of el.querySelectorAll('.filters select')) {
        sel.addEventListener('change', () => {
          q[sel.name] = sel.value;
          const u = new URLSearchParams(Object.entries(q).filter(([, v]) => v));
          history.replaceState(null, '', `/ui/clients${u.toString() ? `?${u}` : ''}`);
          sel.blur();
          ctx.refresh();
        });
      }
    },
  };
}
