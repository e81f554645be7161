// Package goroutinethrottle defines an Analyzer that reports
// runtime.NumGoroutine used to limit or wait for goroutines (rule SD103).
//
// # Analyzer goroutinethrottle
//
// goroutinethrottle: report runtime.NumGoroutine used as a throttle
//
// runtime.NumGoroutine counts every goroutine in the process, the
// runtime's and every library's included, so a limit on it is wrong as
// soon as anything else starts one, and waiting for it to drop means
// polling.
//
//	// WRONG
//	for _, j := range jobs {
//		for runtime.NumGoroutine() > 100 {
//			time.Sleep(time.Millisecond)
//		}
//		go work(j)
//	}
//
//	// RIGHT
//	sem := make(chan struct{}, 100)
//	var wg sync.WaitGroup
//	for _, j := range jobs {
//		sem <- struct{}{}
//		wg.Go(func() { defer func() { <-sem }(); work(j) })
//	}
//	wg.Wait()
//
// The analyzer reports a call of runtime.NumGoroutine whose value —
// directly, or through local variables assigned from it or from values
// computed from it (n := runtime.NumGoroutine(); busy := n > limit), or
// through an unexported struct field every assignment of which holds it
// (p.active = runtime.NumGoroutine(), read in another method) — is the
// condition of a for loop, or decides an if or switch one of whose
// branches starts a goroutine (go statement), sleeps, or continues or
// breaks a loop that starts goroutines or sleeps. In a tagless switch
// (reject / wait / spawn) a case's condition decides the clauses after it
// and the default too. It stays silent when the count is only logged,
// exported as a metric, returned or compared in a branch that does none of
// these (a health check that rejects), and in _test.go files, where
// counting goroutines to find leaks is the idiom.
package goroutinethrottle
