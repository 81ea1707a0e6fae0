// /ui/jobs/<id>@<ns>/services/<name>: the service's registrations
// (address, port, alloc, client) and the health of their checks.

import { api, enc } from '../lib/api.js';
import { esc, table, allocLink, nodeLink, badge } from '../lib/ui.js';
import { jobRef } from '../lib/job.js';

export default function servicePage(params, query, ctx) {
  const ref = jobRef(params.job);
  const name = params.service;
  return {
    title: `Service ${name}`,
    topics: ['Service'],
    render: async () => {
      const regs = (await api(`/v1/service/${enc(name)}?${ref.q}`)).filter(r => r.JobID === ref.id);
      const health = {};
      await Promise.all([...new Set(regs.map(r => r.AllocID))].map(async id => {
        health[id] = await api(`/v1/client/allocation/${enc(id)}/checks`).catch(() => ({}));
      }));
      const rows = regs.map(r => {
        const checks = Object.values(health[r.AllocID] || {}).filter(c => c.Service === name);
        return [esc(`${r.Address}:${r.Port}`), allocLink(r.AllocID), nodeLink(r.NodeID), esc((r.Tags || []).join(', ')),
          checks.length ? checks.map(c => `${esc(c.Check)} ${badge(c.Status)}`).join('<br>') : '<span class="muted">no checks</span>'];
      });
      return `<h1>Service ${esc(name)}</h1><p>Job <a href="${ref.path}">${esc(ref.id)}</a> · <a href="${ref.path}/services">all services</a></p>
        ${table(['Address', 'Allocation', 'Client', 'Tags', 'Health'], rows, 'No registrations.')}`;
    },
  };
}
