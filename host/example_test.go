package host_test

import (
	"fmt"

	"github.com/schedoctor/schedoctor/host"
)

func ExampleInspect() {
	// A copy of a stock 4 GiB VM's /proc and /sys, server pid 4242.
	s, err := host.Inspect(host.Options{Sysroot: "testdata/fixtures/stock", PID: 4242, Conns: 1_000_000})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("about %d connections fit; first %s\n", s.Answer.Fits, s.Answer.First)
	// Findings come in the order the limits bite (a renderer may sort them).
	for _, f := range host.Findings(s) {
		fmt.Println(f.Rule, f.Locations[0].File)
	}
	// Output:
	// about 130660 connections fit; first net.netfilter.nf_conntrack_max (/proc/sys/net/netfilter/nf_conntrack_max: 131072 (412 in use))
	// SD607 /proc/sys/net/ipv4/tcp_mem
	// SD604 /proc/sys/net/netfilter/nf_conntrack_max
	// SD607 /proc/meminfo
	// SD601 /proc/4242/limits
	// SD606 /proc/sys/fs/epoll/max_user_watches
}
