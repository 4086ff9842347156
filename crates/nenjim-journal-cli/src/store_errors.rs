//! Errors of a root or a content store in a bucket, said for an operator:
//! the store's own errors name paths inside the bucket
//! (`/main/.ledger/LEDGER`) and say what the service answered, but not
//! what to do about it. [`explained`] names each path by its URL again
//! (`s3://journals/main/.ledger/LEDGER`) and, from the
//! [`BackendError`] the store's backend typed when it translated its
//! client's error (its kind, the service's code and the bucket it named:
//! no error text is read here), adds what to do about the usual ones: a
//! missing bucket, refused credentials, a plain `http://` endpoint that
//! needs `AWS_ALLOW_HTTP=true`.

use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{self, ErrorContext as _};
use nenjim_journal_store::{BackendError, BackendErrorKind};

use crate::address::locate;
use crate::args::Command;
use crate::failure::CliError;
use crate::report::path_text;

/// The roots, stores and sources a command names, as typed.
pub fn addresses(command: &Command) -> Vec<&Path> {
    match command {
        Command::Check(a) => vec![&a.root.root],
        Command::History(a) => vec![&a.root.root],
        Command::Events(a) => vec![&a.root.root],
        Command::Show(a) => vec![&a.root.root],
        Command::List(a) => vec![&a.root.root],
        Command::Versions(a) => vec![&a.root.root],
        Command::Diff(a) => vec![&a.root.root],
        Command::VerifyContent(a) => {
            let mut all: Vec<&Path> = vec![&a.root.root];
            all.extend(a.store.as_deref());
            all
        }
        Command::Append(a) => {
            let mut all: Vec<&Path> = vec![&a.root];
            all.extend(a.store.as_deref());
            all.extend(a.source_store.as_deref());
            all.extend(a.files.iter().map(PathBuf::as_path));
            all
        }
        Command::PutBlob(a) => vec![&a.store],
        Command::Create(a) => vec![&a.root],
        Command::Release(a) => {
            let mut all: Vec<&Path> = vec![&a.root];
            all.extend(a.store.as_deref());
            all
        }
        Command::Yank(a) | Command::Deprecate(a) => vec![&a.root],
        Command::Recommend(a) => vec![&a.root],
        Command::Init(a) => {
            let mut all: Vec<&Path> = vec![&a.root];
            all.extend(a.store.as_deref());
            all
        }
        Command::Checkpoint(a) => vec![&a.root],
        Command::Verify(a) => vec![&a.root],
        Command::Prove(a) => vec![&a.root],
        Command::Witness(a) => vec![&a.root],
        _ => Vec::new(),
    }
}

/// The content store the root of `command` records, when the command uses
/// it (no `--store`): an address of the command too.
pub fn recorded(command: &Command) -> Option<PathBuf> {
    let root = match command {
        Command::VerifyContent(a) if a.store.is_none() => &a.root.root,
        Command::Append(a) if a.store.is_none() => &a.root,
        Command::Release(a) if a.store.is_none() => &a.root,
        _ => return None,
    };
    crate::commands::init::recorded_store(root).ok().flatten()
}

/// `error` said for an operator when it concerns one of `addresses` in a
/// bucket (see the module docs); any other error as it is.
pub fn explained(error: CliError, addresses: &[&Path]) -> CliError {
    let CliError::Journal(journal) = error else {
        return error;
    };
    let stores: Vec<(String, PathBuf)> = addresses
        .iter()
        .filter_map(|a| match locate(a) {
            Ok(root) => crate::address::location(&root).map(|l| (l, root.path().to_path_buf())),
            Err(_) => None,
        })
        .collect();
    if stores.is_empty() {
        return CliError::Journal(journal);
    }
    let message = explain_message(&journal);
    // The path inside a bucket, named by the URL of the store it is in (the
    // longest root that holds it; the first store otherwise).
    let path = journal.path().map(|path| {
        let owner = stores
            .iter()
            .filter(|(_, root)| path.starts_with(root))
            .max_by_key(|(_, root)| root.as_os_str().len())
            .or(stores.first());
        match owner {
            Some((location, _)) if path.is_absolute() && !path_text(path).contains("://") => {
                PathBuf::from(format!("{location}{}", path_text(path)))
            }
            _ => path.to_path_buf(),
        }
    });
    // A message rewritten whole is a new error of the same kind and place,
    // which keeps the store's own as its source.
    let mut said = if message == journal.message() {
        journal
    } else {
        let mut rewritten = error::error(journal.kind(), message);
        if let (Some(line), Some(column)) = (journal.line(), journal.column()) {
            rewritten = rewritten.at(line, column);
        }
        rewritten.with_source(journal)
    };
    if let Some(path) = path {
        said = said.moved_to(path);
    }
    CliError::Journal(said)
}

/// The message of `error`, with what to do about the backend error it
/// says (see [`hint`]) right after the backend's own text: a note that
/// followed a service's answer is left out, as the answer is what the
/// hint is about.
fn explain_message(error: &error::JournalError) -> String {
    let message = error.message();
    let Some(backend) = BackendError::find(error) else {
        return message.to_owned();
    };
    // The hint belongs to this message only if the message says the
    // backend's error (a loader's "found no Journal root here" does not).
    let said = backend.message();
    let Some(at) = message.find(said) else {
        return message.to_owned();
    };
    let hint = hint(backend);
    if backend.is_answered() {
        let end = at + said.len();
        format!("{}{hint}", message.get(..end).unwrap_or(message))
    } else {
        format!("{message}{hint}")
    }
}

/// What to do about a backend error, by its kind: create the bucket the
/// service said is missing, check the credentials it refused (both only
/// when it answered so), or allow the plain `http://` endpoint that the
/// client refused.
fn hint(backend: &BackendError) -> String {
    match backend.kind() {
        BackendErrorKind::NoSuchContainer if backend.is_answered() => {
            let bucket = backend.container().map_or_else(
                || "the URL's bucket".to_owned(),
                |b| format!("bucket `{b}`"),
            );
            format!("; expected an existing bucket: create {bucket} first")
        }
        BackendErrorKind::AccessDenied | BackendErrorKind::Unauthenticated
            if backend.is_answered() =>
        {
            "; check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the store's own credential settings)".to_owned()
        }
        BackendErrorKind::InvalidConfiguration => plain_http_endpoint().map_or_else(String::new, |endpoint| {
            format!(
                "; the endpoint AWS_ENDPOINT_URL={endpoint} is plain http://, which is refused unless AWS_ALLOW_HTTP=true is set"
            )
        }),
        _ => String::new(),
    }
}

/// The S3 endpoint, if it is `http://` and plain HTTP is not allowed.
fn plain_http_endpoint() -> Option<String> {
    let endpoint = std::env::var("AWS_ENDPOINT_URL")
        .or_else(|_| std::env::var("AWS_ENDPOINT"))
        .ok()?;
    let allowed = std::env::var("AWS_ALLOW_HTTP").is_ok_and(|v| v.eq_ignore_ascii_case("true"));
    (endpoint.starts_with("http://") && !allowed).then_some(endpoint)
}

#[cfg(test)]
mod tests {
    use nenjim_journal_api::error::{self, ErrorContext as _};
    use nenjim_journal_store::{BackendError, BackendErrorKind};

    use super::explain_message;

    fn carried(backend: BackendError, what: &str) -> error::JournalError {
        error::io_error("/b/k", what, backend.into_io(std::io::ErrorKind::Other))
    }

    #[test]
    fn a_missing_bucket_says_to_create_it_after_the_answer() {
        let backend = BackendError::new(BackendErrorKind::NoSuchContainer, "PUT: 404 Not Found")
            .answered(
                Some("NoSuchBucket".to_owned()),
                Some("The specified bucket does not exist".to_owned()),
            )
            .with_container("b");
        let journal = carried(backend, "cannot create").note("re-run it");
        assert_eq!(
            explain_message(&journal),
            "cannot create: PUT: 404 Not Found; the server answered NoSuchBucket: The specified bucket does not exist; expected an existing bucket: create bucket `b` first"
        );
    }

    #[test]
    fn refused_credentials_and_other_answers() {
        let backend = BackendError::new(BackendErrorKind::Unauthenticated, "GET")
            .answered(Some("InvalidAccessKeyId".to_owned()), None);
        assert!(
            explain_message(&carried(backend, "cannot read"))
                .ends_with("the server answered InvalidAccessKeyId; check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the store's own credential settings)")
        );
        // Without an answer (a HEAD has no body), no hint.
        let backend = BackendError::new(BackendErrorKind::AccessDenied, "HEAD: 403");
        assert_eq!(
            explain_message(&carried(backend, "cannot read")),
            "cannot read: HEAD: 403"
        );
        // A message that does not say the backend's error keeps its own.
        let backend = BackendError::new(BackendErrorKind::NoSuchContainer, "GET")
            .answered(Some("NoSuchBucket".to_owned()), None);
        let journal = error::error(error::ErrorKind::RootMissing, "found no Journal root here")
            .with_source(backend.into_io(std::io::ErrorKind::NotFound));
        assert_eq!(explain_message(&journal), "found no Journal root here");
    }
}
