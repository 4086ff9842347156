//! Journal texts and temporary roots for the loader's tests.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use nenjim_journal_api::valuetypes::{ContentDigest, RevisionDigest};
use tempfile::TempDir;

/// The `k`-th timestamp of a test: 2026-01-01 plus `k` seconds (k < 86 400).
pub fn ts(k: u32) -> String {
    format!("20260101T{:02}{:02}{:02}Z", k / 3600, (k / 60) % 60, k % 60)
}

/// A revision text with MIT releases whose content digests are derived from
/// the coordinate and version, so that a release keeps its values in successors.
pub fn revision(
    coordinate: &str,
    version: &str,
    predecessor: Option<&str>,
    releases: &[&str],
    policy: &[&str],
) -> String {
    let mut text = String::new();
    writeln!(text, "FORMAT nenjim-journal/1").unwrap();
    writeln!(text, "ARTIFACT {coordinate}").unwrap();
    writeln!(text, "JOURNAL_VERSION {version}").unwrap();
    match predecessor {
        None => writeln!(text, "PREDECESSOR GENESIS").unwrap(),
        Some(previous) => {
            writeln!(text, "PREDECESSOR {}", RevisionDigest::of_text(previous)).unwrap();
        }
    }
    writeln!(text, "DESCRIPTION \"test artifact {coordinate}\"").unwrap();
    for release in releases {
        let content = ContentDigest::of_bytes(format!("{coordinate}@{release}").as_bytes());
        writeln!(text, "RELEASE {release}").unwrap();
        writeln!(text, "  LICENSE MIT").unwrap();
        writeln!(text, "  CONTENT {content} 1").unwrap();
    }
    for statement in policy {
        writeln!(text, "{statement}").unwrap();
    }
    text
}

/// A genesis revision.
pub fn genesis(coordinate: &str, version: &str, releases: &[&str]) -> String {
    revision(coordinate, version, None, releases, &[])
}

/// A successor of `previous`.
pub fn successor(previous: &str, coordinate: &str, version: &str, releases: &[&str]) -> String {
    revision(coordinate, version, Some(previous), releases, &[])
}

/// A genesis of `artifact` at `at` with no release and no policy: the
/// header alone, described by its coordinate (the writer's and the object
/// store's tests).
pub fn bare_genesis(artifact: &str, at: &str) -> String {
    format!(
        "FORMAT nenjim-journal/1\nARTIFACT {artifact}\nJOURNAL_VERSION {at}\nPREDECESSOR GENESIS\nDESCRIPTION \"{artifact}\"\n"
    )
}

/// The successor of `previous` at `at` that restates all of it, with
/// `body` appended (its JOURNAL_VERSION and PREDECESSOR lines rewritten).
pub fn restated(previous: &str, at: &str, body: &str) -> String {
    let digest = RevisionDigest::of_text(previous);
    let mut lines: Vec<String> = previous.lines().map(str::to_owned).collect();
    for line in &mut lines {
        if line.starts_with("JOURNAL_VERSION ") {
            *line = format!("JOURNAL_VERSION {at}");
        } else if line.starts_with("PREDECESSOR ") {
            *line = format!("PREDECESSOR {digest}");
        }
    }
    format!("{}\n{body}", lines.join("\n"))
}

/// A temporary Journal root.
#[derive(Debug)]
pub struct Root {
    dir: TempDir,
}

impl Default for Root {
    fn default() -> Root {
        Root::new()
    }
}

impl Root {
    /// A new empty root in a temporary directory (removed when dropped).
    pub fn new() -> Root {
        Root {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// The root's path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `<root>/<relative>`.
    pub fn join(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// Creates `<root>/<relative>/` (and its parents).
    pub fn mkdir(&self, relative: &str) -> PathBuf {
        let path = self.join(relative);
        std::fs::create_dir_all(&path).unwrap();
        path
    }

    /// Writes `<root>/<relative>` (creating its directory).
    pub fn write(&self, relative: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Writes the revision `text` at `<root>/<coordinate>/<version>.journal`.
    pub fn put(&self, coordinate: &str, version: &str, text: &str) -> PathBuf {
        self.write(&format!("{coordinate}/{version}.journal"), text)
    }
}

/// Every file of the local `root` (ledger entries by their record), except
/// the writer's lease, its lock and temporaries: (path relative to the
/// root, bytes). Two equal snapshots mean nothing a Journal would load
/// changed.
#[allow(clippy::unwrap_used)]
pub fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "lease" || name == "lease.lock" || name.starts_with(".tmp-") {
                continue;
            }
            let kind = entry.file_type().unwrap();
            let relative = path.strip_prefix(root).unwrap().to_path_buf();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_symlink() {
                let record = std::fs::read_link(&path).unwrap();
                out.insert(relative, record.into_os_string().into_encoded_bytes());
            } else {
                out.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// A root with an independent error at every level the loader checks, each
/// of which stops a load: a stray file in the root, an artifact directory
/// whose name is no coordinate, a file name that is no timestamp, a syntax
/// error, a semantic error (a license typo) and an unknown predecessor,
/// beside a valid artifact of two revisions. `check` reports each of them
/// (the diagnosis of every error), wherever the root lives.
#[allow(clippy::unwrap_used)]
pub fn broken_root() -> Root {
    let root = Root::new();
    let first = genesis("aaa", &ts(1), &["1.0.0"]);
    root.put("aaa", &ts(1), &first);
    root.put(
        "aaa",
        &ts(2),
        &successor(&first, "aaa", &ts(2), &["1.0.0", "1.1.0"]),
    );
    root.write("README.txt", "notes\n");
    root.put("Bad_Name", &ts(1), &genesis("aaa", &ts(1), &[]));
    root.put(
        "bbb",
        &ts(1),
        &genesis("bbb", &ts(1), &["1.0.0"]).replace("DESCRIPTION", "DESCRIPTON"),
    );
    root.put(
        "ccc",
        &ts(1),
        &genesis("ccc", &ts(1), &["1.0.0"]).replace("LICENSE MIT", "LICENSE Apache2"),
    );
    let unrelated = genesis("zzz", &ts(1), &[]);
    root.put("ddd", &ts(1), &genesis("ddd", &ts(1), &[]));
    root.put("ddd", &ts(2), &successor(&unrelated, "ddd", &ts(2), &[]));
    root.write("eee/notatimestamp.journal", genesis("eee", &ts(1), &[]));
    root
}

/// A version requirement's text over two versions (taken in order, `lo <=
/// hi`), of form `form % 8`: `*`, `lo` exactly, the four intervals `[lo,hi]`,
/// `[lo,hi)`, `(lo,hi]`, `(lo,hi)`, then `(,hi]` and `[lo,)`. Forms 3 to 5
/// over equal versions are empty intervals, which the format refuses. The
/// property tests of the value type and of the parser draw requirements
/// through it.
pub fn requirement_text<V: Ord + std::fmt::Display>(a: V, b: V, form: u8) -> String {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    match form % 8 {
        0 => "*".to_owned(),
        1 => lo.to_string(),
        2 => format!("[{lo},{hi}]"),
        3 => format!("[{lo},{hi})"),
        4 => format!("({lo},{hi}]"),
        5 => format!("({lo},{hi})"),
        6 => format!("(,{hi}]"),
        _ => format!("[{lo},)"),
    }
}
