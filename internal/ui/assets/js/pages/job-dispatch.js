// /ui/jobs/<id>@<ns>/dispatch: dispatch a parameterized job with its
// meta (required and optional keys) and a payload.

import { api, send } from '../lib/api.js';
import { esc, field, jobPath } from '../lib/ui.js';
import { jobRef } from '../lib/job.js';

export default function dispatchPage(params, query, ctx) {
  const ref = jobRef(params.job);
  return {
    title: `Dispatch ${ref.id}`,
    topics: [],
    render: async () => {
      const [job, c] = await Promise.all([api(`${ref.base}?${ref.q}`), ctx.caps()]);
      const p = job.ParameterizedJob;
      if (!p) return `<h1>Dispatch ${esc(ref.id)}</h1><div class="error">${esc(ref.id)} is not a parameterized job.</div>`;
      const metas = [...(p.MetaRequired || []).map(k => [k, true]), ...(p.MetaOptional || []).map(k => [k, false])];
      const may = c.ns('dispatch-job', ref.ns);
      return `<h1>Dispatch <a href="${ref.path}">${esc(ref.id)}</a></h1>
        <form data-action="dispatch">
        ${metas.map(([k, req]) => field(`meta ${k}${req ? ' (required)' : ''}`, `meta.${k}`, { attrs: req ? 'required' : '' })).join('')}
        ${p.Payload !== 'forbidden' ? field(`Payload (${p.Payload || 'optional'})`, 'payload', { type: 'textarea', attrs: p.Payload === 'required' ? 'required style="min-height:80px"' : 'style="min-height:80px"' }) : ''}
        <div class="actions"><button type="submit" class="primary"${may ? '' : ' disabled title="your token lacks dispatch-job"'}>Dispatch</button></div></form>`;
    },
    actions: {
      dispatch: async d => {
        const meta = {};
        for (const [k, v] of Object.entries(d)) if (k.startsWith('meta.') && v !== '') meta[k.slice(5)] = v;
        const body = { JobID: ref.id, Meta: meta };
        if (d.payload) body.Payload = btoa(unescape(encodeURIComponent(d.payload)));
        const r = await send('POST', `${ref.base}/dispatch?${ref.q}`, body);
        ctx.navigate(jobPath(r.DispatchedJobID, ref.ns));
        return `Dispatched ${r.DispatchedJobID}.`;
      },
    },
  };
}
