package busyselect

// The batch drain: the loop runs only while the channel holds values,
// and the select takes one per round.

type shaper struct {
	ch    chan int
	other chan int
	batch []int
}

// Negatives.

func (s *shaper) drainBatch(max int) {
	for len(s.ch) > 0 && len(s.batch) < max {
		select {
		case r := <-s.ch:
			s.batch = append(s.batch, r)
		default:
		}
	}
}

func (s *shaper) drainNonEmpty() {
	for 0 < len(s.ch) {
		select {
		case r, ok := <-s.ch:
			if ok {
				s.batch = append(s.batch, r)
			}
		default:
		}
	}
}

// Close positives: the loop waits while the channel is empty, or drains
// another channel than the one it tests.

func (s *shaper) waitNonEmpty() {
	for len(s.ch) == 0 {
		select { // want `loop spins a core on a select`
		case r := <-s.other:
			s.batch = append(s.batch, r)
		default:
		}
	}
}

func (s *shaper) drainOther() {
	for len(s.ch) > 0 {
		select { // want `loop spins a core on a select`
		case r := <-s.other:
			s.batch = append(s.batch, r)
		default:
		}
	}
}
