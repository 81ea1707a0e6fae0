// /ui/administration/{tokens,roles,policies,namespaces}[/<name>|/new]:
// list, show, create and delete ACL tokens (revoke), policies, roles and
// namespaces.

import { api, send, enc } from '../lib/api.js';
import { esc, table, badge, nsTime, button, field, select } from '../lib/ui.js';
import { adminTabs } from './administration.js';

const base = kind => `/ui/administration/${kind}`;
const list = s => s.split(',').map(x => x.trim()).filter(Boolean);

const kinds = {
  tokens: {
    list: async () => {
      const ts = await api('/v1/acl/tokens');
      return table(['Name', 'Accessor', 'Type', 'Policies', 'Roles', 'Created', 'Expires'], ts.map(t => [
        `<a href="${base('tokens')}/${enc(t.AccessorID)}">${esc(t.Name || '(no name)')}</a>`, `<span class="mono">${esc(t.AccessorID)}</span>`, badge(t.Type),
        esc((t.Policies || []).join(', ')), esc((t.Roles || []).map(r => r.Name).join(', ')), esc(t.CreateTime), esc(t.ExpirationTime || 'never')]), 'No tokens.');
    },
    show: async id => {
      const t = await api(`/v1/acl/token/${enc(id)}`);
      return `<h2>Token ${esc(t.Name || t.AccessorID)}</h2>${table(['Field', 'Value'], [['Accessor', t.AccessorID], ['Type', t.Type],
        ['Policies', (t.Policies || []).join(', ')], ['Roles', (t.Roles || []).map(r => r.Name).join(', ')], ['Global', t.Global], ['Created', t.CreateTime],
        ['Expires', t.ExpirationTime || 'never']].map(([k, v]) => [esc(k), esc(v)]))}
        <div class="actions">${button('Revoke token', 'revoke', { data: { id: t.AccessorID }, confirm: 'Yes, revoke it', cls: 'danger' })}</div>`;
    },
    form: async () => `<form data-action="create">${field('Name', 'name', { attrs: 'required' })}
      ${select('Type', 'type', ['client', 'management'], 'client')}${field('Policies (comma separated)', 'policies')}
      ${field('Roles (comma separated names)', 'roles')}${field('Time to live (e.g. 1h; empty: none)', 'ttl')}
      <div class="actions"><button type="submit" class="primary">Create token</button></div></form><div id="created"></div>`,
    create: async d => {
      const body = { Name: d.name, Type: d.type, Policies: d.type === 'client' ? list(d.policies) : [], Roles: list(d.roles).map(n => ({ Name: n })) };
      if (d.ttl) body.ExpirationTTL = d.ttl;
      const t = await send('POST', '/v1/acl/token', body);
      document.getElementById('created').innerHTML = `<div class="okbox" role="status">Token created. Its secret is shown once:
        <code id="new-secret">${esc(t.SecretID)}</code> (accessor <a href="${base('tokens')}/${enc(t.AccessorID)}">${esc(t.AccessorID)}</a>)</div>`;
      return null;
    },
    remove: async d => { await send('DELETE', `/v1/acl/token/${enc(d.id)}`); return 'Token revoked.'; },
  },
  policies: {
    list: async () => {
      const ps = await api('/v1/acl/policies');
      return table(['Name', 'Description', 'Modified'], ps.map(p => [`<a href="${base('policies')}/${enc(p.Name)}">${esc(p.Name)}</a>`, esc(p.Description), esc(p.ModifyIndex)]), 'No policies.');
    },
    show: async name => {
      const p = await api(`/v1/acl/policy/${enc(name)}`);
      return `<h2>Policy ${esc(p.Name)}</h2>${kinds.policies.formWith(p)}
        <div class="actions">${button('Delete policy', 'revoke', { data: { id: p.Name }, confirm: 'Yes, delete it', cls: 'danger' })}</div>`;
    },
    formWith: p => `<form data-action="create">${field('Name', 'name', { value: p.Name || '', attrs: `required${p.Name ? ' readonly' : ''}` })}
      ${field('Description', 'description', { value: p.Description || '' })}${field('Rules (HCL)', 'rules', { type: 'textarea', value: p.Rules || 'namespace "default" {\n  policy = "read"\n}\n' })}
      <div class="actions"><button type="submit" class="primary">Save policy</button></div></form>`,
    form: async () => kinds.policies.formWith({}),
    create: async (d, ctx) => {
      await send('POST', `/v1/acl/policy/${enc(d.name)}`, { Name: d.name, Description: d.description, Rules: d.rules });
      ctx.navigate(`${base('policies')}/${enc(d.name)}`);
      return `Policy ${d.name} saved.`;
    },
    remove: async (d, ctx) => { await send('DELETE', `/v1/acl/policy/${enc(d.id)}`); ctx.navigate(base('policies')); return 'Policy deleted.'; },
  },
  roles: {
    list: async () => {
      const rs = await api('/v1/acl/roles');
      return table(['Name', 'Description', 'Policies'], rs.map(r => [`<a href="${base('roles')}/${enc(r.ID)}">${esc(r.Name)}</a>`, esc(r.Description),
        esc((r.Policies || []).map(p => p.Name).join(', '))]), 'No roles.');
    },
    show: async id => {
      const r = await api(`/v1/acl/role/${enc(id)}`);
      return `<h2>Role ${esc(r.Name)}</h2>${table(['Field', 'Value'], [['ID', r.ID], ['Description', r.Description], ['Policies', (r.Policies || []).map(p => p.Name).join(', ')]].map(([k, v]) => [esc(k), esc(v)]))}
        <div class="actions">${button('Delete role', 'revoke', { data: { id: r.ID }, confirm: 'Yes, delete it', cls: 'danger' })}</div>`;
    },
    form: async () => `<form data-action="create">${field('Name', 'name', { attrs: 'required' })}${field('Description', 'description')}
      ${field('Policies (comma separated)', 'policies', { attrs: 'required' })}<div class="actions"><button type="submit" class="primary">Create role</button></div></form>`,
    create: async (d, ctx) => {
      const r = await send('POST', '/v1/acl/role', { Name: d.name, Description: d.description, Policies: list(d.policies).map(n => ({ Name: n })) });
      ctx.navigate(`${base('roles')}/${enc(r.ID)}`);
      return `Role ${d.name} created.`;
    },
    remove: async (d, ctx) => { await send('DELETE', `/v1/acl/role/${enc(d.id)}`); ctx.navigate(base('roles')); return 'Role deleted.'; },
  },
  namespaces: {
    list: async () => {
      const ns = await api('/v1/namespaces');
      return table(['Name', 'Description'], ns.map(n => [`<a href="${base('namespaces')}/${enc(n.Name)}">${esc(n.Name)}</a>`, esc(n.Description)]), 'No namespaces.');
    },
    show: async name => {
      const n = await api(`/v1/namespace/${enc(name)}`);
      const meta = Object.entries(n.Meta || {}).map(([k, v]) => [esc(k), esc(v)]);
      return `<h2>Namespace ${esc(n.Name)}</h2><p>${esc(n.Description)}</p>${table(['Meta', 'Value'], meta, 'No meta.')}
        <p><a href="/ui/jobs?namespace=${enc(n.Name)}">Jobs in ${esc(n.Name)}</a></p>
        ${n.Name === 'default' ? '' : `<div class="actions">${button('Delete namespace', 'revoke', { data: { id: n.Name }, confirm: 'Yes, delete it', cls: 'danger' })}</div>`}`;
    },
    form: async () => `<form data-action="create">${field('Name', 'name', { attrs: 'required' })}${field('Description', 'description')}
      <div class="actions"><button type="submit" class="primary">Create namespace</button></div></form>`,
    create: async (d, ctx) => {
      await send('POST', `/v1/namespace/${enc(d.name)}`, { Name: d.name, Description: d.description });
      ctx.navigate(`${base('namespaces')}/${enc(d.name)}`);
      return `Namespace ${d.name} created.`;
    },
    remove: async (d, ctx) => { await send('DELETE', `/v1/namespace/${enc(d.id)}`); ctx.navigate(base('namespaces')); return 'Namespace deleted.'; },
  },
};

export default function aclPage(params, query, ctx) {
  const k = kinds[params.kind];
  const name = params.name;
  const title = params.kind[0].toUpperCase() + params.kind.slice(1);
  return {
    title,
    // A creation form has nothing to follow, and a re-render would wipe
    // what its handler drew (a new token's secret, shown once).
    topics: name === 'new' ? [] : params.kind === 'namespaces' ? ['Namespace'] : ['ACLToken', 'ACLPolicy', 'ACLRole'],
    render: async () => {
      const body = name === 'new' ? await k.form() : name ? await k.show(name) : await k.list();
      const create = !name ? `<div class="actions"><a class="buttonlike primary" href="${base(params.kind)}/new">Create</a></div>` : '';
      return `<h1>${esc(title)}</h1>${adminTabs(base(params.kind))}${create}${body}`;
    },
    actions: {
      create: d => k.create(d, ctx),
      revoke: async d => { const m = await k.remove(d, ctx); if (params.kind === 'tokens') ctx.navigate(base('tokens')); return m; },
    },
  };
}
