// A task's state, events and lifecycle buttons (restart, signal), shared
// by the allocation and task pages.

import { esc, badge, table, nsTime, button } from './ui.js';
import { send, enc } from './api.js';

export function taskSection(allocID, name, ts, caps, ns, link) {
  const may = caps.ns('alloc-lifecycle', ns);
  const why = 'your token lacks alloc-lifecycle';
  const running = ts.State === 'running';
  const events = (ts.Events || []).slice().reverse().map(e => [esc(nsTime(e.Time)), esc(e.Type), esc(e.DisplayMessage || e.Message || '')]);
  return `<div class="node-card task" data-task="${esc(name)}"><b>${link ? `<a href="/ui/allocations/${enc(allocID)}/${enc(name)}">Task ${esc(name)}</a>` : `Task ${esc(name)}`}</b> ${badge(ts.State)} ${ts.Failed ? badge('failed') : ''}
    <span class="muted">restarts: ${esc(ts.Restarts || 0)}</span>
    <div class="actions">${button('Restart task', 'restart-task', { data: { task: name }, allowed: may && running, why: running ? why : 'the task is not running', confirm: `Yes, restart ${name}` })}
    <form class="inline" data-action="signal"><input type="hidden" name="task" value="${esc(name)}">
      <label class="field" for="sig-${esc(name)}">Signal<select id="sig-${esc(name)}" name="signal">${['SIGHUP', 'SIGINT', 'SIGUSR1', 'SIGUSR2', 'SIGTERM', 'SIGKILL'].map(s => `<option>${s}</option>`).join('')}</select></label>
      <button type="submit"${may && running ? '' : ' disabled'}>Send signal</button></form>
    <a class="buttonlike" href="/ui/allocations/${enc(allocID)}/${enc(name)}/logs">Logs</a>
    <a class="buttonlike" href="/ui/allocations/${enc(allocID)}/${enc(name)}/fs">Files</a></div>
    ${table(['Time', 'Type', 'Description'], events, 'No events.')}</div>`;
}

export const taskActions = allocID => ({
  'restart-task': async d => {
    await send('POST', `/v1/client/allocation/${enc(allocID)}/restart`, { TaskName: d.task });
    return `Task ${d.task} restarted.`;
  },
  signal: async d => {
    await send('POST', `/v1/client/allocation/${enc(allocID)}/signal`, { Task: d.task, Signal: d.signal });
    return `Sent ${d.signal} to ${d.task}.`;
  },
});
