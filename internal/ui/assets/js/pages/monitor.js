// /ui/clients/<id>/monitor and /ui/servers/<name>/monitor: the agent's
// log lines live (/v1/agent/monitor), at a chosen level.

import { enc, authHeaders, streamController, readLines } from '../lib/api.js';
import { esc, select } from '../lib/ui.js';

export default function monitorPage(params, query, ctx) {
  let ctrl = null;
  let level = query.get('level') || 'info';
  const who = params.node ? `client ${params.node.slice(0, 8)}` : `server ${params.server}`;
  const start = () => {
    if (ctrl) ctrl.abort();
    ctrl = streamController();
    const pre = document.getElementById('log');
    pre.textContent = '';
    const target = params.node ? `node_id=${enc(params.node)}` : `server_id=${enc(params.server)}`;
    fetch(`/v1/agent/monitor?log_level=${level}&${target}&plain=true`, { headers: authHeaders(), signal: ctrl.signal }).then(async r => {
      if (!r.ok) { pre.textContent = `monitor unavailable: ${r.status} ${(await r.text()).trim()}`; return; }
      await readLines(r.body, line => {
        pre.textContent = (pre.textContent + line + '\n').slice(-100000);
        pre.scrollTop = pre.scrollHeight;
      });
    }).catch(() => {});
  };
  return {
    title: `Monitor ${who}`,
    topics: [],
    render: async () => `<h1>Monitor ${esc(who)}</h1><div class="filters">${select('Level', 'level', ['trace', 'debug', 'info', 'warn', 'error'], level)}</div>
      <pre id="log" class="log tall" tabindex="0" aria-label="agent log"></pre>`,
    after: el => { el.querySelector('#f-level').addEventListener('change', e => { level = e.target.value; start(); }); start(); },
    cleanup: () => { if (ctrl) ctrl.abort(); },
  };
}
