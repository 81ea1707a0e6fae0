// Drover's web UI: one page shell, routed on location.pathname, reading
// the /v1 API and re-rendering the current page when the event stream
// reports a change to what it shows. No framework, no build step.
'use strict';

const main = document.getElementById('main');
let maxIndex = 0;       // highest X-Nomad-Index seen: the stream resumes after it
let current = null;     // the page being shown
let refreshTimer = null;

// ---- API -----------------------------------------------------------------

function token() { return localStorage.getItem('drover.token') || ''; }
function authHeaders() { const t = token(); return t ? { 'X-Nomad-Token': t } : {}; }

async function api(path) {
  const r = await fetch(path, { headers: authHeaders() });
  if (!r.ok) {
    const text = (await r.text()).trim();
    const err = new Error(`${r.status}: ${text}`);
    err.status = r.status;
    throw err;
  }
  const idx = Number(r.headers.get('X-Nomad-Index') || 0);
  if (idx > maxIndex) maxIndex = idx;
  return r.json();
}

const enc = encodeURIComponent;
function nsq(ns) { return `namespace=${enc(ns || 'default')}`; }

// ---- formatting ----------------------------------------------------------

function esc(v) {
  return String(v === undefined || v === null ? '' : v)
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
function short(id) { return (id || '').slice(0, 8); }
function badge(s) { return `<span class="badge s-${esc(s)}">${esc(s)}</span>`; }
function nsTime(ns) {
  if (!ns) return '';
  return new Date(ns / 1e6).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
function dur(ns) {
  const ms = ns / 1e6;
  if (ms < 1) return `${(ns / 1e3).toFixed(0)}µs`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)}ms`;
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(s < 10 ? 2 : 1)}s`;
  const m = s / 60;
  if (m < 120) return `${m.toFixed(1)}m`;
  return `${(m / 60).toFixed(1)}h`;
}
function jobLink(id, ns) { return `<a href="/ui/jobs/${enc(id)}@${enc(ns || 'default')}">${esc(id)}</a>`; }
function evalLink(id) { return id ? `<a class="mono" href="/ui/evaluations/${enc(id)}">${esc(short(id))}</a>` : ''; }
function allocLink(id) { return `<a class="mono" href="/ui/allocations/${enc(id)}">${esc(short(id))}</a>`; }
function nodeLink(id, name) { return id ? `<a class="mono" href="/ui/clients/${enc(id)}">${esc(name || short(id))}</a>` : ''; }
function table(headers, rows, empty) {
  if (!rows.length) return `<p class="muted">${esc(empty || 'None.')}</p>`;
  return `<table><thead><tr>${headers.map(h => `<th>${esc(h)}</th>`).join('')}</tr></thead>` +
    `<tbody>${rows.map(r => `<tr>${r.map(c => `<td>${c}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}
function stat(label, value) { return `<div class="stat"><span class="muted">${esc(label)}</span><b>${value}</b></div>`; }
function bar(used, total, cls) {
  const pct = total > 0 ? Math.min(100, (100 * used) / total) : 0;
  return `<div class="bar" title="${esc(used)} / ${esc(total)}"><span class="${cls || ''}" style="width:${pct.toFixed(1)}%"></span></div>`;
}

// ---- routing -------------------------------------------------------------

const routes = [
  [/^\/ui\/?$/, () => ({ redirect: '/ui/jobs' })],
  [/^\/ui\/jobs\/?$/, pageJobs],
  [/^\/ui\/jobs\/([^/]+)\/?$/, pageJob],
  [/^\/ui\/allocations\/([^/]+)\/?$/, pageAlloc],
  [/^\/ui\/clients\/?$/, pageClients],
  [/^\/ui\/clients\/([^/]+)\/?$/, pageClient],
  [/^\/ui\/servers\/?$/, pageServers],
  [/^\/ui\/topology\/?$/, pageTopology],
  [/^\/ui\/evaluations\/?$/, pageEvals],
  [/^\/ui\/evaluations\/([^/]+)\/?$/, pageEval],
];

function route() {
  if (current && current.cleanup) current.cleanup();
  const path = location.pathname;
  for (const [re, make] of routes) {
    const m = path.match(re);
    if (!m) continue;
    const page = make(...m.slice(1).map(decodeURIComponent));
    if (page.redirect) { history.replaceState(null, '', page.redirect); return route(); }
    current = page;
    markNav(path);
    if (page.mount) page.mount();
    return refresh();
  }
  current = { topics: [], render: async () => `<h1>Not found</h1><p>No page at ${esc(path)}.</p>` };
  return refresh();
}

function markNav(path) {
  for (const a of document.querySelectorAll('header nav a')) {
    a.classList.toggle('active', path.startsWith(`/ui/${a.dataset.section}`));
  }
}

function navigate(href) {
  history.pushState(null, '', href);
  route();
}

document.addEventListener('click', ev => {
  const a = ev.target.closest('a');
  if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
  const href = a.getAttribute('href') || (a.href && a.href.baseVal) || '';
  if (!href.startsWith('/ui/')) return;
  ev.preventDefault();
  navigate(href);
});
window.addEventListener('popstate', route);

async function refresh() {
  const page = current;
  if (!page) return;
  let html;
  try {
    html = await page.render();
  } catch (e) {
    html = `<div class="error">${esc(e.message)}</div>`;
  }
  if (page !== current) return; // navigated away meanwhile
  (page.target ? document.getElementById(page.target) : main).innerHTML = html;
  if (page.after) page.after();
}

function scheduleRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, 200);
}

// ---- event stream --------------------------------------------------------

function setLive(on) {
  const el = document.getElementById('live');
  el.textContent = on ? 'live' : 'offline';
  el.classList.toggle('on', on);
}

function onEvents(frame) {
  if (!frame.Events || !current) return;
  if (frame.Index > maxIndex) maxIndex = frame.Index;
  const wants = current.topics || [];
  if (frame.Events.some(e => wants.includes(e.Topic) && (!current.wantsEvent || current.wantsEvent(e)))) {
    scheduleRefresh();
  }
}

// pageStreams are the long-lived requests of this page. They are aborted
// when the page goes away: a browser allows few connections per host, and
// a stream left open in a cached page would hold one.
const pageStreams = new Set();
window.addEventListener('pagehide', () => { for (const c of pageStreams) c.abort(); });

function streamController() {
  const c = new AbortController();
  pageStreams.add(c);
  c.signal.addEventListener('abort', () => pageStreams.delete(c));
  return c;
}

async function followEvents() {
  for (;;) {
    const ctrl = streamController();
    try {
      const r = await fetch(`/v1/event/stream?namespace=*&index=${maxIndex + 1}`, { headers: authHeaders(), signal: ctrl.signal });
      if (r.ok) {
        setLive(true);
        await readLines(r.body, line => onEvents(JSON.parse(line)));
      }
    } catch (e) {
      // the agent went away or the token is wrong: retry below
    }
    ctrl.abort();
    setLive(false);
    await new Promise(res => setTimeout(res, 2000));
  }
}

// readLines calls fn with each non-empty line of a streamed body.
async function readLines(body, fn) {
  const reader = body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim()) fn(line);
    }
  }
}

// ---- jobs ----------------------------------------------------------------

function pageJobs() {
  return {
    topics: ['Job', 'Allocation'],
    render: async () => {
      const jobs = await api('/v1/jobs?namespace=*');
      const rows = jobs.map(j => {
        const groups = Object.values((j.JobSummary && j.JobSummary.Summary) || {});
        const sum = k => groups.reduce((n, g) => n + (g[k] || 0), 0);
        return [jobLink(j.ID, j.Namespace), esc(j.Namespace), esc(j.Type), badge(j.Status), esc(j.Priority),
          `${sum('Running')} running, ${sum('Queued')} queued, ${sum('Failed')} failed`];
      });
      return `<h1>Jobs</h1>` + table(['Job', 'Namespace', 'Type', 'Status', 'Priority', 'Allocations'], rows, 'No jobs yet.');
    },
  };
}

function pageJob(idAtNs) {
  const at = idAtNs.lastIndexOf('@');
  const id = at > 0 ? idAtNs.slice(0, at) : idAtNs;
  const ns = at > 0 ? idAtNs.slice(at + 1) : 'default';
  const base = `/v1/job/${enc(id)}`;
  return {
    topics: ['Job', 'Evaluation', 'Allocation', 'Deployment'],
    wantsEvent: e => e.Key === id || (e.FilterKeys || []).includes(id),
    render: async () => {
      const [job, summary, allocs, versions, deployments, evals] = await Promise.all([
        api(`${base}?${nsq(ns)}`), api(`${base}/summary?${nsq(ns)}`), api(`${base}/allocations?${nsq(ns)}`),
        api(`${base}/versions?diffs=true&${nsq(ns)}`), api(`${base}/deployments?${nsq(ns)}`), api(`${base}/evaluations?${nsq(ns)}`),
      ]);
      const groups = (job.TaskGroups || []).map(tg => {
        const s = (summary.Summary || {})[tg.Name] || {};
        return [esc(tg.Name), esc(tg.Count), (tg.Tasks || []).map(t => `${esc(t.Name)} <span class="muted">(${esc(t.Driver)})</span>`).join(', '),
          esc(s.Queued || 0), esc(s.Starting || 0), esc(s.Running || 0), esc(s.Complete || 0), esc(s.Failed || 0), esc(s.Lost || 0)];
      });
      allocs.sort((a, b) => b.CreateIndex - a.CreateIndex);
      const allocRows = allocs.map(a => [allocLink(a.ID), esc(a.TaskGroup), nodeLink(a.NodeID, a.NodeName), badge(a.ClientStatus),
        esc(a.DesiredStatus), esc(a.JobVersion), evalLink(a.EvalID), esc(nsTime(a.CreateTime))]);
      const depRows = deployments.map(d => [`<span class="mono">${esc(short(d.ID))}</span>`, esc(d.JobVersion), badge(d.Status),
        esc(d.StatusDescription), Object.entries(d.TaskGroups || {}).map(([g, s]) =>
          `${esc(g)}: ${s.PlacedAllocs}/${s.DesiredTotal} placed, ${s.HealthyAllocs} healthy${s.DesiredCanaries ? `, ${s.DesiredCanaries} canaries` : ''}`).join('<br>')]);
      evals.sort((a, b) => b.CreateIndex - a.CreateIndex);
      const evalRows = evals.map(e => [evalLink(e.ID), esc(e.TriggeredBy), badge(e.Status), esc(e.StatusDescription),
        evalLink(e.PreviousEval), evalLink(e.NextEval), evalLink(e.BlockedEval), esc(nsTime(e.CreateTime))]);
      return `<h1>Job ${esc(job.ID)} ${badge(job.Status)}</h1>
        <div class="grid">${stat('Type', esc(job.Type))}${stat('Namespace', esc(job.Namespace))}${stat('Priority', esc(job.Priority))}
        ${stat('Version', esc(job.Version))}${stat('Datacenters', esc((job.Datacenters || []).join(', ')))}${stat('Node pool', esc(job.NodePool || 'default'))}</div>
        <h2>Task groups</h2>${table(['Group', 'Count', 'Tasks', 'Queued', 'Starting', 'Running', 'Complete', 'Failed', 'Lost'], groups)}
        <h2>Allocations</h2>${table(['ID', 'Group', 'Node', 'Status', 'Desired', 'Version', 'Eval', 'Created'], allocRows, 'No allocations.')}
        <h2>Deployments</h2>${table(['ID', 'Version', 'Status', 'Description', 'Groups'], depRows, 'No deployments.')}
        <h2>Evaluations</h2>${table(['ID', 'Triggered by', 'Status', 'Description', 'Previous', 'Next', 'Blocked', 'Created'], evalRows, 'No evaluations.')}
        <h2>Versions</h2>${renderVersions(versions)}`;
    },
  };
}

function renderVersions(v) {
  const versions = v.Versions || [];
  const diffs = v.Diffs || [];
  return versions.map((job, i) => {
    const diff = diffs[i];
    const body = diff ? renderDiff(diff) : '<div class="muted">first version</div>';
    return `<div class="node-card"><b>Version ${esc(job.Version)}</b> ${job.Stable ? badge('stable') : ''}
      <span class="muted">submitted ${esc(nsTime(job.SubmitTime))}</span><div class="diff mono">${body}</div></div>`;
  }).join('') || '<p class="muted">No versions.</p>';
}

const diffMark = { Added: ['+', 'add'], Deleted: ['-', 'del'], Edited: ['~', 'edit'] };

// renderDiff renders Nomad's JobDiff as indented +/-/~ lines.
function renderDiff(d) {
  const lines = [];
  const fields = (fs, ind) => (fs || []).forEach(f => {
    const m = diffMark[f.Type];
    if (!m) return;
    const val = f.Type === 'Edited' ? `"${f.Old}" => "${f.New}"` : f.Type === 'Added' ? `"${f.New}"` : `"${f.Old}"`;
    lines.push([m, `${ind}${m[0]} ${f.Name}: ${val}`]);
  });
  const objects = (os, ind) => (os || []).forEach(o => {
    const m = diffMark[o.Type];
    if (!m) return;
    lines.push([m, `${ind}${m[0]} ${o.Name} {`]);
    fields(o.Fields, ind + '    ');
    objects(o.Objects, ind + '    ');
    lines.push([m, `${ind}  }`]);
  });
  fields(d.Fields, '');
  objects(d.Objects, '');
  (d.TaskGroups || []).forEach(tg => {
    const m = diffMark[tg.Type];
    if (!m) return;
    lines.push([m, `${m[0]} Task Group: "${tg.Name}"`]);
    fields(tg.Fields, '    ');
    objects(tg.Objects, '    ');
    (tg.Tasks || []).forEach(t => {
      const tm = diffMark[t.Type];
      if (!tm) return;
      lines.push([tm, `    ${tm[0]} Task: "${t.Name}"`]);
      fields(t.Fields, '        ');
      objects(t.Objects, '        ');
    });
  });
  if (!lines.length) return '<div class="muted">no changes</div>';
  return lines.map(([m, text]) => `<div class="${m[1]}">${esc(text)}</div>`).join('');
}

// ---- allocations ---------------------------------------------------------

function pageAlloc(id) {
  let logAbort = null;
  let task = null;
  let stream = 'stdout';
  const startLogs = () => {
    if (logAbort) logAbort.abort();
    const pre = document.getElementById('log');
    if (!pre || !task) return;
    pre.textContent = '';
    const ctrl = streamController();
    logAbort = ctrl;
    const url = `/v1/client/fs/logs/${enc(id)}?task=${enc(task)}&type=${stream}&follow=true&origin=start&offset=0&plain=true`;
    fetch(url, { headers: authHeaders(), signal: ctrl.signal }).then(async r => {
      if (!r.ok) { pre.textContent = `logs unavailable: ${r.status} ${(await r.text()).trim()}`; return; }
      const reader = r.body.getReader();
      const dec = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        pre.textContent += dec.decode(value, { stream: true });
        pre.scrollTop = pre.scrollHeight;
      }
    }).catch(() => {});
  };
  return {
    topics: ['Allocation'],
    wantsEvent: e => e.Key === id,
    target: 'alloc-info',
    mount: () => {
      main.innerHTML = `<div id="alloc-info"><p class="muted">Loading…</p></div>
        <h2>Logs</h2><div id="log-controls"></div><pre id="log" class="log"></pre>`;
    },
    render: async () => {
      const a = await api(`/v1/allocation/${enc(id)}`);
      const group = ((a.Job && a.Job.TaskGroups) || []).find(g => g.Name === a.TaskGroup);
      const tasks = Object.keys(a.TaskStates || {}).length ? Object.keys(a.TaskStates).sort() : ((group && group.Tasks) || []).map(t => t.Name);
      if (!task && tasks.length) { task = tasks[0]; setTimeout(startLogs, 0); }
      const controls = document.getElementById('log-controls');
      if (controls) {
        controls.innerHTML = tasks.map(t => `<button data-task="${esc(t)}"${t === task ? ' disabled' : ''}>${esc(t)}</button>`).join(' ') +
          ` <button data-stream="stdout"${stream === 'stdout' ? ' disabled' : ''}>stdout</button>` +
          `<button data-stream="stderr"${stream === 'stderr' ? ' disabled' : ''}>stderr</button>`;
        controls.onclick = ev => {
          const b = ev.target.closest('button');
          if (!b) return;
          if (b.dataset.task) task = b.dataset.task;
          if (b.dataset.stream) stream = b.dataset.stream;
          refresh();
          startLogs();
        };
      }
      const taskSections = Object.entries(a.TaskStates || {}).sort().map(([name, ts]) => {
        const events = (ts.Events || []).slice().reverse().map(e => [esc(nsTime(e.Time)), esc(e.Type), esc(e.DisplayMessage || e.Message || '')]);
        return `<div class="node-card"><b>Task ${esc(name)}</b> ${badge(ts.State)} ${ts.Failed ? badge('failed') : ''}
          <span class="muted">restarts: ${esc(ts.Restarts || 0)}</span>
          ${table(['Time', 'Type', 'Description'], events, 'No events.')}</div>`;
      }).join('');
      return `<h1>Allocation <span class="mono">${esc(a.ID)}</span> ${badge(a.ClientStatus)}</h1>
        <div class="grid">${stat('Job', jobLink(a.JobID, a.Namespace))}${stat('Group', esc(a.TaskGroup))}
        ${stat('Node', nodeLink(a.NodeID, a.NodeName))}${stat('Desired', esc(a.DesiredStatus))}
        ${stat('Evaluation', evalLink(a.EvalID))}${stat('Created', esc(nsTime(a.CreateTime)))}</div>
        <h2>Tasks</h2>${taskSections || '<p class="muted">No task has started yet.</p>'}`;
    },
    cleanup: () => { if (logAbort) logAbort.abort(); },
  };
}

// ---- clients, servers, topology ------------------------------------------

function pageClients() {
  return {
    topics: ['Node'],
    render: async () => {
      const nodes = await api('/v1/nodes?resources=true');
      const rows = nodes.map(n => [nodeLink(n.ID, n.Name), `<span class="mono">${esc(short(n.ID))}</span>`, esc(n.Datacenter), esc(n.NodePool),
        esc(n.NodeClass), badge(n.Status), badge(n.SchedulingEligibility), n.Drain ? badge('draining') : '',
        esc(n.NodeResources ? `${n.NodeResources.Cpu.CpuShares} MHz, ${n.NodeResources.Memory.MemoryMB} MiB` : '')]);
      return `<h1>Clients</h1>` + table(['Name', 'ID', 'Datacenter', 'Pool', 'Class', 'Status', 'Eligibility', 'Drain', 'Resources'], rows, 'No clients.');
    },
  };
}

// allocatedOn sums the CPU and memory of a node's live allocations.
function allocatedOn(allocs) {
  let cpu = 0, mem = 0;
  for (const a of allocs) {
    if (a.DesiredStatus !== 'run' || ['complete', 'failed', 'lost'].includes(a.ClientStatus)) continue;
    for (const t of Object.values((a.AllocatedResources && a.AllocatedResources.Tasks) || {})) {
      cpu += (t.Cpu && t.Cpu.CpuShares) || 0;
      mem += (t.Memory && t.Memory.MemoryMB) || 0;
    }
  }
  return { cpu, mem };
}

function pageClient(id) {
  return {
    topics: ['Node', 'Allocation'],
    wantsEvent: e => e.Topic === 'Node' ? e.Key === id : true,
    render: async () => {
      const [n, allocs] = await Promise.all([api(`/v1/node/${enc(id)}`), api(`/v1/node/${enc(id)}/allocations`)]);
      const res = n.NodeResources || { Cpu: {}, Memory: {}, Disk: {} };
      const used = allocatedOn(allocs);
      const rows = allocs.sort((a, b) => b.CreateIndex - a.CreateIndex).map(a => [allocLink(a.ID), jobLink(a.JobID, a.Namespace),
        esc(a.TaskGroup), badge(a.ClientStatus), esc(a.DesiredStatus)]);
      const attrs = ['kernel.name', 'os.name', 'cpu.arch', 'cpu.numcores', 'driver.mock', 'driver.raw_exec', 'driver.exec', 'driver.docker']
        .filter(k => n.Attributes && n.Attributes[k] !== undefined).map(k => [esc(k), esc(n.Attributes[k])]);
      const events = (n.Events || []).slice().reverse().map(e => [esc(e.Timestamp), esc(e.Subsystem), esc(e.Message)]);
      return `<h1>Client ${esc(n.Name)} ${badge(n.Status)}</h1>
        <div class="grid">${stat('ID', `<span class="mono">${esc(short(n.ID))}</span>`)}${stat('Datacenter', esc(n.Datacenter))}
        ${stat('Pool', esc(n.NodePool))}${stat('Eligibility', badge(n.SchedulingEligibility))}
        ${stat('CPU', `${used.cpu} / ${res.Cpu.CpuShares || 0} MHz${bar(used.cpu, res.Cpu.CpuShares)}`)}
        ${stat('Memory', `${used.mem} / ${res.Memory.MemoryMB || 0} MiB${bar(used.mem, res.Memory.MemoryMB, 'mem')}`)}</div>
        <h2>Allocations</h2>${table(['ID', 'Job', 'Group', 'Status', 'Desired'], rows, 'No allocations.')}
        <h2>Attributes</h2>${table(['Attribute', 'Value'], attrs)}
        <h2>Events</h2>${table(['Time', 'Subsystem', 'Message'], events, 'No events.')}`;
    },
  };
}

function pageServers() {
  return {
    topics: [],
    render: async () => {
      const [leader, raft, members] = await Promise.all([api('/v1/status/leader'),
        api('/v1/operator/raft/configuration'), api('/v1/agent/members')]);
      const rows = (raft.Servers || []).map(s => [esc(s.Node), `<span class="mono">${esc(s.ID)}</span>`, esc(s.Address),
        s.Leader ? badge('leader') : esc('follower'), esc(s.Voter ? 'voter' : 'non-voter'), esc(s.RaftProtocol || '')]);
      // Gossip members: every server serf knows, alive or not, with its tags.
      const memberRows = ((members && members.Members) || []).map(m => [esc(m.Name), esc(`${m.Addr}:${m.Port}`),
        badge(m.Status), esc((m.Tags || {}).region || ''), esc((m.Tags || {}).dc || ''), esc((m.Tags || {}).build || '')]);
      return `<h1>Servers</h1><p>Leader: <span class="mono">${esc(leader)}</span></p>` +
        '<h2>Raft peers</h2>' + table(['Name', 'ID', 'Address', 'Role', 'Voter', 'Raft protocol'], rows, 'No servers.') +
        '<h2>Members</h2>' + table(['Name', 'Gossip address', 'Status', 'Region', 'Datacenter', 'Build'], memberRows, 'No members.');
    },
  };
}

function pageTopology() {
  return {
    topics: ['Node', 'Allocation'],
    render: async () => {
      const nodes = await api('/v1/nodes?resources=true');
      const perNode = await Promise.all(nodes.map(n => api(`/v1/node/${enc(n.ID)}/allocations`)));
      let totalCPU = 0, totalMem = 0, usedCPU = 0, usedMem = 0;
      const cards = nodes.map((n, i) => {
        const res = n.NodeResources || { Cpu: {}, Memory: {} };
        const used = allocatedOn(perNode[i]);
        totalCPU += res.Cpu.CpuShares || 0; totalMem += res.Memory.MemoryMB || 0;
        usedCPU += used.cpu; usedMem += used.mem;
        const live = perNode[i].filter(a => a.DesiredStatus === 'run' && !['complete', 'failed', 'lost'].includes(a.ClientStatus));
        return `<div class="node-card topo-node"><b>${nodeLink(n.ID, n.Name)}</b> ${badge(n.Status)}
          <span class="muted">${esc(n.Datacenter)} · ${esc(live.length)} allocations</span>
          <div>CPU ${used.cpu} / ${res.Cpu.CpuShares || 0} MHz ${bar(used.cpu, res.Cpu.CpuShares)}</div>
          <div>Memory ${used.mem} / ${res.Memory.MemoryMB || 0} MiB ${bar(used.mem, res.Memory.MemoryMB, 'mem')}</div>
          <div>${live.map(a => `${allocLink(a.ID)} <span class="muted">${esc(a.JobID)}/${esc(a.TaskGroup)}</span>`).join(' · ')}</div></div>`;
      });
      return `<h1>Topology</h1><div class="grid">${stat('Clients', nodes.length)}
        ${stat('CPU allocated', `${usedCPU} / ${totalCPU} MHz`)}${stat('Memory allocated', `${usedMem} / ${totalMem} MiB`)}</div>` +
        (cards.join('') || '<p class="muted">No clients.</p>');
    },
  };
}

// ---- evaluations ---------------------------------------------------------

function pageEvals() {
  return {
    topics: ['Evaluation'],
    render: async () => {
      const evals = await api('/v1/evaluations?namespace=*');
      evals.sort((a, b) => b.CreateIndex - a.CreateIndex);
      const rows = evals.map(e => [evalLink(e.ID), jobLink(e.JobID, e.Namespace), esc(e.TriggeredBy), badge(e.Status), esc(e.Type),
        e.NodeID ? nodeLink(e.NodeID) : '', evalLink(e.PreviousEval), evalLink(e.NextEval), evalLink(e.BlockedEval), esc(nsTime(e.CreateTime))]);
      return `<h1>Evaluations</h1>` + table(['ID', 'Job', 'Triggered by', 'Status', 'Type', 'Node', 'Previous', 'Next', 'Blocked', 'Created'], rows, 'No evaluations.');
    },
  };
}

// creators names the component that writes an eval of each trigger.
const creators = {
  'job-register': 'job endpoint (register)', 'job-deregister': 'job endpoint (deregister)',
  'periodic-job': 'periodic dispatcher', 'node-drain': 'node drainer', 'node-update': 'node endpoint / heartbeat timer',
  'alloc-stop': 'alloc endpoint (stop)', 'scheduled': 'core GC timer', 'rolling-update': 'scheduler (next rolling step)',
  'deployment-watcher': 'deployment watcher', 'failed-follow-up': 'leader: failed-eval reaper',
  'max-plan-attempts': 'scheduler: plan attempts exhausted', 'alloc-failure': 'scheduler / client update (reschedule)',
  'queued-allocs': 'scheduler: blocked on capacity', 'preemption': 'plan applier (preemption)', 'job-scaling': 'job endpoint (scale)',
  'max-disconnect-timeout': 'scheduler (disconnect timeout)', 'reconnect': 'node endpoint (reconnect)',
};

const linkLegend = [
  ['previous', 'PreviousEval'], ['next', 'NextEval'], ['blocked', 'BlockedEval'],
  ['inferred', 'same node event (no pointer)'], ['deployment', 'deployment watcher (no pointer)'], ['preemption', 'preemption (no pointer)'],
];

// loadEvalGraph gathers the eval, its pointer chain (related=true), and the
// evals the pointers miss: siblings written by the same node event,
// deployment-watcher evals of the same job version, and the evals on both
// sides of a preemption. Returns nodes (evals and node-event causes) and
// typed edges.
async function loadEvalGraph(rootID) {
  const evals = new Map();
  const causes = new Map();
  const edges = new Map(); // "from>to" -> {from, to, kinds:Set}
  const addEdge = (from, to, kind) => {
    const k = `${from}>${to}`;
    if (!edges.has(k)) edges.set(k, { from, to, kinds: new Set() });
    edges.get(k).kinds.add(kind);
  };
  const add = async id => {
    if (evals.has(id) || evals.size >= 40) return evals.get(id);
    const e = await api(`/v1/evaluation/${enc(id)}?related=true`);
    evals.set(id, e);
    for (const r of e.RelatedEvals || []) await add(r.ID);
    return e;
  };
  const filterEvals = expr => api(`/v1/evaluations?namespace=*&filter=${enc(expr)}`);
  await add(rootID);

  // Evals written by one node event share the node and the entry's index.
  for (const e of [...evals.values()]) {
    if (!e.NodeID || !['node-update', 'node-drain', 'reconnect'].includes(e.TriggeredBy)) continue;
    const key = `node:${e.NodeID}@${e.CreateIndex}`;
    if (!causes.has(key)) {
      causes.set(key, { ID: key, cause: true, NodeID: e.NodeID, CreateIndex: e.CreateIndex, TriggeredBy: e.TriggeredBy });
      for (const s of await filterEvals(`NodeID == "${e.NodeID}" and CreateIndex == ${e.CreateIndex}`)) await add(s.ID);
    }
  }
  // Deployment-watcher evals carry no PreviousEval: they belong to the
  // job version they roll out.
  const jobs = new Map();
  for (const e of evals.values()) jobs.set(`${e.Namespace}/${e.JobID}`, e);
  for (const e of [...jobs.values()].slice(0, 6)) {
    const all = await api(`/v1/job/${enc(e.JobID)}/evaluations?${nsq(e.Namespace)}`);
    const versions = new Set([...evals.values()].filter(x => x.JobID === e.JobID).map(x => x.JobModifyIndex));
    for (const w of all) {
      if (w.TriggeredBy === 'deployment-watcher' && versions.has(w.JobModifyIndex)) await add(w.ID);
    }
  }
  // Preemption evals are written with the plan that evicted their allocs,
  // so they share its index with the allocs that plan placed.
  for (const e of [...evals.values()]) {
    if (e.TriggeredBy === 'preemption') {
      const placed = await api(`/v1/allocations?namespace=*&filter=${enc(`CreateIndex == ${e.CreateIndex}`)}`);
      for (const a of placed) if (a.EvalID && a.EvalID !== e.ID) { await add(a.EvalID); addEdge(a.EvalID, e.ID, 'preemption'); }
    } else {
      const placed = await api(`/v1/evaluation/${enc(e.ID)}/allocations`);
      for (const idx of new Set(placed.map(a => a.CreateIndex))) {
        for (const p of await filterEvals(`TriggeredBy == "preemption" and CreateIndex == ${idx}`)) { await add(p.ID); addEdge(e.ID, p.ID, 'preemption'); }
      }
    }
  }

  for (const e of evals.values()) {
    if (evals.has(e.PreviousEval)) addEdge(e.PreviousEval, e.ID, 'previous');
    if (evals.has(e.NextEval)) addEdge(e.ID, e.NextEval, 'next');
    if (evals.has(e.BlockedEval)) addEdge(e.ID, e.BlockedEval, 'blocked');
  }
  const hasParent = id => [...edges.values()].some(x => x.to === id);
  for (const e of evals.values()) {
    if (hasParent(e.ID)) continue;
    const cause = causes.get(`node:${e.NodeID}@${e.CreateIndex}`);
    if (cause) { addEdge(cause.ID, e.ID, 'inferred'); continue; }
    if (e.TriggeredBy === 'deployment-watcher') {
      const before = [...evals.values()].filter(x => x.JobID === e.JobID && x.CreateIndex < e.CreateIndex)
        .sort((a, b) => b.CreateIndex - a.CreateIndex)[0];
      if (before) addEdge(before.ID, e.ID, 'deployment');
    }
  }
  return { root: rootID, nodes: [...causes.values(), ...evals.values()], edges: [...edges.values()] };
}

// timelineSteps turns an eval's Timeline into steps with durations.
function timelineSteps(e) {
  const t = e.Timeline || [];
  return t.map((s, i) => ({ ...s, took: i + 1 < t.length ? t[i + 1].Time - s.Time : null }));
}

const cardW = 320, colGap = 110, rowGap = 26;

function cardLines(n) {
  if (n.cause) return [[`Node ${short(n.NodeID)} event`, 'b'], [`raft index ${n.CreateIndex}`, ''], [`wrote the ${n.TriggeredBy} evals`, 'muted']];
  const lines = [
    [`${short(n.ID)} · ${n.Type} · ${n.JobID}`, 'b'],
    [`trigger: ${n.TriggeredBy}`, ''],
    [`by: ${creators[n.TriggeredBy] || 'unknown'}`, 'muted'],
    [`status: ${n.Status}${n.StatusDescription ? ` (${n.StatusDescription})` : ''}`, `st-${n.Status}`],
  ];
  for (const s of timelineSteps(n)) {
    const who = s.Worker ? ` ${s.Worker}` : '';
    lines.push([`  ${s.Status}${s.took !== null ? ` ${dur(s.took)}` : ''}${who}`, 'step']);
  }
  return lines;
}

// layoutGraph puts each node one column right of its furthest parent and
// stacks columns by create index.
function layoutGraph(g) {
  const byID = new Map(g.nodes.map(n => [n.ID, n]));
  const order = g.nodes.slice().sort((a, b) => (a.cause === b.cause ? a.CreateIndex - b.CreateIndex : a.cause ? -1 : 1));
  const col = new Map();
  for (let pass = 0; pass < order.length; pass++) {
    for (const n of order) {
      const parents = g.edges.filter(e => e.to === n.ID).map(e => col.get(e.from) ?? 0);
      col.set(n.ID, parents.length ? Math.max(...parents) + 1 : 0);
    }
  }
  const pos = new Map();
  const heights = [];
  for (const n of order) {
    const c = col.get(n.ID);
    const h = 16 + 16 * cardLines(n).length;
    const y = heights[c] || 0;
    pos.set(n.ID, { x: 10 + c * (cardW + colGap), y: y + 10, h });
    heights[c] = y + h + rowGap;
  }
  const width = 20 + heights.length * (cardW + colGap) - colGap;
  const height = 20 + Math.max(0, ...heights);
  return { byID, pos, width, height };
}

function renderGraph(g) {
  const { byID, pos, width, height } = layoutGraph(g);
  const parts = [];
  for (const e of g.edges) {
    const a = pos.get(e.from), b = pos.get(e.to);
    if (!a || !b) continue;
    const x1 = a.x + cardW, y1 = a.y + a.h / 2, x2 = b.x, y2 = b.y + b.h / 2;
    const kinds = [...e.kinds];
    const cls = kinds.includes('blocked') ? 'blocked' : kinds.includes('previous') ? 'previous' : kinds[0];
    const mx = (x1 + x2) / 2;
    parts.push(`<path class="edge ${esc(cls)}" data-kinds="${esc(kinds.join(' '))}" d="M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}" marker-end="url(#arrow)"/>`);
    parts.push(`<text class="elabel" x="${mx - 30}" y="${(y1 + y2) / 2 - 4}">${esc(kinds.join('+'))}</text>`);
  }
  for (const [id, p] of pos) {
    const n = byID.get(id);
    const lines = cardLines(n);
    const cls = n.cause ? 'card cause' : id === g.root ? 'card root' : 'card';
    const fit = t => (t.length > 46 ? `${t.slice(0, 45)}…` : t); // the card is 320px wide
    const text = lines.map(([t, c], i) => `<text x="${p.x + 10}" y="${p.y + 20 + 16 * i}"${c === 'b' ? ' font-weight="600"' : ''}${c === 'muted' ? ' class="elabel"' : ''}>${esc(fit(t))}</text>`).join('');
    const body = `<rect class="${cls}" x="${p.x}" y="${p.y}" width="${cardW}" height="${p.h}" rx="6"/>${text}`;
    parts.push(n.cause ? `<g class="eval-node cause">${body}</g>` :
      `<a href="/ui/evaluations/${enc(id)}"><g class="eval-node" data-eval="${esc(id)}" data-trigger="${esc(n.TriggeredBy)}">${body}</g></a>`);
  }
  return `<svg class="chain" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="evaluation chain">
    <defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
    <path d="M0,0 L10,5 L0,10 z" fill="#8a93a5"/></marker></defs>${parts.join('')}</svg>`;
}

function pageEval(id) {
  return {
    topics: ['Evaluation'],
    render: async () => {
      const g = await loadEvalGraph(id);
      const evals = g.nodes.filter(n => !n.cause).sort((a, b) => a.CreateIndex - b.CreateIndex);
      const root = evals.find(e => e.ID === id);
      const rows = evals.map(e => [evalLink(e.ID), jobLink(e.JobID, e.Namespace), esc(e.TriggeredBy), esc(creators[e.TriggeredBy] || ''),
        badge(e.Status), timelineSteps(e).map(s => `${badge(s.Status)}${s.took !== null ? ` ${esc(dur(s.took))}` : ''}${s.Worker ? ` <span class="muted">${esc(s.Worker)}</span>` : ''}${s.Note ? ` <span class="muted">${esc(s.Note)}</span>` : ''}`).join(' → ')]);
      const legend = linkLegend.map(([cls, label]) => `<span><i class="lg-${cls}"></i>${esc(label)}</span>`).join('');
      return `<h1>Evaluation <span class="mono">${esc(id)}</span> ${badge(root.Status)}</h1>
        <div class="grid">${stat('Job', jobLink(root.JobID, root.Namespace))}${stat('Triggered by', esc(root.TriggeredBy))}
        ${stat('Created by', esc(creators[root.TriggeredBy] || 'unknown'))}${stat('Type', esc(root.Type))}
        ${stat('Evals in chain', evals.length)}${stat('Created', esc(nsTime(root.CreateTime)))}</div>
        <h2>Chain</h2><div class="legend">${legend}</div><div class="chain-wrap">${renderGraph(g)}</div>
        <h2>Timelines</h2>${table(['ID', 'Job', 'Triggered by', 'Created by', 'Status', 'Timeline'], rows)}`;
    },
  };
}

// ---- start ---------------------------------------------------------------

document.getElementById('token').value = token();
document.getElementById('token-form').addEventListener('submit', ev => {
  ev.preventDefault();
  localStorage.setItem('drover.token', document.getElementById('token').value.trim());
  refresh();
});
// The stream starts once the first page has loaded, from the index that
// page showed, so it brings only what changed since.
route().finally(followEvents);
