// /ui/jobs/<id>@<ns>/deployments: every deployment of the job, the
// active one with promote and fail.

import { api } from '../lib/api.js';
import { jobRef, jobHeader, jobActions, jobTopics, wantsJob } from '../lib/job.js';
import { deploymentBox, deploymentActions } from './job.js';

export default function deploymentsPage(params, query, ctx) {
  const ref = jobRef(params.job);
  return {
    title: `Job ${ref.id} deployments`,
    topics: jobTopics,
    wantsEvent: wantsJob(ref.id),
    render: async () => {
      const [job, deps, c] = await Promise.all([api(`${ref.base}?${ref.q}`), api(`${ref.base}/deployments?${ref.q}`), ctx.caps()]);
      deps.sort((a, b) => b.CreateIndex - a.CreateIndex);
      return `${jobHeader(job, ref, c, `${ref.path}/deployments`)}${deps.map(d => deploymentBox(d, ref, c)).join('') || '<p class="muted">No deployments.</p>'}`;
    },
    actions: { ...jobActions(ref, ctx), ...deploymentActions() },
  };
}
