package httpfetch_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"

	"github.com/schedoctor/schedoctor/internal/httpfetch"
)

// A caller fetches, reads the body with its own parser under the
// request's deadline, and passes the parser's error through Err.
func ExampleGet() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/debug/pprof/goroutine" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "goroutine 1 [running]:\nmain.main()\n")
	}))
	defer srv.Close()
	opt := httpfetch.Options{Timeout: 10 * time.Second, Limit: 1 << 20, Expect: "/debug/pprof/goroutine", What: "a goroutine dump"}

	u, _ := url.Parse(srv.URL + "/debug/pprof/goroutine")
	resp, err := httpfetch.Get(context.Background(), u, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Close()
	data, err := io.ReadAll(resp.Body) // a parser, in real use
	fmt.Printf("%d bytes, %v\n", len(data), resp.Err(err))

	u, _ = url.Parse(srv.URL + "/debug/pprof/goroutines")
	_, err = httpfetch.Get(context.Background(), u, opt)
	fmt.Println(httpfetch.Status(err))
	// Output:
	// 35 bytes, <nil>
	// 404
}
