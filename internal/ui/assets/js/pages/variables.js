// /ui/variables and /ui/variables/path/<prefix>: variables browsed by
// path like a directory tree, across namespaces.

import { api, enc } from '../lib/api.js';
import { esc, table, nsTime } from '../lib/ui.js';
import { varPath } from '../lib/vars.js';

export default function variablesPage(params, query, ctx) {
  const prefix = params.prefix ? params.prefix.replace(/\/?$/, '/') : '';
  return {
    title: 'Variables',
    topics: ['Variables'],
    render: async () => {
      const [vars, c] = await Promise.all([api(`/v1/vars?namespace=*&prefix=${enc(prefix)}`), ctx.caps()]);
      const dirs = new Map();
      const files = [];
      for (const v of vars) {
        const rest = v.Path.slice(prefix.length);
        const slash = rest.indexOf('/');
        if (slash >= 0) { const d = rest.slice(0, slash); dirs.set(d, (dirs.get(d) || 0) + 1); } else files.push(v);
      }
      const rows = [...[...dirs].sort().map(([d, n]) => [`<a href="/ui/variables/path/${(prefix + d).split('/').map(enc).join('/')}">${esc(d)}/</a>`, '', esc(`${n} variables`), '']),
        ...files.sort((a, b) => a.Path.localeCompare(b.Path)).map(v => [`<a href="${varPath(v.Path, v.Namespace)}">${esc(v.Path.slice(prefix.length))}</a>`, esc(v.Namespace), '', esc(nsTime(v.ModifyTime))])];
      const crumbs = ['<a href="/ui/variables">variables</a>'];
      let acc = '';
      for (const p of prefix.split('/').filter(Boolean)) { acc += `${acc ? '/' : ''}${p}`; crumbs.push(`<a href="/ui/variables/path/${acc.split('/').map(enc).join('/')}">${esc(p)}</a>`); }
      const canWrite = c.variable('write', `${prefix}x`, 'default');
      return `<h1>Variables</h1><p>${crumbs.join(' / ')}</p>
        <div class="actions">${canWrite ? `<a class="buttonlike primary" href="/ui/variables/new${prefix ? `?path=${enc(prefix)}` : ''}">Create variable</a>` : '<button type="button" disabled title="your token cannot write variables">Create variable</button>'}</div>
        ${table(['Path', 'Namespace', 'Contents', 'Last modified'], rows, c.aclEnabled && c.kind === 'anonymous' ? 'No variables visible without a token.' : 'No variables.')}`;
    },
  };
}
