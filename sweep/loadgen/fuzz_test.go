package loadgen

import (
	"net"
	"testing"
)

// FuzzCheckURL: whatever CheckURL accepts is http on a loopback host.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080/x", "http://localhost/", "http://[::1]:1/", "http://example.com/", "http://[::ffff:127.0.0.1]/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := CheckURL(raw)
		if err != nil {
			return
		}
		if u.Scheme != "http" {
			t.Fatalf("%q: scheme %q accepted", raw, u.Scheme)
		}
		if h := u.Hostname(); h != "localhost" {
			if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
				t.Fatalf("%q: host %q accepted", raw, h)
			}
		}
	})
}
