// /ui/allocations/<id>/fs[/path] and /ui/allocations/<id>/<task>/fs[/path]:
// the allocation's (or task's) directory: list directories, show files
// (the first 50,000 bytes, with a link to the whole file).

import { api, apiText, enc } from '../lib/api.js';
import { esc, table, bytes } from '../lib/ui.js';

export default function fsPage(params, query, ctx) {
  const { alloc: id, task } = params;
  const rel = params.path || '';
  const root = task ? `${task}/` : '';
  const full = `${root}${rel}`;
  const base = task ? `/ui/allocations/${enc(id)}/${enc(task)}/fs` : `/ui/allocations/${enc(id)}/fs`;
  const link = p => `${base}/${p.split('/').map(enc).join('/')}`;
  return {
    title: `Files ${full || '/'}`,
    topics: [],
    render: async () => {
      const st = full ? await api(`/v1/client/fs/stat/${enc(id)}?path=${enc(full)}`) : { IsDir: true };
      const crumbs = [`<a href="${base}">${esc(task || 'alloc')}</a>`];
      let acc = '';
      for (const part of rel.split('/').filter(Boolean)) { acc += (acc ? '/' : '') + part; crumbs.push(`<a href="${link(acc)}">${esc(part)}</a>`); }
      const head = `<h1>Files</h1><p>Allocation <a class="mono" href="/ui/allocations/${enc(id)}">${esc(id.slice(0, 8))}</a> · ${crumbs.join(' / ')}</p>`;
      if (!st.IsDir) {
        const text = await apiText(`/v1/client/fs/readat/${enc(id)}?path=${enc(full)}&offset=0&limit=50000`);
        return `${head}<p class="muted">${esc(bytes(st.Size))}${st.Size > 50000 ? ` (first 50,000 bytes shown)` : ''}</p><pre class="file">${esc(text)}</pre>`;
      }
      const list = await api(`/v1/client/fs/ls/${enc(id)}?path=${enc(full || '/')}`);
      list.sort((a, b) => (b.IsDir - a.IsDir) || a.Name.localeCompare(b.Name));
      const rows = list.map(f => [`<a href="${link((rel ? `${rel}/` : '') + f.Name)}">${esc(f.Name)}${f.IsDir ? '/' : ''}</a>`, f.IsDir ? '' : esc(bytes(f.Size)), esc(f.FileMode), esc(f.ModTime)]);
      return `${head}${table(['Name', 'Size', 'Mode', 'Modified'], rows, 'Empty directory.')}`;
    },
  };
}
