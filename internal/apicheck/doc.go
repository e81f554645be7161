// Package apicheck keeps internal types out of the module's public API.
//
// A package under internal/ can be imported only from inside the module,
// so a user of the module cannot name its types: a public function that
// returns one, or an exported field that holds one, hands the user a value
// whose type the user can neither declare, nor look up in go doc. Its test
// loads every package of the module with go/types and fails on an exported
// identifier of a non-internal package (a function, a method, a field, a
// variable, a type's definition) whose type mentions a type of an internal
// package. The package has no API of its own: the check is its test.
package apicheck
