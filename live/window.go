package live

// ring is the bounded rolling window: a fixed number of readings, the
// oldest overwritten, so memory stays flat however long the process runs.
type ring struct {
	buf  []sample
	next int
	full bool
}

func newRing(n int) *ring { return &ring{buf: make([]sample, max(n, 2))} }

func (r *ring) add(s sample) {
	r.buf[r.next] = s
	r.next++
	if r.next == len(r.buf) {
		r.next = 0
		r.full = true
	}
}

// victim returns the reading the next add overwrites, or nil while the
// ring is filling.
func (r *ring) victim() *sample {
	if !r.full {
		return nil
	}
	return &r.buf[r.next]
}

func (r *ring) len() int {
	if r.full {
		return len(r.buf)
	}
	return r.next
}

// at returns the i-th reading, oldest first.
func (r *ring) at(i int) *sample {
	if r.full {
		return &r.buf[(r.next+i)%len(r.buf)]
	}
	return &r.buf[i]
}

func (r *ring) last() *sample {
	if r.len() == 0 {
		return nil
	}
	return r.at(r.len() - 1)
}

// since returns the oldest reading taken at or after the last one's time
// minus span (the start of "the last span"), or nil with fewer than two.
func (r *ring) since(span float64) *sample {
	n := r.len()
	if n < 2 {
		return nil
	}
	end := r.at(n - 1).at
	for i := 0; i < n-1; i++ {
		if end.Sub(r.at(i).at).Seconds() <= span {
			return r.at(i)
		}
	}
	return r.at(n - 2)
}
