//! Queries: chronological, latest, exact and as-of historical queries,
//! worldviews, and a query of something missing.

use super::*;

#[test]
fn chronological_and_latest_queries() {
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    let serde = coordinate("serde");
    let coordinates: Vec<String> = service
        .coordinates()
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(coordinates, vec!["left-pad", "serde"]);
    let revisions = service.revisions(&serde).unwrap();
    let versions: Vec<String> = revisions
        .iter()
        .map(|r| r.journal_version().to_string())
        .collect();
    assert_eq!(versions, vec![ts(10), ts(20), ts(30)]);
    assert_chain_intact(&revisions);
    let latest = service.latest(&serde).unwrap().unwrap();
    assert_eq!(*latest.digest(), RevisionDigest::of_text(&texts[2]));
    assert_eq!(latest, revisions[2]);
}

#[test]
fn exact_and_as_of_historical_queries() {
    let root = Root::new();
    let texts = three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    let serde = coordinate("serde");
    let exact = service.revision(&serde, version(&ts(20))).unwrap().unwrap();
    assert_eq!(*exact.digest(), RevisionDigest::of_text(&texts[1]));
    assert_eq!(service.revision(&serde, version(&ts(25))).unwrap(), None);
    let as_of = |k| {
        service
            .revision_as_of(&serde, version(&ts(k)))
            .unwrap()
            .map(|r| r.journal_version().to_string())
    };
    assert_eq!(as_of(9), None);
    assert_eq!(as_of(10), Some(ts(10)));
    assert_eq!(as_of(25), Some(ts(20)));
    assert_eq!(as_of(30), Some(ts(30)));
    assert_eq!(as_of(3000), Some(ts(30)));
}

#[test]
fn release_query_from_selected_worldview() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    let serde = coordinate("serde");
    let at = |k: u32, r: &str| {
        service
            .release(&serde, version(&ts(k)), &release(r))
            .unwrap()
    };
    let old = at(20, "1.0.0").unwrap();
    assert_eq!(old.policy().yanked(), None);
    let new = at(30, "1.0.0").unwrap();
    assert_eq!(new.policy().yanked().map(|d| d.as_str()), Some("broken"));
    assert!(build::same_values(&old, &new));
    assert!(at(20, "1.1.0").unwrap().policy().is_recommended());
    assert!(!at(30, "1.1.0").unwrap().policy().is_recommended());
    assert_eq!(at(20, "2.0.0"), None, "not yet released in that worldview");
    assert_eq!(at(25, "1.0.0"), None, "no revision at that instant");
}

#[test]
fn missing_query_result() {
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    let unknown = coordinate("unknown");
    assert_eq!(service.revisions(&unknown).unwrap(), vec![]);
    assert_eq!(service.latest(&unknown).unwrap(), None);
    assert_eq!(service.revision(&unknown, version(&ts(10))).unwrap(), None);
    assert_eq!(
        service.revision_as_of(&unknown, version(&ts(99))).unwrap(),
        None
    );
    assert_eq!(
        service
            .release(&unknown, version(&ts(10)), &release("1.0.0"))
            .unwrap(),
        None
    );
    assert_eq!(
        service
            .release(&coordinate("serde"), version(&ts(10)), &release("9.9.9"))
            .unwrap(),
        None
    );
    let mut cursor = service.replay(&ReplayRequest::after(1000)).unwrap();
    assert!(cursor.next().unwrap().is_none());
}
