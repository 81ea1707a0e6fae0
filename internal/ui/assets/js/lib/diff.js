// renderDiff renders Nomad's JobDiff (versions?diffs=true, plan) as
// indented +/-/~ lines.

import { esc } from './ui.js';

const diffMark = { Added: ['+', 'add'], Deleted: ['-', 'del'], Edited: ['~', 'edit'] };

export function renderDiff(d) {
  const lines = [];
  const fields = (fs, ind) => (fs || []).forEach(f => {
    const m = diffMark[f.Type];
    if (!m) return;
    const val = f.Type === 'Edited' ? `"${f.Old}" => "${f.New}"` : f.Type === 'Added' ? `"${f.New}"` : `"${f.Old}"`;
    lines.push([m, `${ind}${m[0]} ${f.Name}: ${val}`]);
  });
  const objects = (os, ind) => (os || []).forEach(o => {
    const m = diffMark[o.Type];
    if (!m) return;
    lines.push([m, `${ind}${m[0]} ${o.Name} {`]);
    fields(o.Fields, ind + '    ');
    objects(o.Objects, ind + '    ');
    lines.push([m, `${ind}  }`]);
  });
  if (d.Type && diffMark[d.Type] && d.ID) lines.push([diffMark[d.Type], `${diffMark[d.Type][0]} Job: "${d.ID}"`]);
  fields(d.Fields, '');
  objects(d.Objects, '');
  (d.TaskGroups || []).forEach(tg => {
    const m = diffMark[tg.Type];
    if (!m) return;
    const upd = tg.Updates ? ` (${Object.entries(tg.Updates).map(([k, v]) => `${v} ${k}`).join(', ')})` : '';
    lines.push([m, `${m[0]} Task Group: "${tg.Name}"${upd}`]);
    fields(tg.Fields, '    ');
    objects(tg.Objects, '    ');
    (tg.Tasks || []).forEach(t => {
      const tm = diffMark[t.Type];
      if (!tm) return;
      lines.push([tm, `    ${tm[0]} Task: "${t.Name}"`]);
      fields(t.Fields, '        ');
      objects(t.Objects, '        ');
    });
  });
  if (!lines.length) return '<div class="muted">no changes</div>';
  return `<div class="diff mono">${lines.map(([m, text]) => `<div class="${m[1]}">${esc(text)}</div>`).join('')}</div>`;
}
