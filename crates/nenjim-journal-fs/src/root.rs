//! Lexical normalization of a configured root: the one normalization of a
//! root path (the reference Journal and the writer both use it).

use std::path::{Component, Path, PathBuf};

/// `root` made absolute (joined to the current directory if relative) with
/// `.` and `..` resolved lexically. Reads only the current directory; never
/// touches the root itself, so symbolic links in it are kept as written.
///
/// `..` at the file system root stays at the root. If the current directory
/// cannot be determined, a relative root stays relative (loading it then
/// fails with the path as given).
pub fn normalize(root: &Path) -> PathBuf {
    let joined = if root.is_absolute() {
        root.to_path_buf()
    } else {
        match std::env::current_dir() {
            Ok(current) => current.join(root),
            Err(_) => root.to_path_buf(),
        }
    };
    let mut normalized = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => {
                normalized.push(component);
            }
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(
                    normalized.components().next_back(),
                    Some(Component::Normal(_))
                ) {
                    normalized.pop();
                } else if !normalized.has_root() {
                    normalized.push(component);
                }
            }
        }
    }
    if normalized.as_os_str().is_empty() {
        normalized.push(".");
    }
    normalized
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_are_resolved_lexically() {
        assert_eq!(
            normalize(Path::new("/a/./b/../c//d/")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
        assert_eq!(normalize(Path::new("/")), PathBuf::from("/"));
    }

    #[test]
    #[allow(clippy::expect_used)] // a test without a current directory fails, never passes
    fn relative_paths_are_joined_to_the_current_directory() {
        let current = std::env::current_dir().expect("the test process has a current directory");
        let normalized = normalize(Path::new("./journals/../roots/main"));
        assert_eq!(normalized, normalize(&current.join("roots/main")));
        assert!(normalized.is_absolute());
    }
}
