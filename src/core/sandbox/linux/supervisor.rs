//! The sandbox's supervisor: a seccomp user-notification listener that
//! ptypilot's process holds for every sandboxed program, and that makes the
//! calls which reach a socket by its address (`connect`, `sendto` with an
//! address, `sendmsg`, `sendmmsg`) itself, on the program's behalf.
//!
//! Why: Landlock (up to ABI 7) has no right for `connect` to a pathname Unix
//! socket, and a list of sockets made at start cannot know one bound later,
//! renamed, hard-linked, reached through a symlink, bound with a relative
//! path or in another network namespace. The supervisor decides on the
//! socket itself, in the kernel path:
//!
//! - **The child** (after the other seccomp filters, before `execve`)
//!   installs [`filter`] with `SECCOMP_FILTER_FLAG_NEW_LISTENER` (and
//!   `WAIT_KILLABLE_RECV`: once the supervisor holds a call, only a fatal
//!   signal interrupts it, so a call is never made twice; Go's `SIGURG`
//!   waits), sends the listener (with the network bridge's listeners) to
//!   this process over a socket pair (`SCM_RIGHTS`), and installs [`seal`].
//!   That one `sendmsg` carries a flag bit the filter lets through
//!   ([`HANDOVER`]); the seal then refuses any `sendmsg` with that bit
//!   (`EINVAL`), so the program cannot use it. The kernel allows one
//!   listener per filter chain (`EBUSY` for a second), so this one serves
//!   the network observer too.
//! - **The supervisor** ([`start`]: one thread per program) receives each
//!   call, takes the program's socket (`pidfd_getfd`) and makes the call
//!   on it with the address and data it copied from the program
//!   (`process_vm_readv`), answering the result; it never lets the program's
//!   own call go on (`SECCOMP_USER_NOTIF_FLAG_CONTINUE` re-reads the address
//!   and descriptor after the check: another thread could change them).
//!   A call that may block runs on a thread of its own, so that the others
//!   are not held up.
//! - **A pathname Unix address** is resolved as the program sees it: from
//!   its root (`/proc/PID/root`, `openat2` with `RESOLVE_IN_ROOT`), its
//!   working directory for a relative path, never through a `/proc` magic
//!   link (`RESOLVE_NO_MAGICLINKS`), to an `O_PATH` descriptor. That inode
//!   must be a socket, and is allowed when it lies on a mount of the
//!   program's namespace that holds a writable root or is one of the private
//!   `tmpfs` folders (`statx` `STATX_MNT_ID` against `/proc/PID/mountinfo`),
//!   or is the inode of a socket named in `allowUnixSockets` (looked up again
//!   at each call); one named in `denyUnixSockets` is refused even there.
//!   The call is then made to `/proc/self/fd/N` of that very descriptor, so
//!   what was checked is what is reached. A refusal is `EACCES` and a line
//!   in the program's log ("a connection to the Unix socket /x/y (...)").
//! - **An abstract address**: with a network namespace of its own the
//!   abstract names are the sandbox's own, and the call is made as asked;
//!   without one, a stream connection is made and kept only when the
//!   listening process is in the sandbox's mount namespace (`SO_PEERCRED`),
//!   as Landlock's scope would; a datagram to an abstract name is refused
//!   (`EPERM`: its maker cannot be told).
//! - **Any other address** (IP) is used as given; with the network by host
//!   name, one that is not loopback is noted as the observer did ("a direct
//!   connection to 93.184.216.34:443", "a DNS query to ...", "UDP to ...").
//!
//! The calls are made with ptypilot's credentials; a program run as another
//! user (`runAs`) has its own taken by the thread that makes its call. The
//! server sees ptypilot's pid as the peer's (`SO_PEERCRED`,
//! `SCM_CREDENTIALS`). The supervisor serves until the last process under
//! the filter is gone (the listener hangs up), so a process the program
//! left behind stays under the same checks after the session ended; when
//! ptypilot's own process ends the listener closes, and such a process then
//! gets `ENOSYS` from these calls (fail-closed).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::errno;
use crate::core::net_proxy::NetLog;

/// The flag bit of `sendmsg` that carries the child's handover past the
/// filter; the seal refuses it afterwards.
const HANDOVER: u32 = 0x0100_0000;

/// Most descriptors in the handover: the bridge's listeners and the
/// listener of the filter.
pub(crate) const MAX_FDS: usize = crate::core::net_proxy::MAX_LOCAL_PORTS + 2;

/// `SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV` (Linux 5.19).
const WAIT_KILLABLE_RECV: libc::c_ulong = 1 << 5;

/// `PIDFD_THREAD` (Linux 6.9): a pidfd for a thread.
const PIDFD_THREAD: libc::c_uint = libc::O_EXCL as libc::c_uint;

/// `openat2`'s `RESOLVE_NO_MAGICLINKS` and `RESOLVE_IN_ROOT`.
const RESOLVE_NO_MAGICLINKS: u64 = 0x02;
const RESOLVE_IN_ROOT: u64 = 0x10;

/// The most data one call carries on the program's behalf (a datagram is
/// smaller; a stream write of more is written in part, as it may be).
const MAX_DATA: usize = 4 << 20;

/// Most messages of one `sendmmsg` (`UIO_MAXIOV`).
const MAX_MESSAGES: usize = 1024;

/// `AUDIT_ARCH_*` of this build (seccomp_data.arch).
#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;
#[cfg(target_arch = "riscv64")]
const AUDIT_ARCH: u32 = 0xC000_00F3;

const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JSET_K: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const RET_K: u16 = 0x06; // BPF_RET | BPF_K
const ALLOW: u32 = 0x7fff_0000;

fn op(code: u16, jt: u8, jf: u8, k: u32) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// The supervisor's program: `connect`, `sendmmsg`, `sendto` with an
/// address (argument 4 not NULL) and `sendmsg` without [`HANDOVER`] go to
/// the listener; everything else is allowed (the sandbox's other filters
/// refuse what they refuse: an errno wins over a notification).
fn filter() -> [libc::sock_filter; 16] {
    const NOTIFY: u32 = libc::SECCOMP_RET_USER_NOTIF;
    [
        op(LD_W_ABS, 0, 0, 4),                       // 0: arch
        op(JEQ_K, 0, 12, AUDIT_ARCH),                // 1: other -> 14
        op(LD_W_ABS, 0, 0, 0),                       // 2: nr
        op(JEQ_K, 11, 0, libc::SYS_connect as u32),  // 3: -> 15
        op(JEQ_K, 10, 0, libc::SYS_sendmmsg as u32), // 4: -> 15
        op(JEQ_K, 2, 0, libc::SYS_sendto as u32),    // 5: -> 8
        op(JEQ_K, 5, 0, libc::SYS_sendmsg as u32),   // 6: -> 12
        op(RET_K, 0, 0, ALLOW),                      // 7
        op(LD_W_ABS, 0, 0, 48),                      // 8: args[4] low
        op(JEQ_K, 0, 5, 0),                          // 9: set -> 15
        op(LD_W_ABS, 0, 0, 52),                      // 10: args[4] high
        op(JEQ_K, 2, 3, 0),                          // 11: NULL -> 14, set -> 15
        op(LD_W_ABS, 0, 0, 32),                      // 12: args[2] low (flags)
        op(JSET_K, 0, 1, HANDOVER),                  // 13: handover -> 14, else 15
        op(RET_K, 0, 0, ALLOW),                      // 14
        op(RET_K, 0, 0, NOTIFY),                     // 15
    ]
}

/// Installed right after the handover: `sendmsg` with [`HANDOVER`] is
/// `EINVAL` from then on.
fn seal() -> [libc::sock_filter; 8] {
    [
        op(LD_W_ABS, 0, 0, 4),                              // 0: arch
        op(JEQ_K, 0, 4, AUDIT_ARCH),                        // 1: other -> 6
        op(LD_W_ABS, 0, 0, 0),                              // 2: nr
        op(JEQ_K, 0, 2, libc::SYS_sendmsg as u32),          // 3: other -> 6
        op(LD_W_ABS, 0, 0, 32),                             // 4: flags
        op(JSET_K, 1, 0, HANDOVER),                         // 5: set -> 7
        op(RET_K, 0, 0, ALLOW),                             // 6
        op(RET_K, 0, 0, 0x0005_0000 | libc::EINVAL as u32), // 7: SECCOMP_RET_ERRNO
    ]
}

/// The control-message buffer, aligned for `cmsghdr`.
#[repr(C, align(8))]
struct CmsgBuf([u8; 128]);

/// What the child does: made in the parent, no allocation after the fork.
pub(crate) struct ChildStep {
    channel: OwnedFd,
    filter: [libc::sock_filter; 16],
    seal: [libc::sock_filter; 8],
}

/// The parent's end: receives the listener (and the bridge's listeners)
/// once the program started.
pub(crate) struct ParentEnd {
    channel: OwnedFd,
}

/// The socket pair between the parent and the child, and both ends.
pub(crate) fn pair() -> io::Result<(ParentEnd, ChildStep)> {
    let (parent, child) = socket_pair()?;
    Ok((
        ParentEnd { channel: parent },
        ChildStep {
            channel: child,
            filter: filter(),
            seal: seal(),
        },
    ))
}

/// Installs `prog` with `flags`; the listener or -1.
///
/// # Safety
/// As [`ChildStep::finish`].
unsafe fn install(prog: &[libc::sock_filter], flags: libc::c_ulong) -> libc::c_long {
    let fprog = libc::sock_fprog {
        len: prog.len() as u16,
        filter: prog.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: the kernel copies the program, which outlives the call.
    unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            flags,
            &fprog as *const libc::sock_fprog,
        )
    }
}

impl ChildStep {
    /// Installs the supervisor's filter, sends `extra` and its listener to
    /// the parent in one message, closes them, and installs the seal.
    ///
    /// # Safety
    /// In the child of a `fork`, after `PR_SET_NO_NEW_PRIVS`, before
    /// `execve`: system calls only, on memory made before the fork.
    pub(crate) unsafe fn finish(&self, extra: &[libc::c_int]) -> Result<(), i32> {
        // SAFETY (the whole body): system calls on the programs and
        // descriptors made before the fork, and on locals.
        unsafe {
            let listener = libc::SECCOMP_FILTER_FLAG_NEW_LISTENER as libc::c_ulong;
            let mut notify = install(&self.filter, listener | WAIT_KILLABLE_RECV);
            if notify < 0 && errno() == libc::EINVAL {
                // Before Linux 5.19: a signal may interrupt a call being made.
                notify = install(&self.filter, listener);
            }
            if notify < 0 {
                return Err(errno());
            }
            let mut fds = [-1 as libc::c_int; MAX_FDS];
            let n = extra.len().min(MAX_FDS - 1);
            fds[..n].copy_from_slice(&extra[..n]);
            fds[n] = notify as libc::c_int;
            let failed = send_fds(self.channel.as_raw_fd(), &fds[..=n]);
            for fd in &fds[..=n] {
                libc::close(*fd);
            }
            libc::close(self.channel.as_raw_fd());
            if failed != 0 {
                return Err(failed);
            }
            if install(&self.seal, 0) != 0 {
                return Err(errno());
            }
            Ok(())
        }
    }
}

/// Sends `fds` in one message over `channel` with [`HANDOVER`]; 0 or the
/// errno.
///
/// # Safety
/// As [`ChildStep::finish`].
unsafe fn send_fds(channel: libc::c_int, fds: &[libc::c_int]) -> i32 {
    // SAFETY: the control buffer is ours, large enough for MAX_FDS
    // descriptors; CMSG_* only compute addresses within it.
    unsafe {
        let mut byte = [0u8; 1];
        let mut iov = libc::iovec {
            iov_base: byte.as_mut_ptr().cast(),
            iov_len: 1,
        };
        let mut buf = CmsgBuf([0; 128]);
        let data_len = std::mem::size_of_val(fds) as u32;
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = buf.0.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(data_len) as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(data_len) as _;
        std::ptr::copy_nonoverlapping(
            fds.as_ptr().cast::<u8>(),
            libc::CMSG_DATA(cmsg),
            data_len as usize,
        );
        if libc::sendmsg(channel, &msg, libc::MSG_NOSIGNAL | HANDOVER as libc::c_int) < 0 {
            return errno();
        }
        0
    }
}

impl ParentEnd {
    /// The descriptors the child sent, the listener of its filter last;
    /// `WouldBlock` when none came (the program did not start).
    pub(crate) fn receive(&self) -> io::Result<(Vec<OwnedFd>, OwnedFd)> {
        let mut byte = [0u8; 1];
        let mut iov = libc::iovec {
            iov_base: byte.as_mut_ptr().cast(),
            iov_len: 1,
        };
        let mut buf = CmsgBuf([0; 128]);
        // SAFETY: a zeroed msghdr pointing at our locals.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = buf.0.as_mut_ptr().cast();
        msg.msg_controllen = buf.0.len() as _;
        // SAFETY: recvmsg fills our buffers.
        let n = unsafe {
            libc::recvmsg(
                self.channel.as_raw_fd(),
                &mut msg,
                libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC,
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut out = Vec::new();
        // SAFETY: walks the control messages the kernel wrote into `buf`.
        unsafe {
            let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
            while !cmsg.is_null() {
                if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                    let bytes = (*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                    let data = libc::CMSG_DATA(cmsg).cast::<libc::c_int>();
                    for i in 0..bytes / 4 {
                        let fd = std::ptr::read_unaligned(data.add(i));
                        out.push(OwnedFd::from_raw_fd(fd));
                    }
                }
                cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
            }
        }
        let notify = out
            .pop()
            .ok_or_else(|| io::Error::other("the sandboxed program sent no descriptor"))?;
        Ok((out, notify))
    }
}

/// What the supervisor decides by.
pub(crate) struct Rules {
    /// The writable roots, as the program sees them (the same paths).
    pub writable: Vec<PathBuf>,
    /// The private `tmpfs` folders.
    pub private: Vec<PathBuf>,
    /// `allowUnixSockets`, absolute, as named (looked up at each call).
    pub allowed: Vec<PathBuf>,
    /// `denyUnixSockets` (or the default list), absolute.
    pub denied: Vec<PathBuf>,
    /// The program has a network namespace of its own (the network by host
    /// name): its abstract names are its own, and IP connections that
    /// bypass the proxy are noted.
    pub own_network: bool,
}

/// What the threads of one program's supervisor share.
struct Shared {
    rules: Rules,
    log: NetLog,
    /// The ids of the mounts where a socket is the sandbox's own (read from
    /// the program's mountinfo at the first pathname call; the program
    /// cannot mount).
    mounts: Mutex<Option<Vec<u64>>>,
    /// The answers of the calls made on threads of their own.
    answers: OwnedFd,
}

/// The supervisor of one program: it runs on its own thread until the last
/// process under its filter is gone, whoever holds this.
pub(crate) struct Supervisor;

impl std::fmt::Debug for Supervisor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Supervisor")
    }
}

fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: socketpair writes two descriptors into the array we own.
    if unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just made and are ours.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Serves the program's listener `notify` on a thread of its own until
/// every process under the filter is gone; then calls `ended`.
pub(crate) fn start(
    notify: OwnedFd,
    rules: Rules,
    log: NetLog,
    ended: Option<Box<dyn FnOnce() + Send>>,
) -> io::Result<Supervisor> {
    // Called when dropped: at the end, or on a failure here.
    let ended = OnEnd(ended);
    let (answers_read, answers) = socket_pair()?;
    let shared = Arc::new(Shared {
        rules,
        log,
        mounts: Mutex::new(None),
        answers,
    });
    std::thread::Builder::new()
        .name("ptypilot-sandbox".to_owned())
        .stack_size(256 << 10)
        .spawn(move || {
            serve(notify, answers_read, shared);
            drop(ended);
        })?;
    Ok(Supervisor)
}

/// Calls what it holds when dropped.
struct OnEnd(Option<Box<dyn FnOnce() + Send>>);

impl Drop for OnEnd {
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            f();
        }
    }
}

/// An answer: the call's result, or its errno.
type Outcome = Result<i64, i32>;

fn reply(notify: RawFd, id: u64, outcome: Outcome) {
    let (val, error) = match outcome {
        Ok(v) => (v, 0),
        Err(e) => (0, -e),
    };
    let mut resp = libc::seccomp_notif_resp {
        id,
        val,
        error,
        flags: 0,
    };
    // SAFETY: answers the call with a response we own. ENOENT (the caller
    // is gone) needs nothing.
    unsafe { libc::ioctl(notify, libc::SECCOMP_IOCTL_NOTIF_SEND, &mut resp) };
}

fn serve(notify: OwnedFd, answers: OwnedFd, shared: Arc<Shared>) {
    let nfd = notify.as_raw_fd();
    loop {
        let mut pfds = [
            libc::pollfd {
                fd: nfd,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: answers.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: polls two descriptors we own.
        if unsafe { libc::poll(pfds.as_mut_ptr(), 2, -1) } < 0 {
            if errno() == libc::EINTR {
                continue;
            }
            return;
        }
        if pfds[1].revents & libc::POLLIN != 0 {
            let mut rec = [0u8; 20];
            // SAFETY: reads whole records into our buffer without waiting.
            while unsafe {
                libc::recv(
                    answers.as_raw_fd(),
                    rec.as_mut_ptr().cast(),
                    rec.len(),
                    libc::MSG_DONTWAIT,
                )
            } == rec.len() as isize
            {
                let id = u64::from_ne_bytes(rec[..8].try_into().expect("8 bytes"));
                let val = i64::from_ne_bytes(rec[8..16].try_into().expect("8 bytes"));
                let err = i32::from_ne_bytes(rec[16..].try_into().expect("4 bytes"));
                reply(nfd, id, if err != 0 { Err(err) } else { Ok(val) });
            }
        }
        let r = pfds[0].revents;
        if r & libc::POLLIN != 0 {
            // SAFETY: the kernel wants a zeroed request to fill.
            let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
            // SAFETY: fills `req`, ours. An error (ENOENT: the caller was
            // interrupted or died before this read) skips it.
            if unsafe { libc::ioctl(nfd, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut req) } == 0 {
                dispatch(nfd, &req, &shared);
            }
        } else if r & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            // Every process under the filter is gone.
            return;
        }
    }
}

/// One trapped call, with the program's socket in hand.
struct Call {
    id: u64,
    tid: libc::pid_t,
    nr: i64,
    args: [u64; 6],
    pidfd: OwnedFd,
    sock: OwnedFd,
    domain: i32,
    kind: i32,
}

fn last_errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// A pidfd for the thread `tid`.
fn pidfd(tid: libc::pid_t) -> Result<OwnedFd, i32> {
    // SAFETY: pidfd_open makes a descriptor we then own.
    let mut fd = unsafe { libc::syscall(libc::SYS_pidfd_open, tid, PIDFD_THREAD) };
    if fd < 0 && errno() == libc::EINVAL {
        // Before Linux 6.9: the thread group's leader (same descriptors).
        let status =
            std::fs::read_to_string(format!("/proc/{tid}/status")).map_err(|_| libc::ESRCH)?;
        let tgid: libc::pid_t = status
            .lines()
            .find_map(|l| l.strip_prefix("Tgid:"))
            .and_then(|v| v.trim().parse().ok())
            .ok_or(libc::ESRCH)?;
        // SAFETY: as above.
        fd = unsafe { libc::syscall(libc::SYS_pidfd_open, tgid, 0) };
    }
    if fd < 0 {
        return Err(last_errno());
    }
    // SAFETY: just made, ours.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// The program's descriptor `fd`, duplicated into this process.
fn take_fd(pidfd: &OwnedFd, fd: u64) -> Result<OwnedFd, i32> {
    let fd = i32::try_from(fd as i64).map_err(|_| libc::EBADF)?;
    // SAFETY: pidfd_getfd makes a descriptor we then own.
    let got = unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), fd, 0) };
    if got < 0 {
        return Err(errno());
    }
    // SAFETY: just made, ours; close-on-exec is set by the kernel.
    Ok(unsafe { OwnedFd::from_raw_fd(got as RawFd) })
}

fn sock_int(sock: &OwnedFd, name: libc::c_int) -> Result<i32, i32> {
    let mut v: libc::c_int = 0;
    let mut len = 4 as libc::socklen_t;
    // SAFETY: getsockopt writes an int into our local.
    if unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            name,
            (&mut v as *mut libc::c_int).cast(),
            &mut len,
        )
    } != 0
    {
        return Err(last_errno());
    }
    Ok(v)
}

fn id_valid(notify: RawFd, id: u64) -> bool {
    let mut id = id;
    // SAFETY: the kernel reads the id.
    unsafe { libc::ioctl(notify, libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &mut id) == 0 }
}

fn dispatch(nfd: RawFd, req: &libc::seccomp_notif, shared: &Arc<Shared>) {
    let id = req.id;
    let call = (|| -> Result<Call, i32> {
        let pidfd = pidfd(req.pid as libc::pid_t)?;
        // The pid names the caller while the call waits (no reuse).
        if !id_valid(nfd, id) {
            return Err(libc::ENOENT);
        }
        let sock = take_fd(&pidfd, req.data.args[0])?;
        let domain = sock_int(&sock, libc::SO_DOMAIN)?;
        let kind = sock_int(&sock, libc::SO_TYPE)?;
        Ok(Call {
            id,
            tid: req.pid as libc::pid_t,
            nr: req.data.nr as i64,
            args: req.data.args,
            pidfd,
            sock,
            domain,
            kind,
        })
    })();
    let call = match call {
        Ok(c) => c,
        Err(e) => return reply(nfd, id, Err(e)),
    };
    // A call that cannot wait, made for a program of this process's user,
    // is made here: a datagram sent without waiting, a connection of a
    // non-blocking socket. The others (one that may wait, one made as
    // another user) run on a thread of their own.
    let datagram = call.kind == libc::SOCK_DGRAM || call.kind == libc::SOCK_SEQPACKET;
    let quick = match call.nr {
        n if n == libc::SYS_connect => !blocking(&call.sock),
        n if n == libc::SYS_sendto || n == libc::SYS_sendmsg => datagram,
        _ => false,
    };
    if quick && same_user(call.tid) {
        let sends = call.nr != libc::SYS_connect;
        match handle(&call, shared, sends) {
            // It would wait where the program would: on a thread.
            Err(libc::EAGAIN) if sends && blocking(&call.sock) && !wants_nowait(&call) => {}
            outcome => return reply(nfd, id, outcome),
        }
    }
    let shared_ = shared.clone();
    let spawned = std::thread::Builder::new()
        .name("ptypilot-sandbox-call".to_owned())
        .stack_size(256 << 10)
        .spawn(move || {
            as_program(call.tid);
            let outcome = handle(&call, &shared_, false);
            let mut rec = [0u8; 20];
            let (val, err) = match outcome {
                Ok(v) => (v, 0),
                Err(e) => (0, e),
            };
            rec[..8].copy_from_slice(&call.id.to_ne_bytes());
            rec[8..16].copy_from_slice(&val.to_ne_bytes());
            rec[16..].copy_from_slice(&err.to_ne_bytes());
            // SAFETY: sends our record; a supervisor gone refuses it.
            unsafe {
                libc::send(
                    shared_.answers.as_raw_fd(),
                    rec.as_ptr().cast(),
                    rec.len(),
                    libc::MSG_NOSIGNAL,
                )
            };
        });
    if spawned.is_err() {
        reply(nfd, id, Err(libc::EAGAIN));
    }
}

/// The socket waits in its calls (no `O_NONBLOCK`).
fn blocking(sock: &OwnedFd) -> bool {
    // SAFETY: reads the descriptor's flags.
    let flags = unsafe { libc::fcntl(sock.as_raw_fd(), libc::F_GETFL) };
    flags >= 0 && flags & libc::O_NONBLOCK == 0
}

/// The call asked not to wait (`MSG_DONTWAIT`).
fn wants_nowait(call: &Call) -> bool {
    let flags = if call.nr == libc::SYS_sendto {
        call.args[3]
    } else {
        call.args[2]
    };
    flags as i32 & libc::MSG_DONTWAIT != 0
}

/// The thread `tid` runs as this process's user and group (not `runAs`).
fn same_user(tid: libc::pid_t) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid and getegid have no preconditions.
    let (euid, egid) = unsafe { (libc::geteuid(), libc::getegid()) };
    std::fs::metadata(format!("/proc/{tid}")).is_ok_and(|m| m.uid() == euid && m.gid() == egid)
}

/// Reads `len` bytes at `addr` of the process `tid`.
fn read_mem(tid: libc::pid_t, addr: u64, len: usize) -> Result<Vec<u8>, i32> {
    let mut buf = vec![0u8; len];
    if crate::core::proc_tree::read_memory(tid, addr, &mut buf) {
        Ok(buf)
    } else {
        Err(libc::EFAULT)
    }
}

fn write_mem(tid: libc::pid_t, addr: u64, bytes: &[u8]) {
    let local = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    let remote = libc::iovec {
        iov_base: addr as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    // SAFETY: writes our bytes into the calling process.
    unsafe { libc::process_vm_writev(tid, &local, 1, &remote, 1, 0) };
}

/// One message as the program passed it: the address, the data (gathered
/// from its iovecs) and the control messages (its descriptors duplicated).
struct Message {
    name: Vec<u8>,
    data: Vec<u8>,
    control: Vec<u8>,
    /// The descriptors `control` names, held until it is sent.
    _fds: Vec<OwnedFd>,
}

/// `struct msghdr` at `addr` of the caller, read.
fn read_message(call: &Call, addr: u64) -> Result<Message, i32> {
    let raw = read_mem(call.tid, addr, std::mem::size_of::<libc::msghdr>())?;
    // SAFETY: msghdr is plain data; the bytes are its size.
    let hdr: libc::msghdr = unsafe { std::ptr::read_unaligned(raw.as_ptr().cast()) };
    let name = if hdr.msg_name.is_null() || hdr.msg_namelen == 0 {
        Vec::new()
    } else {
        let len = hdr.msg_namelen as usize;
        if len > std::mem::size_of::<libc::sockaddr_storage>() {
            return Err(libc::EINVAL);
        }
        read_mem(call.tid, hdr.msg_name as u64, len)?
    };
    let count = hdr.msg_iovlen as usize;
    if count > MAX_MESSAGES {
        return Err(libc::EMSGSIZE);
    }
    let iov_raw = read_mem(
        call.tid,
        hdr.msg_iov as u64,
        count * std::mem::size_of::<libc::iovec>(),
    )?;
    let mut data = Vec::new();
    for chunk in iov_raw.chunks_exact(std::mem::size_of::<libc::iovec>()) {
        // SAFETY: iovec is plain data; the chunk is its size.
        let iov: libc::iovec = unsafe { std::ptr::read_unaligned(chunk.as_ptr().cast()) };
        let take = iov.iov_len.min(MAX_DATA.saturating_sub(data.len()));
        if take == 0 {
            continue;
        }
        data.extend(read_mem(call.tid, iov.iov_base as u64, take)?);
    }
    let (control, fds) = if hdr.msg_control.is_null() || hdr.msg_controllen == 0 {
        (Vec::new(), Vec::new())
    } else {
        if hdr.msg_controllen > 64 << 10 {
            return Err(libc::ENOBUFS);
        }
        let mut control = read_mem(call.tid, hdr.msg_control as u64, hdr.msg_controllen)?;
        let fds = translate_rights(call, &mut control)?;
        (control, fds)
    };
    Ok(Message {
        name,
        data,
        control,
        _fds: fds,
    })
}

/// Replaces the descriptor numbers of each `SCM_RIGHTS` in `control` with
/// this process's duplicates of the program's; the duplicates.
fn translate_rights(call: &Call, control: &mut [u8]) -> Result<Vec<OwnedFd>, i32> {
    let header = std::mem::size_of::<libc::cmsghdr>();
    let mut held = Vec::new();
    let mut at = 0;
    while at + header <= control.len() {
        // SAFETY: cmsghdr is plain data; `header` bytes are there.
        let c: libc::cmsghdr = unsafe { std::ptr::read_unaligned(control[at..].as_ptr().cast()) };
        let len = c.cmsg_len as usize;
        if len < header || at + len > control.len() {
            return Err(libc::EINVAL);
        }
        if c.cmsg_level == libc::SOL_SOCKET && c.cmsg_type == libc::SCM_RIGHTS {
            for slot in control[at + header..at + len].chunks_exact_mut(4) {
                let fd = i32::from_ne_bytes(slot.try_into().expect("4 bytes"));
                let ours = take_fd(&call.pidfd, fd as u32 as u64)?;
                slot.copy_from_slice(&ours.as_raw_fd().to_ne_bytes());
                held.push(ours);
            }
        }
        at += (len + 7) & !7;
    }
    Ok(held)
}

/// The address of a `sockaddr_un` naming `fd` by `/proc/self/fd/N`.
fn proc_fd_name(fd: &OwnedFd) -> Vec<u8> {
    let path = format!("/proc/self/fd/{}", fd.as_raw_fd());
    let mut name = (libc::AF_UNIX as u16).to_ne_bytes().to_vec();
    name.extend(path.as_bytes());
    name.push(0);
    name
}

/// What a pathname Unix address of the program reaches.
enum Verdict {
    /// This socket (an `O_PATH` descriptor of it).
    Allow(OwnedFd),
    /// Refused: the reason, for the log.
    Refuse(String),
    /// The errno the kernel would give (no such file, not a socket).
    Fail(i32),
}

/// What an address is.
enum Address<'a> {
    /// A Unix socket by path (the bytes before the first NUL).
    Path(&'a [u8]),
    /// An abstract Unix socket (its name, after the NUL).
    Abstract(&'a [u8]),
    /// Anything else: used as given.
    Other,
}

fn classify(name: &[u8]) -> Address<'_> {
    if name.len() <= 2 || u16::from_ne_bytes([name[0], name[1]]) != libc::AF_UNIX as u16 {
        return Address::Other;
    }
    let path = &name[2..];
    if path[0] == 0 {
        return Address::Abstract(&path[1..]);
    }
    let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
    Address::Path(&path[..end])
}

/// Makes the call on the program's behalf; `nowait`: a send that would
/// wait fails with `EAGAIN` instead.
fn handle(call: &Call, shared: &Shared, nowait: bool) -> Outcome {
    let extra = if nowait { libc::MSG_DONTWAIT } else { 0 };
    let unix = call.domain == libc::AF_UNIX;
    match call.nr {
        n if n == libc::SYS_connect => {
            let len = call.args[2] as usize;
            if len > std::mem::size_of::<libc::sockaddr_storage>() {
                return Err(libc::EINVAL);
            }
            let name = read_mem(call.tid, call.args[1], len)?;
            let name = if unix {
                match address_for(call, shared, &name, true)? {
                    Some(n) => n,
                    None => return Err(libc::EPERM),
                }
            } else {
                observe(shared, &name, true);
                name
            };
            let r = raw_connect(&call.sock, &name);
            if r.is_ok() && unix && !shared.rules.own_network {
                if let Address::Abstract(n) = classify(&name) {
                    return abstract_peer_check(call, shared, n);
                }
            }
            r.map(|()| 0)
        }
        n if n == libc::SYS_sendto => {
            let len = call.args[5] as usize;
            if len > std::mem::size_of::<libc::sockaddr_storage>() {
                return Err(libc::EINVAL);
            }
            let name = read_mem(call.tid, call.args[4], len)?;
            let data = read_mem(
                call.tid,
                call.args[1],
                (call.args[2] as usize).min(MAX_DATA),
            )?;
            let msg = Message {
                name,
                data,
                control: Vec::new(),
                _fds: Vec::new(),
            };
            send_one(call, shared, msg, call.args[3] as i32 | extra)
        }
        n if n == libc::SYS_sendmsg => {
            let msg = read_message(call, call.args[1])?;
            send_one(call, shared, msg, call.args[2] as i32 | extra)
        }
        n if n == libc::SYS_sendmmsg => {
            let count = (call.args[2] as usize).min(MAX_MESSAGES);
            let size = std::mem::size_of::<libc::mmsghdr>();
            let mut sent = 0;
            for i in 0..count {
                let at = call.args[1] + (i * size) as u64;
                let one = read_message(call, at)
                    .and_then(|m| send_one(call, shared, m, call.args[3] as i32));
                match one {
                    Ok(n) => {
                        let len_at = at + std::mem::size_of::<libc::msghdr>() as u64;
                        write_mem(call.tid, len_at, &(n as u32).to_ne_bytes());
                        sent += 1;
                    }
                    Err(e) if sent == 0 => return Err(e),
                    Err(_) => break,
                }
            }
            Ok(sent)
        }
        _ => Err(libc::ENOSYS),
    }
}

/// The address to use for the program's `name` on a Unix socket: a checked
/// path as `/proc/self/fd/N`, the rest as given; `None`: refused (noted).
/// A path that does not resolve fails as the kernel would.
fn address_for(
    call: &Call,
    shared: &Shared,
    name: &[u8],
    connect: bool,
) -> Result<Option<Vec<u8>>, i32> {
    match classify(name) {
        Address::Path(path) => match check_path(call, shared, path) {
            Verdict::Allow(fd) => {
                let n = proc_fd_name(&fd);
                // The descriptor must outlive the call: keep it with the thread.
                KEEP.with(|k| k.borrow_mut().push(fd));
                Ok(Some(n))
            }
            Verdict::Refuse(why) => {
                let what = if connect {
                    "a connection to"
                } else {
                    "a datagram to"
                };
                shared.log.push(format!(
                    "{what} the Unix socket {} ({why})",
                    shown(call.tid, path)
                ));
                Err(libc::EACCES)
            }
            Verdict::Fail(e) => Err(e),
        },
        Address::Abstract(n) if !shared.rules.own_network && !connect_stream(call, connect) => {
            shared.log.push(format!(
                "a datagram to the abstract Unix socket @{} (the sandbox cannot tell who made an abstract datagram socket)",
                String::from_utf8_lossy(n).trim_end_matches('\0')
            ));
            Ok(None)
        }
        _ => Ok(Some(name.to_vec())),
    }
}

thread_local! {
    /// The checked descriptors of this thread's call, until it ends.
    static KEEP: std::cell::RefCell<Vec<OwnedFd>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn connect_stream(call: &Call, connect: bool) -> bool {
    connect && (call.kind == libc::SOCK_STREAM || call.kind == libc::SOCK_SEQPACKET)
}

/// A stream connection to an abstract name, made: kept when the listening
/// process is in the sandbox (its mount namespace), as Landlock's scope
/// would; otherwise shut and refused.
fn abstract_peer_check(call: &Call, shared: &Shared, name: &[u8]) -> Outcome {
    let mut cred: libc::ucred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt writes a ucred into our local.
    let ok = unsafe {
        libc::getsockopt(
            call.sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    } == 0;
    let ns = |pid: libc::pid_t| std::fs::read_link(format!("/proc/{pid}/ns/mnt")).ok();
    if ok && cred.pid > 0 && ns(cred.pid).is_some() && ns(cred.pid) == ns(call.tid) {
        return Ok(0);
    }
    // SAFETY: shuts the socket we hold a duplicate of.
    unsafe { libc::shutdown(call.sock.as_raw_fd(), libc::SHUT_RDWR) };
    shared.log.push(format!(
        "a connection to the abstract Unix socket @{} (made outside the sandbox)",
        String::from_utf8_lossy(name).trim_end_matches('\0')
    ));
    Err(libc::EPERM)
}

/// Sends one message on the program's behalf; the bytes sent.
fn send_one(call: &Call, shared: &Shared, msg: Message, flags: i32) -> Outcome {
    let name = if msg.name.is_empty() {
        Vec::new()
    } else if call.domain == libc::AF_UNIX {
        match address_for(call, shared, &msg.name, false)? {
            Some(n) => n,
            None => return Err(libc::EPERM),
        }
    } else {
        observe(shared, &msg.name, false);
        msg.name.clone()
    };
    let mut iov = libc::iovec {
        iov_base: msg.data.as_ptr() as *mut libc::c_void,
        iov_len: msg.data.len(),
    };
    // SAFETY: a zeroed msghdr pointing at our buffers.
    let mut hdr: libc::msghdr = unsafe { std::mem::zeroed() };
    if !name.is_empty() {
        hdr.msg_name = name.as_ptr() as *mut libc::c_void;
        hdr.msg_namelen = name.len() as libc::socklen_t;
    }
    hdr.msg_iov = &mut iov;
    hdr.msg_iovlen = 1;
    if !msg.control.is_empty() {
        hdr.msg_control = msg.control.as_ptr() as *mut libc::c_void;
        hdr.msg_controllen = msg.control.len() as _;
    }
    // SAFETY: sends from our buffers on our duplicate of the socket.
    let n = unsafe { libc::sendmsg(call.sock.as_raw_fd(), &hdr, flags | libc::MSG_NOSIGNAL) };
    let result = if n < 0 {
        Err(last_errno())
    } else {
        Ok(n as i64)
    };
    if result == Err(libc::EPIPE) && flags & libc::MSG_NOSIGNAL == 0 {
        // The program asked for SIGPIPE: it gets it, as from its own call.
        // SAFETY: signals the calling thread.
        unsafe {
            libc::syscall(
                libc::SYS_tgkill,
                tgid(call.tid).unwrap_or(call.tid),
                call.tid,
                libc::SIGPIPE,
            )
        };
    }
    KEEP.with(|k| k.borrow_mut().clear());
    result
}

fn tgid(tid: libc::pid_t) -> Option<libc::pid_t> {
    let status = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))
        .and_then(|v| v.trim().parse().ok())
}

fn raw_connect(sock: &OwnedFd, name: &[u8]) -> Result<(), i32> {
    // SAFETY: connects our duplicate of the socket to the address we own.
    let r = unsafe {
        libc::connect(
            sock.as_raw_fd(),
            name.as_ptr().cast(),
            name.len() as libc::socklen_t,
        )
    };
    KEEP.with(|k| k.borrow_mut().clear());
    if r != 0 { Err(last_errno()) } else { Ok(()) }
}

/// With the network by host name: notes an IP address that bypasses the
/// proxy (see `net_proxy::linux::describe`).
fn observe(shared: &Shared, name: &[u8], connect: bool) {
    if shared.rules.own_network
        && let Some(what) = crate::core::net_proxy::linux::describe(name, connect)
    {
        shared.log.push(what);
    }
}

/// `path` as the line shows it: a relative one after the program's
/// working directory.
fn shown(tid: libc::pid_t, path: &[u8]) -> String {
    let text = String::from_utf8_lossy(path).into_owned();
    if path.first() == Some(&b'/') {
        return text;
    }
    match std::fs::read_link(format!("/proc/{tid}/cwd")) {
        Ok(cwd) => cwd.join(&text).to_string_lossy().into_owned(),
        Err(_) => text,
    }
}

/// `statx` of a descriptor: its type, device, inode and mount.
#[repr(C)]
struct Statx {
    mask: u32,
    blksize: u32,
    attributes: u64,
    nlink: u32,
    uid: u32,
    gid: u32,
    mode: u16,
    _spare0: u16,
    ino: u64,
    size: u64,
    blocks: u64,
    attributes_mask: u64,
    _times: [u64; 8],
    rdev_major: u32,
    rdev_minor: u32,
    dev_major: u32,
    dev_minor: u32,
    mnt_id: u64,
    _spare: [u64; 13],
}

fn statx(dirfd: RawFd, path: &CString, flags: i32) -> Option<Statx> {
    // SAFETY: the kernel fills a zeroed struct of the size it expects.
    let mut st: Statx = unsafe { std::mem::zeroed() };
    let r = unsafe {
        libc::syscall(
            libc::SYS_statx,
            dirfd,
            path.as_ptr(),
            flags,
            libc::STATX_TYPE | libc::STATX_INO | libc::STATX_MNT_ID,
            &mut st as *mut Statx,
        )
    };
    (r == 0).then_some(st)
}

fn same_inode(a: &Statx, b: &Statx) -> bool {
    a.ino == b.ino && a.dev_major == b.dev_major && a.dev_minor == b.dev_minor
}

/// Decides on the Unix socket `path` names for the program (see the
/// module's comment).
fn check_path(call: &Call, shared: &Shared, path: &[u8]) -> Verdict {
    let fd = match resolve(call.tid, path) {
        Ok(fd) => fd,
        Err(libc::ELOOP) if path.starts_with(b"/proc/") => {
            return Verdict::Refuse(
                "reached through /proc, which the sandbox does not follow for a socket".to_owned(),
            );
        }
        Err(e) => return Verdict::Fail(e),
    };
    let empty = CString::default();
    let Some(st) = statx(fd.as_raw_fd(), &empty, libc::AT_EMPTY_PATH) else {
        return Verdict::Fail(libc::ECONNREFUSED);
    };
    if st.mode as u32 & libc::S_IFMT != libc::S_IFSOCK {
        // What the kernel says of a path that is not a socket.
        return Verdict::Fail(libc::ECONNREFUSED);
    }
    let host = |list: &[PathBuf]| {
        list.iter().any(|p| {
            CString::new(p.as_os_str().as_bytes())
                .ok()
                .and_then(|c| statx(libc::AT_FDCWD, &c, 0))
                .is_some_and(|other| same_inode(&st, &other))
        })
    };
    if host(&shared.rules.allowed) {
        return Verdict::Allow(fd);
    }
    if host(&shared.rules.denied) {
        return Verdict::Refuse("denyUnixSockets names it".to_owned());
    }
    if own_mounts(shared, call.tid).contains(&st.mnt_id) {
        return Verdict::Allow(fd);
    }
    Verdict::Refuse(
        "outside the writable roots; allowUnixSockets names the ones a program may reach"
            .to_owned(),
    )
}

/// The mounts of the program's namespace whose sockets are the sandbox's
/// own: those at or beneath a writable root, and the private `tmpfs`
/// folders themselves (not what is bound inside them from outside).
fn own_mounts(shared: &Shared, tid: libc::pid_t) -> Vec<u64> {
    let mut known = shared.mounts.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(m) = known.as_ref() {
        return m.clone();
    }
    let Ok(table) = std::fs::read_to_string(format!("/proc/{tid}/mountinfo")) else {
        return Vec::new();
    };
    let mut ids = Vec::new();
    for line in table.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let (Some(id), Some(point)) = (fields.first(), fields.get(4)) else {
            continue;
        };
        let fstype = fields
            .iter()
            .position(|f| *f == "-")
            .and_then(|i| fields.get(i + 1))
            .copied()
            .unwrap_or("");
        let point = PathBuf::from(unescape(point));
        let own = shared.rules.writable.iter().any(|w| point.starts_with(w))
            || (fstype == "tmpfs" && shared.rules.private.contains(&point));
        if own && let Ok(id) = id.parse() {
            ids.push(id);
        }
    }
    *known = Some(ids.clone());
    ids
}

/// A mountinfo field with its octal escapes (`\040`) undone.
fn unescape(field: &str) -> std::ffi::OsString {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    std::ffi::OsString::from(std::ffi::OsStr::from_bytes(&out))
}

#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

fn openat2(dir: RawFd, path: &[u8], resolve: u64) -> Result<OwnedFd, i32> {
    let c = CString::new(path).map_err(|_| libc::EINVAL)?;
    let how = OpenHow {
        flags: (libc::O_PATH | libc::O_CLOEXEC) as u64,
        mode: 0,
        resolve,
    };
    // SAFETY: the kernel reads the path and the struct we own.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir,
            c.as_ptr(),
            &how as *const OpenHow,
            std::mem::size_of::<OpenHow>(),
        )
    };
    if fd < 0 {
        return Err(last_errno());
    }
    // SAFETY: just made, ours.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// `path` as the program `tid` sees it (its root, its working directory),
/// never through a magic link; an `O_PATH` descriptor.
fn resolve(tid: libc::pid_t, path: &[u8]) -> Result<OwnedFd, i32> {
    if path.is_empty() {
        return Err(libc::ENOENT);
    }
    let proc_path = |what: &str| {
        let c = CString::new(format!("/proc/{tid}/{what}")).expect("no NUL");
        // SAFETY: opens a path we own.
        let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if fd < 0 {
            Err(last_errno())
        } else {
            // SAFETY: just made, ours.
            Ok(unsafe { OwnedFd::from_raw_fd(fd) })
        }
    };
    let root = proc_path("root")?;
    let in_root = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    if path[0] == b'/' {
        return openat2(root.as_raw_fd(), path, in_root);
    }
    let cwd = proc_path("cwd")?;
    // The working directory's path in the program's view, when it still
    // names that folder: then absolute symlinks on the way resolve in the
    // program's root too.
    if let Ok(text) = std::fs::read_link(format!("/proc/{tid}/cwd"))
        && text.is_absolute()
        && let Ok(named) = openat2(root.as_raw_fd(), text.as_os_str().as_bytes(), in_root)
    {
        let empty = CString::default();
        if let (Some(a), Some(b)) = (
            statx(named.as_raw_fd(), &empty, libc::AT_EMPTY_PATH),
            statx(cwd.as_raw_fd(), &empty, libc::AT_EMPTY_PATH),
        ) && same_inode(&a, &b)
            && a.mnt_id == b.mnt_id
        {
            let mut full = text.as_os_str().as_bytes().to_vec();
            full.push(b'/');
            full.extend_from_slice(path);
            return openat2(root.as_raw_fd(), &full, in_root);
        }
    }
    // Otherwise from the folder itself (an absolute symlink on the way
    // then leads where this process sees it: never to the sandbox's own
    // mounts, so refused).
    openat2(cwd.as_raw_fd(), path, RESOLVE_NO_MAGICLINKS)
}

/// On a thread that makes a call for a program run as another user: takes
/// that user's ids and groups (raw system calls: this thread only).
fn as_program(tid: libc::pid_t) {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{tid}/status")) else {
        return;
    };
    let ids = |key: &str| -> Vec<u32> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| {
                v.split_whitespace()
                    .filter_map(|x| x.parse().ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    let (uids, gids, groups) = (ids("Uid:"), ids("Gid:"), ids("Groups:"));
    if uids.len() < 3 || gids.len() < 3 {
        return;
    }
    // SAFETY: geteuid and getegid have no preconditions.
    let (euid, egid) = unsafe { (libc::geteuid(), libc::getegid()) };
    if uids[1] == euid && gids[1] == egid {
        return;
    }
    // SAFETY: raw system calls on this thread's own credentials.
    unsafe {
        libc::syscall(libc::SYS_setgroups, groups.len(), groups.as_ptr());
        libc::syscall(libc::SYS_setresgid, gids[0], gids[1], gids[2]);
        libc::syscall(libc::SYS_setresuid, uids[0], uids[1], uids[2]);
    }
}

/// The private `tmpfs` folders (for [`Rules`]).
pub(crate) fn private_dirs() -> Vec<PathBuf> {
    super::namespaces::PRIVATE
        .iter()
        .map(|(p, _)| Path::new(p).to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_escapes_are_undone() {
        assert_eq!(unescape(r"/a\040b"), std::ffi::OsString::from("/a b"));
        assert_eq!(unescape("/plain"), std::ffi::OsString::from("/plain"));
    }

    #[test]
    fn addresses_are_told_apart() {
        let mut path = (libc::AF_UNIX as u16).to_ne_bytes().to_vec();
        path.extend(b"/x/y\0");
        assert!(matches!(classify(&path), Address::Path(b"/x/y")));
        let mut abs = (libc::AF_UNIX as u16).to_ne_bytes().to_vec();
        abs.extend(b"\0name");
        assert!(matches!(classify(&abs), Address::Abstract(b"name")));
        let ip = (libc::AF_INET as u16).to_ne_bytes().to_vec();
        assert!(matches!(classify(&ip), Address::Other));
    }
}
