// Resource use over time: polls a client stats endpoint every few
// seconds and keeps the last samples (a fixed ring, so a page left open
// for hours holds the same amount) for the inline SVG charts.

import { api } from './api.js';
import { chart } from './ui.js';

const KEEP = 60;

// follow polls url every ms and calls draw(samples) after each; pick
// turns a reply into {cpu, mem} (MHz, MiB). Answers a stop function.
export function follow(url, pick, draw, ms = 3000) {
  const samples = [];
  let stopped = false, timer = null;
  const tick = async () => {
    try {
      const s = pick(await api(url));
      samples.push(s);
      if (samples.length > KEEP) samples.shift();
      if (!stopped) draw(samples);
    } catch (e) {
      if (!stopped) draw(samples, e);
    }
    if (!stopped) timer = setTimeout(tick, ms);
  };
  tick();
  return () => { stopped = true; clearTimeout(timer); };
}

export function charts(samples, maxCPU, maxMem, err) {
  if (err && !samples.length) return `<p class="muted">Resource use unavailable: ${err.message}</p>`;
  return chart('CPU', samples.map(s => s.cpu), maxCPU, 'MHz') + chart('Memory', samples.map(s => s.mem), maxMem, 'MiB');
}

export const fromResourceUsage = u => ({
  cpu: (u && u.CpuStats && u.CpuStats.TotalTicks) || 0,
  mem: ((u && u.MemoryStats && (u.MemoryStats.RSS || u.MemoryStats.Usage)) || 0) / (1 << 20),
});
