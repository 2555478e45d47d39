//! The sandbox a program runs in: where it may write, whether it may reach
//! the network, and which ways around those rules are closed.
//!
//! A [`Policy`] is what the caller asked for; [`prepare`] turns it, in the
//! parent, into a [`Prepared`] sandbox for one program: every allocation,
//! path lookup and compilation happens there, so that applying it in the
//! child between `fork` and `execve` ([`Prepared::apply_in_child`]) only
//! makes system calls on memory made before the fork. The program and
//! everything it starts inherit the sandbox; this process is never confined.
//!
//! Each platform's implementation sits beside this file:
//!
//! - `linux/`: mount and IPC namespaces (in a user namespace when not
//!   root) where the tree is read-only but the writable roots, `/tmp`,
//!   `/var/tmp`, `/dev/shm` and `/run` are private and bounded, `.git`'s
//!   configuration and hooks are read-only and the terminals are a `devpts`
//!   of its own; Landlock for the file system, TCP ports and the scopes
//!   (signals, abstract Unix sockets); a seccomp filter for socket
//!   families, terminal ioctls, keyrings, other processes' limits and
//!   priorities, namespaces, mounts and io_uring; a supervisor in this
//!   process that makes the program's `connect`, `sendto` and `sendmsg` for
//!   it and refuses a Unix socket outside the roots by its inode and mount;
//!   `PR_SET_NO_NEW_PRIVS`; the capabilities that reach around the rules
//!   dropped (so root is confined too).
//! - `macos.rs`: a Seatbelt profile, run by `/usr/bin/sandbox-exec`.
//!
//! Every sandboxed program gets a private temporary folder (`TMPDIR`, and
//! `TMP`/`TEMP`), made before it starts and removed with everything in it
//! when the session ends ([`TempDir`]), and its package managers a cache
//! folder of their own (`caches.rs`, [`Caches`]); [`program_env`] sets the
//! variables that say where.
//!
//! ```
//! use ptypilot::core::sandbox::{Mode, Policy};
//! let policy = Policy::new(Mode::WorkspaceWrite);
//! assert_eq!(policy.describe(), "workspace-write, network on");
//! assert!(!Policy::new(Mode::Off).is_on());
//! ```

use std::path::{Path, PathBuf};

use crate::core::error::{Error, ErrorCode, Result};

mod caches;
pub use caches::{Caches, PRIVATE_VARIABLES, private_env};

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as imp;
// The Seatbelt profile is text: its tests run on every Unix.
#[cfg(any(target_os = "macos", test))]
mod macos;
#[cfg(target_os = "macos")]
use macos as imp;
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
use unsupported as imp;

/// Where ptypilot has no sandbox (Windows): every policy is missing
/// everything, so `start` refuses unless `ifUnavailable: 'warn'`.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod unsupported {
    use super::Request;
    use crate::core::error::Result;
    use std::ffi::OsString;
    use std::path::{Path, PathBuf};

    pub(super) struct Prepared;

    pub(super) fn prepare(_: &Request<'_>, missing: &mut Vec<String>) -> Result<Prepared> {
        missing.push(format!(
            "ptypilot has no sandbox on {}",
            std::env::consts::OS
        ));
        Ok(Prepared)
    }

    pub(super) fn needs_own_memory(_: &Prepared) -> bool {
        false
    }

    pub(super) fn makes_namespaces(_: &Prepared) -> bool {
        false
    }

    pub(super) fn wrap_argv(
        _: &Prepared,
        _: &Path,
        _: &[OsString],
        _: Option<&Path>,
    ) -> Option<(PathBuf, Vec<OsString>)> {
        None
    }

    pub(super) unsafe fn apply_in_child(_: &Prepared) -> std::result::Result<(), i32> {
        Ok(())
    }
}

/// What [`prepare`] hands the platform: the policy with its paths resolved.
/// (Windows applies none of it.)
#[cfg_attr(windows, allow(dead_code))]
pub(crate) struct Request<'a> {
    /// What was asked for.
    pub policy: &'a Policy,
    /// Where the program may write, the temporary folder last.
    pub writable: &'a [PathBuf],
    /// What stays read-only inside `writable`.
    pub read_only: &'a [PathBuf],
    /// What stays writable inside `read_only` (a submodule's git folder
    /// inside `.git/modules`), and the git folders themselves: each is
    /// bound over itself, so that it cannot be renamed away and replaced
    /// by one with a configuration of the program's choosing.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub read_write: &'a [PathBuf],
    /// The program's working directory (resolved).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub cwd: &'a Path,
    /// The private temporary folder (`TMPDIR`), also in `writable`.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub temp_dir: &'a Path,
    /// The Unix sockets it may not connect to (those that exist).
    pub denied_sockets: &'a [PathBuf],
    /// The Unix sockets outside `writable` it may connect to (resolved).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub allowed_sockets: &'a [PathBuf],
    /// With an allow list of hosts: the proxy's loopback port the program
    /// may reach (macOS: of this machine; Linux: inside its namespace).
    #[cfg_attr(not(target_os = "macos"), allow(dead_code))]
    pub proxy_port: Option<u16>,
}

/// Where a sandboxed program may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// No sandbox: the program has all of its user's rights.
    #[default]
    Off,
    /// Write nowhere but the private temporary folder.
    ReadOnly,
    /// Write in the working directory, the listed roots and the private
    /// temporary folder; `.git` and the other read-only paths inside them
    /// stay read-only.
    WorkspaceWrite,
}

impl Mode {
    /// The mode as the option spells it (`'workspace-write'`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::ReadOnly => "read-only",
            Mode::WorkspaceWrite => "workspace-write",
        }
    }

    /// The mode named `name`, or `None`.
    pub fn parse(name: &str) -> Option<Mode> {
        Some(match name {
            "off" => Mode::Off,
            "read-only" => Mode::ReadOnly,
            "workspace-write" => Mode::WorkspaceWrite,
            _ => return None,
        })
    }
}

/// What to do where the system lacks something the sandbox needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IfUnavailable {
    /// Refuse to start the program (`ERR_SANDBOX_UNAVAILABLE`).
    #[default]
    Error,
    /// Start it with what the system has, and say what is missing
    /// ([`Prepared::missing`]).
    Warn,
}

/// Unix sockets denied by default when they exist: a daemon that runs
/// containers for whoever reaches it is a way out of any sandbox.
pub const DEFAULT_DENIED_SOCKETS: &[&str] = &[
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/run/podman/podman.sock",
    "/run/containerd/containerd.sock",
];

/// The paths kept read-only inside each writable root by default, besides
/// [`GIT_READ_ONLY`] (the `.git` rule, which always applies).
pub const DEFAULT_READ_ONLY: &[&str] = &[];

/// What stays read-only in a git folder (`.git`, and each one under its
/// `modules/` and `worktrees/`): what git later runs as code or reads as
/// configuration. Everything else git only records (the index, objects,
/// refs, logs, `COMMIT_EDITMSG`, `packed-refs`, lock files) stays writable,
/// so `git add`, `git commit` and `git stash` work. `modules/` and
/// `worktrees/` themselves are read-only (no new submodule or worktree, whose
/// folder would bring its own configuration), the git folders already in
/// them writable under the same rule.
pub const GIT_READ_ONLY: &[&str] = &[
    "config",
    "config.worktree",
    "hooks",
    "info",
    "commondir",
    "gitdir",
    "modules",
    "worktrees",
];

/// The names of [`GIT_READ_ONLY`] git makes itself when missing, made
/// before the program starts (empty folders, as `git init` makes `hooks/`
/// and `info/`) so that they can be read-only too.
const GIT_MADE_FOLDERS: &[&str] = &["hooks", "info", "modules", "worktrees"];

/// The files of [`GIT_READ_ONLY`] that cannot be made beforehand (their
/// mere presence changes what git does): when one was created in the
/// sandbox, it is removed when the session ends.
const GIT_WATCHED_FILES: &[&str] = &["commondir", "config.worktree", "gitdir"];

/// The sandbox a caller asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Policy {
    /// Where the program may write.
    pub mode: Mode,
    /// More writable folders (`workspace-write`), besides the working
    /// directory; relative ones are taken from the working directory.
    pub roots: Vec<PathBuf>,
    /// Paths kept read-only inside the writable roots; relative ones are
    /// taken from each root. `None`: [`DEFAULT_READ_ONLY`].
    pub read_only: Option<Vec<PathBuf>>,
    /// May the program use the network (sockets other than Unix ones).
    /// With [`Policy::hosts`] this is true: its sockets reach the proxy.
    pub network: bool,
    /// Only these hosts, through the proxy (`network: { allow, ... }`):
    /// the program runs with no route out but to the proxy
    /// ([`crate::core::net_proxy`]).
    pub hosts: Option<crate::core::net_proxy::NetPolicy>,
    /// Unix socket files the program may not connect to. `None`:
    /// [`DEFAULT_DENIED_SOCKETS`].
    pub deny_unix_sockets: Option<Vec<PathBuf>>,
    /// Unix socket files outside the writable roots the program may connect
    /// to (every other one is refused; relative ones are taken from the
    /// working directory).
    pub allow_unix_sockets: Vec<PathBuf>,
    /// Missing system support: refuse, or start with less.
    pub if_unavailable: IfUnavailable,
    /// Where package managers keep their caches (see [`Caches`]).
    pub caches: Caches,
    /// The workspace (`workspace-write`) when it is not the program's
    /// working directory (relative: from it). A `Shell` keeps the one it
    /// started in when a replacement shell starts where the last command
    /// left off; the terminal tools keep theirs whatever `cwd` a call names.
    pub workspace: Option<PathBuf>,
    /// Folders the program may write in whatever the mode: a `Shell`'s
    /// control folder (the pipes its commands report their end through).
    /// Not a JS option.
    pub control: Vec<PathBuf>,
}

impl Policy {
    /// A policy of `mode` with the defaults: network on, `.git` read-only,
    /// the container daemons' sockets denied, refuse when unavailable.
    pub fn new(mode: Mode) -> Policy {
        Policy {
            mode,
            network: true,
            ..Policy::default()
        }
    }

    /// The `sandbox` option as JSON: `"off" | "read-only" |
    /// "workspace-write"`, or `{ mode, roots?, readOnly?, network?,
    /// denyUnixSockets?, ifUnavailable?, caches? }`; `what` names it in errors
    /// (`ERR_INVALID_ARG`). `network: { allow }` is refused with the reason:
    /// Landlock's TCP rules name a port, not an address, so a port allowed
    /// for 127.0.0.1 would be open on every host.
    pub fn from_json(value: &serde_json::Value, what: &str) -> Result<Policy> {
        use serde_json::Value;
        let mode = |v: &Value, field: &str| match v.as_str().and_then(Mode::parse) {
            Some(mode) => Ok(mode),
            None => Err(Error::invalid_arg(format!(
                "{field} must be 'off', 'read-only' or 'workspace-write', got {v}"
            ))),
        };
        let obj = match value {
            Value::String(_) => return Ok(Policy::new(mode(value, what)?)),
            Value::Object(obj) => obj,
            other => {
                return Err(Error::invalid_arg(format!(
                    "{what} must be a sandbox mode or an object, got {other}"
                )));
            }
        };
        let field = |name: &str| format!("{what}.{name}");
        let mut policy = Policy::new(mode(
            obj.get("mode").unwrap_or(&Value::Null),
            &field("mode"),
        )?);
        let paths = |name: &str| -> Result<Option<Vec<PathBuf>>> {
            match obj.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|item| match item.as_str() {
                        Some(p) if !p.is_empty() && !p.contains('\0') => Ok(PathBuf::from(p)),
                        _ => Err(Error::invalid_arg(format!(
                            "{} must hold paths, got {item}",
                            field(name)
                        ))),
                    })
                    .collect::<Result<Vec<_>>>()
                    .map(Some),
                Some(other) => Err(Error::invalid_arg(format!(
                    "{} must be an array of paths, got {other}",
                    field(name)
                ))),
            }
        };
        policy.roots = paths("roots")?.unwrap_or_default();
        policy.workspace = match obj.get("workspace") {
            None | Some(Value::Null) => None,
            Some(Value::String(p)) if !p.is_empty() && !p.contains('\0') => Some(PathBuf::from(p)),
            Some(other) => {
                return Err(Error::invalid_arg(format!(
                    "{} must be a folder's path, got {other}",
                    field("workspace")
                )));
            }
        };
        policy.read_only = paths("readOnly")?;
        policy.deny_unix_sockets = paths("denyUnixSockets")?;
        policy.allow_unix_sockets = paths("allowUnixSockets")?.unwrap_or_default();
        match obj.get("network") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(on)) => policy.network = *on,
            Some(Value::String(s)) if s == "on" => policy.network = true,
            Some(Value::String(s)) if s == "off" => policy.network = false,
            Some(Value::Object(hosts)) => {
                policy.hosts = Some(crate::core::net_proxy::NetPolicy::from_json(
                    hosts,
                    &field("network"),
                )?);
            }
            Some(other) => {
                return Err(Error::invalid_arg(format!(
                    "{} must be 'on', 'off', true, false or {{ allow, deny?, local?, ask? }}, got {other}",
                    field("network")
                )));
            }
        }
        policy.if_unavailable = match obj.get("ifUnavailable") {
            None | Some(Value::Null) => IfUnavailable::Error,
            Some(v) if v == "error" => IfUnavailable::Error,
            Some(v) if v == "warn" => IfUnavailable::Warn,
            Some(other) => {
                return Err(Error::invalid_arg(format!(
                    "{} must be 'error' or 'warn', got {other}",
                    field("ifUnavailable")
                )));
            }
        };
        policy.caches = match obj.get("caches") {
            None | Some(Value::Null) => Caches::default(),
            Some(v) => match v.as_str().and_then(Caches::parse) {
                Some(caches) => caches,
                None => {
                    return Err(Error::invalid_arg(format!(
                        "{} must be 'private', 'shared' or 'none', got {v}",
                        field("caches")
                    )));
                }
            },
        };
        if let Some(unknown) = obj.keys().find(|k| {
            ![
                "mode",
                "workspace",
                "roots",
                "readOnly",
                "network",
                "denyUnixSockets",
                "allowUnixSockets",
                "ifUnavailable",
                "caches",
            ]
            .contains(&k.as_str())
        }) {
            return Err(Error::invalid_arg(format!(
                "{what} has an unknown option {unknown:?} (known: mode, workspace, roots, readOnly, network, denyUnixSockets, allowUnixSockets, ifUnavailable, caches)"
            )));
        }
        Ok(policy)
    }

    /// True unless the mode is [`Mode::Off`].
    pub fn is_on(&self) -> bool {
        self.mode != Mode::Off
    }

    /// One line for statuses and lists: `workspace-write, network off`.
    pub fn describe(&self) -> String {
        if !self.is_on() {
            return "off".to_owned();
        }
        match &self.hosts {
            Some(h) => format!(
                "{}, network allow-list ({} host{}{})",
                self.mode.as_str(),
                h.allow.len(),
                if h.allow.len() == 1 { "" } else { "s" },
                if h.ask { ", others asked" } else { "" }
            ),
            None => format!(
                "{}, network {}",
                self.mode.as_str(),
                if self.network { "on" } else { "off" }
            ),
        }
    }
}

/// A folder removed with everything in it when dropped: the sandboxed
/// program's private temporary folder.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
    /// Files that must not be made in the sandbox (see
    /// [`GIT_WATCHED_FILES`]): removed on drop when one was.
    watched: Vec<PathBuf>,
    /// The program's namespaces, held open (see [`Prepared::hold_namespaces`]).
    held: Vec<std::fs::File>,
}

impl TempDir {
    /// Makes a new folder `ptypilot-sandbox-XXXXXX` (mode 0700) in the
    /// system's temporary folder.
    pub fn new() -> std::io::Result<TempDir> {
        #[cfg(not(unix))]
        let made = {
            use std::time::{SystemTime, UNIX_EPOCH};
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let path = std::env::temp_dir().join(format!(
                "ptypilot-sandbox-{}-{nanos:08x}",
                std::process::id()
            ));
            std::fs::create_dir(&path).map(|()| TempDir {
                path,
                watched: Vec::new(),
                held: Vec::new(),
            })
        };
        #[cfg(unix)]
        let made = Self::make();
        made
    }

    #[cfg(unix)]
    fn make() -> std::io::Result<TempDir> {
        // On Linux the sandbox's private `/tmp` holds it, whatever this
        // process's TMPDIR.
        #[cfg(target_os = "linux")]
        let base = PathBuf::from("/tmp");
        #[cfg(not(target_os = "linux"))]
        let base = std::env::temp_dir();
        let template = base.join("ptypilot-sandbox-XXXXXX");
        let mut bytes = std::ffi::CString::new(template.as_os_str().as_encoded_bytes())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?
            .into_bytes_with_nul();
        // SAFETY: mkdtemp rewrites the XXXXXX of the NUL-terminated buffer
        // we own, in place.
        let made = unsafe { libc::mkdtemp(bytes.as_mut_ptr().cast()) };
        if made.is_null() {
            return Err(std::io::Error::last_os_error());
        }
        bytes.pop();
        // SAFETY: mkdtemp kept the bytes a path (it replaced ASCII with ASCII).
        let path =
            PathBuf::from(unsafe { std::ffi::OsString::from_encoded_bytes_unchecked(bytes) });
        Ok(TempDir {
            path,
            watched: Vec::new(),
            held: Vec::new(),
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        for path in &self.watched {
            // Made in the sandbox where git would read it outside.
            if let Ok(meta) = std::fs::symlink_metadata(path) {
                let _ = if meta.is_dir() {
                    std::fs::remove_dir_all(path)
                } else {
                    std::fs::remove_file(path)
                };
            }
        }
        // What the program left is its own; a failure leaves it for the
        // system's cleaner of its temporary folder.
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The sandbox a program runs under, as statuses show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// What was asked for.
    pub policy: Policy,
    /// The private temporary folder (`TMPDIR`).
    pub temp_dir: PathBuf,
    /// Where the program may write, resolved.
    pub writable: Vec<PathBuf>,
    /// What stays read-only inside [`Applied::writable`], resolved.
    pub read_only: Vec<PathBuf>,
    /// What the system lacked (only with [`IfUnavailable::Warn`]).
    pub missing: Vec<String>,
    /// The private cache folder the package managers are pointed at
    /// ([`Caches::Private`]), when there was a home to make it in.
    pub cache_dir: Option<PathBuf>,
    /// What the sandbox's supervisor and the network proxy refused this
    /// program (Unix sockets outside the roots, connections that bypass the
    /// proxy, hosts off the allow list), until read; `None` without either.
    pub net_log: Option<crate::core::net_proxy::NetLog>,
}

/// What lives as long as a sandboxed program's session: its private
/// temporary folder, its bridge to the proxy (closing it lets the
/// network namespace go, once no process of the sandbox is left) and its
/// supervisor (Linux: it serves until the last process of the sandbox is
/// gone).
#[derive(Debug)]
pub struct Kept {
    _temp: TempDir,
    _bridge: Option<crate::core::net_proxy::Bridge>,
    _supervisor: Option<Supervisor>,
}

#[cfg(target_os = "linux")]
use linux::Supervisor;
/// No supervisor where the sandbox has none (the Seatbelt profile decides).
#[cfg(not(target_os = "linux"))]
type Supervisor = ();

/// The proxy's side of a program with an allow list of hosts, until the
/// program started.
struct PendingNet {
    proxy: std::sync::Arc<crate::core::net_proxy::Proxy>,
    /// macOS: the proxy listens on a loopback port of this machine.
    #[cfg(not(target_os = "linux"))]
    listener: std::net::TcpListener,
}

/// A sandbox ready for one program: what the child applies, its private
/// temporary folder, and what this system could not give.
pub struct Prepared {
    policy: Policy,
    temp: TempDir,
    writable: Vec<PathBuf>,
    read_only: Vec<PathBuf>,
    missing: Vec<String>,
    cache_dir: Option<PathBuf>,
    platform: imp::Prepared,
    network: Option<PendingNet>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("policy", &self.policy)
            .field("temp", &self.temp)
            .field("writable", &self.writable)
            .field("read_only", &self.read_only)
            .field("missing", &self.missing)
            .finish_non_exhaustive()
    }
}

impl Prepared {
    /// The policy this was made from.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The private temporary folder (removed when this is dropped).
    pub fn temp_dir(&self) -> &Path {
        self.temp.path()
    }

    /// Where the program may write: the working directory and roots
    /// (`workspace-write`) and the temporary folder, resolved.
    pub fn writable(&self) -> &[PathBuf] {
        &self.writable
    }

    /// What stays read-only inside [`Prepared::writable`], resolved.
    pub fn read_only(&self) -> &[PathBuf] {
        &self.read_only
    }

    /// What this system lacks, one phrase each (empty when the whole policy
    /// is enforced); only ever non-empty with [`IfUnavailable::Warn`].
    pub fn missing(&self) -> &[String] {
        &self.missing
    }

    /// Holds the namespaces of the program `pid` (just started) open until
    /// this sandbox's session ends: then the kernel takes them down when the
    /// session is over, on its thread, rather than in the program's exit,
    /// which the caller would wait for. A program already gone holds
    /// nothing.
    pub fn hold_namespaces(&mut self, pid: crate::core::proc_tree::Pid) {
        if !imp::makes_namespaces(&self.platform) {
            return;
        }
        for ns in ["mnt", "ipc"] {
            if let Ok(file) = std::fs::File::open(format!("/proc/{pid}/ns/{ns}")) {
                self.temp.held.push(file);
            }
        }
    }

    /// What to show of it once the program started, and what to keep as
    /// long as the program's session: the private temporary folder
    /// (removed when dropped) and the bridge to the proxy (with an allow
    /// list of hosts: the listeners the program sent before its `execve`
    /// are served from here on). The platform's part (the Landlock
    /// descriptor) is closed here.
    pub fn into_applied(self) -> (Applied, Kept) {
        let mut missing = self.missing;
        let mut net_log = None;
        let mut bridge = None;
        // Linux: the descriptors the child handed over before its `execve`:
        // the bridge's listeners and the supervisor's listener.
        #[cfg(target_os = "linux")]
        let mut handed = match imp::receive(&self.platform) {
            None => None,
            Some(Ok(h)) => Some(h),
            Some(Err(e)) => {
                missing.push(format!("the sandbox's supervisor: {e}"));
                None
            }
        };
        if let Some(pending) = self.network {
            let log = crate::core::net_proxy::NetLog::default();
            let local = pending.proxy.policy().local.clone();
            #[cfg(target_os = "linux")]
            let received = handed
                .as_mut()
                .map(|(l, _)| std::mem::take(l))
                .filter(|l| !l.is_empty())
                .map(|l| l.into_iter().map(std::net::TcpListener::from).collect())
                .ok_or_else(|| std::io::Error::other("the sandboxed program sent no listener"));
            #[cfg(not(target_os = "linux"))]
            let received = Ok::<_, std::io::Error>(vec![pending.listener]);
            match received.and_then(|l| {
                crate::core::net_proxy::Bridge::start(pending.proxy, l, &local, log.clone())
            }) {
                Ok(b) => {
                    bridge = Some(b);
                    net_log = Some(log);
                }
                Err(e) => missing.push(format!("the bridge to the network proxy: {e}")),
            }
        }
        #[allow(unused_mut)]
        let mut supervisor = None;
        #[cfg(target_os = "linux")]
        if let Some((_, notify)) = handed {
            let log = net_log.clone().unwrap_or_default();
            // The bridge's listeners stay while the supervisor watches.
            let ended = bridge.as_ref().map(|b: &crate::core::net_proxy::Bridge| {
                Box::new(b.watched()) as Box<dyn FnOnce() + Send>
            });
            match imp::supervise(&self.platform, notify, &self.writable, log.clone(), ended) {
                Ok(s) => {
                    supervisor = Some(s);
                    net_log = Some(log);
                }
                // The listener is closed: the calls it takes fail
                // (`ENOSYS`), none goes unchecked.
                Err(e) => missing.push(format!("the sandbox's supervisor: {e}")),
            }
        }
        let applied = Applied {
            policy: self.policy,
            temp_dir: self.temp.path().to_owned(),
            writable: self.writable,
            read_only: self.read_only,
            missing,
            net_log,
            cache_dir: self.cache_dir,
        };
        (
            applied,
            Kept {
                _temp: self.temp,
                _bridge: bridge,
                _supervisor: supervisor,
            },
        )
    }

    /// The child must have memory of its own (a `fork`, not a child that
    /// borrows the parent's until `execve`): Linux, not root (the mount
    /// namespace comes with a user namespace, and `unshare` refuses one to a
    /// process sharing its memory).
    pub fn needs_own_memory(&self) -> bool {
        imp::needs_own_memory(&self.platform)
    }

    /// The argv to execute instead of `argv` (macOS: `sandbox-exec -p
    /// PROFILE -- program args`, the profile letting the program write its
    /// own terminal `tty`); `None` where the sandbox is applied in the child
    /// instead (Linux).
    pub fn wrap_argv(
        &self,
        program: &Path,
        argv: &[std::ffi::OsString],
        tty: Option<&Path>,
    ) -> Option<(PathBuf, Vec<std::ffi::OsString>)> {
        imp::wrap_argv(&self.platform, program, argv, tty)
    }

    /// Applies the sandbox to the calling process: the child, after `fork`,
    /// before `execve`. Returns the errno of the step that failed.
    ///
    /// # Safety
    /// Only in the child of a `fork` of a possibly multi-threaded process,
    /// which must then `execve` or `_exit`: this makes async-signal-safe
    /// system calls only, on memory made before the fork.
    /// The errno it returns is marked (see [`failed_step`]), so that the
    /// parent, which reads it from the child, tells a sandbox step from the
    /// program's own `execve`.
    pub unsafe fn apply_in_child(&self) -> std::result::Result<(), i32> {
        // SAFETY: the caller's contract.
        unsafe { imp::apply_in_child(&self.platform) }.map_err(|errno| errno | STEP_MARK)
    }
}

/// Set in an errno from [`Prepared::apply_in_child`]; no errno has it.
const STEP_MARK: i32 = 1 << 24;

/// The errno of the sandbox step that failed in the child, when `err` (a
/// spawn's error) came from one.
pub fn failed_step(err: &std::io::Error) -> Option<i32> {
    err.raw_os_error()
        .filter(|e| e & STEP_MARK != 0)
        .map(|e| e & !STEP_MARK)
}

/// `ERR_SANDBOX_UNAVAILABLE`: the system lacks `what`.
pub fn unavailable(what: &str) -> Error {
    Error::new(
        ErrorCode::SandboxUnavailable,
        format!(
            "the sandbox cannot be applied: {what} (pass sandbox: {{ mode, ifUnavailable: 'warn' }} to start without it)"
        ),
    )
}

/// Sets in `env` (the program's environment) the variables the sandbox
/// gives it: `TMPDIR`, `TMP` and `TEMP` to its private temporary folder
/// `temp`, and `cache_env` (where its package managers keep their caches,
/// [`Caches`]). Each replaces the variable of that name. One place for all
/// of them, so that a setting that needs a variable adds it here.
fn program_env(env: &mut Vec<(String, String)>, temp: &Path, cache_env: Vec<(String, String)>) {
    let tmp = temp.to_string_lossy().into_owned();
    let set = ["TMPDIR", "TMP", "TEMP"]
        .into_iter()
        .map(|name| (name.to_owned(), tmp.clone()))
        .chain(cache_env);
    for (name, value) in set {
        env.retain(|(k, _)| *k != name);
        env.push((name, value));
    }
}

/// Prepares `policy` for a program that runs in `cwd` (absolute): resolves
/// the writable roots and the read-only paths, makes the private temporary
/// folder and the cache folder ([`Caches`]), sets the variables naming them
/// in `env` ([`program_env`]), and builds the platform's rules. `None` for
/// [`Mode::Off`].
///
/// Errors: `ERR_INVALID_ARG` for a root that is not a folder,
/// `ERR_SANDBOX_UNAVAILABLE` naming what the system lacks (unless
/// [`IfUnavailable::Warn`]).
pub fn prepare(
    policy: &Policy,
    cwd: &Path,
    env: &mut Vec<(String, String)>,
) -> Result<Option<Prepared>> {
    if !policy.is_on() {
        return Ok(None);
    }
    let temp =
        TempDir::new().map_err(|e| Error::io("create the sandbox's temporary folder", &e))?;
    let mut writable = Vec::new();
    if policy.mode == Mode::WorkspaceWrite {
        let workspace = cwd.join(policy.workspace.as_deref().unwrap_or(cwd));
        writable.push(canonical(&workspace, "the workspace")?);
        for root in &policy.roots {
            let full = cwd.join(root);
            writable.push(canonical(&full, "sandbox.roots")?);
        }
    }
    let mut read_only = Vec::new();
    let mut read_write = Vec::new();
    let mut watched = Vec::new();
    let defaults: Vec<PathBuf>;
    let listed = match &policy.read_only {
        Some(list) => list,
        None => {
            defaults = DEFAULT_READ_ONLY.iter().map(PathBuf::from).collect();
            &defaults
        }
    };
    for root in &writable {
        for path in listed {
            let full = root.join(path);
            // A path that does not exist cannot be written through a
            // read-only mount; absolute ones outside the roots are
            // read-only already.
            if let Ok(real) = std::fs::canonicalize(&full)
                && writable.iter().any(|w| real.starts_with(w))
                && !read_only.contains(&real)
            {
                read_only.push(real);
            }
        }
    }
    let roots = writable.clone();
    for root in &roots {
        let dot_git = root.join(".git");
        let Ok(meta) = std::fs::symlink_metadata(&dot_git) else {
            continue;
        };
        let gitdir = if meta.is_file() {
            // A worktree's or submodule's `.git` file names the git folder.
            if !read_only.contains(&dot_git) {
                read_only.push(dot_git.clone());
            }
            match gitdir_of(&dot_git) {
                Some(dir) => dir,
                None => continue,
            }
        } else {
            dot_git
        };
        if let Ok(real) = std::fs::canonicalize(&gitdir)
            && real.is_dir()
            && roots.iter().any(|w| real.starts_with(w))
            && !read_only.iter().any(|r| real.starts_with(r))
        {
            git_rule(&real, &mut read_only, &mut read_write, &mut watched);
        }
    }
    for dir in &policy.control {
        writable.push(canonical(dir, "the control folder")?);
    }
    // A read-only sandbox writes nowhere but its temporary folder, caches
    // included.
    let caches = match policy.mode {
        Mode::WorkspaceWrite => caches::setup(policy.caches, env),
        _ => caches::Setup::default(),
    };
    for path in caches.writable {
        if !writable.iter().any(|w| path.starts_with(w)) {
            writable.push(path);
        }
    }
    writable.push(
        std::fs::canonicalize(temp.path())
            .map_err(|e| Error::io("resolve the sandbox's temporary folder", &e))?,
    );
    let denied_sockets: Vec<PathBuf> = match &policy.deny_unix_sockets {
        Some(list) => list.iter().map(|p| cwd.join(p)).collect::<Vec<_>>(),
        None => DEFAULT_DENIED_SOCKETS
            .iter()
            .map(PathBuf::from)
            .collect::<Vec<_>>(),
    }
    .into_iter()
    .filter_map(|p| std::fs::canonicalize(p).ok())
    .collect();
    let allowed_sockets: Vec<PathBuf> = policy
        .allow_unix_sockets
        .iter()
        .filter_map(|p| std::fs::canonicalize(cwd.join(p)).ok())
        .collect();
    program_env(env, temp.path(), caches.env);
    let mut missing = Vec::new();
    let network = match &policy.hosts {
        Some(hosts) => Some(prepare_network(hosts, env)?),
        None => None,
    };
    #[allow(unused_mut)]
    let mut platform = imp::prepare(
        &Request {
            policy,
            writable: &writable,
            read_only: &read_only,
            read_write: &read_write,
            temp_dir: writable.last().expect("the temporary folder"),
            cwd: &std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned()),
            denied_sockets: &denied_sockets,
            allowed_sockets: &allowed_sockets,
            proxy_port: network.as_ref().map(|n| n.0),
        },
        &mut missing,
    )?;
    #[cfg(target_os = "linux")]
    let network = match network {
        Some((_, pending, step)) => imp::set_network(&mut platform, step).then_some(pending),
        None => None,
    };
    #[cfg(not(target_os = "linux"))]
    let network = network.map(|(_, pending)| pending);
    if !missing.is_empty() && policy.if_unavailable == IfUnavailable::Error {
        return Err(unavailable(&missing.join("; ")));
    }
    let mut temp = temp;
    temp.watched = watched;
    Ok(Some(Prepared {
        policy: policy.clone(),
        temp,
        writable,
        read_only,
        missing,
        cache_dir: caches.dir,
        platform,
        network,
    }))
}

/// The git folder a `.git` file names (`gitdir: PATH`, relative to the
/// file's folder).
fn gitdir_of(dot_git: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot_git).ok()?;
    let named = text.strip_prefix("gitdir:")?.trim();
    Some(dot_git.parent()?.join(named))
}

/// The `.git` rule for the git folder `dir` (resolved): [`GIT_READ_ONLY`]
/// read-only (the folders git would make made first), the git folders in
/// `modules/` and `worktrees/` writable under the same rule, and the files
/// that must not appear watched.
fn git_rule(
    dir: &Path,
    read_only: &mut Vec<PathBuf>,
    read_write: &mut Vec<PathBuf>,
    watched: &mut Vec<PathBuf>,
) {
    // The folder itself stays where it is: renamed away (`mv .git
    // .git-old`), a new `.git` beside it would bring its own `config` and
    // hooks, which the person's next git outside would obey.
    if !read_write.iter().any(|p| p == dir) {
        read_write.push(dir.to_owned());
    }
    for name in GIT_MADE_FOLDERS {
        // A folder that cannot be made (a repository this user cannot
        // write) cannot be written in the sandbox either.
        let _ = std::fs::create_dir(dir.join(name));
    }
    for name in GIT_READ_ONLY {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_ok() {
            if !read_only.contains(&path) {
                read_only.push(path);
            }
        } else if GIT_WATCHED_FILES.contains(name) {
            watched.push(path);
        }
    }
    for (sub, nested) in [("modules", true), ("worktrees", false)] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if !path.is_dir() || path.is_symlink() {
                continue;
            }
            if path.join("HEAD").exists() {
                read_write.push(path.clone());
                if nested {
                    git_rule(&path, read_only, read_write, watched);
                } else {
                    // A worktree's own folder: HEAD, index and logs are
                    // its records; its configuration and pointers stay.
                    for name in ["config.worktree", "commondir", "gitdir"] {
                        let p = path.join(name);
                        if p.exists() {
                            read_only.push(p);
                        } else {
                            watched.push(p);
                        }
                    }
                }
            } else if nested {
                // A submodule named `a/b` lives in `modules/a/b`.
                let Ok(inner) = std::fs::read_dir(&path) else {
                    continue;
                };
                for e in inner.flatten() {
                    let p = e.path();
                    if p.is_dir() && !p.is_symlink() && p.join("HEAD").exists() {
                        read_write.push(p.clone());
                        git_rule(&p, read_only, read_write, watched);
                    }
                }
            }
        }
    }
}

/// The proxy's port, its pending side and (Linux) the child's step, with
/// the variables that point the common tools at it set in `env`.
#[cfg(target_os = "linux")]
fn prepare_network(
    hosts: &crate::core::net_proxy::NetPolicy,
    env: &mut Vec<(String, String)>,
) -> Result<(u16, PendingNet, crate::core::net_proxy::linux::ChildStep)> {
    use crate::core::net_proxy;
    let port = net_proxy::proxy_port(&hosts.local);
    let mut ports = vec![port];
    ports.extend(&hosts.local);
    let step = net_proxy::linux::pair(&ports)
        .map_err(|e| Error::io("plan the bridge to the network proxy", &e))?;
    set_proxy_env(env, port);
    Ok((
        port,
        PendingNet {
            proxy: net_proxy::proxy_for(hosts),
        },
        step,
    ))
}

/// The proxy's port and its pending side, with the variables that point
/// the common tools at it set in `env`: the proxy listens on a loopback
/// port of this machine, the only one the Seatbelt profile lets the
/// program reach.
#[cfg(not(target_os = "linux"))]
fn prepare_network(
    hosts: &crate::core::net_proxy::NetPolicy,
    env: &mut Vec<(String, String)>,
) -> Result<(u16, PendingNet)> {
    use crate::core::net_proxy;
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
        .map_err(|e| Error::io("listen for the network proxy", &e))?;
    let port = listener
        .local_addr()
        .map_err(|e| Error::io("listen for the network proxy", &e))?
        .port();
    set_proxy_env(env, port);
    Ok((
        port,
        PendingNet {
            proxy: net_proxy::proxy_for(hosts),
            listener,
        },
    ))
}

fn set_proxy_env(env: &mut Vec<(String, String)>, port: u16) {
    for (k, v) in crate::core::net_proxy::proxy_env(port) {
        env.retain(|(name, _)| *name != k);
        env.push((k, v));
    }
}

/// `path` resolved, which must be a folder (`ERR_INVALID_ARG` naming
/// `what` otherwise).
fn canonical(path: &Path, what: &str) -> Result<PathBuf> {
    match std::fs::canonicalize(path) {
        Ok(real) if real.is_dir() => Ok(real),
        Ok(_) => Err(Error::invalid_arg(format!(
            "{what} must be a folder, got {}",
            path.display()
        ))),
        Err(e) => Err(Error::invalid_arg(format!(
            "{what} must be a folder, got {}: {e}",
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_round_trip_and_describe() {
        for mode in [Mode::Off, Mode::ReadOnly, Mode::WorkspaceWrite] {
            assert_eq!(Mode::parse(mode.as_str()), Some(mode));
        }
        assert_eq!(Mode::parse("full"), None);
        let mut p = Policy::new(Mode::ReadOnly);
        p.network = false;
        assert_eq!(p.describe(), "read-only, network off");
        assert_eq!(Policy::default().describe(), "off");
    }

    #[test]
    fn options_parse_and_name_what_is_wrong() {
        use serde_json::json;
        assert_eq!(
            Policy::from_json(&json!("read-only"), "o.sandbox").unwrap(),
            Policy::new(Mode::ReadOnly)
        );
        let p = Policy::from_json(
            &json!({ "mode": "workspace-write", "network": false, "readOnly": [],
                     "roots": ["../b"], "ifUnavailable": "warn" }),
            "o.sandbox",
        )
        .unwrap();
        assert!(!p.network);
        assert_eq!(p.read_only, Some(vec![]));
        let hosts = Policy::from_json(
            &json!({ "mode": "read-only", "network": { "allow": ["*.example.org"], "local": [5432] } }),
            "o.sandbox",
        )
        .unwrap();
        assert!(hosts.network);
        assert_eq!(hosts.hosts.as_ref().unwrap().local, [5432]);
        assert_eq!(hosts.describe(), "read-only, network allow-list (1 host)");
        assert!(
            !Policy::from_json(&json!({ "mode": "read-only", "network": "off" }), "o")
                .unwrap()
                .network
        );
        assert_eq!(p.roots, [PathBuf::from("../b")]);
        assert_eq!(p.if_unavailable, IfUnavailable::Warn);
        assert_eq!(p.caches, Caches::Private);
        let shared = json!({ "mode": "workspace-write", "caches": "shared" });
        assert_eq!(
            Policy::from_json(&shared, "o.sandbox").unwrap().caches,
            Caches::Shared
        );
        for (bad, says) in [
            (json!("full"), "o.sandbox must be 'off'"),
            (
                json!({ "mode": "read-only", "network": 3 }),
                "must be 'on', 'off', true, false or { allow",
            ),
            (
                json!({ "mode": "read-only", "network": { "allow": ["a b"] } }),
                "o.sandbox.network.allow must hold host names",
            ),
            (
                json!({ "mode": "read-only", "roots": "x" }),
                "o.sandbox.roots must be an array",
            ),
            (
                json!({ "mode": "read-only", "nework": false }),
                "unknown option \"nework\"",
            ),
            (json!({ "network": false }), "o.sandbox.mode must be"),
            (
                json!({ "mode": "read-only", "caches": "mine" }),
                "o.sandbox.caches must be 'private', 'shared' or 'none', got \"mine\"",
            ),
            (json!(3), "must be a sandbox mode or an object"),
        ] {
            let err = Policy::from_json(&bad, "o.sandbox").unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidArg);
            assert!(err.message.contains(says), "{}", err.message);
        }
    }

    #[cfg(unix)]
    #[test]
    fn temp_dir_is_private_and_removed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = TempDir::new().unwrap();
        let path = dir.path().to_owned();
        std::fs::write(path.join("f"), "x").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        drop(dir);
        assert!(!path.exists());
    }

    #[test]
    fn off_prepares_nothing_and_on_sets_tmpdir_and_caches() {
        let ws = TempDir::new().unwrap();
        let home_dir = TempDir::new().unwrap();
        let home = home_dir.path().to_string_lossy().into_owned();
        let mut env = vec![
            ("TMPDIR".to_owned(), "/elsewhere".to_owned()),
            ("HOME".to_owned(), home),
            ("XDG_CACHE_HOME".to_owned(), String::new()),
        ];
        assert!(
            prepare(&Policy::default(), Path::new("/"), &mut env)
                .unwrap()
                .is_none()
        );
        std::fs::create_dir(ws.path().join(".git")).unwrap();
        let mut policy = Policy::new(Mode::WorkspaceWrite);
        policy.if_unavailable = IfUnavailable::Warn;
        let prepared = prepare(&policy, ws.path(), &mut env).unwrap().unwrap();
        let tmp = prepared.temp_dir().to_string_lossy().into_owned();
        assert_eq!(
            env.iter()
                .filter(|(k, _)| k == "TMPDIR")
                .collect::<Vec<_>>(),
            [&("TMPDIR".to_owned(), tmp.clone())]
        );
        let real_ws = std::fs::canonicalize(ws.path()).unwrap();
        assert_eq!(prepared.writable()[0], real_ws);
        // The .git rule: its configuration and the folders git makes
        // (made here, empty, as `git init` does) are read-only, not .git.
        for name in ["hooks", "info", "modules", "worktrees"] {
            assert!(
                prepared
                    .read_only()
                    .contains(&real_ws.join(".git").join(name))
            );
            assert!(real_ws.join(".git").join(name).is_dir());
        }
        assert!(!prepared.read_only().contains(&real_ws.join(".git")));
        // The private cache folder: writable, before the temporary folder,
        // and the package managers pointed at it.
        let cache = std::fs::canonicalize(home_dir.path())
            .unwrap()
            .join(".cache/ptypilot/sandbox");
        assert_eq!(
            prepared.writable()[1..],
            [cache.clone(), PathBuf::from(&tmp)]
        );
        let npm = cache.join("npm").to_string_lossy().into_owned();
        assert!(env.contains(&("npm_config_cache".to_owned(), npm)));
        let (applied, _temp) = prepared.into_applied();
        assert_eq!(applied.cache_dir, Some(cache));
        let bad = Policy {
            roots: vec![PathBuf::from("/no/such/root")],
            ..policy
        };
        let err = prepare(&bad, ws.path(), &mut env).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArg);
        assert!(err.message.contains("/no/such/root"), "{}", err.message);
    }
}
