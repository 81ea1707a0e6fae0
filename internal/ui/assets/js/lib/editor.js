// The job editor of the run and definition pages: HCL (or JSON) in a
// text area, parsed by /v1/jobs/parse, planned with its diff and any
// placement failures shown, then run.

import { send, enc, nsq } from './api.js';
import { esc, table, jobPath } from './ui.js';
import { renderDiff } from './diff.js';
import { metricSentences } from './placement.js';

export function editorHTML(src, vars) {
  return `<form data-action="plan" class="editor-form">
    <label class="field" for="f-jobspec">Job specification (HCL or JSON)<textarea id="f-jobspec" name="jobspec" class="editor" spellcheck="false">${esc(src)}</textarea></label>
    <label class="field" for="f-vars">HCL2 variables (name = "value", one per line)<textarea id="f-vars" name="vars" style="min-height:60px" spellcheck="false">${esc(vars || '')}</textarea></label>
    <div class="actions"><button type="submit" class="primary">Plan</button></div></form>
    <div id="plan-out"></div>`;
}

// parse turns the editor's text into a job.
export async function parse(text, vars) {
  const t = text.trim();
  if (t.startsWith('{')) {
    const v = JSON.parse(t);
    return v.Job || v;
  }
  return send('POST', '/v1/jobs/parse', { JobHCL: text, Canonicalize: true, Variables: vars || '' });
}

// planHTML renders a plan reply: the diff, the group updates and why
// anything would not be placed.
export function planHTML(job, plan) {
  const updates = Object.entries((plan.Annotations && plan.Annotations.DesiredTGUpdates) || {}).map(([g, u]) =>
    [esc(g), ...['Place', 'Update', 'InPlaceUpdate', 'DestructiveUpdate', 'Stop', 'Migrate', 'Canary', 'Ignore'].map(k => esc(u[k] || 0))]);
  const failed = Object.entries(plan.FailedTGAllocs || {}).map(([g, m]) =>
    `<div class="warn-box"><b>Task group "${esc(g)}" would not be placed</b><ul>${metricSentences(m).map(s => `<li>${esc(s)}</li>`).join('')}</ul></div>`).join('');
  return `<h2>Plan for ${esc(job.ID)}</h2>${renderDiff(plan.Diff || {})}
    ${updates.length ? table(['Group', 'Place', 'Update', 'In place', 'Destructive', 'Stop', 'Migrate', 'Canary', 'Ignore'], updates) : ''}
    ${failed ? `<section class="placement"><h2>Placement failures</h2>${failed}</section>` : '<p>Every group can be placed.</p>'}
    ${plan.Warnings ? `<p class="muted">${esc(plan.Warnings)}</p>` : ''}
    <div class="actions"><button type="button" class="primary" data-action="run">Run</button></div>`;
}

// editorActions plans and runs what the editor holds; after a run it
// goes to the job's page.
export function editorActions(ctx) {
  let planned = null;
  return {
    plan: async d => {
      const job = await parse(d.jobspec, d.vars);
      const ns = job.Namespace || 'default';
      const plan = await send('POST', `/v1/job/${enc(job.ID)}/plan?${nsq(ns)}`, { Job: job, Diff: true });
      planned = { job, plan, src: d.jobspec, vars: d.vars };
      document.getElementById('plan-out').innerHTML = planHTML(job, plan);
      return null;
    },
    run: async () => {
      if (!planned) throw new Error('plan the job first');
      const { job, plan } = planned;
      const ns = job.Namespace || 'default';
      const body = { Job: job, EnforceIndex: true, JobModifyIndex: plan.JobModifyIndex || 0 };
      if (!planned.src.trim().startsWith('{')) body.Submission = { Source: planned.src, Format: 'hcl2', VariableFlags: {}, Variables: planned.vars || '' };
      const r = await send('POST', `/v1/jobs?${nsq(ns)}`, body);
      ctx.navigate(jobPath(job.ID, ns));
      return `Job ${job.ID} submitted (evaluation ${(r && r.EvalID || '').slice(0, 8)}).`;
    },
  };
}
