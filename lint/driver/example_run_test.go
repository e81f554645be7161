package driver_test

import (
	"context"
	"fmt"
	"log"

	"github.com/schedoctor/schedoctor/lint/driver"
)

// Lint a module's packages, as `schedoctor lint ./...` does from its root,
// and print each finding where it is.
func ExampleRun() {
	res, err := driver.Run(context.Background(), driver.Options{
		Dir:      ".",
		Patterns: []string{"./..."},
	})
	if err != nil {
		log.Fatal(err) // a package that does not compile, a bad pattern, ...
	}
	for _, f := range res.Findings {
		fmt.Printf("%s: %s %s\n", f.Locations[0], f.Rule, f.Message)
	}
}
