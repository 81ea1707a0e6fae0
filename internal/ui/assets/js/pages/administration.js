// /ui/administration: the ACL sections (tokens, roles, policies,
// namespaces), for a management token.

import { tabs } from '../lib/ui.js';

export default function adminPage(params, query, ctx) {
  return {
    title: 'Administration',
    render: async () => {
      const c = await ctx.caps();
      const note = !c.aclEnabled ? '<p>ACLs are disabled on this cluster: tokens, roles and policies do not apply. Namespaces are below.</p>'
        : c.management ? '' : '<div class="error" role="alert">These pages need a management token.</div>';
      return `<h1>Administration</h1>${adminTabs('')}${note}
        <ul><li><a href="/ui/administration/tokens">Tokens</a></li><li><a href="/ui/administration/roles">Roles</a></li>
        <li><a href="/ui/administration/policies">Policies</a></li><li><a href="/ui/administration/namespaces">Namespaces</a></li></ul>`;
    },
  };
}

export function adminTabs(current) {
  return tabs([['Tokens', '/ui/administration/tokens'], ['Roles', '/ui/administration/roles'], ['Policies', '/ui/administration/policies'],
    ['Namespaces', '/ui/administration/namespaces']], current);
}
