// /ui/evaluations: evaluations across namespaces, filtered by status,
// trigger, type and a search on the ID or job (kept in the query
// string); ?currentEval=<id> (Nomad's side panel) opens the eval page.

import { api } from '../lib/api.js';
import { esc, badge, table, evalLink, jobLink, nodeLink, nsTime, select } from '../lib/ui.js';
import { metricSentences } from '../lib/placement.js';

export default function evalsPage(params, query, ctx) {
  const q = Object.fromEntries(query);
  if (q.currentEval) return { render: async () => { ctx.navigate(`/ui/evaluations/${encodeURIComponent(q.currentEval)}`); return ''; } };
  return {
    title: 'Evaluations',
    topics: ['Evaluation'],
    render: async () => {
      const evals = await api('/v1/evaluations?namespace=*');
      evals.sort((a, b) => b.CreateIndex - a.CreateIndex);
      const triggers = [...new Set(evals.map(e => e.TriggeredBy))].sort();
      const s = (q.search || '').toLowerCase();
      const shown = evals.filter(e => (!q.status || e.Status === q.status) && (!q.trigger || e.TriggeredBy === q.trigger)
        && (!q.type || e.Type === q.type) && (!s || e.ID.startsWith(s) || (e.JobID || '').toLowerCase().includes(s)));
      const rows = shown.slice(0, 200).map(e => [evalLink(e.ID), jobLink(e.JobID, e.Namespace), esc(e.TriggeredBy), badge(e.Status), esc(e.Type),
        e.NodeID ? nodeLink(e.NodeID) : '', Object.entries(e.FailedTGAllocs || {}).map(([g, m]) => `<b>${esc(g)}</b>: ${esc(metricSentences(m).slice(1).join(' ') || metricSentences(m)[0])}`).join('<br>'),
        evalLink(e.PreviousEval), evalLink(e.NextEval), evalLink(e.BlockedEval), esc(nsTime(e.CreateTime))]);
      return `<h1>Evaluations</h1><form class="filters" data-action="filter">
        <label class="field" for="f-search">Search<input id="f-search" name="search" type="search" value="${esc(q.search || '')}" placeholder="ID prefix or job"></label>
        ${select('Status', 'status', [['', 'any'], 'pending', 'blocked', 'complete', 'failed', 'canceled'], q.status || '')}
        ${select('Triggered by', 'trigger', [['', 'any'], ...triggers], q.trigger || '')}
        ${select('Type', 'type', [['', 'any'], 'service', 'batch', 'system', 'sysbatch', '_core'], q.type || '')}
        <button type="submit">Filter</button></form>
        ${shown.length > 200 ? `<p class="muted">Showing the latest 200 of ${shown.length}.</p>` : ''}
        ${table(['ID', 'Job', 'Triggered by', 'Status', 'Type', 'Node', 'Placement failures', 'Previous', 'Next', 'Blocked', 'Created'], rows, 'No evaluations.')}`;
    },
    actions: {
      filter: async d => {
        Object.assign(q, d);
        const u = new URLSearchParams(Object.entries(q).filter(([, v]) => v));
        history.replaceState(null, '', `/ui/evaluations${u.toString() ? `?${u}` : ''}`);
        document.activeElement.blur();
        return '';
      },
    },
  };
}
