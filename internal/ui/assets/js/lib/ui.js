// Formatting and small building blocks shared by the pages: escaping,
// badges, tables, links at Nomad's URLs, durations, bars and a tiny SVG
// line chart.

import { enc } from './api.js';

export function esc(v) {
  return String(v === undefined || v === null ? '' : v)
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
export const short = id => (id || '').slice(0, 8);
export const badge = s => `<span class="badge s-${esc(s)}">${esc(s)}</span>`;
export function nsTime(ns) {
  if (!ns) return '';
  return new Date(ns / 1e6).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
export function dur(ns) {
  const ms = ns / 1e6;
  if (ms < 1) return `${(ns / 1e3).toFixed(0)}µs`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)}ms`;
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(s < 10 ? 2 : 1)}s`;
  const m = s / 60;
  if (m < 120) return `${m.toFixed(1)}m`;
  return `${(m / 60).toFixed(1)}h`;
}
export function bytes(n) {
  if (n < 1024) return `${n} B`;
  const u = ['KiB', 'MiB', 'GiB', 'TiB'];
  let i = -1;
  do { n /= 1024; i++; } while (n >= 1024 && i < u.length - 1);
  return `${n.toFixed(1)} ${u[i]}`;
}

// jobPath is a job's page: always id@namespace, so no job name can take
// the place of a route (/ui/jobs/run is the run page, run@default a job).
export const jobPath = (id, ns) => `/ui/jobs/${enc(id)}@${enc(ns || 'default')}`;
export const jobLink = (id, ns) => `<a href="${jobPath(id, ns)}">${esc(id)}</a>`;
export const evalLink = id => id ? `<a class="mono" href="/ui/evaluations/${enc(id)}">${esc(short(id))}</a>` : '';
export const allocLink = id => `<a class="mono" href="/ui/allocations/${enc(id)}">${esc(short(id))}</a>`;
export const nodeLink = (id, name) => id ? `<a class="mono" href="/ui/clients/${enc(id)}">${esc(name || short(id))}</a>` : '';

export function table(headers, rows, empty, cls) {
  if (!rows.length) return `<p class="muted">${esc(empty || 'None.')}</p>`;
  return `<table${cls ? ` class="${cls}"` : ''}><thead><tr>${headers.map(h => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead>` +
    `<tbody>${rows.map(r => `<tr>${r.map(c => `<td>${c}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}
export const stat = (label, value) => `<div class="stat"><span class="muted">${esc(label)}</span><b>${value}</b></div>`;
export function bar(used, total, cls) {
  const pct = total > 0 ? Math.min(100, (100 * used) / total) : 0;
  return `<div class="bar" role="img" aria-label="${esc(used)} of ${esc(total)}" title="${esc(used)} / ${esc(total)}"><span class="${cls || ''}" style="width:${pct.toFixed(1)}%"></span></div>`;
}

// tabs renders a tab bar of [label, href] with the current one marked.
export function tabs(items, current) {
  return `<nav class="tabs" aria-label="sections">${items.map(([label, href]) =>
    `<a href="${href}"${href === current ? ' aria-current="page" class="active"' : ''}>${esc(label)}</a>`).join('')}</nav>`;
}

// button renders an action button: data-action names the page's handler,
// data-confirm asks a second click first (as Nomad's two-step buttons do).
// A control the token cannot use is rendered disabled with the reason.
export function button(label, action, { data = {}, confirm = '', allowed = true, why = '', cls = '' } = {}) {
  const attrs = Object.entries(data).map(([k, v]) => ` data-${k}="${esc(v)}"`).join('');
  const dis = allowed ? '' : ` disabled title="${esc(why || 'your token does not grant this')}"`;
  return `<button type="button" class="${cls}" data-action="${esc(action)}"${attrs}${confirm ? ` data-confirm="${esc(confirm)}"` : ''}${dis}>${esc(label)}</button>`;
}

// field renders a labelled input.
export function field(label, name, { type = 'text', value = '', placeholder = '', attrs = '' } = {}) {
  const id = `f-${name}`;
  if (type === 'checkbox') {
    return `<label class="field check" for="${id}"><input id="${id}" name="${esc(name)}" type="checkbox"${value ? ' checked' : ''} ${attrs}> ${esc(label)}</label>`;
  }
  if (type === 'textarea') {
    return `<label class="field" for="${id}">${esc(label)}<textarea id="${id}" name="${esc(name)}" placeholder="${esc(placeholder)}" ${attrs}>${esc(value)}</textarea></label>`;
  }
  return `<label class="field" for="${id}">${esc(label)}<input id="${id}" name="${esc(name)}" type="${type}" value="${esc(value)}" placeholder="${esc(placeholder)}" ${attrs}></label>`;
}

export function select(label, name, options, value) {
  const id = `f-${name}`;
  return `<label class="field" for="${id}">${esc(label)}<select id="${id}" name="${esc(name)}">${options.map(o => {
    const [v, l] = Array.isArray(o) ? o : [o, o];
    return `<option value="${esc(v)}"${v === value ? ' selected' : ''}>${esc(l)}</option>`;
  }).join('')}</select></label>`;
}

// chart draws a series of numbers as a small SVG line with its last value.
export function chart(label, values, max, unit) {
  const w = 240, h = 48;
  const top = Math.max(max || 0, ...values, 1);
  const pts = values.map((v, i) => `${(values.length < 2 ? w : (i * w) / (values.length - 1)).toFixed(1)},${(h - (v / top) * (h - 2) - 1).toFixed(1)}`).join(' ');
  const last = values.length ? values[values.length - 1] : 0;
  return `<figure class="chart"><figcaption>${esc(label)}: <b>${esc(Math.round(last))}</b> ${esc(unit)}${max ? ` of ${esc(Math.round(max))}` : ''}</figcaption>
    <svg width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(label)} over time"><polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${pts}"/></svg></figure>`;
}

// splitJobParam splits "id@namespace" (the namespace after the last @).
export function splitJobParam(s) {
  const at = s.lastIndexOf('@');
  return at > 0 ? [s.slice(0, at), s.slice(at + 1)] : [s, 'default'];
}

export const sum = (list, f) => list.reduce((n, x) => n + (f(x) || 0), 0);
