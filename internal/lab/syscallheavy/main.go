// Syscallheavy writes one small record per write(2) to a file from several
// goroutines: the work is entersyscall/exitsyscall and P handoffs. The fixed
// twin buffers the records with bufio.
package main

import (
	"bufio"
	"context"
	"log"
	"os"
	"runtime"
	"sync"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

func main() { labrun.Main(bad, fixed) }

var record = []byte("2026-11-22T02:00:00Z level=info msg=ok\n")

func open() *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		log.Fatal(err)
	}
	return f
}

func bad(ctx context.Context) {
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := open()
			defer f.Close()
			for ctx.Err() == nil {
				f.Write(record) // lab:SD209 lab:SD305
			}
		}()
	}
	wg.Wait()
}

func fixed(ctx context.Context) {
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := open()
			defer f.Close()
			bw := bufio.NewWriterSize(f, 64<<10)
			for ctx.Err() == nil {
				bw.Write(record)
			}
			bw.Flush()
		}()
	}
	wg.Wait()
}
