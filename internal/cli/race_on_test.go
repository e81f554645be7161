//go:build race

package cli

// raceEnabled: the race detector's shadow memory multiplies what a run
// holds (a hostile case of 209 MB without it peaked at 487 MB with it), so
// the memory bound measured without it does not hold under -race.
const raceEnabled = true
