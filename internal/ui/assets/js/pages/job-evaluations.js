// /ui/jobs/<id>@<ns>/evaluations: the job's evaluations, each with why
// it could not place (if it could not).

import { api } from '../lib/api.js';
import { esc, badge, table, evalLink, nsTime } from '../lib/ui.js';
import { jobRef, jobHeader, jobActions, jobTopics, wantsJob } from '../lib/job.js';
import { metricSentences } from '../lib/placement.js';

export default function jobEvalsPage(params, query, ctx) {
  const ref = jobRef(params.job);
  return {
    title: `Job ${ref.id} evaluations`,
    topics: jobTopics,
    wantsEvent: wantsJob(ref.id),
    render: async () => {
      const [job, evals, c] = await Promise.all([api(`${ref.base}?${ref.q}`), api(`${ref.base}/evaluations?${ref.q}`), ctx.caps()]);
      evals.sort((a, b) => b.CreateIndex - a.CreateIndex);
      const rows = evals.map(e => [evalLink(e.ID), esc(e.TriggeredBy), badge(e.Status), esc(e.StatusDescription),
        Object.entries(e.FailedTGAllocs || {}).map(([g, m]) => `<b>${esc(g)}</b>: ${esc(metricSentences(m).join(' '))}`).join('<br>'),
        evalLink(e.PreviousEval), evalLink(e.NextEval), evalLink(e.BlockedEval), esc(nsTime(e.CreateTime))]);
      return `${jobHeader(job, ref, c, `${ref.path}/evaluations`)}${table(['ID', 'Triggered by', 'Status', 'Description', 'Placement failures', 'Previous', 'Next', 'Blocked', 'Created'], rows, 'No evaluations.')}`;
    },
    actions: jobActions(ref, ctx),
  };
}
