// Command schedoctor finds what wastes a Go program's scheduler and says how
// to fix it. See the README, or run `schedoctor help`.
package main

import (
	"context"
	"os"

	"github.com/schedoctor/schedoctor/internal/cli"
	"github.com/schedoctor/schedoctor/lint/driver"
)

func main() {
	// `schedoctor lint` runs go vet with this binary as its -vettool; go vet
	// then calls it once per package.
	if driver.IsVetTool(os.Args[1:]) {
		driver.VetToolMain()
	}
	exe, err := os.Executable()
	if err != nil {
		exe = "" // lint then analyzes in this process
	}
	// The first SIGINT or SIGTERM cancels ctx, which reaches every reader
	// and child; a second one exits at once. Exit status 130 / 143.
	ctx, stop := cli.NotifyContext(context.Background(), os.Stderr)
	code := cli.Run(ctx, &cli.Env{
		Stdin:    os.Stdin,
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Terminal: isTerminal(os.Stdout),
		VetTool:  exe,
	}, os.Args[1:])
	stop()
	os.Exit(code)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
