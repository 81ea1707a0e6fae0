package jobspec

import (
	"github.com/hashicorp/nomad/api"
)

// Templates and artifacts are stored as written: the client renders and
// fetches them, so the parser only checks their shape.

var templateSchema = taggedSchema[api.Template]("change_script", "wait")

func (b *block) templates() []*api.Template {
	var out []*api.Template
	for _, hb := range b.all("template") {
		tb := b.d.openBlock(hb, templateSchema)
		t := &api.Template{}
		b.d.markBlock(t, hb.DefRange)
		readTagged(tb, t)
		t.ChangeScript = tb.changeScript()
		t.Wait = tb.wait()
		out = append(out, t)
	}
	return out
}

var changeScriptSchema = schema([]string{"command", "args", "timeout", "fail_on_error", "run_on_first_render"})

func (b *block) changeScript() *api.ChangeScript {
	return decodeOne(b, "change_script", changeScriptSchema, func(cb *block, c *api.ChangeScript) {
		cb.strPtr("command", &c.Command)
		cb.strList("args", &c.Args)
		cb.durPtr("timeout", &c.Timeout)
		cb.boolPtr("fail_on_error", &c.FailOnError)
		cb.boolPtr("run_on_first_render", &c.RunOnFirstRender)
	})
}

var waitSchema = schema([]string{"min", "max"})

func (b *block) wait() *api.WaitConfig {
	return decodeOne(b, "wait", waitSchema, func(wb *block, w *api.WaitConfig) {
		wb.durPtr("min", &w.Min)
		wb.durPtr("max", &w.Max)
	})
}

var artifactSchema = schema([]string{"source", "destination", "mode", "insecure", "chown", "options", "headers"},
	"options", "headers")

func (b *block) artifacts() []*api.TaskArtifact {
	var out []*api.TaskArtifact
	for _, hb := range b.all("artifact") {
		ab := b.d.openBlock(hb, artifactSchema)
		a := &api.TaskArtifact{}
		b.d.markBlock(a, hb.DefRange)
		ab.strPtr("source", &a.GetterSource)
		ab.strPtr("destination", &a.RelativeDest)
		ab.strPtr("mode", &a.GetterMode)
		ab.boolPtr("insecure", &a.GetterInsecure)
		ab.boolean("chown", &a.Chown)
		a.GetterOptions = ab.meta("options")
		a.GetterHeaders = ab.meta("headers")
		out = append(out, a)
	}
	return out
}
