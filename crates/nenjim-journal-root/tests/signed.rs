//! A signed root (format section 10) through the library: verified with
//! the log's key, refused once a revision file is changed, consistent with
//! an older checkpoint, cosigned by witnesses and checked for a quorum.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::valuetypes::Description;
use nenjim_journal_root::publish::{self, NewRelease};
use nenjim_journal_root::verify::{self, SignedRoot};
use nenjim_journal_root::witness::{self, WitnessState};
use nenjim_journal_root::{Creating, Root, WriterOptions};
use nenjim_journal_tlog::note::{Algorithm, SignerKey, VerifierKey};

/// A root at `address` signed by the key `hub.test`, with an artifact and
/// `releases` releases: the root and the log's verifier key.
fn signed_root(address: &str, releases: &[&str]) -> (Root, VerifierKey) {
    let (signer, verifier) = nenjim_journal_testkit::signed::key("hub.test", 7);
    let root = Root::open(address).unwrap();
    root.create(&Creating::new()).unwrap();
    publish_to(&root, &signer, releases, true);
    (root, VerifierKey::parse(&verifier).unwrap())
}

fn publish_to(root: &Root, signer: &str, releases: &[&str], create: bool) {
    let options = root
        .as_content_store_of(WriterOptions::new().signing_key(signer))
        .unwrap();
    let mut writer = root.writer(options).unwrap();
    let coordinate = "left-pad".parse().unwrap();
    if create {
        let description = Description::new("Pads strings").unwrap();
        publish::create(&mut writer, &coordinate, &description, None).unwrap();
    }
    for version in releases {
        let release = NewRelease::new(
            version.parse().unwrap(),
            "MIT".parse().unwrap(),
            version.as_bytes().to_vec(),
        );
        publish::release(&mut writer, &coordinate, vec![release]).unwrap();
    }
    writer.close().unwrap();
}

fn witness_key(name: &str, seed: u8) -> SignerKey {
    let key = SignerKey::from_seed(name, Algorithm::CosignatureV1, [seed; 32]).unwrap();
    witness::witness_key(&format!("{}\n", key.to_key_string())).unwrap()
}

#[test]
fn a_signed_memory_root_is_verified_with_its_key_and_not_another() {
    let (root, key) = signed_root("testmem://signed-verify/hub", &["1.0.0", "1.1.0"]);
    let signed = SignedRoot::open(&root).unwrap();
    let verified = verify::verify(&signed, &key).unwrap();
    assert_eq!(verified.revisions(), 3);
    assert_eq!(verified.checkpoint().size(), 3);
    assert_eq!(verified.checkpoint().origin(), "hub.test");
    let found = signed.signed_by().unwrap().unwrap();
    assert_eq!(found.size(), 3);
    // Another key's signature is not the log's.
    let (_, other) = nenjim_journal_testkit::signed::key("hub.test", 8);
    let refused = verify::verify(&signed, &VerifierKey::parse(&other).unwrap()).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::CheckpointInvalid, "{refused}");
}

#[test]
fn an_unsigned_root_has_no_checkpoint() {
    let root = Root::open("testmem://signed-unsigned/hub").unwrap();
    root.create(&Creating::new()).unwrap();
    let signed = SignedRoot::open(&root).unwrap();
    assert!(signed.signed_by().unwrap().is_none());
    let error = signed.checkpoint_bytes().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::CheckpointInvalid);
    assert!(
        error.message().starts_with("found no checkpoint"),
        "{error}"
    );
}

#[test]
fn a_changed_revision_file_of_a_directory_root_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hub");
    let (root, key) = signed_root(path.to_str().unwrap(), &["1.0.0"]);
    let signed = SignedRoot::open(&root).unwrap();
    verify::verify(&signed, &key).unwrap();
    let entries = signed.entries().unwrap();
    let last = entries.iter().rev().find_map(|e| e.revision()).unwrap();
    let file = signed.revision_path(last);
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("# changed after the fact\n");
    let mut permissions = std::fs::metadata(&file).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false, reason = "a test's own file")]
    permissions.set_readonly(false);
    std::fs::set_permissions(&file, permissions).unwrap();
    std::fs::write(&file, text).unwrap();
    let refused = verify::verify(&signed, &key).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::LedgerMismatch, "{refused}");
    assert_eq!(refused.path(), Some(file.as_path()));
}

#[test]
fn a_missing_directory_root_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open(dir.path().join("absent").to_str().unwrap()).unwrap();
    let error = SignedRoot::open(&root).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Io, "{error}");
}

#[test]
fn an_older_checkpoint_is_consistent_and_a_newer_one_a_rollback() {
    let dir = tempfile::tempdir().unwrap();
    let (root, key) = signed_root("testmem://signed-since/hub", &["1.0.0"]);
    let signed = SignedRoot::open(&root).unwrap();
    let saved = dir.path().join("older.checkpoint");
    std::fs::write(&saved, signed.checkpoint_bytes().unwrap()).unwrap();
    let (signer, _) = nenjim_journal_testkit::signed::key("hub.test", 7);
    publish_to(&root, &signer, &["2.0.0"], false);
    let older = verify::read_checkpoint(&saved, &key).unwrap();
    let current = verify::verify(&signed, &key).unwrap();
    assert_eq!((older.size(), current.checkpoint().size()), (2, 3));
    signed
        .check_consistent(&older, current.checkpoint())
        .unwrap();
    let rollback = signed
        .check_consistent(current.checkpoint(), &older)
        .unwrap_err();
    assert_eq!(rollback.kind(), ErrorKind::Rollback, "{rollback}");
}

#[test]
fn witnesses_cosign_and_a_quorum_is_checked() {
    let state = tempfile::tempdir().unwrap();
    let (root, key) = signed_root("testmem://signed-witness/hub", &["1.0.0"]);
    let signed = SignedRoot::open(&root).unwrap();
    let origin = signed.checkpoint_unverified().unwrap().origin().to_owned();
    let checkpoint = verify::verify(&signed, &key).unwrap().checkpoint().clone();
    // No copy yet: no quorum.
    let none = verify::check_quorum(&signed, &checkpoint, &key, &[], 1).unwrap_err();
    assert_eq!(none.kind(), ErrorKind::CheckpointInvalid, "{none}");

    let (alpha, beta) = (witness_key("alpha.test", 1), witness_key("beta.test", 2));
    let witnesses = [alpha.verifier(), beta.verifier()];
    for (witness, dir) in [(&alpha, "alpha"), (&beta, "beta")] {
        let state = WitnessState::new(&state.path().join(dir), &origin);
        // The first time, the log's key is given; then it is kept.
        assert!(state.log_key(None).unwrap().is_none());
        let log_key = state.log_key(Some(key.clone())).unwrap().unwrap();
        let witnessed = witness::cosign(&signed, witness, &state, &log_key).unwrap();
        assert_eq!(witnessed.checkpoint().size(), 2);
        assert!(witnessed.previous().is_none());
        assert_eq!(
            state.log_key(None).unwrap().unwrap().to_string(),
            key.to_string()
        );
    }
    let count = verify::check_quorum(&signed, &checkpoint, &key, &witnesses, 2).unwrap();
    assert_eq!(count, 2);
    let short = verify::check_quorum(&signed, &checkpoint, &key, &witnesses, 3).unwrap_err();
    assert_eq!(short.kind(), ErrorKind::CheckpointInvalid, "{short}");

    // The root grows: alpha cosigns again, consistent with what it cosigned.
    let (signer, _) = nenjim_journal_testkit::signed::key("hub.test", 7);
    publish_to(&root, &signer, &["2.0.0"], false);
    let alpha_state = WitnessState::new(&state.path().join("alpha"), &origin);
    let again = witness::cosign(&signed, &alpha, &alpha_state, &key).unwrap();
    assert_eq!(again.previous().map(|c| c.size()), Some(2));
    assert_eq!(again.checkpoint().size(), 3);
    // The witnessed copy is of the new checkpoint, with alpha's line alone.
    let newest = verify::verify(&signed, &key).unwrap().checkpoint().clone();
    assert_eq!(
        verify::cosignatures(&signed, &newest, &key, &witnesses, 1).unwrap(),
        1
    );
}

#[test]
fn a_log_key_is_not_a_witness_key() {
    let (signer, _) = nenjim_journal_testkit::signed::key("hub.test", 7);
    let error = witness::witness_key(&signer).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::CheckpointInvalid, "{error}");
}
