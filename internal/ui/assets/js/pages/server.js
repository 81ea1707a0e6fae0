// /ui/servers/<name>: one server: its gossip entry and tags, its raft
// role, and its autopilot health.

import { api, enc } from '../lib/api.js';
import { esc, badge, stat, table } from '../lib/ui.js';
import { notFound } from '../main.js';

export default function serverPage(params, query, ctx) {
  const name = params.server;
  return {
    title: `Server ${name}`,
    topics: [],
    render: async () => {
      const [members, raft, health] = await Promise.all([api('/v1/agent/members'), api('/v1/operator/raft/configuration'),
        api('/v1/operator/autopilot/health').catch(() => null)]);
      const m = ((members && members.Members) || []).find(x => x.Name === name);
      const peer = (raft.Servers || []).find(s => s.Node === name || (m && s.Node === m.Name.split('.')[0]));
      if (!m && !peer) return notFound(`No server named "${name}".`).render();
      const h = health && (health.Servers || []).find(s => s.Name === name || (peer && s.ID === peer.ID));
      const tags = Object.entries((m && m.Tags) || {}).sort().map(([k, v]) => [esc(k), esc(v)]);
      return `<h1>Server ${esc(name)} ${m ? badge(m.Status) : ''}</h1>
        <div class="grid">${stat('Address', esc(m ? `${m.Addr}:${m.Port}` : peer.Address))}${stat('Raft role', peer ? (peer.Leader ? badge('leader') : 'follower') : 'not a peer')}
        ${stat('Voter', esc(peer ? (peer.Voter ? 'yes' : 'no') : ''))}${stat('Healthy', esc(h ? (h.Healthy ? 'yes' : 'no') : 'unknown'))}
        ${h ? stat('Last index', esc(h.LastIndex)) + stat('Last term', esc(h.LastTerm)) : ''}</div>
        <div class="actions"><a class="buttonlike" href="/ui/servers/${enc(name)}/monitor">Monitor</a></div>
        <h2>Tags</h2>${table(['Tag', 'Value'], tags, 'No tags.')}`;
    },
  };
}
