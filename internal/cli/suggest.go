package cli

import (
	"flag"
	"strings"
)

// closest is the candidate nearest to s by edit distance, when it is near
// enough to be a typo: at most a third of the longer name's letters
// differ, and at most 3 ("prfile" → "profile", "gorutines" →
// "goroutines"; "frobnicate" → nothing). Ties go to the first candidate.
func closest(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > 2 || 3*bestD >= max(len(s), len(best)) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b in bytes, with a
// transposition of two neighbours counting as one edit (Damerau's
// optimal string alignment): "porfile" is one swap away from "profile".
// Both are short (names typed on a command line): the table is
// len(a)×len(b).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b)) // not a typo of a command name
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// commandNames lists the registered subcommands.
func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// suggestCommand is the "did you mean" line for an unknown subcommand,
// or "".
func suggestCommand(name string) string {
	if c := closest(name, commandNames()); c != "" {
		return "did you mean 'schedoctor " + c + "'?"
	}
	return ""
}

// suggestFlag is the "did you mean" line for the flag package's error
// "flag provided but not defined: -jsn", or "".
func suggestFlag(fs *flag.FlagSet, parseErr error) string {
	const prefix = "flag provided but not defined: -"
	msg := parseErr.Error()
	if !strings.HasPrefix(msg, prefix) {
		return ""
	}
	name := strings.TrimPrefix(strings.TrimPrefix(msg, prefix), "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if c := closest(name, names); c != "" {
		return "did you mean -" + c + "?"
	}
	return ""
}
