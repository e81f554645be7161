// Package svc is the source for the -src golden of `schedoctor profile`:
// the synthetic profile of TestProfileSrcGolden records it as
// /build/svc/handler.go, a path that exists only under -src.
package svc

import (
	"context"
	"net/http"
)

var done = make(chan struct{})

// Wait busy-waits for a background job: the select has real cases and a
// default, so it runs selectgo without ever parking.
func Wait(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	for {
		select {
		case <-done:
			w.WriteHeader(http.StatusOK)
			return
		case <-ctx.Done():
			return
		default:
		}
	}
}

var _ = context.Background
