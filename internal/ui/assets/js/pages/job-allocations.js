// /ui/jobs/<id>@<ns>/allocations: every allocation of the job, filtered
// by status.

import { api } from '../lib/api.js';
import { select } from '../lib/ui.js';
import { jobRef, jobHeader, jobActions, jobTopics, wantsJob } from '../lib/job.js';
import { allocTable } from '../lib/alloc.js';

export default function allocationsPage(params, query, ctx) {
  const ref = jobRef(params.job);
  let status = query.get('status') || '';
  return {
    title: `Job ${ref.id} allocations`,
    topics: jobTopics,
    wantsEvent: wantsJob(ref.id),
    render: async () => {
      const [job, allocs, c] = await Promise.all([api(`${ref.base}?${ref.q}`), api(`${ref.base}/allocations?all=true&${ref.q}`), ctx.caps()]);
      const shown = allocs.filter(a => !status || a.ClientStatus === status);
      return `${jobHeader(job, ref, c, `${ref.path}/allocations`)}
        <div class="filters">${select('Status', 'status', [['', 'any'], 'pending', 'running', 'complete', 'failed', 'lost'], status)}</div>${allocTable(shown)}`;
    },
    after: el => el.querySelector('#f-status').addEventListener('change', e => { status = e.target.value; e.target.blur(); ctx.refresh(); }),
    actions: jobActions(ref, ctx),
  };
}
