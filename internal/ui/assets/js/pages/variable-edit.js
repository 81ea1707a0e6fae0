// /ui/variables/new and /ui/variables/var/<path>@<ns>/edit: write a
// variable's items (one key=value per row), with check-and-set so a
// concurrent change is refused, not overwritten.

import { api, send } from '../lib/api.js';
import { esc, field } from '../lib/ui.js';
import { splitVar, varPath, varAPI } from '../lib/vars.js';

export default function variableEditPage(params, query, ctx) {
  const existing = params.var ? splitVar(params.var) : null;
  let modifyIndex = 0;
  return {
    title: existing ? `Edit ${existing.path}` : 'New variable',
    topics: [],
    render: async () => {
      let items = { '': '' }, path = query.get('path') || '', ns = query.get('namespace') || 'default';
      if (existing) {
        const v = await api(varAPI(existing.path, existing.ns));
        items = v.Items || {};
        path = v.Path; ns = v.Namespace; modifyIndex = v.ModifyIndex;
      }
      const text = Object.entries(items).map(([k, v]) => (k ? `${k}=${v}` : '')).join('\n');
      return `<h1>${existing ? `Edit variable ${esc(path)}` : 'Create variable'}</h1>
        <form data-action="save">
        ${field('Path', 'path', { value: path, attrs: `required${existing ? ' readonly' : ''}` })}
        ${field('Namespace', 'namespace', { value: ns, attrs: existing ? 'readonly' : '' })}
        ${field('Items (key=value, one per line)', 'items', { type: 'textarea', value: text, attrs: 'required style="min-height:120px"' })}
        <div class="actions"><button type="submit" class="primary">Save</button></div></form>`;
    },
    actions: {
      save: async d => {
        const items = {};
        for (const line of d.items.split('\n')) {
          if (!line.trim()) continue;
          const i = line.indexOf('=');
          if (i <= 0) throw new Error(`item "${line}": write key=value`);
          items[line.slice(0, i).trim()] = line.slice(i + 1);
        }
        const path = d.path.trim().replace(/^\/+/, '');
        await send('PUT', `${varAPI(path, d.namespace)}&cas=${modifyIndex}`, { Namespace: d.namespace, Path: path, Items: items });
        ctx.navigate(varPath(path, d.namespace));
        return `Variable ${path} saved.`;
      },
    },
  };
}
