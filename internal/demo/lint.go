package demo

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/lab"
	"github.com/schedoctor/schedoctor/lint/driver"
)

// lint lints the lab from its embedded copy. Programs that declare an older
// go line (lab:go 1.22, for SD105) are linted in a module of their own with
// that line, since what the rules report depends on it.
func (r *runner) lint(ctx context.Context) error {
	byVersion := map[string][]string{}
	for _, p := range r.programs {
		byVersion[p.GoVersion] = append(byVersion[p.GoVersion], p.Name)
	}
	perProgram := map[string][]finding.Finding{}
	var lintErr error
	for version, names := range byVersion {
		dir := filepath.Join(r.dir, "lint-go"+version)
		if version == "" {
			dir = filepath.Join(r.dir, "lint")
		}
		if err := lab.WriteModule(dir, version, names...); err != nil {
			return err
		}
		r.progress("lint: %d lab programs (go %s)", len(names), cmp.Or(version, "1.26"))
		res, err := driver.Run(ctx, driver.Options{Dir: dir, Patterns: []string{"./..."}, Env: append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")})
		if err != nil {
			lintErr = err
			continue
		}
		for _, f := range res.Findings {
			name := programOf(f)
			perProgram[name] = append(perProgram[name], f)
		}
	}
	for _, p := range r.programs {
		r.record(p.Name, StageLint, perProgram[p.Name], nil, lintErr)
	}
	return nil
}

// programOf names the lab program a finding points into.
func programOf(f finding.Finding) string {
	for _, l := range f.Locations {
		p := filepath.ToSlash(l.File)
		if i := strings.Index(p, "internal/lab/"); i >= 0 {
			rest := p[i+len("internal/lab/"):]
			name, _, _ := strings.Cut(rest, "/")
			return name
		}
	}
	return ""
}
