// Package tickerleak defines an Analyzer that reports tickers never
// stopped in a module whose go line is before 1.23 (rule SD105).
//
// # Analyzer tickerleak
//
// tickerleak: report tickers never stopped where the module's go line is before 1.23
//
// Before Go 1.23 the runtime keeps every started ticker on a timer heap
// until Stop is called, so a ticker dropped without Stop is never
// collected and keeps firing. From 1.23 unreferenced tickers are collected,
// but only when the main module's go line is at least 1.23.
//
//	// WRONG (go 1.22 module)
//	func poll(ctx context.Context) {
//		t := time.NewTicker(time.Second)
//		for {
//			select {
//			case <-ctx.Done():
//				return // t keeps ticking, forever
//			case <-t.C:
//				check()
//			}
//		}
//	}
//
//	// RIGHT
//	func poll(ctx context.Context) {
//		t := time.NewTicker(time.Second)
//		defer t.Stop()
//		...
//	}
//
// The analyzer runs only when the package's module declares a go version
// before 1.23; it is silent at 1.23 and later and when the module is not
// known (GOPATH mode). It reports time.NewTicker when the ticker is
// assigned to a local variable that is only read for its C field or Reset,
// never stopped, returned, passed on or stored, in a function that can
// return; or when only its C field is kept (time.NewTicker(d).C). It
// reports time.Tick in functions that can return, except main and init.
// A function that ends in a loop it never leaves (for {}, or a range over
// a channel) holds its ticker for the life of the program. _test.go files
// are not checked.
// time.NewTimer is not reported: a timer leaves the heap when it fires.
package tickerleak
