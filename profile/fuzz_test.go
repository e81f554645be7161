package profile

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/pprof/profile"
)

// FuzzClassify feeds arbitrary bytes through the whole path: parse, check,
// classify, summarise, find, write the classified profile. It must never
// panic; errors are fine. The kept corpus (testdata/fuzz/FuzzClassify)
// holds small real lab profiles and near misses.
func FuzzClassify(f *testing.F) {
	for _, name := range []string{realCPU} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		res, err := Analyze([]*profile.Profile{p}, Options{})
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := res.Summary.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteClassified(&b); err != nil {
			t.Fatal(err)
		}
	})
}
