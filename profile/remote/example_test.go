package remote_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/profile"
	"github.com/schedoctor/schedoctor/profile/remote"
)

// The merged CPU profile of a service over the last hour, diagnosed as a
// profile file is. (Not run: it needs a Pyroscope server.)
func ExampleClient_Merge() {
	ctx := context.Background()
	c, err := remote.New(remote.Pyroscope, "http://pyroscope:4040", remote.Options{
		Tenant: os.Getenv("PYROSCOPE_TENANT_ID"),
		Token:  os.Getenv("PYROSCOPE_TOKEN"),
	})
	if err != nil {
		log.Fatal(err)
	}
	now := time.Now()
	p, err := c.Merge(ctx, remote.Query{Selector: `{service_name="api"}`, From: now.Add(-time.Hour), Until: now})
	if err != nil {
		log.Fatal(err) // names the server, the call and what to check
	}
	res, err := profile.Analyze([]*pprof.Profile{p.Profile}, profile.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range res.Findings {
		fmt.Println(f.Text())
	}
}

// Each pod diagnosed apart, and the findings grouped: "in 1 of 3 pods:
// api-7f9-b". (Not run: it needs a Parca server.)
func ExampleClient_Split() {
	ctx := context.Background()
	c, err := remote.New(remote.Parca, "http://parca:7070", remote.Options{})
	if err != nil {
		log.Fatal(err)
	}
	now := time.Now()
	q := remote.Query{Selector: `{job="api"}`, From: now.Add(-time.Hour), Until: now}
	var per []remote.ValueFindings
	_, err = c.Split(ctx, "pod", q, remote.SplitOptions{Each: func(part remote.Part) {
		if part.Err != nil {
			return // remote.ErrNoData, or why the value failed
		}
		res, err := profile.Analyze([]*pprof.Profile{part.Profile.Profile}, profile.Options{})
		if err == nil {
			per = append(per, remote.ValueFindings{Value: part.Value, Findings: res.Findings})
		}
	}})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range remote.Group("pod", len(per), per) {
		fmt.Println(f.Text())
	}
}
