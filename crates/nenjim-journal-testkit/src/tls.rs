//! A test certificate authority, made by the tests (rcgen, on ring): a CA,
//! a server certificate for `127.0.0.1` and `localhost` signed by it, a
//! client certificate signed by it, and a second, unrelated CA (one that
//! trusts nothing the servers present), all written as PEM files to a
//! temporary directory that lives as long as the value.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

/// The PEM files of a test CA and the certificates it signed.
#[derive(Debug)]
pub struct TestCa {
    dir: tempfile::TempDir,
}

impl TestCa {
    /// Makes a new CA, a server and a client certificate, and another CA.
    ///
    /// # Panics
    ///
    /// When a key or a certificate cannot be made or written (a test
    /// that needs them fails).
    #[allow(clippy::expect_used)]
    pub fn new() -> TestCa {
        let dir = tempfile::tempdir().expect("a temporary directory for the test CA");
        let ca = authority("nenjim test CA");
        let other = authority("nenjim other CA");
        let server = leaf(
            &ca,
            "nenjim test server",
            vec!["127.0.0.1".to_owned(), "localhost".to_owned()],
            ExtendedKeyUsagePurpose::ServerAuth,
        );
        let client = leaf(
            &ca,
            "nenjim test client",
            vec!["client.nenjim.test".to_owned()],
            ExtendedKeyUsagePurpose::ClientAuth,
        );
        let stranger = leaf(
            &other,
            "nenjim stranger client",
            vec!["stranger.nenjim.test".to_owned()],
            ExtendedKeyUsagePurpose::ClientAuth,
        );
        let files = [
            ("ca.pem", ca.pem()),
            ("other-ca.pem", other.pem()),
            ("server.pem", server.0),
            ("server-key.pem", server.1),
            ("client.pem", client.0),
            ("client-key.pem", client.1),
            ("stranger.pem", stranger.0),
            ("stranger-key.pem", stranger.1),
        ];
        for (name, pem) in files {
            std::fs::write(dir.path().join(name), pem).expect("a PEM file of the test CA");
        }
        TestCa { dir }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The CA's certificate.
    pub fn ca(&self) -> PathBuf {
        self.file("ca.pem")
    }

    /// Another CA's certificate: trusts none of this CA's certificates.
    pub fn other_ca(&self) -> PathBuf {
        self.file("other-ca.pem")
    }

    /// The server's certificate (for `127.0.0.1` and `localhost`).
    pub fn server_cert(&self) -> PathBuf {
        self.file("server.pem")
    }

    /// The server's private key.
    pub fn server_key(&self) -> PathBuf {
        self.file("server-key.pem")
    }

    /// A client certificate signed by the CA.
    pub fn client_cert(&self) -> PathBuf {
        self.file("client.pem")
    }

    /// The client certificate's private key.
    pub fn client_key(&self) -> PathBuf {
        self.file("client-key.pem")
    }

    /// A client certificate signed by the other CA (a server that trusts
    /// this CA refuses it).
    pub fn stranger_cert(&self) -> PathBuf {
        self.file("stranger.pem")
    }

    /// The stranger certificate's private key.
    pub fn stranger_key(&self) -> PathBuf {
        self.file("stranger-key.pem")
    }

    /// The directory holding every file.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Default for TestCa {
    fn default() -> TestCa {
        TestCa::new()
    }
}

#[allow(clippy::expect_used)]
fn authority(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let key = KeyPair::generate().expect("a CA key");
    CertifiedIssuer::self_signed(params, key).expect("a self-signed CA certificate")
}

/// A certificate signed by `ca` and its key, both PEM.
#[allow(clippy::expect_used)]
fn leaf(
    ca: &CertifiedIssuer<'static, KeyPair>,
    name: &str,
    names: Vec<String>,
    usage: ExtendedKeyUsagePurpose,
) -> (String, String) {
    let mut params = CertificateParams::new(names).expect("certificate parameters");
    params.distinguished_name.push(DnType::CommonName, name);
    params.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    params.extended_key_usages = vec![usage];
    params.use_authority_key_identifier_extension = true;
    let key = KeyPair::generate().expect("a certificate key");
    let cert = params
        .signed_by(&key, ca)
        .expect("a certificate signed by the test CA");
    (cert.pem(), key.serialize_pem())
}
