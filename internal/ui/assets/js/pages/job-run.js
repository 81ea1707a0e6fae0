// /ui/jobs/run: write a job in HCL (or JSON), plan it (diff and
// placement failures shown), then run it.

import { api, enc } from '../lib/api.js';
import { esc, table } from '../lib/ui.js';
import { editorHTML, editorActions } from '../lib/editor.js';
import { varAPI } from '../lib/vars.js';

// Job templates are variables under this path, as in Nomad: Items.template
// holds the HCL, Items.description says what it is for.
const TEMPLATES = 'nomad/job-templates/';

const example = `job "example" {
  datacenters = ["*"]
  group "web" {
    count = 1
    task "server" {
      driver = "mock"
      config { run_for = "0s" }
      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
`;

export default function runPage(params, query, ctx) {
  return {
    title: 'Run job',
    topics: [],
    render: async () => {
      const c = await ctx.caps();
      const note = c.ns('submit-job', query.get('namespace') || 'default') ? '' :
        '<div class="error" role="alert">Your token lacks submit-job: the plan and the run will be refused (403).</div>';
      const t = location.pathname.startsWith('/ui/jobs/run/templates') ? (params.template || '') : undefined;
      if (t === undefined) {
        return `<h1>Run a job</h1>${note}<p><a href="/ui/jobs/run/templates">Start from a template</a></p>${editorHTML(example)}`;
      }
      if (t === '' || t === 'manage' || t === 'new') {
        const list = await api(`/v1/vars?namespace=*&prefix=${enc(TEMPLATES)}`).catch(() => []);
        const rows = list.map(v => [`<a href="/ui/jobs/run/templates/${v.Path.slice(TEMPLATES.length).split('/').map(enc).join('/')}${v.Namespace !== 'default' ? `@${enc(v.Namespace)}` : ''}">${esc(v.Path.slice(TEMPLATES.length))}</a>`, esc(v.Namespace)]);
        return `<h1>Job templates</h1><p>Templates are variables under <code>${TEMPLATES}</code> with a <code>template</code> item (the HCL) and a <code>description</code>.
          <a href="/ui/variables/new?path=${enc(TEMPLATES)}">Create a template</a></p>${table(['Template', 'Namespace'], rows, 'No templates.')}`;
      }
      const at = t.lastIndexOf('@');
      const [name, ns] = at > 0 ? [t.slice(0, at), t.slice(at + 1)] : [t, 'default'];
      const v = await api(varAPI(TEMPLATES + name, ns));
      return `<h1>Run a job from template ${esc(name)}</h1>${note}<p class="muted">${esc((v.Items || {}).description || '')}</p>${editorHTML((v.Items || {}).template || '')}`;
    },
    actions: editorActions(ctx),
  };
}
