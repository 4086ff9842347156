//! The blob service of Azurite, Azure Storage's emulator (the npm package
//! `azurite`, its program `azurite-blob`), over HTTPS with a certificate of
//! the tests' CA: started on 127.0.0.1 and a free port, in memory, with its
//! telemetry off, and killed by PID on drop. `cargo xtask ci` installs it;
//! without it a test fails (never skips).
//!
//! The emulator's account is the well-known `devstoreaccount1`: a client
//! reaches it with `AZURE_STORAGE_USE_EMULATOR=true` and
//! `AZURITE_BLOB_STORAGE_URL` set to [`Azurite::endpoint`].

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// The pinned version `cargo xtask ci` installs.
pub const VERSION: &str = "3.35.0";

/// The emulator's well-known account.
pub const ACCOUNT: &str = "devstoreaccount1";

/// The emulator's well-known account key (base64).
pub const ACCOUNT_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// The API version of the tests' own requests.
const API_VERSION: &str = "2021-08-06";

/// Azurite's blob service over HTTPS, killed (and reaped) on drop.
#[derive(Debug)]
pub struct Azurite {
    child: Child,
    port: u16,
    /// The CA the tests' own requests trust.
    ca: PathBuf,
    /// Azurite's working directory and log (it persists nothing: in memory).
    _location: tempfile::TempDir,
}

impl Azurite {
    /// Starts `azurite-blob` over HTTPS with the certificate `cert` and its
    /// key `key` (PEM files), and waits until it accepts connections. The
    /// tests' own requests ([`Azurite::create_container`]) trust the CA
    /// certificate `ca`.
    ///
    /// # Panics
    ///
    /// When `azurite-blob` is missing or does not come up: a test that
    /// needs it fails.
    pub fn start_tls(cert: &Path, key: &Path, ca: &Path) -> Azurite {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let location = tempfile::tempdir().expect("a temporary directory for Azurite");
        let install = format!(
            "npm install --prefix target/ci-node azurite@{VERSION}, and its node_modules/.bin on PATH \
             (`cargo xtask ci` does both)"
        );
        // Its messages (why it exited) go to a file, read if it fails.
        let log = location.path().join("azurite.log");
        let child = Command::new("azurite-blob")
            .args(["--blobHost", "127.0.0.1", "--blobPort", &port.to_string()])
            .arg("--cert")
            .arg(cert)
            .arg("--key")
            .arg(key)
            .args([
                "--inMemoryPersistence",
                "--disableTelemetry",
                "--skipApiVersionCheck",
                "--silent",
            ])
            .current_dir(location.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("Azurite's log file"))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run azurite-blob ({e}): install it with {install}"));
        let mut azurite = Azurite {
            child,
            port,
            ca: ca.to_path_buf(),
            _location: location,
        };
        // Poll until it accepts connections (or exits: Node or Azurite is
        // broken).
        for _ in 0..600 {
            if let Some(status) = azurite.child.try_wait().unwrap() {
                let said = std::fs::read_to_string(&log).unwrap_or_default();
                panic!(
                    "azurite-blob exited ({status}): {}; install it with {install}",
                    said.trim()
                );
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return azurite;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("azurite-blob did not accept connections on port {port}");
    }

    /// The server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `https://127.0.0.1:<port>`: the value of `AZURITE_BLOB_STORAGE_URL`.
    pub fn endpoint(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// Creates the container `name` of the emulator's account (a request
    /// signed with its well-known key).
    ///
    /// # Panics
    ///
    /// When the server does not answer 201.
    pub fn create_container(&self, name: &str) {
        let date = http_date(std::time::SystemTime::now());
        // Shared Key: the verb, eleven empty standard headers, the x-ms-
        // headers, and the resource (path-style: the account twice).
        let to_sign = format!(
            "PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:{date}\nx-ms-version:{API_VERSION}\n\
             /{ACCOUNT}/{ACCOUNT}/{name}\nrestype:container"
        );
        let key = ring::hmac::Key::new(
            ring::hmac::HMAC_SHA256,
            &STANDARD.decode(ACCOUNT_KEY).unwrap(),
        );
        let signature = STANDARD.encode(ring::hmac::sign(&key, to_sign.as_bytes()));
        let stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let mut stream = rustls::StreamOwned::new(crate::moto::tls_client(&self.ca), stream);
        write!(
            stream,
            "PUT /{ACCOUNT}/{name}?restype=container HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\
             x-ms-date: {date}\r\nx-ms-version: {API_VERSION}\r\n\
             Authorization: SharedKey {ACCOUNT}:{signature}\r\n\
             Content-Length: 0\r\nConnection: close\r\n\r\n",
            self.port
        )
        .unwrap();
        let mut answer = Vec::new();
        // A TLS server may close without its close_notify: what was read counts.
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    }
}

impl Drop for Azurite {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `time` as an HTTP date (RFC 7231's IMF-fixdate, always GMT).
fn http_date(time: std::time::SystemTime) -> String {
    let seconds = time
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{}, {day:02} {} {year} {:02}:{:02}:{:02} GMT",
        WEEKDAYS[(days % 7) as usize],
        MONTHS[(month - 1) as usize],
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::http_date;

    #[test]
    fn an_http_date_is_the_imf_fixdate_of_its_instant() {
        assert_eq!(http_date(UNIX_EPOCH), "Thu, 01 Jan 1970 00:00:00 GMT");
        // 2024-02-29T23:59:59Z, a leap day.
        assert_eq!(
            http_date(UNIX_EPOCH + Duration::from_secs(1_709_251_199)),
            "Thu, 29 Feb 2024 23:59:59 GMT"
        );
        // 2000-03-01T12:34:56Z.
        assert_eq!(
            http_date(UNIX_EPOCH + Duration::from_secs(951_914_096)),
            "Wed, 01 Mar 2000 12:34:56 GMT"
        );
    }
}
