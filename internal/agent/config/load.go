package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// LoadFile decodes one file (.json as JSON, anything else as HCL) and returns
// only what the file sets, applied to an empty Config; merge it onto
// Default() or use Load for the usual layering.
func LoadFile(path string) (*Config, error) {
	c := &Config{}
	if err := applyFile(c, path); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadDir is LoadFile for every *.hcl and *.json file in dir, in name order.
func LoadDir(dir string) (*Config, error) {
	c := &Config{}
	if err := applyDir(c, dir); err != nil {
		return nil, err
	}
	return c, nil
}

// Load applies each -config path (a file or a directory) in order on top of
// Default(). Files are applied directly rather than via Merge so that a later
// file can reset a value to its zero (enabled = false).
func Load(paths ...string) (*Config, error) {
	return loadOnto(Default(), paths)
}

// LoadDev is Load on top of DevConfig(): `agent -dev -config F`. Only what
// the files set changes, so dev stays on 127.0.0.1 unless a file sets
// bind_addr itself (layering a full Default() over dev would silently move
// it to 0.0.0.0).
func LoadDev(paths ...string) (*Config, error) {
	return loadOnto(DevConfig(), paths)
}

func loadOnto(c *Config, paths []string) (*Config, error) {
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		if fi.IsDir() {
			err = applyDir(c, p)
		} else {
			err = applyFile(c, p)
		}
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

func applyDir(c *Config, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if !e.IsDir() && (ext == ".hcl" || ext == ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names) // ReadDir sorts already; make the order a contract.
	for _, n := range names {
		if err := applyFile(c, filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}

func applyFile(c *Config, path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return applySource(c, path, src)
}

// LoadBytes is LoadFile for a config already in memory; path names it in
// errors and picks JSON (".json") or HCL.
func LoadBytes(path string, src []byte) (*Config, error) {
	c := &Config{}
	if err := applySource(c, path, src); err != nil {
		return nil, err
	}
	return c, nil
}

func applySource(c *Config, path string, src []byte) error {
	// A fresh parser per file: it caches by name, and we never reuse files.
	p := hclparse.NewParser()
	var f *hcl.File
	var diags hcl.Diagnostics
	if strings.EqualFold(filepath.Ext(path), ".json") {
		f, diags = p.ParseJSON(src, path)
	} else {
		f, diags = p.ParseHCL(rewriteHCL1(src, path), path)
	}
	if !diags.HasErrors() {
		diags = append(diags, decodeBody(f.Body, c)...)
	}
	return diagError(path, diags)
}

// diagError renders error diagnostics as "file:line:col: summary; detail",
// one per line, so editors and terminals can jump to the spot.
func diagError(path string, diags hcl.Diagnostics) error {
	var errs []error
	// Report in file order, whichever pass found the problem.
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		if a == nil || b == nil {
			return a != nil
		}
		return a.Start.Byte < b.Start.Byte
	})
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += "; " + d.Detail
		}
		if r := d.Subject; r != nil {
			msg = fmt.Sprintf("%s:%d:%d: %s", r.Filename, r.Start.Line, r.Start.Column, msg)
		} else {
			msg = path + ": " + msg
		}
		errs = append(errs, errors.New(msg))
	}
	return errors.Join(errs...)
}
