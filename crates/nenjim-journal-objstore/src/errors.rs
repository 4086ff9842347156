//! The one translation of `object_store`'s errors: each becomes a
//! [`BackendError`] (its kind, the service's code, message and bucket
//! when it answered with an error body, the client's text without that
//! body) carried in an io error of the local file system's kind; and the
//! versions the lease compares.
//!
//! The service's body (S3's and GCS's XML `<Error><Code>…</Code>…`, Azure's
//! alike) is read here, once: nothing after the seam reads an error's text.

use std::error::Error;
use std::io;

use nenjim_journal_store::{BackendError, BackendErrorKind, Version};
use object_store::client::{HttpError, HttpErrorKind};

/// The io error of an `object_store` error, with the local file system's
/// kinds, carrying its [`BackendError`].
pub(crate) fn io_error(error: object_store::Error) -> io::Error {
    let (kind, backend) = translated(error);
    backend.into_io(kind)
}

/// The io error of a put that the store refused although no object is
/// there (a store that lies), carrying the put's [`BackendError`].
pub(crate) fn refused_without_object(key: &str, error: object_store::Error) -> io::Error {
    let (_, backend) = translated(error);
    backend
        .context(format_args!(
            "the store refused to create {key} but holds no such object"
        ))
        .into_io(io::ErrorKind::Other)
}

/// An `object_store` error as a [`BackendError`], and the local file
/// system's io kind for it.
pub(crate) fn translated(error: object_store::Error) -> (io::ErrorKind, BackendError) {
    if let Some(problem) = crate::tls::certificate_problem(&error) {
        let backend = BackendError::new(
            BackendErrorKind::Certificate,
            format!(
                "{problem}: expected a certificate signed by a CA of the system's roots or of the PEM file named by AWS_CA_BUNDLE or SSL_CERT_FILE (set one of them to the CA file)"
            ),
        )
        .with_source(error);
        return (io::ErrorKind::InvalidData, backend);
    }
    let io_kind =
        match &error {
            object_store::Error::NotFound { .. } => io::ErrorKind::NotFound,
            object_store::Error::AlreadyExists { .. }
            | object_store::Error::Precondition { .. } => io::ErrorKind::AlreadyExists,
            object_store::Error::InvalidPath { .. } => io::ErrorKind::InvalidInput,
            object_store::Error::NotSupported { .. }
            | object_store::Error::NotImplemented { .. } => io::ErrorKind::Unsupported,
            _ => io::ErrorKind::Other,
        };
    let text = error.to_string();
    let answer = ServiceAnswer::of(&text);
    let kind = answer
        .as_ref()
        .and_then(|a| a.code.as_deref())
        .and_then(kind_of_code)
        .unwrap_or_else(|| kind_of(&error));
    let backend = match answer {
        Some(answer) => {
            let backend =
                BackendError::new(kind, answer.before).answered(answer.code, answer.message);
            match answer.bucket {
                Some(bucket) => backend.with_container(bucket),
                None => backend,
            }
        }
        None => BackendError::new(kind, text),
    };
    (io_kind, backend.with_source(error))
}

/// What the service answered in an error body, and the client's text
/// before it.
#[derive(Debug, PartialEq, Eq)]
struct ServiceAnswer {
    /// The client's text before the body, without the `:` that led to it.
    before: String,
    code: Option<String>,
    message: Option<String>,
    bucket: Option<String>,
}

impl ServiceAnswer {
    /// The answer in the text of a client error that quotes the service's
    /// XML body (`… 404 Not Found: <?xml …?><Error><Code>NoSuchBucket</Code>
    /// …</Error>`); `None` when it quotes none.
    fn of(text: &str) -> Option<ServiceAnswer> {
        let start = text.find("<?xml").or_else(|| text.find("<Error>"))?;
        let before = text
            .get(..start)
            .unwrap_or_default()
            .trim_end()
            .trim_end_matches(':');
        let xml = text.get(start..).unwrap_or_default();
        Some(ServiceAnswer {
            before: before.to_owned(),
            code: element(xml, "Code"),
            message: element(xml, "Message"),
            bucket: element(xml, "BucketName"),
        })
    }
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

/// The kind a service's error code says (S3's, GCS's XML API's, Azure
/// Blob's); `None` for a code not known here.
fn kind_of_code(code: &str) -> Option<BackendErrorKind> {
    use BackendErrorKind as K;
    Some(match code {
        "NoSuchBucket" | "ContainerNotFound" => K::NoSuchContainer,
        "NoSuchKey" | "BlobNotFound" => K::NotFound,
        "AccessDenied"
        | "AllAccessDisabled"
        | "AuthorizationFailure"
        | "AuthorizationPermissionMismatch" => K::AccessDenied,
        "InvalidAccessKeyId"
        | "SignatureDoesNotMatch"
        | "ExpiredToken"
        | "InvalidToken"
        | "AuthenticationFailed" => K::Unauthenticated,
        "PreconditionFailed" | "ConditionNotMet" => K::PreconditionFailed,
        "BlobAlreadyExists" | "ContainerAlreadyExists" => K::AlreadyExists,
        "SlowDown" | "ServiceUnavailable" | "InternalError" | "ServerBusy"
        | "OperationTimedOut" | "RequestTimeout" => K::Unavailable,
        _ => return None,
    })
}

/// The kind of an error without a known service code: `object_store`'s
/// variant, or what failed under it (a request the HTTP client refused to
/// build, a connection, a timeout).
fn kind_of(error: &object_store::Error) -> BackendErrorKind {
    use BackendErrorKind as K;
    match error {
        object_store::Error::NotFound { .. } => K::NotFound,
        object_store::Error::AlreadyExists { .. } => K::AlreadyExists,
        object_store::Error::Precondition { .. } => K::PreconditionFailed,
        object_store::Error::PermissionDenied { .. } => K::AccessDenied,
        object_store::Error::Unauthenticated { .. } => K::Unauthenticated,
        object_store::Error::NotSupported { .. } | object_store::Error::NotImplemented { .. } => {
            K::Unsupported
        }
        object_store::Error::UnknownConfigurationKey { .. } => K::InvalidConfiguration,
        _ => kind_of_cause(error),
    }
}

/// The kind a cause in `error`'s chain says: a request reqwest refused to
/// build (a plain `http://` URL while only HTTPS is allowed) is the
/// configuration's; a connection, a timeout or an interrupted request is
/// an outage.
fn kind_of_cause(error: &(dyn Error + 'static)) -> BackendErrorKind {
    let causes = chain(error);
    if causes.iter().any(|e| {
        e.downcast_ref::<reqwest::Error>()
            .is_some_and(reqwest::Error::is_builder)
    }) {
        return BackendErrorKind::InvalidConfiguration;
    }
    let outage = causes.iter().any(|e| {
        e.downcast_ref::<HttpError>().is_some_and(|h| {
            matches!(
                h.kind(),
                HttpErrorKind::Connect
                    | HttpErrorKind::Timeout
                    | HttpErrorKind::Interrupted
                    | HttpErrorKind::Request
            )
        })
    });
    if outage {
        BackendErrorKind::Unavailable
    } else {
        BackendErrorKind::Other
    }
}

/// `error` and its causes, looking inside each io error (whose `source`
/// skips the error it wraps).
fn chain<'a>(error: &'a (dyn Error + 'static)) -> Vec<&'a (dyn Error + 'static)> {
    let mut all = Vec::new();
    let mut next = Some(error);
    while let Some(error) = next {
        all.push(error);
        next = match error
            .downcast_ref::<io::Error>()
            .and_then(io::Error::get_ref)
        {
            Some(inner) => Some(inner as &(dyn Error + 'static)),
            None => error.source(),
        };
    }
    all
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)] // a test fails by panicking
mod tests {
    use std::io;
    use std::path::Path;

    use nenjim_journal_store::{BackendError, BackendErrorKind, FileSystem as _};

    use super::{ServiceAnswer, element, io_error, refused_without_object};
    use crate::address::{Address, parse_address_with_env};

    /// A client error whose text is `text` (what `object_store`'s
    /// `RetryError` says, which no other crate can make).
    #[derive(Debug)]
    struct Said(&'static str);
    impl std::fmt::Display for Said {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }
    impl std::error::Error for Said {}

    const NO_SUCH_BUCKET: &str = "Error performing PUT http://h/b/k in 3ms - Server returned non-2xx status code: 404 Not Found: <?xml version=\"1.0\"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><BucketName>b</BucketName><RequestId>x</RequestId></Error>";

    fn generic(text: &'static str) -> object_store::Error {
        object_store::Error::Generic {
            store: "S3",
            source: Box::new(Said(text)),
        }
    }

    fn backend(error: &io::Error) -> &BackendError {
        BackendError::find(error).unwrap()
    }

    #[test]
    fn an_xml_answer_becomes_its_code_message_and_bucket() {
        let error = io_error(generic(NO_SUCH_BUCKET));
        assert_eq!(error.kind(), io::ErrorKind::Other);
        let said = backend(&error);
        assert_eq!(said.kind(), BackendErrorKind::NoSuchContainer);
        assert!(said.is_answered());
        assert_eq!(said.code(), Some("NoSuchBucket"));
        assert_eq!(
            said.service_message(),
            Some("The specified bucket does not exist")
        );
        assert_eq!(said.container(), Some("b"));
        assert_eq!(
            error.to_string(),
            "Generic S3 error: Error performing PUT http://h/b/k in 3ms - Server returned non-2xx status code: 404 Not Found; the server answered NoSuchBucket: The specified bucket does not exist"
        );
        // The client's error stays the source, whole.
        let source = std::error::Error::source(said).unwrap();
        assert!(source.to_string().contains("<BucketName>"), "{source}");
        // Debug reads like the message.
        assert!(
            format!("{said:?}")
                .starts_with("NoSuchContainer: Generic S3 error: Error performing PUT"),
            "{said:?}"
        );
    }

    #[test]
    fn codes_say_the_kind_before_the_variant_does() {
        let cases = [
            ("AccessDenied", BackendErrorKind::AccessDenied),
            ("InvalidAccessKeyId", BackendErrorKind::Unauthenticated),
            ("SignatureDoesNotMatch", BackendErrorKind::Unauthenticated),
            ("ExpiredToken", BackendErrorKind::Unauthenticated),
            ("ContainerNotFound", BackendErrorKind::NoSuchContainer),
            ("SlowDown", BackendErrorKind::Unavailable),
            ("Whatever", BackendErrorKind::AccessDenied),
        ];
        for (code, kind) in cases {
            let text: &'static str = format!(
                "403 Forbidden: <Error><Code>{code}</Code><Message><![CDATA[no]]></Message></Error>"
            )
            .leak();
            let error = io_error(object_store::Error::PermissionDenied {
                path: "k".to_owned(),
                source: Box::new(Said(text)),
            });
            let said = backend(&error);
            assert_eq!(said.kind(), kind, "{code}");
            assert_eq!(said.code(), Some(code));
            assert_eq!(said.service_message(), Some("no"));
            assert_eq!(said.container(), None);
        }
    }

    #[test]
    fn an_answer_without_code_or_message_is_said_so() {
        assert_eq!(
            ServiceAnswer::of("x: <Error></Error>"),
            Some(ServiceAnswer {
                before: "x".to_owned(),
                code: None,
                message: None,
                bucket: None,
            })
        );
        let error = io_error(generic("failed: <Error><Other/></Error>"));
        assert!(
            error
                .to_string()
                .ends_with("failed; the server answered an error without a code"),
            "{error}"
        );
        assert_eq!(ServiceAnswer::of("no body at all"), None);
        assert_eq!(
            element("<a><Code>X</Code></a>", "Code").as_deref(),
            Some("X")
        );
        assert_eq!(element("<a></a>", "Code"), None);
    }

    #[test]
    fn variants_without_an_answer_keep_the_clients_text() {
        let error = io_error(object_store::Error::NotFound {
            path: "k".to_owned(),
            source: Box::new(Said("gone")),
        });
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        let said = backend(&error);
        assert_eq!(said.kind(), BackendErrorKind::NotFound);
        assert!(!said.is_answered());
        assert_eq!(said.code(), None);
        assert_eq!(error.to_string(), "Object at location k not found: gone");
        let error = io_error(object_store::Error::Precondition {
            path: "k".to_owned(),
            source: Box::new(Said("changed")),
        });
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(backend(&error).kind(), BackendErrorKind::PreconditionFailed);
        let error = io_error(generic("plain"));
        assert_eq!(backend(&error).kind(), BackendErrorKind::Other);
    }

    #[test]
    fn a_refused_create_without_an_object_keeps_the_answer() {
        let error = refused_without_object("r/k", generic(NO_SUCH_BUCKET));
        assert_eq!(error.kind(), io::ErrorKind::Other);
        let said = backend(&error);
        assert_eq!(said.kind(), BackendErrorKind::NoSuchContainer);
        assert!(
            said.message().starts_with(
                "the store refused to create r/k but holds no such object: Generic S3 error"
            ),
            "{said}"
        );
    }

    #[test]
    fn a_missing_object_in_memory_is_not_found() {
        let Address::Object { store, .. } =
            parse_address_with_env("memory://", Vec::<(String, String)>::new()).unwrap()
        else {
            panic!("not a store");
        };
        let error = store.read(Path::new("/missing"), 10).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert_eq!(backend(&error).kind(), BackendErrorKind::NotFound);
    }

    #[test]
    fn a_plain_http_endpoint_refused_by_the_client_is_the_configurations() {
        let env = [
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:9"),
            ("AWS_ACCESS_KEY_ID", "test"),
            ("AWS_SECRET_ACCESS_KEY", "test"),
            ("AWS_REGION", "us-east-1"),
        ];
        let Address::Object { store, .. } = parse_address_with_env("s3://b/r", env).unwrap() else {
            panic!("not a store");
        };
        let error = store.read(Path::new("/r/x"), 10).unwrap_err();
        let said = backend(&error);
        assert_eq!(
            said.kind(),
            BackendErrorKind::InvalidConfiguration,
            "{said:?}"
        );
        assert!(!said.is_answered());
        assert!(said.message().contains("builder error"), "{said}");
    }
}
