// /ui/variables/var/<path>@<ns>: one variable: its items, its lock (if
// held), edit and delete.

import { api, send } from '../lib/api.js';
import { esc, table, stat, nsTime, button } from '../lib/ui.js';
import { splitVar, varPath, varAPI } from '../lib/vars.js';

export default function variablePage(params, query, ctx) {
  const { path, ns } = splitVar(params.var);
  return {
    title: `Variable ${path}`,
    topics: ['Variables'],
    render: async () => {
      const [v, c] = await Promise.all([api(varAPI(path, ns)), ctx.caps()]);
      const items = Object.entries(v.Items || {}).sort().map(([k, val]) => [`<span class="mono">${esc(k)}</span>`, `<span class="mono">${esc(val)}</span>`]);
      const lock = v.Lock ? `<div class="warn-box">Locked by lock ${esc(v.Lock.ID)} (TTL ${esc(v.Lock.TTL)}, lock delay ${esc(v.Lock.LockDelay)})</div>` : '<p class="muted">Not locked.</p>';
      return `<h1>Variable ${esc(path)}</h1>
        <div class="actions">${c.variable('write', path, ns) ? `<a class="buttonlike" href="${varPath(path, ns)}/edit">Edit</a>` : '<button type="button" disabled title="your token cannot write this variable">Edit</button>'}
        ${button('Delete', 'delete', { allowed: c.variable('destroy', path, ns), why: 'your token cannot destroy this variable', confirm: 'Yes, delete it', cls: 'danger' })}</div>
        <div class="grid">${stat('Namespace', esc(v.Namespace))}${stat('Modified', esc(nsTime(v.ModifyTime)))}${stat('Modify index', esc(v.ModifyIndex))}</div>
        <h2>Lock</h2>${lock}<h2>Items</h2>${table(['Key', 'Value'], items, 'No items.')}`;
    },
    actions: {
      delete: async () => { await send('DELETE', varAPI(path, ns)); ctx.navigate('/ui/variables'); return `Variable ${path} deleted.`; },
    },
  };
}
