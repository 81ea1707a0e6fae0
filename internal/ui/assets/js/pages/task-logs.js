// /ui/allocations/<id>/<task>/logs: the task's stdout or stderr, from
// the end, following, paging backwards on scroll.

import { enc } from '../lib/api.js';
import { esc } from '../lib/ui.js';
import { logViewer } from '../lib/logs.js';

export default function taskLogsPage(params, query, ctx) {
  const { alloc: id, task } = params;
  let viewer = null;
  let stream = query.get('type') || 'stdout';
  const start = () => {
    if (viewer) viewer.stop();
    viewer = logViewer(document.getElementById('log'), id, task, stream);
    for (const b of document.querySelectorAll('#log-controls button')) b.setAttribute('aria-pressed', String(b.dataset.stream === stream));
  };
  return {
    title: `Logs of ${task}`,
    topics: [],
    render: async () => `<h1>Logs of task <a href="/ui/allocations/${enc(id)}/${enc(task)}">${esc(task)}</a></h1>
      <div id="log-controls" class="actions">${['stdout', 'stderr'].map(s => `<button type="button" data-stream="${s}">${s}</button>`).join('')}</div>
      <pre id="log" class="log tall" tabindex="0" aria-label="task logs"></pre>`,
    after: el => {
      el.querySelector('#log-controls').onclick = ev => { const b = ev.target.closest('button'); if (b) { stream = b.dataset.stream; start(); } };
      start();
    },
    cleanup: () => { if (viewer) viewer.stop(); },
  };
}
