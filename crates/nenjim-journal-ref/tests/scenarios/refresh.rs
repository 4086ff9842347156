//! Refresh: an unchanged root, a new revision discovered, and refresh as
//! no service operation.

use super::*;

#[test]
fn unchanged_refresh() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let before = dump(&*assembly.service());
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(0, 4, 0)
    );
    assert_eq!(dump(&*assembly.service()), before);
}

#[test]
fn new_revision_discovered() {
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let next = successor(&texts[2], "serde", &ts(40), &["1.0.0", "1.1.0", "2.0.0"]);
    root.put("serde", &ts(40), &next);
    root.put("new-one", &ts(1), &genesis("new-one", &ts(1), &[]));
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(2, 4, 0)
    );
    let service = assembly.service();
    let latest = service.latest(&coordinate("serde")).unwrap().unwrap();
    assert_eq!(*latest.digest(), RevisionDigest::of_text(&next));
    assert_eq!(latest.sequence(), 6, "new-one (5) sorts before serde");
    assert!(service.coordinates().unwrap().contains("new-one"));
    assert_chain_intact(&service.revisions(&coordinate("serde")).unwrap());
    // And the next refresh sees them as unchanged.
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(0, 6, 0)
    );
}

#[test]
fn refresh_is_not_a_service_operation() {
    // The service never reads the disk again: a new file shows only after
    // the manager's refresh.
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    root.put(
        "serde",
        &ts(40),
        &successor(&texts[2], "serde", &ts(40), &["1.0.0", "1.1.0", "2.0.0"]),
    );
    for _ in 0..3 {
        assert_eq!(service.revisions(&coordinate("serde")).unwrap().len(), 3);
        assert_eq!(dump(&*service).len(), 4);
    }
    assembly.manager().refresh().unwrap();
    assert_eq!(service.revisions(&coordinate("serde")).unwrap().len(), 4);
}
