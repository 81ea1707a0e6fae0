// /ui/jobs/<id>@<ns>/<group>: one task group: its allocations, scaling
// (count and the scaling policy), reschedule events and why it is not
// placed.

import { api, send } from '../lib/api.js';
import { esc, stat, table, allocLink, nsTime, short } from '../lib/ui.js';
import { jobRef, jobTopics, wantsJob } from '../lib/job.js';
import { placementFailures, latestFailures } from '../lib/placement.js';
import { allocTable } from '../lib/alloc.js';
import { notFound } from '../main.js';

export default function taskGroupPage(params, query, ctx) {
  const ref = jobRef(params.job);
  const name = params.group;
  return {
    title: `Group ${name}`,
    topics: jobTopics,
    wantsEvent: wantsJob(ref.id),
    render: async () => {
      const [job, summary, allocs, evals, c] = await Promise.all([api(`${ref.base}?${ref.q}`), api(`${ref.base}/summary?${ref.q}`),
        api(`${ref.base}/allocations?${ref.q}`), api(`${ref.base}/evaluations?${ref.q}`), ctx.caps()]);
      const tg = (job.TaskGroups || []).find(g => g.Name === name);
      if (!tg) return notFound(`Job ${ref.id} in namespace ${ref.ns} has no task group "${name}".`).render();
      const s = (summary.Summary || {})[name] || {};
      const mine = allocs.filter(a => a.TaskGroup === name);
      const may = c.ns('scale-job', ref.ns) || c.ns('submit-job', ref.ns);
      const resched = [];
      for (const a of mine) {
        for (const ev of ((a.RescheduleTracker && a.RescheduleTracker.Events) || [])) {
          resched.push([allocLink(a.ID), `<span class="mono">${esc(short(ev.PrevAllocID))}</span>`, esc(nsTime(ev.RescheduleTime)), esc(ev.Delay ? `${ev.Delay / 1e9}s` : '')]);
        }
      }
      const pol = tg.Scaling;
      return `<h1>Task group ${esc(name)} <span class="muted">of <a href="${ref.path}">${esc(ref.id)}</a></span></h1>
        <div class="grid">${stat('Count', esc(tg.Count))}${stat('Running', esc(s.Running || 0))}${stat('Queued', esc(s.Queued || 0))}
        ${stat('Failed', esc(s.Failed || 0))}${stat('Tasks', esc((tg.Tasks || []).map(t => t.Name).join(', ')))}</div>
        ${placementFailures(latestFailures(evals), name)}
        <h2>Scaling</h2>${job.Type === 'system' || job.Type === 'sysbatch' ? '<p class="muted">System jobs run one per client.</p>' :
        `<form class="inline" data-action="scale"><label class="field" for="f-count">Count<input id="f-count" name="count" type="number" min="${pol ? esc(pol.Min || 0) : 0}"${pol && pol.Max ? ` max="${esc(pol.Max)}"` : ''} value="${esc(tg.Count)}" style="width:80px"></label>
        <button type="submit"${may ? '' : ' disabled title="your token lacks scale-job"'}>Scale</button></form>
        ${pol ? `<p class="muted">Scaling policy: min ${esc(pol.Min)}, max ${esc(pol.Max)}, ${pol.Enabled === false ? 'disabled' : 'enabled'}</p>` : ''}`}
        <h2>Allocations</h2>${allocTable(mine)}
        <h2>Reschedule events</h2>${table(['Allocation', 'Replaced', 'Time', 'Delay'], resched, 'No reschedules.')}`;
    },
    actions: {
      scale: async d => {
        await send('POST', `${ref.base}/scale?${ref.q}`, { Count: Number(d.count), Target: { Group: name, Job: ref.id, Namespace: ref.ns }, Message: 'scaled from the web UI' });
        return `Group ${name} scaled to ${d.count}.`;
      },
    },
  };
}
