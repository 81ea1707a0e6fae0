// /ui/jobs/<id>@<ns>/definition: the job as submitted (HCL source when
// the submission was kept, else JSON), editable: plan, then run.

import { api } from '../lib/api.js';
import { esc, button } from '../lib/ui.js';
import { jobRef, jobHeader, jobActions } from '../lib/job.js';
import { editorHTML, editorActions } from '../lib/editor.js';

export default function definitionPage(params, query, ctx) {
  const ref = jobRef(params.job);
  let editing = false;
  return {
    title: `Job ${ref.id} definition`,
    topics: [],
    render: async () => {
      const [job, c] = await Promise.all([api(`${ref.base}?${ref.q}`), ctx.caps()]);
      const sub = await api(`${ref.base}/submission?${ref.q}&version=${job.Version}`).catch(() => null);
      const src = sub && sub.Source ? sub.Source : JSON.stringify(job, null, 2);
      const head = jobHeader(job, ref, c, `${ref.path}/definition`);
      if (editing) return `${head}${editorHTML(src, sub && sub.Variables)}`;
      return `${head}<div class="actions">${button('Edit', 'edit', { allowed: c.ns('submit-job', ref.ns), why: 'your token lacks submit-job' })}</div>
        <pre class="file" aria-label="job definition">${esc(src)}</pre>`;
    },
    actions: { ...jobActions(ref, ctx), ...editorActions(ctx), edit: async () => { editing = true; return ''; } },
  };
}
