//! Ingestion and chains: valid genesis and successors, the text digest,
//! atomic failures, missing, forked, stale or non-increasing predecessors,
//! repeated and conflicting texts.

use super::*;

#[test]
fn valid_internal_ingestion() {
    // Sequences follow the ingestion order: artifacts by coordinate, then time.
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let order: Vec<(String, String, u64)> = dump(&*assembly.service())
        .into_iter()
        .map(|(c, v, _, s)| (c, v, s))
        .collect();
    assert_eq!(
        order,
        vec![
            ("left-pad".to_owned(), ts(5), 1),
            ("serde".to_owned(), ts(10), 2),
            ("serde".to_owned(), ts(20), 3),
            ("serde".to_owned(), ts(30), 4),
        ]
    );
    let after_two: Vec<u64> = {
        let mut cursor = assembly.service().replay(&ReplayRequest::after(2)).unwrap();
        std::iter::from_fn(|| cursor.next().unwrap().map(|r| r.sequence())).collect()
    };
    assert_eq!(after_two, vec![3, 4]);
}

#[test]
fn exact_text_digest() {
    // The digest is over the exact bytes: comments and CRLF included.
    let root = Root::new();
    let text = format!(
        "# a comment\r\n{}\r\n\r\n",
        genesis("serde", &ts(1), &["1.0.0"])
            .trim_end()
            .replace('\n', "\r\n")
    );
    root.put("serde", &ts(1), &text);
    let assembly = started(&root);
    let latest = assembly
        .service()
        .latest(&coordinate("serde"))
        .unwrap()
        .unwrap();
    assert_eq!(*latest.digest(), RevisionDigest::of_text(&text));
    assert_ne!(
        *latest.digest(),
        RevisionDigest::of_text(&genesis("serde", &ts(1), &["1.0.0"]))
    );
}

#[test]
fn failed_ingestion_is_atomic() {
    // A refresh whose revision rewrites a release leaves the state identical.
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let before = dump(&*assembly.service());
    let rewritten = revision("serde", &ts(40), Some(&texts[2]), &["1.0.0", "2.0.0"], &[]);
    let path = root.put("serde", &ts(40), &rewritten);
    let error = assembly.manager().refresh().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ReleaseRewritten);
    assert_eq!(error.path(), Some(path.as_path()));
    assert_eq!(dump(&*assembly.service()), before);
}

#[test]
fn valid_successor() {
    let root = Root::new();
    let g = genesis("serde", &ts(1), &["1.0.0"]);
    let s = successor(&g, "serde", &ts(2), &["1.0.0", "1.0.1"]);
    root.put("serde", &ts(1), &g);
    root.put("serde", &ts(2), &s);
    let assembly = started(&root);
    let revisions = assembly.service().revisions(&coordinate("serde")).unwrap();
    assert_eq!(revisions.len(), 2);
    assert_chain_intact(&revisions);
    assert_eq!(revisions[1].releases().len(), 2);
    assert!(build::shares_values(
        &revisions[1].releases()[0],
        &revisions[0].releases()[0]
    ));
}

#[test]
fn missing_or_cross_artifact_predecessor() {
    let missing = Root::new();
    let elsewhere = genesis("serde", &ts(0), &[]);
    missing.put("serde", &ts(1), &genesis("serde", &ts(1), &[]));
    let path = missing.put(
        "serde",
        &ts(2),
        &successor(&elsewhere, "serde", &ts(2), &[]),
    );
    let assembly = JournalAssembly::new(missing.path());
    let error = assembly.process().start().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::UnknownPredecessor);
    assert_eq!(error.path(), Some(path.as_path()));

    let cross = Root::new();
    let left_pad = genesis("left-pad", &ts(1), &[]);
    cross.put("left-pad", &ts(1), &left_pad);
    cross.put("serde", &ts(1), &genesis("serde", &ts(1), &[]));
    let path = cross.put("serde", &ts(2), &successor(&left_pad, "serde", &ts(2), &[]));
    let assembly = JournalAssembly::new(cross.path());
    let error = assembly.process().start().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::CrossArtifactPredecessor);
    assert_eq!(error.path(), Some(path.as_path()));
}

#[test]
fn fork_or_stale_predecessor() {
    let root = Root::new();
    let g = genesis("serde", &ts(1), &["1.0.0"]);
    root.put("serde", &ts(1), &g);
    root.put("serde", &ts(2), &successor(&g, "serde", &ts(2), &["1.0.0"]));
    let assembly = started(&root);
    let before = dump(&*assembly.service());
    let path = root.put("serde", &ts(3), &successor(&g, "serde", &ts(3), &["1.0.0"]));
    let error = assembly.manager().refresh().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::StalePredecessor);
    assert_eq!(error.path(), Some(path.as_path()));
    assert_eq!(dump(&*assembly.service()), before);
}

#[test]
fn non_increasing_revision_time() {
    // A successor of the head dated before the head is refused.
    let root = Root::new();
    let g = genesis("serde", &ts(10), &["1.0.0"]);
    let s1 = successor(&g, "serde", &ts(30), &["1.0.0"]);
    root.put("serde", &ts(10), &g);
    root.put("serde", &ts(30), &s1);
    let assembly = started(&root);
    let before = dump(&*assembly.service());
    let path = root.put(
        "serde",
        &ts(20),
        &successor(&s1, "serde", &ts(20), &["1.0.0"]),
    );
    let error = assembly.manager().refresh().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NonIncreasingVersion);
    assert_eq!(error.path(), Some(path.as_path()));
    assert_eq!(dump(&*assembly.service()), before);
}

#[test]
fn repeated_identical_text() {
    // Re-reading identical texts is idempotent: same revisions, same sequences.
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let before = dump(&*assembly.service());
    let manager = assembly.manager();
    assert_eq!(manager.refresh().unwrap(), build::refresh_report(0, 4, 0));
    assert_eq!(manager.refresh().unwrap(), build::refresh_report(0, 4, 0));
    assert_eq!(dump(&*assembly.service()), before);

    // An example identical to its runtime file is the same revision, once.
    let both = Root::new();
    let g = genesis("serde", &ts(1), &["1.0.0"]);
    both.put("serde", &ts(1), &g);
    both.write(&format!("serde/{}.journal.example", ts(1)), &g);
    let assembly =
        JournalAssembly::with_options(both.path(), LoadOptions::new().with_examples(true));
    assembly.process().start().unwrap();
    assert_eq!(dump(&*assembly.service()).len(), 1);
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(0, 2, 0)
    );
}

#[test]
fn conflicting_text() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let before = dump(&*assembly.service());
    let path = root.join(&format!("serde/{}.journal", ts(20)));
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("DESCRIPTION \"test", "DESCRIPTION \"edited");
    std::fs::write(&path, edited).unwrap();
    // A new file after the conflicting one is not reached either.
    root.put("zzz", &ts(1), &genesis("zzz", &ts(1), &[]));
    let error = assembly.manager().refresh().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Conflict);
    assert_eq!(error.path(), Some(path.as_path()));
    assert_eq!(dump(&*assembly.service()), before);
}
