// /ui/jobs: every job the token may list, with search, filters (type,
// status, namespace, node pool) kept in the query string as Nomad does,
// and paging.

import { api } from '../lib/api.js';
import { esc, badge, table, jobLink, select, sum } from '../lib/ui.js';

const PAGE = 25;

export default function jobsPage(params, query, ctx) {
  const q = Object.fromEntries(query);
  const setQuery = next => {
    const u = new URLSearchParams({ ...q, ...next });
    for (const [k, v] of [...u]) if (!v) u.delete(k);
    Object.assign(q, next);
    history.replaceState(null, '', `/ui/jobs${u.toString() ? `?${u}` : ''}`);
    ctx.refresh();
  };
  return {
    title: 'Jobs',
    topics: ['Job', 'Allocation'],
    render: async () => {
      const [jobs, c] = await Promise.all([api('/v1/jobs?namespace=*'), ctx.caps()]);
      const pools = [...new Set(jobs.map(j => j.NodePool || 'default'))].sort();
      const namespaces = [...new Set(jobs.map(j => j.Namespace))].sort();
      const search = (q.search || '').toLowerCase();
      let shown = jobs.filter(j => !j.ParentID || q.children === 'true')
        .filter(j => !search || j.ID.toLowerCase().includes(search) || (j.Name || '').toLowerCase().includes(search))
        .filter(j => !q.type || j.Type === q.type)
        .filter(j => !q.status || j.Status === q.status)
        .filter(j => !q.namespace || j.Namespace === q.namespace)
        .filter(j => !q.pool || (j.NodePool || 'default') === q.pool);
      shown.sort((a, b) => a.ID.localeCompare(b.ID) || a.Namespace.localeCompare(b.Namespace));
      const pageNo = Math.max(1, Number(q.page || 1));
      const pages = Math.max(1, Math.ceil(shown.length / PAGE));
      const rows = shown.slice((pageNo - 1) * PAGE, pageNo * PAGE).map(j => {
        const groups = Object.values((j.JobSummary && j.JobSummary.Summary) || {});
        const s = k => sum(groups, g => g[k]);
        return [jobLink(j.ID, j.Namespace), esc(j.Namespace), esc(j.Type), badge(j.Status), esc(j.NodePool || 'default'), esc(j.Priority),
          `${s('Running')} running, ${s('Queued')} queued, ${s('Failed')} failed`];
      });
      const canRun = c.ns('submit-job', q.namespace || 'default') || c.ns('submit-job', '*');
      const empty = jobs.length ? 'No job matches the filters.' : (c.aclEnabled && c.kind === 'anonymous'
        ? 'No jobs visible: this cluster has ACLs enabled and no token is set. Set one in Settings → Tokens.' : 'No jobs yet.');
      return `<h1>Jobs</h1>
        <div class="filters" role="search">
          <label class="field" for="f-search">Search<input id="f-search" type="search" value="${esc(q.search || '')}" placeholder="job name"></label>
          ${select('Type', 'type', [['', 'any'], 'service', 'batch', 'system', 'sysbatch'], q.type || '')}
          ${select('Status', 'status', [['', 'any'], 'pending', 'running', 'dead'], q.status || '')}
          ${select('Namespace', 'namespace', [['', 'any'], ...namespaces], q.namespace || '')}
          ${select('Node pool', 'pool', [['', 'any'], ...pools], q.pool || '')}
          ${canRun ? '<a class="buttonlike primary" href="/ui/jobs/run">Run job</a>' : '<button type="button" disabled title="your token lacks submit-job">Run job</button>'}
        </div>
        ${table(['Job', 'Namespace', 'Type', 'Status', 'Node pool', 'Priority', 'Allocations'], rows, empty)}
        <div class="pager"><button type="button" data-page="${pageNo - 1}"${pageNo <= 1 ? ' disabled' : ''}>Previous</button>
          <span>Page ${pageNo} of ${pages} · ${shown.length} jobs</span>
          <button type="button" data-page="${pageNo + 1}"${pageNo >= pages ? ' disabled' : ''}>Next</button></div>`;
    },
    after: el => {
      const s = el.querySelector('#f-search');
      let t;
      s.addEventListener('input', () => { clearTimeout(t); t = setTimeout(() => { s.blur(); setQuery({ search: s.value, page: '' }); setTimeout(() => { const n = document.getElementById('f-search'); n.focus(); n.setSelectionRange(n.value.length, n.value.length); }, 50); }, 300); });
      for (const name of ['type', 'status', 'namespace', 'pool']) {
        const sel = el.querySelector(`#f-${name}`);
        sel.addEventListener('change', () => { sel.blur(); setQuery({ [name]: sel.value, page: '' }); });
      }
      for (const b of el.querySelectorAll('button[data-page]')) b.addEventListener('click', () => setQuery({ page: b.dataset.page }));
    },
  };
}
