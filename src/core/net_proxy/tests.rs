//! The proxy served on a listener of this machine (the bridge without a
//! namespace): its protocols, refusals and questions, against servers the
//! tests start on 127.0.0.1 under made-up names.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

use super::*;

/// An HTTP server on 127.0.0.1 that hands each connection, with the
/// request's head read (and nothing after it), to `answer`; its port.
fn http_server(answer: fn(&mut TcpStream, &str)) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match s.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                answer(&mut s, &String::from_utf8_lossy(&head));
            });
        }
    });
    port
}

/// An HTTP server on 127.0.0.1 answering every request with its request
/// line; its port.
fn origin() -> u16 {
    http_server(|s, text| {
        let line = text.lines().next().unwrap_or("");
        let close = text.to_ascii_lowercase().contains("connection: close");
        let body = format!("saw {line} close={close}");
        let _ = write!(
            s,
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    })
}

fn policy(allow: &[&str], deny: &[&str], ask: bool) -> NetPolicy {
    NetPolicy {
        allow: allow
            .iter()
            .map(|a| Pattern::parse(a, "t").unwrap())
            .collect(),
        deny: deny
            .iter()
            .map(|a| Pattern::parse(a, "t").unwrap())
            .collect(),
        local: vec![],
        ask,
    }
}

/// The proxy of `policy` served on a new loopback port; names in the map
/// go to 127.0.0.1.
fn serve(policy: NetPolicy, names: &[&str]) -> (u16, Bridge) {
    serve_proxy(proxy_with(policy, names))
}

fn proxy_with(policy: NetPolicy, names: &[&str]) -> Proxy {
    let hosts: HashMap<String, std::net::IpAddr> = names
        .iter()
        .map(|n| (n.to_string(), "127.0.0.1".parse().unwrap()))
        .collect();
    Proxy::with_test_hosts(policy, hosts)
}

fn serve_proxy(proxy: Proxy) -> (u16, Bridge) {
    let proxy = Arc::new(proxy);
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let bridge = Bridge::start(proxy, vec![l], &[], NetLog::default()).unwrap();
    (port, bridge)
}

fn exchange(port: u16, send: &[u8]) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    s.write_all(send).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn plain_http_is_forwarded_in_origin_form_with_connection_close() {
    let o = origin();
    let (port, bridge) = serve(policy(&["*.test.example"], &[], false), &["a.test.example"]);
    let got = exchange(
        port,
        format!("GET http://a.test.example:{o}/x?y=1 HTTP/1.1\r\nHost: a.test.example\r\nProxy-Connection: keep-alive\r\n\r\n").as_bytes(),
    );
    assert!(got.contains("saw GET /x?y=1 HTTP/1.1 close=true"), "{got}");
    assert!(bridge.log().take().is_empty());
}

#[test]
fn connect_tunnels_and_socks5_resolves_names_here() {
    let o = origin();
    let (port, bridge) = serve(policy(&["a.test.example"], &[], false), &["a.test.example"]);
    let got = exchange(
        port,
        format!("CONNECT a.test.example:{o} HTTP/1.1\r\nHost: a.test.example:{o}\r\n\r\nGET /t HTTP/1.1\r\n\r\n").as_bytes(),
    );
    assert!(
        got.starts_with("HTTP/1.1 200 Connection established\r\n\r\n"),
        "{got}"
    );
    assert!(got.contains("saw GET /t HTTP/1.1"), "{got}");
    // SOCKS5: greeting, CONNECT by name (ATYP 3), then HTTP through it.
    let name = b"a.test.example";
    let mut req = vec![5, 1, 0, 5, 1, 0, 3, name.len() as u8];
    req.extend_from_slice(name);
    req.extend_from_slice(&o.to_be_bytes());
    req.extend_from_slice(b"GET /s HTTP/1.1\r\n\r\n");
    let got = exchange(port, &req);
    assert!(got.as_bytes().starts_with(&[5, 0, 5, 0]), "{got:?}");
    assert!(got.contains("saw GET /s HTTP/1.1"), "{got}");
    assert!(bridge.log().take().is_empty());
}

#[test]
fn denied_names_ip_literals_and_socks_udp_are_refused_and_logged() {
    let o = origin();
    let (port, bridge) = serve(
        policy(&["*.test.example"], &["bad.test.example"], false),
        &["bad.test.example", "other.example"],
    );
    let got = exchange(
        port,
        format!("CONNECT bad.test.example:{o} HTTP/1.1\r\n\r\n").as_bytes(),
    );
    assert!(got.starts_with("HTTP/1.1 403"), "{got}");
    let got = exchange(
        port,
        format!("GET http://other.example:{o}/ HTTP/1.1\r\n\r\n").as_bytes(),
    );
    assert!(got.starts_with("HTTP/1.1 403"), "{got}");
    let got = exchange(
        port,
        format!("GET http://127.0.0.1:{o}/ HTTP/1.1\r\n\r\n").as_bytes(),
    );
    assert!(got.starts_with("HTTP/1.1 403"), "{got}");
    // SOCKS5 CONNECT to an IPv4 literal: "not allowed by ruleset" (2).
    let mut req = vec![5, 1, 0, 5, 1, 0, 1, 93, 184, 216, 34];
    req.extend_from_slice(&443u16.to_be_bytes());
    assert_eq!(exchange(port, &req).as_bytes()[..4], [5, 0, 5, 2]);
    // UDP ASSOCIATE: "command not supported" (7).
    let mut req = vec![5, 1, 0, 5, 3, 0, 1, 0, 0, 0, 0];
    req.extend_from_slice(&53u16.to_be_bytes());
    assert_eq!(exchange(port, &req).as_bytes()[..4], [5, 0, 5, 7]);
    let log = bridge.log().take();
    assert_eq!(
        log,
        [
            format!("a connection to bad.test.example:{o} (on the deny list)"),
            format!("a connection to other.example:{o} (not on the network allow list; the person can add it: network.allow, or ptypilot mcp --allow-host other.example)"),
            format!("a connection to 127.0.0.1:{o} (an IP address, not a name on the allow list; only listed addresses are reachable)"),
            "a connection to 93.184.216.34:443 (an IP address, not a name on the allow list; only listed addresses are reachable)".to_owned(),
            "UDP to 0.0.0.0:53 through SOCKS (only TCP goes through the proxy)".to_owned(),
        ]
    );
    assert!(bridge.log().take().is_empty(), "taken once");
}

#[test]
fn unlisted_names_are_asked_once_and_the_answer_kept() {
    let o = origin();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    // The asker is process-wide: this test is the only one that sets it.
    set_asker(Some(Arc::new(
        move |req: AskRequest, tx: tokio::sync::oneshot::Sender<Answer>| {
            seen.lock()
                .unwrap()
                .push(format!("{}:{}", req.host, req.port));
            let _ = tx.send(if req.host == "yes.example" {
                Ok(())
            } else {
                Err("the person refused it".to_owned())
            });
        },
    )));
    let (port, bridge) = serve(policy(&[], &[], true), &["yes.example", "no.example"]);
    for _ in 0..2 {
        let got = exchange(
            port,
            format!("GET http://yes.example:{o}/ HTTP/1.1\r\n\r\n").as_bytes(),
        );
        assert!(got.contains("saw GET / HTTP/1.1"), "{got}");
        let got = exchange(
            port,
            format!("GET http://no.example:{o}/ HTTP/1.1\r\n\r\n").as_bytes(),
        );
        assert!(got.starts_with("HTTP/1.1 403"), "{got}");
    }
    set_asker(None);
    assert_eq!(
        *asked.lock().unwrap(),
        [format!("yes.example:{o}"), format!("no.example:{o}")]
    );
    assert_eq!(
        bridge.log().take(),
        [format!(
            "a connection to no.example:{o} (the person refused it)"
        )]
    );
}

#[test]
fn proxy_env_points_the_tools_at_the_port() {
    let env: HashMap<_, _> = proxy_env(3128).into_iter().collect();
    assert_eq!(env["HTTPS_PROXY"], "http://127.0.0.1:3128");
    assert_eq!(env["https_proxy"], "http://127.0.0.1:3128");
    assert_eq!(env["ALL_PROXY"], "socks5h://127.0.0.1:3128");
    assert_eq!(env["npm_config_https_proxy"], "http://127.0.0.1:3128");
    assert_eq!(env["CARGO_HTTP_PROXY"], "http://127.0.0.1:3128");
    assert!(env["NO_PROXY"].contains("127.0.0.1"));
    assert_eq!(proxy_port(&[3128, 3129]), 3130);
    assert_eq!(proxy_port(&[5432]), 3128);
}

/// A reproducible run of bytes (xorshift), repeating every `PERIOD` bytes
/// (a prime: no buffer's size lines up with it), so a byte lost, repeated
/// or out of place anywhere in a large transfer is seen.
struct Bytes {
    table: Vec<u8>,
    at: usize,
}

const PERIOD: usize = 1_000_003;

impl Bytes {
    fn new(seed: u64) -> Bytes {
        let mut x = seed | 1;
        let table = (0..PERIOD)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 32) as u8
            })
            .collect();
        Bytes { table, at: 0 }
    }

    /// The next `len` bytes, in pieces.
    fn next(&mut self, mut len: usize, mut each: impl FnMut(&[u8])) {
        while len > 0 {
            let k = len.min(PERIOD - self.at);
            each(&self.table[self.at..self.at + k]);
            self.at = (self.at + k) % PERIOD;
            len -= k;
        }
    }

    fn fill(&mut self, buf: &mut [u8]) {
        let mut at = 0;
        self.next(buf.len(), |piece| {
            buf[at..at + piece.len()].copy_from_slice(piece);
            at += piece.len();
        });
    }
}

/// How many bytes of `r` follow `Bytes::new(seed)` before the first that
/// does not, and how many there were.
fn matched(r: &mut impl Read, seed: u64) -> (usize, usize) {
    let mut want = Bytes::new(seed);
    let (mut good, mut total, mut ok) = (0, 0, true);
    let mut got = vec![0u8; 1 << 16];
    loop {
        let n = match r.read(&mut got) {
            Ok(0) | Err(_) => return (good, total),
            Ok(n) => n,
        };
        let mut at = 0;
        want.next(n, |piece| {
            let here = &got[at..at + piece.len()];
            if ok && here != piece {
                good += here.iter().zip(piece).position(|(a, b)| a != b).unwrap();
                ok = false;
            } else if ok {
                good += piece.len();
            }
            at += piece.len();
        });
        total += n;
    }
}

/// An HTTP server on 127.0.0.1: `GET /big/N` answers N bytes of
/// `Bytes::new(N)`; `POST /sum` reads until the client shuts its side,
/// then answers how many bytes of `Bytes::new(7)` came and how many came
/// in all (the client's half-close must reach it, and the answer must still
/// go back). Its port.
fn data_origin() -> u16 {
    http_server(|s, text| {
        let path = text.split(' ').nth(1).unwrap_or("");
        if let Some(n) = path.strip_prefix("/big/") {
            let n: usize = n.parse().unwrap();
            let _ = write!(s, "HTTP/1.1 200 OK\r\nContent-Length: {n}\r\n\r\n");
            let mut pat = Bytes::new(n as u64);
            let mut buf = vec![0u8; 1 << 16];
            let mut left = n;
            while left > 0 {
                let k = left.min(buf.len());
                pat.fill(&mut buf[..k]);
                if s.write_all(&buf[..k]).is_err() {
                    return;
                }
                left -= k;
            }
        } else {
            let (good, total) = matched(s, 7);
            let body = format!("sum {good} of {total}");
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    })
}

#[derive(Clone, Copy, Debug)]
enum Way {
    Http,
    Connect,
    Socks,
}

const WAYS: [Way; 3] = [Way::Http, Way::Connect, Way::Socks];

/// A connection to `host:o` through the proxy on `port` the way given, and
/// the request line to send on it for `path` (absolute for plain HTTP).
fn through(port: u16, way: Way, host: &str, o: u16, path: &str) -> (TcpStream, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    match way {
        Way::Http => {
            let line = format!("GET http://{host}:{o}{path} HTTP/1.1\r\n");
            return (s, line);
        }
        Way::Connect => {
            write!(s, "CONNECT {host}:{o} HTTP/1.1\r\n\r\n").unwrap();
            let want = b"HTTP/1.1 200 Connection established\r\n\r\n";
            let mut got = vec![0u8; want.len()];
            s.read_exact(&mut got).unwrap();
            assert_eq!(got, want);
        }
        Way::Socks => {
            let mut req = vec![5, 1, 0, 5, 1, 0, 3, host.len() as u8];
            req.extend_from_slice(host.as_bytes());
            req.extend_from_slice(&o.to_be_bytes());
            s.write_all(&req).unwrap();
            let mut got = [0u8; 12];
            s.read_exact(&mut got).unwrap();
            assert_eq!(got[..4], [5, 0, 5, 0]);
        }
    }
    (s, format!("GET {path} HTTP/1.1\r\n"))
}

/// Reads an HTTP answer's head; its `Content-Length`.
fn read_head(s: &mut TcpStream) -> usize {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(s.read(&mut byte).unwrap(), 1, "the head ended early");
        head.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&head).to_ascii_lowercase();
    assert!(text.starts_with("http/1.1 200"), "{text}");
    text.lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn a_50_mb_download_arrives_whole_through_http_connect_and_socks() {
    const N: usize = 50_000_000;
    let o = data_origin();
    let (port, _bridge) = serve(policy(&["big.test"], &[], false), &["big.test"]);
    for way in WAYS {
        let (mut s, line) = through(port, way, "big.test", o, &format!("/big/{N}"));
        write!(s, "{line}Host: big.test\r\n\r\n").unwrap();
        assert_eq!(read_head(&mut s), N);
        assert_eq!(matched(&mut s, N as u64), (N, N), "{way:?}");
    }
}

#[test]
fn an_upload_and_the_clients_half_close_go_through_and_the_answer_comes_back() {
    const N: usize = 20_000_000;
    let o = data_origin();
    let (port, _bridge) = serve(policy(&["big.test"], &[], false), &["big.test"]);
    for way in WAYS {
        let (mut s, line) = through(port, way, "big.test", o, "/sum");
        let line = line.replace("GET", "POST");
        write!(s, "{line}Host: big.test\r\n\r\n").unwrap();
        let mut pat = Bytes::new(7);
        let mut buf = vec![0u8; 1 << 16];
        let mut left = N;
        while left > 0 {
            let k = left.min(buf.len());
            pat.fill(&mut buf[..k]);
            s.write_all(&buf[..k]).unwrap();
            left -= k;
        }
        s.shutdown(std::net::Shutdown::Write).unwrap();
        let len = read_head(&mut s);
        let mut body = String::new();
        s.read_to_string(&mut body).unwrap();
        assert_eq!(body.len(), len);
        assert_eq!(body, format!("sum {N} of {N}"), "{way:?}");
    }
}

/// A port of 127.0.0.1 that never takes a connection: a listener with a
/// backlog of 0 that never accepts, its queue filled until a connection
/// times out (the kernel drops further SYNs; the callers wait); the
/// listener and the connections in its queue.
fn blackhole() -> (TcpListener, Vec<TcpStream>, u16) {
    use std::os::fd::AsRawFd;
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    // SAFETY: listen again on our own socket, to shrink its backlog.
    assert_eq!(unsafe { libc::listen(l.as_raw_fd(), 0) }, 0);
    let addr = l.local_addr().unwrap();
    let mut queued = Vec::new();
    loop {
        match TcpStream::connect_timeout(&addr, std::time::Duration::from_millis(300)) {
            Ok(s) => queued.push(s),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => break,
            Err(e) => panic!("{e}"),
        }
        assert!(queued.len() < 64, "the backlog never filled");
    }
    (l, queued, addr.port())
}

#[test]
fn an_allowed_host_that_does_not_answer_or_resolve_fails_in_time_and_is_told() {
    let (_l, _queued, b) = blackhole();
    let proxy = proxy_with(
        policy(&["slow.test", "nowhere.invalid"], &[], false),
        &["slow.test"],
    )
    .with_connect_timeout(std::time::Duration::from_millis(500));
    let (port, bridge) = serve_proxy(proxy);
    let got = exchange(
        port,
        format!("CONNECT slow.test:{b} HTTP/1.1\r\n\r\n").as_bytes(),
    );
    assert!(got.starts_with("HTTP/1.1 504 Gateway Timeout\r\n"), "{got}");
    assert!(
        got.ends_with(&format!("ptypilot: could not reach slow.test:{b} (allowed, but it did not answer within 500 ms)\n")),
        "{got}"
    );
    let got = exchange(
        port,
        format!("GET http://slow.test:{b}/ HTTP/1.1\r\n\r\n").as_bytes(),
    );
    assert!(got.starts_with("HTTP/1.1 504"), "{got}");
    // SOCKS5: "host unreachable" (4).
    let mut req = vec![5, 1, 0, 5, 1, 0, 3, 9];
    req.extend_from_slice(b"slow.test");
    req.extend_from_slice(&b.to_be_bytes());
    assert_eq!(exchange(port, &req).as_bytes()[..4], [5, 0, 5, 4]);
    // A name that does not resolve (.invalid never does): 502, or 504 when
    // the resolver does not answer in time.
    let got = exchange(port, b"CONNECT nowhere.invalid:443 HTTP/1.1\r\n\r\n");
    assert!(got.starts_with("HTTP/1.1 50"), "{got}");
    assert!(
        got.contains("could not reach nowhere.invalid:443 (allowed, but its name did not resolve"),
        "{got}"
    );
    let log = bridge.log().take();
    assert_eq!(
        log[0],
        format!(
            "the network proxy could not reach slow.test:{b} (allowed, but it did not answer within 500 ms)"
        )
    );
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(log[1].starts_with("the network proxy could not reach nowhere.invalid:443 (allowed, but its name did not resolve"), "{log:?}");
}
