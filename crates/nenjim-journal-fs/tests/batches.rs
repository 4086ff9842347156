//! A root of many artifacts: parsed in batches on worker threads and
//! ingested in order while they arrive. The result, and the error reported,
//! are those of a sequential load, whatever order the batches finish in.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use nenjim_journal_api::error::ErrorKind;
use nenjim_journal_api::model::build;
use nenjim_journal_chain::ChainState;
use nenjim_journal_fs::{LoadOptions, load};
use nenjim_journal_testkit::texts::{Root, genesis, successor, ts};

/// More artifacts than several batches hold (a batch is 64 artifacts).
const ARTIFACTS: usize = 300;

fn coordinate(i: usize) -> String {
    format!("org.example.a{i:03}")
}

/// Each artifact: a genesis and a successor that restates its release.
fn many(root: &Root) -> Vec<(String, String, String)> {
    (0..ARTIFACTS)
        .map(|i| {
            let c = coordinate(i);
            let first = genesis(&c, &ts(1), &["1.0.0"]);
            let second = successor(&first, &c, &ts(2), &["1.0.0", "1.1.0"]);
            root.put(&c, &ts(1), &first);
            root.put(&c, &ts(2), &second);
            (c, first, second)
        })
        .collect()
}

#[test]
fn a_load_in_batches_equals_sequential_ingestion() {
    let root = Root::new();
    let texts = many(&root);
    let loaded = load(root.path(), LoadOptions::new()).unwrap();
    let mut sequential = ChainState::new();
    for (_, first, second) in &texts {
        for text in [first, second] {
            let revision = nenjim_journal_parser::parse(text).unwrap();
            sequential = sequential.ingest_revision(revision).unwrap().into_state();
        }
    }
    assert_eq!(loaded.len(), sequential.len());
    for (c, _, _) in &texts {
        let c = c.parse().unwrap();
        assert_eq!(loaded.revisions(&c), sequential.revisions(&c), "{c}");
        // The successor shares the release it restates byte for byte.
        let revisions = loaded.revisions(&c);
        let (old, new) = (&revisions[0].releases()[0], &revisions[1].releases()[0]);
        assert!(build::shares_values(new, old));
    }
}

#[test]
fn the_first_error_in_ingestion_order_is_reported_from_any_batch() {
    // Errors in an early, a middle and a late batch: the early one wins,
    // then (once it is fixed) the middle one.
    let root = Root::new();
    let texts = many(&root);
    let broken = |i: usize| {
        let (c, _, second) = &texts[i];
        root.put(c, &ts(2), &second.replace("LICENSE MIT", "LICENSE mit"))
    };
    let late = broken(290);
    let middle = broken(150);
    let early = broken(70);
    for expected in [early, middle, late] {
        let error = load(root.path(), LoadOptions::new()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Semantic, "{error}");
        assert_eq!(error.path(), Some(expected.as_path()), "{error}");
        // Fixed: the next one is reported.
        let c = expected
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let i: usize = c.trim_start_matches("org.example.a").parse().unwrap();
        root.put(c, &ts(2), &texts[i].2);
    }
    assert_eq!(
        load(root.path(), LoadOptions::new()).unwrap().len(),
        2 * ARTIFACTS as u64
    );
}

#[test]
fn a_misplaced_entry_counts_at_its_place_among_the_parse_errors() {
    let root = Root::new();
    let texts = many(&root);
    let broken = |i: usize| {
        let (c, _, second) = &texts[i];
        root.put(c, &ts(2), &second.replace("LICENSE MIT", "LICENSE mit"))
    };
    // A stray root file sorts after every artifact; a bad name in artifact
    // 200 sorts after its files; a parse error in artifact 250.
    let stray = root.write("zzz-stray", "x");
    let late_parse = broken(250);
    let bad_name = root.write(&format!("{}/{}.bak", coordinate(200), ts(9)), "x");
    let error = load(root.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidFileName, "{error}");
    assert_eq!(error.path(), Some(bad_name.as_path()));
    // A parse error in artifact 200's own files comes before its bad name.
    let own_parse = broken(200);
    let error = load(root.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.path(), Some(own_parse.as_path()), "{error}");
    // Without the bad name and that error: the later parse error, then the stray file.
    std::fs::remove_file(&bad_name).unwrap();
    root.put(&coordinate(200), &ts(2), &texts[200].2);
    let error = load(root.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.path(), Some(late_parse.as_path()), "{error}");
    root.put(&coordinate(250), &ts(2), &texts[250].2);
    let error = load(root.path(), LoadOptions::new()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::UnexpectedEntry, "{error}");
    assert_eq!(error.path(), Some(stray.as_path()));
}
