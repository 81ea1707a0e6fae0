// /ui/allocations/<id>: the allocation: its tasks (state, events,
// restart, signal), stop and restart, resource use over time, services
// and their checks, links to files, logs and exec, and the first task's
// logs live.

import { api, send, enc } from '../lib/api.js';
import { esc, badge, stat, table, jobLink, nodeLink, evalLink, nsTime, button } from '../lib/ui.js';
import { taskSection, taskActions } from '../lib/task.js';
import { follow, charts, fromResourceUsage } from '../lib/stats.js';
import { logViewer } from '../lib/logs.js';

export default function allocPage(params, query, ctx) {
  const id = params.alloc;
  let stopStats = null, viewer = null, logKey = '';
  let task = null, stream = 'stdout';
  const startLogs = () => {
    const pre = document.getElementById('log');
    if (!pre || !task) return;
    if (viewer) viewer.stop();
    viewer = logViewer(pre, id, task, stream);
  };
  return {
    title: `Allocation ${id.slice(0, 8)}`,
    topics: ['Allocation'],
    wantsEvent: e => e.Key === id,
    target: 'alloc-info',
    mount: main => {
      main.innerHTML = `<div id="alloc-info"><p class="muted">Loading…</p></div>
        <h2>Resource use</h2><div id="charts" aria-live="off"></div>
        <h2>Logs</h2><div id="log-controls" class="actions"></div><pre id="log" class="log" tabindex="0" aria-label="task logs"></pre>`;
    },
    render: async () => {
      const [a, c] = await Promise.all([api(`/v1/allocation/${enc(id)}`), ctx.caps()]);
      const ns = a.Namespace;
      const group = ((a.Job && a.Job.TaskGroups) || []).find(g => g.Name === a.TaskGroup);
      const tasks = Object.keys(a.TaskStates || {}).length ? Object.keys(a.TaskStates).sort() : ((group && group.Tasks) || []).map(t => t.Name);
      if (!task && tasks.length) task = tasks[0];
      const key = `${task}/${stream}`;
      if (key !== logKey) { logKey = key; setTimeout(startLogs, 0); }
      const controls = document.getElementById('log-controls');
      controls.innerHTML = tasks.map(t => `<button type="button" data-task="${esc(t)}" aria-pressed="${t === task}">${esc(t)}</button>`).join(' ') +
        ['stdout', 'stderr'].map(s => ` <button type="button" data-stream="${s}" aria-pressed="${s === stream}">${s}</button>`).join('');
      controls.onclick = ev => {
        const b = ev.target.closest('button');
        if (!b) return;
        if (b.dataset.task) task = b.dataset.task;
        if (b.dataset.stream) stream = b.dataset.stream;
        ctx.refresh();
      };
      if (!stopStats && a.ClientStatus === 'running') {
        const res = a.AllocatedResources || {};
        const maxCPU = Object.values(res.Tasks || {}).reduce((n, t) => n + ((t.Cpu && t.Cpu.CpuShares) || 0), 0);
        const maxMem = Object.values(res.Tasks || {}).reduce((n, t) => n + ((t.Memory && t.Memory.MemoryMB) || 0), 0);
        stopStats = follow(`/v1/client/allocation/${enc(id)}/stats`, s => fromResourceUsage(s.ResourceUsage),
          (samples, err) => { const el = document.getElementById('charts'); if (el) el.innerHTML = charts(samples, maxCPU, maxMem, err); });
      }
      const services = await api(`/v1/allocation/${enc(id)}/services`).catch(() => []);
      const checks = services.length ? await api(`/v1/client/allocation/${enc(id)}/checks`).catch(() => ({})) : {};
      const svcRows = services.map(s => [esc(s.ServiceName), esc(`${s.Address}:${s.Port}`), esc((s.Tags || []).join(', ')),
        Object.values(checks).filter(x => x.Service === s.ServiceName).map(x => `${esc(x.Check)} ${badge(x.Status)}`).join('<br>') || '<span class="muted">no checks</span>']);
      const mayLife = c.ns('alloc-lifecycle', ns);
      const live = a.DesiredStatus === 'run' && !['complete', 'failed', 'lost'].includes(a.ClientStatus);
      const execLink = c.ns('alloc-exec', ns) && live && tasks.length
        ? `<a class="buttonlike" href="/ui/exec/${enc(a.JobID)}@${enc(ns)}/${enc(a.TaskGroup)}/${enc(tasks[0])}?allocation=${enc(id)}">Exec</a>` : '';
      return `<h1>Allocation <span class="mono">${esc(a.ID)}</span> ${badge(a.ClientStatus)}</h1>
        <div class="actions">${button('Stop', 'stop-alloc', { allowed: mayLife && live, why: live ? 'your token lacks alloc-lifecycle' : 'the allocation is not running', confirm: 'Yes, stop it', cls: 'danger' })}
        ${button('Restart', 'restart-alloc', { allowed: mayLife && live, why: live ? 'your token lacks alloc-lifecycle' : 'the allocation is not running', confirm: 'Yes, restart all tasks' })}
        <a class="buttonlike" href="/ui/allocations/${enc(id)}/fs">Files</a>${execLink}</div>
        <div class="grid">${stat('Job', jobLink(a.JobID, a.Namespace))}${stat('Group', `<a href="/ui/jobs/${enc(a.JobID)}@${enc(ns)}/${enc(a.TaskGroup)}">${esc(a.TaskGroup)}</a>`)}
        ${stat('Client', nodeLink(a.NodeID, a.NodeName))}${stat('Desired', esc(a.DesiredStatus))}
        ${stat('Evaluation', evalLink(a.EvalID))}${stat('Created', esc(nsTime(a.CreateTime)))}</div>
        <h2>Tasks</h2>${Object.entries(a.TaskStates || {}).sort().map(([n, ts]) => taskSection(id, n, ts, c, ns, true)).join('') || '<p class="muted">No task has started yet.</p>'}
        <h2>Services</h2>${table(['Service', 'Address', 'Tags', 'Checks'], svcRows, 'No services.')}`;
    },
    actions: {
      ...taskActions(id),
      'stop-alloc': async () => { await send('POST', `/v1/allocation/${enc(id)}/stop`); return 'Allocation stopped; a replacement is scheduled.'; },
      'restart-alloc': async () => { await send('POST', `/v1/client/allocation/${enc(id)}/restart`, { AllTasks: true }); return 'All tasks restarted.'; },
    },
    cleanup: () => { if (viewer) viewer.stop(); if (stopStats) stopStats(); },
  };
}
