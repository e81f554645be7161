package blocking

import "go/types"

// pure lists standard packages none of whose functions or methods parks
// the goroutine, as long as it calls no code of the caller's: a function
// of these packages taking a func or a (non-empty) interface parameter, or
// a method of an interface, may call anything and is not covered
// (strings.Map, sort.Sort, bytes.Buffer.ReadFrom).
var pure = map[string]bool{
	"bytes": true, "cmp": true, "container/list": true, "container/ring": true,
	"encoding/base64": true, "encoding/binary": true, "encoding/hex": true,
	"errors": true, "hash/crc32": true, "hash/crc64": true, "hash/fnv": true, "hash/maphash": true,
	"maps": true, "math": true, "math/bits": true, "math/cmplx": true,
	"path": true, "regexp": true, "slices": true, "sort": true, "strconv": true, "strings": true,
	"sync/atomic": true, "unicode": true, "unicode/utf16": true, "unicode/utf8": true,
}

// polling lists standard packages whose every function reads or writes
// state that another goroutine may change, without blocking.
var polling = map[string]bool{"sync/atomic": true}

// known lists single functions and methods of the standard library, keyed
// "pkg.Func" or "pkg.Type.Method", with what a call of them does.
var known = map[string]Fact{
	// Formatting into memory: String and Error methods are called through
	// interfaces, but a String method that blocks is not a thing.
	"fmt.Sprintf": {Kind: NeverBlocks}, "fmt.Sprint": {Kind: NeverBlocks}, "fmt.Sprintln": {Kind: NeverBlocks},
	"fmt.Errorf": {Kind: NeverBlocks}, "fmt.Appendf": {Kind: NeverBlocks}, "fmt.Append": {Kind: NeverBlocks},
	"fmt.Appendln": {Kind: NeverBlocks},
	"errors.Is":    {Kind: NeverBlocks}, "errors.As": {Kind: NeverBlocks}, "errors.Join": {Kind: NeverBlocks},

	"math/rand.Int": {Kind: NeverBlocks}, "math/rand.Intn": {Kind: NeverBlocks}, "math/rand.Int63": {Kind: NeverBlocks},
	"math/rand.Int63n": {Kind: NeverBlocks}, "math/rand.Int31n": {Kind: NeverBlocks}, "math/rand.Float64": {Kind: NeverBlocks},
	"math/rand.Uint32": {Kind: NeverBlocks}, "math/rand.Uint64": {Kind: NeverBlocks},
	"math/rand/v2.Int": {Kind: NeverBlocks}, "math/rand/v2.IntN": {Kind: NeverBlocks}, "math/rand/v2.N": {Kind: NeverBlocks},
	"math/rand/v2.Int64": {Kind: NeverBlocks}, "math/rand/v2.Int64N": {Kind: NeverBlocks}, "math/rand/v2.Uint64": {Kind: NeverBlocks},
	"math/rand/v2.Uint32": {Kind: NeverBlocks}, "math/rand/v2.Float64": {Kind: NeverBlocks},

	"time.Now": {Kind: NeverBlocks}, "time.Since": {Kind: NeverBlocks}, "time.Until": {Kind: NeverBlocks},
	"time.Unix": {Kind: NeverBlocks}, "time.UnixMilli": {Kind: NeverBlocks}, "time.ParseDuration": {Kind: NeverBlocks},
	"time.Time.Before": {Kind: NeverBlocks}, "time.Time.After": {Kind: NeverBlocks}, "time.Time.Equal": {Kind: NeverBlocks},
	"time.Time.Sub": {Kind: NeverBlocks}, "time.Time.Add": {Kind: NeverBlocks}, "time.Time.IsZero": {Kind: NeverBlocks},
	"time.Time.Unix": {Kind: NeverBlocks}, "time.Time.UnixNano": {Kind: NeverBlocks}, "time.Time.UnixMilli": {Kind: NeverBlocks},
	"time.Time.Compare":     {Kind: NeverBlocks},
	"time.Duration.Seconds": {Kind: NeverBlocks}, "time.Duration.Milliseconds": {Kind: NeverBlocks},
	"time.Duration.Microseconds": {Kind: NeverBlocks}, "time.Duration.String": {Kind: NeverBlocks},
	"time.Timer.Stop": {Kind: NeverBlocks}, "time.Timer.Reset": {Kind: NeverBlocks},
	"time.Ticker.Stop": {Kind: NeverBlocks}, "time.Ticker.Reset": {Kind: NeverBlocks},
	"time.NewTimer": {Kind: NeverBlocks}, "time.NewTicker": {Kind: NeverBlocks}, "time.After": {Kind: NeverBlocks},

	"runtime.Gosched": {Kind: NeverBlocks}, "runtime.NumGoroutine": {Kind: NeverBlocks},
	"runtime.NumCPU": {Kind: NeverBlocks}, "runtime.KeepAlive": {Kind: NeverBlocks},
	"runtime.Caller": {Kind: NeverBlocks}, "runtime.Callers": {Kind: NeverBlocks},

	// sync: releasing never parks; TryLock polls; Pool never waits.
	"sync.Mutex.Unlock": {Kind: NeverBlocks}, "sync.RWMutex.Unlock": {Kind: NeverBlocks},
	"sync.RWMutex.RUnlock": {Kind: NeverBlocks},
	"sync.Mutex.TryLock":   {Kind: NeverBlocks, Polls: true}, "sync.RWMutex.TryLock": {Kind: NeverBlocks, Polls: true},
	"sync.RWMutex.TryRLock": {Kind: NeverBlocks, Polls: true},
	"sync.WaitGroup.Add":    {Kind: NeverBlocks}, "sync.WaitGroup.Done": {Kind: NeverBlocks},
	"sync.Cond.Signal": {Kind: NeverBlocks}, "sync.Cond.Broadcast": {Kind: NeverBlocks},
	"sync.Pool.Get": {Kind: NeverBlocks}, "sync.Pool.Put": {Kind: NeverBlocks},

	"context.Background": {Kind: NeverBlocks}, "context.TODO": {Kind: NeverBlocks},
	"context.WithValue": {Kind: NeverBlocks},
	// A request's context is a field read: `case <-r.Context().Done()` waits
	// on the channel, not in the call. In a typed run the facts computed
	// from net/http say so too; a lenient check (lint/inspect on a lone
	// file) has only this table.
	"net/http.Request.Context": {Kind: NeverBlocks}, "net/http.Request.WithContext": {Kind: NeverBlocks},

	// Known to park the goroutine on every call (or nearly).
	"time.Sleep": {Kind: Blocks}, "sync.Mutex.Lock": {Kind: Blocks}, "sync.RWMutex.Lock": {Kind: Blocks},
	"sync.RWMutex.RLock": {Kind: Blocks}, "sync.WaitGroup.Wait": {Kind: Blocks}, "sync.Cond.Wait": {Kind: Blocks},
	"sync.Once.Do": {Kind: MayBlock},
}

// stdFact answers for a function of the standard library from the table;
// ok is false when the table does not know it.
func stdFact(fn *types.Func) (Fact, bool) {
	pkg := fn.Pkg().Path()
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil {
		return Fact{}, false
	}
	key := pkg + "." + fn.Name()
	if recv := sig.Recv(); recv != nil {
		t := recv.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		named, ok := types.Unalias(t).(*types.Named)
		if !ok {
			return Fact{}, false
		}
		if types.IsInterface(named) {
			return Fact{}, false // dynamic: anything may implement it
		}
		key = pkg + "." + named.Obj().Name() + "." + fn.Name()
	}
	if f, ok := known[key]; ok {
		return f, true
	}
	if pure[pkg] {
		if callsBack(sig) {
			return Fact{Kind: MayBlock}, true
		}
		return Fact{Kind: NeverBlocks, Polls: polling[pkg]}, true
	}
	return Fact{}, false
}

// callsBack reports whether a function of this signature can run the
// caller's code: it takes a func, or an interface with methods (io.Reader,
// sort.Interface), as a parameter.
func callsBack(sig *types.Signature) bool {
	params := sig.Params()
	for i := range params.Len() {
		t := params.At(i).Type()
		if s, ok := t.(*types.Slice); ok && sig.Variadic() && i == params.Len()-1 {
			t = s.Elem()
		}
		switch u := t.Underlying().(type) {
		case *types.Signature:
			return true
		case *types.Interface:
			if u.NumMethods() > 0 {
				return true
			}
		}
	}
	return false
}
