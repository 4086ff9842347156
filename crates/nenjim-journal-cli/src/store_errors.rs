//! Errors of a root or a content store in a bucket, said for an operator:
//! the store's own errors (`object_store`'s, over HTTP) name paths inside
//! the bucket (`/main/.ledger/LEDGER`), can be a bare "builder error", and
//! quote the server's XML answer whole. [`explained`] names each path by
//! its URL again (`s3://journals/main/.ledger/LEDGER`), names the setting
//! that is missing (`AWS_ALLOW_HTTP=true` for an `http://` endpoint), and
//! replaces an XML answer by its code and message, with what to do about
//! the usual ones (a missing bucket, refused credentials).

use std::path::{Path, PathBuf};

use nenjim_journal_api::error::{self, ErrorContext as _};

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
    let message = explain_message(journal.message());
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

/// The message of a store's error, without its XML and with the setting to
/// change.
fn explain_message(message: &str) -> String {
    let mut said = match message.find("<?xml").or_else(|| message.find("<Error>")) {
        Some(start) => {
            let before = message
                .get(..start)
                .unwrap_or_default()
                .trim_end()
                .trim_end_matches(':');
            let xml = message.get(start..).unwrap_or_default();
            let code = element(xml, "Code");
            let text = element(xml, "Message");
            let answer = match (&code, &text) {
                (Some(code), Some(text)) => format!("{code}: {text}"),
                (Some(code), None) => code.clone(),
                (None, Some(text)) => text.clone(),
                (None, None) => "an error without a code".to_owned(),
            };
            let bucket = element(xml, "BucketName").map_or_else(
                || "the URL's bucket".to_owned(),
                |b| format!("bucket `{b}`"),
            );
            let hint = match code.as_deref() {
                Some("NoSuchBucket") => {
                    format!("; expected an existing bucket: create {bucket} first")
                }
                Some(
                    "InvalidAccessKeyId" | "SignatureDoesNotMatch" | "AccessDenied"
                    | "ExpiredToken",
                ) => "; check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the store's own credential settings)".to_owned(),
                _ => String::new(),
            };
            format!("{before}; the server answered {answer}{hint}")
        }
        None => message.to_owned(),
    };
    if said.contains("builder error")
        && let Some(endpoint) = plain_http_endpoint()
    {
        said = format!(
            "{said}; the endpoint AWS_ENDPOINT_URL={endpoint} is plain http://, which is refused unless AWS_ALLOW_HTTP=true is set"
        );
    }
    said
}

/// The text of the first `<name>…</name>` of `xml` (the text of a CDATA
/// section, as some servers send a `Message`, without its markup).
fn element(xml: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = xml.find(&open)? + open.len();
    let length = xml.get(start..)?.find(&close)?;
    let text = xml.get(start..start + length)?.trim();
    let text = text
        .strip_prefix("<![CDATA[")
        .and_then(|t| t.strip_suffix("]]>"))
        .unwrap_or(text);
    Some(text.to_owned())
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
    use super::{element, explain_message};

    #[test]
    fn an_xml_answer_is_its_code_and_message() {
        let raw = "cannot create: Error performing PUT http://h/b/k in 3ms - Server returned non-2xx status code: 404 Not Found: <?xml version=\"1.0\"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><BucketName>b</BucketName><RequestId>x</RequestId></Error>";
        let said = explain_message(raw);
        assert!(!said.contains('<'), "{said}");
        assert!(
            said.contains("the server answered NoSuchBucket: The specified bucket does not exist; expected an existing bucket: create bucket `b` first"),
            "{said}"
        );
        assert_eq!(
            element("<a><Code>X</Code></a>", "Code").as_deref(),
            Some("X")
        );
        assert_eq!(element("<a></a>", "Code"), None);
        assert_eq!(
            element(
                "<a><Message><![CDATA[The specified bucket does not exist]]></Message></a>",
                "Message"
            )
            .as_deref(),
            Some("The specified bucket does not exist")
        );
    }
}
