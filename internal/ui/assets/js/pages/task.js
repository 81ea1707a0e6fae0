// /ui/allocations/<id>/<task>: one task: state, events, restart and
// signal, resource use, links to its logs and files.

import { api, enc } from '../lib/api.js';
import { esc, stat } from '../lib/ui.js';
import { taskSection, taskActions } from '../lib/task.js';
import { follow, charts, fromResourceUsage } from '../lib/stats.js';
import { notFound } from '../main.js';

export default function taskPage(params, query, ctx) {
  const { alloc: id, task } = params;
  let stopStats = null;
  return {
    title: `Task ${task}`,
    topics: ['Allocation'],
    wantsEvent: e => e.Key === id,
    target: 'task-info',
    mount: main => { main.innerHTML = '<div id="task-info"></div><h2>Resource use</h2><div id="charts"></div>'; },
    render: async () => {
      const [a, c] = await Promise.all([api(`/v1/allocation/${enc(id)}`), ctx.caps()]);
      const ts = (a.TaskStates || {})[task];
      if (!ts) return notFound(`Allocation ${id} has no task "${task}".`).render();
      if (!stopStats && ts.State === 'running') {
        const r = ((a.AllocatedResources || {}).Tasks || {})[task] || {};
        stopStats = follow(`/v1/client/allocation/${enc(id)}/stats`, s => fromResourceUsage(((s.Tasks || {})[task] || {}).ResourceUsage),
          (samples, err) => { const el = document.getElementById('charts'); if (el) el.innerHTML = charts(samples, r.Cpu && r.Cpu.CpuShares, r.Memory && r.Memory.MemoryMB, err); });
      }
      return `<h1>Task ${esc(task)}</h1><div class="grid">${stat('Allocation', `<a class="mono" href="/ui/allocations/${enc(id)}">${esc(id.slice(0, 8))}</a>`)}
        ${stat('Job', esc(a.JobID))}${stat('Group', esc(a.TaskGroup))}</div>${taskSection(id, task, ts, c, a.Namespace, false)}`;
    },
    actions: taskActions(id),
    cleanup: () => { if (stopStats) stopStats(); },
  };
}
