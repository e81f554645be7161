// Command benchprof serves scripts/bench-profile.sh: it writes the
// synthetic merged fleet profiles (synth.Fleet) the benchmark reads, and
// is the floor the benchmark compares `schedoctor profile` with: a program
// that only calls pprof's profile.Parse on the file.
//
//	benchprof gen -n 1000000 -o fleet-1m.pb.gz
//	benchprof parse fleet-1m.pb.gz
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/profile/internal/synth"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchprof gen -n SAMPLES -o FILE | benchprof parse FILE")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		fs := flag.NewFlagSet("gen", flag.ExitOnError)
		n := fs.Int("n", 100_000, "samples")
		depth := fs.Int("depth", 32, "frames per handler stack")
		out := fs.String("o", "", "output `FILE` (gzipped pprof)")
		fs.Parse(os.Args[2:])
		if *out == "" {
			fs.Usage()
			os.Exit(2)
		}
		err = gen(*out, synth.FleetOptions{Samples: *n, Depth: *depth})
	case "parse":
		if len(os.Args) != 3 {
			fmt.Fprintln(os.Stderr, "usage: benchprof parse FILE")
			os.Exit(2)
		}
		err = parse(os.Args[2])
	default:
		fmt.Fprintf(os.Stderr, "benchprof: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchprof:", err)
		os.Exit(1)
	}
}

func gen(name string, opt synth.FleetOptions) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := synth.Fleet(opt).Write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return f.Close()
}

// parse is what pprof itself does before any report: profile.Parse of the
// file, gzip included.
func parse(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Println(len(p.Sample), "samples")
	return nil
}
