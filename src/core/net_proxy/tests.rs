//! The proxy served on a listener of this machine (the bridge without a
//! namespace): its protocols, refusals and questions, against servers the
//! tests start on 127.0.0.1 under made-up names.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

use super::*;

/// An HTTP server on 127.0.0.1 answering every request with its request
/// line; its port.
fn origin() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut chunk) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&buf).into_owned();
                let line = text.lines().next().unwrap_or("").to_owned();
                let close = text.to_ascii_lowercase().contains("connection: close");
                let body = format!("saw {line} close={close}");
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    port
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
    let hosts: HashMap<String, std::net::IpAddr> = names
        .iter()
        .map(|n| (n.to_string(), "127.0.0.1".parse().unwrap()))
        .collect();
    let proxy = Arc::new(Proxy::with_test_hosts(policy, hosts));
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
