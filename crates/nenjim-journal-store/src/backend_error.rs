//! A backend's error, typed once where the backend translates its client's
//! error (for a bucket, `nenjim-journal-objstore`'s `errors.rs`), so that
//! no caller reads an error's text to learn what the service said.
//!
//! The seam speaks `std::io::Error`; a backend carries a [`BackendError`]
//! inside the io error it returns (`io::Error::new(kind, backend_error)`),
//! and from there it rides in the source chain of every `JournalError`
//! made of that io error. [`BackendError::find`] takes it out again.

use std::error::Error;
use std::fmt;
use std::io;
use std::sync::Arc;

/// What went wrong at a backend, as far as its client or its service said.
///
/// More kinds may come as backends say more; match with a `_` arm.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackendErrorKind {
    /// The object (or key) does not exist.
    NotFound,
    /// The bucket (S3, GCS) or container (Azure) does not exist.
    NoSuchContainer,
    /// The credentials were accepted but do not allow the operation.
    AccessDenied,
    /// The credentials are missing, unknown, expired or signed wrongly.
    Unauthenticated,
    /// A conditional request's condition did not hold (the object changed).
    PreconditionFailed,
    /// A create-only request found the object already there.
    AlreadyExists,
    /// The service did not answer in time, could not be reached, or asked
    /// to slow down: retry later.
    Unavailable,
    /// The client's own settings refused the request before it was sent
    /// (such as a plain `http://` endpoint that is not allowed).
    InvalidConfiguration,
    /// A TLS certificate was refused: the server's by this client, or this
    /// client's by the server.
    Certificate,
    /// The backend does not support the operation.
    Unsupported,
    /// Anything else.
    Other,
}

impl BackendErrorKind {
    /// The kind's name (`"NoSuchContainer"`, `"AccessDenied"` …).
    pub fn as_str(self) -> &'static str {
        match self {
            BackendErrorKind::NotFound => "NotFound",
            BackendErrorKind::NoSuchContainer => "NoSuchContainer",
            BackendErrorKind::AccessDenied => "AccessDenied",
            BackendErrorKind::Unauthenticated => "Unauthenticated",
            BackendErrorKind::PreconditionFailed => "PreconditionFailed",
            BackendErrorKind::AlreadyExists => "AlreadyExists",
            BackendErrorKind::Unavailable => "Unavailable",
            BackendErrorKind::InvalidConfiguration => "InvalidConfiguration",
            BackendErrorKind::Certificate => "Certificate",
            BackendErrorKind::Unsupported => "Unsupported",
            BackendErrorKind::Other => "Other",
        }
    }
}

impl fmt::Display for BackendErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A backend's error: its [kind](BackendErrorKind), the service's own code
/// and message when it answered with an error body (`NoSuchBucket`, `The
/// specified bucket does not exist`), the bucket or container the service
/// named, and the message, which `Display` shows (the client's text, with
/// the service's body said as `; the server answered <code>: <message>`
/// instead of quoted whole). The client's own error is its `source()`.
///
/// `Debug` reads like the message (the kind, the message and each cause on
/// a line of its own); `{:#?}` shows the fields.
///
/// ```
/// use std::io;
/// use nenjim_journal_store::{BackendError, BackendErrorKind};
///
/// let said = BackendError::new(BackendErrorKind::NoSuchContainer, "cannot list")
///     .answered(Some("NoSuchBucket".into()), Some("The specified bucket does not exist".into()))
///     .with_container("journals");
/// assert_eq!(
///     said.to_string(),
///     "cannot list; the server answered NoSuchBucket: The specified bucket does not exist"
/// );
/// // Carried inside an io error, and found again through any chain.
/// let carried = io::Error::other(said);
/// let found = BackendError::find(&carried).unwrap();
/// assert_eq!(found.kind(), BackendErrorKind::NoSuchContainer);
/// assert_eq!(found.code(), Some("NoSuchBucket"));
/// assert_eq!(found.container(), Some("journals"));
/// ```
#[derive(Clone)]
pub struct BackendError {
    kind: BackendErrorKind,
    message: String,
    answered: bool,
    code: Option<String>,
    service_message: Option<String>,
    container: Option<String>,
    source: Option<Arc<dyn Error + Send + Sync + 'static>>,
}

impl BackendError {
    /// An error of `kind` whose message is `message` (the client's text).
    pub fn new(kind: BackendErrorKind, message: impl Into<String>) -> BackendError {
        BackendError {
            kind,
            message: message.into(),
            answered: false,
            code: None,
            service_message: None,
            container: None,
            source: None,
        }
    }

    /// Records that the service answered with an error body, and its code
    /// and message when the body had them: the message then ends with
    /// `; the server answered <code>: <message>` (or the one of them it
    /// sent, or `an error without a code`).
    #[must_use]
    pub fn answered(mut self, code: Option<String>, message: Option<String>) -> BackendError {
        let answer = match (&code, &message) {
            (Some(code), Some(text)) => format!("{code}: {text}"),
            (Some(code), None) => code.clone(),
            (None, Some(text)) => text.clone(),
            (None, None) => "an error without a code".to_owned(),
        };
        self.message = format!("{}; the server answered {answer}", self.message);
        self.answered = true;
        self.code = code;
        self.service_message = message;
        self
    }

    /// The bucket or container the error concerns, as the service named it.
    #[must_use]
    pub fn with_container(mut self, container: impl Into<String>) -> BackendError {
        self.container = Some(container.into());
        self
    }

    /// Keeps the client's own error as `source()`.
    #[must_use]
    pub fn with_source(mut self, source: impl Error + Send + Sync + 'static) -> BackendError {
        self.source = Some(Arc::new(source));
        self
    }

    /// Says what the error concerns, before the message: `context: message`.
    #[must_use]
    pub fn context(mut self, context: impl fmt::Display) -> BackendError {
        self.message = format!("{context}: {}", self.message);
        self
    }

    /// The io error that carries this error, of `kind` (the kind the seam's
    /// callers match on, which a backend chooses as a local file system
    /// would answer).
    pub fn into_io(self, kind: io::ErrorKind) -> io::Error {
        io::Error::new(kind, self)
    }

    /// What went wrong.
    pub fn kind(&self) -> BackendErrorKind {
        self.kind
    }

    /// The whole message, as `Display` shows it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the service answered with an error body (whose code and
    /// message are [`code`](Self::code) and
    /// [`service_message`](Self::service_message), when it sent them);
    /// `false` when the request failed before an answer, or the answer had
    /// no body.
    pub fn is_answered(&self) -> bool {
        self.answered
    }

    /// The service's error code (`NoSuchBucket`, `AccessDenied`,
    /// `ContainerNotFound` …), when it sent one.
    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }

    /// The service's own message, when it sent one.
    pub fn service_message(&self) -> Option<&str> {
        self.service_message.as_deref()
    }

    /// The bucket or container the service named, when it did.
    pub fn container(&self) -> Option<&str> {
        self.container.as_deref()
    }

    /// The first backend error in `error`'s source chain (`error` itself
    /// included), looking inside each io error on the way (an io error's
    /// `source()` skips the error it carries).
    pub fn find<'a>(error: &'a (dyn Error + 'static)) -> Option<&'a BackendError> {
        let mut next = Some(error);
        while let Some(error) = next {
            if let Some(found) = error.downcast_ref::<BackendError>() {
                return Some(found);
            }
            next = match error
                .downcast_ref::<io::Error>()
                .and_then(io::Error::get_ref)
            {
                Some(inner) => Some(inner as &(dyn Error + 'static)),
                None => error.source(),
            };
        }
        None
    }
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Reads like the message, as `JournalError`'s `Debug` does: the kind, the
/// message and each cause on a line of its own. `{:#?}` shows the fields.
impl fmt::Debug for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            write!(f, "{}: {}", self.kind, self.message)?;
            let mut cause = self.source();
            while let Some(error) = cause {
                write!(f, "\n  caused by: {error}")?;
                cause = error.source();
            }
            return Ok(());
        }
        f.debug_struct("BackendError")
            .field("kind", &self.kind)
            .field("message", &self.message)
            .field("answered", &self.answered)
            .field("code", &self.code)
            .field("service_message", &self.service_message)
            .field("container", &self.container)
            .field("source", &self.source)
            .finish()
    }
}

impl Error for BackendError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        let source: &(dyn Error + Send + Sync + 'static) = self.source.as_deref()?;
        Some(source)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a test fails by panicking
mod tests {
    use std::io;

    use super::{BackendError, BackendErrorKind};

    #[derive(Debug)]
    struct Client;
    impl std::fmt::Display for Client {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("the client's own text")
        }
    }
    impl std::error::Error for Client {}

    #[test]
    fn it_is_found_through_io_errors_and_wrappers() {
        let backend = BackendError::new(BackendErrorKind::AccessDenied, "refused")
            .answered(Some("AccessDenied".into()), None)
            .with_source(Client);
        let inner = backend.into_io(io::ErrorKind::PermissionDenied);
        // An io error wrapping an io error (as a TLS failure comes).
        let outer = io::Error::other(inner);
        let found = BackendError::find(&outer).unwrap();
        assert_eq!(found.kind(), BackendErrorKind::AccessDenied);
        assert!(found.is_answered());
        assert_eq!(found.code(), Some("AccessDenied"));
        assert_eq!(found.service_message(), None);
        assert_eq!(
            found.to_string(),
            "refused; the server answered AccessDenied"
        );
        assert!(BackendError::find(&io::Error::other("plain")).is_none());
    }

    #[test]
    fn debug_reads_like_the_message_and_its_causes() {
        let backend = BackendError::new(BackendErrorKind::Other, "cannot get")
            .answered(None, None)
            .context("key k")
            .with_source(Client);
        assert_eq!(
            format!("{backend:?}"),
            "Other: key k: cannot get; the server answered an error without a code\n  caused by: the client's own text"
        );
        assert!(format!("{backend:#?}").contains("service_message"));
    }
}
