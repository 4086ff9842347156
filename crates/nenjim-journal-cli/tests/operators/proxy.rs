//! [`Proxy`]: an HTTP proxy in front of moto's S3 server, apart from the
//! tests as both `follow.rs` (a write whose answer is lost: `armed`,
//! `held`) and `cache.rs` (the GETs it counts) use it.

use super::*;

/// An HTTP proxy in front of the S3 server that counts the GETs of
/// objects it forwards (`cache`'s tests) and, once armed, never answers a
/// PUT of a ledger entry (and never forwards it): the writer's request
/// times out, as on a network that lost it.
pub(crate) struct Proxy {
    pub(crate) endpoint: String,
    pub(super) armed: Arc<AtomicBool>,
    pub(super) held: Arc<AtomicUsize>,
    /// The GETs of an object (not of a listing) forwarded so far.
    pub(crate) gets: Arc<AtomicUsize>,
}

impl Proxy {
    pub(crate) fn start(upstream: &str) -> Proxy {
        let listener =
            TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind a proxy: {e}"));
        let port = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("proxy address: {e}"))
            .port();
        let upstream = upstream.trim_start_matches("http://").to_owned();
        let armed = Arc::new(AtomicBool::new(false));
        let held = Arc::new(AtomicUsize::new(0));
        let gets = Arc::new(AtomicUsize::new(0));
        let (a, h, g) = (Arc::clone(&armed), Arc::clone(&held), Arc::clone(&gets));
        thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                let (upstream, a, h, g) = (
                    upstream.clone(),
                    Arc::clone(&a),
                    Arc::clone(&h),
                    Arc::clone(&g),
                );
                thread::spawn(move || {
                    let _ = serve(client, &upstream, &a, &h, &g);
                });
            }
        });
        Proxy {
            endpoint: format!("http://127.0.0.1:{port}"),
            armed,
            held,
            gets,
        }
    }
}

/// Serves the requests of one client connection, each over a connection of
/// its own to `upstream` (`Connection: close`, so a response ends at EOF).
fn serve(
    client: TcpStream,
    upstream: &str,
    armed: &AtomicBool,
    held: &AtomicUsize,
    gets: &AtomicUsize,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(client.try_clone()?);
    let mut client = client;
    loop {
        let mut head: Vec<String> = Vec::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line)? == 0 {
                return Ok(());
            }
            if line == "\r\n" {
                break;
            }
            head.push(line);
        }
        let request = head.first().cloned().unwrap_or_default();
        let mut words = request.split(' ');
        let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        let length: usize = head
            .iter()
            .find_map(|h| {
                let (name, value) = h.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())?
            })
            .unwrap_or(0);
        let mut body = vec![0u8; length];
        reader.read_exact(&mut body)?;
        if armed.load(Ordering::SeqCst) && method == "PUT" && target.contains("/.ledger/log/") {
            held.fetch_add(1, Ordering::SeqCst);
            // Never answered: hold the connection until the client drops it.
            let mut sink = [0u8; 1024];
            while reader.read(&mut sink)? > 0 {}
            return Ok(());
        }
        if method == "GET" && !target.contains("list-type=") {
            gets.fetch_add(1, Ordering::SeqCst);
        }
        let mut up = TcpStream::connect(upstream)?;
        let mut forwarded = String::new();
        for line in &head {
            let name = line.split(':').next().unwrap_or("");
            if !name.eq_ignore_ascii_case("connection") {
                forwarded.push_str(line);
            }
        }
        forwarded.push_str("Connection: close\r\n\r\n");
        up.write_all(forwarded.as_bytes())?;
        up.write_all(&body)?;
        let mut response = Vec::new();
        up.read_to_end(&mut response)?;
        client.write_all(&response)?;
        client.flush()?;
    }
}
