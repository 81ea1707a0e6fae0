// /ui/evaluations: evaluations across namespaces, newest first, a page
// at a time (the server filters and pages: per_page, next_token, a bexpr
// filter for status, trigger, type and a search on the ID prefix or
// job), with the filters kept in the query string; ?currentEval=<id>
// (Nomad's side panel) opens the eval page.

import { apiPage, enc } from '../lib/api.js';
import { esc, badge, table, evalLink, jobLink, nodeLink, nsTime, select } from '../lib/ui.js';
import { metricSentences } from '../lib/placement.js';

const PAGE = 50;
const quote = s => JSON.stringify(String(s));
const triggers = ['job-register', 'job-deregister', 'periodic-job', 'node-drain', 'node-update', 'alloc-stop', 'scheduled', 'rolling-update',
  'deployment-watcher', 'failed-follow-up', 'max-plan-attempts', 'alloc-failure', 'queued-allocs', 'preemption', 'job-scaling',
  'max-disconnect-timeout', 'reconnect'];

export function evalsFilter(q) {
  const terms = [];
  if (q.status) terms.push(`Status == ${quote(q.status)}`);
  if (q.trigger) terms.push(`TriggeredBy == ${quote(q.trigger)}`);
  if (q.type) terms.push(`Type == ${quote(q.type)}`);
  if (q.search) {
    terms.push(/^[0-9a-f-]+$/.test(q.search)
      ? `(ID matches ${quote(`^${q.search}`)} or JobID contains ${quote(q.search)})`
      : `JobID contains ${quote(q.search)}`);
  }
  return terms.join(' and ');
}

export default function evalsPage(params, query, ctx) {
  const q = Object.fromEntries(query);
  if (q.currentEval) return { render: async () => { ctx.navigate(`/ui/evaluations/${encodeURIComponent(q.currentEval)}`); return ''; } };
  const tokens = [];
  const go = next => {
    Object.assign(q, next);
    const u = new URLSearchParams(Object.entries(q).filter(([, v]) => v));
    history.replaceState(null, '', `/ui/evaluations${u.toString() ? `?${u}` : ''}`);
  };
  return {
    title: 'Evaluations',
    topics: ['Evaluation'],
    render: async () => {
      const page = await apiPage(`/v1/evaluations?namespace=*&reverse=true&per_page=${Number(q.per_page) || PAGE}&filter=${enc(evalsFilter(q))}${q.next ? `&next_token=${enc(q.next)}` : ''}`);
      const rows = page.items.map(e => [evalLink(e.ID), jobLink(e.JobID, e.Namespace), esc(e.TriggeredBy), badge(e.Status), esc(e.Type),
        e.NodeID ? nodeLink(e.NodeID) : '', Object.entries(e.FailedTGAllocs || {}).map(([g, m]) => `<b>${esc(g)}</b>: ${esc(metricSentences(m).slice(1).join(' ') || metricSentences(m)[0])}`).join('<br>'),
        evalLink(e.PreviousEval), evalLink(e.NextEval), evalLink(e.BlockedEval), esc(nsTime(e.CreateTime))]);
      return `<h1>Evaluations</h1><form class="filters" data-action="filter">
        <label class="field" for="f-search">Search<input id="f-search" name="search" type="search" value="${esc(q.search || '')}" placeholder="ID prefix or job"></label>
        ${select('Status', 'status', [['', 'any'], 'pending', 'blocked', 'complete', 'failed', 'canceled'], q.status || '')}
        ${select('Triggered by', 'trigger', [['', 'any'], ...triggers], q.trigger || '')}
        ${select('Type', 'type', [['', 'any'], 'service', 'batch', 'system', 'sysbatch', '_core'], q.type || '')}
        <button type="submit">Filter</button></form>
        ${table(['ID', 'Job', 'Triggered by', 'Status', 'Type', 'Node', 'Placement failures', 'Previous', 'Next', 'Blocked', 'Created'], rows, 'No evaluations.')}
        <nav class="pager" aria-label="pages">${tokens.length ? '<button type="button" data-action="prev">Previous</button>' : '<button type="button" disabled>Previous</button>'}
          <span>Page ${tokens.length + 1}</span>
          <button type="button" data-action="next" data-token="${esc(page.next)}"${page.next ? '' : ' disabled'}>Next</button></nav>`;
    },
    actions: {
      filter: async d => { tokens.length = 0; go({ ...d, next: '' }); return ''; },
      next: async d => { tokens.push(q.next || ''); go({ next: d.token }); return ''; },
      prev: async () => { go({ next: tokens.pop() || '' }); return ''; },
    },
  };
}
