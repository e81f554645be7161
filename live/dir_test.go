package live_test

import (
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/live"
)

// TestRefusedDir (issue 19): a snapshot directory that others can write,
// that another user owns, or that is a link, is refused at Start: no
// flight recorder, nothing written there, and the state (and its JSON)
// says why.
func TestRefusedDir(t *testing.T) {
	base := t.TempDir()
	ww := filepath.Join(base, "ww")
	os.Mkdir(ww, 0o700)
	os.Chmod(ww, 0o1777) // like a directory another user made under /tmp for everyone
	gw := filepath.Join(base, "gw")
	os.Mkdir(gw, 0o700)
	os.Chmod(gw, 0o770)
	target := filepath.Join(base, "target")
	os.Mkdir(target, 0o700)
	link := filepath.Join(base, "link")
	os.Symlink(target, link)
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o600)
	cases := map[string]string{"world-writable": ww, "group-writable": gw, "link": link, "file": file}
	if os.Geteuid() == 0 {
		theirs := filepath.Join(base, "theirs")
		os.Mkdir(theirs, 0o700)
		if os.Chown(theirs, 65534, 65534) == nil {
			cases["another user's"] = theirs
		}
	} else {
		cases["another user's"] = "/"
	}
	for name, dir := range cases {
		t.Run(name, func(t *testing.T) {
			m, err := live.Start(t.Context(), live.Options{Interval: 50 * time.Millisecond, Dir: dir})
			if err != nil {
				t.Fatalf("Start: %v (a refused Dir is said in State, not an error)", err)
			}
			defer m.Stop()
			st := m.State()
			if st.DirRefused == "" || !strings.HasPrefix(st.FlightRecorder, "off") {
				t.Errorf("dir_refused %q, flight recorder %q: want the refusal said", st.DirRefused, st.FlightRecorder)
			}
			rec := httptest.NewRecorder()
			m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/debug/schedoctor/?format=json", nil))
			if !strings.Contains(rec.Body.String(), `"dir_refused"`) {
				t.Errorf("the JSON does not say the directory was refused")
			}
			if dir != "/" && dir != file {
				if ents, _ := os.ReadDir(dir); len(ents) > 0 {
					t.Errorf("%d files written into the refused directory", len(ents))
				}
			}
		})
	}
}

// TestSnapshotSwappedForLink: a snapshot the monitor lists, replaced by a
// link to a secret of the service's user, is not served.
func TestSnapshotSwappedForLink(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	os.Mkdir(dir, 0o700)
	secret := filepath.Join(t.TempDir(), "id_ed25519")
	os.WriteFile(secret, []byte("TOPSECRET key"), 0o600)
	name := "20261123T111500.123Z-runnable.trace"
	os.WriteFile(filepath.Join(dir, name), []byte("a trace"), 0o600) // left by an earlier run: listed
	m, err := live.Start(t.Context(), live.Options{Interval: 50 * time.Millisecond, Dir: dir, NoFlightRecorder: false})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	if st := m.State(); len(st.Snapshots) != 1 || st.DirRefused != "" {
		t.Fatalf("snapshots %+v, refused %q: want the earlier run's one listed", st.Snapshots, st.DirRefused)
	}
	get := func() (int, string) {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/debug/schedoctor/snapshots/"+name, nil))
		b, _ := io.ReadAll(rec.Body)
		return rec.Code, string(b)
	}
	if code, body := get(); code != 200 || body != "a trace" {
		t.Fatalf("the listed snapshot: %d %q", code, body)
	}
	os.Remove(filepath.Join(dir, name))
	os.Symlink(secret, filepath.Join(dir, name))
	if code, body := get(); strings.Contains(body, "TOPSECRET") || code == 200 {
		t.Errorf("after the swap the route answered %d %q", code, body)
	}
}
