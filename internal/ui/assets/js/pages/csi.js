// /ui/csi/volumes and /ui/csi/plugins: Nomad's storage pages. Drover has
// no CSI support; the pages say so rather than showing an empty list.

import { esc, tabs } from '../lib/ui.js';

export default function csiPage(params, query, ctx) {
  const kind = params.kind;
  return {
    title: `CSI ${kind}`,
    topics: [],
    render: async () => `<h1>Storage</h1>${tabs([['Volumes', '/ui/csi/volumes'], ['Plugins', '/ui/csi/plugins']], `/ui/csi/${kind}`)}
      <p>Drover does not implement CSI${params.name ? `, so there is no ${esc(kind.slice(0, -1))} "${esc(params.name)}"` : ''}: it has no CSI ${esc(kind)}.
      Tasks use host volumes (see each client's page) instead.</p>`,
  };
}
