// The route table: Nomad's UI URLs, each naming the page module (a file
// under pages/) that draws it. Order matters: fixed paths come before
// parameters, so /ui/jobs/run is the run page and never a job named
// "run" (job links are always id@namespace: /ui/jobs/run@default).

const P = '([^/]+)';
const REST = '(.+)';

export const routes = [
  ['^/ui/?$', { redirect: '/ui/jobs' }],
  ['^/ui/jobs$', 'jobs'],
  ['^/ui/jobs/run$', 'job-run'],
  [`^/ui/jobs/run/templates(?:/${REST})?$`, 'job-run', ['template']],
  [`^/ui/jobs/${P}$`, 'job', ['job']],
  [`^/ui/jobs/${P}/definition$`, 'job-definition', ['job']],
  [`^/ui/jobs/${P}/versions$`, 'job-versions', ['job']],
  [`^/ui/jobs/${P}/deployments$`, 'job-deployments', ['job']],
  [`^/ui/jobs/${P}/dispatch$`, 'job-dispatch', ['job']],
  [`^/ui/jobs/${P}/evaluations$`, 'job-evaluations', ['job']],
  [`^/ui/jobs/${P}/allocations$`, 'job-allocations', ['job']],
  [`^/ui/jobs/${P}/clients$`, 'job-clients', ['job']],
  [`^/ui/jobs/${P}/services$`, 'job-services', ['job']],
  [`^/ui/jobs/${P}/services/${P}$`, 'service', ['job', 'service']],
  [`^/ui/jobs/${P}/${P}$`, 'task-group', ['job', 'group']],
  [`^/ui/allocations/${P}$`, 'alloc', ['alloc']],
  [`^/ui/allocations/${P}/fs(?:/${REST})?$`, 'fs', ['alloc', 'path']],
  [`^/ui/allocations/${P}/${P}$`, 'task', ['alloc', 'task']],
  [`^/ui/allocations/${P}/${P}/logs$`, 'task-logs', ['alloc', 'task']],
  [`^/ui/allocations/${P}/${P}/fs(?:/${REST})?$`, 'fs', ['alloc', 'task', 'path']],
  [`^/ui/exec/${P}(?:/${P})?(?:/${P})?$`, 'exec', ['job', 'group', 'task']],
  ['^/ui/clients$', 'clients'],
  [`^/ui/clients/${P}$`, 'client', ['node']],
  [`^/ui/clients/${P}/monitor$`, 'monitor', ['node']],
  ['^/ui/servers$', 'servers'],
  [`^/ui/servers/${P}$`, 'server', ['server']],
  [`^/ui/servers/${P}/monitor$`, 'monitor', ['server']],
  ['^/ui/topology$', 'topology'],
  ['^/ui/csi$', { redirect: '/ui/csi/volumes' }],
  [`^/ui/csi/(volumes|plugins)(?:/${P})?(?:/allocations)?$`, 'csi', ['kind', 'name']],
  ['^/ui/evaluations$', 'evaluations'],
  [`^/ui/evaluations/${P}$`, 'evaluation', ['eval']],
  ['^/ui/variables$', 'variables'],
  ['^/ui/variables/new$', 'variable-edit'],
  [`^/ui/variables/path/${REST}$`, 'variables', ['prefix']],
  [`^/ui/variables/var/${REST}/edit$`, 'variable-edit', ['var']],
  [`^/ui/variables/var/${REST}$`, 'variable', ['var']],
  ['^/ui/node-pools$', 'node-pools'],
  [`^/ui/node-pools/${P}$`, 'node-pools', ['pool']],
  ['^/ui/administration$', 'administration'],
  [`^/ui/administration/(tokens|roles|policies|namespaces)$`, 'acl', ['kind']],
  [`^/ui/administration/(tokens|roles|policies|namespaces)/${P}$`, 'acl', ['kind', 'name']],
  [`^/ui/access-control(/.*)?$`, { redirect: m => `/ui/administration${m[1] || ''}` }],
  [`^/ui/policies(/.*)?$`, { redirect: m => `/ui/administration/policies${m[1] || ''}` }],
  ['^/ui/settings$', { redirect: '/ui/settings/tokens' }],
  ['^/ui/settings/tokens$', 'settings-tokens'],
  ['^/ui/settings/user-settings$', 'settings-user'],
].map(([re, target, names]) => ({ re: new RegExp(re), target, names: names || [] }));

// match finds the route of a path: {page, params} or {redirect} or null.
export function match(path) {
  const p = path.length > 4 && path.endsWith('/') ? path.slice(0, -1) : path;
  for (const r of routes) {
    const m = p.match(r.re);
    if (!m) continue;
    if (r.target.redirect) {
      return { redirect: typeof r.target.redirect === 'function' ? r.target.redirect(m) : r.target.redirect };
    }
    const params = {};
    r.names.forEach((n, i) => { if (m[i + 1] !== undefined) params[n] = decodeURIComponent(m[i + 1]); });
    return { page: r.target, params };
  }
  return null;
}
