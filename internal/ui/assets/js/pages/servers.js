// /ui/servers: the raft peers and the gossip members.

import { api, enc } from '../lib/api.js';
import { esc, badge, table } from '../lib/ui.js';

export default function serversPage(params, query, ctx) {
  return {
    title: 'Servers',
    topics: [],
    render: async () => {
      const [leader, raft, members] = await Promise.all([api('/v1/status/leader'),
        api('/v1/operator/raft/configuration'), api('/v1/agent/members')]);
      const rows = (raft.Servers || []).map(s => [`<a href="/ui/servers/${enc(s.Node)}">${esc(s.Node)}</a>`, `<span class="mono">${esc(s.ID)}</span>`, esc(s.Address),
        s.Leader ? badge('leader') : esc('follower'), esc(s.Voter ? 'voter' : 'non-voter'), esc(s.RaftProtocol || '')]);
      const memberRows = ((members && members.Members) || []).map(m => [`<a href="/ui/servers/${enc(m.Name)}">${esc(m.Name)}</a>`, esc(`${m.Addr}:${m.Port}`),
        badge(m.Status), esc((m.Tags || {}).region || ''), esc((m.Tags || {}).dc || ''), esc((m.Tags || {}).build || '')]);
      return `<h1>Servers</h1><p>Leader: <span class="mono">${esc(leader)}</span></p>` +
        '<h2>Raft peers</h2>' + table(['Name', 'ID', 'Address', 'Role', 'Voter', 'Raft protocol'], rows, 'No servers.') +
        '<h2>Members</h2>' + table(['Name', 'Gossip address', 'Status', 'Region', 'Datacenter', 'Build'], memberRows, 'No members.');
    },
  };
}
