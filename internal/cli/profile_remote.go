package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/diagnose"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/profile"
	"github.com/schedoctor/schedoctor/profile/remote"
	"github.com/schedoctor/schedoctor/report"
)

// remoteFlags are profile's flags for a continuous profiler.
type remoteFlags struct {
	pyroscope, parca *string
	query, typ, by   *string
	from, until      *string
	maxValues        *int
	tenant, username *string
}

func registerRemoteFlags(fs *flag.FlagSet) *remoteFlags {
	return &remoteFlags{
		pyroscope: fs.String("pyroscope", "", "ask the Pyroscope server at `URL` for the merged CPU profile of -query (credentials: PYROSCOPE_* variables, see below)"),
		parca:     fs.String("parca", "", "ask the Parca server at `URL` for the merged CPU profile of -query (credentials: PARCA_* variables)"),
		query:     fs.String("query", "", "with -pyroscope or -parca: the label `SELECTOR` of the profiles to merge, such as {service_name=\"api\"}"),
		typ:       fs.String("type", "", "with -pyroscope or -parca: the profile `TYPE`, process_cpu (the default: Go's CPU profile), parca_agent (Parca), or a whole type ID"),
		from:      fs.String("from", "-1h", "with -pyroscope or -parca: the start of the profiles merged: now-DURATION, -DURATION, or an RFC 3339 `TIME`"),
		until:     fs.String("until", "now", "with -pyroscope or -parca: their end: now, now-DURATION, -DURATION or an RFC 3339 `TIME`"),
		by:        fs.String("by", "", "with -pyroscope or -parca: diagnose each value of `LABEL` (pod, version) apart, and say which values hold each finding"),
		maxValues: fs.Int("max-values", remote.DefaultMaxValues, "with -by: ask for at most `N` values (each is a query of its own)"),
		tenant:    fs.String("tenant", "", "with -pyroscope: the tenant `ID` (X-Scope-OrgID); default $PYROSCOPE_TENANT_ID"),
		username:  fs.String("username", "", "basic auth `USER` for -pyroscope or -parca, with the password from $PYROSCOPE_PASSWORD or $PARCA_PASSWORD; default $PYROSCOPE_USERNAME or $PARCA_USERNAME"),
	}
}

// set is whether a server was named.
func (r *remoteFlags) set() bool { return *r.pyroscope != "" || *r.parca != "" }

// parseWhen reads -from and -until: "now", "now-1h" or "-1h" (before
// now), or an RFC 3339 time.
func parseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "now" {
		return now, nil
	}
	if d, ok := strings.CutPrefix(s, "now"); ok {
		s = d
	}
	if strings.HasPrefix(s, "-") {
		d, err := time.ParseDuration(s[1:])
		if err != nil || d <= 0 {
			return time.Time{}, fmt.Errorf("%q: want now, now-DURATION (now-1h), -DURATION or an RFC 3339 time", s)
		}
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: want now, now-DURATION (now-1h), -DURATION or an RFC 3339 time (2006-01-02T15:04:05Z)", s)
	}
	return t, nil
}

// remoteOptions are the client's options: the timeout, the limits, and
// the credentials from the flags and the environment. Secrets come from
// the environment only, never a flag: a flag shows in ps and the shell's
// history.
func (e *Env) remoteOptions(rf *remoteFlags, server remote.Server, timeout time.Duration, lim profile.ReadOptions) remote.Options {
	env := "PYROSCOPE_"
	if server == remote.Parca {
		env = "PARCA_"
	}
	opt := remote.Options{
		Timeout:  timeout,
		Read:     lim,
		Username: cmpOr(*rf.username, e.getenv(env+"USERNAME")),
		Password: e.getenv(env + "PASSWORD"),
		Token:    e.getenv(env + "TOKEN"),
	}
	if server == remote.Pyroscope {
		opt.Tenant = cmpOr(*rf.tenant, e.getenv("PYROSCOPE_TENANT_ID"))
	}
	return opt
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// runRemoteProfile is `profile -pyroscope URL` and `profile -parca URL`:
// the merged profile of -query, diagnosed as a profile file is, or one
// diagnosis per value of -by, grouped.
func (e *Env) runRemoteProfile(ctx context.Context, out *outputFlags, rf *remoteFlags, timeout time.Duration, lim profile.ReadOptions, dopt diagnose.Options, classified string) int {
	server, rawURL := remote.Pyroscope, *rf.pyroscope
	if *rf.parca != "" {
		server, rawURL = remote.Parca, *rf.parca
	}
	now := time.Now()
	fromT, err := parseWhen(*rf.from, now)
	if err != nil {
		return e.usageError("-from %v", err)
	}
	untilT, err := parseWhen(*rf.until, now)
	if err != nil {
		return e.usageError("-until %v", err)
	}
	if !untilT.After(fromT) {
		return e.usageError("-from %s is not before -until %s", fromT.Format(time.RFC3339), untilT.Format(time.RFC3339))
	}
	if *rf.query == "" {
		return e.usageError("-%s needs -query, the label selector of the profiles to merge, such as {service_name=\"api\"}", strings.ToLower(server.String()))
	}
	if *rf.by != "" {
		if err := remote.CheckLabel(*rf.by); err != nil {
			return e.usageError("-by %v", err)
		}
		if classified != "" {
			return e.usageError("-o writes one merged profile; it cannot be used with -by")
		}
	}
	if *rf.maxValues <= 0 {
		return e.usageError("-max-values %d: want at least 1", *rf.maxValues)
	}
	if timeout == 0 {
		timeout = remote.DefaultTimeout
	}
	c, err := remote.New(server, rawURL, e.remoteOptions(rf, server, timeout, lim))
	if err != nil {
		return e.fail(err)
	}
	q := remote.Query{Selector: *rf.query, Type: *rf.typ, From: fromT, Until: untilT}
	if *rf.by != "" {
		return e.runSplit(ctx, out, c, q, *rf.by, *rf.maxValues, dopt)
	}
	e.doing("querying " + c.Name())
	p, err := c.Merge(ctx, q)
	if err != nil {
		return e.fail(err)
	}
	res, err := profile.Analyze([]*pprof.Profile{p.Profile}, profile.Options{})
	if err != nil {
		return e.fail(fmt.Errorf("%s: %w", c.Name(), err))
	}
	if classified != "" {
		if err := writeClassified(classified, res); err != nil {
			return e.fail(err)
		}
	}
	joined, err := diagnose.Profile(res, dopt)
	if err != nil {
		return e.fail(err)
	}
	sum := &remoteSummary{ProfileSummary: joined.Summary, Remote: remote.OriginOf(c, q, p)}
	return e.emit(out, report.Report{Source: finding.SourceProfile, Findings: joined.Findings, Summary: sum})
}

// runSplit diagnoses each value of label apart and groups the findings.
func (e *Env) runSplit(ctx context.Context, out *outputFlags, c *remote.Client, q remote.Query, label string, maxValues int, dopt diagnose.Options) int {
	e.doing("querying " + c.Name() + " by " + label)
	rows := map[string]remote.ValueShare{}
	found := map[string][]finding.Finding{}
	split, err := c.Split(ctx, label, q, remote.SplitOptions{MaxValues: maxValues, Each: func(part remote.Part) {
		// Diagnosed as it arrives: the profile is dropped after.
		row := remote.ValueShare{Value: part.Value}
		fs, err := diagnosePart(part, dopt, &row)
		switch {
		case errors.Is(err, remote.ErrNoData):
			row.NoData = true
		case err != nil:
			row.Error = err.Error()
		default:
			found[part.Value] = fs
		}
		rows[part.Value] = row
	}})
	if err != nil {
		return e.fail(err)
	}
	if ctx.Err() != nil {
		return e.fail(context.Cause(ctx))
	}
	sum := &remote.SplitSummary{Origin: remote.OriginOf(c, q, nil), Label: label, Listed: split.Values, Cut: split.Cut()}
	var per []remote.ValueFindings
	for _, part := range split.Parts { // in the values' order
		row, ok := rows[part.Value]
		if !ok {
			row = remote.ValueShare{Value: part.Value, Error: fmt.Sprint(part.Err)}
		}
		sum.Values = append(sum.Values, row)
		if fs, ok := found[part.Value]; ok {
			per = append(per, remote.ValueFindings{Value: part.Value, Findings: fs})
		}
	}
	if len(split.Parts) == 0 {
		return e.fail(fmt.Errorf("%s: %w: label %s has no values for %s in the range", c.Name(), remote.ErrNoData, label, q.Selector))
	}
	if len(per) == 0 {
		// Every value failed or had no data: nothing was diagnosed, which
		// is no clean bill of health.
		for _, v := range sum.Values {
			if v.Error != "" {
				return e.fail(fmt.Errorf("no value of %s could be diagnosed; %s: %s", label, v.Value, v.Error))
			}
		}
		return e.fail(fmt.Errorf("%s: %w: no value of %s has samples for %s in the range", c.Name(), remote.ErrNoData, label, q.Selector))
	}
	findings := remote.Group(label, len(per), per)
	return e.emit(out, report.Report{Source: finding.SourceProfile, Findings: findings, Summary: sum})
}

// diagnosePart analyses one value's profile and joins it with the source,
// filling its summary row.
func diagnosePart(part remote.Part, dopt diagnose.Options, row *remote.ValueShare) ([]finding.Finding, error) {
	if part.Err != nil {
		return nil, part.Err
	}
	row.Method, row.Filled = part.Profile.Method, part.Profile.Filled
	res, err := profile.Analyze([]*pprof.Profile{part.Profile.Profile}, profile.Options{})
	if err != nil {
		return nil, err
	}
	joined, err := diagnose.Profile(res, dopt)
	if err != nil {
		return nil, err
	}
	s := res.Summary
	row.CPUSeconds, row.Cores, row.Samples = s.CPUSeconds, s.Cores, s.Samples
	finding.Sort(joined.Findings)
	row.Findings = len(joined.Findings)
	for _, f := range joined.Findings {
		row.Rules = append(row.Rules, f.Rule)
	}
	return joined.Findings, nil
}

// remoteSummary is a profile's summary with where the profile came from:
// the JSON of `profile`'s summary plus "remote".
type remoteSummary struct {
	*diagnose.ProfileSummary
	Remote *remote.Origin `json:"remote"`
}

func (s *remoteSummary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

func (s *remoteSummary) WriteTextWidth(w io.Writer, width int) error {
	if err := s.Remote.WriteTextWidth(w, width); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return s.ProfileSummary.WriteTextWidth(w, width)
}
