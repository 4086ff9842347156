//! Keys, notes, checkpoints and cosignatures: round trips, and the
//! refusal of every malformed or wrongly signed input with
//! `CheckpointInvalid`, located where the input is text.

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_tlog::checkpoint::{
    Checkpoint, cosign, cosigned_message, count_cosignatures, verify_cosignature,
};
use nenjim_journal_tlog::hash::leaf_hash;
use nenjim_journal_tlog::note::{Algorithm, Note, NoteSignature, SignerKey, VerifierKey, key_hash};
use proptest::prelude::*;

fn key(name: &str, seed: u8) -> SignerKey {
    SignerKey::from_seed(name, Algorithm::Ed25519, [seed; 32]).unwrap()
}

fn witness(name: &str, seed: u8) -> SignerKey {
    SignerKey::from_seed(name, Algorithm::CosignatureV1, [seed; 32]).unwrap()
}

#[test]
fn the_go_note_key_vectors() {
    // The signer and verifier keys of the example in Go's
    // golang.org/x/mod/sumdb/note package documentation.
    let skey = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
    let vkey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
    let signer = SignerKey::parse(skey).unwrap();
    assert_eq!(signer.to_key_string(), skey);
    assert_eq!(signer.verifier().to_string(), vkey);
    let verifier = VerifierKey::parse(vkey).unwrap();
    assert_eq!(verifier, signer.verifier());
    assert_eq!(verifier.key_hash(), 0xc74f20a3);
    // Its signed example note.
    let note = "If you think cryptography is the answer to your problem,\n\
                then you don't know what your problem is.\n\
                \n\
                — PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
    let parsed = Note::parse(note.as_bytes()).unwrap();
    parsed.verify(&verifier).unwrap();
    assert_eq!(parsed.to_string(), note);
    // Ed25519 is deterministic: signing again gives the same line.
    let mut again = Note::new(parsed.text()).unwrap();
    again.sign(&signer).unwrap();
    assert_eq!(again.to_string(), note);
}

#[test]
fn generated_keys_round_trip() {
    let signer = SignerKey::generate("example.org/journal", Algorithm::Ed25519).unwrap();
    let other = SignerKey::generate("example.org/journal", Algorithm::Ed25519).unwrap();
    assert_ne!(signer.to_key_string(), other.to_key_string());
    let text = signer.to_key_string();
    assert!(text.starts_with("PRIVATE+KEY+example.org/journal+"));
    assert_eq!(SignerKey::parse(&text).unwrap().to_key_string(), text);
    assert_eq!(
        SignerKey::from_file_text(&format!("{text}\n"))
            .unwrap()
            .to_key_string(),
        text
    );
    let vkey = signer.verifier().to_string();
    assert_eq!(VerifierKey::parse(&vkey).unwrap().to_string(), vkey);
    assert!(
        !format!("{signer:?}").contains(&text[40..]),
        "Debug shows no secret"
    );
    // The key hash is the first 4 bytes of SHA-256(name ‖ 0x0A ‖ 0x01 ‖ key).
    let v = signer.verifier();
    assert_eq!(
        v.key_hash(),
        key_hash(v.name(), Algorithm::Ed25519, &v.public_key())
    );
    let w = SignerKey::from_seed("w", Algorithm::CosignatureV1, [7; 32]).unwrap();
    let e = SignerKey::from_seed("w", Algorithm::Ed25519, [7; 32]).unwrap();
    assert_ne!(
        w.key_hash(),
        e.key_hash(),
        "the type byte is in the key hash"
    );
    assert_eq!(
        VerifierKey::parse(&w.verifier().to_string())
            .unwrap()
            .algorithm(),
        Algorithm::CosignatureV1
    );
}

#[test]
fn malformed_keys_are_refused_with_their_column() {
    let good = key("example.org/j", 1);
    let vkey = good.verifier().to_string();
    let (name, rest) = vkey.split_once('+').unwrap();
    let (hash, b64) = rest.split_once('+').unwrap();
    let flipped_hash = format!("{:08x}", good.key_hash() ^ 1);
    let other_key = key("example.org/j", 2).verifier().to_string();
    let other_b64 = other_key.rsplit_once('+').unwrap().1;
    let cases: Vec<(String, usize)> = vec![
        (String::new(), 1),
        (name.to_owned(), 1),
        (format!("{name}+{hash}"), 1),
        (format!("+{hash}+{b64}"), 1),
        (format!("a b+{hash}+{b64}"), 1),
        (format!("{name}+{}+{b64}", &hash[..7]), name.len() + 2),
        (format!("{name}+{hash}0+{b64}"), name.len() + 2),
        (format!("{name}+zzzzzzzz+{b64}"), name.len() + 2),
        (
            format!("{name}+{hash}+{}", &b64[..b64.len() - 1]),
            name.len() + hash.len() + 3,
        ),
        (format!("{name}+{hash}+"), name.len() + hash.len() + 3),
        (format!("{name}+{hash}+AQ=="), name.len() + hash.len() + 3),
        (
            format!("{name}+{hash}+{}", b64.replacen('A', "B", 1)),
            name.len() + hash.len() + 3,
        ),
        (format!("{name}+{flipped_hash}+{b64}"), 1),
        (format!("{name}+{hash}+{other_b64}"), 1),
        (format!("other+{hash}+{b64}"), 1),
    ];
    for (text, column) in cases {
        let e = VerifierKey::parse(&text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckpointInvalid, "{text}: {e}");
        assert_eq!(
            (e.line(), e.column()),
            (Some(1), Some(column)),
            "{text}: {e}"
        );
    }
    let skey = good.to_key_string();
    for bad in [
        vkey.clone(),
        skey.replacen("PRIVATE", "PUBLIC", 1),
        skey.replacen("+KEY+", "+KEYS+", 1),
        skey[..skey.len() - 4].to_owned(),
        skey.replacen(&format!("{:08x}", good.key_hash()), &flipped_hash, 1),
        format!("{skey}\n"),
    ] {
        let e = SignerKey::parse(&bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckpointInvalid, "{bad}: {e}");
        assert!(e.line().is_some(), "{e}");
    }
    assert!(SignerKey::from_seed("a+b", Algorithm::Ed25519, [0; 32]).is_err());
    assert!(SignerKey::from_seed("", Algorithm::Ed25519, [0; 32]).is_err());
}

#[test]
fn notes_are_refused_when_malformed_at_their_line() {
    let signer = key("n", 3);
    let mut note = Note::new("line one\n\nline three\n").unwrap();
    note.sign(&signer).unwrap();
    let text = note.to_string();
    let parsed = Note::parse(text.as_bytes()).unwrap();
    assert_eq!(parsed, note);
    assert_eq!(
        parsed.text(),
        "line one\n\nline three\n",
        "the last blank line separates"
    );
    let sig_line = text.lines().last().unwrap().to_owned();
    type Case = (Vec<u8>, Option<(usize, usize)>);
    let cases: Vec<Case> = vec![
        (b"no signatures\n".to_vec(), None),
        (b"text\n\n".to_vec(), Some((3, 1))),
        (
            format!("text\n\n{sig_line}").into_bytes(),
            Some((3, sig_line.chars().count() + 1)),
        ),
        (
            format!("text\n\n{}\n", sig_line.replacen('—', "-", 1)).into_bytes(),
            Some((3, 1)),
        ),
        ("text\n\n— \n".to_owned().into_bytes(), Some((3, 3))),
        ("text\n\n— n\n".to_owned().into_bytes(), Some((3, 5))),
        ("text\n\n— n AAAA\n".to_owned().into_bytes(), Some((3, 5))),
        (
            "text\n\n— n AAAAAA==x\n".to_owned().into_bytes(),
            Some((3, 5)),
        ),
        (format!("te\tx\n\n{sig_line}\n").into_bytes(), Some((1, 3))),
        (
            b"te\xffxt\n\n\xe2\x80\x94 n AAAAAAA=\n".to_vec(),
            Some((1, 3)),
        ),
        (
            format!("text\n\n{}", format!("{sig_line}\n").repeat(101)).into_bytes(),
            Some((103, 1)),
        ),
    ];
    for (bytes, at) in cases {
        let e = Note::parse(&bytes).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckpointInvalid, "{e}");
        if let Some((line, column)) = at {
            assert_eq!((e.line(), e.column()), (Some(line), Some(column)), "{e}");
        }
    }
    assert!(Note::new("no final newline").is_err());
    assert!(Note::new("a\rb\n").is_err());
}

#[test]
fn a_note_verifies_only_with_its_key_and_text() {
    let signer = key("example.org/j", 4);
    let mut note = Note::new("hello\n").unwrap();
    note.sign(&signer).unwrap();
    note.verify(&signer.verifier()).unwrap();
    // Another key of the same name, the same key under another name,
    // another text, an extra invalid line of the same key: refused.
    let same_name = key("example.org/j", 5).verifier();
    assert_eq!(
        note.verify(&same_name).unwrap_err().kind(),
        ErrorKind::CheckpointInvalid
    );
    let mut edited = Note::new("hellO\n").unwrap();
    for s in note.signatures() {
        edited.add_signature(s.clone());
    }
    assert!(edited.verify(&signer.verifier()).is_err());
    let mut forged = note.clone();
    let mut bad = note.signatures()[0].clone();
    bad.signature[0] ^= 1;
    forged = {
        let mut n = Note::parse(format!("{forged}{bad}\n").as_bytes()).unwrap();
        n.add_signature(note.signatures()[0].clone());
        n
    };
    // Replacing keeps one line per key: the valid one was re-added last.
    assert!(forged.verify(&signer.verifier()).is_ok());
    let two_lines = Note::parse(format!("{note}{bad}\n").as_bytes()).unwrap();
    assert_eq!(two_lines.signatures().len(), 2);
    assert!(
        two_lines.verify(&signer.verifier()).is_err(),
        "an invalid line of a known key rejects the note"
    );
    // A note signed by an unknown key as well still verifies by the known one.
    let mut cosigned = note.clone();
    cosigned.sign(&key("someone.else", 6)).unwrap();
    assert!(cosigned.verify(&signer.verifier()).is_ok());
    // A cosigner key neither signs nor verifies a plain note.
    assert!(note.clone().sign(&witness("w", 1)).is_err());
    assert!(note.verify(&witness("w", 1).verifier()).is_err());
}

#[test]
fn checkpoints_round_trip_and_refuse_malformed_text() {
    let signer = key("example.org/journal", 8);
    let root = leaf_hash(b"x");
    let checkpoint = Checkpoint::new("example.org/journal", 42, root).unwrap();
    assert_eq!(
        checkpoint.text(),
        format!("example.org/journal\n42\n{}\n", root.to_base64())
    );
    let note = checkpoint.sign(&signer).unwrap();
    let (opened, _) = Checkpoint::open(note.to_string().as_bytes(), &signer.verifier()).unwrap();
    assert_eq!(opened, checkpoint);
    assert_eq!(
        Checkpoint::parse_text("o\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\next\n")
            .unwrap()
            .extensions(),
        ["ext"]
    );
    // Signed by a key of another name, opened by one whose name is not
    // the origin, or by another key: refused.
    assert!(checkpoint.sign(&key("other", 8)).is_err());
    let other = key("other", 8);
    let foreign = {
        let mut n = Note::new(checkpoint.text()).unwrap();
        n.sign(&other).unwrap();
        n.to_string()
    };
    assert_eq!(
        Checkpoint::open(foreign.as_bytes(), &other.verifier())
            .unwrap_err()
            .kind(),
        ErrorKind::CheckpointInvalid
    );
    assert!(
        Checkpoint::open(
            note.to_string().as_bytes(),
            &key("example.org/journal", 9).verifier()
        )
        .is_err()
    );
    let b64 = root.to_base64();
    for (text, line) in [
        ("o\n1\n".to_owned(), 2),
        (format!("o\n1\n{b64}"), 0),
        (format!("\n1\n{b64}\n"), 1),
        (format!("o\n01\n{b64}\n"), 2),
        (format!("o\n-1\n{b64}\n"), 2),
        (format!("o\n18446744073709551616\n{b64}\n"), 2),
        (format!("o\n\n{b64}\n"), 2),
        (format!("o\n1\n{}\n", &b64[..43]), 3),
        ("o\n1\nAAAA\n".to_owned(), 3),
        (format!("o\n1\n{b64}\n\n"), 4),
        (format!("o\n1\n{b64}\next\n\n"), 5),
    ] {
        let e = Checkpoint::parse_text(&text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckpointInvalid, "{text:?}: {e}");
        if line > 0 {
            assert_eq!(e.line(), Some(line), "{text:?}: {e}");
        }
    }
    assert!(Checkpoint::new("a b", 1, root).is_err());
}

#[test]
fn cosignatures_verify_and_are_refused_when_wrong() {
    let log = key("example.org/journal", 10);
    let w1 = witness("witness.example/w1", 11);
    let w2 = witness("witness.example/w2", 12);
    let mut note = Checkpoint::new("example.org/journal", 7, leaf_hash(b"r"))
        .unwrap()
        .sign(&log)
        .unwrap();
    let line = cosign(&note, &w1, 1_679_315_147).unwrap();
    assert_eq!(&line.signature[..8], &1_679_315_147u64.to_be_bytes());
    assert_eq!(line.signature.len(), 8 + 64);
    note.add_signature(line);
    let reparsed = Note::parse(note.to_string().as_bytes()).unwrap();
    assert_eq!(
        verify_cosignature(&reparsed, &w1.verifier()).unwrap(),
        1_679_315_147
    );
    reparsed.verify(&log.verifier()).unwrap();
    assert_eq!(
        verify_cosignature(&reparsed, &w2.verifier())
            .unwrap_err()
            .kind(),
        ErrorKind::CheckpointInvalid
    );
    // The message is the cosignature/v1 header, the time and the note text.
    assert_eq!(
        cosigned_message("o\n1\nh\n", 5),
        "cosignature/v1\ntime 5\no\n1\nh\n"
    );
    // A changed timestamp or text breaks it; a note key cannot cosign;
    // the log's key is no witness key.
    let mut shifted = reparsed.clone();
    let mut line = reparsed
        .signatures_of(&w1.verifier())
        .next()
        .unwrap()
        .clone();
    line.signature[7] ^= 1;
    shifted.add_signature(line);
    assert!(verify_cosignature(&shifted, &w1.verifier()).is_err());
    assert!(cosign(&note, &log, 1).is_err());
    assert!(cosign(&note, &w1, u64::MAX).is_err());
    assert!(verify_cosignature(&note, &log.verifier()).is_err());
    // The quorum counts valid cosignatures of the named keys, each once.
    let w3 = witness("witness.example/w3", 13);
    let mut both = reparsed.clone();
    both.add_signature(cosign(&both, &w2, 9).unwrap());
    let mut forged = cosign(&both, &w3, 9).unwrap();
    forged.signature[20] ^= 1;
    both.add_signature(forged);
    let keys = [
        w1.verifier(),
        w2.verifier(),
        w3.verifier(),
        w1.verifier(),
        log.verifier(),
    ];
    assert_eq!(count_cosignatures(&both, &keys), 2);
    assert_eq!(count_cosignatures(&both, &keys[2..3]), 0);
    assert_eq!(count_cosignatures(&shifted, &keys[..1]), 0);
    let truncated = NoteSignature {
        name: w1.name().to_owned(),
        key_hash: w1.key_hash(),
        signature: vec![0; 5],
    };
    let mut short = reparsed.clone();
    short.add_signature(truncated);
    assert!(verify_cosignature(&short, &w1.verifier()).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn checkpoints_round_trip(size in any::<u64>(), seed in any::<[u8; 32]>(), origin in "[a-z0-9./_-]{1,30}") {
        let signer = SignerKey::from_seed(&origin, Algorithm::Ed25519, seed).unwrap();
        let root = leaf_hash(&seed);
        let checkpoint = Checkpoint::new(&origin, size, root).unwrap();
        prop_assert_eq!(Checkpoint::parse_text(&checkpoint.text()).unwrap(), checkpoint.clone());
        let signed = checkpoint.sign(&signer).unwrap().to_string();
        let vkey = VerifierKey::parse(&signer.verifier().to_string()).unwrap();
        prop_assert_eq!(Checkpoint::open(signed.as_bytes(), &vkey).unwrap().0, checkpoint);
        let skey = SignerKey::parse(&signer.to_key_string()).unwrap();
        prop_assert_eq!(skey.to_key_string(), signer.to_key_string());
        // One flipped byte of the signed note is refused. (Not the last
        // base64 character, `len - 3`: its low bits are unused, so a flip
        // there may spell the same signature, which Go's note.Open
        // accepts too; see tests/go_note_verdicts.rs.)
        let bytes = signed.as_bytes();
        for at in [0, bytes.len() / 2, bytes.len() - 4] {
            let mut bad = bytes.to_vec();
            bad[at] ^= 0x01;
            prop_assert!(Checkpoint::open(&bad, &vkey).is_err());
        }
    }
}

#[test]
fn checkpoints_check_a_ledger_and_an_extension() {
    use nenjim_journal_tlog::hash::tree_hash;
    use nenjim_journal_tlog::tree::{LeafHashes, prove_consistency};
    let leaves: Vec<_> = (0..20u8).map(|i| leaf_hash(&[i])).collect();
    let at = |n: usize| Checkpoint::new("o", n as u64, tree_hash(&leaves[..n])).unwrap();
    let (old, new) = (at(7), at(20));
    old.check_tree(7, &tree_hash(&leaves[..7])).unwrap();
    for (size, root) in [(8, tree_hash(&leaves[..7])), (7, tree_hash(&leaves[..6]))] {
        let e = old.check_tree(size, &root).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckpointMismatch, "{e}");
    }
    let mut memory = LeafHashes(leaves.clone());
    let proof = prove_consistency(&mut memory, 7, 20).unwrap();
    old.check_extension(&new, &proof).unwrap();
    old.check_extension(&old, &[]).unwrap();
    // Smaller, forked, of another origin: Rollback.
    let forked = Checkpoint::new("o", 20, leaf_hash(b"fork")).unwrap();
    let other = Checkpoint::new("p", 20, *new.root()).unwrap();
    for e in [
        new.check_extension(&old, &proof).unwrap_err(),
        old.check_extension(&forked, &proof).unwrap_err(),
        old.check_extension(&other, &proof).unwrap_err(),
        old.check_extension(&at(7).clone(), &proof).unwrap_err(),
    ] {
        assert_eq!(e.kind(), ErrorKind::Rollback, "{e}");
    }
}
