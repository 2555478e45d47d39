//! The network by host name: a proxy in this process that a sandboxed
//! program reaches as its only way out, and that lets it reach only the
//! hosts its policy names (`network: { allow, deny?, local?, ask? }`).
//!
//! - On Linux the program runs in a network namespace of its own with only
//!   a loopback interface: no route out, no DNS. Before `execve` the child
//!   brings `lo` up, listens on `127.0.0.1:PROXY_PORT` (and on each `local`
//!   port) inside that namespace, and passes the listening sockets to this
//!   process over a socket pair made before the fork (`SCM_RIGHTS`, see
//!   `linux.rs`). The proxy accepts on them here: an accepted connection's
//!   other end is inside the namespace, the proxy's own connections leave
//!   from this process's namespace. No helper program, root or not.
//! - On macOS the proxy listens on a loopback port of the machine and the
//!   Seatbelt profile lets the program reach only that port.
//!
//! The proxy speaks HTTP CONNECT, plain HTTP (absolute-URI requests) and
//! SOCKS5 (with names resolved here) on the same port ([`proxy`]); it
//! resolves names itself and checks each host against the policy
//! ([`NetPolicy::decide`]). There is one [`Proxy`] per policy in the
//! process (its answers to asked hosts are kept for the process's life)
//! and one [`Bridge`] per program (its listeners, closed when the session
//! ends and no process of the sandbox is left, which lets the namespace
//! go). Every refusal, and every allowed host the proxy could not reach
//! within [`CONNECT_TIMEOUT`], is written to the program's [`NetLog`],
//! which the tool replies read. The bytes of a connection are copied
//! through two buffers (`relay`).
//!
//! The proxy runs on a tokio runtime of its own, on one thread
//! (`ptypilot-net`), started the first time a program needs it; nothing on
//! it blocks (names are resolved on tokio's blocking threads).

mod policy;
mod proxy;
mod relay;

#[cfg(target_os = "linux")]
pub(crate) mod linux;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, OnceLock};

pub use policy::{Decision, NetPolicy, Pattern};

/// At most this many `local` ports per policy (each is a listener).
pub const MAX_LOCAL_PORTS: usize = 16;

/// The port the proxy listens on inside a Linux sandbox's namespace (the
/// next free one when `local` names it).
pub const PROXY_PORT: u16 = 3128;

/// How long the proxy waits for a name's addresses, and then for each
/// address to take the connection, before it answers the program that the
/// host could not be reached (502/504, or SOCKS "host unreachable").
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// How the refusal log's notes of allowed hosts the proxy could not reach
/// begin (the others are refusals): "the network proxy could not reach
/// x.org:443 (allowed, but it did not answer within 10 s)".
pub const UNREACHABLE: &str = "the network proxy could not reach ";

/// A wait as a message says it: "10 s", "300 ms".
fn waited(d: std::time::Duration) -> String {
    if d.as_millis() % 1000 == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// The variable naming the test-only resolver map: `name=ip,name=ip`.
/// Names in it resolve to the address given instead of through DNS (the
/// project's tests give names to servers they start on 127.0.0.1).
pub const TEST_HOSTS_VAR: &str = "PTYPILOT_NET_TEST_HOSTS";

/// The refusals of one program's connections, and the allowed hosts the
/// proxy could not reach ([`UNREACHABLE`]), newest last, until read.
#[derive(Clone, Default)]
pub struct NetLog(Arc<Mutex<Vec<String>>>);

impl NetLog {
    /// Notes a refusal (a phrase: "a connection to x.org:443 (not on the
    /// allow list)") or a host not reached (a sentence beginning with
    /// [`UNREACHABLE`]); the same one twice is kept once, and at most 50.
    pub fn push(&self, what: String) {
        let mut log = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if !log.contains(&what) && log.len() < 50 {
            log.push(what);
        }
    }

    /// The refusals noted since the last call.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl std::fmt::Debug for NetLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NetLog")
    }
}

impl PartialEq for NetLog {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for NetLog {}

/// A question to the person: may the program reach `host:port`?
#[derive(Debug, Clone)]
pub struct AskRequest {
    /// The host name asked for.
    pub host: String,
    /// The port.
    pub port: u16,
}

/// The answer to a question: allowed, or refused for a reason (a phrase:
/// "the person refused it").
pub type Answer = std::result::Result<(), String>;

/// What asks the person (set once per process by the embedding layer);
/// it answers through the sender (dropping it refuses).
pub type Asker = Arc<dyn Fn(AskRequest, tokio::sync::oneshot::Sender<Answer>) + Send + Sync>;

static ASKER: Mutex<Option<Asker>> = Mutex::new(None);

/// Sets (or with `None` clears) the process's asker, used by policies with
/// `ask: true` for hosts on neither list.
pub fn set_asker(asker: Option<Asker>) {
    *ASKER.lock().unwrap_or_else(|e| e.into_inner()) = asker;
}

fn asker() -> Option<Asker> {
    ASKER.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The proxy of one policy: its decisions, the person's answers, names.
pub struct Proxy {
    policy: NetPolicy,
    /// Hosts the person answered about in this process.
    answers: Mutex<HashMap<String, Answer>>,
    /// The test-only resolver map ([`TEST_HOSTS_VAR`]).
    test_hosts: HashMap<String, IpAddr>,
    /// [`CONNECT_TIMEOUT`], shorter in tests.
    connect_timeout: std::time::Duration,
}

impl Proxy {
    fn new(policy: NetPolicy) -> Proxy {
        let test_hosts = std::env::var(TEST_HOSTS_VAR)
            .unwrap_or_default()
            .split(',')
            .filter_map(|pair| {
                let (name, ip) = pair.split_once('=')?;
                Some((name.trim().to_ascii_lowercase(), ip.trim().parse().ok()?))
            })
            .collect();
        Proxy::with_test_hosts(policy, test_hosts)
    }

    /// A proxy whose names in `test_hosts` resolve to the address given.
    pub fn with_test_hosts(policy: NetPolicy, test_hosts: HashMap<String, IpAddr>) -> Proxy {
        Proxy {
            policy,
            answers: Mutex::new(HashMap::new()),
            test_hosts,
            connect_timeout: CONNECT_TIMEOUT,
        }
    }

    /// How long it waits for a name, then for each address.
    pub fn connect_timeout(&self) -> std::time::Duration {
        self.connect_timeout
    }

    /// The same with another wait for names and connections.
    #[cfg(test)]
    pub(crate) fn with_connect_timeout(mut self, wait: std::time::Duration) -> Proxy {
        self.connect_timeout = wait;
        self
    }

    /// The policy.
    pub fn policy(&self) -> &NetPolicy {
        &self.policy
    }

    /// Allowed, or the reason of the refusal; asks the person where the
    /// policy says so (one question per host, answered for the process).
    pub async fn check(&self, host: &str, port: u16) -> Result<(), String> {
        match self.policy.decide(host, port) {
            Decision::Allow => Ok(()),
            Decision::Deny(why) => Err(why),
            Decision::Ask => {
                let key = host.to_ascii_lowercase();
                let known = self
                    .answers
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(&key)
                    .cloned();
                if let Some(answer) = known {
                    return answer;
                }
                let Some(ask) = asker() else {
                    return Err(format!(
                        "not on the network allow list, and there is no one to ask; the person can add {key}"
                    ));
                };
                let (tx, rx) = tokio::sync::oneshot::channel();
                ask(
                    AskRequest {
                        host: key.clone(),
                        port,
                    },
                    tx,
                );
                let answer = rx
                    .await
                    .unwrap_or_else(|_| Err("the question went unanswered".to_owned()));
                self.answers
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, answer.clone());
                answer
            }
        }
    }

    /// The addresses of `host` (names in the test map first); a name whose
    /// every address is this machine's loopback is refused unless mapped
    /// by the test map (`local` is the way to this machine's ports). The
    /// system's resolver (`getaddrinfo`, which blocks) runs on tokio's
    /// blocking threads, never on the proxy's; it is given up after the
    /// connect timeout.
    pub async fn resolve(
        &self,
        host: &str,
        port: u16,
    ) -> std::io::Result<Vec<std::net::SocketAddr>> {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return Ok(vec![(ip, port).into()]);
        }
        if let Some(ip) = self.test_hosts.get(&bare.to_ascii_lowercase()) {
            return Ok(vec![(*ip, port).into()]);
        }
        let found: Vec<_> =
            tokio::time::timeout(self.connect_timeout, tokio::net::lookup_host((bare, port)))
                .await
                .map_err(|_| {
                    std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!("no answer within {}", waited(self.connect_timeout)),
                    )
                })??
                .collect();
        if !found.is_empty()
            && found
                .iter()
                .all(|a| a.ip().is_loopback() || a.ip().is_unspecified())
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "{bare} resolves to this machine's loopback address (list its port in local instead)"
                ),
            ));
        }
        Ok(found)
    }
}

/// The proxy for `policy`: the same one for every program with it.
pub fn proxy_for(policy: &NetPolicy) -> Arc<Proxy> {
    static PROXIES: Mutex<Vec<Arc<Proxy>>> = Mutex::new(Vec::new());
    let mut all = PROXIES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = all.iter().find(|p| p.policy == *policy) {
        return p.clone();
    }
    let p = Arc::new(Proxy::new(policy.clone()));
    all.push(p.clone());
    p
}

/// The proxy's runtime (one thread, started on first use).
pub(crate) fn runtime() -> &'static tokio::runtime::Handle {
    static HANDLE: OnceLock<tokio::runtime::Handle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .thread_name("ptypilot-net-io")
            .build()
            .expect("the network proxy's runtime");
        let handle = rt.handle().clone();
        std::thread::Builder::new()
            .name("ptypilot-net".to_owned())
            .spawn(move || rt.block_on(std::future::pending::<()>()))
            .expect("the network proxy's thread");
        handle
    })
}

/// One program's way to the proxy: the listeners it reaches (the proxy's,
/// then one per `local` port), served while the program's session holds it
/// and, on Linux, after that for as long as any process of the sandbox is
/// left (a background job, a daemon): the sandbox's supervisor tells
/// when the last one is gone. So a process the program left behind keeps
/// the network its policy gives, under the same checks, until it ends (the
/// terminal tools end it at `pty_stop`), instead of losing it half-way.
pub struct Bridge {
    linger: Arc<Mutex<Linger>>,
    log: NetLog,
}

/// What decides when a bridge's listeners close.
struct Linger {
    /// The listeners' tasks.
    tasks: Vec<tokio::task::AbortHandle>,
    /// The session still holds the bridge.
    held: bool,
    /// The sandbox's supervisor watches its processes (until the last is
    /// gone).
    watching: bool,
}

impl Linger {
    /// Closes the listeners once neither the session nor a process of the
    /// sandbox needs them.
    fn settle(&mut self) {
        if !self.held && !self.watching {
            // Connections in flight end on their own.
            for t in self.tasks.drain(..) {
                t.abort();
            }
        }
    }
}

impl std::fmt::Debug for Bridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let linger = self.linger.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("Bridge")
            .field("listeners", &linger.tasks.len())
            .field("watching", &linger.watching)
            .finish()
    }
}

/// Accepts on `listener` forever, handing each connection to `serve`; a
/// failed accept (out of descriptors) is retried a little later, not at
/// once, so it cannot take the runtime's thread.
async fn accept_loop<F: std::future::Future<Output = ()> + Send + 'static>(
    listener: tokio::net::TcpListener,
    serve: impl Fn(tokio::net::TcpStream) -> F,
) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let _ = stream.set_nodelay(true);
                tokio::spawn(serve(stream));
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
        }
    }
}

impl Bridge {
    /// Serves `proxy` on `listeners[0]` and forwards `listeners[i]` to this
    /// machine's `127.0.0.1:local[i - 1]`; refusals go to `log`.
    pub fn start(
        proxy: Arc<Proxy>,
        listeners: Vec<std::net::TcpListener>,
        local: &[u16],
        log: NetLog,
    ) -> std::io::Result<Bridge> {
        let rt = runtime();
        let _entered = rt.enter();
        let mut tasks = Vec::new();
        for (i, listener) in listeners.into_iter().enumerate() {
            listener.set_nonblocking(true)?;
            let listener = tokio::net::TcpListener::from_std(listener)?;
            let task = if i == 0 {
                let proxy = proxy.clone();
                let log = log.clone();
                rt.spawn(accept_loop(listener, move |stream| {
                    proxy::serve(stream, proxy.clone(), log.clone())
                }))
            } else {
                let port = local[i - 1];
                rt.spawn(accept_loop(listener, move |inside| async move {
                    if let Ok(outside) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await {
                        let _ = outside.set_nodelay(true);
                        relay::relay(inside, outside).await;
                    }
                }))
            };
            tasks.push(task.abort_handle());
        }
        Ok(Bridge {
            linger: Arc::new(Mutex::new(Linger {
                tasks,
                held: true,
                watching: false,
            })),
            log,
        })
    }

    /// Keeps the listeners while the sandbox's supervisor watches the
    /// program's processes (Linux: until the last is gone, see
    /// `sandbox/linux/supervisor.rs`); the returned function says it
    /// stopped.
    #[cfg(target_os = "linux")]
    pub(crate) fn watched(&self) -> impl FnOnce() + Send + 'static {
        let linger = self.linger.clone();
        linger.lock().unwrap_or_else(|e| e.into_inner()).watching = true;
        move || {
            let mut l = linger.lock().unwrap_or_else(|e| e.into_inner());
            l.watching = false;
            l.settle();
        }
    }

    /// The program's refusal log.
    pub fn log(&self) -> &NetLog {
        &self.log
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        let mut l = self.linger.lock().unwrap_or_else(|e| e.into_inner());
        l.held = false;
        l.settle();
    }
}

/// The proxy port inside the namespace: [`PROXY_PORT`], or the next one
/// that `local` does not name.
pub fn proxy_port(local: &[u16]) -> u16 {
    (PROXY_PORT..)
        .find(|p| !local.contains(p))
        .unwrap_or(PROXY_PORT)
}

/// The variables that point the common tools at the proxy on `port`:
/// curl, wget, git, pip (requests), Go, cargo, npm/yarn/pnpm and Node's
/// own `fetch` (Node 24+: `NODE_USE_ENV_PROXY`); SOCKS5 with remote names
/// for `ALL_PROXY`. Loopback stays direct (`NO_PROXY`), where `local`
/// ports are.
pub fn proxy_env(port: u16) -> Vec<(String, String)> {
    let http = format!("http://127.0.0.1:{port}");
    let socks = format!("socks5h://127.0.0.1:{port}");
    let no_proxy = "localhost,127.0.0.1,::1".to_owned();
    let mut env = Vec::new();
    for name in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
        env.push((name.to_owned(), http.clone()));
    }
    for name in ["ALL_PROXY", "all_proxy"] {
        env.push((name.to_owned(), socks.clone()));
    }
    for name in ["NO_PROXY", "no_proxy"] {
        env.push((name.to_owned(), no_proxy.clone()));
    }
    for name in [
        "npm_config_proxy",
        "npm_config_https_proxy",
        "CARGO_HTTP_PROXY",
    ] {
        env.push((name.to_owned(), http.clone()));
    }
    env.push(("NODE_USE_ENV_PROXY".to_owned(), "1".to_owned()));
    env
}

#[cfg(test)]
mod tests;
