//! The example service (`examples/service.rs`), built and run by the tests
//! on a directory and on the test kit's in-memory backend.

use crate::service_example as service;

fn serve_twice(address: &str) {
    let mut out = Vec::new();
    let first = service::run(address, "hub-demo", "1.0.0", &mut out).unwrap();
    // create + release: the feed after the start holds both.
    assert_eq!(first.followed, vec![first.published - 1, first.published]);
    let second = service::run(address, "hub-demo", "1.1.0", &mut out).unwrap();
    assert_eq!(second.followed, vec![second.published]);
    assert_eq!(second.published, first.published + 1);
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("2 revisions of 1 artifacts"), "{text}");
}

#[test]
fn the_example_service_runs_on_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    serve_twice(dir.path().join("hub").to_str().unwrap());
}

#[test]
fn the_example_service_runs_on_a_memory_root_by_its_url() {
    serve_twice("testmem://service-test/hub");
}
