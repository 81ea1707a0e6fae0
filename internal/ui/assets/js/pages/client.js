// /ui/clients/<id>: one client: drain (deadline, ignore system jobs,
// force) with its progress, eligibility, allocated and used resources
// (charts from /v1/client/stats), allocations, events, drivers, host
// volumes, meta and attributes.

import { api, send, enc } from '../lib/api.js';
import { esc, badge, stat, table, bar, short, button, field, nsTime } from '../lib/ui.js';
import { allocTable } from '../lib/alloc.js';
import { allocatedOn } from '../lib/resources.js';
import { follow, charts } from '../lib/stats.js';

export default function clientPage(params, query, ctx) {
  const id = params.node;
  let stopStats = null;
  return {
    title: `Client ${id.slice(0, 8)}`,
    topics: ['Node', 'Allocation'],
    wantsEvent: e => e.Topic === 'Node' ? e.Key === id : true,
    target: 'client-info',
    mount: main => { main.innerHTML = '<div id="client-info"></div><h2>Resource use</h2><div id="charts"></div><div id="client-rest"></div>'; },
    render: async () => {
      const [n, allocs, c] = await Promise.all([api(`/v1/node/${enc(id)}`), api(`/v1/node/${enc(id)}/allocations`), ctx.caps()]);
      const res = n.NodeResources || { Cpu: {}, Memory: {}, Disk: {} };
      if (!stopStats) {
        stopStats = follow(`/v1/client/stats?node_id=${enc(id)}`, s => ({
          cpu: s.CPUTicksConsumed || 0, mem: ((s.Memory && s.Memory.Used) || 0) / (1 << 20),
        }), (samples, err) => { const el = document.getElementById('charts'); if (el) el.innerHTML = charts(samples, res.Cpu.CpuShares, res.Memory.MemoryMB, err); });
      }
      const used = allocatedOn(allocs);
      const may = c.level('node', 'write');
      const why = 'your token lacks node write';
      const live = allocs.filter(a => a.DesiredStatus === 'run' && !['complete', 'failed', 'lost'].includes(a.ClientStatus));
      const draining = n.DrainStrategy || n.Drain;
      const drain = draining
        ? `<div class="warn-box" role="status"><b>Draining</b>${n.DrainStrategy && n.DrainStrategy.ForceDeadline && !n.DrainStrategy.ForceDeadline.startsWith('0001') ? ` until ${esc(n.DrainStrategy.ForceDeadline)}` : ''}${n.DrainStrategy && n.DrainStrategy.IgnoreSystemJobs ? ', ignoring system jobs' : ''}:
           ${esc(live.length)} allocations left to migrate (${esc(live.filter(a => a.DesiredTransition && a.DesiredTransition.Migrate).length)} marked for migration).
           ${button('Stop drain', 'stop-drain', { allowed: may, why })}</div>`
        : `<form class="inline" data-action="drain" aria-label="drain">${field('Deadline (e.g. 1h, 30m; empty: none)', 'deadline', { value: '1h' })}
           ${field('Ignore system jobs', 'ignoreSystem', { type: 'checkbox' })}${field('Force (no deadline wait)', 'force', { type: 'checkbox' })}
           <button type="submit"${may ? '' : ` disabled title="${why}"`}>Drain</button></form>`;
      const elig = n.SchedulingEligibility === 'eligible'
        ? button('Mark ineligible', 'eligibility', { data: { to: 'ineligible' }, allowed: may, why })
        : button('Mark eligible', 'eligibility', { data: { to: 'eligible' }, allowed: may, why });
      const drivers = Object.entries(n.Drivers || {}).sort().map(([d, i]) => [esc(d), badge(i.Detected ? 'detected' : 'undetected'), badge(i.Healthy ? 'healthy' : 'unhealthy'), esc(i.HealthDescription)]);
      const vols = Object.entries(n.HostVolumes || {}).sort().map(([v, h]) => [esc(v), esc(h.Path), esc(h.ReadOnly ? 'read-only' : 'read-write')]);
      const meta = Object.entries(n.Meta || {}).sort().map(([k, v]) => [esc(k), esc(v)]);
      const attrs = Object.entries(n.Attributes || {}).sort().map(([k, v]) => [esc(k), esc(v)]);
      const events = (n.Events || []).slice().reverse().map(e => [esc(e.Timestamp), esc(e.Subsystem), esc(e.Message)]);
      const rest = `<h2>Allocations</h2>${allocTable(allocs, { job: true })}
        <h2>Events</h2>${table(['Time', 'Subsystem', 'Message'], events, 'No events.')}
        <h2>Drivers</h2>${table(['Driver', 'Detected', 'Health', 'Description'], drivers, 'No drivers.')}
        <h2>Host volumes</h2>${table(['Name', 'Path', 'Access'], vols, 'No host volumes.')}
        <h2>Meta</h2>${table(['Key', 'Value'], meta, 'No meta.')}
        <details><summary>Attributes (${attrs.length})</summary>${table(['Attribute', 'Value'], attrs)}</details>`;
      setTimeout(() => { const el = document.getElementById('client-rest'); if (el) el.innerHTML = rest; }, 0);
      return `<h1>Client ${esc(n.Name)} ${badge(n.Status)} ${badge(n.SchedulingEligibility)}</h1>
        <div class="actions">${elig} <a class="buttonlike" href="/ui/clients/${enc(id)}/monitor">Monitor</a></div>${drain}
        <div class="grid">${stat('ID', `<span class="mono">${esc(short(n.ID))}</span>`)}${stat('Datacenter', esc(n.Datacenter))}
        ${stat('Pool', esc(n.NodePool))}${stat('Class', esc(n.NodeClass || '(none)'))}${stat('Address', esc(n.HTTPAddr))}
        ${stat('CPU allocated', `${used.cpu} / ${res.Cpu.CpuShares || 0} MHz${bar(used.cpu, res.Cpu.CpuShares)}`)}
        ${stat('Memory allocated', `${used.mem} / ${res.Memory.MemoryMB || 0} MiB${bar(used.mem, res.Memory.MemoryMB, 'mem')}`)}
        ${stat('Status updated', esc(nsTime((n.StatusUpdatedAt || 0) * 1e9)))}</div>`;
    },
    actions: {
      drain: async d => {
        let deadline = 0;
        if (d.force) deadline = -1;
        else if (d.deadline.trim()) {
          const m = d.deadline.trim().match(/^(\d+(?:\.\d+)?)(s|m|h)$/);
          if (!m) throw new Error(`deadline "${d.deadline}": use a number with s, m or h (e.g. 30m)`);
          deadline = Math.round(Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2]] * 1e9);
        }
        await send('POST', `/v1/node/${enc(id)}/drain`, { NodeID: id, DrainSpec: { Deadline: deadline, IgnoreSystemJobs: !!d.ignoreSystem }, MarkEligible: false });
        return 'Drain started.';
      },
      'stop-drain': async () => { await send('POST', `/v1/node/${enc(id)}/drain`, { NodeID: id, DrainSpec: null, MarkEligible: false }); return 'Drain stopped (the client stays ineligible).'; },
      eligibility: async d => { await send('POST', `/v1/node/${enc(id)}/eligibility`, { NodeID: id, Eligibility: d.to }); return `Client marked ${d.to}.`; },
    },
    cleanup: () => { if (stopStats) stopStats(); },
  };
}
