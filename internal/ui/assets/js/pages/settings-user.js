// /ui/settings/user-settings: preferences of this browser: the log
// viewer's word wrap.

import { field } from '../lib/ui.js';

export default function userSettingsPage(params, query, ctx) {
  return {
    title: 'User settings',
    topics: [],
    render: async () => `<h1>Settings</h1><nav class="tabs"><a href="/ui/settings/tokens">Tokens</a><a class="active" aria-current="page" href="/ui/settings/user-settings">User settings</a></nav>
      <form data-action="save">${field('Wrap long log lines', 'wrap', { type: 'checkbox', value: localStorage.getItem('drover.wrapLogs') !== 'false' })}
      <div class="actions"><button type="submit">Save</button></div></form>`,
    actions: {
      save: async d => { localStorage.setItem('drover.wrapLogs', String(!!d.wrap)); document.body.classList.toggle('nowrap', !d.wrap); return 'Saved.'; },
    },
  };
}
