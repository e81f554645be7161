package synth

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/google/pprof/profile"
)

// FleetOptions shape a synthetic merged fleet profile (Fleet). The zero
// value of each field means its default.
type FleetOptions struct {
	Samples   int     // distinct samples (stack and labels); default 100,000
	Depth     int     // locations per stack of the handlers; default 32
	Functions int     // distinct user functions; default 3,000
	Pods      int     // values of the pod label; default 40
	Versions  int     // values of the version label; default 3
	SpinShare float64 // share of the CPU in the planted spin; default 0.45
	Seed      uint64
}

// Planted spin of Fleet: SpinFunction at SpinFile:SpinLine goes to
// runtime.selectgo in a loop, on the first SpinPods pods only.
const (
	SpinFunction = "github.com/acme/fleet/outbox.(*Relay).run"
	SpinFile     = "/src/fleet/outbox/relay.go"
	SpinLine     = 37
	SpinPods     = 4
)

// Fleet builds what a continuous profiler's merged CPU profile of a
// service looks like: many distinct stacks of a fixed depth sharing their
// prefixes (an HTTP server's frames, then handlers calling down layers of
// user functions, then a runtime or standard-library leaf), labelled with
// pod and version, each stack kept once per pod and version that ran it;
// background GC and scheduler stacks without user frames; and a planted
// spin (SpinFunction calling runtime.selectgo) on a few pods, so that a
// diagnosis has something to find. The same options give the same
// profile.
func Fleet(opt FleetOptions) *profile.Profile {
	if opt.Samples <= 0 {
		opt.Samples = 100_000
	}
	if opt.Depth <= 0 {
		opt.Depth = 32
	}
	if opt.Functions <= 0 {
		opt.Functions = 3000
	}
	if opt.Pods <= 0 {
		opt.Pods = 40
	}
	if opt.Versions <= 0 {
		opt.Versions = 3
	}
	if opt.SpinShare <= 0 {
		// Four pods spinning a core each in a fleet of 40 mostly idle
		// pods: the profile-only SD204 needs 40% (DefaultThresholds).
		opt.SpinShare = 0.45
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
	b := newFleetBuilder(opt)

	pods := make([]string, opt.Pods)
	for i := range pods {
		pods[i] = fmt.Sprintf("api-7d9f8c6b5-%05x", 0x1000+i*7919)
	}
	versions := make([]string, opt.Versions)
	for i := range versions {
		versions[i] = fmt.Sprintf("v1.%d.0", 40+i)
	}
	labelled := func(i int) map[string][]string {
		return map[string][]string{"pod": {pods[i%opt.Pods]}, "version": {versions[(i/opt.Pods)%opt.Versions]}}
	}

	// The planted spin: one stack, on SpinPods pods, SpinShare of the CPU.
	// Its values are set at the end, from the others' total.
	spinSamples := min(SpinPods, opt.Pods, opt.Samples)
	spin := b.stack(
		"runtime.selectgo@/usr/local/go/src/runtime/select.go:351",
		SpinFunction+"@"+SpinFile+":37",
		"github.com/acme/fleet/outbox.Start.func1@/src/fleet/outbox/relay.go:22",
		"runtime.goexit@/usr/local/go/src/runtime/asm_amd64.s:1700",
	)
	for i := range spinSamples {
		b.add(spin, 1, labelled(i))
	}
	// Background work without user frames: GC workers and the scheduler.
	bg := [][]string{
		{"runtime.scanobject@/usr/local/go/src/runtime/mgcmark.go:1440", "runtime.gcDrain@/usr/local/go/src/runtime/mgcmark.go:1200",
			"runtime.gcBgMarkWorker.func2@/usr/local/go/src/runtime/mgc.go:1412", "runtime.systemstack@/usr/local/go/src/runtime/asm_amd64.s:514",
			"runtime.gcBgMarkWorker@/usr/local/go/src/runtime/mgc.go:1378", "runtime.goexit@/usr/local/go/src/runtime/asm_amd64.s:1700"},
		{"runtime.futex@/usr/local/go/src/runtime/sys_linux_amd64.s:557", "runtime.futexsleep@/usr/local/go/src/runtime/os_linux.go:75",
			"runtime.notesleep@/usr/local/go/src/runtime/lock_futex.go:47", "runtime.stopm@/usr/local/go/src/runtime/proc.go:2905",
			"runtime.findRunnable@/usr/local/go/src/runtime/proc.go:3655", "runtime.schedule@/usr/local/go/src/runtime/proc.go:4043",
			"runtime.park_m@/usr/local/go/src/runtime/proc.go:4165", "runtime.mcall@/usr/local/go/src/runtime/asm_amd64.s:459"},
	}
	n := spinSamples
	for _, fr := range bg {
		st := b.stack(fr...)
		for i := range opt.Pods * opt.Versions {
			if n >= opt.Samples {
				break
			}
			b.add(st, 1+rng.Int64N(20), labelled(i))
			n++
		}
	}
	// The handlers: each stack is kept for a few pod and version pairs.
	seen := map[uint64]bool{}
	for n < opt.Samples {
		ids := b.handlerStack(rng)
		h := fnv.New64a()
		var id [8]byte
		for _, l := range ids {
			binary.LittleEndian.PutUint64(id[:], l.ID)
			h.Write(id[:])
		}
		if key := h.Sum64(); seen[key] {
			continue
		} else {
			seen[key] = true
		}
		combos := 1 + rng.IntN(6)
		first := rng.IntN(opt.Pods * opt.Versions)
		for c := range combos {
			if n >= opt.Samples {
				break
			}
			b.add(ids, 1+rng.Int64N(4)*rng.Int64N(4), labelled(first+c*7))
			n++
		}
	}
	var rest int64
	for _, s := range b.p.Sample[spinSamples:] {
		rest += s.Value[0]
	}
	per := int64(float64(rest)*opt.SpinShare/(1-min(opt.SpinShare, 0.99))) / int64(max(spinSamples, 1))
	for _, s := range b.p.Sample[:spinSamples] {
		s.Value = []int64{max(per, 1), max(per, 1) * Period}
	}
	return b.p
}

type fleetBuilder struct {
	opt    FleetOptions
	p      *profile.Profile
	funcs  map[string]*profile.Function
	locs   map[string]*profile.Location
	layers [][]string // user functions by call depth
	files  map[string]string
	user   map[userLoc]*profile.Location
}

type userLoc struct {
	fn   string
	line int
}

// Frames of the HTTP server above every handler, root last.
var fleetServer = []string{
	"net/http.HandlerFunc.ServeHTTP@/usr/local/go/src/net/http/server.go:2294",
	"net/http.(*ServeMux).ServeHTTP@/usr/local/go/src/net/http/server.go:2822",
	"net/http.serverHandler.ServeHTTP@/usr/local/go/src/net/http/server.go:3301",
	"net/http.(*conn).serve@/usr/local/go/src/net/http/server.go:2102",
	"runtime.goexit@/usr/local/go/src/runtime/asm_amd64.s:1700",
}

// Leaves under the user code, leaf first: what handlers spend CPU in.
var fleetLeaves = [][]string{
	{"runtime.memmove@/usr/local/go/src/runtime/memmove_amd64.s:381"},
	{"runtime.nextFreeFast@/usr/local/go/src/runtime/malloc.go:946", "runtime.mallocgcSmallNoscan@/usr/local/go/src/runtime/malloc.go:1301", "runtime.mallocgc@/usr/local/go/src/runtime/malloc.go:1075"},
	{"runtime.mapaccess2_faststr@/usr/local/go/src/internal/runtime/maps/runtime_faststr.go:162"},
	{"encoding/json.(*encodeState).string@/usr/local/go/src/encoding/json/encode.go:1010", "encoding/json.stringEncoder@/usr/local/go/src/encoding/json/encode.go:634", "encoding/json.(*encodeState).marshal@/usr/local/go/src/encoding/json/encode.go:298"},
	{"internal/runtime/syscall/linux.Syscall6@/usr/local/go/src/internal/runtime/syscall/linux/asm_linux_amd64.s:36", "syscall.RawSyscall6@/usr/local/go/src/syscall/syscall_linux.go:65", "syscall.Syscall@/usr/local/go/src/syscall/syscall_linux.go:87", "syscall.write@/usr/local/go/src/syscall/zsyscall_linux_amd64.go:964", "internal/poll.(*FD).Write@/usr/local/go/src/internal/poll/fd_unix.go:380"},
	{"crypto/sha256.block@/usr/local/go/src/crypto/sha256/sha256block_amd64.s:64", "crypto/sha256.(*digest).Write@/usr/local/go/src/crypto/sha256/sha256.go:200"},
	{"strconv.formatBits@/usr/local/go/src/strconv/itoa.go:191", "strconv.FormatInt@/usr/local/go/src/strconv/itoa.go:29"},
	{"runtime.futex@/usr/local/go/src/runtime/sys_linux_amd64.s:557", "runtime.futexwakeup@/usr/local/go/src/runtime/os_linux.go:91", "runtime.notewakeup@/usr/local/go/src/runtime/lock_futex.go:29", "runtime.startm@/usr/local/go/src/runtime/proc.go:3049", "runtime.wakep@/usr/local/go/src/runtime/proc.go:3196", "runtime.ready@/usr/local/go/src/runtime/proc.go:1089", "runtime.chansend@/usr/local/go/src/runtime/chan.go:230", "runtime.chansend1@/usr/local/go/src/runtime/chan.go:161"},
}

func newFleetBuilder(opt FleetOptions) *fleetBuilder {
	b := &fleetBuilder{
		opt: opt,
		p: &profile.Profile{
			SampleType:    []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
			PeriodType:    &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
			Period:        Period,
			DurationNanos: 3600e9, // an hour merged
			TimeNanos:     1_700_000_000_000_000_000,
			Mapping:       []*profile.Mapping{{ID: 1, Start: 0x400000, Limit: 0x4000000, File: "/app/api", HasFunctions: true, HasFilenames: true, HasLineNumbers: true}},
		},
		funcs: map[string]*profile.Function{},
		locs:  map[string]*profile.Location{},
		files: map[string]string{},
		user:  map[userLoc]*profile.Location{},
	}
	// Layers of user functions below the handlers: the call depth left
	// for them once the server's frames and a leaf are counted.
	userDepth := max(opt.Depth-len(fleetServer)-3, 1)
	pkgs := []string{"api", "store", "cache", "auth", "billing", "search", "render", "queue", "geo", "feed"}
	for i := range opt.Functions {
		layer := i % userDepth
		pkg := pkgs[(i/userDepth)%len(pkgs)]
		name := fmt.Sprintf("github.com/acme/fleet/%s.(*%s%d).Step%d", pkg, "T", i/(userDepth*len(pkgs)), layer)
		for len(b.layers) <= layer {
			b.layers = append(b.layers, nil)
		}
		b.layers[layer] = append(b.layers[layer], name)
		b.files[name] = fmt.Sprintf("/src/fleet/%s/t%d.go", pkg, i/(userDepth*len(pkgs)))
	}
	return b
}

// stack interns the locations of frames written as synth.Build's ("fn@file:line"), leaf first.
func (b *fleetBuilder) stack(frames ...string) []*profile.Location {
	out := make([]*profile.Location, len(frames))
	for i, fr := range frames {
		out[i] = b.loc(fr)
	}
	return out
}

func (b *fleetBuilder) loc(spec string) *profile.Location {
	if l, ok := b.locs[spec]; ok {
		return l
	}
	var name, file string
	var line int64
	for i := len(spec) - 1; i >= 0; i-- {
		if spec[i] == ':' {
			fmt.Sscan(spec[i+1:], &line)
			for j := i - 1; j >= 0; j-- {
				if spec[j] == '@' {
					name, file = spec[:j], spec[j+1:i]
					break
				}
			}
			break
		}
	}
	key := name + "\x00" + file
	f := b.funcs[key]
	if f == nil {
		f = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name, Filename: file, StartLine: max(line-20, 1)}
		b.funcs[key] = f
		b.p.Function = append(b.p.Function, f)
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: b.p.Mapping[0],
		Address: 0x401000 + 0x10*uint64(len(b.p.Location)), Line: []profile.Line{{Function: f, Line: line}}}
	b.locs[spec] = l
	b.p.Location = append(b.p.Location, l)
	return l
}

// handlerStack draws one handler stack: a path down the layers of user
// functions, each step skewed toward the first callees (so that stacks
// share their prefixes), on a leaf.
func (b *fleetBuilder) handlerStack(rng *rand.Rand) []*profile.Location {
	userDepth := len(b.layers)
	leaf := fleetLeaves[rng.IntN(len(fleetLeaves))]
	// Fill the depth: leaf frames, the user path, the server's frames.
	nUser := max(b.opt.Depth-len(leaf)-len(fleetServer), 1)
	out := make([]*profile.Location, 0, len(leaf)+nUser+len(fleetServer))
	out = append(out, b.stack(leaf...)...)
	path := make([]*profile.Location, nUser)
	at := rng.IntN(len(b.layers[0]))
	for d := range nUser {
		layer := b.layers[d%userDepth]
		// A caller calls a handful of callees, the first ones most.
		at = (at*31 + int(rng.ExpFloat64()*2)) % len(layer)
		k := userLoc{layer[at], 40 + 10*(at%4) + rng.IntN(2)}
		l := b.user[k]
		if l == nil {
			l = b.loc(fmt.Sprintf("%s@%s:%d", k.fn, b.files[k.fn], k.line))
			b.user[k] = l
		}
		path[nUser-1-d] = l
	}
	out = append(out, path...)
	return append(out, b.stack(fleetServer...)...)
}

// add appends a sample of count samples (count × Period nanoseconds).
func (b *fleetBuilder) add(stack []*profile.Location, count int64, labels map[string][]string) {
	count = max(count, 1)
	b.p.Sample = append(b.p.Sample, &profile.Sample{Location: stack, Value: []int64{count, count * Period}, Label: labels})
}
