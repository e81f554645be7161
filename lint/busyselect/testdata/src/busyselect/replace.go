package busyselect

// The "replace the pending value" loop written with two selects: try the
// send, and when the channel is full drain the stale value in a second
// select and go round. Each failed send frees the slot: bounded.
func replaceTwoSelects(ch chan int, v int) {
	for {
		select {
		case ch <- v:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}

// The same shape draining another channel: nothing frees ch's slot, so
// the loop spins until a reader comes.
func replaceWrongChannel(ch, other chan int, v int) {
	for {
		select { // want `loop spins a core on a select whose default is empty`
		case ch <- v:
			return
		default:
		}
		select { // want `loop spins a core on a select whose default is empty`
		case <-other:
		default:
		}
	}
}
