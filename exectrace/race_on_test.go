//go:build race

package exectrace

// raceEnabled: the race detector changes what the runtime allocates, so
// allocation bounds measured without it do not hold under -race.
const raceEnabled = true
