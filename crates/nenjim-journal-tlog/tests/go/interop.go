// The reference side of tests/interop_go.rs: Go's golang.org/x/mod/sumdb/note
// and golang.org/x/mod/sumdb/tlog check what nenjim-journal-tlog wrote.
//
//	interop genkey <name> <text>   generate a key pair with note.GenerateKey,
//	                               sign <text> (a note text) with it, print
//	                               the signer key, the verifier key and the
//	                               signed note in base64, one a line
//	interop check <dir>            check the files the Rust side wrote in <dir>
//	                               (see checkDir); print one line a check
//
// Build with GO111MODULE=off GOPATH=/usr/share/gocode (Debian's
// golang-golang-x-mod-dev); no network.
package main

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 3 {
		fail("usage: interop genkey <name> <text> | interop check <dir>")
	}
	switch os.Args[1] {
	case "genkey":
		if len(os.Args) != 4 {
			fail("usage: interop genkey <name> <text>")
		}
		genkey(os.Args[2], os.Args[3])
	case "check":
		checkDir(os.Args[2])
	default:
		fail("unknown command %q", os.Args[1])
	}
}

func genkey(name, text string) {
	skey, vkey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		fail("GenerateKey: %v", err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		fail("NewSigner: %v", err)
	}
	msg, err := note.Sign(&note.Note{Text: text}, signer)
	if err != nil {
		fail("Sign: %v", err)
	}
	fmt.Println(skey)
	fmt.Println(vkey)
	fmt.Println(base64.StdEncoding.EncodeToString(msg))
}

func read(dir, name string) []byte {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		fail("%v", err)
	}
	return data
}

// openCheckpoint verifies a signed checkpoint with the verifier key and
// reads its three lines (C2SP tlog-checkpoint).
func openCheckpoint(msg []byte, verifiers note.Verifiers) (string, int64, tlog.Hash) {
	n, err := note.Open(msg, verifiers)
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
	return lines[0], size, root
}

// c2spPath is the C2SP tlog-tiles path of a Go tile of height 8: Go's own
// path without its height element, and "entries" for the data tiles.
func c2spPath(t tlog.Tile) string {
	p := strings.TrimPrefix(t.Path(), "tile/8/")
	if t.L == -1 {
		p = "entries/" + strings.TrimPrefix(p, "data/")
	}
	return "tile/" + p
}

// tilesOf lists the tiles of height 8 of a tree of size n, as C2SP keeps
// them: every full tile and the partial tile of each level, at its width.
func tilesOf(n int64) []tlog.Tile {
	var tiles []tlog.Tile
	for level := 0; n>>(8*uint(level)) > 0; level++ {
		count := n >> (8 * uint(level))
		for i := int64(0); i < count>>8; i++ {
			tiles = append(tiles, tlog.Tile{H: 8, L: level, N: i, W: 256})
		}
		if w := int(count & 255); w > 0 {
			tiles = append(tiles, tlog.Tile{H: 8, L: level, N: count >> 8, W: w})
		}
	}
	return tiles
}

type memoryHashes map[int64]tlog.Hash

func (m memoryHashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		h, ok := m[x]
		if !ok {
			return nil, fmt.Errorf("no stored hash %d", x)
		}
		out[i] = h
	}
	return out, nil
}

// dirTiles reads the Rust side's tiles at their C2SP paths.
type dirTiles struct{ dir string }

func (d dirTiles) Height() int { return 8 }

func (d dirTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		data, err := os.ReadFile(filepath.Join(d.dir, c2spPath(t)))
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

func (d dirTiles) SaveTiles(tiles []tlog.Tile, data [][]byte) {}

func hashes(field string) []tlog.Hash {
	var out []tlog.Hash
	if field == "-" {
		return out
	}
	for _, s := range strings.Split(field, ",") {
		h, err := tlog.ParseHash(s)
		if err != nil {
			fail("proof hash %q: %v", s, err)
		}
		out = append(out, h)
	}
	return out
}

func atoi(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		fail("number %q: %v", s, err)
	}
	return n
}

// checkDir checks, in <dir>:
//
//	vkey, skey         the Rust side's verifier and signer keys
//	checkpoint         a checkpoint signed by the Rust side, over the records
//	checkpoint.old     an older one
//	tile/...           the hash tiles and entry bundles of the tree
//	cosigned, witness  the checkpoint with a witness's cosignature/v1 line,
//	                   and the witness's verifier key (type 0x04)
//	proofs             lines "inclusion <index> <hashes>" and
//	                   "consistency <hashes>" (base64, comma-separated, "-"
//	                   for none), proofs the Rust side computed from its
//	                   tiles against the two checkpoints
func checkDir(dir string) {
	vkey := strings.TrimSpace(string(read(dir, "vkey")))
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		fail("NewVerifier(%q): %v", vkey, err)
	}
	verifiers := note.VerifierList(verifier)
	origin, size, root := openCheckpoint(read(dir, "checkpoint"), verifiers)
	if origin != verifier.Name() {
		fail("origin %q is not the key name %q", origin, verifier.Name())
	}
	fmt.Printf("ok note.Open verifies the checkpoint of %s: size %d root %s\n", origin, size, root)
	_, oldSize, oldRoot := openCheckpoint(read(dir, "checkpoint.old"), verifiers)
	fmt.Printf("ok note.Open verifies the older checkpoint: size %d\n", oldSize)

	// The Rust signer key string, read by Go, signs the same bytes.
	skey := strings.TrimSpace(string(read(dir, "skey")))
	signer, err := note.NewSigner(skey)
	if err != nil {
		fail("NewSigner: %v", err)
	}
	opened, err := note.Open(read(dir, "checkpoint"), verifiers)
	if err != nil {
		fail("note.Open: %v", err)
	}
	resigned, err := note.Sign(&note.Note{Text: opened.Text}, signer)
	if err != nil {
		fail("Sign: %v", err)
	}
	if !bytes.Equal(resigned, read(dir, "checkpoint")) {
		fail("Go's signature with the Rust signer key differs:\n%s", resigned)
	}
	fmt.Println("ok note.NewSigner reads the Rust signer key and signs the same note")

	// The records from the entry bundles; StoredHashes and TreeHash.
	stored := memoryHashes{}
	var records [][]byte
	for _, t := range tilesOf(size) {
		if t.L != 0 {
			continue
		}
		t.L = -1
		data := read(dir, c2spPath(t))
		for len(data) > 0 {
			if len(data) < 2 {
				fail("%s: truncated length", c2spPath(t))
			}
			n := int(binary.BigEndian.Uint16(data))
			if len(data) < 2+n {
				fail("%s: truncated record", c2spPath(t))
			}
			records = append(records, data[2:2+n])
			data = data[2+n:]
		}
	}
	if int64(len(records)) != size {
		fail("the entry bundles hold %d records, the checkpoint says %d", len(records), size)
	}
	for i, rec := range records {
		hs, err := tlog.StoredHashes(int64(i), rec, stored)
		if err != nil {
			fail("StoredHashes: %v", err)
		}
		base := tlog.StoredHashIndex(0, int64(i))
		for j, h := range hs {
			stored[base+int64(j)] = h
		}
	}
	th, err := tlog.TreeHash(size, stored)
	if err != nil || th != root {
		fail("TreeHash over the records is %v (%v), the checkpoint says %v", th, err, root)
	}
	oth, err := tlog.TreeHash(oldSize, stored)
	if err != nil || oth != oldRoot {
		fail("TreeHash over the first %d records is %v (%v), the older checkpoint says %v", oldSize, oth, err, oldRoot)
	}
	fmt.Printf("ok tlog.TreeHash over the %d records of the entry bundles is both checkpoints' root\n", size)

	// Every hash tile, byte for byte, as ReadTileData computes it.
	tiles := tilesOf(size)
	for _, t := range tiles {
		want, err := tlog.ReadTileData(t, stored)
		if err != nil {
			fail("ReadTileData(%v): %v", t, err)
		}
		got := read(dir, c2spPath(t))
		if !bytes.Equal(got, want) {
			fail("tile %s differs from tlog.ReadTileData", c2spPath(t))
		}
	}
	fmt.Printf("ok tlog.ReadTileData gives the %d hash tiles byte for byte\n", len(tiles))

	// A hash reader over the Rust tiles alone, checked by Go against the
	// signed tree.
	fromTiles := tlog.TileHashReader(tlog.Tree{N: size, Hash: root}, dirTiles{dir})
	if th, err := tlog.TreeHash(size, fromTiles); err != nil || th != root {
		fail("TreeHash through TileHashReader: %v %v", th, err)
	}
	fmt.Println("ok tlog.TileHashReader reads the tiles and they hash to the checkpoint")

	checkCosignature(dir, verifiers)

	f, err := os.Open(filepath.Join(dir, "proofs"))
	if err != nil {
		fail("%v", err)
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	checked := 0
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		switch {
		case len(fields) == 3 && fields[0] == "inclusion":
			index := atoi(fields[1])
			proof := tlog.RecordProof(hashes(fields[2]))
			if err := tlog.CheckRecord(proof, size, root, index, tlog.RecordHash(records[index])); err != nil {
				fail("CheckRecord(%d): %v", index, err)
			}
			goProof, err := tlog.ProveRecord(size, index, fromTiles)
			if err != nil || len(goProof) != len(proof) {
				fail("ProveRecord(%d): %v", index, err)
			}
			for i := range proof {
				if proof[i] != goProof[i] {
					fail("ProveRecord(%d) differs at %d", index, i)
				}
			}
			fmt.Printf("ok tlog.CheckRecord accepts the inclusion proof of record %d (%d hashes, the same as ProveRecord's)\n", index, len(proof))
		case len(fields) == 2 && fields[0] == "consistency":
			proof := tlog.TreeProof(hashes(fields[1]))
			if err := tlog.CheckTree(proof, size, root, oldSize, oldRoot); err != nil {
				fail("CheckTree(%d, %d): %v", size, oldSize, err)
			}
			goProof, err := tlog.ProveTree(size, oldSize, fromTiles)
			if err != nil || len(goProof) != len(proof) {
				fail("ProveTree: %v", err)
			}
			for i := range proof {
				if proof[i] != goProof[i] {
					fail("ProveTree differs at %d", i)
				}
			}
			fmt.Printf("ok tlog.CheckTree accepts the consistency proof from %d to %d (%d hashes, the same as ProveTree's)\n", oldSize, size, len(proof))
		default:
			fail("proofs: unknown line %q", scanner.Text())
		}
		checked++
	}
	if err := scanner.Err(); err != nil {
		fail("%v", err)
	}
	if checked == 0 {
		fail("no proof checked")
	}
	fmt.Printf("ok %d proofs\n", checked)
}

// checkCosignature verifies a witness's cosignature by C2SP tlog-cosignature
// alone (x/mod has no cosignature support): the vkey's type byte 0x04 and
// key ID, the signature line's key ID, 8-byte big-endian timestamp and
// Ed25519 signature over "cosignature/v1\ntime <t>\n" and the note text.
func checkCosignature(dir string, verifiers note.Verifiers) {
	vkey := strings.TrimSpace(string(read(dir, "witness")))
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		fail("witness key %q", vkey)
	}
	name := parts[0]
	hash, err := strconv.ParseUint(parts[1], 16, 32)
	if err != nil || len(parts[1]) != 8 {
		fail("witness key hash %q", parts[1])
	}
	key, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(key) != 33 || key[0] != 0x04 {
		fail("witness key %q is not type 0x04 and 32 bytes", parts[2])
	}
	id := sha256.Sum256(append([]byte(name+"\n"), key...))
	if binary.BigEndian.Uint32(id[:4]) != uint32(hash) {
		fail("witness key hash %08x, expected %x", hash, id[:4])
	}
	n, err := note.Open(read(dir, "cosigned"), verifiers)
	if err != nil {
		fail("note.Open of the cosigned checkpoint: %v", err)
	}
	for _, sig := range n.UnverifiedSigs {
		if sig.Name != name || sig.Hash != uint32(hash) {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(sig.Base64)
		if err != nil || len(raw) != 4+8+64 {
			fail("cosignature of %s is not 4+8+64 bytes", name)
		}
		ts := binary.BigEndian.Uint64(raw[4:12])
		msg := fmt.Sprintf("cosignature/v1\ntime %d\n%s", ts, n.Text)
		if !ed25519.Verify(ed25519.PublicKey(key[1:]), []byte(msg), raw[12:]) {
			fail("cosignature of %s does not verify", name)
		}
		fmt.Printf("ok the cosignature/v1 of %s at %d verifies (crypto/ed25519 over the C2SP tlog-cosignature message)\n", name, ts)
		return
	}
	fail("no cosignature of %s+%08x", name, hash)
}
