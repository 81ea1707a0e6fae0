// /ui/jobs/<id>@<ns>/versions: every version with its diff from the one
// before, and revert to any earlier version.

import { api, send } from '../lib/api.js';
import { esc, badge, nsTime, button } from '../lib/ui.js';
import { jobRef, jobHeader, jobActions, jobTopics, wantsJob } from '../lib/job.js';
import { renderDiff } from '../lib/diff.js';

export default function versionsPage(params, query, ctx) {
  const ref = jobRef(params.job);
  return {
    title: `Job ${ref.id} versions`,
    topics: jobTopics,
    wantsEvent: wantsJob(ref.id),
    render: async () => {
      const [job, v, c] = await Promise.all([api(`${ref.base}?${ref.q}`), api(`${ref.base}/versions?diffs=true&${ref.q}`), ctx.caps()]);
      const may = c.ns('submit-job', ref.ns);
      const list = (v.Versions || []).map((ver, i) => {
        const diff = (v.Diffs || [])[i];
        const revert = ver.Version !== job.Version
          ? button(`Revert to version ${ver.Version}`, 'revert', { data: { version: ver.Version }, allowed: may, why: 'your token lacks submit-job', confirm: `Yes, revert to ${ver.Version}` }) : '<span class="muted">current</span>';
        return `<div class="node-card version" data-version="${esc(ver.Version)}"><b>Version ${esc(ver.Version)}</b> ${ver.Stable ? badge('stable') : ''}
          <span class="muted">submitted ${esc(nsTime(ver.SubmitTime))}</span> ${revert}
          ${diff ? renderDiff(diff) : '<div class="muted">first version</div>'}</div>`;
      }).join('');
      return `${jobHeader(job, ref, c, `${ref.path}/versions`)}<h2>Versions</h2>${list || '<p class="muted">No versions.</p>'}`;
    },
    actions: {
      ...jobActions(ref, ctx),
      revert: async d => {
        await send('POST', `${ref.base}/revert?${ref.q}`, { JobID: ref.id, JobVersion: Number(d.version) });
        return `Reverted ${ref.id} to version ${d.version}.`;
      },
    },
  };
}
