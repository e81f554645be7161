package finding

import "strings"

// stdRoots are the first elements of the standard library's import paths
// (Go 1.26). A package path with no dot in its first element is the
// standard library's only when that element is one of these: "myapp/x" is a
// module of the user's that was never given a domain.
var stdRoots = map[string]bool{
	"archive": true, "bufio": true, "builtin": true, "bytes": true, "cmp": true, "compress": true,
	"container": true, "context": true, "crypto": true, "database": true, "debug": true, "embed": true,
	"encoding": true, "errors": true, "expvar": true, "flag": true, "fmt": true, "go": true, "hash": true,
	"html": true, "image": true, "index": true, "internal": true, "io": true, "iter": true, "log": true,
	"maps": true, "math": true, "mime": true, "net": true, "os": true, "path": true, "plugin": true,
	"reflect": true, "regexp": true, "runtime": true, "slices": true, "sort": true, "strconv": true,
	"strings": true, "structs": true, "sync": true, "syscall": true, "testing": true, "text": true,
	"time": true, "unicode": true, "unique": true, "unsafe": true, "weak": true, "vendor": true,
	"cmd": true, "simd": true,
}

// FuncPackage returns the import path of a qualified function name as
// profiles and traces give it: "main" for "main.bad.func1", "net/http" for
// "net/http.(*conn).serve", "github.com/x/y" for "github.com/x/y.(*T).M".
func FuncPackage(fn string) string {
	slash := strings.LastIndexByte(fn, '/')
	rest := fn[slash+1:]
	dot := strings.IndexByte(rest, '.')
	if dot < 0 {
		return fn
	}
	return fn[:slash+1+dot]
}

// StdPackage reports whether an import path belongs to the standard library
// (the runtime and testing included) or to the toolchain's vendored
// golang.org/x copies ("vendor/golang.org/x/net/...").
func StdPackage(pkg string) bool {
	first, _, _ := strings.Cut(pkg, "/")
	if strings.Contains(first, ".") {
		return false
	}
	return stdRoots[first]
}

// UserFunction reports whether fn is the program's own code: a location a
// finding may tell the user to change. The runtime, the standard library
// and the testing harness are not; neither are the runtime's
// pseudo-functions ("runtime._System") nor a name with no package.
func UserFunction(fn string) bool {
	if fn == "" {
		return false
	}
	pkg := FuncPackage(fn)
	if pkg == fn && !strings.Contains(fn, ".") {
		return false
	}
	return !StdPackage(pkg)
}

// batchingFrames issue one syscall for many items: a write that comes
// through them is already buffered or vectored.
var batchingFrames = map[string]bool{
	"bufio.(*Writer).Flush": true, "bufio.(*Writer).ReadFrom": true, "bufio.(*Reader).fill": true,
	"net.(*Buffers).WriteTo": true, "net.(*Buffers).writeTo": true, "net.(*conn).writeBuffers": true,
	"net.(*netFD).writeBuffers": true, "internal/poll.(*FD).Writev": true, "syscall.writev": true,
	"internal/poll.writev": true, "io.copyBuffer": true, "os.(*File).ReadFrom": true,
	"net.(*TCPConn).readFrom": true, "internal/poll.SendFile": true, "internal/poll.Splice": true,
}

// BatchingFrame reports whether fn (a qualified function name) batches
// I/O: a syscall under it moves a buffer's worth, not one item, so
// "batch the syscalls" is no advice for it.
func BatchingFrame(fn string) bool { return batchingFrames[fn] }
