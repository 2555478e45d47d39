//! The bridge into a Linux network namespace: the child's step (after it
//! entered its new namespace, before `execve`) and the parent's receipt.
//!
//! The child, holding `CAP_NET_ADMIN` in the namespace (root, or the owner
//! of the user namespace made with it): brings `lo` up (`SIOCSIFFLAGS`) and
//! listens on `127.0.0.1:PORT` for the proxy's port and each `local` port
//! ([`ChildStep::listen`]); at the end of the sandbox's steps (after
//! no-new-privs) it installs the observer filter, which hands each
//! `connect` and each `sendto` with an address to this process (seccomp
//! user notification), and sends the listening sockets and the observer's
//! descriptor over the socket pair made before the fork (`SCM_RIGHTS`, one
//! message; [`ChildStep::finish`]). The parent accepts on the listeners
//! ([`super::Bridge`]): connections it accepts come from inside the
//! namespace, and the namespace lives as long as the program or the
//! parent's listeners do.
//!
//! The observer ([`observe`]) decides nothing: it reads the address a call
//! names, lets the call go on (`SECCOMP_USER_NOTIF_FLAG_CONTINUE`, so the
//! kernel answers it: no route), and notes a connection to anything but
//! loopback as a refusal: "a direct connection to 93.184.216.34:443", "a
//! DNS query to 10.0.0.2:53", "UDP to ...". When the session ends its
//! descriptor closes and such calls fail with `ENOSYS` instead.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// Most listeners one program gets: the proxy's and the `local` ports.
const MAX_FDS: usize = super::MAX_LOCAL_PORTS + 1;

/// The control-message buffer, aligned for `cmsghdr`.
#[repr(C, align(8))]
struct CmsgBuf([u8; 128]);

/// What the child does: made in the parent, no allocation after the fork.
pub(crate) struct ChildStep {
    channel: OwnedFd,
    ports: [u16; MAX_FDS],
    count: usize,
    observer: [libc::sock_filter; 11],
}

/// The listeners the child made, until it sends them.
pub(crate) type Listeners = [libc::c_int; MAX_FDS];

/// `AUDIT_ARCH_*` of this build (seccomp_data.arch).
#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;
#[cfg(target_arch = "riscv64")]
const AUDIT_ARCH: u32 = 0xC000_00F3;

/// The observer's program: `connect`, and `sendto` with an address
/// (argument 4 not NULL), go to the supervisor; everything else is allowed
/// (the sandbox's own filters refuse what they refuse).
fn observer_filter() -> [libc::sock_filter; 11] {
    const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const RET_K: u16 = 0x06; // BPF_RET | BPF_K
    const ALLOW: u32 = 0x7fff_0000;
    let op = |code, jt, jf, k| libc::sock_filter { code, jt, jf, k };
    [
        op(LD_W_ABS, 0, 0, 4),                         // 0: arch
        op(JEQ_K, 0, 7, AUDIT_ARCH),                   // 1: other arch -> 9
        op(LD_W_ABS, 0, 0, 0),                         // 2: nr
        op(JEQ_K, 6, 0, libc::SYS_connect as u32),     // 3: -> 10
        op(JEQ_K, 0, 4, libc::SYS_sendto as u32),      // 4: other -> 9
        op(LD_W_ABS, 0, 0, 48),                        // 5: args[4] low
        op(JEQ_K, 0, 3, 0),                            // 6: set -> 10
        op(LD_W_ABS, 0, 0, 52),                        // 7: args[4] high
        op(JEQ_K, 0, 1, 0),                            // 8: set -> 10
        op(RET_K, 0, 0, ALLOW),                        // 9
        op(RET_K, 0, 0, libc::SECCOMP_RET_USER_NOTIF), // 10
    ]
}

/// The parent's end: receives the listeners once the program started.
pub(crate) struct ParentEnd {
    channel: OwnedFd,
    count: usize,
}

/// The socket pair and both ends' parts; `ports`: the proxy's port first,
/// then the `local` ones.
pub(crate) fn pair(ports: &[u16]) -> io::Result<(ParentEnd, ChildStep)> {
    if ports.len() > MAX_FDS || ports.is_empty() {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
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
    let (parent, child) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let mut all = [0u16; MAX_FDS];
    all[..ports.len()].copy_from_slice(ports);
    Ok((
        ParentEnd {
            channel: parent,
            count: ports.len(),
        },
        ChildStep {
            channel: child,
            ports: all,
            count: ports.len(),
            observer: observer_filter(),
        },
    ))
}

fn errno() -> i32 {
    // SAFETY: glibc's per-thread errno location.
    unsafe { *libc::__errno_location() }
}

impl ChildStep {
    /// Brings `lo` up and listens on each port; the listeners.
    ///
    /// # Safety
    /// In the child of a `fork`, inside its new network namespace, before
    /// `execve`: system calls only, on memory made before the fork.
    pub(crate) unsafe fn listen(&self) -> Result<Listeners, i32> {
        // SAFETY (the whole body): system calls on locals and on the
        // ports made before the fork.
        unsafe {
            let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
            if s < 0 {
                return Err(errno());
            }
            let mut ifr: libc::ifreq = std::mem::zeroed();
            for (d, b) in ifr.ifr_name.iter_mut().zip(b"lo\0") {
                *d = *b as libc::c_char;
            }
            if libc::ioctl(s, libc::SIOCGIFFLAGS as _, &mut ifr) != 0 {
                let e = errno();
                libc::close(s);
                return Err(e);
            }
            ifr.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            let up = libc::ioctl(s, libc::SIOCSIFFLAGS as _, &ifr);
            let e = errno();
            libc::close(s);
            if up != 0 {
                return Err(e);
            }
            let mut fds: Listeners = [-1; MAX_FDS];
            for (slot, &port) in fds.iter_mut().zip(&self.ports[..self.count]) {
                let l = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
                if l < 0 {
                    return Err(errno());
                }
                *slot = l;
                let one: libc::c_int = 1;
                libc::setsockopt(
                    l,
                    libc::SOL_SOCKET,
                    libc::SO_REUSEADDR,
                    (&one as *const libc::c_int).cast(),
                    4,
                );
                let mut addr: libc::sockaddr_in = std::mem::zeroed();
                addr.sin_family = libc::AF_INET as libc::sa_family_t;
                addr.sin_port = port.to_be();
                addr.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
                if libc::bind(
                    l,
                    (&addr as *const libc::sockaddr_in).cast(),
                    std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
                ) != 0
                    || libc::listen(l, 512) != 0
                {
                    return Err(errno());
                }
            }
            Ok(fds)
        }
    }

    /// Installs the observer filter and sends the listeners and its
    /// descriptor to the parent; closes the child's copies.
    ///
    /// # Safety
    /// As [`ChildStep::listen`], after `PR_SET_NO_NEW_PRIVS`.
    pub(crate) unsafe fn finish(&self, listeners: Listeners) -> Result<(), i32> {
        // SAFETY: system calls on the program and descriptors made before
        // the fork, and on locals.
        unsafe {
            let prog = libc::sock_fprog {
                len: self.observer.len() as u16,
                filter: self.observer.as_ptr() as *mut libc::sock_filter,
            };
            let notify = libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
                &prog as *const libc::sock_fprog,
            );
            if notify < 0 {
                return Err(errno());
            }
            let mut fds = [-1 as libc::c_int; MAX_FDS + 1];
            fds[..self.count].copy_from_slice(&listeners[..self.count]);
            fds[self.count] = notify as libc::c_int;
            let failed = send_fds(self.channel.as_raw_fd(), &fds[..=self.count]);
            for fd in fds {
                if fd >= 0 {
                    libc::close(fd);
                }
            }
            libc::close(self.channel.as_raw_fd());
            if failed != 0 { Err(failed) } else { Ok(()) }
        }
    }
}

/// Sends `fds` in one message over `channel`; 0 or the errno.
///
/// # Safety
/// As [`ChildStep::run`].
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
        if libc::sendmsg(channel, &msg, libc::MSG_NOSIGNAL) < 0 {
            return errno();
        }
        0
    }
}

impl ParentEnd {
    /// The listeners the child sent and the observer's descriptor (sent
    /// before its `execve`, so here once the program started);
    /// `WouldBlock` when none came.
    pub(crate) fn receive(&self) -> io::Result<(Vec<std::net::TcpListener>, OwnedFd)> {
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
        if out.len() != self.count + 1 {
            return Err(io::Error::other(format!(
                "the sandboxed program sent {} of its {} descriptors",
                out.len(),
                self.count + 1
            )));
        }
        let notify = out.pop().expect("counted");
        Ok((
            out.into_iter().map(std::net::TcpListener::from).collect(),
            notify,
        ))
    }
}

/// Serves the observer's notifications (see the module's comment) until
/// its descriptor hangs up; refusals go to `log`.
pub(crate) async fn observe(notify: OwnedFd, log: super::NetLog) {
    use tokio::io::unix::AsyncFd;
    // SAFETY: the descriptor is owned by the AsyncFd and never closed
    // while registered (it is dropped with it).
    let Ok(afd) =
        (unsafe { AsyncFd::register_with_interest(notify, tokio::io::Interest::READABLE) })
    else {
        return;
    };
    loop {
        let Ok(mut guard) = afd.readable().await else {
            return;
        };
        let fd = afd.get_ref().as_raw_fd();
        loop {
            let mut pfd = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: polls one descriptor we own, without waiting.
            if unsafe { libc::poll(&mut pfd, 1, 0) } <= 0 {
                break;
            }
            if pfd.revents & libc::POLLIN == 0 {
                // Hung up: every process under the filter is gone.
                return;
            }
            // SAFETY: the kernel wants a zeroed request to fill.
            let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
            // SAFETY: fills `req`, ours.
            if unsafe { libc::ioctl(fd, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut req) } != 0 {
                // ENOENT: the caller died meanwhile.
                continue;
            }
            if let Some(what) = describe(&req) {
                log.push(what);
            }
            let mut resp = libc::seccomp_notif_resp {
                id: req.id,
                val: 0,
                error: 0,
                flags: libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32,
            };
            // SAFETY: answers the request with a response we own.
            unsafe { libc::ioctl(fd, libc::SECCOMP_IOCTL_NOTIF_SEND, &mut resp) };
        }
        guard.clear_ready();
    }
}

/// The refusal a trapped call is, when it names an address other than
/// loopback (none can be reached from the namespace).
fn describe(req: &libc::seccomp_notif) -> Option<String> {
    let connect = req.data.nr == libc::SYS_connect as i32;
    let (ptr, len) = if connect {
        (req.data.args[1], req.data.args[2])
    } else {
        (req.data.args[4], req.data.args[5])
    };
    let mut buf = [0u8; 28];
    let n = (len as usize).min(buf.len());
    let local = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: n,
    };
    let remote = libc::iovec {
        iov_base: ptr as *mut libc::c_void,
        iov_len: n,
    };
    // SAFETY: reads `n` bytes of the calling process into our buffer.
    let got = unsafe { libc::process_vm_readv(req.pid as libc::pid_t, &local, 1, &remote, 1, 0) };
    if got < 4 {
        return None;
    }
    let family = u16::from_ne_bytes([buf[0], buf[1]]) as i32;
    let port = u16::from_be_bytes([buf[2], buf[3]]);
    let ip: std::net::IpAddr = match family {
        libc::AF_INET if got >= 8 => std::net::Ipv4Addr::new(buf[4], buf[5], buf[6], buf[7]).into(),
        libc::AF_INET6 if got >= 24 => {
            let mut a = [0u8; 16];
            a.copy_from_slice(&buf[8..24]);
            let v6 = std::net::Ipv6Addr::from(a);
            v6.to_ipv4_mapped().map_or(v6.into(), Into::into)
        }
        _ => return None,
    };
    if ip.is_loopback() || ip.is_unspecified() {
        return None;
    }
    let at = match ip {
        std::net::IpAddr::V6(v6) => format!("[{v6}]:{port}"),
        v4 => format!("{v4}:{port}"),
    };
    Some(if port == 53 {
        format!(
            "a DNS query to {at} (the sandbox has no DNS; only the proxy is reachable, set HTTPS_PROXY)"
        )
    } else if connect {
        format!("a direct connection to {at} (only the proxy is reachable; set HTTPS_PROXY)")
    } else {
        format!("UDP to {at} (only the proxy is reachable; set HTTPS_PROXY)")
    })
}
