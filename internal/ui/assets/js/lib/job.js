// The frame every job page shares: the job's header with its actions
// (stop, start, purge, force a periodic launch, dispatch) and the tabs at
// Nomad's URLs (/ui/jobs/<id>@<ns>/<tab>).

import { api, send, enc, nsq } from './api.js';
import { esc, badge, tabs, button, jobPath, splitJobParam } from './ui.js';

export function jobRef(param) {
  const [id, ns] = splitJobParam(param);
  return { id, ns, base: `/v1/job/${enc(id)}`, q: nsq(ns), path: jobPath(id, ns) };
}

export const jobTopics = ['Job', 'Evaluation', 'Allocation', 'Deployment'];
export const wantsJob = id => e => e.Key === id || (e.FilterKeys || []).includes(id) || (e.Payload && e.Payload.Job && e.Payload.Job.ParentID === id);

// jobHeader renders the title, the actions the token may take and the tabs.
export function jobHeader(job, ref, caps, tab) {
  const may = caps.ns('submit-job', ref.ns);
  const why = 'your token lacks submit-job in this namespace';
  const acts = [];
  if (job.Periodic && !job.ParameterizedJob) acts.push(button('Force launch', 'force-launch', { allowed: may, why, confirm: 'Launch now?' }));
  if (job.ParameterizedJob && !job.ParentID) acts.push(`<a class="buttonlike" href="${ref.path}/dispatch">Dispatch</a>`);
  if (job.Stop) {
    acts.push(button('Start', 'start-job', { allowed: may, why, confirm: 'Yes, start' }));
    acts.push(button('Purge', 'purge-job', { allowed: may, why, confirm: 'Yes, purge for good', cls: 'danger' }));
  } else {
    acts.push(button('Stop', 'stop-job', { allowed: may, why, confirm: 'Yes, stop the job', cls: 'danger' }));
  }
  if (caps.ns('alloc-exec', ref.ns) && job.Status === 'running') acts.push(`<a class="buttonlike" href="/ui/exec/${enc(ref.id)}@${enc(ref.ns)}">Exec</a>`);
  const items = [['Overview', ref.path], ['Definition', `${ref.path}/definition`], ['Versions', `${ref.path}/versions`],
    ['Deployments', `${ref.path}/deployments`], ['Allocations', `${ref.path}/allocations`], ['Evaluations', `${ref.path}/evaluations`]];
  if (job.Type === 'system' || job.Type === 'sysbatch') items.push(['Clients', `${ref.path}/clients`]);
  items.push(['Services', `${ref.path}/services`]);
  const parent = job.ParentID ? ` <span class="muted">child of <a href="${jobPath(job.ParentID, ref.ns)}">${esc(job.ParentID)}</a></span>` : '';
  return `<h1>Job ${esc(job.ID)} ${badge(job.Status)}${job.Stop ? ' ' + badge('stopped') : ''}${parent}</h1>
    <div class="actions">${acts.join('')}</div>${tabs(items, tab)}`;
}

// jobActions are the header's actions, shared by every job tab.
export function jobActions(ref, ctx) {
  return {
    'stop-job': async () => {
      const r = await send('DELETE', `${ref.base}?${ref.q}`);
      return `Job ${ref.id} stopped (evaluation ${(r && r.EvalID || '').slice(0, 8)}).`;
    },
    'purge-job': async () => {
      await send('DELETE', `${ref.base}?${ref.q}&purge=true`);
      ctx.navigate('/ui/jobs');
      return `Job ${ref.id} purged.`;
    },
    'start-job': async () => {
      const job = await api(`${ref.base}?${ref.q}`);
      job.Stop = false;
      await send('POST', `/v1/jobs?${ref.q}`, { Job: job });
      return `Job ${ref.id} started.`;
    },
    'force-launch': async () => {
      const r = await send('POST', `${ref.base}/periodic/force?${ref.q}`);
      return `Launched a child of ${ref.id} (evaluation ${(r && r.EvalID || '').slice(0, 8)}).`;
    },
  };
}
