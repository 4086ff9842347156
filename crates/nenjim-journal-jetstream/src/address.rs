//! `nats://host:port/<name>` addresses and the credentials that go with them.
//!
//! The address names the server and the root; it never carries a secret
//! (an address with `user:password@` is refused). Credentials and TLS come
//! from the environment, under the names the NATS command-line tools use:
//!
//! | variable | what |
//! | --- | --- |
//! | `NATS_CREDS` | a creds file (a user JWT and its NKey seed) |
//! | `NATS_NKEY` | a file holding an NKey seed |
//! | `NATS_USER`, `NATS_PASSWORD` | a user and its password (both or neither) |
//! | `NATS_TOKEN` | an authentication token |
//! | `NATS_CA` | a PEM file of root certificates: the connection requires TLS |
//! | `NATS_CERT`, `NATS_KEY` | a client certificate and its key, PEM (both or neither; TLS) |
//!
//! At most one way to authenticate may be set (`NATS_CREDS`, `NATS_NKEY`,
//! `NATS_USER`, `NATS_TOKEN`). An error names the variable, never its
//! value; [`Credentials`]' `Debug` shows which are set, not what they hold.

use std::fmt;
use std::path::PathBuf;

use nenjim_journal_api::error::{self, ErrorKind, JournalError};

/// The scheme of a NATS root.
pub const SCHEME: &str = "nats://";
/// The port when the address names none (the NATS default).
pub const DEFAULT_PORT: u16 = 4222;
/// The longest root name: the JetStream names derived from it stay short.
pub const MAX_NAME_LEN: usize = 64;

/// How the client authenticates and whether it uses TLS (read from the
/// environment, see the [module docs](self)).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    pub(crate) auth: Auth,
    pub(crate) ca: Option<PathBuf>,
    pub(crate) client_cert: Option<(PathBuf, PathBuf)>,
}

/// One way to authenticate.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) enum Auth {
    #[default]
    None,
    CredsFile(PathBuf),
    NkeyFile(PathBuf),
    UserPassword(String, String),
    Token(String),
}

impl Auth {
    /// The variable that set it, for messages.
    pub(crate) fn setting(&self) -> &'static str {
        match self {
            Auth::None => "none",
            Auth::CredsFile(_) => "NATS_CREDS",
            Auth::NkeyFile(_) => "NATS_NKEY",
            Auth::UserPassword(..) => "NATS_USER/NATS_PASSWORD",
            Auth::Token(_) => "NATS_TOKEN",
        }
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("auth", &self.auth.setting())
            .field("ca", &self.ca)
            .field("client_cert", &self.client_cert.as_ref().map(|(c, _)| c))
            .finish()
    }
}

impl Credentials {
    /// Reads the credentials from `env` (variable, value) pairs.
    pub fn from_env<I, K, V>(env: I) -> Result<Credentials, JournalError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut get = std::collections::HashMap::new();
        for (k, v) in env {
            let k = k.as_ref();
            if k.starts_with("NATS_") && !v.as_ref().is_empty() {
                get.insert(k.to_owned(), v.as_ref().to_owned());
            }
        }
        let mut ways = Vec::new();
        if let Some(path) = get.get("NATS_CREDS") {
            ways.push(Auth::CredsFile(PathBuf::from(path)));
        }
        if let Some(path) = get.get("NATS_NKEY") {
            ways.push(Auth::NkeyFile(PathBuf::from(path)));
        }
        match (get.get("NATS_USER"), get.get("NATS_PASSWORD")) {
            (Some(user), Some(password)) => {
                ways.push(Auth::UserPassword(user.clone(), password.clone()));
            }
            (Some(_), None) => {
                return Err(config_error(
                    "found NATS_USER set without NATS_PASSWORD, expected both or neither",
                ));
            }
            (None, Some(_)) => {
                return Err(config_error(
                    "found NATS_PASSWORD set without NATS_USER, expected both or neither",
                ));
            }
            (None, None) => {}
        }
        if let Some(token) = get.get("NATS_TOKEN") {
            ways.push(Auth::Token(token.clone()));
        }
        if ways.len() > 1 {
            let names: Vec<&str> = ways.iter().map(Auth::setting).collect();
            return Err(config_error(format!(
                "found {} all set, expected at most one way to authenticate",
                names.join(", ")
            )));
        }
        let client_cert = match (get.get("NATS_CERT"), get.get("NATS_KEY")) {
            (Some(cert), Some(key)) => Some((PathBuf::from(cert), PathBuf::from(key))),
            (None, None) => None,
            _ => {
                return Err(config_error(
                    "found only one of NATS_CERT and NATS_KEY set, expected both or neither",
                ));
            }
        };
        Ok(Credentials {
            auth: ways.pop().unwrap_or_default(),
            ca: get.get("NATS_CA").map(PathBuf::from),
            client_cert,
        })
    }

    /// Whether the connection requires TLS (`NATS_CA` or a client certificate).
    pub fn tls(&self) -> bool {
        self.ca.is_some() || self.client_cert.is_some()
    }
}

/// A malformed address or setting: a `Usage` error (no path: it names
/// settings).
fn config_error(message: impl Into<String>) -> JournalError {
    error::error(ErrorKind::Usage, message)
}

/// One server of a root's address: a host and a port.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Server {
    pub(crate) host: String,
    pub(crate) port: u16,
}

impl Server {
    /// The host: a name, an IPv4 address, or a bracketed IPv6 address.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }
}

/// `host:port`.
impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.host, self.port)
    }
}

/// A parsed `nats://host:port[,host:port…]/<name>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub(crate) servers: Vec<Server>,
    pub(crate) name: String,
}

/// `address` with any user information before an `@` of its authority
/// shown as `<credentials>`, so that an error never repeats a secret.
fn redacted(address: &str) -> String {
    let (scheme, rest) = address.split_once("://").unwrap_or(("", address));
    let end = rest.find('/').unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) if scheme.is_empty() => format!("<credentials>{}", &rest[at..]),
        Some(at) => format!("{scheme}://<credentials>{}", &rest[at..]),
        None => address.to_owned(),
    }
}

/// Reads `nats://host[:port][,host[:port]…]/<name>`: one server, or
/// several of one cluster separated by commas (the client connects to one
/// that answers and moves to another when it is lost); each `host` a name,
/// an IPv4 address or a bracketed IPv6 address, each `port` 1 to 65535
/// (default [`DEFAULT_PORT`]); `<name>` 1 to [`MAX_NAME_LEN`] ASCII
/// letters, digits, `-` and `_`, with one trailing `/` allowed.
pub(crate) fn parse(address: &str) -> Result<Parsed, JournalError> {
    let shown = redacted(address);
    let bad = |what: String| {
        config_error(format!(
            "found `{shown}`: {what}, expected a NATS root `nats://host:port/<name>` (or `nats://host1:port1,host2:port2,…/<name>` for a cluster)"
        ))
    };
    let Some(rest) = address.strip_prefix(SCHEME) else {
        return Err(bad("not a nats:// address".to_owned()));
    };
    if rest.contains(['?', '#']) {
        return Err(bad("a query or fragment".to_owned()));
    }
    let (authority, name) = rest
        .split_once('/')
        .ok_or_else(|| bad("no root name after the server".to_owned()))?;
    if authority.contains('@') {
        return Err(bad(
            "credentials in the address (set NATS_USER and NATS_PASSWORD, NATS_TOKEN or NATS_CREDS instead)"
                .to_owned(),
        ));
    }
    let mut servers: Vec<Server> = Vec::new();
    for one in authority.split(',') {
        if one.is_empty() && authority.contains(',') {
            return Err(bad("an empty server in the list".to_owned()));
        }
        let server = server(one).map_err(&bad)?;
        if servers.contains(&server) {
            return Err(bad(format!("the server `{server}` named twice")));
        }
        servers.push(server);
    }
    let name = name.strip_suffix('/').unwrap_or(name);
    if name.is_empty() {
        return Err(bad("an empty root name".to_owned()));
    }
    if name.contains('/') {
        return Err(bad(format!("`{name}` has more than one path segment")));
    }
    if name.len() > MAX_NAME_LEN
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(bad(format!(
            "the root name `{name}` is not 1 to {MAX_NAME_LEN} ASCII letters, digits, `-` and `_`"
        )));
    }
    Ok(Parsed {
        servers,
        name: name.to_owned(),
    })
}

/// One `host[:port]` of an address; what is wrong with it otherwise.
fn server(authority: &str) -> Result<Server, String> {
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6
            .split_once(']')
            .ok_or_else(|| "an IPv6 address without its `]`".to_owned())?;
        if host.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!("`{host}` is not an IPv6 address"));
        }
        match after {
            "" => (format!("[{host}]"), None),
            port => match port.strip_prefix(':') {
                Some(port) => (format!("[{host}]"), Some(port)),
                None => return Err(format!("`{after}` after the IPv6 address")),
            },
        }
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host.to_owned(), Some(port)),
            None => (authority.to_owned(), None),
        }
    };
    let host_ok = !host.is_empty()
        && (host.starts_with('[')
            || host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.'));
    if !host_ok {
        return Err(format!("`{host}` is not a host name or address"));
    }
    let port = match port {
        None => DEFAULT_PORT,
        Some(text) => match text.parse::<u16>() {
            Ok(port) if port != 0 && text.bytes().all(|b| b.is_ascii_digit()) => port,
            _ => return Err(format!("`{text}` is not a port from 1 to 65535")),
        },
    };
    Ok(Server { host, port })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn good_addresses_parse() {
        let one = |address: &str| {
            let p = parse(address).unwrap();
            assert_eq!(p.servers.len(), 1, "{address}");
            (p.servers[0].host.clone(), p.servers[0].port, p.name)
        };
        assert_eq!(
            one("nats://127.0.0.1:4333/main"),
            ("127.0.0.1".to_owned(), 4333, "main".to_owned())
        );
        assert_eq!(
            one("nats://hub.example.org/journal_2-b"),
            ("hub.example.org".to_owned(), 4222, "journal_2-b".to_owned())
        );
        assert_eq!(
            one("nats://[::1]:5000/x"),
            ("[::1]".to_owned(), 5000, "x".to_owned())
        );
        // One trailing slash is the same root.
        assert_eq!(one("nats://h:7/x/"), ("h".to_owned(), 7, "x".to_owned()));
        // A cluster: several servers, in the order given.
        let p = parse("nats://h1:4001,h2,[::1]:4003/hub").unwrap();
        let servers: Vec<String> = p.servers.iter().map(Server::to_string).collect();
        assert_eq!(servers, ["h1:4001", "h2:4222", "[::1]:4003"]);
        assert_eq!(p.name, "hub");
    }

    #[test]
    fn malformed_addresses_are_refused_with_what_was_wrong() {
        for (address, says) in [
            ("http://h:1/x", "not a nats:// address"),
            ("nats://h:1", "no root name"),
            ("nats://h:1/", "an empty root name"),
            ("nats://h:1/a/b", "more than one path segment"),
            ("nats://h:1/a.b", "the root name `a.b`"),
            ("nats://h:1/a b", "the root name"),
            ("nats://h:0/x", "`0` is not a port"),
            ("nats://h:99999/x", "`99999` is not a port"),
            ("nats://h:+1/x", "`+1` is not a port"),
            ("nats://:1/x", "`` is not a host"),
            ("nats://u:secret@h:1/x", "credentials in the address"),
            ("nats://h:1/x?y", "a query or fragment"),
            ("nats://[zz]:1/x", "not an IPv6 address"),
            ("nats://h:1/x//", "more than one path segment"),
            ("nats://h1:1,,h2:2/x", "an empty server in the list"),
            ("nats://h1:1,/x", "an empty server in the list"),
            ("nats://h1:1,h1:1/x", "the server `h1:1` named twice"),
            ("nats://h1:1,h2:x/x", "`x` is not a port"),
        ] {
            let e = parse(address).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Usage);
            assert!(e.message().contains(says), "{address}: {}", e.message());
            assert!(
                e.message().contains("expected a NATS root"),
                "{}",
                e.message()
            );
            assert!(!e.message().contains("secret"), "{}", e.message());
        }
        let long = format!("nats://h/{}", "a".repeat(MAX_NAME_LEN + 1));
        assert!(parse(&long).is_err());
    }

    #[test]
    fn credentials_come_from_the_standard_variables() {
        let c = Credentials::from_env([("NATS_USER", "u"), ("NATS_PASSWORD", "hunter2")]).unwrap();
        assert!(c.auth == Auth::UserPassword("u".into(), "hunter2".into()));
        assert!(!format!("{c:?}").contains("hunter2"));
        let c = Credentials::from_env([("NATS_TOKEN", "t0k3n"), ("NATS_CA", "/ca.pem")]).unwrap();
        assert!(c.auth == Auth::Token("t0k3n".into()) && c.tls());
        assert!(!format!("{c:?}").contains("t0k3n"));
        let c = Credentials::from_env([("NATS_CREDS", "/u.creds"), ("HOME", "/root")]).unwrap();
        assert!(c.auth == Auth::CredsFile("/u.creds".into()) && !c.tls());
        assert!(
            Credentials::from_env(Vec::<(String, String)>::new()).unwrap()
                == Credentials::default()
        );
    }

    #[test]
    fn a_bad_setting_is_named_and_its_secret_is_not() {
        let e = Credentials::from_env([("NATS_PASSWORD", "hunter2")]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(e.message().contains("NATS_PASSWORD") && !e.message().contains("hunter2"));
        let e = Credentials::from_env([("NATS_TOKEN", "t0k3n"), ("NATS_CREDS", "/c")]).unwrap_err();
        assert!(
            e.message().contains("NATS_CREDS, NATS_TOKEN"),
            "{}",
            e.message()
        );
        assert!(!e.message().contains("t0k3n"));
        let e = Credentials::from_env([("NATS_CERT", "/c.pem")]).unwrap_err();
        assert!(e.message().contains("NATS_CERT and NATS_KEY"));
    }
}
