// Command tracebare reads a Go execution trace with golang.org/x/exp/trace
// and does nothing else: every event, in order, counted. It is the floor
// that scripts/bench-trace.sh measures `schedoctor trace` against (the
// bare read of the same file, on the same machine, in the same run), not
// a tool: its output is the event count.
//
//	tracebare FILE
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"golang.org/x/exp/trace"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tracebare FILE")
		os.Exit(2)
	}
	n, err := read(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "tracebare: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	fmt.Println(n, "events")
}

func read(name string) (int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	rd, err := trace.NewReader(bufio.NewReader(f))
	if err != nil {
		return 0, err
	}
	var n int64
	for {
		if _, err := rd.ReadEvent(); err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, err
		}
		n++
	}
}
