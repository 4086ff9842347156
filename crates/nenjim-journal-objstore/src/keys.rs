//! Root paths as object keys.

use std::io;
use std::path::{Component, Path};

use object_store::path::{Path as Key, PathPart};

/// The key of a root path: its normal components joined with `/`.
pub(crate) fn key(path: &Path) -> io::Result<Key> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::RootDir | Component::CurDir => {}
            Component::Normal(name) => match name.to_str() {
                Some(name) => parts.push(PathPart::from(name.to_owned())),
                None => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!(
                            "{} is not valid UTF-8, expected an object key",
                            path.display()
                        ),
                    ));
                }
            },
            Component::ParentDir | Component::Prefix(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{} has a `..` or a drive, expected a path inside the store",
                        path.display()
                    ),
                ));
            }
        }
    }
    Ok(Key::from_iter(parts))
}
