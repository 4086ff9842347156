//! The client's TLS configuration, on the workspace's one rustls crypto
//! provider (ring), and certificate failures said as such.
//!
//! Trust: the system's roots (which honour `SSL_CERT_FILE`) and the PEM
//! file named by `NATS_CA`; a client certificate from `NATS_CERT` and
//! `NATS_KEY`. A file that cannot be read, or holds no certificate or key,
//! is an error naming its variable; so is a handshake that fails on a
//! certificate, ours or the server's.

use std::sync::Arc;

use nenjim_journal_api::error::{self, ErrorContext as _, ErrorKind, JournalError};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::address::Credentials;

/// The system's roots, read and parsed once a process for each value of
/// the variables that choose them (`SSL_CERT_FILE`, `SSL_CERT_DIR`): every
/// connection has a TLS configuration, a plain one too (a server may ask
/// for TLS), and reading the system's bundle (about 150 certificates) took
/// 10-15 ms of each connection, a part of every NATS start (P16).
fn system_roots() -> rustls::RootCertStore {
    type Key = [Option<std::ffi::OsString>; 2];
    static READ: std::sync::Mutex<Option<(Key, rustls::RootCertStore)>> =
        std::sync::Mutex::new(None);
    let key: Key = ["SSL_CERT_FILE", "SSL_CERT_DIR"].map(std::env::var_os);
    let mut read = READ
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match &*read {
        Some((at, roots)) if *at == key => roots.clone(),
        _ => {
            let mut roots = rustls::RootCertStore::empty();
            roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
            *read = Some((key, roots.clone()));
            roots
        }
    }
}

/// The TLS configuration of a connection with `credentials` (to the
/// root `address`, for messages).
pub(crate) fn client_config(
    credentials: &Credentials,
    address: &str,
) -> Result<rustls::ClientConfig, JournalError> {
    // The system's roots: a bundle that fails in part still gives the
    // rest (as every TLS client here does); NATS_CA is checked strictly.
    let mut roots = system_roots();
    if let Some(ca) = &credentials.ca {
        let certificates = read_certificates(ca, "NATS_CA", address)?;
        for certificate in certificates {
            roots.add(certificate).map_err(|e| {
                setting_error(
                    "NATS_CA",
                    ca,
                    address,
                    &format!("holds a certificate that cannot be a root ({e})"),
                )
            })?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| {
            error::error(
                ErrorKind::Io,
                format!("cannot configure TLS for {address}: {e}"),
            )
            .with_path(address)
        })?
        .with_root_certificates(roots);
    match &credentials.client_cert {
        None => Ok(builder.with_no_client_auth()),
        Some((cert, key)) => {
            let chain = read_certificates(cert, "NATS_CERT", address)?;
            let private = PrivateKeyDer::from_pem_file(key).map_err(|e| {
                setting_error(
                    "NATS_KEY",
                    key,
                    address,
                    &format!("holds no PEM private key ({e})"),
                )
            })?;
            builder.with_client_auth_cert(chain, private).map_err(|e| {
                setting_error(
                    "NATS_CERT",
                    cert,
                    address,
                    &format!("does not go with the key named by NATS_KEY ({e})"),
                )
            })
        }
    }
}

/// The PEM certificates of the file `path` named by `variable`: at least one.
fn read_certificates(
    path: &std::path::Path,
    variable: &str,
    address: &str,
) -> Result<Vec<CertificateDer<'static>>, JournalError> {
    let bytes = std::fs::read(path)
        .map_err(|e| setting_error(variable, path, address, &format!("cannot be read ({e})")))?;
    let certificates = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            setting_error(
                variable,
                path,
                address,
                &format!("is not a PEM certificate file ({e})"),
            )
        })?;
    if certificates.is_empty() {
        return Err(setting_error(
            variable,
            path,
            address,
            "holds no certificate, expected one or more `-----BEGIN CERTIFICATE-----` blocks",
        ));
    }
    Ok(certificates)
}

fn setting_error(
    variable: &str,
    path: &std::path::Path,
    address: &str,
    what: &str,
) -> JournalError {
    error::error(
        ErrorKind::Io,
        format!(
            "the certificate file {} named by {variable} {what}, to connect to {address}",
            path.display()
        ),
    )
    .with_path(path.to_path_buf())
}

/// What went wrong with a certificate, said with the variables to set,
/// when `error` or one of its sources is a TLS certificate failure.
pub(crate) fn certificate_problem(
    error: &(dyn std::error::Error + 'static),
    credentials: &Credentials,
) -> Option<String> {
    let tls = rustls_error(error)?;
    use rustls::AlertDescription as A;
    match tls {
        rustls::Error::InvalidCertificate(_) => Some(match &credentials.ca {
            Some(ca) => format!(
                "the server's TLS certificate is not trusted ({tls}): expected one signed by the CA in {} (NATS_CA) or by a root of this system",
                ca.display()
            ),
            None => format!(
                "the server's TLS certificate is not trusted ({tls}): set NATS_CA to the PEM file of the CA that signed it"
            ),
        }),
        rustls::Error::AlertReceived(
            A::BadCertificate
            | A::UnsupportedCertificate
            | A::CertificateRevoked
            | A::CertificateExpired
            | A::CertificateUnknown
            | A::UnknownCA
            | A::CertificateRequired,
        ) => Some(match &credentials.client_cert {
            Some((cert, _)) => format!(
                "the server refused the client certificate {} (NATS_CERT): {tls}",
                cert.display()
            ),
            None => format!(
                "the server asks for a client certificate ({tls}): set NATS_CERT and NATS_KEY to its PEM files"
            ),
        }),
        _ => None,
    }
}

/// The rustls error among `error` and its sources (also inside an io error).
fn rustls_error<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(tls) = error.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        // An io error's `source` skips the error it wraps (a TLS failure
        // can come wrapped in two of them): look inside it.
        next = match error
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => error.source(),
        };
    }
    None
}
