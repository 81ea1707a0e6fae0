// /ui/jobs/<id>@<ns>: the job's overview: its groups with their counts
// (scaled from here), why any group is not placed (the latest eval's
// placement failures, in words), the latest deployment with promote and
// fail, and the recent allocations.

import { api, send } from '../lib/api.js';
import { esc, stat, table, button, short, badge } from '../lib/ui.js';
import { jobRef, jobHeader, jobActions, jobTopics, wantsJob } from '../lib/job.js';
import { placementFailures, latestFailures, explanation } from '../lib/placement.js';
import { allocTable } from '../lib/alloc.js';

export function deploymentBox(d, ref, caps) {
  if (!d) return '';
  const may = caps.ns('submit-job', ref.ns);
  const why = 'your token lacks submit-job in this namespace';
  const groups = Object.entries(d.TaskGroups || {});
  const needsPromotion = d.Status === 'running' && groups.some(([, s]) => s.DesiredCanaries > 0 && !s.Promoted);
  const acts = [];
  if (needsPromotion) acts.push(button('Promote canaries', 'promote', { data: { deployment: d.ID }, allowed: may, why, cls: 'primary' }));
  if (['running', 'paused', 'pending', 'blocked'].includes(d.Status)) acts.push(button('Fail deployment', 'fail-deployment', { data: { deployment: d.ID }, allowed: may, why, confirm: 'Yes, fail it', cls: 'danger' }));
  const rows = groups.map(([g, s]) => [esc(g), esc(s.DesiredTotal), esc(s.DesiredCanaries || 0), esc(s.PlacedAllocs), esc(s.HealthyAllocs), esc(s.UnhealthyAllocs),
    s.DesiredCanaries ? (s.Promoted ? 'promoted' : 'not promoted') : '', esc(s.AutoRevert ? 'yes' : 'no')]);
  return `<h2>Deployment <span class="mono">${esc(short(d.ID))}</span> ${badge(d.Status)}</h2>
    <p>${esc(d.StatusDescription)}${needsPromotion ? ' · <b>requires manual promotion</b>' : ''} · version ${esc(d.JobVersion)}</p>
    <div class="actions">${acts.join('')}</div>
    ${table(['Group', 'Desired', 'Canaries', 'Placed', 'Healthy', 'Unhealthy', 'Promotion', 'Auto revert'], rows)}`;
}

export const deploymentActions = () => ({
  promote: async d => { await send('POST', `/v1/deployment/promote/${d.deployment}`, { DeploymentID: d.deployment, All: true }); return 'Canaries promoted.'; },
  'fail-deployment': async d => { await send('POST', `/v1/deployment/fail/${d.deployment}`, { DeploymentID: d.deployment }); return 'Deployment marked failed.'; },
});

export default function jobPage(params, query, ctx) {
  const ref = jobRef(params.job);
  return {
    title: `Job ${ref.id}`,
    topics: jobTopics,
    wantsEvent: wantsJob(ref.id),
    render: async () => {
      const [job, summary, allocs, evals, c] = await Promise.all([
        api(`${ref.base}?${ref.q}`), api(`${ref.base}/summary?${ref.q}`), api(`${ref.base}/allocations?${ref.q}`),
        api(`${ref.base}/evaluations?${ref.q}`), ctx.caps()]);
      const dep = job.Type === 'service' ? await api(`${ref.base}/deployment?${ref.q}`).catch(() => null) : null;
      const failing = latestFailures(evals);
      // Why the failing groups are not placed, and what would place them:
      // the scheduler's own checks run now (nothing written).
      const why = failing ? await api(`${ref.base}/explain?${ref.q}`).catch(() => null) : null;
      const canScale = c.ns('scale-job', ref.ns) || c.ns('submit-job', ref.ns);
      const groups = (job.TaskGroups || []).map(tg => {
        const s = (summary.Summary || {})[tg.Name] || {};
        const scale = canScale && job.Type !== 'system' && job.Type !== 'sysbatch' && !job.Stop
          ? `<form class="inline" data-action="scale"><input type="hidden" name="group" value="${esc(tg.Name)}">
             <label class="field" for="count-${esc(tg.Name)}">Count<input id="count-${esc(tg.Name)}" name="count" type="number" min="0" value="${esc(tg.Count)}" style="width:70px"></label>
             <button type="submit">Scale</button></form>` : esc(tg.Count);
        return [`<a href="${ref.path}/${encodeURIComponent(tg.Name)}">${esc(tg.Name)}</a>`, scale,
          (tg.Tasks || []).map(t => `${esc(t.Name)} <span class="muted">(${esc(t.Driver)})</span>`).join(', '),
          esc(s.Queued || 0), esc(s.Starting || 0), esc(s.Running || 0), esc(s.Complete || 0), esc(s.Failed || 0), esc(s.Lost || 0)];
      });
      const children = summary.Children && (job.Periodic || job.ParameterizedJob)
        ? `<h2>Children</h2><p>${esc(summary.Children.Pending)} pending, ${esc(summary.Children.Running)} running, ${esc(summary.Children.Dead)} dead</p>` : '';
      const recent = allocs.filter(a => a.DesiredStatus === 'run').slice(0, 10);
      return `${jobHeader(job, ref, c, ref.path)}
        <div class="grid">${stat('Type', esc(job.Type))}${stat('Namespace', esc(job.Namespace))}${stat('Priority', esc(job.Priority))}
        ${stat('Version', esc(job.Version))}${stat('Datacenters', esc((job.Datacenters || []).join(', ')))}${stat('Node pool', esc(job.NodePool || 'default'))}</div>
        ${placementFailures(failing)}${explanation(why)}
        <h2>Task groups</h2>${table(['Group', 'Count', 'Tasks', 'Queued', 'Starting', 'Running', 'Complete', 'Failed', 'Lost'], groups)}
        ${deploymentBox(dep, ref, c)}${children}
        <h2>Recent allocations</h2>${allocTable(recent)}`;
    },
    actions: {
      ...jobActions(ref, ctx),
      ...deploymentActions(),
      scale: async d => {
        await send('POST', `${ref.base}/scale?${ref.q}`, { Count: Number(d.count), Target: { Group: d.group, Job: ref.id, Namespace: ref.ns }, Message: 'scaled from the web UI' });
        return `Group ${d.group} scaled to ${d.count}.`;
      },
    },
  };
}
