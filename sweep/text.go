package sweep

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

const (
	barWidth     = 30  // the longest bar of the chart, in cells
	noisyCPUWait = 0.1 // run-queue wait per P, beyond the command's own, above which a value is disturbed
)

// WriteText prints the sweep as a table, one row per GOMAXPROCS, with a bar
// for the knee metric's median; the knee and the best value are marked.
// It fits 80 columns.
func (s *Summary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth prints the sweep within width columns; 0 is the full
// table, with the bar beside each row. Within a width, the bars are a
// chart of their own under the table, load mode leaves out p90 and p99.9
// (in -wide and -json), and the sentences are wrapped. The command line is
// quoted as a shell would read it; the URL and the runs' errors are
// escaped (textsafe).
func (s *Summary) WriteTextWidth(out io.Writer, width int) error {
	var text strings.Builder
	w := &text
	// Quoted for a shell, so that the line can be pasted and an argument
	// with a space or a line break reads as one (textsafe.ShellJoin).
	fmt.Fprintf(w, "sweep: %s\n", textsafe.ShellJoin(s.Command))
	fmt.Fprintf(w, "GOMAXPROCS %s, %d runs each, interleaved (order seed %d); %d CPUs\n",
		joinInts(s.Procs), s.RunsPerP, s.Seed, s.CPUs)
	if s.Load != nil {
		fmt.Fprintf(w, "load: %g requests/s for %gs to %s, open loop; latency from the intended send time\n",
			s.Load.Rate, s.Load.Duration, s.Load.URL)
	}
	fmt.Fprintf(w, "knee metric: %s (%s is better); median and %.1f%% interval of the median; tolerance %g%%\n",
		s.metricLabel(), s.Better, 100*s.Confidence, 100*s.Tolerance)
	if _, err := io.WriteString(out, textlayout.Lines(text.String(), width)+"\n"); err != nil {
		return err
	}
	text.Reset()

	narrow := width > 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	switch {
	case s.Load != nil && narrow:
		fmt.Fprint(tw, "GOMAXPROCS\truns\tp50\tp99\tp99 interval\tok/s\terrors\tcpu s\t\n")
	case s.Load != nil:
		fmt.Fprint(tw, "GOMAXPROCS\truns\tp50\tp90\tp99\tp99 interval\tp99.9\tok/s\terrors\tcpu s\t\n")
	case narrow:
		// "procs": ten columns of header back for wider figures.
		fmt.Fprint(tw, "procs\truns\tmedian\tinterval\tcpu s\trq wait s\tinvol. cs\tmax RSS\t\n")
	default:
		fmt.Fprint(tw, "GOMAXPROCS\truns\tmedian\tinterval\tcpu s\trq wait s\tinvol. cs\tmax RSS\t\n")
	}
	top := 0.0
	for _, p := range s.Points {
		top = math.Max(top, p.Median)
	}
	for _, p := range s.Points {
		cells := []string{strconv.Itoa(p.Procs), strconv.Itoa(p.N)}
		if s.Load != nil && narrow {
			cells = append(cells, s.fmtVal(p.P50), s.fmtVal(p.P99), s.fmtVal(p.Lo)+"–"+s.fmtVal(p.Hi),
				fmtNum(p.Throughput), strconv.FormatInt(p.Errors+p.Unsent, 10), fmtNum(p.CPUSeconds))
		} else if s.Load != nil {
			cells = append(cells, s.fmtVal(p.P50), s.fmtVal(p.P90), s.fmtVal(p.P99),
				s.fmtVal(p.Lo)+"–"+s.fmtVal(p.Hi), s.fmtVal(p.P999),
				fmtNum(p.Throughput), strconv.FormatInt(p.Errors+p.Unsent, 10), fmtNum(p.CPUSeconds))
		} else {
			cells = append(cells, s.fmtVal(p.Median), s.fmtVal(p.Lo)+"–"+s.fmtVal(p.Hi),
				fmtNum(p.CPUSeconds), fmtNum(p.RunQueueWaitSeconds), fmtNum(p.InvoluntarySwitches),
				fmtBytes(p.MaxRSSBytes))
		}
		fmt.Fprintf(tw, "%s\t", strings.Join(cells, "\t"))
		if narrow {
			fmt.Fprintln(tw)
			continue
		}
		// The chart column is left-aligned text after the table.
		fmt.Fprintf(tw, "  %s%s\n", bar(p.Median, top), s.mark(p.Procs))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if narrow {
		// The bars under the table, one per value: the table and a bar of
		// 30 cells do not fit 80 columns side by side.
		fmt.Fprintf(w, "\n%s by GOMAXPROCS\n", s.metricLabel())
		for _, p := range s.Points {
			fmt.Fprintf(w, "%10d  %s%s\n", p.Procs, bar(p.Median, top), s.mark(p.Procs))
		}
	}
	// The table's lines escaped but never wrapped.
	if _, err := io.WriteString(out, textlayout.Lines(text.String(), 0)); err != nil {
		return err
	}
	text.Reset()
	if len(s.Disturbed) > 0 {
		fmt.Fprintf(w, "\nnote: the machine was busy during these runs, so no GOMAXPROCS is recommended from them (the "+
			"figures are noisy and favour more threads: the kernel shares CPUs per thread):\n")
		for _, d := range s.Disturbed {
			fmt.Fprintf(w, "  GOMAXPROCS=%d: %s\n", d.Procs, d.Why)
		}
	}
	if fewest := slices.MinFunc(s.Points, func(a, b Point) int { return a.N - b.N }); fewest.N < minRunsToCompare {
		fmt.Fprintf(w, "\nnote: negative scaling is judged only with %d or more successful runs per value (GOMAXPROCS=%d has %d)\n",
			minRunsToCompare, fewest.Procs, fewest.N)
	}
	if len(s.Failures) > 0 {
		fmt.Fprintf(w, "\n%d of %d runs failed:\n", len(s.Failures), len(s.Runs))
		for _, f := range s.Failures {
			fmt.Fprintf(w, "  run %d (GOMAXPROCS=%d): %s\n", f.Seq, f.Procs, firstLine(f.Err))
		}
	}
	// The warnings were printed with the progress, which -q hides, and a
	// saved report has no progress: the figures above may suffer from what
	// they say (another sweep's processes, a leftover holding the CPU).
	if len(s.Warnings) > 0 {
		fmt.Fprintf(w, "\n%s:\n", plural(len(s.Warnings), "warning"))
		for _, m := range s.Warnings {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
	if left := s.unwarnedLeftovers(); len(left) > 0 {
		fmt.Fprintf(w, "\nprocesses a run's command left running when it ended, which the sweep killed:\n")
		for _, r := range left {
			fmt.Fprintf(w, "  run %d (GOMAXPROCS=%d): %s\n", r.Seq, r.Procs, strings.Join(r.Leftovers, ", "))
		}
	}
	_, err := io.WriteString(out, textlayout.Lines(text.String(), width))
	return err
}

// unwarnedLeftovers returns the runs whose leftover processes no warning
// names: a sweep warns of each run's leftovers as it kills them, so they
// are printed once, with the warnings, unless the summary came without
// those warnings.
func (s *Summary) unwarnedLeftovers() []RunResult {
	var out []RunResult
	for _, r := range s.Runs {
		if len(r.Leftovers) == 0 {
			continue
		}
		run := fmt.Sprintf("run %d (GOMAXPROCS=%d)", r.Seq, r.Procs)
		named := slices.ContainsFunc(s.Warnings, func(w string) bool {
			if !strings.Contains(w, run) {
				return false
			}
			for _, l := range r.Leftovers {
				if !strings.Contains(w, l) {
					return false
				}
			}
			return true
		})
		if !named {
			out = append(out, r)
		}
	}
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func (s *Summary) mark(p int) string {
	var m []string
	if p == s.Knee {
		m = append(m, "knee")
	}
	if p == s.Best {
		m = append(m, "best")
	}
	if len(m) == 0 {
		return ""
	}
	return "  ◀ " + strings.Join(m, ", ")
}

// metricLabel names the knee metric with its unit.
func (s *Summary) metricLabel() string {
	switch {
	case s.Metric == "wall":
		return "wall time"
	case s.Metric == "p99":
		return "p99 latency"
	}
	return s.Metric
}

// fmtVal formats a value of the knee metric.
func (s *Summary) fmtVal(v float64) string {
	if s.Unit == "s" {
		return fmtSeconds(v)
	}
	return fmtNum(v)
}

// fmtSeconds prints a duration in seconds with a fitting unit and 3
// significant digits: 1.23s, 45.6ms, 789µs.
func fmtSeconds(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1 || a == 0:
		return strconv.FormatFloat(v, 'f', sigDecimals(v, 3), 64) + "s"
	case a >= 1e-3:
		return strconv.FormatFloat(v*1e3, 'f', sigDecimals(v*1e3, 3), 64) + "ms"
	default:
		return strconv.FormatFloat(v*1e6, 'f', sigDecimals(v*1e6, 3), 64) + "µs"
	}
}

// fmtNum prints a number compactly: integers below 10000 as they are,
// others with 4 significant digits, and an SI suffix (k, M, G) from 10000
// up, never with an exponent.
func fmtNum(v float64) string {
	a := math.Abs(v)
	for _, u := range []struct {
		scale  float64
		suffix string
	}{{1e9, "G"}, {1e6, "M"}, {1e4, "k"}} {
		if a >= u.scale {
			if u.suffix == "k" {
				u.scale = 1e3
			}
			return strconv.FormatFloat(v/u.scale, 'f', sigDecimals(v/u.scale, 4), 64) + u.suffix
		}
	}
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', sigDecimals(v, 4), 64)
}

// sigDecimals returns how many decimals give sig significant digits.
func sigDecimals(v float64, sig int) int {
	a := math.Abs(v)
	if a == 0 || math.IsNaN(a) || math.IsInf(a, 0) {
		return 0
	}
	d := sig - 1 - int(math.Floor(math.Log10(a)))
	return max(d, 0)
}

func fmtBytes(b float64) string {
	const mb = 1 << 20
	return strconv.FormatFloat(b/mb, 'f', 1, 64) + " MiB"
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// bar draws v as a bar of eighth-cell blocks, barWidth cells at top.
func bar(v, top float64) string {
	if top <= 0 || v <= 0 || math.IsNaN(v) {
		return ""
	}
	eighths := int(math.Round(v / top * barWidth * 8))
	const parts = " ▏▎▍▌▋▊▉"
	full, rest := eighths/8, eighths%8
	s := strings.Repeat("█", full)
	if rest > 0 {
		s += string([]rune(parts)[rest])
	}
	return s
}
