//go:build !race

package exectrace

const raceEnabled = false
