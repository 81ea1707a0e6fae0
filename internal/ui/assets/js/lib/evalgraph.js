// The evaluation chain: the evals reachable through pointers
// (related=true) plus the links no pointer records, drawn dotted: the node
// event that wrote several node-update evals (same node, same
// CreateIndex), the evals of one deployment (deployment-watcher evals
// carry its DeploymentID; the register eval is the one that wrote the job
// version the deployment rolls out), and both sides of a preemption (the
// preemption eval shares its index with the allocs the preempting plan
// placed).

import { api, enc, nsq } from './api.js';
import { esc, short, dur } from './ui.js';
import { metricSentences } from './placement.js';

// creators names the component that writes an eval of each trigger.
export const creators = {
  'job-register': 'job endpoint (register)', 'job-deregister': 'job endpoint (deregister)',
  'periodic-job': 'periodic dispatcher', 'node-drain': 'node drainer', 'node-update': 'node endpoint / heartbeat timer',
  'alloc-stop': 'alloc endpoint (stop)', 'scheduled': 'core GC timer', 'rolling-update': 'scheduler (next rolling step)',
  'deployment-watcher': 'deployment watcher', 'failed-follow-up': 'leader: failed-eval reaper',
  'max-plan-attempts': 'scheduler: plan attempts exhausted', 'alloc-failure': 'scheduler / client update (reschedule)',
  'queued-allocs': 'scheduler: blocked on capacity', 'preemption': 'plan applier (preemption)', 'job-scaling': 'job endpoint (scale)',
  'max-disconnect-timeout': 'scheduler (disconnect timeout)', 'reconnect': 'node endpoint (reconnect)',
};

export const linkLegend = [
  ['previous', 'PreviousEval'], ['next', 'NextEval'], ['blocked', 'BlockedEval'],
  ['inferred', 'same node event (no pointer)'], ['deployment', 'same deployment (no pointer)'], ['preemption', 'preemption (no pointer)'],
];

const LIMIT = 40;

export async function loadEvalGraph(rootID) {
  const evals = new Map();
  const causes = new Map();
  const edges = new Map(); // "from>to" -> {from, to, kinds:Set}
  const addEdge = (from, to, kind) => {
    if (from === to) return;
    const k = `${from}>${to}`;
    if (!edges.has(k)) edges.set(k, { from, to, kinds: new Set() });
    edges.get(k).kinds.add(kind);
  };
  const add = async id => {
    if (evals.has(id) || evals.size >= LIMIT) return evals.get(id);
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

  // Deployments: the watcher's evals name theirs; a register eval in the
  // chain brings the deployment that rolls out its job version.
  const deployments = new Map(); // id -> deployment
  const jobs = new Map();
  for (const e of evals.values()) jobs.set(`${e.Namespace}/${e.JobID}`, e);
  for (const e of [...jobs.values()].slice(0, 6)) {
    const all = await api(`/v1/job/${enc(e.JobID)}/evaluations?${nsq(e.Namespace)}`);
    const deps = await api(`/v1/job/${enc(e.JobID)}/deployments?${nsq(e.Namespace)}`).catch(() => []);
    const mine = [...evals.values()].filter(x => x.JobID === e.JobID && x.Namespace === e.Namespace);
    for (const d of deps) {
      const inChain = mine.some(x => x.DeploymentID === d.ID) ||
        mine.some(x => x.TriggeredBy !== 'deployment-watcher' && x.JobModifyIndex === d.JobModifyIndex && x.CreateIndex <= d.CreateIndex);
      if (!inChain) continue;
      deployments.set(d.ID, { ...d, evals: all });
    }
  }
  for (const d of deployments.values()) {
    const watcher = d.evals.filter(w => w.DeploymentID === d.ID && w.TriggeredBy === 'deployment-watcher').sort((a, b) => a.CreateIndex - b.CreateIndex);
    const register = d.evals.filter(w => w.TriggeredBy !== 'deployment-watcher' && w.JobModifyIndex === d.JobModifyIndex && w.CreateIndex <= d.CreateIndex)
      .sort((a, b) => a.CreateIndex - b.CreateIndex)[0];
    const steps = [...(register ? [register] : []), ...watcher];
    for (const s of steps) await add(s.ID);
    for (let i = 1; i < steps.length; i++) {
      if (evals.has(steps[i - 1].ID) && evals.has(steps[i].ID)) addEdge(steps[i - 1].ID, steps[i].ID, 'deployment');
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
    if (cause) addEdge(cause.ID, e.ID, 'inferred');
  }
  return { root: rootID, nodes: [...causes.values(), ...evals.values()], edges: [...edges.values()], deployments: [...deployments.values()] };
}

// timelineSteps turns an eval's Timeline into steps with durations.
export function timelineSteps(e) {
  const t = e.Timeline || [];
  return t.map((s, i) => ({ ...s, took: i + 1 < t.length ? t[i + 1].Time - s.Time : null }));
}

const cardW = 320, colGap = 110, rowGap = 26;

// whyBlocked is one line per group that could not be placed.
function whyBlocked(n) {
  return Object.entries(n.FailedTGAllocs || {}).map(([g, m]) => {
    const s = metricSentences(m);
    return `blocked ${g}: ${s.slice(1).join(' ') || s[0] || ''}`;
  });
}

function cardLines(n) {
  if (n.cause) return [[`Node ${short(n.NodeID)} event`, 'b'], [`raft index ${n.CreateIndex}`, ''], [`wrote the ${n.TriggeredBy} evals`, 'muted']];
  const lines = [
    [`${short(n.ID)} · ${n.Type} · ${n.JobID}`, 'b'],
    [`trigger: ${n.TriggeredBy}${n.DeploymentID ? ` (deployment ${short(n.DeploymentID)})` : ''}`, ''],
    [`by: ${creators[n.TriggeredBy] || 'unknown'}`, 'muted'],
    [`status: ${n.Status}${n.StatusDescription ? ` (${n.StatusDescription})` : ''}`, `st-${n.Status}`],
  ];
  for (const w of whyBlocked(n)) lines.push([w, 'why']);
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

export function renderGraph(g) {
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
    const text = lines.map(([t, c], i) => `<text x="${p.x + 10}" y="${p.y + 20 + 16 * i}"${c === 'b' ? ' font-weight="600"' : ''}${c === 'muted' ? ' class="elabel"' : ''}${c === 'why' ? ' class="why"' : ''}>${esc(fit(t))}${t.length > 46 ? `<title>${esc(t)}</title>` : ''}</text>`).join('');
    const body = `<rect class="${cls}" x="${p.x}" y="${p.y}" width="${cardW}" height="${p.h}" rx="6"/>${text}`;
    parts.push(n.cause ? `<g class="eval-node cause">${body}</g>` :
      `<a href="/ui/evaluations/${enc(id)}"><g class="eval-node" data-eval="${esc(id)}" data-trigger="${esc(n.TriggeredBy)}" data-deployment="${esc(n.DeploymentID || '')}">${body}</g></a>`);
  }
  return `<svg class="chain" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="evaluation chain">
    <defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
    <path d="M0,0 L10,5 L0,10 z" fill="#8a93a5"/></marker></defs>${parts.join('')}</svg>`;
}
