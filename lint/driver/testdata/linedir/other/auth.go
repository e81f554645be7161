// Package other is another module: lint -fix on example.com/linedir must
// never edit it, whatever a //line directive in that module says. The
// directives in ../p/p.go name this file, so that the edits of fixes there
// would land here, at p.go's offsets, if -fix believed them; this comment
// makes the file long enough for those offsets to fall inside it.
package other

// Allowed checks a token; its body must stay as it is.
func Allowed(token string) bool {
	if token == "" {
		return false
	}
	return verify(token)
}

// verify checks the token's length. A real check would compare it with a
// stored value in constant time; this fixture only needs a body that an
// edit at the wrong offsets would change.
func verify(token string) bool {
	if len(token) != 32 {
		return false
	}
	for _, r := range token {
		if r < '0' || r > 'f' {
			return false
		}
	}
	return true
}
