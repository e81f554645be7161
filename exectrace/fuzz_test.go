package exectrace

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// FuzzAnalyze feeds arbitrary bytes to the analysis: it must return a
// result or an error, never panic, and finish. The seed corpus in
// testdata/fuzz/FuzzAnalyze holds small fixtures and truncated variants.
func FuzzAnalyze(f *testing.F) {
	f.Add([]byte("go 1.26 trace\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := readAnalyze(ctx, bytes.NewReader(data), Options{CPUs: 2})
		if err != nil {
			return
		}
		if res.Summary == nil {
			t.Fatal("nil summary without an error")
		}
		if tr := res.Summary.Truncated; tr != nil && tr.Offset > int64(len(data)) {
			t.Fatalf("truncation offset %d beyond the input's %d bytes", tr.Offset, len(data))
		}
		var buf bytes.Buffer
		if err := res.Summary.WriteText(&buf); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzLimiter feeds arbitrary bytes through the generation limiter alone
// and through Analyze with a small limit: the limiter must pass a prefix
// of its input, stop for good once it trips, and Analyze must never hold
// more than the limit of one generation, nor panic.
func FuzzLimiter(f *testing.F) {
	f.Add([]byte(header126+"\x01\x01\x01\x01\x04abcd\x34\x01\x02\x01\x01\x00"), uint32(70_000))
	f.Add([]byte("go 1.25 trace\x00\x00\x00\x01\x01\x01\x01\x02ab\x01\x02\x01\x01\x02ab"), uint32(10))
	f.Add([]byte("go 1.21 trace\x00\x00\x00\x01\x02\x03"), uint32(2))
	if data, err := os.ReadFile("testdata/mutex.trace"); err == nil {
		f.Add(data, uint32(3000))
	}
	f.Fuzz(func(t *testing.T, data []byte, max uint32) {
		lim := newGenLimiter(bytes.NewReader(data), int64(max)+1)
		var out bytes.Buffer
		_, err := io.Copy(&out, lim)
		if !bytes.HasPrefix(data, out.Bytes()) {
			t.Fatalf("passed %d bytes that are not a prefix of the input", out.Len())
		}
		if err != nil {
			if !errors.Is(err, ErrGenerationTooLarge) {
				t.Fatalf("limiter error %v", err)
			}
			if n, err2 := lim.Read(make([]byte, 10)); n != 0 || err2 == nil {
				t.Fatalf("read %d, %v after tripping", n, err2)
			}
		} else if out.Len() != len(data) {
			t.Fatalf("passed %d of %d bytes without an error", out.Len(), len(data))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := readAnalyze(ctx, bytes.NewReader(data), Options{}, ReadOptions{MaxGeneration: MinMaxGeneration + int64(max%(1<<16))})
		if err != nil {
			return
		}
		if tr := res.Summary.Truncated; tr != nil && tr.MaxGeneration > 0 && tr.Generation < 2 {
			t.Fatalf("cut at generation %d analysed: %+v", tr.Generation, tr)
		}
	})
}

// FuzzSplit feeds arbitrary bytes, behind a Go 1.26 header, to the
// generation splitter and to the parallel read: the splitter must cut the
// input into pieces that, joined without their headers, are the input
// (the tail's rest included), never pass a piece over the limit, and end;
// the parallel read must return a result or an error, never panic, and
// end. (It is not asked to agree with the sequential read on broken
// input: the checks that span generations are the whole-trace reader's.)
func FuzzSplit(f *testing.F) {
	f.Add([]byte("\x01\x01\x01\x01\x04abcd\x34\x01\x02\x01\x01\x00\x34"))
	f.Add([]byte("\x34\x34\x01"))
	f.Add([]byte("\x31\x00\x01\x01\x01\x02ab\x34"))
	if data, err := os.ReadFile("testdata/multigen/httpserver.trace"); err == nil {
		f.Add(data[headerLen:])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		const limit = MinMaxGeneration
		data := append([]byte(header126), body...)
		lim := newGenLimiter(bytes.NewReader(data), limit)
		hdr := make([]byte, headerLen)
		if _, err := io.ReadFull(lim, hdr); err != nil {
			t.Fatal(err)
		}
		sp := newSplitter(hdr, lim)
		var joined []byte
		for {
			data, p, err := nextPiece(sp)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("splitter error %v: it hands errors to the last reader", err)
			}
			if !bytes.HasPrefix(data, hdr) {
				t.Fatal("piece without the header")
			}
			if int64(len(data)-headerLen) > limit+maxBatchSize {
				t.Fatalf("piece of %d bytes over the limit of %d", len(data), limit)
			}
			joined = append(joined, data[headerLen:]...)
			if p.rest != nil {
				rest, _ := io.ReadAll(p.rest)
				joined = append(joined, rest...)
				break
			}
		}
		if !bytes.HasPrefix(body, joined) || (lim.tripped == nil && len(joined) != len(body)) {
			t.Fatalf("pieces joined are %d bytes, not the input's first (of %d)", len(joined), len(body))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := readAnalyze(ctx, bytes.NewReader(data), Options{}, ReadOptions{Jobs: 2, MaxGeneration: limit})
		if err == nil && res.Summary == nil {
			t.Fatal("nil summary without an error")
		}
	})
}
