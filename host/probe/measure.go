package probe

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/internal/sysread"
)

// measure samples the server and the host's TCP.
func measure(ctx context.Context, opt Options, procDir string) (Sample, error) {
	s := Sample{HeapInuseBytes: -1, StackInuseBytes: -1, Goroutines: -1}
	// The pprof handlers allocate as they answer: ask them first, so that
	// both RSS readings come after an answer and the handler's own growth
	// is not counted as the connections'.
	if opt.PprofURL != "" {
		if err := pprofFigures(ctx, opt.PprofURL, &s); err != nil {
			return s, err
		}
	}
	status, err := sysread.File("/", procDir+"/status", 0)
	if err != nil {
		return s, fmt.Errorf("reading the server's status: %w", err)
	}
	var ok bool
	if s.RSSBytes, ok = statusKB(status, "VmRSS:"); !ok {
		return s, fmt.Errorf("%s/status has no VmRSS (a kernel thread, or the process exited)", procDir)
	}
	s.RssAnonBytes, _ = statusKB(status, "RssAnon:")
	s.VmDataBytes, _ = statusKB(status, "VmData:")
	if s.FDs, err = countFDs(procDir); err != nil {
		return s, fmt.Errorf("counting the server's descriptors: %w", err)
	}
	if data, err := sysread.File("/", "/proc/net/sockstat", 0); err == nil {
		for line := range strings.Lines(string(data)) {
			if rest, ok := strings.CutPrefix(line, "TCP:"); ok {
				f := strings.Fields(rest)
				for i := 0; i+1 < len(f); i += 2 {
					v, _ := strconv.ParseInt(f[i+1], 10, 64)
					switch f[i] {
					case "mem":
						s.TCPMemPages = v
					case "inuse":
						s.TCPInUse = v
					}
				}
			}
		}
	}
	return s, nil
}

func statusKB(data []byte, key string) (int64, bool) {
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0, false
			}
			v, err := strconv.ParseInt(f[0], 10, 64)
			return v * 1024, err == nil
		}
	}
	return 0, false
}

// pprofFigures reads the runtime.MemStats block that /debug/pprof/heap?debug=1
// ends with (after a GC, gc=1, so garbage does not count) and the total of
// /debug/pprof/goroutine?debug=1.
func pprofFigures(ctx context.Context, base string, s *Sample) error {
	base = strings.TrimRight(base, "/")
	heap, err := get(ctx, base+"/debug/pprof/heap?debug=1&gc=1")
	if err != nil {
		return err
	}
	for line := range strings.Lines(string(heap)) {
		if v, ok := memStat(line, "# HeapInuse = "); ok {
			s.HeapInuseBytes = v
		}
		// "# Stack = StackInuse / StackSys"
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "# Stack = "); ok {
			inuse, _, _ := strings.Cut(rest, "/")
			if v, err := strconv.ParseInt(strings.TrimSpace(inuse), 10, 64); err == nil {
				s.StackInuseBytes = v
			}
		}
	}
	if s.HeapInuseBytes < 0 || s.StackInuseBytes < 0 {
		return fmt.Errorf("%s/debug/pprof/heap?debug=1 has no \"# HeapInuse\" or \"# Stack\" line (not a Go net/http/pprof handler?)", base)
	}
	g, err := get(ctx, base+"/debug/pprof/goroutine?debug=1")
	if err != nil {
		return err
	}
	first, _, _ := bytes.Cut(g, []byte("\n"))
	if v, ok := strings.CutPrefix(string(first), "goroutine profile: total "); ok {
		s.Goroutines, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	}
	return nil
}

func memStat(line, prefix string) (int64, bool) {
	v, ok := strings.CutPrefix(strings.TrimSpace(line), strings.TrimSpace(prefix)+" ")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	return n, err == nil
}

// get fetches one pprof page through httpfetch, so that -pprof follows
// the one redirect rule, deadline and idle limit of every fetch.
func get(ctx context.Context, raw string) ([]byte, error) {
	u, err := httpfetch.ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("pprof URL: %w", err)
	}
	resp, err := httpfetch.Get(ctx, u, httpfetch.Options{Timeout: 30 * time.Second, Limit: 64 << 20, Expect: "/debug/pprof/heap or /goroutine", What: "a pprof page"})
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	data, truncated, err := sysread.Reader(resp.Body, resp.Name, 64<<20)
	if err = resp.Err(err); err != nil {
		return nil, fmt.Errorf("reading %s: %w", resp.Name, err)
	}
	if truncated {
		return nil, fmt.Errorf("reading %s: more than 64 MiB", resp.Name)
	}
	return data, nil
}

// SocketObjects is the kernel memory of one accepted TCP socket from this
// kernel's slab object sizes (/proc/slabinfo, readable by root): the socket
// (TCP or TCPv6), its inode (sock_inode_cache), the file and dentry behind
// the descriptor, and the epoll item and wait-queue entry Go's netpoller
// adds. Object sizes are exact where a delta of active objects would be
// noise from the rest of the host; buffers are added from sockstat. root
// is the sysroot ("/" for the live system).
func SocketObjects(root string, v6 bool) (float64, string) {
	tcp := "TCP"
	if v6 {
		tcp = "TCPv6"
	}
	names := []string{tcp, "sock_inode_cache", "filp", "dentry", "eventpoll_epi", "eventpoll_pwq"}
	data, err := sysread.File(root, "/proc/slabinfo", 0)
	if err != nil {
		// Not root, or slab merging hides the caches: the published figure.
		return 4096, "about 4 KiB assumed (published figure; /proc/slabinfo unreadable)"
	}
	sizes := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 4 {
			if v, err := strconv.ParseInt(f[3], 10, 64); err == nil {
				sizes[f[0]] = v
			}
		}
	}
	var total int64
	var parts []string
	for _, n := range names {
		if v, ok := sizes[n]; ok {
			total += v
			parts = append(parts, fmt.Sprintf("%s %d", n, v))
		}
	}
	if sizes[tcp] == 0 {
		return 4096, "about 4 KiB assumed (published figure; /proc/slabinfo has no " + tcp + " cache)"
	}
	return float64(total), "slab object sizes from /proc/slabinfo: " + strings.Join(parts, " + ") + fmt.Sprintf(" = %d bytes", total)
}
