//go:build unix

package browsertest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Flags are the flags every Chromium run gets: headless, no sandbox (the
// tests may run as root in a container), and none of the browser's own
// network traffic (updates, sync, safe browsing), so that any request the
// proxy sees comes from the page.
var Flags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
	"--no-pings", "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--no-default-browser-check",
	"--disable-breakpad", "--password-store=basic", "--use-mock-keychain", "--disable-search-engine-choice-screen",
	"--disable-features=NetworkTimeServiceQuerying,OptimizationHints,Translate,MediaRouter,DialMediaRouteProvider," +
		"AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,SafeBrowsing"}

// Find returns the Chromium binary: $SCHEDOCTOR_CHROMIUM, else the first
// of chromium, chromium-browser, google-chrome on PATH.
func Find() (string, error) {
	if p := os.Getenv("SCHEDOCTOR_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium, chromium-browser or google-chrome on PATH (scripts/browser-test.sh installs Debian's chromium)")
}

// Browser runs Chromium on pages with a fresh profile directory, its
// network sent to a proxy that records every request.
type Browser struct {
	Bin     string
	Profile string // --user-data-dir: fresh per test
	proxy   *recordingProxy
}

// NewBrowser starts the recording proxy on loopback.
func NewBrowser(bin, profileDir string) (*Browser, error) {
	p, err := startProxy()
	if err != nil {
		return nil, err
	}
	return &Browser{Bin: bin, Profile: profileDir, proxy: p}, nil
}

// Close stops the proxy.
func (b *Browser) Close() { b.proxy.close() }

// Requests returns the requests the proxy saw since the last call, less
// the browser's own (see Own).
func (b *Browser) Requests() (page, own []string) {
	for _, r := range b.proxy.take() {
		if Own(r) {
			own = append(own, r)
		} else {
			page = append(page, r)
		}
	}
	return page, own
}

// ownHosts are the services headless Chromium calls by itself whatever
// the flags (sign-in and Google's front page, seen here with Chromium 148):
// not the page's. A page's request to them is still caught by the
// page's security policy, which the tests check separately.
var ownHosts = []string{".google.com", ".googleapis.com", ".gstatic.com", ".gvt1.com", ".googleusercontent.com"}

// Own reports whether a proxied request line is the browser's own traffic.
func Own(line string) bool {
	f := strings.Fields(line)
	if len(f) < 2 {
		return false
	}
	target := f[1]
	if i := strings.Index(target, "://"); i >= 0 {
		target = target[i+3:]
	}
	host, _, _ := strings.Cut(target, "/")
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	for _, s := range ownHosts {
		if strings.HasSuffix("."+host, s) {
			return true
		}
	}
	return false
}

// Run runs Chromium on the page with extra flags, bounded by timeout, and
// returns its stdout and stderr.
func (b *Browser) Run(ctx context.Context, timeout time.Duration, page string, extra ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	abs, err := filepath.Abs(page)
	if err != nil {
		return "", "", err
	}
	args := append([]string{}, Flags...)
	args = append(args, "--user-data-dir="+b.Profile,
		// Every request goes to the recording proxy, even to loopback.
		"--proxy-server=http://"+b.proxy.addr(), "--proxy-bypass-list=<-loopback>",
		"--enable-logging=stderr", "--v=0")
	args = append(args, extra...)
	args = append(args, "file://"+abs)
	cmd := exec.CommandContext(ctx, b.Bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Kill the whole group: Chromium's helpers outlive the main process.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("chromium did not finish in %v: %w", timeout, ctx.Err())
	}
	return out.String(), errb.String(), err
}

// recordingProxy accepts HTTP proxy connections and records the first line
// of each request (CONNECT host:port for https), answering 403.
type recordingProxy struct {
	ln   net.Listener
	mu   sync.Mutex
	seen []string
	wg   sync.WaitGroup
}

func startProxy() (*recordingProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the recording proxy: %w", err)
	}
	p := &recordingProxy{ln: ln}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				line, _ := bufio.NewReader(c).ReadString('\n')
				if strings.TrimSpace(line) == "" {
					// A connection opened ahead of need (Chromium
					// preconnects) and closed unused: no request was made.
					return
				}
				p.mu.Lock()
				p.seen = append(p.seen, strings.TrimSpace(line))
				p.mu.Unlock()
				_, _ = c.Write([]byte("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
			}()
		}
	}()
	return p, nil
}

func (p *recordingProxy) addr() string { return p.ln.Addr().String() }

func (p *recordingProxy) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.seen
	p.seen = nil
	return s
}

func (p *recordingProxy) close() {
	p.ln.Close()
	p.wg.Wait()
}
