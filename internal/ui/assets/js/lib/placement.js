// Placement failures in words: an eval's FailedTGAllocs (one AllocMetric
// per task group that could not be placed) as the sentences an operator
// reads, with the node_class the operator set.

import { esc } from './ui.js';

const plural = (n, one, many) => `${n} ${n === 1 ? one : (many || `${one}s`)}`;

// metricSentences turns one AllocMetric into reasons, most general first.
export function metricSentences(m) {
  const out = [];
  const evaluated = m.NodesEvaluated || 0;
  if (!evaluated) {
    out.push(m.NodesInPool === 0 ? 'No client is in the job\'s node pool.' : 'No client was eligible for evaluation (none ready and eligible in the job\'s datacenters and node pool).');
  } else {
    out.push(`${plural(evaluated, 'client')} evaluated, ${plural(m.NodesFiltered || 0, 'client')} filtered out, ${plural(m.NodesExhausted || 0, 'client')} out of resources.`);
  }
  for (const [dc, n] of Object.entries(m.NodesAvailable || {}).sort()) {
    if (n === 0) out.push(`Datacenter "${dc}" has no available client.`);
  }
  for (const [cls, n] of Object.entries(m.ClassFiltered || {}).sort()) {
    out.push(`${plural(n, 'client')} of class "${cls}" filtered out.`);
  }
  for (const [c, n] of Object.entries(m.ConstraintFiltered || {}).sort()) {
    out.push(`${plural(n, 'client')} did not meet the constraint ${c.startsWith('missing') ? '' : ''}"${c}".`);
  }
  for (const [cls, n] of Object.entries(m.ClassExhausted || {}).sort()) {
    out.push(`${plural(n, 'client')} of class "${cls}" had too little free.`);
  }
  for (const [dim, n] of Object.entries(m.DimensionExhausted || {}).sort()) {
    out.push(`Not enough ${dim} on ${plural(n, 'client')}.`);
  }
  for (const q of m.QuotaExhausted || []) out.push(`Quota limit reached: ${q}.`);
  for (const [task, r] of Object.entries(m.ResourcesExhausted || {}).sort()) {
    out.push(`Task "${task}" asks for ${r.CPU || 0} MHz CPU and ${r.MemoryMB || 0} MiB memory.`);
  }
  if (m.CoalescedFailures) out.push(`${plural(m.CoalescedFailures, 'more allocation')} failed the same way.`);
  return out;
}

// placementFailures renders the failures of an eval per group ("" when none).
export function placementFailures(ev, group) {
  const failed = (ev && ev.FailedTGAllocs) || {};
  const groups = Object.keys(failed).filter(g => !group || g === group).sort();
  if (!groups.length) return '';
  return `<section class="placement" aria-label="placement failures"><h2>Placement failures</h2>${groups.map(g =>
    `<div class="warn-box"><b>Task group "${esc(g)}" could not be placed</b><ul>${metricSentences(failed[g]).map(s => `<li>${esc(s)}</li>`).join('')}</ul></div>`).join('')}
    <p class="muted">From evaluation ${esc((ev.ID || '').slice(0, 8))}${ev.BlockedEval ? `; blocked evaluation ${esc(ev.BlockedEval.slice(0, 8))} waits for capacity` : ''}.</p></section>`;
}

// latestWithFailures picks, per job, the latest eval that recorded placement failures
// and is not superseded by a later complete eval without them.
export function latestFailures(evals) {
  const sorted = evals.slice().sort((a, b) => b.CreateIndex - a.CreateIndex);
  for (const e of sorted) {
    if (e.Status === 'blocked') continue; // the blocked copy carries the same failures as its parent
    if (e.Status !== 'complete') continue;
    return Object.keys(e.FailedTGAllocs || {}).length ? e : null;
  }
  return null;
}

// explanation renders the explain endpoint's answer (GET
// /v1/job/:id/explain) for the groups that leave allocs unplaced: how many
// clients fit, the first reason each of the others is unusable (with one
// node's numbers), and the cheapest change that would place the group.
export function explanation(resp) {
  const groups = ((resp && resp.Groups) || []).filter(g => g.Unplaced > 0);
  if (!groups.length) return '';
  return `<section class="placement" aria-label="why not placed"><h2>Why not placed</h2>${groups.map(g => {
    const reasons = (g.Reasons || []).map(r =>
      `<li>${esc(plural(r.Count, 'client'))}: ${esc(r.Reason)}${r.Example ? ` <span class="muted">(${esc(r.Example)})</span>` : ''}</li>`).join('');
    const fixes = (g.Fixes || []).map(f => `<li>${esc(f)}</li>`).join('');
    return `<div class="warn-box"><b>Task group "${esc(g.Group)}": ${esc(plural(g.Unplaced, 'allocation'))} unplaced; ${esc(g.Fit)} of ${esc(plural(g.Nodes, 'client'))} fit one more</b>
      <ul>${reasons}</ul>${fixes ? `<p>What would place it:</p><ul>${fixes}</ul>` : ''}</div>`;
  }).join('')}</section>`;
}
