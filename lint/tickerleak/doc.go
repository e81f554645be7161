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
// known (GOPATH mode). It reports:
//
//   - time.NewTicker assigned to a local variable that is only read for
//     its C field or Reset, never stopped, returned, passed on or stored,
//     in a function that can return; or whose C field alone is kept
//     (time.NewTicker(d).C);
//   - time.NewTicker stored in an unexported struct field (s.t = ..., or
//     &T{t: ...}) of a type with a Close, Stop or Shutdown method, when no
//     code of the package stops that field's ticker and the field is only
//     read for C or Reset (the object ends; its ticker does not);
//   - time.Tick in a function that can return, except main and init, and
//     in package main a function or method that runs a bounded number of
//     times: each of its calls is made outside any loop, go, defer or
//     closure in main's body or in another such function, and for an
//     unexported method so is each call through the package's interfaces
//     (a command table); its tickers are a fixed few for the process's
//     life, as main's own;
//   - t := time.NewTimer(d) used as a timeout (t.C is one case of a
//     select), not stopped by a defer, when a return (or the end of the
//     function) is reached neither through the t.C case nor after a
//     t.Stop(): the success path, or a watchdog Reset on each kick and
//     left running at the end. Before 1.23 such a timer stays on the heap
//     until it fires; a timer of a constant duration under 1s is not
//     reported, since it leaves the heap within a second anyway.
//
// A function that ends in a loop it never leaves — for {}, or a range
// over a ticker's own channel (time.Tick, t.C of a Ticker), the only
// channel sure never to be closed — holds its ticker for the life of the
// program. A range over any other channel (for j := range jobs) ends when
// the channel is closed, and a time.Tick made before it then leaks
// (staticcheck's SA1015). _test.go files are not checked.
package tickerleak
