//! The proxy's protocols on one port, told apart by the first byte: SOCKS5
//! (`0x05`: CONNECT with a name, IPv4 or IPv6 address; names resolved here),
//! else HTTP/1: `CONNECT host:port` (a tunnel) or an absolute-URI request
//! (`GET http://host/path`, forwarded as an origin-form request with
//! `Connection: close`, so the next request comes through the check again).

use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::relay::relay;
use super::{NetLog, Proxy};

/// Longest HTTP request head the proxy reads.
const MAX_HEAD: usize = 64 << 10;

/// Serves one connection from the sandboxed program.
pub(super) async fn serve(mut client: TcpStream, proxy: Arc<Proxy>, log: NetLog) {
    let mut first = [0u8; 1];
    match client.peek(&mut first).await {
        Ok(1) if first[0] == 5 => socks5(client, &proxy, &log).await,
        Ok(1) => http(client, &proxy, &log).await,
        _ => {
            let _ = client.shutdown().await;
        }
    }
}

/// Why [`open`] gave no connection.
enum Failure {
    /// The policy or the person refused the host (the reason).
    Refused(String),
    /// Allowed, but its name did not resolve or no address took the
    /// connection (why); `true` when it did not answer in time.
    Unreachable(String, bool),
}

/// `host:port` as written in a message (`[v6]:port`).
fn shown(host: &str, port: u16) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Checks `host:port` and connects to it, within the proxy's connect
/// timeout for the name and then for each address; a refusal or a host
/// that could not be reached is noted in `log` and returned.
async fn open(proxy: &Proxy, log: &NetLog, host: &str, port: u16) -> Result<TcpStream, Failure> {
    if let Err(why) = proxy.check(host, port).await {
        log.push(format!("a connection to {} ({why})", shown(host, port)));
        return Err(Failure::Refused(why));
    }
    let unreachable = |why: String, timed_out: bool| {
        log.push(format!(
            "{}{} (allowed, but {why})",
            super::UNREACHABLE,
            shown(host, port)
        ));
        Failure::Unreachable(why, timed_out)
    };
    let addrs = match proxy.resolve(host, port).await {
        Ok(a) => a,
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            let why = e.to_string();
            log.push(format!("a connection to {} ({why})", shown(host, port)));
            return Err(Failure::Refused(why));
        }
        Err(e) => {
            let timed_out = e.kind() == std::io::ErrorKind::TimedOut;
            return Err(unreachable(
                format!("its name did not resolve: {e}"),
                timed_out,
            ));
        }
    };
    let mut last = None;
    for addr in addrs {
        match tokio::time::timeout(proxy.connect_timeout(), TcpStream::connect(addr)).await {
            Ok(Ok(s)) => {
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Ok(Err(e)) => last = Some((format!("the connection failed: {e}"), false)),
            Err(_) => {
                last = Some((
                    format!(
                        "it did not answer within {}",
                        super::waited(proxy.connect_timeout())
                    ),
                    true,
                ))
            }
        }
    }
    let (why, timed_out) = last.unwrap_or_else(|| ("its name has no address".to_owned(), false));
    Err(unreachable(why, timed_out))
}

// ---------- HTTP ----------

async fn http(mut client: TcpStream, proxy: &Proxy, log: &NetLog) {
    let mut buf = Vec::with_capacity(4096);
    let head_len = loop {
        if let Some(end) = find_head_end(&buf) {
            break end;
        }
        if buf.len() >= MAX_HEAD {
            return reply(&mut client, 431, "the request head is too long").await;
        }
        let mut chunk = [0u8; 4096];
        match client.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let mut headers = [httparse::EMPTY_HEADER; 96];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(&buf[..head_len]) {
        Ok(httparse::Status::Complete(_)) => {}
        _ => return reply(&mut client, 400, "not an HTTP request").await,
    }
    let (Some(method), Some(target)) = (req.method, req.path) else {
        return reply(&mut client, 400, "not an HTTP request").await;
    };
    let rest = buf[head_len..].to_vec();
    if method.eq_ignore_ascii_case("CONNECT") {
        let Some((host, port)) = authority(target, 443) else {
            return reply(&mut client, 400, "CONNECT needs host:port").await;
        };
        match open(proxy, log, &host, port).await {
            Ok(mut upstream) => {
                if client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .await
                    .is_err()
                    || !rest.is_empty() && upstream.write_all(&rest).await.is_err()
                {
                    return;
                }
                relay(client, upstream).await;
            }
            Err(failed) => http_failure(&mut client, &host, port, failed).await,
        }
        return;
    }
    let Some(after) = target
        .get(..7)
        .filter(|s| s.eq_ignore_ascii_case("http://"))
        .map(|_| &target[7..])
    else {
        return reply(
            &mut client,
            400,
            "this is a proxy: send absolute http:// URLs or CONNECT host:port",
        )
        .await;
    };
    let split = after.find(['/', '?']).unwrap_or(after.len());
    let (auth, path) = after.split_at(split);
    let Some((host, port)) = authority(auth, 80) else {
        return reply(&mut client, 400, "the URL has no host").await;
    };
    let path = if path.is_empty() { "/" } else { path };
    let mut head = format!("{method} {path} HTTP/1.1\r\n").into_bytes();
    for h in req.headers.iter() {
        let name = h.name.to_ascii_lowercase();
        if matches!(
            name.as_str(),
            "proxy-connection" | "proxy-authorization" | "connection" | "keep-alive"
        ) {
            continue;
        }
        head.extend_from_slice(h.name.as_bytes());
        head.extend_from_slice(b": ");
        head.extend_from_slice(h.value);
        head.extend_from_slice(b"\r\n");
    }
    head.extend_from_slice(b"Connection: close\r\n\r\n");
    head.extend_from_slice(&rest);
    match open(proxy, log, &host, port).await {
        Ok(mut upstream) => {
            if upstream.write_all(&head).await.is_ok() {
                relay(client, upstream).await;
            }
        }
        Err(failed) => http_failure(&mut client, &host, port, failed).await,
    }
}

/// The answer to a request [`open`] failed: 403 for a refusal, 504 for a
/// host that did not answer in time, 502 for one that could not be reached.
async fn http_failure(client: &mut TcpStream, host: &str, port: u16, failed: Failure) {
    let at = shown(host, port);
    match failed {
        Failure::Refused(why) => {
            reply(client, 403, &format!("the sandbox refused {at}: {why}")).await
        }
        Failure::Unreachable(why, timed_out) => {
            let text = format!("could not reach {at} (allowed, but {why})");
            reply(client, if timed_out { 504 } else { 502 }, &text).await
        }
    }
}

/// Where the head ends (after its blank line).
fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// `host[:port]` or `[v6][:port]`, with `default` for a missing port.
fn authority(text: &str, default: u16) -> Option<(String, u16)> {
    let text = text.rsplit_once('@').map_or(text, |(_, h)| h);
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let end = rest.find(']')?;
        let port = match &rest[end + 1..] {
            "" => default,
            p => p.strip_prefix(':')?.parse().ok()?,
        };
        (&rest[..end], port)
    } else {
        match text.rsplit_once(':') {
            Some((h, p)) => (h, p.parse().ok()?),
            None => (text, default),
        }
    };
    (!host.is_empty() && port != 0).then(|| (host.to_owned(), port))
}

async fn reply(client: &mut TcpStream, status: u16, text: &str) {
    let reason = match status {
        400 => "Bad Request",
        403 => "Forbidden",
        431 => "Request Header Fields Too Large",
        504 => "Gateway Timeout",
        _ => "Bad Gateway",
    };
    let body = format!("ptypilot: {text}\n");
    let msg = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.write_all(msg.as_bytes()).await;
    let _ = client.shutdown().await;
}

// ---------- SOCKS5 ----------

async fn socks5(mut client: TcpStream, proxy: &Proxy, log: &NetLog) {
    // Greeting: VER NMETHODS METHODS; only "no authentication" (0).
    let mut hdr = [0u8; 2];
    if client.read_exact(&mut hdr).await.is_err() {
        return;
    }
    let mut methods = vec![0u8; hdr[1] as usize];
    if client.read_exact(&mut methods).await.is_err() {
        return;
    }
    if !methods.contains(&0) {
        let _ = client.write_all(&[5, 0xff]).await;
        return;
    }
    if client.write_all(&[5, 0]).await.is_err() {
        return;
    }
    // Request: VER CMD RSV ATYP ADDR PORT.
    let mut req = [0u8; 4];
    if client.read_exact(&mut req).await.is_err() {
        return;
    }
    let host = match req[3] {
        1 => {
            let mut a = [0u8; 4];
            if client.read_exact(&mut a).await.is_err() {
                return;
            }
            std::net::Ipv4Addr::from(a).to_string()
        }
        4 => {
            let mut a = [0u8; 16];
            if client.read_exact(&mut a).await.is_err() {
                return;
            }
            std::net::Ipv6Addr::from(a).to_string()
        }
        3 => {
            let mut len = [0u8; 1];
            if client.read_exact(&mut len).await.is_err() {
                return;
            }
            let mut name = vec![0u8; len[0] as usize];
            if client.read_exact(&mut name).await.is_err() {
                return;
            }
            match String::from_utf8(name) {
                Ok(n) => n,
                Err(_) => return socks_reply(&mut client, 8).await,
            }
        }
        _ => return socks_reply(&mut client, 8).await,
    };
    let mut port = [0u8; 2];
    if client.read_exact(&mut port).await.is_err() {
        return;
    }
    let port = u16::from_be_bytes(port);
    if req[1] != 1 {
        // BIND and UDP ASSOCIATE: the sandbox has no UDP way out.
        if req[1] == 3 {
            log.push(format!(
                "UDP to {host}:{port} through SOCKS (only TCP goes through the proxy)"
            ));
        }
        return socks_reply(&mut client, 7).await;
    }
    match open(proxy, log, &host, port).await {
        Ok(upstream) => {
            if client
                .write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0])
                .await
                .is_ok()
            {
                relay(client, upstream).await;
            }
        }
        // 2: connection not allowed by ruleset; 4: host unreachable.
        Err(Failure::Refused(_)) => socks_reply(&mut client, 2).await,
        Err(Failure::Unreachable(..)) => socks_reply(&mut client, 4).await,
    }
}

async fn socks_reply(client: &mut TcpStream, code: u8) {
    let _ = client.write_all(&[5, code, 0, 1, 0, 0, 0, 0, 0, 0]).await;
    let _ = client.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorities_parse() {
        assert_eq!(authority("a.org:8443", 443), Some(("a.org".into(), 8443)));
        assert_eq!(authority("a.org", 80), Some(("a.org".into(), 80)));
        assert_eq!(authority("u:p@a.org", 80), Some(("a.org".into(), 80)));
        assert_eq!(authority("[::1]:81", 80), Some(("::1".into(), 81)));
        assert_eq!(authority("[::1]", 80), Some(("::1".into(), 80)));
        assert_eq!(authority(":80", 80), None);
        assert_eq!(authority("a.org:x", 80), None);
        assert_eq!(find_head_end(b"GET / HTTP/1.1\r\n\r\nbody"), Some(18));
    }
}
