// The /v1 API as the pages use it: reads (api), writes (send), the saved
// ACL token, the highest index seen (the event stream resumes after it)
// and the page's long-lived requests, aborted when the page goes away.

export const enc = encodeURIComponent;
export const nsq = ns => `namespace=${enc(ns || 'default')}`;

export const state = { maxIndex: 0 };

export function token() { return localStorage.getItem('drover.token') || ''; }
export function setToken(t) {
  if (t) localStorage.setItem('drover.token', t); else localStorage.removeItem('drover.token');
}
export function authHeaders() { const t = token(); return t ? { 'X-Nomad-Token': t } : {}; }

// APIError carries the HTTP status so pages can say what a 403 means.
export class APIError extends Error {
  constructor(status, text, path) {
    super(status === 403
      ? `Permission denied (403): your token does not grant this (${text || path})`
      : `${status}: ${text || path}`);
    this.status = status;
    this.path = path;
  }
}

async function check(r, path) {
  if (!r.ok) throw new APIError(r.status, (await r.text()).trim(), path);
  const idx = Number(r.headers.get('X-Nomad-Index') || 0);
  if (idx > state.maxIndex) state.maxIndex = idx;
  return r;
}

export async function api(path) {
  const r = await check(await fetch(path, { headers: authHeaders() }), path);
  return r.json();
}

// apiPage reads one page of a paged list: the items and the token of
// the next page ('' on the last).
export async function apiPage(path) {
  const r = await check(await fetch(path, { headers: authHeaders() }), path);
  return { items: await r.json(), next: r.headers.get('X-Nomad-NextToken') || '' };
}

// apiText reads a plain-text body (file contents, logs).
export async function apiText(path) {
  const r = await check(await fetch(path, { headers: authHeaders() }), path);
  return r.text();
}

// send writes: method and a JSON body; answers the decoded reply (or null).
export async function send(method, path, body) {
  const init = { method, headers: { ...authHeaders() } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const r = await check(await fetch(path, init), path);
  const text = await r.text();
  return text ? JSON.parse(text) : null;
}

// pageStreams are the long-lived requests of the page being shown. A
// browser allows few connections per host, so they are aborted when the
// page goes away.
const pageStreams = new Set();
window.addEventListener('pagehide', () => { for (const c of pageStreams) c.abort(); });

export function streamController() {
  const c = new AbortController();
  pageStreams.add(c);
  c.signal.addEventListener('abort', () => pageStreams.delete(c));
  return c;
}

// readLines calls fn with each non-empty line of a streamed body.
export async function readLines(body, fn) {
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
