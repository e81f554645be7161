package apicheck

import (
	"go/token"
	"go/types"
	"slices"
	"strings"
	"testing"
)

// sources are the packages that read one kind of recorded evidence and
// judge it. Each keeps the contract of docs/HACKING.md, "Sources":
//
//	func Read(ctx context.Context, name string, r io.Reader, opt ReadOptions) (*X, error)
//	func ReadFile(ctx context.Context, name string, opt ReadOptions) (*X, error)
//	func Analyze(x *X, opt Options) (*Result, error) // or xs []*X
//
// procs, host and sweep look at a live system or run a program: they read
// no file and are not sources in this sense.
var sources = []string{"profile", "exectrace", "schedtrace", "goroutines", "contention"}

// TestSourcesKeepTheContract checks the signatures of every source, and
// that a package which declares a ReadOptions type (a new source) is in
// sources, so that it is checked too.
func TestSourcesKeepTheContract(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range loadModule(t) {
		if p.Types == nil || internal(p.PkgPath) {
			continue
		}
		rel := strings.TrimPrefix(p.PkgPath, module+"/")
		listed := slices.Contains(sources, rel)
		if !listed {
			if p.Types.Scope().Lookup("ReadOptions") != nil {
				t.Errorf("%s declares ReadOptions: add it to sources (and keep the contract) or rename the type", rel)
			}
			continue
		}
		seen[rel] = true
		for _, problem := range contract(p.Types) {
			t.Errorf("%s: %s", rel, problem)
		}
	}
	for _, s := range sources {
		if !seen[s] {
			t.Errorf("source %s was not loaded", s)
		}
	}
}

// contract lists how p's entry points differ from the source contract.
func contract(p *types.Package) []string {
	var out []string
	fn := func(name string) *types.Signature {
		f, ok := p.Scope().Lookup(name).(*types.Func)
		if !ok {
			out = append(out, "no func "+name)
			return nil
		}
		return f.Type().(*types.Signature)
	}
	local := func(name string) types.Type {
		tn, ok := p.Scope().Lookup(name).(*types.TypeName)
		if !ok {
			out = append(out, "no type "+name)
			return nil
		}
		return tn.Type()
	}
	ropt, opt, result := local("ReadOptions"), local("Options"), local("Result")
	var x types.Type // what Read returns: *X
	want := func(name string, sig *types.Signature, params, results []types.Type) {
		if sig == nil || slices.Contains(params, nil) || slices.Contains(results, nil) {
			return
		}
		ok := sig.Params().Len() == len(params) && sig.Results().Len() == len(results) && !sig.Variadic() && sig.TypeParams() == nil
		for i := 0; ok && i < len(params); i++ {
			ok = same(sig.Params().At(i).Type(), params[i])
		}
		for i := 0; ok && i < len(results); i++ {
			ok = same(sig.Results().At(i).Type(), results[i])
		}
		if !ok {
			out = append(out, name+" is "+types.TypeString(sig, types.RelativeTo(p))+", want "+
				types.TypeString(types.NewSignatureType(nil, nil, nil, tuple(params), tuple(results), false), types.RelativeTo(p)))
		}
	}
	ctxT, ioReader, errT := named("context", "Context"), named("io", "Reader"), types.Universe.Lookup("error").Type()
	if sig := fn("Read"); sig != nil && sig.Results().Len() == 2 {
		if ptr, ok := sig.Results().At(0).Type().(*types.Pointer); ok {
			if _, ok := ptr.Elem().(*types.Named); ok {
				x = ptr
			}
		}
		if x == nil {
			out = append(out, "Read returns "+types.TypeString(sig.Results().At(0).Type(), types.RelativeTo(p))+", want a pointer to a named type")
		} else {
			want("Read", sig, []types.Type{ctxT, types.Typ[types.String], ioReader, ropt}, []types.Type{x, errT})
		}
	} else if sig != nil {
		out = append(out, "Read does not return (*X, error)")
	}
	if x == nil {
		return out
	}
	want("ReadFile", fn("ReadFile"), []types.Type{ctxT, types.Typ[types.String], ropt}, []types.Type{x, errT})
	if sig := fn("Analyze"); sig != nil && result != nil {
		first := types.Type(x)
		if sig.Params().Len() > 0 {
			if _, ok := sig.Params().At(0).Type().(*types.Slice); ok {
				first = types.NewSlice(x) // a source that compares several reads
			}
		}
		want("Analyze", sig, []types.Type{first, opt}, []types.Type{types.NewPointer(result), errT})
	}
	for _, old := range []string{"Parse", "ParseWith", "ReadContext", "ReadLimited", "ReadFileContext", "ReadFileLimited"} {
		if p.Scope().Lookup(old) != nil {
			out = append(out, old+" is a second entry point: read through Read or ReadFile")
		}
	}
	return out
}

func tuple(ts []types.Type) *types.Tuple {
	vars := make([]*types.Var, len(ts))
	for i, t := range ts {
		vars[i] = types.NewParam(token.NoPos, nil, "", t)
	}
	return types.NewTuple(vars...)
}

// named stands for the type path.name of the standard library: types are
// compared by their full names (same), so it needs no importer.
func named(path, name string) types.Type {
	tn := types.NewTypeName(token.NoPos, types.NewPackage(path, path), name, nil)
	return types.NewNamed(tn, types.NewInterfaceType(nil, nil), nil)
}

// same compares types by their names qualified by package path: a
// package's context.Context and the one named builds are the same type.
func same(a, b types.Type) bool { return types.TypeString(a, nil) == types.TypeString(b, nil) }

// TestContractFindsDrift plants sources that drift from the contract, in
// each way one has drifted before, and one that keeps it.
func TestContractFindsDrift(t *testing.T) {
	const head = `package src
import ("context"; "io")
type X struct{}
type ReadOptions struct{ MaxBytes int64 }
type Options struct{}
type Result struct{}
`
	cases := []struct {
		name, src string
		want      []string // substrings of the problems, in order; none: keeps it
	}{
		{"keeps it", `
func Read(ctx context.Context, name string, r io.Reader, opt ReadOptions) (*X, error) { return nil, nil }
func ReadFile(ctx context.Context, name string, opt ReadOptions) (*X, error) { return nil, nil }
func Analyze(x *X, opt Options) (*Result, error) { return nil, nil }`, nil},
		{"keeps it, several reads", `
func Read(ctx context.Context, name string, r io.Reader, opt ReadOptions) (*X, error) { return nil, nil }
func ReadFile(ctx context.Context, name string, opt ReadOptions) (*X, error) { return nil, nil }
func Analyze(xs []*X, opt Options) (*Result, error) { return nil, nil }`, nil},
		{"reader before name, no context", `
func Read(r io.Reader, name string, opt ReadOptions) (*X, error) { return nil, nil }
func ReadFile(ctx context.Context, name string, opt ReadOptions) (*X, error) { return nil, nil }
func Analyze(x *X, opt Options) (*Result, error) { return nil, nil }`, []string{"Read is func(r io.Reader"}},
		{"Analyze returns a tuple", `
func Read(ctx context.Context, name string, r io.Reader, opt ReadOptions) (*X, error) { return nil, nil }
func ReadFile(ctx context.Context, name string, opt ReadOptions) (*X, error) { return nil, nil }
func Analyze(x *X) ([]int, *Result) { return nil, nil }`, []string{"Analyze is func(x *X) ([]int, *Result)"}},
		{"Analyze reads", `
func Read(ctx context.Context, name string, r io.Reader, opt ReadOptions) (*X, error) { return nil, nil }
func ReadFile(ctx context.Context, name string, opt ReadOptions) (*X, error) { return nil, nil }
func Analyze(ctx context.Context, r io.Reader, opt Options) (*Result, error) { return nil, nil }`, []string{"Analyze is func(ctx context.Context, r io.Reader"}},
		{"a second entry point, no file convenience", `
func Read(ctx context.Context, name string, r io.Reader, opt ReadOptions) (*X, error) { return nil, nil }
func Parse(name string, data []byte, opt ReadOptions) (*X, error) { return nil, nil }
func Analyze(x *X, opt Options) (*Result, error) { return nil, nil }`, []string{"no func ReadFile", "Parse is a second entry point"}},
		{"Read returns a value", `
func Read(ctx context.Context, name string, r io.Reader, opt ReadOptions) (X, error) { return X{}, nil }`, []string{"Read returns X, want a pointer"}},
	}
	for _, c := range cases {
		p := checkSources(t, map[string]string{"m/src": head + c.src}, "m/src")["m/src"]
		got := contract(p)
		if len(got) != len(c.want) {
			t.Errorf("%s: contract = %q, want %d problems like %q", c.name, got, len(c.want), c.want)
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: problem %d = %q, want it to hold %q", c.name, i, got[i], w)
			}
		}
	}
}
