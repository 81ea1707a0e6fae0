// /ui/jobs/run: write a job in HCL (or JSON), plan it (diff and
// placement failures shown), then run it.

import { editorHTML, editorActions } from '../lib/editor.js';

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
      const tmpl = params.template ? `<p class="muted">Job templates are not supported by Drover; start from the example below.</p>` : '';
      return `<h1>Run a job</h1>${note}${tmpl}${editorHTML(example)}`;
    },
    actions: editorActions(ctx),
  };
}
