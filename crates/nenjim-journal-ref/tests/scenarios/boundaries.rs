//! Packaging and boundaries: what the crate ships and declares, and a
//! reference implementation that stays read-only.

use super::*;

#[test]
fn public_package_contents() {
    // The crate offers the assembly, the load options and the component name.
    let assembly: JournalAssembly =
        JournalAssembly::with_options("/x", LoadOptions::new().with_examples(true));
    let _: Arc<dyn JournalService> = assembly.service();
    let _: Arc<dyn NenjimProcess> = assembly.process();
    let _: Arc<dyn nenjim_journal_api::JournalServiceManager> = assembly.manager();
    assert_eq!(COMPONENT_NAME, "nenjim.journal");
    assert_eq!(assembly.service().component_name(), "nenjim.journal");

    // No type named JournalManager anywhere in the workspace's Rust code.
    let name = ["Journal", "Manager"].concat();
    let forbidden: Vec<String> = ["struct", "trait", "type", "enum", "as", "mod", "fn"]
        .iter()
        .map(|k| format!("{k} {name}"))
        .collect();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut stack = vec![workspace.join("crates")];
    let mut scanned = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                scanned += 1;
                for f in &forbidden {
                    let hit = text.match_indices(f.as_str()).any(|(i, _)| {
                        !text[i + f.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                    });
                    assert!(!hit, "{} declares `{f}`", path.display());
                }
            }
        }
    }
    assert!(scanned > 10);
}

#[test]
fn reference_implementation_boundary() {
    // Building an assembly touches no disk; its root is absolute and normalized.
    let root = Root::new();
    let configured = root.join("journals/./sub/..");
    let assembly = JournalAssembly::new(&configured);
    assert!(
        !root.join("journals").exists(),
        "the assembly created nothing"
    );
    assert_eq!(assembly.manager().journal_root(), root.join("journals"));
    // Consumers see the Journal only through the API's traits.
    fn consumer(service: &dyn JournalService) -> usize {
        service.coordinates().map(|c| c.len()).unwrap_or(0)
    }
    root.put(
        "journals/serde",
        &ts(1),
        &genesis("serde", &ts(1), &["1.0.0"]),
    );
    assembly.process().start().unwrap();
    assert_eq!(consumer(&*assembly.service()), 1);
}

#[test]
fn read_only_boundary() {
    // Queries answer from the published snapshot and never read the disk.
    let root = Root::new();
    three_revisions(&root);
    let assembly = started(&root);
    let service = assembly.service();
    let before = dump(&*service);
    for entry in std::fs::read_dir(root.path()).unwrap() {
        std::fs::remove_dir_all(entry.unwrap().path()).unwrap();
    }
    assert_eq!(dump(&*service), before);
    assert_eq!(service.revisions(&coordinate("serde")).unwrap().len(), 3);
    // Deleting files and refreshing does not erase history either.
    assert_eq!(
        assembly.manager().refresh().unwrap(),
        build::refresh_report(0, 0, 0)
    );
    assert_eq!(dump(&*service), before);
}
