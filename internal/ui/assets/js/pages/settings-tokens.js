// /ui/settings/tokens: sign in with a token (kept in this browser's
// localStorage and sent as X-Nomad-Token), see what it is, sign out.
// Saving restarts the event stream with the new token.

import { api, token } from '../lib/api.js';
import { esc, table, field, button } from '../lib/ui.js';

export default function tokensPage(params, query, ctx) {
  return {
    title: 'Tokens',
    topics: [],
    render: async () => {
      const c = await ctx.caps();
      let who = '';
      if (!c.aclEnabled) who = '<p>ACLs are disabled on this cluster: no token is needed.</p>';
      else if (token()) {
        const self = await api('/v1/acl/token/self').catch(e => ({ error: e.message }));
        who = self.error ? `<div class="error" role="alert">The saved token is refused: ${esc(self.error)}</div>`
          : `<h2>Signed in</h2>${table(['Field', 'Value'], [['Name', self.Name], ['Accessor', self.AccessorID], ['Type', self.Type],
            ['Policies', (self.Policies || []).join(', ')], ['Roles', (self.Roles || []).map(r => r.Name).join(', ')], ['Expires', self.ExpirationTime || 'never']].map(([k, v]) => [esc(k), esc(v)]))}`;
      } else who = '<p>No token is set: requests use the anonymous policy.</p>';
      return `<h1>Settings</h1><nav class="tabs"><a class="active" aria-current="page" href="/ui/settings/tokens">Tokens</a><a href="/ui/settings/user-settings">User settings</a></nav>
        <form data-action="save" class="inline">${field('Secret ID', 'secret', { type: 'password', attrs: 'autocomplete="off"' })}<button type="submit" class="primary">Set token</button></form>
        ${token() ? `<div class="actions">${button('Sign out', 'clear')}</div>` : ''}${who}`;
    },
    actions: {
      save: async d => { await ctx.saveToken(d.secret.trim()); return 'Token saved.'; },
      clear: async () => { await ctx.saveToken(''); return 'Signed out.'; },
    },
  };
}
