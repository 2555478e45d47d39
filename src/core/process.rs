//! The process table and process-tree termination.
//!
//! A [`ProcRef`] names one process by pid *and* start time, so a reference
//! that outlives its process never signals another process that reused the
//! pid. On Linux every signal goes through a pidfd that is opened first and
//! then checked against the start time, so there is no window between the
//! check and the signal; where pidfds are unavailable (kernels before 5.3,
//! seccomp filters, other systems) a checked `kill(2)` is the fallback.
//!
//! [`tree`] collects a process's descendants (including those that moved to
//! another process group or session) and the members of process groups,
//! deepest first, which is the order to signal them in. On top of that:
//!
//! - [`tree_of`] is [`tree`] for roots known by identity (a reused pid is
//!   not followed), and never walks through the calling process;
//! - [`kill_tree`] signals a tree once, children first;
//! - [`kill_hard`] stops a tree (so nothing can fork any more), then kills
//!   it, children first;
//! - [`signal_group`] signals a process group, never our own, and only
//!   while a known member still holds the group id;
//! - [`wait_exit`] waits (without polling, through pidfds) until processes
//!   have exited;
//! - [`terminate`] is the whole graceful-then-forceful procedure: TERM,
//!   grace, KILL the tree, wait.
//!
//! ```no_run
//! use std::time::Duration;
//! use ptypilot::core::process::{self, ProcRef, Terminate};
//! use tokio_util::sync::CancellationToken;
//!
//! # async fn demo(pid: i32) -> ptypilot::core::Result<()> {
//! let Some(target) = ProcRef::of(pid) else { return Ok(()) };
//! let options = Terminate { group: false, grace: Some(Duration::from_secs(1)), timeout: Duration::from_secs(5) };
//! let gone = process::terminate(target, &options, &CancellationToken::new()).await?;
//! assert!(gone);
//! # Ok(())
//! # }
//! ```
//!
//! Only Linux has a process table here; elsewhere [`info`] and [`list`]
//! report nothing, so every lookup comes back empty.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Duration;

use nix::sys::signal::Signal;
use nix::unistd::Pid as NixPid;
use tokio_util::sync::CancellationToken;

use super::error::{Error, ErrorCode, Result};

/// A process id.
pub type Pid = i32;

/// How often a wait re-reads the process table when it cannot use a pidfd.
const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// Stop-and-rescan rounds before a hard kill gives up looking for processes
/// forked while it worked (each round that finds nothing new ends it early).
const FREEZE_ROUNDS: usize = 8;

/// One row of the process table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcInfo {
    /// Process id.
    pub pid: Pid,
    /// Parent process id.
    pub ppid: Pid,
    /// Process group id.
    pub pgid: Pid,
    /// Session id.
    pub sid: Pid,
    /// Start time in clock ticks since boot (identifies the process with `pid`).
    pub start_time: u64,
    /// Kernel state letter (`R`, `S`, `Z` for a zombie, ...).
    pub state: char,
}

impl ProcInfo {
    /// True for a zombie or a dead process (it has exited; only reaping is left).
    pub fn exited(&self) -> bool {
        matches!(self.state, 'Z' | 'X' | 'x')
    }

    /// The identity of this process.
    pub fn as_ref(&self) -> ProcRef {
        ProcRef {
            pid: self.pid,
            start_time: self.start_time,
        }
    }
}

/// A process, identified by pid and start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProcRef {
    /// Process id.
    pub pid: Pid,
    /// Start time in clock ticks since boot.
    pub start_time: u64,
}

impl ProcRef {
    /// The process with this pid now, if there is one.
    pub fn of(pid: Pid) -> Option<ProcRef> {
        info(pid).map(|i| i.as_ref())
    }

    /// The table row of this very process (None when it is gone or the pid
    /// now belongs to another process).
    pub fn info(&self) -> Option<ProcInfo> {
        info(self.pid).filter(|i| i.start_time == self.start_time)
    }

    /// True while this process exists and has not exited (a zombie has exited).
    pub fn alive(&self) -> bool {
        self.info().is_some_and(|i| !i.exited())
    }

    /// Sends `signal` if this is still the same, live process. Returns whether
    /// it was sent.
    pub fn signal(&self, signal: Signal) -> bool {
        #[cfg(target_os = "linux")]
        match self.handle() {
            Handle::Pidfd(fd) => return pidfd::send(&fd, signal),
            Handle::Gone => return false,
            Handle::Unavailable => {}
        }
        // Without a pidfd the pid could in theory be reused between the check
        // and the kill; pids are handed out cyclically, so that takes a full
        // wrap of the pid space within these few microseconds.
        self.alive() && nix::sys::signal::kill(NixPid::from_raw(self.pid), signal).is_ok()
    }

    /// The program's arguments (`argv`), or None when the process is gone.
    /// A zombie has none left (`Some(vec![])`).
    pub fn args(&self) -> Option<Vec<String>> {
        args(self)
    }

    /// The live (not exited) direct children of this process, or none when it
    /// is gone.
    pub fn children(&self) -> Vec<ProcRef> {
        let table = list();
        let is_me = |p: &ProcInfo| p.pid == self.pid && p.start_time == self.start_time;
        if !table.iter().any(is_me) {
            return Vec::new();
        }
        table
            .iter()
            .filter(|p| p.ppid == self.pid && !p.exited())
            .map(ProcInfo::as_ref)
            .collect()
    }

    /// A pidfd for this very process: opened first, then checked against the
    /// start time. The check is conclusive: the process existed when this
    /// reference was made and still exists after the open, so it held the pid
    /// throughout and the descriptor is its own.
    #[cfg(target_os = "linux")]
    fn handle(&self) -> Handle {
        match pidfd::open(self.pid) {
            pidfd::Opened::Fd(fd) if self.alive() => Handle::Pidfd(fd),
            pidfd::Opened::Fd(_) | pidfd::Opened::NoProcess => Handle::Gone,
            pidfd::Opened::Unavailable => Handle::Unavailable,
        }
    }
}

/// What [`ProcRef::handle`] found.
#[cfg(target_os = "linux")]
enum Handle {
    /// A verified pidfd of the live process.
    Pidfd(std::os::fd::OwnedFd),
    /// The process has exited (or its pid belongs to another process now).
    Gone,
    /// pidfds cannot be used here (old kernel, seccomp, out of descriptors).
    Unavailable,
}

/// Raw pidfd system calls (Linux 5.3+); libc has the numbers but no wrappers.
#[cfg(target_os = "linux")]
mod pidfd {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    use nix::sys::signal::Signal;

    /// What `pidfd_open` returned.
    pub enum Opened {
        Fd(OwnedFd),
        /// No process with that pid (or the pid is a thread, not a process).
        NoProcess,
        /// The call itself is not available or failed for lack of resources.
        Unavailable,
    }

    pub fn open(pid: i32) -> Opened {
        // SAFETY: pidfd_open takes two integers and touches no memory of ours.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if fd >= 0 {
            // SAFETY: a non-negative return is a new descriptor that we own.
            return Opened::Fd(unsafe { OwnedFd::from_raw_fd(fd as i32) });
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::ESRCH | libc::EINVAL) => Opened::NoProcess,
            _ => Opened::Unavailable,
        }
    }

    /// `pidfd_send_signal`; true when the signal was sent.
    pub fn send(fd: &OwnedFd, signal: Signal) -> bool {
        // SAFETY: the descriptor is open for the whole call; a null siginfo
        // makes the kernel fill it in as kill(2) would.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                fd.as_raw_fd(),
                signal as libc::c_int,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            )
        };
        rc == 0
    }
}

/// The table row of `pid`, if such a process exists.
#[cfg(target_os = "linux")]
pub fn info(pid: Pid) -> Option<ProcInfo> {
    if pid <= 0 {
        return None;
    }
    let stat = procfs::process::Process::new(pid).ok()?.stat().ok()?;
    Some(row(&stat))
}

/// The table row of the process `pid`: like [`info`], but None when `pid`
/// names a thread of another process (`/proc/<tid>` answers for threads too).
#[cfg(target_os = "linux")]
pub fn find(pid: Pid) -> Option<ProcInfo> {
    if pid <= 0 {
        return None;
    }
    let dir = procfs::process::Process::new(pid).ok()?;
    let stat = dir.stat().ok()?;
    (dir.status().ok()?.tgid == pid).then(|| row(&stat))
}

/// Every process visible to us.
#[cfg(target_os = "linux")]
pub fn list() -> Vec<ProcInfo> {
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    all.filter_map(|p| p.ok()?.stat().ok())
        .map(|stat| row(&stat))
        .collect()
}

#[cfg(target_os = "linux")]
fn row(stat: &procfs::process::Stat) -> ProcInfo {
    ProcInfo {
        pid: stat.pid,
        ppid: stat.ppid,
        pgid: stat.pgrp,
        sid: stat.session,
        start_time: stat.starttime,
        state: stat.state,
    }
}

#[cfg(target_os = "linux")]
fn args(proc: &ProcRef) -> Option<Vec<String>> {
    use std::io::Read;
    // The /proc/<pid> directory handle stays bound to the process it was
    // opened for, so the stat checked here and the command line read below
    // come from the same process even if the pid is reused in between.
    let dir = procfs::process::Process::new(proc.pid).ok()?;
    let stat = dir.stat().ok()?;
    if stat.starttime != proc.start_time {
        return None;
    }
    let mut raw = Vec::new();
    dir.open_relative("cmdline")
        .ok()?
        .read_to_end(&mut raw)
        .ok()?;
    Some(split_cmdline(&raw))
}

#[cfg(not(target_os = "linux"))]
fn args(_proc: &ProcRef) -> Option<Vec<String>> {
    None
}

/// The name a terminal shows for process `pid` in its title: what node-pty
/// reports as a pty's `process`.
///
/// Linux: `argv[0]` from `/proc/<pid>/cmdline` (at most its first 4 KiB:
/// `bash`, `-bash` for a login shell, `/usr/bin/python3`), or
/// `/proc/<pid>/comm` when the command line is empty (a zombie, a kernel
/// thread). One small read of an in-memory file, cheap enough to poll.
/// `None` when the process is gone or `/proc` cannot be read (hidepid).
#[cfg(target_os = "linux")]
pub fn program_name(pid: Pid) -> Option<String> {
    use std::io::Read;
    let mut buf = [0u8; 4096];
    let mut file = std::fs::File::open(format!("/proc/{pid}/cmdline")).ok()?;
    let mut len = 0;
    while len < buf.len() {
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => {
                len += n;
                if buf[..len].contains(&0) {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    let first = buf[..len].split(|&b| b == 0).next().unwrap_or_default();
    if !first.is_empty() {
        return Some(String::from_utf8_lossy(first).into_owned());
    }
    let comm = std::fs::read(format!("/proc/{pid}/comm")).ok()?;
    let comm = comm.strip_suffix(b"\n").unwrap_or(&comm);
    (!comm.is_empty()).then(|| String::from_utf8_lossy(comm).into_owned())
}

/// The name a terminal shows for process `pid` in its title: what node-pty
/// reports as a pty's `process`.
///
/// macOS: `proc_name` (libproc), the process's name as the kernel keeps it
/// (at most 32 bytes; `argv[0]` is not readable for another user's process).
/// `None` when the process is gone or the kernel refuses.
#[cfg(target_os = "macos")]
pub fn program_name(pid: Pid) -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: proc_name writes at most `buf.len()` bytes into `buf`.
    let n = unsafe { libc::proc_name(pid, buf.as_mut_ptr().cast(), buf.len() as u32) };
    (n > 0).then(|| String::from_utf8_lossy(&buf[..n as usize]).into_owned())
}

/// Elsewhere there is no process table here: `None`.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub fn program_name(_pid: Pid) -> Option<String> {
    None
}

/// `argv` from the NUL-separated `/proc/<pid>/cmdline` (empty arguments kept).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn split_cmdline(raw: &[u8]) -> Vec<String> {
    let raw = raw.strip_suffix(b"\0").unwrap_or(raw);
    if raw.is_empty() {
        return Vec::new();
    }
    raw.split(|&b| b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

/// Every process whose executable is `path` (compared after resolving
/// symbolic links, as the kernel reports executables). Processes whose
/// executable we may not read (other users') are not seen.
#[cfg(target_os = "linux")]
pub fn by_executable(path: &Path) -> Vec<ProcRef> {
    let resolved = std::fs::canonicalize(path).ok();
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    all.filter_map(|p| {
        let p = p.ok()?;
        let exe = p.exe().ok()?;
        if exe != path && Some(&exe) != resolved.as_ref() {
            return None;
        }
        // Read after the exe through the same directory handle, so both
        // belong to one process.
        Some(row(&p.stat().ok()?).as_ref())
    })
    .collect()
}

/// Every live process that belongs to a program which has exited: the
/// members of its session `sid` (its `&` jobs: a session id is never handed
/// out again while a process still holds it) and every process whose initial
/// environment has `name=value` (a daemon that started a session of its own
/// keeps the environment it inherited). `name=value` is a marker the caller
/// put in the program's environment; a process that cleared its environment
/// and left the session is not found.
///
/// From `/proc/<pid>/stat` (session) and `/proc/<pid>/environ` (the
/// environment the process was started with, read through the same directory
/// handle as its start time). The environment of another user's process
/// cannot be read: such a process is found only by its session.
#[cfg(target_os = "linux")]
pub fn left_behind(sid: Pid, name: &str, value: &str) -> Vec<ProcRef> {
    use std::io::Read;
    let Ok(all) = procfs::process::all_processes() else {
        return Vec::new();
    };
    let me = std::process::id() as Pid;
    let needle = format!("{name}={value}");
    all.filter_map(|p| {
        let p = p.ok()?;
        let stat = p.stat().ok()?;
        let info = row(&stat);
        if info.pid == me || info.exited() {
            return None;
        }
        if sid > 0 && info.sid == sid {
            return Some(info.as_ref());
        }
        let mut raw = Vec::new();
        p.open_relative("environ")
            .ok()?
            .read_to_end(&mut raw)
            .ok()?;
        raw.split(|&b| b == 0)
            .any(|entry| entry == needle.as_bytes())
            .then(|| info.as_ref())
    })
    .collect()
}

/// Processes left behind by an exited program (nothing on this system: there
/// is no process table here, so no left-over process is reported).
#[cfg(not(target_os = "linux"))]
pub fn left_behind(_sid: Pid, _name: &str, _value: &str) -> Vec<ProcRef> {
    Vec::new()
}

/// Every process whose executable is `path` (nothing on this system).
#[cfg(not(target_os = "linux"))]
pub fn by_executable(_path: &Path) -> Vec<ProcRef> {
    Vec::new()
}

/// The table row of `pid`, if such a process exists.
#[cfg(not(target_os = "linux"))]
pub fn info(_pid: Pid) -> Option<ProcInfo> {
    None
}

/// The table row of the process `pid` (nothing on this system).
#[cfg(not(target_os = "linux"))]
pub fn find(_pid: Pid) -> Option<ProcInfo> {
    None
}

/// Every process visible to us.
#[cfg(not(target_os = "linux"))]
pub fn list() -> Vec<ProcInfo> {
    Vec::new()
}

/// The descendants of `roots` (the roots included) and every member of the
/// process groups `groups`, deepest first: children come before their
/// parents, so a parent is still there to see its children go.
pub fn tree(roots: &[Pid], groups: &[Pid]) -> Vec<ProcRef> {
    collect_tree(&list(), roots, groups)
}

/// [`tree`] over a given table (testable without real processes).
pub fn collect_tree(table: &[ProcInfo], roots: &[Pid], groups: &[Pid]) -> Vec<ProcRef> {
    walk(table, roots, groups, None)
}

/// Like [`tree`], for roots known by identity: a root whose pid now belongs
/// to another process is left out, with everything below it.
///
/// The calling process is never included unless it is itself a root, and
/// the walk does not continue through it: signalling the tree of an ancestor
/// must not take us (or our own children) down with it. Our children given
/// as roots, or members of `groups`, are included as usual.
pub fn tree_of(roots: &[ProcRef], groups: &[Pid]) -> Vec<ProcRef> {
    let table = list();
    let verified: Vec<Pid> = roots
        .iter()
        .filter(|r| {
            table
                .iter()
                .any(|p| p.pid == r.pid && p.start_time == r.start_time)
        })
        .map(|r| r.pid)
        .collect();
    walk(&table, &verified, groups, Some(std::process::id() as Pid))
}

/// Collects the tree, deepest first. The walk does not go through `protect`
/// (unless it is a root): it, and whatever is reachable only through it, is
/// left out.
fn walk(table: &[ProcInfo], roots: &[Pid], groups: &[Pid], protect: Option<Pid>) -> Vec<ProcRef> {
    let protect = protect.filter(|p| !roots.contains(p));
    let mut children: HashMap<Pid, Vec<&ProcInfo>> = HashMap::new();
    for p in table {
        // A process is never its own child (pid 0's parent is itself).
        if p.ppid != p.pid {
            children.entry(p.ppid).or_default().push(p);
        }
    }
    let by_pid: HashMap<Pid, &ProcInfo> = table.iter().map(|p| (p.pid, p)).collect();
    let mut found: HashMap<Pid, &ProcInfo> = HashMap::new();
    let mut stack: Vec<&ProcInfo> = roots
        .iter()
        .filter_map(|pid| by_pid.get(pid).copied())
        .collect();
    stack.extend(table.iter().filter(|p| groups.contains(&p.pgid)));
    while let Some(p) = stack.pop() {
        // Skipping the protected process also skips what is below it, unless
        // that is reached another way (as a root or a group member).
        if Some(p.pid) == protect || found.contains_key(&p.pid) {
            continue;
        }
        found.insert(p.pid, p);
        stack.extend(children.get(&p.pid).into_iter().flatten());
    }
    // Depth = ancestors within the found set, however the roots were given
    // (a root can be another root's descendant).
    let depth = |p: &ProcInfo| {
        let mut depth = 0;
        let mut cur = p;
        while let Some(parent) = found.get(&cur.ppid) {
            if parent.pid == cur.pid || depth > found.len() {
                break;
            }
            depth += 1;
            cur = parent;
        }
        depth
    };
    let mut ordered: Vec<(usize, &ProcInfo)> = found.values().map(|p| (depth(p), *p)).collect();
    ordered.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.pid.cmp(&b.1.pid)));
    ordered.into_iter().map(|(_, p)| p.as_ref()).collect()
}

/// True when `pgid` may be signalled as a group: a real group (`kill(-1)`
/// would mean every process) that is not our own.
pub fn group_signallable(pgid: Pid) -> bool {
    pgid > 1 && pgid != nix::unistd::getpgrp().as_raw()
}

/// Signals the process group `pgid` while one of `members` is still a live
/// member of it (so the number still names the group we mean; a group id is
/// only reused after the whole group is gone). Never signals our own group.
/// Returns whether the signal was sent.
pub fn signal_group(pgid: Pid, members: &[ProcRef], signal: Signal) -> bool {
    if !group_signallable(pgid) {
        return false;
    }
    let held = members
        .iter()
        .any(|m| m.info().is_some_and(|i| i.pgid == pgid && !i.exited()));
    held && nix::sys::signal::killpg(NixPid::from_raw(pgid), signal).is_ok()
}

/// Sends `signal` to `root` and all its descendants (including those that
/// moved to another process group or session), children first. Returns how
/// many processes were signalled; 0 when `root` is gone.
///
/// `SIGKILL` takes the thorough path of [`kill_hard`], so that a parent
/// cannot fork a child that escapes between the scan and its own death.
pub fn kill_tree(root: &ProcRef, signal: Signal) -> usize {
    if signal == Signal::SIGKILL {
        let mut known = Vec::new();
        return kill_hard(&[*root], &[], &mut known);
    }
    tree_of(&[*root], &[])
        .iter()
        .filter(|p| p.signal(signal))
        .count()
}

/// Kills `roots`, their descendants and the members of `groups` so that
/// nothing escapes: first every process is stopped (`SIGSTOP`), parents
/// first, rescanning until no new process turns up (a stopped process cannot
/// fork); then all are killed, children first. Killed processes are added
/// to `known` (for a later [`wait_exit`]); returns how many were killed.
///
/// The calling process is never stopped, and is killed only when it is one
/// of the roots.
pub fn kill_hard(roots: &[ProcRef], groups: &[Pid], known: &mut Vec<ProcRef>) -> usize {
    let me = std::process::id() as Pid;
    let mut stopped: HashSet<ProcRef> = HashSet::new();
    for _ in 0..FREEZE_ROUNDS {
        let seeds: Vec<ProcRef> = roots.iter().chain(known.iter()).copied().collect();
        let found = tree_of(&seeds, groups);
        let fresh: Vec<ProcRef> = found
            .into_iter()
            .rev()
            .filter(|p| !stopped.contains(p))
            .collect();
        if fresh.is_empty() {
            break;
        }
        for p in fresh {
            if p.pid != me {
                p.signal(Signal::SIGSTOP);
            }
            stopped.insert(p);
            merge(known, [p]);
        }
    }
    for &g in groups {
        signal_group(g, known, Signal::SIGKILL);
    }
    // Children first; then anything the last scan no longer saw (a process
    // that left the tree between the scans is still ours to kill).
    let mut order = tree_of(known, groups);
    merge(&mut order, known.iter().copied());
    order.iter().filter(|p| p.signal(Signal::SIGKILL)).count()
}

/// Adds the processes not already in `into`.
fn merge(into: &mut Vec<ProcRef>, more: impl IntoIterator<Item = ProcRef>) {
    for p in more {
        if !into.contains(&p) {
            into.push(p);
        }
    }
}

/// How [`terminate`] proceeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terminate {
    /// Also signal the process group of the root (and wait for its members).
    /// Our own process group is never signalled.
    pub group: bool,
    /// `Some`: send `SIGTERM` and wait this long before killing. `None`: kill
    /// at once.
    pub grace: Option<Duration>,
    /// How long to wait for the tree to go after `SIGKILL`.
    pub timeout: Duration,
}

impl Default for Terminate {
    fn default() -> Self {
        Terminate {
            group: false,
            grace: Some(Duration::from_secs(1)),
            timeout: Duration::from_secs(5),
        }
    }
}

/// Terminates `root` and its whole tree: `SIGTERM` to the root's process
/// group (with [`Terminate::group`]), the root, then the rest of the tree
/// (children first); then
/// waits up to the grace period; then `SIGKILL`s whatever is left (the tree
/// as first seen, plus anything that appeared since) and waits up to
/// [`Terminate::timeout`].
///
/// Resolves `true` when every process of the tree has exited (a zombie has
/// exited), `false` when some are still there after the timeout. Cancelling
/// `cancel` stops the procedure (signals already sent stay sent) with
/// `ERR_ABORTED`.
///
/// The tree is captured *before* the first signal: a parent that dies first
/// hands its children to init, where no walk from the parent finds them.
pub async fn terminate(
    root: ProcRef,
    options: &Terminate,
    cancel: &CancellationToken,
) -> Result<bool> {
    if cancel.is_cancelled() {
        return Err(aborted());
    }
    let group = if options.group {
        root.info()
            .map(|i| i.pgid)
            .filter(|&g| group_signallable(g))
    } else {
        None
    };
    let groups: Vec<Pid> = group.into_iter().collect();
    let mut known = tree_of(&[root], &groups);
    if let Some(grace) = options.grace {
        // The group and the root first: the program gets the request before
        // any child of it dies, so it ends of the signal rather than reacting
        // to a child's death (a shell would exit 143 or carry on).
        if let Some(g) = group {
            signal_group(g, &known, Signal::SIGTERM);
        }
        root.signal(Signal::SIGTERM);
        // Then every other process, children first: members that left the
        // group (or never were in it) get the request too.
        for p in known.iter().filter(|p| **p != root) {
            p.signal(Signal::SIGTERM);
        }
        if wait_exit(&known, Some(grace), cancel).await? {
            // Everyone we knew is gone; done unless the group gained members
            // or someone forked just before dying.
            let seeds: Vec<ProcRef> = known.iter().copied().chain([root]).collect();
            if tree_of(&seeds, &groups).iter().all(|p| !p.alive()) {
                return Ok(true);
            }
        }
    }
    if cancel.is_cancelled() {
        return Err(aborted());
    }
    kill_hard(&[root], &groups, &mut known);
    wait_exit(&known, Some(options.timeout), cancel).await
}

/// Waits until every process in `targets` has exited (a zombie has exited).
/// `Ok(true)` when they have, `Ok(false)` when `timeout` ran out first,
/// `ERR_ABORTED` when `cancel` was cancelled first. `timeout: None` waits
/// for as long as it takes.
///
/// On Linux this waits on pidfds (readable once the process exits, whoever
/// its parent is), with no polling; without pidfds it re-reads the process
/// table every few milliseconds. Must run inside a Tokio runtime with I/O
/// and time drivers enabled.
pub async fn wait_exit(
    targets: &[ProcRef],
    timeout: Option<Duration>,
    cancel: &CancellationToken,
) -> Result<bool> {
    let all = async {
        for t in targets {
            wait_one(t).await;
        }
    };
    let deadline = timeout.and_then(|t| tokio::time::Instant::now().checked_add(t));
    let timer = async {
        match deadline {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        // Checked in this order: a wait that is already cancelled rejects
        // even if the processes are gone, and a process that is already gone
        // wins over a zero timeout.
        biased;
        () = cancel.cancelled() => Err(aborted()),
        () = all => Ok(true),
        () = timer => Ok(false),
    }
}

/// Completes when `target` has exited.
async fn wait_one(target: &ProcRef) {
    #[cfg(target_os = "linux")]
    match target.handle() {
        Handle::Gone => return,
        Handle::Pidfd(fd) => {
            use tokio::io::Interest;
            use tokio::io::unix::AsyncFd;
            // SAFETY: the OwnedFd is moved into the AsyncFd, so the descriptor
            // stays open and the same for the AsyncFd's whole life.
            let registered = unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) };
            // A pidfd reports readable once the process has exited.
            if let Ok(fd) = registered
                && fd.readable().await.is_ok()
            {
                return;
            }
        }
        Handle::Unavailable => {}
    }
    while target.alive() {
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}

fn aborted() -> Error {
    Error::new(
        ErrorCode::Aborted,
        "the wait was aborted by its AbortSignal",
    )
}

/// A signal from its name (`"SIGTERM"`, `"TERM"`, case-insensitive) or number (`"15"`).
pub fn parse_signal(name: &str) -> Result<Signal> {
    let trimmed = name.trim();
    if let Ok(n) = trimmed.parse::<i32>() {
        return signal_from_number(n);
    }
    let upper = trimmed.to_ascii_uppercase();
    let full = if upper.starts_with("SIG") {
        upper
    } else {
        format!("SIG{upper}")
    };
    full.parse::<Signal>().map_err(|_| {
        let known: Vec<&str> = Signal::iterator().map(|s| s.as_str()).collect();
        Error::invalid_arg(format!(
            "unknown signal {name:?}; expected one of {}",
            known.join(", ")
        ))
    })
}

/// A signal from its number, e.g. 15 for `SIGTERM`.
pub fn signal_from_number(n: i32) -> Result<Signal> {
    Signal::try_from(n).map_err(|_| Error::invalid_arg(format!("unknown signal number {n}")))
}

/// The name of a signal number, e.g. `"SIGKILL"` for 9.
pub fn signal_name(signo: i32) -> String {
    Signal::try_from(signo).map_or_else(|_| format!("SIG{signo}"), |s| s.as_str().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(pid: Pid, ppid: Pid, pgid: Pid) -> ProcInfo {
        ProcInfo {
            pid,
            ppid,
            pgid,
            sid: pgid,
            start_time: pid as u64 * 10,
            state: 'S',
        }
    }

    fn pids(refs: &[ProcRef]) -> Vec<Pid> {
        refs.iter().map(|r| r.pid).collect()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn program_name_is_argv0_then_comm_then_none() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sleep")
            .arg0("my-sleeper")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id() as Pid;
        // Until its execve the child is a copy of this process; during it,
        // the kernel names it before its new argument pages are set up (the
        // command line reads empty then, and its name stands in).
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !std::fs::read(format!("/proc/{pid}/cmdline"))
            .unwrap_or_default()
            .starts_with(b"my-sleeper\0")
            && std::time::Instant::now() < until
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(program_name(pid).as_deref(), Some("my-sleeper"));
        child.kill().unwrap();
        // A zombie has no command line left: its kernel name stands in.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while info(pid).is_some_and(|p| !p.exited()) && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(program_name(pid).as_deref(), Some("sleep"));
        child.wait().unwrap();
        assert_eq!(program_name(pid), None);
    }

    #[test]
    fn tree_is_deepest_first_and_includes_groups() {
        let table = vec![
            row(1, 0, 1),
            row(10, 1, 10),  // root
            row(11, 10, 10), // child
            row(12, 11, 12), // grandchild that left the group
            row(13, 12, 12), // great-grandchild
            row(20, 1, 10),  // group member reparented to init
            row(30, 1, 30),  // unrelated
        ];
        let got = pids(&collect_tree(&table, &[10], &[10]));
        assert_eq!(got.len(), 5);
        assert!(!got.contains(&30) && !got.contains(&1));
        let pos = |pid| got.iter().position(|&p| p == pid).unwrap();
        assert!(pos(13) < pos(12) && pos(12) < pos(11) && pos(11) < pos(10));
    }

    #[test]
    fn tree_order_does_not_depend_on_how_roots_are_given() {
        let table = vec![
            row(10, 1, 10),
            row(11, 10, 10),
            row(12, 11, 10),
            row(13, 12, 10),
        ];
        // Every process given as a root, parents first: still children first.
        assert_eq!(
            pids(&collect_tree(&table, &[10, 11, 12, 13], &[])),
            [13, 12, 11, 10]
        );
        assert_eq!(
            pids(&collect_tree(&table, &[13, 10], &[])),
            [13, 12, 11, 10]
        );
        assert!(collect_tree(&table, &[99], &[]).is_empty());
    }

    #[test]
    fn tree_does_not_walk_through_the_protected_process() {
        let table = vec![
            row(10, 1, 10),
            row(11, 10, 10),
            row(12, 11, 10),
            row(13, 10, 10),
        ];
        assert_eq!(pids(&walk(&table, &[10], &[], Some(11))), [13, 10]);
        // Below it, only what is named: a root, or a member of a named group.
        assert_eq!(pids(&walk(&table, &[10, 12], &[], Some(11))), [13, 10, 12]);
        assert_eq!(pids(&walk(&table, &[10], &[10], Some(11))), [13, 10, 12]);
        assert_eq!(pids(&walk(&table, &[11], &[], Some(11))), [12, 11]);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn left_behind_finds_a_marked_process_and_the_members_of_a_session() {
        use std::os::unix::process::CommandExt;
        let value = format!("left-behind-{}", std::process::id());
        let mut marked = std::process::Command::new("sleep")
            .arg("30")
            .env("PTYPILOT_TEST_MARK", &value)
            .spawn()
            .unwrap();
        // Without the marker, in a session of its own: found by its session
        // id only. (Not our own session: where the session leader lives
        // outside this pid namespace, as in a container, its id reads 0.)
        let mut leader = std::process::Command::new("sleep");
        leader.arg("30");
        // SAFETY: setsid is async-signal-safe; nothing else runs in the child.
        unsafe {
            leader.pre_exec(|| {
                nix::unistd::setsid()
                    .map(drop)
                    .map_err(std::io::Error::from)
            });
        }
        let mut leader = leader.spawn().unwrap();
        let leader_pid = leader.id() as Pid;
        let by_env = pids(&left_behind(0, "PTYPILOT_TEST_MARK", &value));
        assert_eq!(by_env, [marked.id() as Pid]);
        assert!(left_behind(0, "PTYPILOT_TEST_MARK", "another").is_empty());
        let in_session = pids(&left_behind(leader_pid, "PTYPILOT_TEST_MARK", &value));
        assert!(in_session.contains(&(marked.id() as Pid)) && in_session.contains(&leader_pid));
        assert_eq!(in_session.len(), 2, "{in_session:?}");
        // The calling process is never reported, even in its own session.
        let own_sid = info(std::process::id() as Pid).unwrap().sid;
        assert!(
            !pids(&left_behind(own_sid, "PTYPILOT_TEST_MARK", &value))
                .contains(&(std::process::id() as Pid))
        );
        marked.kill().unwrap();
        leader.kill().unwrap();
        marked.wait().unwrap();
        leader.wait().unwrap();
        // Gone (reaped): no longer reported.
        assert!(left_behind(0, "PTYPILOT_TEST_MARK", &value).is_empty());
    }

    #[test]
    fn cmdline_keeps_empty_arguments() {
        assert_eq!(split_cmdline(b"sh\0-c\0\0x\0"), ["sh", "-c", "", "x"]);
        assert_eq!(split_cmdline(b""), Vec::<String>::new());
        assert_eq!(split_cmdline(b"prog"), ["prog"]);
    }

    #[test]
    fn signal_names_and_numbers() {
        assert_eq!(parse_signal("SIGTERM").unwrap(), Signal::SIGTERM);
        assert_eq!(parse_signal("term").unwrap(), Signal::SIGTERM);
        assert_eq!(parse_signal(" sigint ").unwrap(), Signal::SIGINT);
        assert_eq!(parse_signal("9").unwrap(), Signal::SIGKILL);
        let err = parse_signal("SIGNOPE").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArg);
        assert!(err.message.contains("SIGNOPE") && err.message.contains("SIGKILL"));
        let err = parse_signal("999").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArg);
        assert!(err.message.contains("999"));
        assert!(parse_signal("").is_err());
        assert_eq!(signal_from_number(15).unwrap(), Signal::SIGTERM);
        assert!(signal_from_number(0).is_err());
        assert_eq!(signal_name(9), "SIGKILL");
        assert_eq!(signal_name(15), "SIGTERM");
    }

    #[cfg(target_os = "linux")]
    mod live {
        use std::process::{Child, Command};
        use std::time::Duration;

        use super::*;

        /// A shell child that is killed with its tree if the test fails.
        struct Sh(Child);

        impl Drop for Sh {
            fn drop(&mut self) {
                if let Some(me) = ProcRef::of(self.0.id() as Pid) {
                    kill_tree(&me, Signal::SIGKILL);
                }
                let _ = self.0.wait();
            }
        }

        fn spawn(script: &str) -> (Sh, ProcRef) {
            let child = Command::new("sh").args(["-c", script]).spawn().unwrap();
            let me = ProcRef::of(child.id() as Pid).unwrap();
            (Sh(child), me)
        }

        fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
            for _ in 0..500 {
                if ok() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            panic!("timed out waiting until {what}");
        }

        fn runtime() -> tokio::runtime::Runtime {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
        }

        #[test]
        fn a_thread_id_is_not_a_process() {
            let me = std::process::id() as Pid;
            assert_eq!(find(me).map(|i| i.pid), Some(me));
            let (tx, rx) = std::sync::mpsc::channel();
            let (done, wait) = std::sync::mpsc::channel::<()>();
            let thread = std::thread::spawn(move || {
                // SAFETY: gettid has no preconditions.
                tx.send(unsafe { libc::gettid() }).unwrap();
                let _ = wait.recv();
            });
            let tid = rx.recv().unwrap();
            // /proc/<tid> answers for the live thread, but it is not a process.
            assert!(info(tid).is_some());
            assert!(find(tid).is_none());
            done.send(()).unwrap();
            thread.join().unwrap();
        }

        #[test]
        fn own_process_is_alive_and_stale_ref_is_not() {
            let me = ProcRef::of(std::process::id() as Pid).unwrap();
            assert!(me.alive());
            let stale = ProcRef {
                pid: me.pid,
                start_time: me.start_time + 1,
            };
            assert!(!stale.alive());
            assert!(!stale.signal(Signal::SIGCONT));
        }

        #[test]
        fn stale_ref_cannot_signal_the_process_that_reused_its_pid() {
            use std::os::unix::process::ExitStatusExt;
            let (mut child, real) = spawn("exec sleep 30");
            // What a reference to an earlier process with the same pid looks like.
            let stale = ProcRef {
                pid: real.pid,
                start_time: real.start_time.saturating_sub(1),
            };
            assert!(!stale.signal(Signal::SIGKILL));
            assert_eq!(kill_tree(&stale, Signal::SIGKILL), 0);
            assert!(stale.args().is_none());
            assert!(
                child.0.try_wait().unwrap().is_none(),
                "the live process was signalled"
            );
            assert!(real.signal(Signal::SIGKILL));
            assert_eq!(child.0.wait().unwrap().signal(), Some(libc::SIGKILL));
            assert!(!real.alive() && !real.signal(Signal::SIGKILL));
        }

        #[test]
        fn args_and_children_of_a_real_process() {
            let (mut child, sh) = spawn("sleep 30 & wait");
            wait_until("sleep started", || !sh.children().is_empty());
            let kids = sh.children();
            assert_eq!(kids.len(), 1);
            // The child shows up as soon as it is forked; its argv once it
            // has exec'ed `sleep`.
            wait_until("sleep exec'ed", || {
                kids[0].args().is_some_and(|a| a == ["sleep", "30"])
            });
            assert_eq!(sh.args().unwrap(), ["sh", "-c", "sleep 30 & wait"]);
            // Children first: the sleep, then the shell, unless the shell's
            // `wait` saw the sleep die and it exited before its own signal.
            let signalled = kill_tree(&sh, Signal::SIGTERM);
            assert!((1..=2).contains(&signalled), "signalled {signalled}");
            child.0.wait().unwrap();
            wait_until("sleep exited", || !kids[0].alive());
        }

        #[test]
        fn hard_kill_catches_a_parent_that_respawns_children() {
            // A supervisor that restarts its child as soon as it dies.
            let (mut child, sh) = spawn("while :; do sleep 31.5 & wait; done");
            wait_until("first child", || !sh.children().is_empty());
            let mut known = Vec::new();
            // The shell and its child, and any child it was forking just then.
            assert!(kill_hard(&[sh], &[], &mut known) >= 2);
            child.0.wait().unwrap();
            let rt = runtime();
            let gone = rt.block_on(wait_exit(
                &known,
                Some(Duration::from_secs(5)),
                &CancellationToken::new(),
            ));
            assert_eq!(gone, Ok(true));
            // No replacement child is running either.
            let survivors: Vec<ProcInfo> = list()
                .into_iter()
                .filter(|p| {
                    !p.exited() && p.as_ref().args().is_some_and(|a| a == ["sleep", "31.5"])
                })
                .collect();
            assert!(survivors.is_empty(), "{survivors:?}");
        }

        #[test]
        fn wait_exit_times_out_then_sees_the_exit_and_can_be_cancelled() {
            let (mut child, sh) = spawn("exec sleep 30");
            let rt = runtime();
            let never = CancellationToken::new();
            assert_eq!(
                rt.block_on(wait_exit(&[sh], Some(Duration::from_millis(20)), &never)),
                Ok(false)
            );
            let cancelled = CancellationToken::new();
            cancelled.cancel();
            let err = rt.block_on(wait_exit(&[sh], None, &cancelled)).unwrap_err();
            assert_eq!(err.code, ErrorCode::Aborted);
            sh.signal(Signal::SIGKILL);
            assert_eq!(rt.block_on(wait_exit(&[sh], None, &never)), Ok(true));
            child.0.wait().unwrap();
        }

        #[test]
        fn terminate_kills_a_process_that_ignores_term() {
            let (mut child, sh) = spawn("trap '' TERM; sleep 30 & wait; wait");
            wait_until("sleep started", || !sh.children().is_empty());
            let options = Terminate {
                grace: Some(Duration::from_millis(50)),
                ..Terminate::default()
            };
            let gone = runtime().block_on(terminate(sh, &options, &CancellationToken::new()));
            assert_eq!(gone, Ok(true));
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(child.0.wait().unwrap().signal(), Some(libc::SIGKILL));
        }
    }
}
