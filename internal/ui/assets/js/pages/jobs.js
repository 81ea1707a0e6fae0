// /ui/jobs: the jobs the token may list, a page at a time (per_page and
// next_token: the server does the paging and the filtering, so a cluster
// of thousands of jobs sends 25), with search and filters by type,
// status, namespace and node pool kept in the query string as Nomad does.

import { api, apiPage, enc } from '../lib/api.js';
import { esc, badge, table, jobLink, select, sum } from '../lib/ui.js';

const PAGE = 25;

// quote makes a bexpr string literal.
const quote = s => JSON.stringify(String(s));

export function jobsFilter(q) {
  const terms = [];
  if (q.children !== 'true') terms.push('ParentID == ""');
  if (q.type) terms.push(`Type == ${quote(q.type)}`);
  if (q.status) terms.push(`Status == ${quote(q.status)}`);
  if (q.pool) terms.push(`NodePool == ${quote(q.pool)}`);
  if (q.search) terms.push(`(ID contains ${quote(q.search)} or Name contains ${quote(q.search)})`);
  return terms.join(' and ');
}

export default function jobsPage(params, query, ctx) {
  const q = Object.fromEntries(query);
  const tokens = []; // next_token of each page before the current one
  const setQuery = next => {
    Object.assign(q, next);
    const u = new URLSearchParams(Object.entries(q).filter(([k, v]) => v && k !== 'next'));
    if (q.next) u.set('next', q.next);
    history.replaceState(null, '', `/ui/jobs${u.toString() ? `?${u}` : ''}`);
    ctx.refresh();
  };
  return {
    title: 'Jobs',
    topics: ['Job', 'Allocation'],
    render: async () => {
      const path = `/v1/jobs?namespace=${enc(q.namespace || '*')}&per_page=${Number(q.per_page) || PAGE}&filter=${enc(jobsFilter(q))}${q.next ? `&next_token=${enc(q.next)}` : ''}`;
      const [page, c, namespaces, pools] = await Promise.all([apiPage(path), ctx.caps(),
        api('/v1/namespaces').catch(() => []), api('/v1/node/pools').catch(() => [])]);
      const rows = page.items.map(j => {
        const groups = Object.values((j.JobSummary && j.JobSummary.Summary) || {});
        const s = k => sum(groups, g => g[k]);
        return [jobLink(j.ID, j.Namespace), esc(j.Namespace), esc(j.Type), badge(j.Status), esc(j.NodePool || 'default'), esc(j.Priority),
          `${s('Running')} running, ${s('Queued')} queued, ${s('Failed')} failed`];
      });
      const canRun = c.ns('submit-job', q.namespace || 'default');
      const filtered = ['search', 'type', 'status', 'namespace', 'pool'].some(k => q[k]);
      const empty = filtered || q.next ? 'No job matches the filters.' : (c.aclEnabled && c.kind === 'anonymous'
        ? 'No jobs visible: this cluster has ACLs enabled and no token is set. Set one in Settings → Tokens.' : 'No jobs yet.');
      const pageNo = tokens.length + 1;
      return `<h1>Jobs</h1>
        <div class="filters" role="search">
          <label class="field" for="f-search">Search<input id="f-search" type="search" value="${esc(q.search || '')}" placeholder="job name"></label>
          ${select('Type', 'type', [['', 'any'], 'service', 'batch', 'system', 'sysbatch'], q.type || '')}
          ${select('Status', 'status', [['', 'any'], 'pending', 'running', 'dead'], q.status || '')}
          ${select('Namespace', 'namespace', [['', 'any'], ...namespaces.map(n => n.Name)], q.namespace || '')}
          ${select('Node pool', 'pool', [['', 'any'], ...pools.map(p => p.Name)], q.pool || '')}
          ${canRun ? '<a class="buttonlike primary" href="/ui/jobs/run">Run job</a>' : '<button type="button" disabled title="your token lacks submit-job">Run job</button>'}
        </div>
        ${table(['Job', 'Namespace', 'Type', 'Status', 'Node pool', 'Priority', 'Allocations'], rows, empty)}
        <nav class="pager" aria-label="pages"><button type="button" data-page="prev"${pageNo <= 1 ? ' disabled' : ''}>Previous</button>
          <span>Page ${pageNo}</span>
          <button type="button" data-page="next" data-token="${esc(page.next)}"${page.next ? '' : ' disabled'}>Next</button></nav>`;
    },
    after: el => {
      const s = el.querySelector('#f-search');
      let t;
      s.addEventListener('input', () => {
        clearTimeout(t);
        t = setTimeout(() => {
          tokens.length = 0;
          s.blur();
          setQuery({ search: s.value, next: '' });
          setTimeout(() => { const n = document.getElementById('f-search'); if (n) { n.focus(); n.setSelectionRange(n.value.length, n.value.length); } }, 100);
        }, 300);
      });
      for (const name of ['type', 'status', 'namespace', 'pool']) {
        const sel = el.querySelector(`#f-${name}`);
        sel.addEventListener('change', () => { tokens.length = 0; sel.blur(); setQuery({ [name]: sel.value, next: '' }); });
      }
      for (const b of el.querySelectorAll('button[data-page]')) {
        b.addEventListener('click', () => {
          if (b.dataset.page === 'next') { tokens.push(q.next || ''); setQuery({ next: b.dataset.token }); } else setQuery({ next: tokens.pop() || '' });
        });
      }
    },
  };
}
