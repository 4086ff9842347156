// The reference side of tests/go_note_verdicts.rs: Go's
// golang.org/x/mod/sumdb/note gives its verdict on a signed note the Rust side wrote.
//
//	note_verdict open <verifier key> <note file>
//		note.Open the note with the one verifier key; print "accept" and
//		the verified and unverified signature counts, or "reject" and
//		Go's error
//
// Build with GO111MODULE=off GOPATH=/usr/share/gocode (Debian's
// golang-golang-x-mod-dev); no network.
package main

import (
	"fmt"
	"os"

	"golang.org/x/mod/sumdb/note"
)

func main() {
	if len(os.Args) != 4 || os.Args[1] != "open" {
		fmt.Fprintln(os.Stderr, "usage: note_verdict open <verifier key> <note file>")
		os.Exit(2)
	}
	verifier, err := note.NewVerifier(os.Args[2])
	if err != nil {
		fmt.Fprintf(os.Stderr, "note.NewVerifier: %v\n", err)
		os.Exit(2)
	}
	msg, err := os.ReadFile(os.Args[3])
	if err != nil {
		fmt.Fprintf(os.Stderr, "read: %v\n", err)
		os.Exit(2)
	}
	n, err := note.Open(msg, note.VerifierList(verifier))
	if err != nil {
		fmt.Printf("reject %v\n", err)
		return
	}
	fmt.Printf("accept %d %d\n", len(n.Sigs), len(n.UnverifiedSigs))
}
