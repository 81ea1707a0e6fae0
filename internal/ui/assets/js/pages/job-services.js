// /ui/jobs/<id>@<ns>/services: the job's services (Nomad provider) as
// registered, each linking to its registrations.

import { api, enc } from '../lib/api.js';
import { esc, table } from '../lib/ui.js';
import { jobRef, jobHeader, jobActions, jobTopics, wantsJob } from '../lib/job.js';

export default function jobServicesPage(params, query, ctx) {
  const ref = jobRef(params.job);
  return {
    title: `Job ${ref.id} services`,
    topics: [...jobTopics, 'Service'],
    wantsEvent: e => e.Topic === 'Service' || wantsJob(ref.id)(e),
    render: async () => {
      const [job, regs, c] = await Promise.all([api(`${ref.base}?${ref.q}`), api(`${ref.base}/services?${ref.q}`), ctx.caps()]);
      const declared = [];
      for (const tg of job.TaskGroups || []) {
        for (const s of tg.Services || []) declared.push([tg.Name, '', s]);
        for (const t of tg.Tasks || []) for (const s of t.Services || []) declared.push([tg.Name, t.Name, s]);
      }
      const rows = declared.map(([g, t, s]) => {
        const n = regs.filter(r => r.ServiceName === s.Name).length;
        return [`<a href="${ref.path}/services/${enc(s.Name)}">${esc(s.Name)}</a>`, esc(s.Provider || 'consul'), esc(g), esc(t), esc((s.Tags || []).join(', ')), esc(n)];
      });
      return `${jobHeader(job, ref, c, `${ref.path}/services`)}${table(['Service', 'Provider', 'Group', 'Task', 'Tags', 'Registrations'], rows, 'The job declares no service.')}`;
    },
    actions: jobActions(ref, ctx),
  };
}
