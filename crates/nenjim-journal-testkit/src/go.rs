//! The Go programs of the interop tests: built with Debian's `golang-go`
//! against Debian's `golang-golang-x-mod-dev` sources, in GOPATH mode (no
//! network). A missing Go or missing sources fails the test, naming the
//! packages to install (`cargo xtask ci` provisions them).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Debian's Go sources (golang-golang-x-mod-dev).
pub const GOPATH: &str = "/usr/share/gocode";

/// What a test without Go or the x/mod sources is told to install.
const INSTALL: &str =
    "apt-get install golang-go golang-golang-x-mod-dev; `cargo xtask ci` provisions them";

/// Builds the Go program `source` into `dir` (as `dir/<name>`), after
/// checking that `needs` (a path under `GOPATH/src`, e.g.
/// `golang.org/x/mod/sumdb/note/note.go`) is there. Panics (the test
/// fails) without Go, without the sources, or when the build fails.
pub fn build(source: &Path, dir: &Path, name: &str, needs: &str) -> PathBuf {
    let needed = Path::new(GOPATH).join("src").join(needs);
    assert!(
        needed.is_file(),
        "{} is missing: this test needs Debian's golang-golang-x-mod-dev ({INSTALL})",
        needed.display()
    );
    let binary = dir.join(name);
    let output = Command::new("go")
        .arg("build")
        .arg("-o")
        .arg(&binary)
        .arg(source)
        .env("GO111MODULE", "off")
        .env("GOPATH", GOPATH)
        .env("GOCACHE", dir.join("gocache"))
        .env("GOFLAGS", "")
        .env("CGO_ENABLED", "0")
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run `go` ({e}): this test needs Debian's golang-go and golang-golang-x-mod-dev ({INSTALL})"
            )
        });
    assert!(
        output.status.success(),
        "go build of {} failed: {}",
        source.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    binary
}
