// /ui/exec/<job>@<ns>[/<group>[/<task>]]: a terminal (xterm.js, shipped
// in the binary under vendor/xterm) running a command in a task over
// Nomad's exec websocket: JSON frames, stdin and tty_size in, stdout,
// stderr and exited out.

import { api, enc, nsq, token } from '../lib/api.js';
import { esc, field, splitJobParam } from '../lib/ui.js';

let xtermLoaded = null;
function loadXterm() {
  if (!xtermLoaded) {
    xtermLoaded = new Promise((res, rej) => {
      const css = document.createElement('link');
      css.rel = 'stylesheet';
      css.href = '/ui/assets/vendor/xterm/xterm.css';
      document.head.appendChild(css);
      const s = document.createElement('script');
      s.src = '/ui/assets/vendor/xterm/xterm.js';
      s.onload = () => res(window.Terminal);
      s.onerror = () => rej(new Error('could not load the terminal'));
      document.head.appendChild(s);
    });
  }
  return xtermLoaded;
}

const b64 = s => btoa(unescape(encodeURIComponent(s)));
const unb64 = s => { const bin = atob(s); const u = new Uint8Array(bin.length); for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i); return u; };

export default function execPage(params, query, ctx) {
  const [jobID, ns0] = splitJobParam(params.job);
  const ns = query.get('namespace') || ns0;
  let ws = null, term = null;
  return {
    title: `Exec ${jobID}`,
    topics: [],
    render: async () => {
      const allocs = (await api(`/v1/job/${enc(jobID)}/allocations?${nsq(ns)}`)).filter(a => a.ClientStatus === 'running' && a.DesiredStatus === 'run');
      const tasks = [];
      for (const a of allocs) {
        if (params.group && a.TaskGroup !== params.group) continue;
        for (const t of Object.keys(a.TaskStates || {}).sort()) {
          if (params.task && t !== params.task) continue;
          if (a.TaskStates[t].State === 'running') tasks.push([`${a.ID}/${t}`, `${t} in ${a.TaskGroup} (${a.ID.slice(0, 8)})`]);
        }
      }
      const want = query.get('allocation');
      const pick = tasks.find(([v]) => want && v.startsWith(want)) || tasks[0];
      if (!tasks.length) return `<h1>Exec into ${esc(jobID)}</h1><p class="muted">No running task to exec into.</p>`;
      return `<h1>Exec into ${esc(jobID)}</h1>
        <form class="inline" data-action="connect">
          <label class="field" for="f-target">Task<select id="f-target" name="target">${tasks.map(([v, l]) => `<option value="${esc(v)}"${pick[0] === v ? ' selected' : ''}>${esc(l)}</option>`).join('')}</select></label>
          ${field('Command', 'command', { value: query.get('command') || '/bin/sh' })}
          <button type="submit" class="primary">Connect</button></form>
        <div id="term" class="term" aria-label="terminal"></div><pre id="transcript" class="sr" aria-live="polite"></pre>`;
    },
    actions: {
      connect: async d => {
        const Terminal = await loadXterm();
        if (ws) ws.close();
        if (term) term.dispose();
        const [allocID, task] = d.target.split('/');
        const el = document.getElementById('term');
        const transcript = document.getElementById('transcript');
        term = new Terminal({ cols: 100, rows: 24 });
        term.open(el);
        term.focus();
        const proto = location.protocol === 'https:' ? 'wss' : 'ws';
        const cmd = JSON.stringify(d.command.trim().split(/\s+/));
        // A websocket carries no X-Nomad-Token: with ws_handshake the token
        // is the first frame (as Nomad's UI does).
        ws = new WebSocket(`${proto}://${location.host}/v1/client/allocation/${enc(allocID)}/exec?task=${enc(task)}&tty=true&ws_handshake=true&command=${enc(cmd)}&${nsq(ns)}`);
        const dec = new TextDecoder();
        const out = data => {
          const text = dec.decode(unb64(data), { stream: true });
          term.write(text);
          transcript.textContent = (transcript.textContent + text).slice(-10000);
        };
        ws.onopen = () => {
          ws.send(JSON.stringify({ version: 1, auth_token: token() }));
          ws.send(JSON.stringify({ tty_size: { height: term.rows, width: term.cols } }));
        };
        ws.onmessage = ev => {
          const f = JSON.parse(ev.data);
          if (f.stdout && f.stdout.data) out(f.stdout.data);
          if (f.stderr && f.stderr.data) out(f.stderr.data);
          if (f.exited) term.write(`\r\n[exited with code ${(f.result && f.result.exit_code) || 0}]\r\n`);
        };
        ws.onclose = ev => { if (ev.reason) term.write(`\r\n[closed: ${ev.reason}]\r\n`); };
        term.on('data', s => { if (ws.readyState === 1) ws.send(JSON.stringify({ stdin: { data: b64(s) } })); });
        return null;
      },
    },
    cleanup: () => { if (ws) ws.close(); if (term) term.dispose(); },
  };
}
