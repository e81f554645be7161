package prom_test

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/ruledocs"
	"github.com/schedoctor/schedoctor/live/prom"
)

// The mixin (live/prom/mixin/*.yml) is generated here from the rules'
// thresholds, as internal/ruledocs joins them from the sources that
// compare with them (live's Options defaults, procs' and the other
// sources' constants): each number is written once, in the code that
// judges with it, and the YAML follows. TestMixinUpToDate fails when the
// committed files differ from what this generates;
//
//	go test ./live/prom -run TestMixinUpToDate -update
//
// rewrites them. scripts/mixin-test.sh checks them with the real promtool.
var update = flag.Bool("update", false, "rewrite live/prom/mixin/*.yml from the rules' thresholds")

// runbookBase is where an alert's runbook_url points: the rule's page in
// this repository. A fork or a mirror changes this one line and runs
// -update.
const runbookBase = "https://github.com/schedoctor/schedoctor/blob/main/docs/rules/"

// podLabels are the labels that name a container in Kubernetes, the ones
// the service's own series and those of cAdvisor (kubelet's
// /metrics/cadvisor) and kube-state-metrics share when the service is
// scraped through the Prometheus Operator's PodMonitor or ServiceMonitor
// (or the usual kubernetes_sd relabelling): the alerts that need the
// cgroup's figures, which the live monitor does not read, join on them.
const podLabels = "namespace, pod, container"

// promRule is one recording or alert rule, in the Prometheus rule-file
// format.
type promRule struct {
	record, alert, expr, forDur string
	severity                    string
	rule                        string // the schedoctor rule the runbook is, for an alert
	summary, description        string
}

type ruleGroup struct {
	name  string
	rules []promRule
}

// thresholds reads the rules' thresholds (their values as the rule pages
// show them) and converts them back to the units PromQL compares in.
type thresholds struct {
	t   *testing.T
	got map[string][]finding.Threshold
}

// value returns the threshold of rule whose name is name and whose
// meaning starts with meaning, in seconds, a fraction (for %) or as is.
func (th thresholds) value(rule, name, meaning string) float64 {
	th.t.Helper()
	ts, ok := th.got[rule]
	if !ok {
		r, found, err := ruledocs.Lookup(rule)
		if err != nil || !found {
			th.t.Fatalf("rule %s: %v (found %v)", rule, err, found)
		}
		ts = r.Thresholds
		th.got[rule] = ts
	}
	for _, x := range ts {
		if x.Name != name || !strings.HasPrefix(x.Meaning, meaning) {
			continue
		}
		switch x.Unit {
		case "%":
			return x.Value / 100
		case "min":
			return x.Value * 60
		case "s", "", "×", "/s":
			return x.Value
		case "ms":
			return x.Value / 1e3
		case "µs":
			return x.Value / 1e6
		}
		th.t.Fatalf("%s threshold %q: unit %q not converted", rule, name, x.Unit)
	}
	th.t.Fatalf("%s has no threshold %q meaning %q…: the mixin reads it (renamed?); thresholds: %+v", rule, name, meaning, ts)
	return 0
}

// num writes a threshold without float noise (0.01 × 10 × 1e3 is
// 100.00000000000001).
func num(v float64) string { return strconv.FormatFloat(math.Round(v*1e9)/1e9, 'g', -1, 64) }

// dur writes seconds as a Prometheus duration ("5m", "10s", "1.5s" is not
// one: whole seconds are).
func dur(s float64) string {
	if s >= 60 && int(s)%60 == 0 {
		return strconv.Itoa(int(s)/60) + "m"
	}
	return strconv.Itoa(int(s)) + "s"
}

// ms writes seconds as milliseconds for a person.
func ms(s float64) string { return num(s*1e3) + "ms" }

func pct(f float64) string { return num(f*100) + "%" }

// mixin is the rule groups: recording rules, then alerts.
func mixin(t *testing.T) (recording, alerts []ruleGroup) {
	th := thresholds{t: t, got: map[string][]finding.Threshold{}}
	// SD702 and the snapshot trigger: live's Options defaults.
	latP99 := th.value("SD702", "p99 scheduling latency, whole 95% interval above (Options.LatencyP99)", "reported")
	latCrit := th.value("SD702", "interval's low end over that threshold", "critical")
	minSamples := th.value("SD702", "sampled transitions in the span (Options.MinLatencySamples)", "needed")
	runPerP := th.value("SD702", "runnable goroutines per GOMAXPROCS at a reading (Options.RunnablePerP)", "a flight-recorder snapshot")
	window := th.value("SD701", "live monitor's window (Options.Window), cut into quarters", "judged")
	gGrowth := th.value("SD701", "rise of the lowest waiting goroutines over the quarters (Options.GoroutineGrowth)", "reported")
	tGrowth := th.value("SD703", "rise of the lowest thread counts over the quarters (Options.ThreadGrowth)", "reported")
	// The host's: procs' constants.
	over := th.value("SD401", "GOMAXPROCS over the CPUs available (rounded up)", "critical")
	minPeriods := th.value("SD404", "CFS periods", "needed")
	thrWarn := th.value("SD404", "periods throttled", "warning")
	thrCrit := th.value("SD404", "periods throttled", "critical")
	psi := th.value("SD406", "own cgroup's cpu.pressure some avg60", "warning")
	// schedtrace's and contention's.
	churn := th.value("SD313", "goroutine starts per second per P", "reported")
	waiters := th.value("SD309", "waiters on average at one site of a mutex or block profile", "reported")

	const (
		p99       = "instance:schedoctor_sched_latencies_seconds:p99_rate5m"
		sampled   = "instance:schedoctor_sched_latencies_seconds_count:increase5m"
		jobP99    = "job:schedoctor_sched_latencies_seconds:p99_rate5m"
		runnable  = "instance:schedoctor_runnable_per_p_mean:avg5m"
		throttled = "namespace_pod_container:container_cpu_cfs_throttled_periods:ratio_rate5m"
		periods   = "namespace_pod_container:container_cpu_cfs_periods:increase5m"
		pressure  = "namespace_pod_container:container_pressure_cpu_waiting:ratio_rate5m"
		cpuLimit  = "namespace_pod_container:kube_pod_container_resource_limits_cpu:ceil"
	)
	// goContainer keeps a container's series only where it runs a Go
	// program that exports GOMAXPROCS (client_golang's Go collector): the
	// host's alerts here are about Go services, and kubernetes-mixin
	// already covers every container.
	goContainer := fmt.Sprintf("\nand on (%s)\ngroup by (%s) (go_sched_gomaxprocs_threads)", podLabels, podLabels)

	recording = []ruleGroup{{name: "schedoctor.rules", rules: []promRule{
		{record: p99, expr: "histogram_quantile(0.99, rate(schedoctor_sched_latencies_seconds_bucket[5m]))"},
		{record: sampled, expr: "increase(schedoctor_sched_latencies_seconds_count[5m])"},
		{record: jobP99, expr: "histogram_quantile(0.99,\n  sum by (job, go_version, le) (rate(schedoctor_sched_latencies_seconds_bucket[5m]))\n)"},
		{record: runnable, expr: "avg_over_time(schedoctor_runnable_per_p_mean[5m])"},
		{record: throttled, expr: "increase(container_cpu_cfs_throttled_periods_total{container!=\"\"}[5m])\n/\nincrease(container_cpu_cfs_periods_total{container!=\"\"}[5m])"},
		{record: periods, expr: "increase(container_cpu_cfs_periods_total{container!=\"\"}[5m])"},
		{record: pressure, expr: "rate(container_pressure_cpu_waiting_seconds_total{container!=\"\"}[5m])"},
		{record: cpuLimit, expr: fmt.Sprintf("max by (%s) (ceil(kube_pod_container_resource_limits{resource=\"cpu\", unit=\"core\"}))", podLabels)},
	}}}

	gomaxprocsAbove := fmt.Sprintf("go_sched_gomaxprocs_threads\n  > on (%s) group_left ()\nclamp_min(%s, 2)", podLabels, cpuLimit)
	alerts = []ruleGroup{{name: "schedoctor.alerts", rules: []promRule{
		{
			alert: "SchedoctorSchedLatencyP99High", rule: "SD702", severity: "warning", forDur: "5m",
			expr:    fmt.Sprintf("%s > %s\nand\n%s >= %s", p99, num(latP99), sampled, num(minSamples)),
			summary: "p99 scheduling latency {{ $value | humanizeDuration }} on {{ $labels.instance }}",
			description: fmt.Sprintf("Goroutines of {{ $labels.instance }} waited more than %s from runnable to running at the 99th percentile "+
				"over 5m (schedoctor_sched_latencies_seconds, %s sampled transitions at least). Threshold: the live monitor's "+
				"Options.LatencyP99 (SD702). Its cause is queued work, GC pauses, or a host that withholds CPU: see the runbook.",
				ms(latP99), num(minSamples)),
		},
		{
			alert: "SchedoctorSchedLatencyP99High", rule: "SD702", severity: "critical", forDur: "5m",
			expr:    fmt.Sprintf("%s > %s\nand\n%s >= %s", p99, num(latP99*latCrit), sampled, num(minSamples)),
			summary: "p99 scheduling latency {{ $value | humanizeDuration }} on {{ $labels.instance }}",
			description: fmt.Sprintf("The 99th-percentile scheduling latency of {{ $labels.instance }} is above %s over 5m: %s times "+
				"the live monitor's Options.LatencyP99, where SD702 is critical.", ms(latP99*latCrit), num(latCrit)),
		},
		{
			alert: "SchedoctorRunnablePerPHigh", rule: "SD302", severity: "warning", forDur: "5m",
			expr:    fmt.Sprintf("%s > %s", runnable, num(runPerP)),
			summary: "{{ $value | printf \"%.1f\" }} runnable goroutines per P on {{ $labels.instance }}",
			description: fmt.Sprintf("More than %s goroutines per P (GOMAXPROCS) waited in run queues on average over 5m "+
				"(schedoctor_runnable_per_p_mean): more work than Ps. %s per P is the live monitor's Options.RunnablePerP, "+
				"where it takes a flight-recorder snapshot; the snapshot's trace says whose goroutines queue.", num(runPerP), num(runPerP)),
		},
		{
			alert: "SchedoctorCFSThrottling", rule: "SD404", severity: "warning", forDur: "15m",
			expr:    fmt.Sprintf("(\n%s >= %s\nand\n%s >= %s\n)%s", throttled, num(thrWarn), periods, num(minPeriods), goContainer),
			summary: "{{ $value | humanizePercentage }} of CFS periods throttled in {{ $labels.namespace }}/{{ $labels.pod }}/{{ $labels.container }}",
			description: fmt.Sprintf("The container's CFS quota stopped its threads in %s of its periods or more over 5m "+
				"(cAdvisor's container_cpu_cfs_*; %s periods at least): each time, every goroutine waits for the next period. "+
				"Thresholds: SD404's (warning %s, critical %s).", pct(thrWarn), num(minPeriods), pct(thrWarn), pct(thrCrit)),
		},
		{
			alert: "SchedoctorCFSThrottling", rule: "SD404", severity: "critical", forDur: "15m",
			expr:    fmt.Sprintf("(\n%s >= %s\nand\n%s >= %s\n)%s", throttled, num(thrCrit), periods, num(minPeriods), goContainer),
			summary: "{{ $value | humanizePercentage }} of CFS periods throttled in {{ $labels.namespace }}/{{ $labels.pod }}/{{ $labels.container }}",
			description: fmt.Sprintf("The container's CFS quota stopped its threads in %s of its periods or more over 5m: "+
				"SD404's critical threshold.", pct(thrCrit)),
		},
		{
			alert: "SchedoctorCPUPressure", rule: "SD406", severity: "warning", forDur: "10m",
			expr:    fmt.Sprintf("%s >= %s%s", pressure, num(psi), goContainer),
			summary: "a task of {{ $labels.namespace }}/{{ $labels.pod }}/{{ $labels.container }} waited for a CPU {{ $value | humanizePercentage }} of the time",
			description: fmt.Sprintf("The container's cgroup CPU pressure (PSI some, cAdvisor's container_pressure_cpu_waiting_seconds_total) "+
				"is %s or more over 5m: SD406's threshold on cpu.pressure some avg60. PSI counts the process's own wake-up "+
				"waits too; `schedoctor procs` in the container tells them from CPU shortage.", pct(psi)),
		},
		{
			alert: "SchedoctorGOMAXPROCSAboveQuota", rule: "SD401", severity: "warning", forDur: "5m",
			expr:    gomaxprocsAbove,
			summary: "GOMAXPROCS {{ $value }} above the CPU limit of {{ $labels.namespace }}/{{ $labels.pod }}/{{ $labels.container }}",
			description: "GOMAXPROCS (go_sched_gomaxprocs_threads) is above the container's CPU limit rounded up " +
				"(kube-state-metrics' kube_pod_container_resource_limits) and above 2, the least Go 1.25's container-aware " +
				"default keeps: more Ps than CPUs run, and the quota throttles them (SD401; critical from " + num(over) + "× the limit).",
		},
		{
			alert: "SchedoctorGOMAXPROCSAboveQuota", rule: "SD401", severity: "critical", forDur: "5m",
			expr: fmt.Sprintf("%s\nand on (%s)\ngo_sched_gomaxprocs_threads\n  >= on (%s) group_left ()\n%s * %s",
				gomaxprocsAbove, podLabels, podLabels, num(over), cpuLimit),
			summary:     "GOMAXPROCS {{ $value }} is " + num(over) + "× or more the CPU limit of {{ $labels.namespace }}/{{ $labels.pod }}/{{ $labels.container }}",
			description: "GOMAXPROCS is at least " + num(over) + " times the container's CPU limit rounded up: SD401's critical threshold.",
		},
		{
			alert: "SchedoctorGoroutineChurn", rule: "SD313", severity: "info", forDur: "15m",
			expr:    fmt.Sprintf("avg_over_time(schedoctor_goroutines_created_per_second[5m])\n  / go_sched_gomaxprocs_threads\n>= %s", num(churn)),
			summary: "{{ $value | printf \"%.0f\" }} goroutines created per second per P on {{ $labels.instance }}",
			description: fmt.Sprintf("The program creates %s goroutines a second per P or more (schedoctor_goroutines_created_per_second): "+
				"SD313's rate of goroutine starts. It is info, as SD313 is: a server that starts one per request looks the same "+
				"as a poll loop; a CPU profile (`schedoctor check`) tells them apart.", num(churn)),
		},
		{
			alert: "SchedoctorThreadGrowth", rule: "SD703", severity: "warning", forDur: "5m",
			expr:    "schedoctor_findings{rule=\"SD703\"} > 0",
			summary: "OS threads keep growing on {{ $labels.instance }}",
			description: fmt.Sprintf("The live monitor reports SD703: the lowest thread count rose in every quarter of its window "+
				"(Options.Window, %s), by %s threads at least (Options.ThreadGrowth). Threads blocked in syscalls or cgo "+
				"calls are added and not released.", dur(window), num(tGrowth)),
		},
		{
			alert: "SchedoctorGoroutineLeak", rule: "SD701", severity: "warning", forDur: "5m",
			expr:    "schedoctor_findings{rule=\"SD701\"} > 0",
			summary: "waiting goroutines keep growing on {{ $labels.instance }}",
			description: fmt.Sprintf("The live monitor reports SD701: the lowest count of waiting goroutines rose in every quarter "+
				"of its window (Options.Window, %s), by %s at least (Options.GoroutineGrowth). Two goroutine dumps a minute "+
				"apart (`schedoctor goroutines`) name where they wait and who started them.", dur(window), num(gGrowth)),
		},
		{
			alert: "SchedoctorMutexWait", rule: "SD309", severity: "info", forDur: "15m",
			expr:    fmt.Sprintf("avg_over_time(schedoctor_mutex_wait_seconds_per_second[5m]) >= %s", num(waiters)),
			summary: "{{ $value | printf \"%.2f\" }} goroutines waiting on sync.Mutex on average on {{ $labels.instance }}",
			description: fmt.Sprintf("Goroutines waited on sync.Mutex and RWMutex %s seconds per second or more over 5m "+
				"(schedoctor_mutex_wait_seconds_per_second, the mean number waiting). SD309 reports one lock site at %s "+
				"waiters: this is the whole process, so it is info until a mutex profile (`schedoctor contention`) names the site.",
				num(waiters), num(waiters)),
		},
	}}}
	return recording, alerts
}

// yamlString quotes s for YAML: Go's quoting of printable text is a
// valid YAML double-quoted scalar (\" \\ \n and UTF-8 as is).
func yamlString(s string) string { return strconv.Quote(s) }

func writeGroups(b *bytes.Buffer, what string, groups []ruleGroup) {
	fmt.Fprintf(b, "# schedoctor mixin: %s.\n# Generated by `go test ./live/prom -run TestMixinUpToDate -update` "+
		"(live/prom/mixin_test.go) from the rules' thresholds; do not edit. docs/live.md says what each rule means.\n", what)
	b.WriteString("groups:\n")
	for _, g := range groups {
		fmt.Fprintf(b, "  - name: %s\n    rules:\n", g.name)
		for _, r := range g.rules {
			if r.record != "" {
				fmt.Fprintf(b, "      - record: %s\n", r.record)
			} else {
				fmt.Fprintf(b, "      - alert: %s\n", r.alert)
			}
			b.WriteString("        expr: |-\n")
			for _, line := range strings.Split(r.expr, "\n") {
				fmt.Fprintf(b, "          %s\n", line)
			}
			if r.alert == "" {
				continue
			}
			fmt.Fprintf(b, "        for: %s\n", r.forDur)
			fmt.Fprintf(b, "        labels:\n          severity: %s\n", r.severity)
			b.WriteString("        annotations:\n")
			fmt.Fprintf(b, "          summary: %s\n", yamlString(r.summary))
			fmt.Fprintf(b, "          description: %s\n", yamlString(r.description))
			fmt.Fprintf(b, "          runbook_url: %s\n", yamlString(runbookBase+r.rule+".md"))
		}
	}
}

func generated(t *testing.T) map[string][]byte {
	recording, alerts := mixin(t)
	var rec, al bytes.Buffer
	writeGroups(&rec, "recording rules", recording)
	writeGroups(&al, "alert rules (they read the recording rules of rules.yml: load both)", alerts)
	return map[string][]byte{"rules.yml": rec.Bytes(), "alerts.yml": al.Bytes()}
}

// TestMixinUpToDate: the committed mixin is what the thresholds generate.
func TestMixinUpToDate(t *testing.T) {
	for name, want := range generated(t) {
		path := filepath.Join("mixin", name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./live/prom -run TestMixinUpToDate -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the thresholds generate: run go test ./live/prom -run TestMixinUpToDate -update", path)
		}
	}
}

// TestMixinNamesExportedMetrics: every schedoctor_ metric the mixin reads
// is one the collector describes (with a histogram's suffixes), and every
// alert has a rule page to be its runbook.
func TestMixinNamesExportedMetrics(t *testing.T) {
	ch := make(chan *prometheus.Desc, 100)
	prom.NewCollector(nil).Describe(ch)
	close(ch)
	var names []string
	fq := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range ch {
		m := fq.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("no name in %s", d)
		}
		names = append(names, m[1])
	}
	recording, alerts := mixin(t)
	metric := regexp.MustCompile(`\bschedoctor_[a-z0-9_]+`)
	for _, g := range slices.Concat(recording, alerts) {
		for _, r := range g.rules {
			for _, n := range metric.FindAllString(r.expr, -1) {
				base := n
				for _, suf := range []string{"_bucket", "_count", "_sum"} {
					if s, ok := strings.CutSuffix(n, suf); ok && slices.Contains(names, s) {
						base = s
					}
				}
				if !slices.Contains(names, base) {
					t.Errorf("%s%s reads %s, which live/prom does not export", r.record, r.alert, n)
				}
			}
			if r.alert == "" {
				continue
			}
			if _, ok := finding.Lookup(r.rule); !ok {
				t.Errorf("alert %s: runbook rule %q is not in the catalog", r.alert, r.rule)
			}
			if _, err := os.Stat(filepath.Join("..", "..", "docs", "rules", r.rule+".md")); err != nil {
				t.Errorf("alert %s: runbook page: %v", r.alert, err)
			}
			if r.forDur == "" || r.summary == "" || r.description == "" ||
				!slices.Contains([]string{"info", "warning", "critical"}, r.severity) {
				t.Errorf("alert %s: for %q severity %q, summary and description needed", r.alert, r.forDur, r.severity)
			}
		}
	}
}
