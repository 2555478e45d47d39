//! The sandbox on Linux: namespaces (mount, IPC; a user namespace when not
//! root), Landlock, seccomp, no-new-privs and the capabilities that reach
//! around the rules dropped, all set in the child between `fork` and
//! `execve`. One submodule per step:
//!
//! - [`namespaces`]: the mount and IPC namespaces and everything mounted in
//!   them (the whole tree read-only but the writable roots, private bounded
//!   `/tmp`, `/var/tmp`, `/dev/shm` and `/run`, the denied Unix sockets
//!   covered, `.git`'s configuration and hooks read-only, a terminal
//!   namespace of its own (`devpts`));
//! - [`landlock`]: the file-system, TCP and scope rules;
//! - [`caps`]: the capabilities a sandboxed root loses;
//! - [`seccomp`]: the system calls refused.
//!
//! Made in the parent ([`prepare`]): the Landlock ruleset (a descriptor,
//! close-on-exec), the seccomp programs (compiled BPF), every path as a C
//! string, the user-namespace maps. Done in the child ([`apply_in_child`]),
//! system calls only, in this order:
//!
//! 1. [`namespaces::enter`]: the namespaces and their mounts. Landlock
//!    forbids mounting once applied, so this comes first; the Landlock
//!    rules for what only exists inside the new mounts (the private `/tmp`,
//!    the new `/dev/pts`) are added to the ruleset right after;
//! 2. `PR_SET_NO_NEW_PRIVS`: a setuid or file-capability program gains
//!    nothing, and the next two steps need it;
//! 3. [`caps::drop_all`]: as root the program keeps owning files but cannot
//!    mount, load modules, do raw I/O, trace, or open files by handle;
//! 4. [`landlock::restrict`]: reads and runs anywhere, writes only beneath
//!    the writable roots, the terminal and `/dev/null`-like devices; with
//!    the network off, no TCP bind or connect; no signal to a process
//!    outside, no connection to an abstract Unix socket made outside
//!    (scopes, ABI 6), and no ptrace of a process outside (every ABI);
//! 5. [`seccomp::install`]: see there;
//! 6. with the namespaces, [`supervisor`]'s filter: `connect`, `sendto` and
//!    `sendmsg` are made by ptypilot's process on the program's behalf,
//!    which decides on the Unix socket an address reaches by its inode and
//!    mount. The child hands the filter's listener to the parent before its
//!    `execve`.
//!
//! With an allow list of hosts (`network: { allow }`) the namespaces include
//! a network namespace; right after step 1 the child brings its `lo` up and
//! listens there for the proxy, and step 6 hands those listeners to the
//! parent too (`net_proxy::linux`).
//!
//! Landlock ABI 6 (Linux 6.12) is the least that closes every hole listed
//! above: ABI 3 brings `truncate`, ABI 6 the scopes. An older kernel, or
//! a system without unprivileged user namespaces, is
//! `ERR_SANDBOX_UNAVAILABLE` naming what it lacks, or with `ifUnavailable:
//! 'warn'` the rules it has (best effort) and the list of what is missing.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use seccompiler::BpfProgram;

use super::Request;
use crate::core::error::{Error, Result};

mod caps;
mod landlock;
mod namespaces;
mod seccomp;
mod supervisor;

pub(crate) use supervisor::Supervisor;

/// The sandbox, ready for the child.
pub(super) struct Prepared {
    landlock: landlock::Prepared,
    /// Seccomp programs, installed in order.
    filters: &'static [BpfProgram],
    /// The namespaces and mounts (`None`: the system has none to give, and
    /// `ifUnavailable: 'warn'` started without them).
    namespaces: Option<namespaces::Plan>,
    /// With an allow list of hosts: the step that bridges the proxy into
    /// the network namespace.
    net: Option<crate::core::net_proxy::linux::ChildStep>,
    /// With the namespaces: the supervisor's step and the parent's end.
    supervisor: Option<(supervisor::ChildStep, supervisor::ParentEnd)>,
    /// `allowUnixSockets` and the denied sockets, absolute, as named.
    allowed_sockets: Vec<PathBuf>,
    denied_sockets: Vec<PathBuf>,
}

pub(super) fn prepare(req: &Request<'_>, missing: &mut Vec<String>) -> Result<Prepared> {
    let namespaces = namespaces::plan(req, missing)?;
    let landlock = landlock::prepare(req, namespaces.as_ref(), missing)?;
    let mut network = req.policy.network;
    if req.policy.hosts.is_some() && namespaces.is_none() {
        // No network namespace to hold the allow list: no network at all.
        missing.push(
            "the network allow list needs a network namespace: the network is off instead (Unix sockets only)"
                .to_owned(),
        );
        network = false;
    }
    let filters = seccomp::compiled_filters(network)?;
    let supervisor = match &namespaces {
        Some(_) => {
            let (end, step) = supervisor::pair()
                .map_err(|e| Error::io("make the socket pair to the sandbox's supervisor", &e))?;
            Some((step, end))
        }
        None => None,
    };
    let absolute = |list: &[PathBuf]| list.iter().map(|p| req.cwd.join(p)).collect();
    Ok(Prepared {
        landlock,
        filters,
        namespaces,
        net: None,
        supervisor,
        allowed_sockets: absolute(&req.policy.allow_unix_sockets),
        denied_sockets: match &req.policy.deny_unix_sockets {
            Some(list) => absolute(list),
            None => super::DEFAULT_DENIED_SOCKETS
                .iter()
                .map(PathBuf::from)
                .collect(),
        },
    })
}

/// The program runs in its network namespace bridged to the proxy by
/// `step`; false where there is no namespace to hold it (the network is
/// then off, see [`prepare`]).
pub(super) fn set_network(
    p: &mut Prepared,
    step: crate::core::net_proxy::linux::ChildStep,
) -> bool {
    if p.namespaces.is_none() {
        return false;
    }
    p.net = Some(step);
    true
}

/// The descriptors the child handed over once the program started: the
/// bridge's listeners and the supervisor's listener; `None` without a
/// supervisor.
pub(super) fn receive(
    p: &Prepared,
) -> Option<std::io::Result<(Vec<std::os::fd::OwnedFd>, std::os::fd::OwnedFd)>> {
    p.supervisor.as_ref().map(|(_, end)| end.receive())
}

/// Starts the supervisor of the program whose listener is `notify`.
pub(super) fn supervise(
    p: &Prepared,
    notify: std::os::fd::OwnedFd,
    writable: &[PathBuf],
    log: crate::core::net_proxy::NetLog,
    ended: Option<Box<dyn FnOnce() + Send>>,
) -> std::io::Result<Supervisor> {
    supervisor::start(
        notify,
        supervisor::Rules {
            writable: writable.to_vec(),
            private: supervisor::private_dirs(),
            allowed: p.allowed_sockets.clone(),
            denied: p.denied_sockets.clone(),
            own_network: p.net.is_some(),
        },
        log,
        ended,
    )
}

/// A user namespace cannot be made by a child that shares its parent's
/// memory.
pub(super) fn needs_own_memory(p: &Prepared) -> bool {
    p.namespaces
        .as_ref()
        .is_some_and(namespaces::Plan::needs_own_memory)
}

/// The child makes namespaces of its own.
pub(super) fn makes_namespaces(p: &Prepared) -> bool {
    p.namespaces.is_some()
}

/// The macOS wrapper has no Linux counterpart: the child applies it.
pub(super) fn wrap_argv(
    _: &Prepared,
    _: &Path,
    _: &[std::ffi::OsString],
    _: Option<&Path>,
) -> Option<(PathBuf, Vec<std::ffi::OsString>)> {
    None
}

/// This thread's errno.
fn errno() -> i32 {
    // SAFETY: glibc's per-thread errno location.
    unsafe { *libc::__errno_location() }
}

/// `path` as a C string (`ERR_INVALID_ARG` for a NUL byte).
fn cpath(path: &Path) -> Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        Error::invalid_arg(format!(
            "sandbox paths must not contain NUL characters, got {}",
            path.display()
        ))
    })
}

/// Applies `p` to the calling process; the errno of the failed step.
///
/// # Safety
/// In the child of a `fork`, before `execve`: system calls only, on memory
/// made before the fork.
pub(super) unsafe fn apply_in_child(p: &Prepared) -> std::result::Result<(), i32> {
    // SAFETY (the whole body): each step's contract is this function's.
    unsafe {
        let root = libc::geteuid() == 0;
        let mut in_user_ns = false;
        let mut listeners = None;
        if let Some(plan) = &p.namespaces {
            namespaces::enter(plan)?;
            in_user_ns = plan.needs_own_memory();
            // What exists only inside the new mounts gets its rules now.
            landlock::add_child_rules(&p.landlock, plan.child_rules())?;
            if let Some(net) = &p.net {
                listeners = Some(net.listen()?);
            }
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(errno());
        }
        caps::drop_all(root || in_user_ns)?;
        landlock::restrict(&p.landlock)?;
        seccomp::install(p.filters)?;
        if let Some((step, _)) = &p.supervisor {
            match (&p.net, listeners) {
                (Some(net), Some(listeners)) => step.finish(&listeners[..net.count()])?,
                _ => step.finish(&[])?,
            }
        }
        Ok(())
    }
}
