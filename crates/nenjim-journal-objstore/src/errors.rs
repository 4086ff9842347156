//! The local file system's error kinds for `object_store`'s errors, and
//! the versions the lease compares.

use std::io;

use nenjim_journal_store::Version;

/// The io error of an `object_store` error, with the local file system's kinds.
pub(crate) fn io_error(error: object_store::Error) -> io::Error {
    if let Some(problem) = crate::tls::certificate_problem(&error) {
        return io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{problem}: expected a certificate signed by a CA of the system's roots or of the PEM file named by AWS_CA_BUNDLE or SSL_CERT_FILE (set one of them to the CA file)"
            ),
        );
    }
    let kind =
        match &error {
            object_store::Error::NotFound { .. } => io::ErrorKind::NotFound,
            object_store::Error::AlreadyExists { .. }
            | object_store::Error::Precondition { .. } => io::ErrorKind::AlreadyExists,
            object_store::Error::InvalidPath { .. } => io::ErrorKind::InvalidInput,
            object_store::Error::NotSupported { .. }
            | object_store::Error::NotImplemented { .. } => io::ErrorKind::Unsupported,
            _ => io::ErrorKind::Other,
        };
    io::Error::new(kind, error)
}

/// The version of an object: its ETag and its version, as `If-Match`
/// compares them.
pub(crate) fn version_of(e_tag: &Option<String>, version: &Option<String>) -> Version {
    Version::new(format!(
        "{}\n{}",
        e_tag.as_deref().unwrap_or_default(),
        version.as_deref().unwrap_or_default()
    ))
}

/// The refusal of an object over a read's limit.
pub(crate) fn too_large(size: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("the object holds {size} bytes"),
    )
}

/// Whether a put was refused because the object exists or changed.
pub(crate) fn refused(error: &object_store::Error) -> bool {
    matches!(
        error,
        object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }
    )
}
