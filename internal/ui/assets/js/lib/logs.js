// The log viewer: starts at the end (the last 50,000 bytes, as Nomad
// shows), follows new output, and pages backwards 50,000 bytes at a time
// (across rotated files) when scrolled to the top. What it holds is
// capped: while following, the oldest chunks are dropped past MAX
// characters (scrolling up reads them again), so a viewer left open for
// hours keeps the same memory.

import { enc, authHeaders, streamController, readLines, apiText, api } from './api.js';

export const TAIL = 50000;
const MAX = 4 * TAIL;

function b64bytes(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// logViewer fills pre with the logs of alloc/task/stream; answers stop().
export function logViewer(pre, allocID, task, stream) {
  const ctrl = streamController();
  const chunks = []; // {file, start, end, node}
  let chars = 0, received = 0;
  let loading = false;
  const dec = new TextDecoder();
  const fileNo = f => Number((f.match(/\.(\d+)$/) || [0, 0])[1]);
  const atBottom = () => pre.scrollHeight - pre.scrollTop - pre.clientHeight < 30;

  const append = (file, start, end, text) => {
    const stick = atBottom();
    const node = document.createTextNode(text);
    pre.appendChild(node);
    chunks.push({ file, start, end, node });
    chars += text.length;
    received += text.length;
    pre.dataset.received = received; // what followed so far; the page holds at most MAX
    while (chars > MAX && chunks.length > 1) {
      const c = chunks.shift();
      chars -= c.node.data.length;
      c.node.remove();
    }
    if (stick) pre.scrollTop = pre.scrollHeight;
  };

  // Frames are drawn together every FLUSH ms: one layout for many frames
  // (a chatty task sends dozens a second). A timer, not an animation
  // frame, so a hidden tab still drains; what waits is capped too.
  const FLUSH = 150;
  let pending = [], pendingChars = 0, timer = null;
  const flush = () => {
    timer = null;
    const batch = pending;
    pending = [];
    pendingChars = 0;
    let cur = null;
    for (const f of batch) {
      if (cur && cur.file === f.file && cur.end === f.start) { cur.end = f.end; cur.text += f.text; continue; }
      if (cur) append(cur.file, cur.start, cur.end, cur.text);
      cur = { ...f };
    }
    if (cur) append(cur.file, cur.start, cur.end, cur.text);
  };
  const queue = (file, start, end, text) => {
    pending.push({ file, start, end, text });
    pendingChars += text.length;
    while (pendingChars > MAX && pending.length > 1) {
      const d = pending.shift();
      pendingChars -= d.text.length;
      received += d.text.length;
    }
    if (!timer) timer = setTimeout(flush, FLUSH);
  };

  // older reads the 50,000 bytes before the first chunk and puts them on top.
  const older = async () => {
    if (loading || !chunks.length) return;
    let { file, start } = chunks[0];
    if (start === 0) {
      const n = fileNo(file);
      if (n === 0) return;
      file = file.replace(/\.\d+$/, `.${n - 1}`);
      const st = await api(`/v1/client/fs/stat/${enc(allocID)}?path=${enc(file)}`);
      start = st.Size;
    }
    loading = true;
    try {
      const from = Math.max(0, start - TAIL);
      const text = await apiText(`/v1/client/fs/readat/${enc(allocID)}?path=${enc(file)}&offset=${from}&limit=${start - from}`);
      const before = pre.scrollHeight;
      const node = document.createTextNode(text);
      pre.insertBefore(node, pre.firstChild);
      chunks.unshift({ file, start: from, end: start, node });
      chars += text.length;
      pre.scrollTop += pre.scrollHeight - before;
    } finally {
      loading = false;
    }
  };
  pre.addEventListener('scroll', () => { if (pre.scrollTop < 40) older().catch(() => {}); });

  pre.textContent = '';
  const url = `/v1/client/fs/logs/${enc(allocID)}?task=${enc(task)}&type=${stream}&follow=true&origin=end&offset=${TAIL}`;
  fetch(url, { headers: authHeaders(), signal: ctrl.signal }).then(async r => {
    if (!r.ok) { pre.textContent = `logs unavailable: ${r.status} ${(await r.text()).trim()}`; return; }
    await readLines(r.body, line => {
      const f = JSON.parse(line);
      if (!f.Data) return;
      const bytes = b64bytes(f.Data);
      queue(f.File, f.Offset - bytes.length, f.Offset, dec.decode(bytes, { stream: true }));
    });
  }).catch(() => {});
  return {
    stop: () => { ctrl.abort(); clearTimeout(timer); },
    older,
    held: () => chars,
  };
}
