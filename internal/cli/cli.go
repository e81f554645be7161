// Package cli is the schedoctor command line: one FlagSet per subcommand,
// the output flags every diagnosing subcommand shares, and the exit-code
// contract of DESIGN.md (0 clean, 1 findings at or above -fail, 2 usage or
// input error). cmd/schedoctor only calls Run.
//
// Each subcommand lives in its own file and registers itself in init, so
// that the layers can be added without touching one another.
package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
)

// Exit codes.
const (
	ExitClean    = 0 // ran, nothing at or above -fail
	ExitFindings = 1 // findings at or above -fail
	ExitError    = 2 // usage or input error
)

// Env is what a subcommand may touch of the outside world, injectable for tests.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Terminal reports whether Stdout is a terminal (for colour).
	Terminal bool
	// VetTool is the path of this program when it also serves as go vet's
	// -vettool (cmd/schedoctor does; see lint.IsVetTool): lint then runs
	// through go vet, package by package with its build cache. Empty: lint
	// loads and analyzes every package in this process.
	VetTool string

	cmd string // the running subcommand, for messages
}

func (e *Env) getenv(k string) string {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return os.Getenv(k)
}

// command is one subcommand.
type command struct {
	name  string
	short string // one line in the list of commands
	order int    // position in the list: layers in DESIGN.md order
	run   func(ctx context.Context, e *Env, args []string) int
}

var commands []*command

func register(c *command) {
	commands = append(commands, c)
	slices.SortStableFunc(commands, func(a, b *command) int {
		return cmp.Or(cmp.Compare(a.order, b.order), strings.Compare(a.name, b.name))
	})
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Run runs schedoctor with args (without the program name) and returns the
// exit code. It never panics: a bug surfaces as a message and exit 2.
func Run(ctx context.Context, e *Env, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(e.Stderr, "schedoctor: internal error: %v\n(this is a bug in schedoctor; please report it with the command and input)\n", r)
			if e.getenv("SCHEDOCTOR_DEBUG") != "" {
				fmt.Fprintf(e.Stderr, "%s", debug.Stack())
			}
			code = ExitError
		}
	}()
	if len(args) == 0 {
		usage(e.Stderr)
		return ExitError
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			if c := lookup(args[1]); c != nil {
				e.cmd = c.name
				return c.run(ctx, e, []string{"-h"})
			}
			fmt.Fprintf(e.Stderr, "schedoctor help: unknown command %q\n", args[1])
			return ExitError
		}
		usage(e.Stdout)
		return ExitClean
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(e.Stderr, "schedoctor: unknown command %q\n\n", name)
		usage(e.Stderr)
		return ExitError
	}
	e.cmd = c.name
	return c.run(ctx, e, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "schedoctor finds what wastes a Go program's scheduler and says how to fix it.\n\n")
	fmt.Fprintf(w, "Usage:\n\n\tschedoctor <command> [flags] [arguments]\n\nCommands:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-11s %s\n", c.name, c.short)
	}
	fmt.Fprintf(w, "\nRun 'schedoctor help <command>' or 'schedoctor <command> -h' for a command's flags and examples.\n")
	fmt.Fprintf(w, "Exit status: 0 nothing at or above -fail, 1 findings, 2 usage or input error.\n")
}

// newFlagSet makes a subcommand's FlagSet: errors and usage go to stderr,
// and the usage shows the synopsis, the flags and real examples.
func (e *Env) newFlagSet(synopsis, description, examples string) *flag.FlagSet {
	fs := flag.NewFlagSet("schedoctor "+e.cmd, flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: %s\n\n%s\n", synopsis, strings.TrimSpace(description))
		if hasFlags(fs) {
			fmt.Fprintf(w, "\nFlags:\n")
			fs.PrintDefaults()
		}
		if examples != "" {
			fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(examples, "\n"))
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parse parses args; it returns the exit code to return at once and false
// when parsing ended the command (-h or a bad flag).
func (e *Env) parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitClean, false
		}
		return ExitError, false // the flag package has printed the error and usage
	}
	return 0, true
}

// usageError prints a usage problem and returns ExitError.
func (e *Env) usageError(format string, args ...any) int {
	fmt.Fprintf(e.Stderr, "schedoctor %s: %s\nRun 'schedoctor %s -h' for usage.\n", e.cmd, fmt.Sprintf(format, args...), e.cmd)
	return ExitError
}

// fail prints an input or run error (it already names the file and what is
// wrong) and returns ExitError.
func (e *Env) fail(err error) int {
	fmt.Fprintf(e.Stderr, "schedoctor %s: %v\n", e.cmd, err)
	return ExitError
}

// warn prints a non-fatal problem: part of the input could not be used.
func (e *Env) warn(format string, args ...any) {
	fmt.Fprintf(e.Stderr, "schedoctor %s: warning: %s\n", e.cmd, fmt.Sprintf(format, args...))
}
