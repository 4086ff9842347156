//! `keygen`: the built binary writes a note signer key to a new file, mode
//! 0600, and prints its verifier key; never over an existing file, never a
//! partial file, a bad name is a usage error.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;
use std::process::Output;

use nenjim_journal_testkit::cli::{assert_code, command, json, output, stderr, stdout, tempdir};
use nenjim_journal_tlog::note::{Algorithm, Note, SignerKey, VerifierKey};

fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    output(&mut command(env!("CARGO_BIN_EXE_nenjim-journal"), args))
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn keygen_writes_a_private_signer_key_and_prints_its_verifier_key() {
    let dir = tempdir();
    let out = dir.path().join("hub.key");
    let output = run(&[&"keygen", &"example.org/journal", &"--out", &out]);
    assert_code(&output, 0);
    let text = fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with("PRIVATE+KEY+example.org/journal+") && text.ends_with('\n'),
        "{text}"
    );
    let signer = SignerKey::from_file_text(&text).unwrap();
    assert_eq!(signer.algorithm(), Algorithm::Ed25519);
    let printed = stdout(&output);
    assert_eq!(printed, format!("{}\n", signer.verifier()));
    // The printed verifier key verifies what the written key signs.
    let vkey = VerifierKey::parse(printed.trim_end()).unwrap();
    let mut note =
        Note::new("example.org/journal\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n")
            .unwrap();
    note.sign(&signer).unwrap();
    note.verify(&vkey).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the key file is the owner's only");
    }
    assert_eq!(
        names_in(dir.path()),
        ["hub.key"],
        "no temporary file is left"
    );

    // Two runs, two keys.
    let second = dir.path().join("other.key");
    let output = run(&[
        &"keygen",
        &"example.org/journal",
        &"--out",
        &second,
        &"--json",
    ]);
    assert_code(&output, 0);
    let doc = json(&output);
    let other = SignerKey::from_file_text(&fs::read_to_string(&second).unwrap()).unwrap();
    assert_eq!(doc["command"], "keygen");
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["name"], "example.org/journal");
    assert_eq!(doc["verifier_key"], other.verifier().to_string());
    assert_eq!(doc["key_hash"], format!("{:08x}", other.key_hash()));
    assert_ne!(other.to_key_string(), signer.to_key_string());
}

#[test]
fn keygen_never_writes_over_a_file_and_refuses_bad_names() {
    let dir = tempdir();
    let out = dir.path().join("hub.key");
    fs::write(&out, "precious\n").unwrap();
    let output = run(&[&"keygen", &"example.org/journal", &"--out", &out]);
    assert_code(&output, 2);
    assert!(
        output.stdout.is_empty(),
        "no verifier key for a key not written"
    );
    let said = stderr(&output);
    assert!(said.contains("the file exists"), "{said}");
    assert_eq!(fs::read_to_string(&out).unwrap(), "precious\n");
    // A dangling symbolic link is not written through either.
    #[cfg(unix)]
    {
        let link = dir.path().join("link.key");
        std::os::unix::fs::symlink(dir.path().join("target.key"), &link).unwrap();
        let output = run(&[&"keygen", &"example.org/journal", &"--out", &link]);
        assert_code(&output, 2);
        assert!(!dir.path().join("target.key").exists());
    }
    for name in ["a b", "a+b", ""] {
        let fresh = dir.path().join("fresh.key");
        let output = run(&[&"keygen", &name, &"--out", &fresh]);
        assert_eq!(output.status.code(), Some(2), "{name:?}");
        assert!(!fresh.exists(), "{name:?}");
        let said = stderr(&output);
        assert!(said.contains("key name"), "{said}");
    }
    // A directory that does not exist: an I/O error, nothing written.
    let missing = dir.path().join("no/such/dir/hub.key");
    let output = run(&[&"keygen", &"example.org/journal", &"--out", &missing]);
    assert_code(&output, 2);
    let mut names = names_in(dir.path());
    names.retain(|n| n != "link.key");
    assert_eq!(names, ["hub.key"], "nothing else is left behind");
}
