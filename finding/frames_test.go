package finding

import "testing"

func TestUserFunction(t *testing.T) {
	for fn, want := range map[string]bool{
		"main.bad.func1":                                 true,
		"main.(*ring).put":                               true,
		"github.com/x/y.(*T).M":                          true,
		"github.com/x/y/z.F.func2":                       true,
		"myapp/internal/queue.(*Q).Pop":                  true,
		"runtime.selectgo":                               false,
		"runtime._System":                                false,
		"runtime/internal/atomic.Load":                   false,
		"internal/runtime/syscall/linux.Syscall6":        false,
		"net/http.(*conn).serve":                         false,
		"testing.(*B).runN":                              false,
		"sync.(*Mutex).Lock":                             false,
		"vendor/golang.org/x/net/http2/hpack.(*D).Write": false,
		"time.Sleep":                                     false,
		"":                                               false,
		"selectgo":                                       false,
	} {
		if got := UserFunction(fn); got != want {
			t.Errorf("UserFunction(%q) = %v, want %v", fn, got, want)
		}
	}
}

func TestFuncPackage(t *testing.T) {
	for fn, want := range map[string]string{
		"main.bad.func1":             "main",
		"net/http.(*conn).serve":     "net/http",
		"github.com/x/y.(*T).M":      "github.com/x/y",
		"gopkg.in/yaml.v3.Unmarshal": "gopkg.in/yaml",
	} {
		if got := FuncPackage(fn); got != want {
			t.Errorf("FuncPackage(%q) = %q, want %q", fn, got, want)
		}
	}
}
