//! The S3 protocol server of the `moto` Python package, for the tests that
//! run against a real S3 protocol: started on 127.0.0.1 and a free port,
//! killed on drop. `cargo xtask ci` installs it; without it a test fails (never
//! skips).

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};

/// The moto S3 server, killed (and reaped) on drop.
#[derive(Debug)]
pub struct Moto {
    child: Child,
    port: u16,
    /// `http`, or `https` when started with a certificate.
    scheme: &'static str,
    /// The CA the tests' own requests trust, over TLS.
    ca: Option<std::path::PathBuf>,
}

impl Moto {
    /// Starts the server and waits until it accepts connections.
    ///
    /// # Panics
    ///
    /// When python3 or moto is missing, or the server does not come up: a
    /// test that needs it fails.
    #[allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]
    pub fn start() -> Moto {
        Moto::start_with(&[])
    }

    /// Starts the server over HTTPS with the certificate `cert` and its key
    /// `key` (PEM files): its endpoint is `https://127.0.0.1:<port>`.
    ///
    /// # Panics
    ///
    /// As [`Moto::start`].
    /// The server's own requests of the tests ([`Moto::create_bucket`],
    /// [`Moto::put_object`]) trust the CA certificate `ca`.
    ///
    /// # Panics
    ///
    /// As [`Moto::start`].
    #[cfg(feature = "object-store")]
    pub fn start_tls(cert: &std::path::Path, key: &std::path::Path, ca: &std::path::Path) -> Moto {
        let (cert, key) = (cert.display().to_string(), key.display().to_string());
        let mut moto = Moto::start_with(&["-c", &cert, "-k", &key]);
        moto.scheme = "https";
        moto.ca = Some(ca.to_path_buf());
        moto
    }

    #[allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]
    fn start_with(args: &[&str]) -> Moto {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("python3")
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs the moto S3 server (pip install 'moto[server]==5.1.18')");
        let mut moto = Moto {
            child,
            port,
            scheme: "http",
            ca: None,
        };
        // Poll until it accepts connections (or exits: moto is missing).
        for _ in 0..600 {
            if let Some(status) = moto.child.try_wait().unwrap() {
                panic!(
                    "the moto server exited ({status}): install it with pip install 'moto[server]==5.1.18'"
                );
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return moto;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = moto.child.kill();
        panic!("the moto server did not accept connections on port {port}");
    }

    /// The server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:<port>` (`https://` when started over TLS).
    pub fn endpoint(&self) -> String {
        format!("{}://127.0.0.1:{}", self.scheme, self.port)
    }

    /// An S3 client of the bucket `name` (the tests' static credentials;
    /// moto checks no signature).
    ///
    /// # Panics
    ///
    /// When `object_store` refuses the configuration.
    #[cfg(feature = "object-store")]
    #[allow(clippy::unwrap_used)]
    pub fn bucket(&self, name: &str) -> std::sync::Arc<dyn object_store::ObjectStore> {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
        std::sync::Arc::new(
            object_store::aws::AmazonS3Builder::new()
                .with_endpoint(self.endpoint())
                .with_allow_http(true)
                .with_bucket_name(name)
                .with_region("us-east-1")
                .with_access_key_id("test")
                .with_secret_access_key("test")
                .build()
                .unwrap(),
        )
    }

    /// Creates the bucket `name` (an unsigned request: moto accepts it).
    ///
    /// # Panics
    ///
    /// When the server does not answer 200.
    pub fn create_bucket(&self, name: &str) {
        self.put(name, b"");
    }

    /// Puts `bytes` at `key` of the bucket `bucket`, unconditionally: a
    /// test's way to damage what a client wrote. (moto checks no signature,
    /// but refuses an anonymous request over an object an account owns: the
    /// request names the tests' access key `test`.)
    ///
    /// # Panics
    ///
    /// When the server does not answer 200.
    pub fn put_object(&self, bucket: &str, key: &str, bytes: &[u8]) {
        self.put(&format!("{bucket}/{key}"), bytes);
    }

    /// `PUT /<path>` with `body`, expecting 200.
    #[allow(clippy::unwrap_used)]
    fn put(&self, path: &str, body: &[u8]) {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        match &self.ca {
            None => self.put_over(stream, path, body),
            #[cfg(feature = "object-store")]
            Some(ca) => {
                let connection = tls_client(ca);
                self.put_over(rustls::StreamOwned::new(connection, stream), path, body);
            }
            #[cfg(not(feature = "object-store"))]
            Some(_) => unreachable!("a TLS server is started with the object-store feature only"),
        }
    }

    #[allow(clippy::unwrap_used)]
    fn put_over(&self, mut stream: impl std::io::Read + std::io::Write, path: &str, body: &[u8]) {
        write!(
            stream,
            "PUT /{path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\n\
             Authorization: AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/s3/aws4_request, \
             SignedHeaders=host, Signature=00\r\nConnection: close\r\n\r\n",
            self.port,
            body.len()
        )
        .unwrap();
        stream.write_all(body).unwrap();
        let mut answer = Vec::new();
        // A TLS server may close without its close_notify: what was read counts.
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
}

/// A TLS client connection to `127.0.0.1` trusting the CA file `ca`.
#[cfg(feature = "object-store")]
#[allow(clippy::unwrap_used)]
pub(crate) fn tls_client(ca: &std::path::Path) -> rustls::ClientConnection {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject as _;
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(cert.unwrap()).unwrap();
    }
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    rustls::ClientConnection::new(std::sync::Arc::new(config), "127.0.0.1".try_into().unwrap())
        .unwrap()
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
