// Package nomodule is loaded in GOPATH mode: the module, and so its go
// line, is unknown, and the analyzer stays silent.
package nomodule

import "time"

func poll() {
	t := time.NewTicker(time.Second)
	<-t.C
}
