//! The same worldviews as crates.io-index-style JSON lines: one
//! [`IndexEntry`] per release, its dependencies as [`IndexDep`]s.

use super::*;

// ------------------------------------------------------------ index JSON

/// The kind of an index dependency (`exclude` and `prefer` extend Cargo's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DepKind {
    /// A normal dependency (DEPENDS).
    Normal,
    /// A build dependency.
    Build,
    /// A dev dependency.
    Dev,
    /// An exclusion (EXCLUDES), not in Cargo.
    Exclude,
    /// A preference (PREFERS), not in Cargo.
    Prefer,
}

/// One dependency of a crates.io index line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexDep {
    /// The dependency's name (the crate, unless `package` renames it).
    pub name: String,
    /// The Cargo requirement.
    pub req: String,
    /// Enabled features.
    pub features: Vec<String>,
    /// Whether it is optional.
    pub optional: bool,
    /// Whether default features are enabled.
    pub default_features: bool,
    /// A `cfg(...)` or target triple, if any.
    pub target: Option<String>,
    /// The kind.
    pub kind: DepKind,
    /// The real crate name, if renamed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
}

/// One crates.io index line (one release), the peer's typed form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexEntry {
    /// The crate name.
    pub name: String,
    /// The version.
    pub vers: String,
    /// The dependencies.
    pub deps: Vec<IndexDep>,
    /// The SHA-256 of the .crate file.
    pub cksum: String,
    /// The .crate size (an extension of this corpus).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The features.
    pub features: std::collections::BTreeMap<String, Vec<String>>,
    /// Whether the version is yanked.
    pub yanked: bool,
    /// The `links` value.
    #[serde(default)]
    pub links: Option<String>,
    /// The license (an extension; not in the real index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// The description (an extension; not in the real index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The index format version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v: Option<u32>,
}

/// The JSON lines of `entries`, each terminated by `\n`.
pub fn index_lines(entries: &[IndexEntry]) -> String {
    let mut out = String::new();
    for e in entries {
        if let Ok(line) = serde_json::to_string(e) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}
