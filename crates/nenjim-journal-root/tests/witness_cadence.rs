//! Witnesses on a root whose writer publishes checkpoints at an interval
//! (format section 10): a witness cosigns whatever checkpoint is current,
//! even one the ledger has moved past; `verify` checks its prefix and
//! counts the entries after it; the quorum is checked as before; once the
//! writer closes, the witness cosigns the newer checkpoint, consistent
//! with the one it cosigned.

use std::time::Duration;

use nenjim_journal_api::valuetypes::Description;
use nenjim_journal_root::publish::{self, NewRelease};
use nenjim_journal_root::verify::{self, SignedRoot};
use nenjim_journal_root::witness::{self, WitnessState};
use nenjim_journal_root::{Creating, FsJournalWriter, Root, WriterOptions};
use nenjim_journal_tlog::note::{Algorithm, SignerKey, VerifierKey};

/// A new `testmem://` root at `address`, signed by `hub.test` (key of
/// `seed`), with a writer at `interval` that has created `left-pad`: the
/// root, the log's verifier key and the open writer.
fn created_at(address: &str, seed: u8, interval: Duration) -> (Root, VerifierKey, FsJournalWriter) {
    let (signer, verifier) = nenjim_journal_testkit::signed::key("hub.test", seed);
    let root = Root::open(address).unwrap();
    root.create(&Creating::new()).unwrap();
    let options = root
        .as_content_store_of(
            WriterOptions::new()
                .signing_key(&signer)
                .checkpoint_interval(interval),
        )
        .unwrap();
    let mut writer = root.writer(options).unwrap();
    let description = Description::new("Pads strings").unwrap();
    publish::create(&mut writer, &left_pad(), &description, None).unwrap();
    (root, VerifierKey::parse(&verifier).unwrap(), writer)
}

fn left_pad() -> nenjim_journal_api::valuetypes::ArtifactCoordinate {
    "left-pad".parse().unwrap()
}

#[test]
fn a_witness_cosigns_the_current_checkpoint_of_a_lagging_root() {
    let state = tempfile::tempdir().unwrap();
    let (root, key, mut writer) = created_at(
        "testmem://witness-cadence/hub",
        9,
        Duration::from_secs(3600),
    );
    let coordinate = left_pad();
    // The open signed the empty root; nothing since is covered.
    let signed = SignedRoot::open(&root).unwrap();
    let verified = verify::verify(&signed, &key).unwrap();
    assert_eq!((verified.checkpoint().size(), verified.uncovered()), (0, 1));
    assert_eq!(verified.revisions(), 1);

    let alpha = SignerKey::from_seed("alpha.test", Algorithm::CosignatureV1, [3; 32]).unwrap();
    let alpha = witness::witness_key(&format!("{}\n", alpha.to_key_string())).unwrap();
    let witnesses = [alpha.verifier()];
    let alpha_state = WitnessState::new(&state.path().join("alpha"), "hub.test");
    let first = witness::cosign(&signed, &alpha, &alpha_state, &key).unwrap();
    assert_eq!(first.checkpoint().size(), 0);
    let current = verified.checkpoint().clone();
    assert_eq!(
        verify::check_quorum(&signed, &current, &key, &witnesses, 1).unwrap(),
        1
    );

    let release = NewRelease::new(
        "1.0.0".parse().unwrap(),
        "MIT".parse().unwrap(),
        b"1.0.0".to_vec(),
    );
    publish::release(&mut writer, &coordinate, vec![release]).unwrap();
    writer.close().unwrap();
    let verified = verify::verify(&signed, &key).unwrap();
    assert_eq!((verified.checkpoint().size(), verified.uncovered()), (2, 0));
    let again = witness::cosign(&signed, &alpha, &alpha_state, &key).unwrap();
    assert_eq!(again.previous().map(|c| c.size()), Some(0));
    assert_eq!(again.checkpoint().size(), 2);
    assert_eq!(
        verify::check_quorum(&signed, verified.checkpoint(), &key, &witnesses, 1).unwrap(),
        1
    );
}

/// A hub's answer to "is my release in the log?" through the library, on a
/// root signed at a short interval: the writer waits for a checkpoint
/// covering the release's entry, and the root proves its record from the
/// tiles; the proof checks against the checkpoint. An entry the
/// checkpoint does not cover yet is `CheckpointMismatch`, said as such.
#[test]
fn a_release_is_proved_once_a_checkpoint_covers_it() {
    use nenjim_journal_api::error::ErrorKind;
    use nenjim_journal_tlog::hash::leaf_hash;
    use nenjim_journal_tlog::tree::verify_inclusion;

    let (root, key, mut writer) = created_at(
        "testmem://witness-cadence/prove",
        10,
        Duration::from_millis(10),
    );
    let coordinate = left_pad();
    let release = NewRelease::new(
        "1.0.0".parse().unwrap(),
        "MIT".parse().unwrap(),
        b"1.0.0".to_vec(),
    );
    let published = publish::release(&mut writer, &coordinate, vec![release]).unwrap();
    let sequence = published.revision().sequence();
    let covered = writer.wait_for_checkpoint(sequence).unwrap();
    assert!(covered >= sequence);

    let signed = SignedRoot::open(&root).unwrap();
    let checkpoint = verify::verify(&signed, &key).unwrap().checkpoint().clone();
    let entry = signed.entry(sequence).unwrap().unwrap();
    assert!(signed.entry(sequence + 100).unwrap().is_none());
    let proof = signed.prove(&checkpoint, &entry).unwrap();
    assert_eq!(proof.index(), sequence - 1);
    assert_eq!(proof.tree_size(), checkpoint.size());
    assert!(
        proof
            .record()
            .starts_with(&format!("{sequence} REVISION left-pad "))
    );
    verify_inclusion(
        &leaf_hash(proof.record().as_bytes()),
        proof.index(),
        proof.tree_size(),
        checkpoint.root(),
        proof.proof(),
    )
    .unwrap();
    writer.close().unwrap();

    // A checkpoint that does not cover the entry: the first one, of the
    // empty tree, kept from before.
    let empty = nenjim_journal_tlog::checkpoint::Checkpoint::new(
        "hub.test",
        0,
        nenjim_journal_tlog::hash::empty_root(),
    )
    .unwrap();
    let behind = signed.prove(&empty, &entry).unwrap_err();
    assert_eq!(behind.kind(), ErrorKind::CheckpointMismatch, "{behind}");
    assert!(behind.to_string().contains("behind the ledger"), "{behind}");
}
