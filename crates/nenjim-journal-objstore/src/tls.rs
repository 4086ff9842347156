//! The stores' one TLS stack: rustls with ring, the CA files an operator
//! names, and a certificate refusal said as one (and not retried).
//!
//! The whole workspace links one rustls crypto provider, ring (the
//! workspace's `Cargo.toml` says why): `object_store`'s HTTP client,
//! reqwest, is built with no provider of its own and takes the process's
//! default, which [`install_crypto_provider`] sets when nothing has. Every
//! store this crate builds calls it first; a program that builds its own
//! `object_store` clients beside this crate's calls it too.
//!
//! Trust: the system's roots (which honour `SSL_CERT_FILE` and
//! `SSL_CERT_DIR`), and besides them the PEM files named by
//! `AWS_CA_BUNDLE` (as the AWS tools read it, for S3, GCS and Azure alike)
//! and `SSL_CERT_FILE`.
//!
//! A server whose certificate is not trusted fails the same way every
//! time: `object_store` would retry it ten times over about five seconds
//! and then say "error sending request". The connector here marks such a
//! failure as not retryable, and [`certificate_problem`] finds it in an
//! error's sources so that the message says "certificate" and names the
//! variables.

use std::error::Error;
use std::io;

use object_store::client::{
    ClientOptions, HttpClient, HttpConnector, HttpError, HttpErrorKind, HttpRequest, HttpResponse,
    HttpService, ReqwestConnector,
};

/// The variables whose PEM files a store trusts besides the system's roots.
pub const CA_VARIABLES: [&str; 2] = ["AWS_CA_BUNDLE", "SSL_CERT_FILE"];

/// Installs ring as the process's rustls crypto provider, unless one is
/// installed already (by this crate or by the program). Idempotent and
/// safe to call from several threads at once.
pub fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Another thread may have installed one in between: either way a
        // provider is installed, which is all that is asked.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// The certificates of the CA files named in `env` ([`CA_VARIABLES`]),
/// read now: a file that cannot be read or holds no PEM certificate is an
/// `InvalidInput` error naming its variable.
pub(crate) fn extra_roots(
    env: &[(String, String)],
) -> io::Result<Vec<object_store::client::Certificate>> {
    let mut roots = Vec::new();
    for variable in CA_VARIABLES {
        let Some((_, path)) = env.iter().find(|(k, v)| k == variable && !v.is_empty()) else {
            continue;
        };
        let pem = std::fs::read(path).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("cannot read the CA file {path} named by {variable}: {e}"),
            )
        })?;
        let certificates = object_store::client::Certificate::from_pem_bundle(&pem)
            .ok()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "found no PEM certificate in the CA file {path} named by {variable}, expected one or more `-----BEGIN CERTIFICATE-----` blocks"
                    ),
                )
            })?;
        roots.extend(certificates);
    }
    Ok(roots)
}

/// What is wrong with a certificate, when `error` or one of its sources
/// is a TLS certificate refusal (ours of the server's, or the server's of
/// ours); `None` for any other error.
pub fn certificate_problem(error: &(dyn Error + 'static)) -> Option<String> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(tls) = error.downcast_ref::<rustls::Error>() {
            return certificate_error(tls);
        }
        // An io error's `source` skips the error it wraps (and a TLS
        // failure comes wrapped in two of them): look inside it.
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

fn certificate_error(error: &rustls::Error) -> Option<String> {
    use rustls::AlertDescription as A;
    match error {
        rustls::Error::InvalidCertificate(_) => Some(format!(
            "the server's TLS certificate is not trusted ({error})"
        )),
        rustls::Error::AlertReceived(
            A::BadCertificate
            | A::UnsupportedCertificate
            | A::CertificateRevoked
            | A::CertificateExpired
            | A::CertificateUnknown
            | A::UnknownCA
            | A::CertificateRequired,
        ) => Some(format!(
            "the server refused this client's TLS certificate ({error})"
        )),
        _ => None,
    }
}

/// `object_store`'s reqwest connector, with the CA files of the
/// environment trusted, and a certificate refusal not retried.
#[derive(Debug)]
pub(crate) struct Connector {
    pub(crate) roots: Vec<object_store::client::Certificate>,
}

impl HttpConnector for Connector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        install_crypto_provider();
        let options = self
            .roots
            .iter()
            .cloned()
            .fold(options.clone(), ClientOptions::with_root_certificate);
        Ok(HttpClient::new(Service(
            ReqwestConnector::default().connect(&options)?,
        )))
    }
}

#[derive(Debug)]
struct Service(HttpClient);

#[async_trait::async_trait]
impl HttpService for Service {
    async fn call(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        self.0.execute(request).await.map_err(|error| {
            if certificate_problem(&error).is_some() {
                // The same answer every time: fail at once, not after ten
                // retries.
                HttpError::new(HttpErrorKind::Unknown, error)
            } else {
                error
            }
        })
    }
}
