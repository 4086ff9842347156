// The reference side of tests/verifiable/prove_witness.rs: Go's
// golang.org/x/mod/sumdb checks a `nenjim-journal prove --json` document.
//
//	checkrecord <checkpoint file> <verifier key> <proof.json>
//
// opens the checkpoint note with note.Open and the verifier key, reads its
// size and root hash (C2SP tlog-checkpoint), checks that the proof's
// tree_size and root are the checkpoint's, and checks the proof with
// tlog.CheckRecord for tlog.RecordHash(record) at index. Exit 0 and one
// line "ok …" when it holds, 1 otherwise.
//
// Build with GO111MODULE=off GOPATH=/usr/share/gocode (Debian's
// golang-golang-x-mod-dev); no network.
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type proofDocument struct {
	Index    int64    `json:"index"`
	TreeSize int64    `json:"tree_size"`
	Root     string   `json:"root"`
	Record   string   `json:"record"`
	Proof    []string `json:"proof"`
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 4 {
		fail("usage: checkrecord <checkpoint file> <verifier key> <proof.json>")
	}
	msg, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail("%v", err)
	}
	verifier, err := note.NewVerifier(os.Args[2])
	if err != nil {
		fail("NewVerifier: %v", err)
	}
	n, err := note.Open(msg, note.VerifierList(verifier))
	if err != nil {
		fail("note.Open: %v", err)
	}
	lines := strings.SplitN(n.Text, "\n", 4)
	if len(lines) < 4 {
		fail("checkpoint %q has fewer than 3 lines", n.Text)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		fail("checkpoint size %q: %v", lines[1], err)
	}
	root, err := tlog.ParseHash(lines[2])
	if err != nil {
		fail("checkpoint root %q: %v", lines[2], err)
	}
	data, err := os.ReadFile(os.Args[3])
	if err != nil {
		fail("%v", err)
	}
	var doc proofDocument
	if err := json.Unmarshal(data, &doc); err != nil {
		fail("proof JSON: %v", err)
	}
	if doc.TreeSize != size || doc.Root != root.String() {
		fail("the proof is for tree %d %s, the checkpoint is %d %s", doc.TreeSize, doc.Root, size, root)
	}
	var proof tlog.RecordProof
	for _, h := range doc.Proof {
		b, err := base64.StdEncoding.DecodeString(h)
		if err != nil || len(b) != tlog.HashSize {
			fail("proof hash %q", h)
		}
		var hash tlog.Hash
		copy(hash[:], b)
		proof = append(proof, hash)
	}
	if err := tlog.CheckRecord(proof, size, root, doc.Index, tlog.RecordHash([]byte(doc.Record))); err != nil {
		fail("tlog.CheckRecord: %v", err)
	}
	fmt.Printf("ok tlog.CheckRecord: record %d of the %d-entry tree %s (checkpoint verified by note.Open)\n", doc.Index, size, root)
}
