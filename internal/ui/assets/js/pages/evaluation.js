// /ui/evaluations/<id>: the eval, why it could not place (if so), and
// its chain drawn as a graph (lib/evalgraph.js) with each eval's timeline.

import { esc, badge, stat, table, evalLink, jobLink, nsTime, dur, short } from '../lib/ui.js';
import { loadEvalGraph, renderGraph, creators, linkLegend, timelineSteps } from '../lib/evalgraph.js';
import { placementFailures, explanation } from '../lib/placement.js';
import { api } from '../lib/api.js';

export default function evalPage(params, query, ctx) {
  const id = params.eval;
  return {
    title: `Evaluation ${id.slice(0, 8)}`,
    topics: ['Evaluation'],
    render: async () => {
      const g = await loadEvalGraph(id);
      const evals = g.nodes.filter(n => !n.cause).sort((a, b) => a.CreateIndex - b.CreateIndex);
      const root = evals.find(e => e.ID === id);
      const rows = evals.map(e => [evalLink(e.ID), jobLink(e.JobID, e.Namespace), esc(e.TriggeredBy), esc(creators[e.TriggeredBy] || ''),
        badge(e.Status), timelineSteps(e).map(s => `${badge(s.Status)}${s.took !== null ? ` ${esc(dur(s.took))}` : ''}${s.Worker ? ` <span class="muted">${esc(s.Worker)}</span>` : ''}${s.Note ? ` <span class="muted">${esc(s.Note)}</span>` : ''}`).join(' → ')]);
      const legend = linkLegend.map(([cls, label]) => `<span><i class="lg-${cls}"></i>${esc(label)}</span>`).join('');
      // A blocked eval (or one that failed placements) also says why now,
      // through the scheduler's own checks (GET /v1/evaluation/:id/explain).
      const failed = Object.keys(root.FailedTGAllocs || {}).length > 0 || root.Status === 'blocked';
      const why = failed ? await api(`/v1/evaluation/${encodeURIComponent(id)}/explain`).catch(() => null) : null;
      const deps = g.deployments.map(d => [`<span class="mono">${esc(short(d.ID))}</span>`, esc(d.JobVersion), badge(d.Status), esc(d.StatusDescription)]);
      return `<h1>Evaluation <span class="mono">${esc(id)}</span> ${badge(root.Status)}</h1>
        <div class="grid">${stat('Job', jobLink(root.JobID, root.Namespace))}${stat('Triggered by', esc(root.TriggeredBy))}
        ${stat('Created by', esc(creators[root.TriggeredBy] || 'unknown'))}${stat('Type', esc(root.Type))}
        ${stat('Evals in chain', evals.length)}${stat('Created', esc(nsTime(root.CreateTime)))}</div>
        ${placementFailures(root)}${explanation(why)}
        <h2>Chain</h2><div class="legend">${legend}</div><div class="chain-wrap">${renderGraph(g)}</div>
        ${deps.length ? `<h2>Deployments in the chain</h2>${table(['ID', 'Version', 'Status', 'Description'], deps)}` : ''}
        <h2>Timelines</h2>${table(['ID', 'Job', 'Triggered by', 'Created by', 'Status', 'Timeline'], rows)}`;
    },
  };
}
