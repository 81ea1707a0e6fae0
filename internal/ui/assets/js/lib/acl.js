// What the saved token may do, so pages hide or disable the controls it
// cannot use. The server still decides every request (a 403 is shown as
// such); this only spares the operator buttons that cannot work.
//
// It reads /v1/acl/token/self, and for a client token its policies (and
// those of its roles), and parses their rules: a small reader for the
// subset of HCL that ACL policies use (blocks with one optional label,
// key = string | [strings] | bare word).

import { api, token } from './api.js';

const expand = {
  deny: ['deny'],
  list: ['list-jobs', 'parse-job'],
  read: ['list-jobs', 'parse-job', 'read-job', 'csi-list-volume', 'csi-read-volume', 'read-job-scaling',
    'list-scaling-policies', 'read-scaling-policy'],
  scale: ['list-scaling-policies', 'read-scaling-policy', 'read-job-scaling', 'scale-job'],
};
expand.write = [...expand.read, 'scale-job', 'submit-job', 'dispatch-job', 'read-logs', 'read-fs', 'alloc-exec',
  'alloc-lifecycle', 'csi-write-volume', 'csi-mount-volume', 'submit-recommendation'];

// parseRules turns policy HCL into nested {blocks:[{type,label,body}], attrs:{}}.
export function parseRules(src) {
  const toks = [];
  const re = /\s+|#[^\n]*|\/\/[^\n]*|\/\*[\s\S]*?\*\/|"((?:[^"\\]|\\.)*)"|([A-Za-z0-9_.*\-]+)|([{}[\]=,])/y;
  let m;
  while (re.lastIndex < src.length && (m = re.exec(src))) {
    if (m[1] !== undefined) toks.push({ s: JSON.parse(`"${m[1]}"`) });
    else if (m[2] !== undefined) toks.push({ w: m[2] });
    else if (m[3] !== undefined) toks.push({ p: m[3] });
  }
  if (re.lastIndex < src.length) throw new Error(`policy rules: cannot read at offset ${re.lastIndex}`);
  let i = 0;
  const value = () => {
    const t = toks[i++];
    if (!t) return undefined;
    if (t.p === '[') {
      const out = [];
      while (toks[i] && toks[i].p !== ']') { const v = value(); if (v !== undefined) out.push(v); if (toks[i] && toks[i].p === ',') i++; }
      i++;
      return out;
    }
    return t.s !== undefined ? t.s : t.w;
  };
  const body = () => {
    const out = { blocks: [], attrs: {} };
    while (i < toks.length && toks[i].p !== '}') {
      const name = toks[i++];
      const key = name.w || name.s;
      if (toks[i] && toks[i].p === '=') { i++; out.attrs[key] = value(); continue; }
      let label = '';
      if (toks[i] && toks[i].s !== undefined) label = toks[i++].s;
      if (!toks[i] || toks[i].p !== '{') throw new Error(`policy rules: expected { after ${key}`);
      i++;
      out.blocks.push({ type: key, label, body: body() });
      i++; // }
    }
    return out;
  };
  return body();
}

function globScore(pattern, name) {
  if (pattern === name) return 1e6;
  if (!pattern.includes('*')) return -1;
  const re = new RegExp(`^${pattern.split('*').map(s => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(name) ? pattern.replace(/\*/g, '').length : -1;
}

// Caps is what a token may do.
export class Caps {
  constructor(kind, rules) {
    this.kind = kind; // 'none' (ACLs off), 'management', 'client', 'anonymous'
    this.rules = rules || [];
  }
  get management() { return this.kind === 'none' || this.kind === 'management'; }
  get aclEnabled() { return this.kind !== 'none'; }

  // ns answers whether the token holds a namespace capability.
  ns(cap, namespace = 'default') {
    if (this.management) return true;
    let best = -1, caps = new Set();
    for (const r of this.rules) {
      for (const b of r.blocks.filter(b => b.type === 'namespace')) {
        const s = globScore(b.label || 'default', namespace === '*' ? (b.label || 'default') : namespace);
        if (s < 0 || s < best) continue;
        if (s > best) { best = s; caps = new Set(); }
        const p = b.body.attrs.policy;
        for (const c of expand[p] || []) caps.add(c);
        for (const c of b.body.attrs.capabilities || []) caps.add(c);
      }
    }
    return !caps.has('deny') && caps.has(cap);
  }

  // level answers a coarse rule (node, agent, operator, node_pool): read or write.
  level(kind, want) {
    if (this.management) return true;
    const order = { deny: -1, read: 1, write: 2 };
    let got = 0;
    for (const r of this.rules) for (const b of r.blocks.filter(b => b.type === kind)) {
      const p = order[b.body.attrs.policy] || 0;
      if (p < 0) return false;
      got = Math.max(got, p);
    }
    return got >= order[want];
  }

  // variable answers a variables capability (read, write, list, destroy) on a path.
  variable(cap, path, namespace = 'default') {
    if (this.management) return true;
    for (const r of this.rules) for (const b of r.blocks.filter(b => b.type === 'namespace')) {
      if (globScore(b.label || 'default', namespace) < 0) continue;
      const p = b.body.attrs.policy;
      if (p === 'write' || (p === 'read' && (cap === 'read' || cap === 'list'))) return true;
      for (const v of b.body.blocks.filter(x => x.type === 'variables')) {
        for (const p of v.body.blocks.filter(x => x.type === 'path')) {
          if (globScore(p.label, path) >= 0 && (p.body.attrs.capabilities || []).includes(cap)) return true;
        }
      }
    }
    return false;
  }
}

let cached = null; // {token, promise}

// caps answers what the saved token may do; cached per token.
export function caps(secret) {
  if (cached && cached.token === secret) return cached.promise;
  const promise = load();
  cached = { token: secret, promise };
  return promise;
}

// load asks the agent whether ACLs are on (/v1/agent/self: a request
// that does not fail when they are off), then what the token is.
async function load() {
  let self;
  try {
    const agent = await api('/v1/agent/self');
    if (!(agent.config && agent.config.ACL && agent.config.ACL.Enabled)) return new Caps('none');
  } catch (e) {
    if (e.status !== 403) throw e;
  }
  // Without a token the anonymous policy applies; only a management
  // token may read it, so the write controls show disabled until a token
  // is set (reads go ahead: the API answers what anonymous may see).
  if (!token()) return new Caps('anonymous');
  try {
    self = await api('/v1/acl/token/self');
  } catch (e) {
    if (e.status === 400) return new Caps('none');
    return new Caps('anonymous');
  }
  if (self.Type === 'management') return new Caps('management');
  const names = new Set(self.Policies || []);
  for (const link of self.Roles || []) {
    try {
      const role = await api(`/v1/acl/role/${encodeURIComponent(link.ID)}`);
      for (const p of role.Policies || []) names.add(p.Name);
    } catch (e) { /* a role the token cannot read adds nothing */ }
  }
  const c = new Caps('client', await policyRules([...names]));
  c.self = self;
  return c;
}

async function policyRules(names) {
  const out = [];
  for (const n of names) {
    try {
      const p = await api(`/v1/acl/policy/${encodeURIComponent(n)}`);
      out.push(parseRules(p.Rules || ''));
    } catch (e) { /* unreadable policy: grants nothing here */ }
  }
  return out;
}
