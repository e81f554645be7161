// Command tracebare reads a Go execution trace with golang.org/x/exp/trace
// and does nothing else: every event, in order, counted. It is the floor
// that scripts/bench-trace.sh measures `schedoctor trace` against (the
// bare read of the same file, on the same machine, in the same run), not
// a tool: its output is the event count.
//
//	tracebare [-transitions] FILE
//
// With -transitions it also asks each state-transition event for its
// transition (Event.StateTransition: which goroutine or P, from which
// state to which), as any analysis of scheduling must, and nothing else.
// That is the floor of such an analysis over the reader's API: the reader
// decodes the transition's arguments only when asked.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"golang.org/x/exp/trace"
)

func main() {
	transitions := flag.Bool("transitions", false, "also ask every state-transition event for its transition")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: tracebare [-transitions] FILE")
		os.Exit(2)
	}
	n, changes, err := read(flag.Arg(0), *transitions)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tracebare: %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
	if *transitions {
		fmt.Println(n, "events,", changes, "state changes")
		return
	}
	fmt.Println(n, "events")
}

func read(name string, transitions bool) (n, changes int64, err error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	rd, err := trace.NewReader(bufio.NewReader(f))
	if err != nil {
		return 0, 0, err
	}
	for {
		ev, err := rd.ReadEvent()
		if err == io.EOF {
			return n, changes, nil
		} else if err != nil {
			return n, changes, err
		}
		n++
		if transitions && ev.Kind() == trace.EventStateTransition {
			// Count the real changes (a generation re-announces each
			// state), so that the transition is used, not optimised away.
			st := ev.StateTransition()
			switch st.Resource.Kind {
			case trace.ResourceGoroutine:
				if from, to := st.Goroutine(); from != to {
					changes++
				}
			case trace.ResourceProc:
				if from, to := st.Proc(); from != to {
					changes++
				}
			}
		}
	}
}
