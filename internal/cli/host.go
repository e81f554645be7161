package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/host"
	"github.com/schedoctor/schedoctor/host/probe"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "host", short: "can this host hold N connections, which limit bites first, what one costs; leaks (SD6xx)", order: 45, run: runHost})
}

// Bounds of the host flags.
const (
	maxHostConns  = 1 << 40
	maxProbeConns = 1_000_000
	maxWatch      = 10 * time.Minute
)

func runHost(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor host [-conns N] [-pid PID] [-dial] [-bytes-per-conn B | -probe ADDR | -model NAME] [-watch D] [-sysroot DIR] [-json] [-fail LEVEL]",
		`Answer "can this host hold N connections of this server, and which limit is hit first?".
Reads every limit that caps connections, each from its file: the process's RLIMIT_NOFILE
(/proc/PID/limits; the hard limit counts, Go raises the soft one to it), fs.nr_open,
fs.file-max (SD601), net.core.somaxconn and tcp_max_syn_backlog with the listeners' accept
queues (SD602), ip_local_port_range and tcp_tw_reuse for a process that dials (SD603),
nf_conntrack_max against nf_conntrack_count (SD604), obsolete or harmful settings such as
tcp_tw_recycle (SD605), fs.epoll.max_user_watches (SD606), tcp_mem with /proc/net/sockstat
and the memory available, the cgroup limit first, divided by the memory per connection
(SD607). The limits are listed in the order they bite, each with the lines that lift it.

Memory per connection is measured with -probe (N idle loopback connections to your server,
its RSS, Go heap and stacks via -pprof, and the kernel's socket memory, before and after;
every connection is closed afterwards), or with -model (the same probe against a built-in
model server: goroutine, bufio, http, tls, eventloop), or given with -bytes-per-conn;
otherwise it is assumed and said so. With -probe or -model, -conns is the number of
connections opened and -target the number the limits are judged against.

With -pid, the process's sockets are joined with its descriptors (/proc/PID/net/tcp{,6},
/proc/PID/fd): CLOSE_WAIT sockets piling up, by local port, and with -watch its descriptor
growth (SD608).

-sysroot reads /proc and /sys under DIR instead of the live system.`,
		"  schedoctor host -conns 1000000 -pid $(pidof server)\n"+
			"  schedoctor host -probe 127.0.0.1:8080 -pprof http://127.0.0.1:6060 -pid $(pidof server) -conns 5000 -target 1000000\n"+
			"  schedoctor host -model goroutine -conns 5000 -target 1000000\n"+
			"  schedoctor host -pid $(pidof proxy) -dial -dests 4 -conns 200000\n"+
			"  schedoctor host -pid $(pidof server) -watch 10s -conns 10000\n"+
			"  schedoctor host -json -sysroot ./snapshot -pid 4242 -conns 1000000")
	var out outputFlags
	out.register(fs, false)
	conns := fs.Int64("conns", 1_000_000, "the connections wanted (with -probe or -model: the connections opened)")
	target := fs.Int64("target", 0, "with -probe or -model, the connections the limits are judged against (default: -conns)")
	pid := fs.Int("pid", 0, "the server process `PID` (0: the current process's context)")
	sysroot := fs.String("sysroot", "/", "read /proc and /sys under `DIR`")
	dial := fs.Bool("dial", false, "the process dials the connections (a proxy, a client): check the ephemeral ports")
	dests := fs.Int("dests", 1, "with -dial, the distinct destination address:port pairs dialled")
	perConn := fs.Float64("bytes-per-conn", 0, "the server's memory per connection in `bytes`, when known")
	probeAddr := fs.String("probe", "", "measure the server listening on loopback `ADDR` (with -pid)")
	pprofURL := fs.String("pprof", "", "with -probe, the server's net/http/pprof base `URL` for Go heap, stacks and goroutines")
	model := fs.String("model", "", "measure a built-in model server: "+strings.Join(probe.Models, ", "))
	watch := fs.Duration("watch", 0, "with -pid on the live system, sample descriptors and CLOSE_WAIT sockets for `D` (up to 10m)")
	serveModel := fs.String("serve-model", "", "run the model server `NAME` until stdin closes (what -model starts)")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if *serveModel != "" {
		return e.serveModel(ctx, *serveModel)
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return e.usageError("unexpected arguments: %v", fs.Args())
	}
	probing := *probeAddr != "" || *model != ""
	switch {
	case *conns <= 0 || *conns > maxHostConns:
		return e.usageError("-conns %d: want 1 to %d", *conns, int64(maxHostConns))
	case probing && *conns > maxProbeConns:
		return e.usageError("-conns %d: the probe opens at most %d connections", *conns, maxProbeConns)
	case *target < 0 || *target > maxHostConns:
		return e.usageError("-target %d: want 1 to %d", *target, int64(maxHostConns))
	case *target > 0 && !probing:
		return e.usageError("-target is for -probe and -model; without them -conns is the target")
	case *pid < 0:
		return e.usageError("-pid %d: want a process ID", *pid)
	case *dests < 1 || *dests > 1<<20:
		return e.usageError("-dests %d: want 1 to %d", *dests, 1<<20)
	case math.IsNaN(*perConn) || math.IsInf(*perConn, 0) || *perConn < 0 || *perConn > 1<<30:
		return e.usageError("-bytes-per-conn %v: want 0 (unknown) to %d bytes", *perConn, 1<<30)
	case *perConn > 0 && probing:
		return e.usageError("-bytes-per-conn and -probe/-model both give the memory per connection: use one")
	case *probeAddr != "" && *model != "":
		return e.usageError("-probe measures your server, -model a built-in one: use one")
	case *probeAddr != "" && *pid == 0:
		return e.usageError("-probe needs -pid, the server's process ID, to measure it")
	case *pprofURL != "" && *probeAddr == "":
		return e.usageError("-pprof goes with -probe")
	case *pprofURL != "" && probe.CheckPprofURL(*pprofURL) != nil:
		return e.usageError("-pprof: %v", probe.CheckPprofURL(*pprofURL))
	case *model != "" && !slices.Contains(probe.Models, *model):
		return e.usageError("-model %q: want one of %s", *model, strings.Join(probe.Models, ", "))
	case *watch < 0 || *watch > maxWatch:
		return e.usageError("-watch %v: want 0 to %v", *watch, maxWatch)
	case *watch > 0 && *pid == 0:
		return e.usageError("-watch needs -pid")
	}
	opt := host.Options{Sysroot: *sysroot, PID: *pid, Conns: *conns, Dial: *dial, Destinations: *dests, Watch: *watch}
	if *target > 0 {
		opt.Conns = *target
	}
	var res *probe.Result
	switch {
	case *perConn > 0:
		kernel, how := probe.SocketObjects(*sysroot, false)
		opt.PerConn = &host.PerConn{ProcessBytes: *perConn, KernelBytes: kernel, Source: "-bytes-per-conn", Method: "process figure given; kernel: " + how}
	case probing:
		var err error
		res, err = e.runProbe(ctx, *probeAddr, *pprofURL, *model, *pid, int(*conns))
		if err != nil {
			return e.fail(err)
		}
		if err := notAccepting(res); err != nil {
			return e.fail(err)
		}
		proc, how := res.ProcessPerConn()
		if proc <= 0 {
			return e.fail(fmt.Errorf("the probe saw no memory growth over %d connections (RSS %d -> %d bytes): nothing to divide; try more connections",
				res.Opened, res.Before.RSSBytes, res.After.RSSBytes))
		}
		src := "probe"
		if *model != "" {
			src = "model " + *model
		}
		opt.PerConn = &host.PerConn{ProcessBytes: proc, KernelBytes: res.KernelPerConn, Source: src, Method: how + "; kernel: " + res.KernelObjects}
		if fds := math.Round(res.FDsPerConn); fds > 1 {
			opt.PerConn.Descriptors = fds
		}
	}
	s, err := host.InspectContext(ctx, opt)
	if err != nil {
		return e.fail(err)
	}
	s.Probe = res
	return e.emit(&out, report.Report{Source: finding.SourceHost, Findings: host.Findings(s), Summary: s})
}

// runProbe measures the user's server (-probe) or a model server started as
// a child of this program (-model), and closes every connection it opened.
func (e *Env) runProbe(ctx context.Context, addr, pprofURL, model string, pid, n int) (*probe.Result, error) {
	opt := probe.Options{Addr: addr, PID: pid, Conns: n, PprofURL: pprofURL}
	if model != "" {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding this program to start the model server: %w", err)
		}
		cmd := exec.CommandContext(ctx, self, "host", "-serve-model", model)
		cmd.Stderr = e.Stderr
		m, err := probe.StartModel(cmd)
		if err != nil {
			return nil, err
		}
		defer m.Stop()
		opt.Addr, opt.PID, opt.PprofURL, opt.TLS = m.Addr, m.PID, m.DebugURL, probe.ModelTLS(model)
	}
	return probe.Run(ctx, opt)
}

// serveModel is the child side of -model: serve until stdin closes (the
// parent stopped or died) or the context ends.
func (e *Env) serveModel(ctx context.Context, name string) int {
	if !slices.Contains(probe.Models, name) {
		return e.usageError("-serve-model %q: want one of %s", name, strings.Join(probe.Models, ", "))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if e.Stdin != nil {
		go func() {
			io.Copy(io.Discard, e.Stdin)
			cancel()
		}()
	}
	if err := probe.ServeModel(ctx, name, e.Stdout); err != nil {
		return e.fail(err)
	}
	return ExitClean
}

// notAccepting refuses a probe whose server took few of the connections
// the kernel completed for it (its accept loop stalled or stopped, or it
// closed them): its growth, if any, is not theirs, and more connections
// would not help.
func notAccepting(res *probe.Result) error {
	accepted := res.Accepted + res.ServerClosed
	if res.Opened > 0 && 2*accepted < res.Opened {
		return fmt.Errorf("the server took only %d of the %d connections the kernel completed for it (%d new descriptors, %d closed by the server): it is not accepting (a stalled or stopped accept loop, or a full backlog), so there is nothing to measure per connection; check that it serves at %s",
			accepted, res.Opened, res.Accepted, res.ServerClosed, res.Addr)
	}
	return nil
}
